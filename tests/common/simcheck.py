"""What the A/A and power checks (tests/aa, tests/power) share: a free port, a finite
number, and how many significant A/A ratios a 95 % interval gives by chance."""
import math
import socket


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def allowed_false_alarms(n, rate=0.05, chance=0.001):
    """The most significant A/A ratios out of n that a method with 95 % intervals gives
    by chance: the smallest k with P(Binomial(n, rate) > k) < chance. A 95 % interval
    calls about 5 % of identical pairs different by design, so "at most 5 %" of 24 or 36
    ratios (1 of them) would fail a correct method on a third of runs."""
    from math import comb
    k = 0
    while sum(comb(n, i) * rate ** i * (1 - rate) ** (n - i) for i in range(k + 1, n + 1)) >= chance:
        k += 1
    return k


def finite(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
