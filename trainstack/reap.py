"""placeholder"""
def reap_command():
    """Tear down idle trainstack stacks."""
