"""Whether two sets of repetitions differ, as benchstat asks it: the Mann-Whitney U test (no
assumption of normal latency, which it is not), exact for the few repetitions a run makes, and
the Hodges-Lehmann confidence interval of the change, on the ratio B/A. A comparison makes
many tests, one per row and figure: their p values are adjusted together (Benjamini-Hochberg).

Exact: the null distribution of U is the coefficients of the Gaussian binomial [m+n choose m]
in q, computed with Python's integers. Tied values count half, and the no-ties distribution is
used for them (slightly conservative)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

ALPHA = 0.05  # a change is reported when p < ALPHA; "~" otherwise
MAX_EXACT = 2_500  # m * n above which U is taken as normal


@dataclass(frozen=True)
class Change:
    p: float  # two-sided
    ratio: float  # median(B) / median(A)
    low: float | None  # the confidence interval of B/A (Hodges-Lehmann); None: too few repetitions
    high: float | None
    confidence: float  # what the interval covers (about 1 - ALPHA, exactly what U's steps allow)
    adjusted: float | None = None  # p after the comparison's other tests (adjusted_p); None: tested alone

    @property
    def significant(self) -> bool:
        return (self.p if self.adjusted is None else self.adjusted) < ALPHA


def adjusted_p(ps: list[float]) -> list[float]:
    """Benjamini-Hochberg: each p adjusted for the others of the same comparison, so that of the
    changes reported, at most ALPHA are expected to be noise (twenty tests at p < 0.05 would
    otherwise report one change that is none, most of the time)."""
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    adjusted = [1.0] * len(ps)
    running = 1.0
    for rank in range(len(ps), 0, -1):
        i = order[rank - 1]
        running = min(running, ps[i] * len(ps) / rank)
        adjusted[i] = min(1.0, running)
    return adjusted


@cache
def _u_counts(m: int, n: int) -> tuple[int, ...]:
    """How many of the C(m+n, m) orderings give each U = 0 .. m*n."""
    coefficients = [1] + [0] * (m * n)
    for i in range(1, m + 1):  # multiply by (1 - q^(n+i)), divide by (1 - q^i)
        for k in range(m * n, n + i - 1, -1):
            coefficients[k] -= coefficients[k - n - i]
        for k in range(i, m * n + 1):
            coefficients[k] += coefficients[k - i]
    return tuple(coefficients)


def _cdf(m: int, n: int, u: float) -> float:
    """P(U <= u) under the null hypothesis."""
    if m * n > MAX_EXACT:
        mean, sd = m * n / 2, math.sqrt(m * n * (m + n + 1) / 12)
        return 0.5 * (1 + math.erf((u + 0.5 - mean) / (sd * math.sqrt(2))))
    counts = _u_counts(m, n)
    return sum(counts[:math.floor(u) + 1]) / math.comb(m + n, m)


def smallest_p(m: int, n: int) -> float:
    """The smallest two-sided p that m and n repetitions can give: below ALPHA, or no change can show."""
    return min(1.0, 2 / math.comb(m + n, m))


def compare_samples(a: list[float], b: list[float]) -> Change:
    """Mann-Whitney U of B against A, the ratio of their medians, and the interval of B/A."""
    m, n = len(a), len(b)
    u = sum((x < y) + 0.5 * (x == y) for x in a for y in b)  # pairs where B is larger
    p = min(1.0, 2 * min(_cdf(m, n, u), _cdf(m, n, m * n - u)))
    ratio = _median(b) / _median(a) if _median(a) else math.inf
    low = high = None
    confidence = 0.0
    if min(a + b) > 0 and m * n <= MAX_EXACT:
        # Hodges-Lehmann on the logarithms: the k-th smallest and largest of the m*n differences
        # bound the shift, k from U's distribution (about ALPHA / 2 in each tail).
        differences = sorted(math.log(y) - math.log(x) for x in a for y in b)
        k = 0
        while _cdf(m, n, k) <= ALPHA / 2:
            k += 1
        if k:
            low, high = math.exp(differences[k - 1]), math.exp(differences[m * n - k])
            confidence = 1 - 2 * _cdf(m, n, k - 1)
    return Change(p, ratio, low, high, confidence)


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
