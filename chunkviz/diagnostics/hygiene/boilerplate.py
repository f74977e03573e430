"""Boilerplate: a line or sentence that recurs at many places (a licence footer, a page header,
navigation), with the repeated text named.

Each chunk's lines are cut further at sentence ends; a piece is compared in a normal form (case
folded, digits as ``0`` so "Page 3 of 9" matches "Page 4 of 9", whitespace and edge markup
dropped). A piece counts once per place in the document (a place covered by two overlapping
chunks, or by a parent and its child, is one place), and only pieces of :data:`MIN_WORDS` words and
:data:`MIN_LETTERS` letters count: a short reply ("Yes, sir.") or a rule of dashes is not
boilerplate. A table row is not either: a header repeated over several tables names each one's
columns (it is the table's context, not noise). One pass over the chunks' text; memory holds one entry per distinct piece.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from chunkviz.core.types import Chunk
from chunkviz.text.secrets import masked

#: A recurring piece needs this many words and letters to be boilerplate.
MIN_WORDS = 5
MIN_LETTERS = 24
#: Characters of the repeated text a flag names.
SHOWN_CHARS = 80

_PIECE = re.compile(r"[^\n]*?(?:[.!?](?=\s)|\n|$)")
_EDGE = " \t\r\f\v#*|>-_=~`+•·.:;,!?\"'()[]"
_DIGITS = re.compile(r"\d+")
_TABLE_ROW = re.compile(r"\s*\|.*\|")
_WORDS = re.compile(r"[^\W\d_]{2,}")


@dataclass(frozen=True)
class Repeated:
    """A piece of text found at ``places`` places: ``text`` as first seen (trimmed, shortened)."""

    text: str
    places: int


def pieces(text: str) -> Iterator[tuple[int, str]]:
    """``(offset, piece)`` for each line of ``text``, lines cut after sentence ends."""
    for m in _PIECE.finditer(text):
        piece = m.group()
        if piece.strip():
            yield m.start(), piece


def normal_form(piece: str) -> str | None:
    """The piece's comparison key, or None when it is too short to be boilerplate."""
    if _TABLE_ROW.match(piece):
        return None
    core = " ".join(piece.split()).strip(_EDGE)
    if len(_WORDS.findall(core)) < MIN_WORDS or sum(c.isalpha() for c in core) < MIN_LETTERS:
        return None
    return _DIGITS.sub("0", core.casefold())


def shown(piece: str) -> str:
    """The piece as a flag names it: trimmed, secrets masked before it is shortened (no part shows)."""
    core = masked(" ".join(piece.split()).strip(_EDGE))
    return core if len(core) <= SHOWN_CHARS else core[: SHOWN_CHARS - 1] + "\u2026"


class PieceCounter:
    """Places of each normal form over one document (or a corpus: each document's offsets are
    made distinct by ``base``)."""

    def __init__(self) -> None:
        self.places: dict[str, set[int]] = {}
        self.first: dict[str, str] = {}

    def add(self, text: str, base: int = 0) -> list[tuple[int, str]]:
        """Count the pieces of ``text`` (at offset ``base``); their ``(offset in text, key)``."""
        found: list[tuple[int, str]] = []
        for offset, piece in pieces(text):
            key = normal_form(piece)
            if key is None:
                continue
            self.places.setdefault(key, set()).add(base + offset)
            self.first.setdefault(key, shown(piece))
            found.append((offset, key))
        return found

    def repeated(self, min_places: int) -> dict[str, Repeated]:
        return {k: Repeated(self.first[k], len(v)) for k, v in self.places.items() if len(v) >= min_places}


def boilerplate(chunks: Sequence[Chunk], min_places: int) -> tuple[dict[int, list[Repeated]], list[Repeated]]:
    """Per chunk index, the boilerplate it holds; and every boilerplate piece, most places first."""
    counter = PieceCounter()
    keys = {c.index: counter.add(c.text, c.start) for c in chunks}
    common = counter.repeated(min_places)
    per_chunk: dict[int, list[Repeated]] = {}
    for index, found in keys.items():
        held = _unique(common[k] for _, k in found if k in common)
        if held:
            per_chunk[index] = held
    return per_chunk, sorted(common.values(), key=lambda r: (-r.places, r.text))


def _unique(items: Iterable[Repeated]) -> list[Repeated]:
    out: list[Repeated] = []
    for item in items:
        if item not in out:
            out.append(item)
    return out
