"""Threshold types and breakpoints on adjacent-sentence similarities (pure numpy, no model)."""

from __future__ import annotations

from fractions import Fraction
from math import ceil

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunkviz.semantic.thresholds import (
    THRESHOLD_TYPES,
    chunk_count_curve,
    compute_threshold,
    ordinal,
)

# A 10-value array with distinct values; every expected number below is computed by hand.
#   sorted: 0.1 0.2 0.5 0.6 0.7 0.75 0.8 0.85 0.9 0.95 (indices 5 2 9 7 4 8 1 3 0 6)
#   mean 0.635, population std sqrt(0.075525) = 0.274818..., Q1 0.525, Q3 0.8375 (IQR 0.3125)
SIMS = np.array([0.9, 0.8, 0.2, 0.85, 0.7, 0.1, 0.95, 0.6, 0.75, 0.5])
STD = 0.075525**0.5
#   distances 1 - s = [0.1, 0.2, 0.8, 0.15, 0.3, 0.9, 0.05, 0.4, 0.25, 0.5]; their rise from
#   the previous pair (0 for the first), d[i] - d[i-1]:
GRADIENT = [0.0, 0.1, 0.6, -0.65, 0.15, 0.6, -0.85, 0.35, -0.15, 0.25]


@pytest.mark.parametrize(
    ("threshold_type", "amount", "value", "breakpoints"),
    [
        # percentile p: below the (100 - p)th percentile, linear interpolation at (n - 1) * q
        ("percentile", 95, 0.1 + 0.45 * 0.1, (5,)),  # position 0.45 between 0.1 and 0.2
        ("percentile", 80, 0.2 + 0.8 * 0.3, (2, 5)),  # position 1.8 between 0.2 and 0.5
        ("percentile", 50, 0.725, (2, 4, 5, 7, 9)),  # the median: 0.7 and 0.75
        ("percentile", 100, 0.1, ()),  # the minimum: nothing is strictly below it
        ("percentile", 0, 0.95, (0, 1, 2, 3, 4, 5, 7, 8, 9)),  # the maximum: all but it
        # standard deviation k: below mean - k * std
        ("standard_deviation", 1.0, 0.635 - STD, (2, 5)),  # 0.3602
        ("standard_deviation", 1.9, 0.635 - 1.9 * STD, (5,)),  # 0.1128
        ("standard_deviation", 3.0, 0.635 - 3 * STD, ()),  # the default: -0.189
        # interquartile k: below mean - k * (Q3 - Q1)
        ("interquartile", 1.5, 0.635 - 1.5 * 0.3125, (5,)),  # 0.16625
        ("interquartile", 1.0, 0.3225, (2, 5)),
        ("interquartile", 0.3, 0.54125, (2, 5, 9)),
        # absolute s: strictly below s
        ("absolute", 0.5, 0.5, (2, 5)),  # 0.5 itself is not below
        ("absolute", 0.55, 0.55, (2, 5, 9)),
        ("absolute", 0.05, 0.05, ()),
        # gradient p: the distance gradient above its p-th percentile
        ("gradient", 95, 0.6, ()),  # sorted rises ... 0.35 0.6 0.6; position 8.55 between the two 0.6
        ("gradient", 80, 0.35 + 0.2 * 0.25, (2, 5)),  # position 7.2: the two dips themselves
    ],
)
def test_compute_threshold_expected_values(
    threshold_type: str, amount: float, value: float, breakpoints: tuple
) -> None:
    got = compute_threshold(SIMS, threshold_type, amount)
    assert got.threshold_type == threshold_type
    assert got.value == pytest.approx(value, abs=1e-12)
    assert got.breakpoints == breakpoints
    if threshold_type == "gradient":
        assert got.metric == "distance_gradient"
        np.testing.assert_allclose(got.metric_values, GRADIENT, atol=1e-12)
    else:
        assert got.metric == "similarity"
        np.testing.assert_array_equal(got.metric_values, SIMS)


def test_gradient_is_computed_on_distances_not_similarities() -> None:
    # A single dip in similarity is a rise in distance at the dip and a fall right after it, so
    # the cut lands on the dip itself (index 2).
    sims = np.array([0.9, 0.9, 0.1, 0.9, 0.9])
    got = compute_threshold(sims, "gradient", 90)
    np.testing.assert_allclose(got.metric_values, [0.0, 0.0, 0.8, -0.8, 0.0], atol=1e-12)
    assert got.breakpoints == (2,)
    assert got.value == pytest.approx(0.8 * 0.6)  # sorted: -0.8 0 0 0 0.8; position 3.6


@pytest.mark.parametrize("threshold_type", THRESHOLD_TYPES)
def test_empty_similarities_have_no_threshold(threshold_type: str) -> None:
    got = compute_threshold(np.array([]), threshold_type, 50)
    assert np.isnan(got.value)
    assert got.breakpoints == ()
    assert got.metric == ("distance_gradient" if threshold_type == "gradient" else "similarity")
    assert len(got.metric_values) == 0


@pytest.mark.parametrize(
    ("threshold_type", "amount", "value", "breakpoints"),
    [
        ("percentile", 95, 0.3, ()),
        ("percentile", 0, 0.3, ()),
        ("standard_deviation", 3, 0.3, ()),  # std 0: the value itself, not below itself
        ("interquartile", 1.5, 0.3, ()),
        ("absolute", 0.5, 0.5, (0,)),
        ("absolute", 0.2, 0.2, ()),
        ("gradient", 95, 0.0, ()),  # a single distance has a zero gradient
    ],
)
def test_single_similarity(threshold_type: str, amount: float, value: float, breakpoints: tuple) -> None:
    got = compute_threshold(np.array([0.3]), threshold_type, amount)
    assert got.value == pytest.approx(value)
    assert got.breakpoints == breakpoints


def test_unknown_threshold_type_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown threshold type 'median'; choose one of: percentile"):
        compute_threshold(SIMS, "median", 1)


similarity_arrays = st.lists(
    st.floats(min_value=-1.0, max_value=1.0, allow_nan=False, width=32), min_size=1, max_size=300
).map(lambda values: np.array(values, dtype=np.float64))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(similarity_arrays)
def test_percentile_95_cuts_exactly_the_gaps_below_the_5th_percentile(sims: np.ndarray) -> None:
    got = compute_threshold(sims, "percentile", 95)
    expected = tuple(int(i) for i in np.flatnonzero(sims < np.percentile(sims, 5)))
    assert got.breakpoints == expected
    assert got.value == np.percentile(sims, 5)
    # Independently of numpy: with distinct values the cut pairs are the ceil(5 % of (n - 1))
    # least similar ones (linear interpolation sits strictly between two neighbours unless the
    # position (n - 1) * 0.05 is a whole number, where float rounding may go either way).
    position = Fraction(len(sims) - 1, 20)
    if len(set(sims.tolist())) == len(sims) and position.denominator != 1:
        k = ceil(position)
        assert set(got.breakpoints) == {int(i) for i in np.argsort(sims, kind="stable")[:k]}


@settings(max_examples=150, deadline=None)
@given(similarity_arrays, st.floats(min_value=0, max_value=100))
def test_percentile_any_p_matches_numpy(sims: np.ndarray, p: float) -> None:
    got = compute_threshold(sims, "percentile", p)
    assert got.breakpoints == tuple(int(i) for i in np.flatnonzero(sims < np.percentile(sims, 100 - p)))
    assert list(got.breakpoints) == sorted(set(got.breakpoints))


@settings(max_examples=60, deadline=None)
@given(similarity_arrays)
def test_chunk_count_curve_is_monotone_in_p_and_agrees_with_compute_threshold(sims: np.ndarray) -> None:
    curve = chunk_count_curve(sims)
    assert [p for p, _ in curve] == [float(p) for p in range(101)]
    counts = [n for _, n in curve]
    # A higher percentile cuts fewer pairs (p = 95 cuts the 5 % least similar): the number of
    # chunks never increases with p, i.e. it is monotone non-decreasing in 100 - p.
    assert all(a >= b for a, b in zip(counts, counts[1:])), counts
    assert counts[-1] == 1  # p = 100: nothing is below the minimum
    assert counts[0] == len(sims) + 1 - int(np.count_nonzero(sims == sims.max()))  # p = 0: all but the maxima
    for p, n in curve[::10]:
        assert n == len(compute_threshold(sims, "percentile", p).breakpoints) + 1


def test_chunk_count_curve_expected_values() -> None:
    curve = dict(chunk_count_curve(SIMS, [0, 50, 80, 95, 100]))
    assert curve == {0.0: 10, 50.0: 6, 80.0: 3, 95.0: 2, 100.0: 1}
    assert chunk_count_curve(np.array([]), [0, 95]) == [(0.0, 1), (95.0, 1)]


# ----------------------------------------------------------------------------- the tie rule and the caption


def test_a_pair_exactly_at_the_threshold_is_not_cut_and_is_named() -> None:
    # 21 pairs: at p = 95 the 5th percentile sits at position (21 - 1) * 0.05 = 1.0, i.e. it IS
    # the second-lowest similarity; only the lowest is strictly below it.
    sims = np.array([0.5 + 0.01 * k for k in range(21)])
    sims[7], sims[15] = 0.02, -0.1
    got = compute_threshold(sims, "percentile", 95)
    assert got.value == 0.02
    assert got.breakpoints == (15,) and got.at_threshold == (7,)
    assert got.describe() == "similarity threshold 0.020 = 5th percentile of 21 pairs"
    # one step lower, the threshold lies strictly between the 2nd and 3rd lowest: both cut
    lower = compute_threshold(sims, "percentile", 94)
    assert lower.breakpoints == (7, 15) and lower.at_threshold == ()


def test_gradient_ties_are_not_cut_either() -> None:
    # binary-exact values: rises of distance [0, 0.25, -0.25, 0.25]; the 95th percentile lies
    # between the two largest, both 0.25, so it is 0.25 and neither rises strictly above it
    got = compute_threshold(np.array([0.75, 0.5, 0.75, 0.5]), "gradient", 95)
    assert got.value == 0.25
    assert got.breakpoints == () and got.at_threshold == (1, 3)
    assert compute_threshold(np.array([0.75, 0.5, 0.75, 0.5]), "gradient", 50).breakpoints == (1, 3)


@pytest.mark.parametrize(
    ("threshold_type", "amount", "described"),
    [
        ("percentile", 95, "similarity threshold 0.145 = 5th percentile of 10 pairs"),
        ("percentile", 80, "similarity threshold 0.440 = 20th percentile of 10 pairs"),
        ("percentile", 97.5, "similarity threshold 0.123 = 2.5th percentile of 10 pairs"),
        ("gradient", 80, "distance-gradient threshold 0.400 = 80th percentile of 10 rises in distance"),
        ("standard_deviation", 1.0, "similarity threshold 0.360 = mean - 1 × standard deviation of 10 pairs"),
        ("interquartile", 1.5, "similarity threshold 0.166 = mean - 1.5 × interquartile range of 10 pairs"),
        ("absolute", 0.5, "similarity threshold 0.500 (absolute)"),
    ],
)
def test_describe_names_the_threshold_and_where_it_comes_from(
    threshold_type: str, amount: float, described: str
) -> None:
    assert compute_threshold(SIMS, threshold_type, amount).describe() == described


def test_describe_a_single_pair() -> None:
    assert (
        compute_threshold(np.array([0.3]), "percentile", 95).describe()
        == "similarity threshold 0.300 = 5th percentile of 1 pair"
    )


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0, "0th"),
        (1, "1st"),
        (2, "2nd"),
        (3, "3rd"),
        (4, "4th"),
        (5, "5th"),
        (11, "11th"),
        (12, "12th"),
        (13, "13th"),
        (21, "21st"),
        (22, "22nd"),
        (100, "100th"),
        (2.5, "2.5th"),
        (5.0, "5th"),
    ],
)
def test_ordinal(value: float, text: str) -> None:
    assert ordinal(value) == text


@settings(max_examples=100, deadline=None)
@given(similarity_arrays, st.floats(min_value=0, max_value=100))
def test_every_pair_is_cut_at_or_beyond_the_threshold_exactly_once(sims: np.ndarray, p: float) -> None:
    for threshold_type in ("percentile", "gradient"):
        got = compute_threshold(sims, threshold_type, p)
        values = got.metric_values
        beyond = values < got.value if got.metric == "similarity" else values > got.value
        assert list(got.breakpoints) == [int(i) for i in np.flatnonzero(beyond)]
        assert list(got.at_threshold) == [int(i) for i in np.flatnonzero(values == got.value)]
        assert not set(got.breakpoints) & set(got.at_threshold)
