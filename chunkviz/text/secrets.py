"""Credential-shaped strings: provider key prefixes, private-key blocks, long high-entropy tokens.

:func:`find_secrets` names each one's kind and span; nothing here returns a secret's characters
beyond the public prefix that names its kind (``AKIA``, ``sk-``, ``ghp_`` ...): :func:`masked`
replaces every secret by the same number of ``•`` (its prefix kept), so offsets stay exact wherever
the masked text is shown instead (the document view, table previews, repeated text named by a flag).
One linear scan per pattern; the high-entropy rule looks only at runs of 32 to 512 token characters.
"""

from __future__ import annotations

import bisect
import math
import re
from collections import Counter
from dataclasses import dataclass

#: What a secret is replaced with, one character for one.
MASK = "\u2022"

#: (kind, pattern, characters of the match that may be shown: the public prefix naming the kind,
#: literals one of which every match contains: a text without any is not scanned by the pattern,
#: since a substring test is far cheaper than a regular expression's scan)
_PROVIDER_KEYS: tuple[tuple[str, re.Pattern[str], int, tuple[str, ...]], ...] = tuple(
    (kind, re.compile(pattern), shown, literals)
    for kind, pattern, shown, literals in (
        (
            "private key block",
            r"-----BEGIN[A-Z ]{0,40} PRIVATE KEY(?: BLOCK)?-----(?:(?:(?!-----)[\s\S]){0,20000}-----END[A-Z ]{0,40} PRIVATE KEY(?: BLOCK)?-----)?",
            0,
            ("-----BEGIN",),
        ),
        ("Anthropic API key", r"(?<![\w-])sk-ant-[A-Za-z0-9_-]{20,}", 7, ("sk-ant-",)),
        ("OpenAI-style API key (sk-)", r"(?<![\w-])sk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}", 3, ("sk-",)),
        ("Stripe secret key", r"(?<![\w-])[rs]k_live_[A-Za-z0-9]{16,}", 8, ("k_live_",)),
        ("AWS access key ID", r"(?<![A-Z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Z0-9])", 4, ("AKIA", "ASIA")),
        (
            "GitHub token",
            r"(?<!\w)(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})",
            4,
            ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        ),
        ("GitLab token", r"(?<!\w)glpat-[A-Za-z0-9_-]{20,}", 6, ("glpat-",)),
        ("Slack token", r"(?<![\w-])xox[abposr]-[A-Za-z0-9-]{10,}", 5, ("xox",)),
        ("Google API key", r"(?<![\w-])AIza[0-9A-Za-z_-]{35}", 4, ("AIza",)),
        (
            "JSON web token",
            r"(?<![\w-])eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",
            3,
            ("eyJ",),
        ),
    )
)

#: A run of token characters long enough to be a generated secret (bounded, so a scan is linear).
_TOKEN = re.compile(r"(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_-]{32,512}={0,2}(?![A-Za-z0-9+/_=-])")
#: Bits per character a random token reaches and words, paths and hex digests do not (hex: at most 4).
ENTROPY_BITS = 4.3
#: Text in front of a token that says it is data, not a credential (an inline image, a checksum).
_DATA_BEFORE = re.compile(r"(?:base64,|sha\d*[-:=]\s*|integrity=\S{0,10})$", re.IGNORECASE)


@dataclass(frozen=True)
class Secret:
    """A credential-shaped string at ``[start, end)`` of the text searched: its ``kind`` and the
    public prefix that names it (``shown``: at most the provider's prefix, never the secret)."""

    kind: str
    start: int
    end: int
    shown: str

    def describe(self, offset: int = 0) -> str:
        """E.g. ``AWS access key ID at characters 120–140 (AKIA…, 20 characters)``; ``offset`` is
        added to the positions (a chunk's start: positions in the document)."""
        prefix = f"{self.shown}\u2026, " if self.shown else ""
        return (
            f"{self.kind} at characters {self.start + offset:,}\u2013{self.end + offset:,} "
            f"({prefix}{self.end - self.start:,} characters, not shown)"
        )


def entropy_bits(token: str) -> float:
    """Shannon entropy of the token's characters, in bits per character."""
    n = len(token)
    return -sum(k / n * math.log2(k / n) for k in Counter(token).values()) if n else 0.0


def _random_looking(token: str) -> bool:
    """Upper and lower case letters and digits, no long word-like run, and high entropy."""
    body = token.rstrip("=")
    if not (any(c.isupper() for c in body) and any(c.islower() for c in body) and any(c.isdigit() for c in body)):
        return False
    if sum(c.isdigit() for c in body) < len(body) / 16:  # prose-like identifiers have few digits
        return False
    if max((len(run) for run in re.findall(r"[a-z]+", body)), default=0) > 10:  # a word or a path
        return False
    return entropy_bits(body) >= ENTROPY_BITS


def _in_url(text: str, start: int) -> bool:
    """Whether ``start`` lies inside a URL (``scheme://`` earlier in the same run of non-space)."""
    word_start = start
    while word_start > 0 and start - word_start < 300 and not text[word_start - 1].isspace():
        word_start -= 1
    return "://" in text[word_start:start]


def find_secrets(text: str) -> list[Secret]:
    """Every credential-shaped string of ``text``, in order, not overlapping (the first kind found
    wins a span; provider prefixes before the high-entropy rule)."""
    found: list[Secret] = []
    starts: list[int] = []  # of the spans taken, sorted (they never overlap)

    def take(secret: Secret) -> None:
        k = bisect.bisect_left(starts, secret.start)
        if (k > 0 and found[k - 1].end > secret.start) or (k < len(found) and found[k].start < secret.end):
            return
        starts.insert(k, secret.start)
        found.insert(k, secret)

    for kind, pattern, shown, literals in _PROVIDER_KEYS:
        if not any(literal in text for literal in literals):
            continue
        for m in pattern.finditer(text):
            take(Secret(kind, m.start(), m.end(), m.group()[:shown]))
    for m in _TOKEN.finditer(text):
        if _random_looking(m.group()) and not _DATA_BEFORE.search(text, max(0, m.start() - 24), m.start()):
            if "/" in m.group() and _in_url(text, m.start()):
                continue  # a URL's path, not a credential
            take(Secret("high-entropy token", m.start(), m.end(), ""))
    return found


def masked(text: str, secrets: list[Secret] | None = None) -> str:
    """``text`` with every secret (``secrets``, default :func:`find_secrets`) replaced by as many
    ``•`` as it has characters (its public prefix and its line breaks kept): the same length, so
    offsets and lines stay."""
    found = find_secrets(text) if secrets is None else secrets
    if not found:
        return text
    out: list[str] = []
    at = 0
    for s in found:
        out.append(text[at : s.start])
        hidden = text[s.start + len(s.shown) : s.end]
        out.append(s.shown + "".join(c if c.isspace() else MASK for c in hidden))
        at = s.end
    out.append(text[at:])
    return "".join(out)
