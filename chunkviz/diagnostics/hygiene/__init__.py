"""Hygiene flags: is this chunk worth indexing? Computed for any chunking (strategies, peers, yours).

- ``duplicate`` / ``near_duplicate`` (:mod:`~.duplicates`): the same text as another chunk, or almost
  the same words (word-shingle overlap, candidates from sampled-shingle buckets: no all-pairs comparison);
- ``boilerplate`` (:mod:`~.boilerplate`): a line or sentence recurring at many places, named;
- ``low_information`` (:mod:`~.information`): almost no letters, or almost only stop words/markup/numbers;
- ``secret`` (:mod:`~.secrets`): credential-shaped strings, by kind and position, never echoed;
- ``instruction`` (:mod:`~.instructions`): text addressed to a model, flagged for review, never removed.

:func:`hygiene` returns each chunk's findings and the document's summary; the thresholds are a
:class:`HygieneRules`. Every text a finding names goes through :func:`~.secrets.masked`.
:mod:`~.corpus` sums them over a corpus (``chunkviz batch``). Everything is linear in the text.
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Callable, Sequence

from chunkviz.core.types import Chunk
from chunkviz.core.vocabulary import Flag
from chunkviz.diagnostics.hygiene.boilerplate import boilerplate
from chunkviz.diagnostics.hygiene.duplicates import exact_copies, near_copies
from chunkviz.diagnostics.hygiene.findings import HygieneFinding, HygieneSummary, RepeatedText
from chunkviz.diagnostics.hygiene.information import low_information
from chunkviz.diagnostics.hygiene.instructions import find_instructions
from chunkviz.diagnostics.hygiene.rules import HYGIENE_EXPLANATIONS, HYGIENE_FLAGS, HygieneRules
from chunkviz.text.secrets import find_secrets, masked

#: Boilerplate pieces the summary names (the most repeated first).
SUMMARY_PIECES = 10


def hygiene(
    chunks: Sequence[Chunk], rules: HygieneRules | None = None, text: str | None = None
) -> tuple[dict[int, tuple[HygieneFinding, ...]], HygieneSummary]:
    """Each flagged chunk's findings (by index, in :data:`HYGIENE_FLAGS` order) and the summary.

    With the document's ``text``, secrets and instructions are found once in it, and every chunk
    holding any part of one is flagged (a key cut in two by a window is still a key); without it,
    in each chunk's own text."""
    rules = rules or HygieneRules()
    found: dict[int, list[HygieneFinding]] = {}
    by_index = {c.index: c for c in chunks}

    def add(index: int, finding: HygieneFinding) -> None:
        found.setdefault(index, []).append(finding)

    if rules.duplicate:
        for copy in exact_copies(chunks):
            c = by_index[copy.index]
            add(
                c.index,
                HygieneFinding(Flag.DUPLICATE, c.start, c.end, f"same text as chunk {copy.other}", other=copy.other),
            )
    if rules.near_duplicate is not None:
        for copy in near_copies(chunks, rules.near_duplicate):
            c = by_index[copy.index]
            detail = f"{100 * copy.similarity:.0f} % of the shorter one's word triples shared with chunk {copy.other}"
            add(c.index, HygieneFinding(Flag.NEAR_DUPLICATE, c.start, c.end, detail, other=copy.other))
    repeated: list[RepeatedText] = []
    if rules.boilerplate is not None:
        per_chunk, common = boilerplate(chunks, rules.boilerplate)
        repeated = [RepeatedText(masked(r.text), r.places) for r in common[:SUMMARY_PIECES]]
        for index, held in per_chunk.items():
            c = by_index[index]
            named = "; ".join(f"\u201c{masked(r.text)}\u201d ({r.places} places)" for r in held[:2])
            more = f" and {len(held) - 2} more" if len(held) > 2 else ""
            add(index, HygieneFinding(Flag.BOILERPLATE, c.start, c.end, f"repeats {named}{more}"))
    for c in chunks:
        _chunk_findings(c, rules, add, text is None)
    if text is not None:
        _text_findings(text, chunks, rules, add)
    order = {flag: k for k, flag in enumerate(HYGIENE_FLAGS)}
    result = {i: tuple(sorted(items, key=lambda f: (order[f.flag], f.start))) for i, items in found.items()}
    return result, HygieneSummary({str(k): v for k, v in rules.describe().items()}, tuple(repeated))


def _chunk_findings(
    c: Chunk, rules: HygieneRules, add: Callable[[int, HygieneFinding], None], searched: bool = True
) -> None:
    """The flags a chunk gets from its own text: low information, and (``searched``) secrets and instructions."""
    if rules.low_information is not None:
        why = low_information(c.text, rules.low_information)
        if why is not None:
            add(c.index, HygieneFinding(Flag.LOW_INFORMATION, c.start, c.end, why))
    if not searched:
        return
    if rules.secret:
        for s in find_secrets(c.text):
            add(c.index, HygieneFinding(Flag.SECRET, c.start + s.start, c.start + s.end, s.describe(c.start), s.kind))
    if rules.instruction:
        for i in find_instructions(c.text):
            where = f"at character {c.start + i.start:,}"
            detail = f"{i.kind}: \u201c{masked(i.phrase)}\u201d {where}"
            add(c.index, HygieneFinding(Flag.INSTRUCTION, c.start + i.start, c.start + i.end, detail, i.kind))


def _text_findings(
    text: str, chunks: Sequence[Chunk], rules: HygieneRules, add: Callable[[int, HygieneFinding], None]
) -> None:
    """Secrets and instructions found once in the document, given to every chunk holding part of one."""
    spans: list[tuple[int, int, HygieneFinding]] = []
    if rules.secret:
        for s in find_secrets(text):
            spans.append((s.start, s.end, HygieneFinding(Flag.SECRET, s.start, s.end, s.describe(), s.kind)))
    if rules.instruction:
        for i in find_instructions(text):
            detail = f"{i.kind}: \u201c{masked(i.phrase)}\u201d at character {i.start:,}"
            spans.append((i.start, i.end, HygieneFinding(Flag.INSTRUCTION, i.start, i.end, detail, i.kind)))
    if not spans:
        return
    spans.sort(key=lambda item: item[0])
    starts = [a for a, _, _ in spans]
    longest = max(b - a for a, b, _ in spans)
    for c in chunks:
        k = bisect.bisect_left(starts, c.start - longest)  # the first that may reach into the chunk
        while k < len(spans) and spans[k][0] < c.end:
            a, b, finding = spans[k]
            if b > c.start:
                add(c.index, finding if c.start <= a and b <= c.end else _partly(finding))
            k += 1


def _partly(finding: HygieneFinding) -> HygieneFinding:
    return dataclasses.replace(finding, detail=finding.detail + "; this chunk holds part of it")


__all__ = [
    "HYGIENE_EXPLANATIONS",
    "HYGIENE_FLAGS",
    "HygieneFinding",
    "HygieneRules",
    "HygieneSummary",
    "RepeatedText",
    "find_instructions",
    "find_secrets",
    "hygiene",
    "masked",
]
