"""Asking a model where sections begin: numbered sentences, windows, answers read and repaired.

The model sees the document's sentences one per line as ``[k] text`` and answers with the
numbers of the sentences that begin a new section (``{"section_starts": [5, 12]}``). A document
longer than the model's context is shown in overlapping windows of whole sentences; each window
decides the cuts in its *core* (from the middle of its overlap with the previous window to the
middle of its overlap with the next), so every cut is decided by the window that saw the most
text around it. An answer is read leniently and every repair is recorded: a code fence or
prose around the JSON, numbers given as strings, numbers out of range, unsorted or repeated,
no JSON at all but numbers in the text. An answer with no numbers at all is unusable, and so is
one whose JSON nests deeper than any answer needs (the side files' bound, :mod:`chunkviz.core.sidefile`);
a whole number longer than :data:`~chunkviz.core.limits.MAX_SIDE_FILE_DIGITS` digits is no sentence number.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any, Sequence

from chunkviz.core.limits import MAX_SIDE_FILE_DIGITS
from chunkviz.core.sidefile import too_deep_at
from chunkviz.llm.client import Prompt

SECTION_PROMPT = Prompt(
    name="llm_chunking",
    version=1,
    system="You divide documents into coherent sections for a retrieval system. You answer with JSON only.",
    template=(
        "Below are the sentences of {what}, one per line, each after its number in square brackets.\n"
        "Find where the topic changes: list the numbers of the sentences that begin a new section "
        "(a new topic, a heading, a new step of an argument). Sentence 1 begins the first section; "
        "you need not list it. Sections usually span several sentences: do not list every sentence.\n\n"
        "Answer with one JSON object and nothing else, in this form:\n"
        '{{"section_starts": [4, 9, 15]}}\n\n'
        "Sentences:\n{sentences}"
    ),
    json=True,
)
#: A sentence longer than this is shortened in the prompt (its start tells the topic).
MAX_LINE_CHARS = 1200
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def sentence_line(text: str, number: int) -> str:
    """``[number] text`` on one line: whitespace collapsed, very long sentences shortened, lone
    surrogates (which no request can encode) shown as U+FFFD."""
    flat = _LONE_SURROGATE.sub("\ufffd", " ".join(text.split()))
    if len(flat) > MAX_LINE_CHARS:
        flat = flat[:MAX_LINE_CHARS].rstrip() + " …"
    return f"[{number}] {flat}"


@dataclass(frozen=True)
class Window:
    """Sentences ``[first, end)`` shown to the model; it decides cuts in ``[core_start, core_end)``."""

    index: int
    first: int
    end: int
    core_start: int
    core_end: int

    @property
    def size(self) -> int:
        return self.end - self.first


def plan_windows(line_tokens: Sequence[int], budget: int, overlap: int) -> list[Window]:
    """Windows of whole sentences whose lines fit ``budget`` tokens (at least one sentence each),
    consecutive windows sharing ``overlap`` sentences (at most half a window, so every window
    advances), with the cores that tile ``[0, n)``."""
    n = len(line_tokens)
    spans: list[tuple[int, int]] = []
    first = 0
    while first < n:
        end, used = first, 0
        while end < n and (end == first or used + line_tokens[end] <= budget):
            used += line_tokens[end]
            end += 1
        spans.append((first, end))
        if end >= n:
            break
        first = max(end - overlap, first + math.ceil((end - first) / 2))
    windows = []
    for i, (first, end) in enumerate(spans):
        core_start = 0 if i == 0 else _core_edge(spans[i - 1], spans[i])
        core_end = n if i == len(spans) - 1 else _core_edge(spans[i], spans[i + 1])
        windows.append(Window(i, first, end, core_start, core_end))
    return windows


def _core_edge(before: tuple[int, int], after: tuple[int, int]) -> int:
    """Where the earlier window's core ends and the later one's begins: the middle of their
    overlap (rounded up, so a window never decides its own first sentence); the later window's
    start when they do not overlap."""
    return max(after[0], math.ceil((after[0] + before[1]) / 2)) if after[0] < before[1] else after[0]


@dataclass(frozen=True)
class Proposal:
    """A window's answer read: section starts as window-local numbers (1-based, sorted, unique,
    in range) and what had to be repaired to get them."""

    starts: tuple[int, ...]
    repairs: tuple[str, ...] = ()


def read_section_starts(answer: str, n: int) -> Proposal | None:
    """The section starts in ``answer`` for a window of ``n`` sentences, or None when the answer
    holds no numbers at all (unusable)."""
    repairs: list[str] = []
    value = _json_value(answer, repairs)
    if value is _NOTHING:
        return None
    items = _number_list(value, repairs)
    if items is None:
        return None
    return _validated(items, n, repairs)


_NOTHING: Any = object()
_FENCE = re.compile(r"^```[a-zA-Z0-9_-]*\s*\n?(.*?)\n?\s*```$", re.DOTALL)
_INTEGER = re.compile(r"-?\d+")


def _json_value(answer: str, repairs: list[str]) -> Any:
    text = answer.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
        repairs.append("removed a Markdown code fence around the JSON")
    if too_deep_at(text) is not None:
        return _NOTHING
    try:
        return json.loads(text)
    except ValueError:
        pass
    embedded = _embedded_json(text)
    if embedded is not _NOTHING:
        repairs.append("ignored text around the JSON")
        return embedded
    numbers = [int(m) for m in _INTEGER.findall(text) if len(m.lstrip("-")) <= MAX_SIDE_FILE_DIGITS]
    if not numbers:
        return _NOTHING
    repairs.append("not valid JSON: read the numbers from the text")
    return numbers


def _embedded_json(text: str) -> Any:
    """The first JSON object or list inside ``text`` (the model wrapped it in prose)."""
    decoder = json.JSONDecoder()
    for match in re.finditer(r"[\[{]", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except ValueError:
            continue
        if isinstance(value, (dict, list)):
            return value
    return _NOTHING


def _number_list(value: Any, repairs: list[str]) -> list[int] | None:
    if isinstance(value, dict):
        if "section_starts" in value:
            value = value["section_starts"]
        else:
            lists = [(k, v) for k, v in value.items() if isinstance(v, list)]
            if not lists:
                return None
            key, value = lists[0]
            repairs.append(f"read the list under {key!r} (not 'section_starts')")
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        value = [value]
    if not isinstance(value, list):
        return None
    numbers: list[int] = []
    strings = dropped = 0
    for item in value:
        number = _as_int(item)
        if number is None:
            dropped += 1
            continue
        strings += isinstance(item, str)
        numbers.append(number)
    if strings:
        repairs.append(f"read {strings} number{'' if strings == 1 else 's'} given as text")
    if dropped:
        repairs.append(
            f"dropped {dropped} item{'' if dropped == 1 else 's'} that {'is' if dropped == 1 else 'are'} not a sentence number"
        )
    return numbers


def _as_int(item: Any) -> int | None:
    if isinstance(item, bool):
        return None
    if isinstance(item, int):
        return item
    if isinstance(item, float) and item.is_integer():
        return int(item)
    if (
        isinstance(item, str)
        and re.fullmatch(r"\s*-?\d+\s*", item)
        and len(item.strip().lstrip("-")) <= MAX_SIDE_FILE_DIGITS
    ):
        return int(item)
    return None


def _validated(numbers: list[int], n: int, repairs: list[str]) -> Proposal:
    out_of_range = [k for k in numbers if not 1 <= k <= n]
    if out_of_range:
        repairs.append(
            f"dropped number{'' if len(out_of_range) == 1 else 's'} out of range 1..{n}: {_listed(out_of_range)}"
        )
    kept = [k for k in numbers if 1 <= k <= n]
    if any(b < a for a, b in zip(kept, kept[1:])):
        repairs.append("sorted the numbers")
    repeated = sorted({k for k in kept if kept.count(k) > 1})
    if repeated:
        repairs.append(f"removed repeated number{'' if len(repeated) == 1 else 's'}: {_listed(repeated)}")
    return Proposal(tuple(sorted(set(kept) - {1})), tuple(repairs))


def _listed(numbers: Sequence[int], limit: int = 8) -> str:
    shown = ", ".join(str(k) for k in numbers[:limit])
    return shown + (f" and {len(numbers) - limit} more" if len(numbers) > limit else "")


def merged_starts(windows: Sequence[Window], proposals: Sequence[Proposal]) -> dict[int, int]:
    """Section starts as document sentence indices -> the window that decided each: a window's
    proposals inside its core (never its own first sentence, which it saw without context)."""
    starts: dict[int, int] = {}
    for window, proposal in zip(windows, proposals):
        for local in proposal.starts:
            k = window.first + local - 1
            if window.core_start <= k < window.core_end and k > window.first:
                starts[k] = window.index
    return dict(sorted(starts.items()))


__all__ = [
    "MAX_LINE_CHARS",
    "Proposal",
    "SECTION_PROMPT",
    "Window",
    "merged_starts",
    "plan_windows",
    "read_section_starts",
    "sentence_line",
]
