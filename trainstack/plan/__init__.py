"""trainstack.plan."""
