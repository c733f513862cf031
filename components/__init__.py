"""trainstack components: the spec, the catalog, and one GPU-cluster component per cloud."""
