"""Small cloud functions that ship with the stacks (packaged from these directories)."""
