"""keybench: which primary-key and row-key designs make Spanner and Bigtable hotspot,
and what each fix costs on the read side."""

__version__ = "0.2.0"
