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
# Observed, not modelled: what a real service reported of the stage's own keys (--target real).
OBSERVED_COLUMNS = ("observed", "observed_score", "observed_space", "observed_where", "observed_range",
                    "observed_write_share", "observed_agrees")


SCHEMA_VERSION = 5  # 2 added p50_intended_ms, p99_intended_ms and the split model's columns;
# 3: `documented` holds the distribution only where a document states it (empty otherwise),
# and the strategy's provenance follows at the end (PROVENANCE_COLUMNS);
# 4: the answer first: `verdict` and `agrees` after the operation, and the model's row figures;
# 5: a design's verdict, figures and source move to verdicts.csv (VERDICTS_FILE_COLUMNS), once per
# design instead of on every operation's row; `too_few_samples` after the latency figures
SUMMARY_COLUMNS = (
    "schema_version", "backend", "strategy", "dialect", "operation",
    "access",
    "requests", "failures", "cut_off", "aborts", "collisions", "emulator_bound", "rps", "p50_ms", "p90_ms", "p99_ms",
    "max_ms", "mean_ms", "too_few_samples",
    "p50_intended_ms", "p99_intended_ms", "rows_per_op", "rows_scanned_per_op", "fanout", "wrong_rows", "missing_rows",
    "integrity", "acknowledged", "stored",
    "lost", "duplicates", "unexpected", "unknown_outcome", "unknown_stored", "fresh_emulator",
    "repetitions", "p50_min_ms", "p50_max_ms", "p99_min_ms", "p99_max_ms", "batch_size",
    "read_ranges_touched",  # modelled, per read operation
)
# verdicts.csv: one row per design (backend, strategy, dialect), the same for all its operations.
VERDICTS_FILE_COLUMNS = (
    "schema_version", "backend", "strategy", "dialect",
    *VERDICT_COLUMNS,  # modelled: the split model's verdict over the stage's key stream, and whether it is the claim
    "expected", "documented",
    # modelled, not measured: the split model over the stage's recorded key stream
    *(c for c in MODEL_COLUMNS if c != "read_ranges_touched"),
    *OBSERVED_COLUMNS,  # observed by a real service (--target real), beside the modelled columns
    "note", "source", "advice",
)
# A summary row as keybench holds it before writing: the operation's figures and its design's.
ROW_COLUMNS = (*SUMMARY_COLUMNS, *VERDICTS_FILE_COLUMNS[4:])


TIMESERIES_COLUMNS = ("schema_version", "second", "elapsed_s", "backend", "strategy", "dialect", "operation",
                      "ops", "failures", "p50_ms", "p99_ms")

REPETITION_COLUMNS = ("schema_version", "backend", "strategy", "dialect", "operation", "repetition", "requests",
                      "failures", "rps", "p50_ms", "p90_ms", "p99_ms")


# What each column means, for the reference the docs generate (docs/hooks/reference.py fails
# the docs build when a column has none). "modelled" marks the split model's figures; the rest
# are measured on the emulator or instance.

SUMMARY_DESCRIPTIONS = {
    "schema_version": (
        "format version of this file (4; version 4 adds `verdict` and `agrees` after `operation` and the "
        "model's row figures; version 2 added `p50_intended_ms`, `p99_intended_ms` and the modelled columns; "
        "version 3 keeps `documented` for designs whose distribution a document states and adds `expected`, "
        "`source` and `advice`; `keybench compare` reads every version)"
    ),
    "backend": "`spanner` or `bigtable`",
    "strategy": "canonical strategy name (`schemas/<backend>/<strategy>/`)",
    "dialect": "`googlesql` or `postgresql` for Spanner, empty for Bigtable",
    "operation": (
        "one of: `insert`; `point_read`; `latest_n` (the newest 10 rows of one user or device; an interleaved "
        "design reads the user's parent row with them, access `...+parent`); `prefix_scan` (all rows of one "
        "device, site or tenant device); `time_window` (every row of the last 2 s); `number_range` (the rows "
        "with 100 consecutive insert numbers); `tenant_drop` (one prefix delete of a whole tenant, after the "
        "load)"
    ),
    "verdict": (
        "**modelled**: the design's verdict (`hotspot`, `hot_row`, `spread` or `inconclusive`) from the split "
        "model over the stage's key stream, and whether it is the strategy's `expected` distribution "
        "(`yes`/`no`; `n/a` for your own design, `--strategy-dir`, which expects nothing). They follow "
        "`operation`, so the answer comes first; the same on every row of a strategy. See \"The verdict\" "
        "below"
    ),
    "agrees": (
        "**modelled**: the design's verdict (`hotspot`, `hot_row`, `spread` or `inconclusive`) from the split "
        "model over the stage's key stream, and whether it is the strategy's `expected` distribution "
        "(`yes`/`no`; `n/a` for your own design, `--strategy-dir`, which expects nothing). They follow "
        "`operation`, so the answer comes first; the same on every row of a strategy. See \"The verdict\" "
        "below"
    ),
    "access": (
        "how this design serves the operation: `write`, `point`, `prefix`, `multi_prefix`, `range`, "
        "`multi_range`, `prefix_delete`, or `full_scan` (the design cannot serve the read as a key range, so "
        "it scans the whole table with a filter; on Bigtable the filter runs on the server). With an `index_` "
        "prefix, the read goes through a Spanner secondary index. A `+join` suffix means the read then "
        "fetches the rows from the table by primary key, because the index does not store the columns it "
        "needs"
    ),
    "requests": "operations completed in the stage",
    "failures": (
        "operations that raised an error. Wrong answers are not failures: they are counted in `wrong_rows` "
        "and `missing_rows`, and refused inserts in `collisions`"
    ),
    "cut_off": (
        "operations still in flight when the stage was stopped short (its emulator went away, Ctrl-C, or "
        "plain Locust's end without `--stop-timeout`). They have no latency; an insert among them has an "
        "unknown outcome, which the audit settles"
    ),
    "aborts": (
        "Spanner inserts: commits (or DML transactions) the emulator answered ABORTED, which keybench retried "
        "after a jittered pause of 50 ms doubling to 1 s, within `--op-timeout` (the retries are in the "
        "latency, and are counted here; they are not failures). Empty elsewhere"
    ),
    "collisions": (
        "inserts whose key was taken (ALREADY_EXISTS): counted here, not as failures, and any collision fails "
        "the run. The migration strategies must show 0"
    ),
    "emulator_bound": (
        "`yes` where the operation goes through SQL or DML. The emulator's cost for these grows with the "
        "table, so their latency measures the emulator more than the key design. Database-generated keys are "
        "inserted with DML `THEN RETURN`"
    ),
    "rps": "requests per second over the stage",
    "p50_ms": (
        "service time in milliseconds, from an HdrHistogram in microseconds (1 us to 60 s, 3 significant "
        "digits); never from Locust's rounded figures"
    ),
    "p90_ms": (
        "service time in milliseconds, from an HdrHistogram in microseconds (1 us to 60 s, 3 significant "
        "digits); never from Locust's rounded figures"
    ),
    "p99_ms": (
        "service time in milliseconds, from an HdrHistogram in microseconds (1 us to 60 s, 3 significant "
        "digits); never from Locust's rounded figures"
    ),
    "max_ms": (
        "service time in milliseconds, from an HdrHistogram in microseconds (1 us to 60 s, 3 significant "
        "digits); never from Locust's rounded figures"
    ),
    "too_few_samples": (
        "the percentiles of the row that rest on too few operations to mean anything (p50 on fewer than 10, p90 on "
        "fewer than 30, p99 on fewer than 100: of 6 operations the p99 is the max), space-separated; empty: none. "
        "The console marks them with `~`, the report draws them hollow, and `compare` neither tests nor gates them"
    ),
    "mean_ms": (
        "service time in milliseconds, from an HdrHistogram in microseconds (1 us to 60 s, 3 significant "
        "digits); never from Locust's rounded figures"
    ),
    "p50_intended_ms": (
        "open loop only (`--rate` for inserts, `--read-rate` for reads): latency from the moment the schedule "
        "made the operation due, so time spent waiting behind a slow or stalled operation counts (coordinated "
        "omission corrected). It includes keybench's own scheduling delay, about 1 ms on a 2-core machine. "
        "Empty in closed loop"
    ),
    "p99_intended_ms": (
        "open loop only (`--rate` for inserts, `--read-rate` for reads): latency from the moment the schedule "
        "made the operation due, so time spent waiting behind a slow or stalled operation counts (coordinated "
        "omission corrected). It includes keybench's own scheduling delay, about 1 ms on a 2-core machine. "
        "Empty in closed loop"
    ),
    "rows_per_op": "mean rows in the answer",
    "rows_scanned_per_op": "mean rows the read had to go through: the rows returned, or for a full scan the rows in "
                           "the table",
    "fanout": "mean key ranges a request covered (a hash-sharded time window covers N)",
    "wrong_rows": (
        "rows a range read returned that lie outside the request (for `tenant_drop`: rows of other tenants "
        "removed)"
    ),
    "missing_rows": (
        "rows acknowledged before the read started that it should have returned but did not (for "
        "`tenant_drop`: tenant rows left behind)"
    ),
    "integrity": (
        "`ok`; `MISMATCH` if any acknowledged write is missing, duplicated, or unexplained; `unverified` if "
        "the database went away during the stage (a dead emulator), so nothing could be read back: then "
        "`stored`, `lost`, `duplicates` and `unexpected` are empty"
    ),
    "acknowledged": "inserts the database acknowledged in the stage",
    "stored": "rows read back after the stage",
    "lost": "acknowledged but not stored (must be 0)",
    "duplicates": "stored more than once (must be 0)",
    "unexpected": "stored but never written by the stage (must be 0)",
    "unknown_outcome": (
        "writes whose call failed or was cut off (a deadline, a stage that ended with them in flight): they "
        "may or may not have landed"
    ),
    "unknown_stored": (
        "of those, how many the audit found stored. `stored` = `acknowledged` + `unknown_stored` when nothing "
        "is lost"
    ),
    "fresh_emulator": (
        "`yes` if the stage ran on an emulator process that keybench had just started or restarted; `no` "
        "otherwise, in which case earlier stages' history may slow the Spanner emulator"
    ),
    "documented": (
        "the key distribution a source document states for this design (`hotspot`, `hot_row` or `spread`); "
        "empty where no document states it (the design is keybench's own addition, or the document gives only "
        "advice about it)"
    ),
    "note": (
        "where this dialect's fixture departs from the documented design, and why. Example: PostgreSQL "
        "`desc_timestamp` keeps its key ascending and adds a DESC index, because the emulator refuses DESC in "
        "a PostgreSQL primary key. Empty otherwise"
    ),
    "repetitions": (
        "how many times the stage ran (`--repeat K`, interleaved A B C, A B C). The latency columns come from "
        "the merged histograms of all repetitions, and the counts are totals"
    ),
    "p50_min_ms": (
        "the lowest and highest p50 and p99 of the single repetitions. If two strategies' ranges overlap, "
        "this run cannot tell them apart"
    ),
    "p50_max_ms": (
        "the lowest and highest p50 and p99 of the single repetitions. If two strategies' ranges overlap, "
        "this run cannot tell them apart"
    ),
    "p99_min_ms": (
        "the lowest and highest p50 and p99 of the single repetitions. If two strategies' ranges overlap, "
        "this run cannot tell them apart"
    ),
    "p99_max_ms": (
        "the lowest and highest p50 and p99 of the single repetitions. If two strategies' ranges overlap, "
        "this run cannot tell them apart"
    ),
    "batch_size": (
        "insert rows only: rows per insert operation (`--batch-size N`: one commit or one `mutate_rows` "
        "call). `requests`, `rps` and the latencies count operations; rows written = requests x batch_size"
    ),
    "model_space": "modelled: the key space whose figures these are, the strategy's worst (the table's, or an index's)",
    "model_nodes": "modelled: the nodes of the split model (`--nodes`, default 8)",
    "hot_node_share": "modelled: mean over measured windows of the cross-fitted hot node's share. Ideal: 1/N",
    "effective_nodes": (
        "modelled: 1 / (mean over windows of the unbiased Σ share², Σ n_i (n_i − 1) / (m (m − 1)) of the "
        "held-out half). Ideal: N"
    ),
    "write_throughput_vs_ideal": "modelled: 1 / (N × `hot_node_share`): the busiest node saturates first",
    "hot_row_share": "modelled: the busiest split unit's share, cross-fitted the same way",
    "rewrite_share": (
        "modelled: share of writes to a row written before; how long rewritten rows go on being written, as a "
        "share of the stream"
    ),
    "max_row_writes": (
        "modelled: the busiest row's writes (versions or cells), and its growth at the stage's rate: writes "
        "per second over its life × (key + payload bytes) × 3600. Bigtable's documented limits: 100 MB "
        "recommended, 256 MB hard (\"Bigtable: Schema design best practices\")"
    ),
    "row_mb_per_hour": (
        "modelled: the busiest row's writes (versions or cells), and its growth at the stage's rate: writes "
        "per second over its life × (key + payload bytes) × 3600. Bigtable's documented limits: 100 MB "
        "recommended, 256 MB hard (\"Bigtable: Schema design best practices\")"
    ),
    "read_ranges_touched": (
        "modelled: mean over reads of the ranges their intervals span, on ranges of equal size "
        "(`ranges_per_node × nodes` at quantiles of the rows held when the read ran): the layout a read pays "
        "for. An interval with no keys still asks one range. `read_ranges_touched_<operation>` per read "
        "operation"
    ),
    "mean_key_bytes": "modelled: mean encoded key size in the table's space",
    "model_windows": "modelled: how many windows of the key stream the figures average",
    "verdict_reason": "modelled: the figure and bound that decided the verdict, with the hot share's standard error",
    "observed": "observed (--target real): what the service's own statistics say of the stage's table and indexes: "
                "`hotspot` (a Spanner split at CPU_USAGE_SCORE 100, or a Bigtable hot tablet), `warm` (a split above "
                "50), `none`, or `unknown` (no statistics in --observe-wait, the reason in observed_where); empty on "
                "an emulator",
    "observed_score": "observed: the hottest split's CPU_USAGE_SCORE (Spanner) or hot tablet's node CPU (Bigtable), "
                      "a percentage",
    "observed_space": "observed: the table or index the hottest split or tablet is in",
    "observed_where": "observed: where in that key the hottest split lies, in words (the newest LastAccess values)",
    "observed_range": "observed: the hottest split's start and limit, as the service wrote them",
    "observed_write_share": "observed against recorded: the share of the space's recorded writes whose keys fall in "
                            "the hottest split (empty when its bounds do not read in the key's types)",
    "observed_agrees": "`yes` when the service saw a warm or hot split for a modelled hotspot or hot row, or none "
                       "for a modelled spread; `no` otherwise; `n/a` for an inconclusive model",
    "expected": (
        "the key distribution the strategy expects, documented or not: `hotspot` (writes pile up at one end "
        "of the key space), `hot_row` (writes pile onto a few rows: rewritten at every write, or one row tree "
        "taking more than a node can) or `spread`; empty for your own design (`keybench run --strategy-dir`, "
        "`keybench check --load`), which no document describes"
    ),
    "source": (
        "the provenance: `<document title>, section \"<section>\": \"<phrase>\" (<English gloss>)`, the "
        "phrase quoted in the document's language; or `not in the documents (keybench's own addition): <why "
        "it is included>`; or, for your own design, `your own design: saved by keybench check from <file>`"
    ),
    "advice": (
        "the documents' advice beyond hotspots, for example `avoid: hashing loses Bigtable's natural sort "
        "order...`"
    ),
}

TIMESERIES_DESCRIPTIONS = {
    "schema_version": "format version (the same as summary.csv's)",
    "second": "the UTC second in which the operations completed, `2026-11-22T08:14:42Z`",
    "elapsed_s": "seconds since the stage began",
    "backend": "as in summary.csv",
    "strategy": "as in summary.csv",
    "dialect": "as in summary.csv",
    "operation": "as in summary.csv",
    "ops": "operations that completed in that second, and how many of them failed",
    "failures": "operations that completed in that second, and how many of them failed",
    "p50_ms": "service time of those operations, from their own microsecond histogram",
    "p99_ms": "service time of those operations, from their own microsecond histogram",
}

REPETITION_DESCRIPTIONS = {
    "schema_version": "format version (the same as summary.csv's)",
    "backend": "as in summary.csv",
    "strategy": "as in summary.csv",
    "dialect": "as in summary.csv",
    "operation": "as in summary.csv",
    "repetition": (
        "which run of the stage (`--repeat K`: 1 to K, interleaved A B C, A B C); `keybench compare` tests a "
        "change over these rows"
    ),
    "requests": "operations of that repetition alone, and how many of them failed",
    "failures": "operations of that repetition alone, and how many of them failed",
    "rps": "its operations per second over its own load time",
    "p50_ms": "service time from that repetition's own microsecond histogram",
    "p90_ms": "service time from that repetition's own microsecond histogram",
    "p99_ms": "service time from that repetition's own microsecond histogram",
}

ANALYSIS_DESCRIPTIONS = {
    "nodes": "the nodes of the split model this row is for (`--nodes`)",
    "hot_space": (
        "the key space with the largest `hot_node_share` among those with enough measured writes (the table's "
        "or an index's)"
    ),
    "hot_node_share": "mean over measured windows of the cross-fitted hot node's share. Ideal: 1/N",
    "effective_nodes": (
        "1 / (mean over windows of the unbiased Σ share², Σ n_i (n_i − 1) / (m (m − 1)) of the held-out "
        "half). Ideal: N"
    ),
    "write_throughput_vs_ideal": "1 / (N × `hot_node_share`): the busiest node saturates first",
    "read_ranges_touched": (
        "mean over reads of the ranges their intervals span, on ranges of equal size (`ranges_per_node × "
        "nodes` at quantiles of the rows held when the read ran): the layout a read pays for. An interval "
        "with no keys still asks one range. `read_ranges_touched_<operation>` per read operation"
    ),
    "mean_key_bytes": "mean encoded key size in the table's space",
    "windows": "how many windows of the key stream the figures average",
    "writes": "the writes the model took from the saved key stream",
    "table_rows": (
        "rows the table's space received, and entries all index spaces received. A NULL_FILTERED index has "
        "entries only for rows whose indexed columns are set (`index_sparse`: about one in ten; "
        "`index_monotonic`: about three in four, the users with a LastAccess); this follows the real service, "
        "even where the PostgreSQL emulator stores the index unfiltered"
    ),
    "index_entries": (
        "rows the table's space received, and entries all index spaces received. A NULL_FILTERED index has "
        "entries only for rows whose indexed columns are set (`index_sparse`: about one in ten; "
        "`index_monotonic`: about three in four, the users with a LastAccess); this follows the real service, "
        "even where the PostgreSQL emulator stores the index unfiltered"
    ),
}
