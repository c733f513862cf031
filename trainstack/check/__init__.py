"""trainstack.check."""
