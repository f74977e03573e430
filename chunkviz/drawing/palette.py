"""The colours of the views: one hue per column, three band shades, overlaps, reasons.

Colours are OKLCH (perceptual lightness), so a shade has the same lightness, and dark text the
same contrast on it, whatever the column's hue. The stylesheet writes each colour as
``oklch(L C var(--h))`` (one stylesheet serves every column; the column sets ``--h``); the
Python functions return the same colour as ``#rrggbb`` for plotly and the component's SVG.
A column hue is an OKLCH hue angle in degrees.
"""

from __future__ import annotations

import math

from chunkviz.core.vocabulary import Reason

#: Column i uses ``COLUMN_HUES[i % 4]``: blue (the default), orange, green, magenta.
COLUMN_HUES: tuple[int, ...] = (245, 55, 150, 330)

#: (lightness, chroma) of the three band shades, k = 0, 1, 2: light, medium, darker. Every pair
#: differs by 0.08 lightness or more, and dark text keeps a contrast of at least 7:1 on all of them.
BAND_SHADES: tuple[tuple[float, float], ...] = ((0.935, 0.032), (0.855, 0.06), (0.765, 0.09))
#: The two stripes of an overlap whose first chunk has band k (one stripe per chunk, in the
#: order of the chunks): darker than both chunks' band shades and than each other by ~0.08
#: lightness or more, so the region stands out from both neighbours; its text is black.
OVERLAP_STRIPES: tuple[tuple[tuple[float, float], tuple[float, float]], ...] = (
    ((0.77, 0.065), (0.675, 0.09)),
    ((0.675, 0.09), (0.595, 0.11)),
    ((0.595, 0.11), (0.675, 0.09)),
)
#: The saturated colour of a strategy (ribbon track, box plot, outlines): readable on white.
STRATEGY_SHADE: tuple[float, float] = (0.57, 0.15)

#: Ribbon tick colour of each boundary reason (keys are ``Reason`` values): distinct, on white.
REASON_COLOURS: dict[str, str] = {
    Reason.SIZE_LIMIT.value: "#d9480f",
    Reason.UNIT_END.value: "#1971c2",
    Reason.SEMANTIC_BREAKPOINT.value: "#2b8a3e",
    Reason.LLM_BOUNDARY.value: "#a61e4d",
    Reason.MIN_SIZE.value: "#9c36b5",
    Reason.PARENT_END.value: "#0b7285",
    Reason.END_OF_DOCUMENT.value: "#495057",
}


def column_hue(i: int) -> int:
    """The hue of column ``i`` (0-based; cycles after four columns)."""
    return COLUMN_HUES[i % len(COLUMN_HUES)]


def strategy_colour(hue: int) -> str:
    """The saturated colour of a column with ``hue`` (``#rrggbb``)."""
    return oklch_hex(*STRATEGY_SHADE, hue)


def chunk_shade(hue: int, k: int) -> str:
    """The background of band ``k % 3`` in a column with ``hue`` (``#rrggbb``, as the CSS draws it)."""
    return oklch_hex(*BAND_SHADES[k % 3], hue)


def overlap_colours(hue: int, k: int) -> tuple[str, str]:
    """The two stripe colours of an overlap whose first chunk has band ``k % 3`` (``#rrggbb``)."""
    first, second = OVERLAP_STRIPES[k % 3]
    return oklch_hex(*first, hue), oklch_hex(*second, hue)


def css_colour(shade: tuple[float, float], hue: str = "var(--h,245)") -> str:
    """A shade as a CSS colour whose hue is ``hue`` (by default the column's ``--h``)."""
    lightness, chroma = shade
    return f"oklch({lightness:g} {chroma:g} {hue})"


def oklch_hex(lightness: float, chroma: float, hue: float) -> str:
    """An OKLCH colour as ``#rrggbb``; chroma is reduced until the colour fits sRGB."""
    while True:
        rgb = _oklch_linear_rgb(lightness, chroma, hue)
        if all(-1e-6 <= c <= 1 + 1e-6 for c in rgb) or chroma <= 0:
            break
        chroma = max(0.0, chroma - 0.005)
    return "#" + "".join(f"{round(_encode(min(1.0, max(0.0, c))) * 255):02x}" for c in rgb)


def in_srgb(lightness: float, chroma: float, hue: float) -> bool:
    """Whether the OKLCH colour is inside sRGB (then the browser draws exactly :func:`oklch_hex`)."""
    return all(-1e-6 <= c <= 1 + 1e-6 for c in _oklch_linear_rgb(lightness, chroma, hue))


def contrast_ratio(colour_a: str, colour_b: str) -> float:
    """The WCAG contrast ratio of two ``#rrggbb`` colours (1 to 21)."""
    la, lb = sorted((_luminance(colour_a), _luminance(colour_b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def _oklch_linear_rgb(lightness: float, chroma: float, hue: float) -> tuple[float, float, float]:
    a, b = chroma * math.cos(math.radians(hue)), chroma * math.sin(math.radians(hue))
    l_ = (lightness + 0.3963377774 * a + 0.2158037573 * b) ** 3
    m_ = (lightness - 0.1055613458 * a - 0.0638541728 * b) ** 3
    s_ = (lightness - 0.0894841775 * a - 1.2914855480 * b) ** 3
    return (
        4.0767416621 * l_ - 3.3077115913 * m_ + 0.2309699292 * s_,
        -1.2684380046 * l_ + 2.6097574011 * m_ - 0.3413193965 * s_,
        -0.0041960863 * l_ - 0.7034186147 * m_ + 1.7076147010 * s_,
    )


def _encode(c: float) -> float:
    return 12.92 * c if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055


def _luminance(colour: str) -> float:
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


__all__ = [
    "BAND_SHADES",
    "COLUMN_HUES",
    "OVERLAP_STRIPES",
    "REASON_COLOURS",
    "STRATEGY_SHADE",
    "chunk_shade",
    "column_hue",
    "contrast_ratio",
    "css_colour",
    "in_srgb",
    "oklch_hex",
    "overlap_colours",
    "strategy_colour",
]
