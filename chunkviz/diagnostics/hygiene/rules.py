"""The hygiene flags' thresholds (one frozen value, given to ``diagnose``) and what each flag means."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from chunkviz.core.vocabulary import Flag

#: The hygiene flags, in display order.
HYGIENE_FLAGS: tuple[Flag, ...] = (
    Flag.DUPLICATE,
    Flag.NEAR_DUPLICATE,
    Flag.BOILERPLATE,
    Flag.LOW_INFORMATION,
    Flag.SECRET,
    Flag.INSTRUCTION,
)

#: What each hygiene flag means, in plain words (the app's help, the legend, ``diagnose``).
HYGIENE_EXPLANATIONS: dict[Flag, str] = {
    Flag.DUPLICATE: "the same text as another chunk (whitespace aside): both fill top-k slots with one passage",
    Flag.NEAR_DUPLICATE: "almost the same words as another chunk (a copied or lightly edited section): "
    "retrieval returns both for one question",
    Flag.BOILERPLATE: "holds a line or sentence repeated at many places (a footer, a header, navigation): "
    "it makes unrelated chunks look alike",
    Flag.LOW_INFORMATION: "almost no letters, or almost only stop words, markup and numbers (a table of dashes, "
    "a lone heading): its embedding matches nothing well",
    Flag.SECRET: "a credential-shaped string (an API key, a private key, a long random token): "
    "an index should not hold it; shown by kind and position only",
    Flag.INSTRUCTION: "text addressed to a language model (\u201cignore previous instructions\u201d, a chat role marker): "
    "review it before indexing; never removed",
}


@dataclass(frozen=True)
class HygieneRules:
    """The thresholds of the hygiene flags; a None threshold (or False) turns that flag off.

    ``near_duplicate``: the share of the shorter chunk's word 3-shingles found in the other (the
    overlap coefficient, 0 < t <= 1) at or above which two chunks are near copies. ``boilerplate``: the places (>= 2) a line or sentence must recur at.
    ``low_information``: the content words (>= 1) a chunk needs not to be flagged.
    """

    duplicate: bool = True
    near_duplicate: float | None = 0.8
    boilerplate: int | None = 4
    low_information: int | None = 3
    secret: bool = True
    instruction: bool = True

    def __post_init__(self) -> None:
        nd, bp, li = self.near_duplicate, self.boilerplate, self.low_information
        if nd is not None and not (isinstance(nd, (int, float)) and 0 < nd <= 1):
            raise ValueError(f"near_duplicate must be a similarity in (0, 1], e.g. 0.8, or off; got {nd!r}")
        if bp is not None and not (isinstance(bp, int) and bp >= 2):
            raise ValueError(f"boilerplate must be a number of places, 2 or more (e.g. 3), or off; got {bp!r}")
        if li is not None and not (isinstance(li, int) and li >= 1):
            raise ValueError(
                f"low_information must be a number of content words, 1 or more (e.g. 3), or off; got {li!r}"
            )

    @classmethod
    def off(cls) -> "HygieneRules":
        """Every hygiene flag off."""
        return cls(False, None, None, None, False, False)

    @classmethod
    def parse(cls, pairs: Sequence[str], base: "HygieneRules | None" = None) -> "HygieneRules":
        """Rules from ``KEY=VALUE`` strings (``near_duplicate=0.8``, ``boilerplate=off``,
        ``secret=off``), over ``base`` (default: the defaults). A bad one raises ValueError."""
        values: dict[str, Any] = {}
        names = [f.name for f in dataclasses.fields(cls)]
        for pair in pairs:
            key, sep, raw = pair.partition("=")
            key = key.strip().replace("-", "_")
            if not sep or key not in names:
                raise ValueError(f"--hygiene expects KEY=VALUE with KEY one of {', '.join(names)}; got {pair!r}")
            values[key] = _value(key, raw.strip())
        return dataclasses.replace(base or cls(), **values)

    def describe(self) -> Mapping[str, str]:
        """Each flag's rule in plain words, e.g. ``near_duplicate: similarity >= 0.7``."""
        return {
            Flag.DUPLICATE: "on" if self.duplicate else "off",
            Flag.NEAR_DUPLICATE: f"share of word triples >= {self.near_duplicate:g}"
            if self.near_duplicate is not None
            else "off",
            Flag.BOILERPLATE: f"a line or sentence at >= {self.boilerplate} places" if self.boilerplate else "off",
            Flag.LOW_INFORMATION: f"< {self.low_information} content words or < 20 % letters"
            if self.low_information
            else "off",
            Flag.SECRET: "on" if self.secret else "off",
            Flag.INSTRUCTION: "on" if self.instruction else "off",
        }


_OFF = {"off", "none", "no", "false", "0"}
_ON = {"on", "yes", "true", "1"}


def _value(key: str, raw: str) -> Any:
    low = raw.lower()
    if key in ("duplicate", "secret", "instruction"):
        if low in _ON | _OFF:
            return low in _ON
        raise ValueError(f"--hygiene {key}= takes on or off; got {raw!r}")
    if low in _OFF - {"0"} or (low == "0" and key != "near_duplicate"):
        return None
    try:
        return float(raw) if key == "near_duplicate" else int(raw)
    except ValueError:
        kind = "a similarity such as 0.8" if key == "near_duplicate" else "a whole number"
        raise ValueError(f"--hygiene {key}= takes {kind} or off; got {raw!r}") from None
