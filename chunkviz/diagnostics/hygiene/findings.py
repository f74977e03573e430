"""The hygiene flags' results as plain frozen data (``diagnose`` carries them; ``to_dict`` reads them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from chunkviz.core.vocabulary import Flag


@dataclass(frozen=True)
class HygieneFinding:
    """Why one chunk carries a hygiene flag: ``detail`` in plain words (a secret by kind and
    position only), ``start``/``end`` where in the document, ``kind`` (a secret's or an
    instruction's kind), ``other`` the chunk it copies (duplicate, near duplicate)."""

    flag: Flag
    start: int
    end: int
    detail: str
    kind: str | None = None
    other: int | None = None


@dataclass(frozen=True)
class RepeatedText:
    """A boilerplate line or sentence (as first seen, secrets masked) and how many places hold it."""

    text: str
    places: int


@dataclass(frozen=True)
class HygieneSummary:
    """The rules used (each in plain words) and the boilerplate found, most places first."""

    rules: Mapping[str, str] = field(default_factory=dict, hash=False)
    boilerplate: tuple[RepeatedText, ...] = ()
