def bench_command():
    """placeholder"""
