"""What every benchmark prints its figures with."""

import resource
import statistics


def cpu_seconds() -> float:
    """CPU time of this process, all threads: per operation it is far less noisy than
    throughput on a shared machine."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def spread(values: list[float], fmt: str = ",.0f") -> str:
    """median [min..max] of a benchmark's rounds."""
    return f"{statistics.median(values):{fmt}}  [{min(values):{fmt}}..{max(values):{fmt}}]"
