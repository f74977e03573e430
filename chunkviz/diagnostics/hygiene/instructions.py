"""Text addressed to a language model: "ignore previous instructions" and its kin, chat role markers.

Such text in an indexed document can steer the model that later reads the retrieved chunk (a
prompt injection). It is flagged for a person to review, never removed: a document about prompt
injection quotes these phrases on purpose. One linear scan per pattern.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from chunkviz.text.secrets import masked

_PREVIOUS = r"(?:all\s+|any\s+|the\s+|your\s+|of\s+)*(?:previous|prior|above|earlier|preceding|former|original)"
_ORDERS = r"(?:instructions?|prompts?|messages?|rules|directions|directives|guidelines|context)"

#: (what it is, pattern). Phrases are matched case-insensitively; role markers as written.
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "asks the model to ignore its instructions",
        re.compile(rf"\b(?:ignore|disregard|forget|override|bypass)\s+{_PREVIOUS}\s+{_ORDERS}\b", re.IGNORECASE),
    ),
    (
        "asks the model to ignore its instructions",
        re.compile(rf"\b(?:ignore|disregard|forget)\s+(?:all|everything)\s+(?:you\s+were\s+told|{_ORDERS})\b", re.I),
    ),
    (
        "asks for the system prompt",
        re.compile(
            r"\b(?:reveal|print|repeat|show|output|leak)\s+(?:me\s+)?(?:your|the)\s+(?:system\s+prompt|hidden\s+"
            r"instructions|initial\s+instructions)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "gives the model new instructions",
        re.compile(
            r"\b(?:new|updated|real)\s+instructions\s*:|\byou\s+are\s+now\s+(?:DAN|in\s+developer\s+mode)\b", re.I
        ),
    ),
    (
        "tells the model to hide something from the user",
        re.compile(r"\bdo\s+not\s+(?:tell|inform|mention\s+(?:this\s+)?to)\s+the\s+user\b", re.IGNORECASE),
    ),
    (
        "chat role marker",
        re.compile(
            r"<\|(?:im_start|im_end|system|user|assistant|endoftext|begin_of_text|start_header_id|end_header_id|eot_id)\|>"
            r"|\[/?INST\]|<</?SYS>>"
        ),
    ),
    ("chat role marker", re.compile(r"(?m)^[ \t]*(?:system|assistant|SYSTEM|ASSISTANT)[ \t]*:[ \t]*\S")),
)

#: Characters of the matched phrase a flag names.
SHOWN_CHARS = 60


@dataclass(frozen=True)
class Instruction:
    """A phrase addressed to a model at ``[start, end)`` of the text searched."""

    kind: str
    start: int
    end: int
    phrase: str


def find_instructions(text: str) -> list[Instruction]:
    """Every phrase of ``text`` addressed to a model, in order (an overlapping later match is dropped)."""
    found: list[Instruction] = []
    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            phrase = masked(" ".join(m.group().split()))  # before it is shortened: no part of a key shows
            shown = phrase if len(phrase) <= SHOWN_CHARS else phrase[: SHOWN_CHARS - 1] + "\u2026"
            found.append(Instruction(kind, m.start(), m.end(), shown))
    found.sort(key=lambda f: (f.start, -f.end))
    kept: list[Instruction] = []
    for item in found:
        if not kept or item.start >= kept[-1].end:
            kept.append(item)
    return kept
