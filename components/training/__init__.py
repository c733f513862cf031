"""Training-side helpers that trainstack ships to the nodes for user scripts (need PyTorch)."""
