"""The document with its chunks, for a terminal: colour bands with ``rich``, or plain text.

The same sweep as the HTML view (``chunkviz.drawing.render._segments``: the stretches of the text
covered by the same chunks) cuts the document into runs; each run is drawn as what covers it:

- one chunk: its band, in the column's three shades alternating along the document
  (:mod:`chunkviz.drawing.palette`, the app's colours);
- two or more chunks: an overlap, in the darker overlap shade and underlined;
- no chunk, with text in it: a gap, red and struck through.

After each chunk's last non-whitespace character (where the HTML view puts its end marker) a
marker says which chunk ends and why: ``◀3 size limit · line break`` (its reason, where the cut
falls, and the audit's flags for loaded chunks). In plain text (piped output, ``--no-color``)
runs carry no colour; every chunk start is marked ``[3>`` and every end ``<3 size limit · line
break]``, so overlaps and gaps read from the markers.

The document is untrusted: control characters (an ESC would start a terminal escape sequence)
and bidirectional overrides are drawn as visible symbols, never written to the terminal.
Only leaf chunks are drawn (chunks with children, the parents of a multi-level chunking, are
listed in the header).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from chunkviz.core.types import Chunk
from chunkviz.drawing.palette import COLUMN_HUES, OVERLAP_STRIPES, chunk_shade, oklch_hex, strategy_colour
from chunkviz.drawing.render import _segments as segments  # the HTML view's sweep, one home
from chunkviz.drawing.render import end_marker_offset
from chunkviz.formats.external.load import REASON_UNKNOWN_KEY
from chunkviz.strategies.peers.flags import PEER_FLAGS_KEY
from chunkviz.text.printable import visible, visible_name

_GAP_COLOUR = "#c92a2a"


@dataclass(frozen=True)
class Run:
    """One piece of the terminal view: document text (``kind`` ``band``, ``overlap``, ``gap``
    or ``plain``) or a marker (``start``, ``end``), with the band's shade for colouring."""

    kind: str
    text: str
    shade: int = 0
    chunk: int | None = None
    #: The character after a text run in the document ("" at its end), for :func:`visible`.
    following: str = ""


def cut_label(chunk: Chunk) -> str:
    """What an end marker says: the reason, where the cut falls, the audit's flags if any."""
    where = chunk.boundary.value.replace("_", " ")
    if chunk.metadata.get(REASON_UNKNOWN_KEY):  # a loaded chunk whose file does not say why it ends
        label = f"cut at {where}"
    else:
        label = f"{chunk.reason.value.replace('_', ' ')} · {where}"
    flags = chunk.metadata.get(PEER_FLAGS_KEY) or ()
    if flags:
        label += " · " + ", ".join(str(f).replace("_", " ") for f in flags)
    return label


def leaves(chunks: Sequence[Chunk]) -> list[Chunk]:
    """The chunks drawn as bands: every chunk without children."""
    parents = {c.parent for c in chunks if c.parent is not None}
    return [c for c in chunks if c.index not in parents]


def runs(text: str, chunks: Sequence[Chunk]) -> list[Run]:
    """The view as runs, in document order (markers where they belong)."""
    bands = [c for c in leaves(chunks) if c.start < c.end]
    order = sorted(range(len(bands)), key=lambda p: (bands[p].start, bands[p].end, p))
    shade = {pos: k % 3 for k, pos in enumerate(order)}
    starts: dict[int, list[int]] = {}
    ends: dict[int, list[int]] = {}
    for pos in order:
        starts.setdefault(bands[pos].start, []).append(pos)
        ends.setdefault(end_marker_offset(text, bands[pos]), []).append(pos)
    points = sorted({*starts, *ends})
    out: list[Run] = []
    k = 0
    for a, b, cover in segments(bands, len(text)):
        cuts = [a]
        while k < len(points) and points[k] < b:
            if points[k] > a:
                cuts.append(points[k])
            k += 1
        for lo, hi in zip(cuts, [*cuts[1:], b]):
            for pos in ends.get(lo, ()):
                out.append(Run("end", cut_label(bands[pos]), shade[pos], bands[pos].index))
            for pos in starts.get(lo, ()):
                out.append(Run("start", "", shade[pos], bands[pos].index))
            piece, after = text[lo:hi], text[hi : hi + 1]
            if not cover:
                out.append(Run("gap" if piece.strip() else "plain", piece, following=after))
            elif len(cover) == 1:
                out.append(Run("band", piece, shade[cover[0]], bands[cover[0]].index, after))
            else:
                first = min(cover, key=lambda p: (bands[p].start, p))
                out.append(Run("overlap", piece, shade[first], bands[first].index, after))
    for pos in ends.get(len(text), ()):
        out.append(Run("end", cut_label(bands[pos]), shade[pos], bands[pos].index))
    return out


def header(title: str, chunks: Sequence[Chunk], characters: int, note: str = "") -> str:
    """The line above the view: what is drawn (``title``, which may name a file: shown by
    :func:`visible_name`), how many chunks, parents not drawn."""
    drawn = leaves(chunks)
    parents = len(chunks) - len(drawn)
    more = f" ({parents} parent chunks not drawn)" if parents else ""
    tail = f" · {note}" if note else ""
    return f"{visible_name(title)}: {len(drawn)} chunks{more} over {characters:,} characters{tail}"


def plain_view(text: str, chunks: Sequence[Chunk], title: str, note: str = "") -> str:
    """The plain-text view (no colour): ``[3>`` at each chunk start, ``<3 reason · where]`` at its end."""
    out = [f"== {header(title, chunks, len(text), note)} ==\n"]
    for run in runs(text, chunks):
        if run.kind == "start":
            out.append(f"[{run.chunk}>")
        elif run.kind == "end":
            out.append(f"<{run.chunk} {run.text}]")
        else:
            out.append(visible(run.text, run.following))
    if not out[-1].endswith("\n"):
        out.append("\n")
    return "".join(out)


def rich_view(text: str, chunks: Sequence[Chunk], title: str, note: str = "", hue: int = COLUMN_HUES[0]) -> Any:
    """The coloured view as a ``rich`` renderable (a ``Group`` of the header and the text)."""
    from rich.console import Group
    from rich.style import Style
    from rich.text import Text

    bands = [Style(color="black", bgcolor=chunk_shade(hue, k)) for k in range(3)]
    overlaps = [Style(color="black", bgcolor=oklch_hex(*OVERLAP_STRIPES[k][1], hue), underline=True) for k in range(3)]
    marker = Style(color="white", bgcolor=strategy_colour(hue), bold=True)
    gap = Style(color=_GAP_COLOUR, strike=True)
    body = Text()
    for run in runs(text, chunks):
        if run.kind == "start":
            continue
        if run.kind == "end":
            body.append(f"◀{run.chunk} {run.text}", marker)
        elif run.kind == "band":
            body.append(visible(run.text, run.following), bands[run.shade])
        elif run.kind == "overlap":
            body.append(visible(run.text, run.following), overlaps[run.shade])
        elif run.kind == "gap":
            body.append(visible(run.text, run.following), gap)
        else:
            body.append(visible(run.text, run.following))
    head = Text(header(title, chunks, len(text), note), Style(bold=True, color=strategy_colour(hue)))
    legend = Text.assemble(
        ("chunk", bands[0]),
        ("chunk", bands[1]),
        ("chunk", bands[2]),
        " alternate · ",
        ("overlap", overlaps[0]),
        " · ",
        ("gap", gap),
        " (text in no chunk) · ",
        ("◀n", marker),
        " chunk n ends: why · where",
    )
    return Group(head, body, legend)


__all__ = ["Run", "cut_label", "header", "leaves", "plain_view", "rich_view", "runs", "visible", "visible_name"]
