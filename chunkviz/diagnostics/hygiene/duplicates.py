"""Duplicate and near-duplicate chunks, without comparing every pair.

*Duplicate*: the same text as another chunk once runs of whitespace are made one space (one hash
table, linear); a text of fewer than :data:`MIN_CONTENT_WORDS` content words (a rule of stars, a
lone quote mark) is not compared: it is low information, flagged as such, whatever its copies. *Near duplicate*: most of one chunk's word 3-shingles (three consecutive words,
case-folded) are in the other chunk too: their overlap coefficient ``|A & B| / min(|A|, |B|)`` is
at least the threshold, so a copied section is found whether or not the chunks around it are cut
at the same places (a footer or a neighbouring paragraph in one copy's chunk does not hide it).

Candidates come from content-defined samples (a MinHash-style sketch that needs no all-pairs step):
a shingle is *sampled* when its hash is divisible by :data:`SAMPLE_EVERY`, so a copy's sampled
shingles are a subset of the original's; each sampled shingle's bucket lists the chunks holding it,
a bucket of more than :data:`MAX_BUCKET` chunks is skipped (that shingle is boilerplate, not a
copy), and the pairs sharing enough sampled shingles are then measured exactly. Chunks with the
same text are filed once (they are duplicates already), and at most :data:`MAX_PAIRS_PER_CHUNK`
candidate pairs per chunk are counted. Work and memory are linear in the document's words.

Only chunks of the same level whose spans do not overlap are compared: a parent and its child, or
two windows sharing their configured overlap, are the same text by construction, not a copy.
"""

from __future__ import annotations

import re
import zlib
from collections import defaultdict
from dataclasses import dataclass
from typing import Sequence

from chunkviz.core.types import Chunk
from chunkviz.diagnostics.hygiene.information import content_words

#: One shingle in this many (by hash) is sampled.
SAMPLE_EVERY = 2
#: A bucket with more chunks than this is skipped (a shingle that common is boilerplate).
MAX_BUCKET = 32
#: A duplicate needs this many content words (see :func:`~chunkviz.diagnostics.hygiene.information.content_words`).
MIN_CONTENT_WORDS = 2
#: Candidate pairs counted at most, per chunk (a bound on memory for text made of many near copies).
MAX_PAIRS_PER_CHUNK = 64
#: Words per shingle.
SHINGLE_WORDS = 3
#: Chunks with fewer shingles than this are not compared (too short for a similarity to mean much).
MIN_SHINGLES = 8
#: A pair is measured exactly when its sampled estimate is at least the threshold minus this.
ESTIMATE_SLACK = 0.25

_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Copy:
    """Chunk ``index`` has the same (``similarity`` 1.0, exact) or nearly the same text as ``other``."""

    index: int
    other: int
    similarity: float
    exact: bool


def normalized(text: str) -> str:
    """The text with every run of whitespace made one space, trimmed."""
    return " ".join(text.split())


def shingles(text: str) -> frozenset[str]:
    """The text's word 3-shingles, case-folded (a text of fewer words: its words as one shingle)."""
    words = _WORD.findall(text.casefold())
    if len(words) < SHINGLE_WORDS:
        return frozenset({" ".join(words)}) if words else frozenset()
    return frozenset(" ".join(words[i : i + SHINGLE_WORDS]) for i in range(len(words) - SHINGLE_WORDS + 1))


def overlap_coefficient(a: frozenset[str], b: frozenset[str]) -> float:
    """``|a & b| / min(|a|, |b|)``: the share of the smaller set found in the other (0 when one is empty)."""
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0


def _hash(shingle: str) -> int:
    return zlib.crc32(shingle.encode("utf-8", "surrogatepass"))


def _apart(a: Chunk, b: Chunk) -> bool:
    return a.level == b.level and (a.end <= b.start or b.end <= a.start)


def exact_copies(chunks: Sequence[Chunk]) -> list[Copy]:
    """Each chunk whose normalised text another chunk (same level, elsewhere) has too; ``other``
    is the first such chunk in document order."""
    groups: dict[tuple[int, str], list[Chunk]] = defaultdict(list)
    for c in chunks:
        key = normalized(c.text)
        if key and content_words(key) >= MIN_CONTENT_WORDS:
            groups[(c.level, key)].append(c)
    out: list[Copy] = []
    for members in groups.values():
        if len(members) < 2:
            continue
        ordered = sorted(members, key=lambda c: (c.start, c.index))
        for c in ordered:
            other = next((o for o in ordered if o is not c and _apart(c, o)), None)
            if other is not None:
                out.append(Copy(c.index, other.index, 1.0, True))
    return out


def near_copies(chunks: Sequence[Chunk], threshold: float) -> list[Copy]:
    """Each chunk with a near copy (overlap coefficient >= ``threshold``, not an exact copy): its
    most similar one (ties: the first in document order)."""
    ordered = list(chunks)
    keys = [normalized(c.text) for c in ordered]
    sets: dict[int, frozenset[str]] = {}
    sampled: dict[int, int] = {}
    buckets: dict[int, list[int]] = defaultdict(list)
    filed: set[tuple[int, str]] = set()
    for pos, c in enumerate(ordered):
        if (c.level, keys[pos]) in filed:
            continue  # the same text as a chunk filed already: an exact copy, not a near one
        filed.add((c.level, keys[pos]))
        grams = shingles(c.text)
        if len(grams) < MIN_SHINGLES:
            continue
        sets[pos] = grams
        picked = {h for h in map(_hash, grams) if h % SAMPLE_EVERY == 0}
        sampled[pos] = len(picked)
        for h in picked:
            bucket = buckets[h]
            if len(bucket) <= MAX_BUCKET:  # one past the cap marks it as too common
                bucket.append(pos)
    shared: dict[tuple[int, int], int] = defaultdict(int)
    most = MAX_PAIRS_PER_CHUNK * max(1, len(sets))
    for members in buckets.values():
        if 2 <= len(members) <= MAX_BUCKET:
            for i, a in enumerate(members):
                for b in members[i + 1 :]:
                    if (a, b) in shared or len(shared) < most:
                        shared[(a, b)] += 1
    best: dict[int, tuple[float, int]] = {}
    for (a, b), count in shared.items():
        smaller = min(sampled[a], sampled[b])
        if smaller == 0 or count / smaller < threshold - ESTIMATE_SLACK:
            continue
        if keys[a] == keys[b] or not _apart(ordered[a], ordered[b]):
            continue
        similarity = overlap_coefficient(sets[a], sets[b])
        if similarity < threshold:
            continue
        for one, other in ((a, b), (b, a)):
            mine = best.get(one)
            if mine is None or (-similarity, ordered[other].start) < (-mine[0], ordered[mine[1]].start):
                best[one] = (similarity, other)
    return [Copy(ordered[p].index, ordered[o].index, s, False) for p, (s, o) in sorted(best.items())]
