"""trainstack.reap."""
