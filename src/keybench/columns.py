"""Every column of keybench's result files, named in one place: summary.csv (SUMMARY_COLUMNS,
with the split model's VERDICT_COLUMNS and MODEL_COLUMNS among them), timeseries.csv and
`keybench analyze`'s rows. Readers check a file's columns against these."""

from __future__ import annotations

ANALYSIS_COLUMNS = ("nodes", "hot_space", "hot_node_share", "effective_nodes", "write_throughput_vs_ideal",
                    "read_ranges_touched", "mean_key_bytes", "windows", "writes", "table_rows", "index_entries")


MODEL_COLUMNS = ("model_space", "model_nodes", "hot_node_share", "effective_nodes", "write_throughput_vs_ideal",
                 "hot_row_share", "rewrite_share", "max_row_writes", "row_mb_per_hour", "read_ranges_touched",
                 "mean_key_bytes", "model_windows", "verdict_reason")
VERDICT_COLUMNS = ("verdict", "agrees")


SCHEMA_VERSION = 4  # 2 added p50_intended_ms, p99_intended_ms and the split model's columns;
# 3: `documented` holds the distribution only where a document states it (empty otherwise),
# and the strategy's provenance follows at the end (PROVENANCE_COLUMNS);
# 4: the answer first: `verdict` and `agrees` after the operation, and the model's row figures
SUMMARY_COLUMNS = (
    "schema_version", "backend", "strategy", "dialect", "operation",
    *VERDICT_COLUMNS,  # modelled: the split model's verdict over the stage's key stream, and whether it is the claim
    "access",
    "requests", "failures", "cut_off", "aborts", "collisions", "emulator_bound", "rps", "p50_ms", "p90_ms", "p99_ms",
    "max_ms", "mean_ms",
    "p50_intended_ms", "p99_intended_ms", "rows_per_op", "rows_scanned_per_op", "fanout", "wrong_rows", "missing_rows",
    "integrity", "acknowledged", "stored",
    "lost", "duplicates", "unexpected", "unknown_outcome", "unknown_stored", "fresh_emulator", "documented", "note",
    "repetitions", "p50_min_ms", "p50_max_ms", "p99_min_ms", "p99_max_ms", "batch_size",
    # modelled, not measured: the split model over the stage's recorded key stream
    *MODEL_COLUMNS,
    "expected", "source", "advice",
)


TIMESERIES_COLUMNS = ("schema_version", "second", "elapsed_s", "backend", "strategy", "dialect", "operation",
                      "ops", "failures", "p50_ms", "p99_ms")
