"""trainstack.measure."""
