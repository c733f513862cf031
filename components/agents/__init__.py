"""Standalone scripts that run on the nodes (stdlib only), with the unit files that start them."""
