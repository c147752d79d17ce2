"""The scenario editor (File > New scenario): a paintable matrix in which a lecturer builds an
example without writing TOML, saved as a scenario file."""
