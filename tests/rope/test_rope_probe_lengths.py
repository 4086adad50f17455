"""The lengths L a temperature fit tries: the roundest first, a few hundred, for any span.

``_lengths(low, high)`` lists the integers in (low, high]: the powers of two, then the first
256 multiples of 1024 and of 1000 (1024's first), then the 257 integers from the bottom.
Positions may reach 2^53, so the multiples are taken from ranges, never listed whole (a span
up to 10^12 had built 10^9 integers). Checked against the rule written as a slow loop.
"""

from __future__ import annotations

import math

import pytest

from pecli.analysis.rope.probe.temperature import _lengths


def _slow(low: float, high: float) -> list[int]:
    first, last = math.floor(low) + 1, math.floor(high)
    found: list[int] = [n for n in (2**k for k in range(63)) if first <= n <= last]
    multiples = [n for n in range(first, last + 1) if n % 1024 == 0]
    multiples += [n for n in range(first, last + 1) if n % 1000 == 0]
    found += multiples[:256] + list(range(first, min(last, first + 256) + 1))
    return list(dict.fromkeys(found))


@pytest.mark.parametrize(("low", "high"), [(5.5, 12.0), (1000.0, 300_000.0), (7.0, 8.0)])
def test_the_lengths_are_the_rule_s(low, high):
    assert _lengths(low, high) == _slow(low, high)


def test_a_span_to_2_to_the_53_lists_a_few_hundred_lengths():
    lengths = _lengths(1e12, 2.0**53)
    powers = [2**k for k in range(40, 54)]  # 2^40 ≈ 1.0995e12 is the first above 1e12
    first = -(-(10**12 + 1) // 1024) * 1024
    assert lengths[:14] == powers
    assert lengths[14:270] == [first + 1024 * k for k in range(256)]
    assert lengths[270:] == list(range(10**12 + 1, 10**12 + 258))
