"""Measuring: the collector, the audit, each stage's record, the summary, the run directory,
the console tables, compare and the report."""
