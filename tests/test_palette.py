"""Colours: one hue per column, readable band shades, overlaps that stand out, reason colours."""

from __future__ import annotations

import itertools

import pytest

from chunkviz.core.vocabulary import Reason
from chunkviz.drawing.palette import (
    BAND_SHADES,
    COLUMN_HUES,
    OVERLAP_STRIPES,
    REASON_COLOURS,
    STRATEGY_SHADE,
    chunk_shade,
    column_hue,
    contrast_ratio,
    css_colour,
    in_srgb,
    oklch_hex,
    overlap_colours,
    strategy_colour,
)

TEXT = "#222222"  # the document view's text colour
WHITE = "#ffffff"


def test_oklch_conversion_matches_known_colours() -> None:
    assert oklch_hex(1, 0, 0) == "#ffffff" and oklch_hex(0, 0, 0) == "#000000"
    assert oklch_hex(0.627955, 0.257683, 29.2339) == "#ff0000"
    assert oklch_hex(0.519752, 0.176858, 142.495) == "#008000"
    assert in_srgb(0.5, 0.1, 245) and not in_srgb(0.95, 0.3, 245)


def test_four_well_separated_column_hues_that_cycle() -> None:
    assert len(COLUMN_HUES) == 4 and len(set(COLUMN_HUES)) == 4
    for a, b in itertools.combinations(COLUMN_HUES, 2):
        assert min(abs(a - b), 360 - abs(a - b)) >= 60
    assert [column_hue(i) for i in range(6)] == [*COLUMN_HUES, COLUMN_HUES[0], COLUMN_HUES[1]]


@pytest.mark.parametrize("hue", COLUMN_HUES)
def test_css_and_python_agree_because_every_shade_fits_srgb(hue: int) -> None:
    shades = [*BAND_SHADES, *(s for pair in OVERLAP_STRIPES for s in pair)]
    assert all(in_srgb(lightness, chroma, hue) for lightness, chroma in shades)


@pytest.mark.parametrize("hue", [*COLUMN_HUES, 0, 90, 200])
def test_band_shades_are_readable_and_neighbours_differ(hue: int) -> None:
    shades = [chunk_shade(hue, k) for k in range(3)]
    assert all(contrast_ratio(s, TEXT) >= 7 for s in shades)
    assert all(contrast_ratio(shades[k], shades[(k + 1) % 3]) >= 1.25 for k in range(3))
    assert chunk_shade(hue, 4) == shades[1]


@pytest.mark.parametrize("hue", COLUMN_HUES)
def test_overlap_stripes_stand_out_from_both_chunks_and_from_each_other(hue: int) -> None:
    for k in range(3):
        first, second = overlap_colours(hue, k)
        assert contrast_ratio(first, second) >= 1.3
        for stripe, band in itertools.product((first, second), (chunk_shade(hue, k), chunk_shade(hue, k + 1))):
            assert contrast_ratio(stripe, band) >= 1.3
        assert min(contrast_ratio(first, "#000000"), contrast_ratio(second, "#000000")) >= 4.5  # black text


def test_strategy_colours_read_on_white_and_differ_between_columns() -> None:
    colours = [strategy_colour(h) for h in COLUMN_HUES]
    assert len(set(colours)) == 4
    assert all(contrast_ratio(c, WHITE) >= 4 for c in colours)
    assert strategy_colour(245) == oklch_hex(*STRATEGY_SHADE, 245)


def test_reason_colours_cover_every_reason_read_on_white_and_are_distinct() -> None:
    assert set(REASON_COLOURS) == {r.value for r in Reason}
    assert all(contrast_ratio(c, WHITE) >= 4 for c in REASON_COLOURS.values())
    rgb = {name: tuple(int(c[i : i + 2], 16) for i in (1, 3, 5)) for name, c in REASON_COLOURS.items()}
    for a, b in itertools.combinations(rgb.values(), 2):
        assert sum((x - y) ** 2 for x, y in zip(a, b)) ** 0.5 >= 60


def test_css_colour_uses_the_column_variable() -> None:
    assert css_colour((0.935, 0.032)) == "oklch(0.935 0.032 var(--h,245))"
    assert css_colour((0.5, 0.1), "30") == "oklch(0.5 0.1 30)"
