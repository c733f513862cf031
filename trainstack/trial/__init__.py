"""`trainstack trial`: the seed article's choose-by-measuring loop (§3.2) as one command.

A layer above measure/ and below cli/: it drives deploy (up/destroy), measure (status records,
bench) and cost (trial pricing, compare --measured); nothing but the CLI imports it."""
