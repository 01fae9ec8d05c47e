"""The key design: what a strategy is (key parts, fixtures), how its reads are planned, and
the byte order its keys sort in. Pure: no I/O beyond reading the fixtures."""
