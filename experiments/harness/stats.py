"""The interval of a median, from the order statistics of its samples: what the comparison of two recordings
allows between their medians (experiments/compare.py).

For n samples sorted x(1) <= ... <= x(n), the interval [x(k), x(n+1-k)] holds the population's median with
probability 1 - 2 P(B <= k-1), B ~ Binomial(n, 1/2), whatever the samples' distribution (they need only be
independent draws of one distribution). median_interval takes the narrowest such interval whose coverage is at
least CONFIDENCE; below 6 samples none reaches 95 %, and the widest there is, [min, max], is taken with its
coverage (1 - 2^(1-n): 50 % for 2 samples, 75 % for 3, 93.75 % for 5). Nothing is drawn at random: the same
samples give the same interval.
"""
import math
import statistics

CONFIDENCE = 0.95


def _below(n, j):
    """P(B <= j) for B ~ Binomial(n, 1/2)."""
    return sum(math.comb(n, i) for i in range(j + 1)) / 2 ** n


def median_interval(values, confidence=CONFIDENCE):
    """(low, high, coverage) of the order-statistic interval of the median of @p values (at least one)."""
    x = sorted(values)
    n = len(x)
    k = 1
    for j in range(1, (n + 1) // 2 + 1):
        if 1 - 2 * _below(n, j - 1) >= confidence:
            k = j
        else:
            break
    return x[k - 1], x[n - k], 1 - 2 * _below(n, k - 1)


def relative_halfwidth(values):
    """The larger distance of the median from the ends of its interval, relative to the median (0 for one
    sample, whose interval is a point: the caller decides what one sample allows)."""
    m = statistics.median(values)
    lo, hi, _ = median_interval(values)
    if m == 0:
        return 0.0 if lo == hi == 0 else math.inf
    return max(m - lo, hi - m) / abs(m)
