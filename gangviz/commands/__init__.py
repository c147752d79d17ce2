"""Sub-commands of the gangviz command line; each module provides register(subparsers)."""
