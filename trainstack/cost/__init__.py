"""trainstack.cost."""
