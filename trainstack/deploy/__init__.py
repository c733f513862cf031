"""trainstack.deploy."""
