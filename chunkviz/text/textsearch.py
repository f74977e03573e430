"""``str.find`` and ``str.rfind`` for many queries on one long text, in about linear total time.

Placing a file's chunks asks where each text occurs, and where else. ``str.find`` from a cursor
is cheap when the text is near it (chunks in document order: the scans add up to one pass), but
a text that is absent, far away or before the cursor costs a scan of the whole document, and one
such scan per chunk is quadratic (chunks out of order, or not in the document at all).

:class:`TextSearch` answers as ``str.find`` / ``str.rfind`` do, scanning a window of
:data:`NEAR` characters next to the range's start (its end for ``rfind``) and, past it, asking an
index of the text's :data:`ANCHOR`-character substrings, built on first need: one sorted array of
``hash << bits | position`` (8 bytes per character). A query hashes a few anchors of the text
sought (all of them when those few are common), picks the rarest by binary search and checks
its candidate places in the range (or scans the range when that is cheaper, as in a text made of
one repeated phrase). A text shorter than an anchor is always scanned.
"""

from __future__ import annotations

import numpy as np

#: Characters hashed per indexed position (a text sought must be at least this long to use the index).
ANCHOR = 8
#: Characters scanned directly from a range's start before the index is asked.
NEAR = 1 << 14
#: Anchors of a text sought whose candidate counts are compared first ...
SAMPLES = 4
#: ... and every anchor's when the rarest of those occurs more often than this.
COMMON = 64
_BASE = 0x100000001B3
_MIX = 0x9E3779B97F4A7C15
_BLOCK = 1 << 20  # positions hashed at once while building the index


class TextSearch:
    """Searches of one text (see the module docstring): the results of the ``str`` methods, with
    ``start`` and ``end`` clamped to the text (a negative bound is 0, not counted from the end)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._keys: np.ndarray | None = None
        self._last: tuple[str, np.ndarray] | None = None
        self._bits = max(1, len(text).bit_length())

    def find(self, sub: str, start: int = 0, end: int | None = None) -> int:
        """The lowest index of ``sub`` inside ``text[start:end]`` (``str.find``), -1 when none."""
        start, end = self._bounds(start, end)
        m = len(sub)
        if m < ANCHOR or end - start <= NEAR + m:
            return self.text.find(sub, start, end)
        near = self.text.find(sub, start, start + NEAR + m)
        if near >= 0:
            return near
        return self._indexed(sub, start + NEAR + 1, end - m, last=False)

    def rfind(self, sub: str, start: int = 0, end: int | None = None) -> int:
        """The highest index of ``sub`` inside ``text[start:end]`` (``str.rfind``), -1 when none."""
        start, end = self._bounds(start, end)
        m = len(sub)
        if m < ANCHOR or end - start <= NEAR + m:
            return self.text.rfind(sub, start, end)
        near = self.text.rfind(sub, end - m - NEAR, end)
        if near >= 0:
            return near
        return self._indexed(sub, start, end - m - NEAR - 1, last=True)

    def _bounds(self, start: int, end: int | None) -> tuple[int, int]:
        """``start`` and ``end`` clamped to the text (a negative one is 0, not counted from the end)."""
        n = len(self.text)
        return min(max(start, 0), n), n if end is None else min(max(end, 0), n)

    def _indexed(self, sub: str, first: int, last_start: int, *, last: bool) -> int:
        """The first (``last``: the last) place in ``[first, last_start]`` where ``sub`` starts."""
        if last_start < first:
            return -1
        places = self._candidates(sub)
        a, b = (int(i) for i in np.searchsorted(places, [first, last_start + 1]))
        if a == b:
            return -1
        m = len(sub)
        if (b - a) * m > last_start - first + m:  # checking the candidates would cost more than a scan
            scan = self.text.rfind if last else self.text.find
            return scan(sub, first, last_start + m)
        for place in reversed(places[a:b].tolist()) if last else places[a:b].tolist():
            if self.text.startswith(sub, place):
                return int(place)
        return -1

    def _candidates(self, sub: str) -> np.ndarray:
        """Where ``sub`` may start, ascending: the places of its rarest anchor (of a few
        samples; of every anchor when those are all common), kept for the next query, which is
        often about the same text."""
        if self._last is not None and self._last[0] == sub:
            return self._last[1]
        m = len(sub)
        sampled = sorted({(m - ANCHOR) * k // (SAMPLES - 1) for k in range(SAMPLES)})
        anchors = "".join(sub[o : o + ANCHOR] for o in sampled)  # hashed side by side: every ANCHOR-th window
        offset, places = self._rarest(
            sampled, _window_hashes(code_points(anchors), 0, len(anchors) - ANCHOR + 1, self._bits)[::ANCHOR]
        )
        if len(places) > COMMON and m - ANCHOR + 1 > len(sampled):
            every = list(range(m - ANCHOR + 1))
            offset, places = self._rarest(every, _window_hashes(code_points(sub), 0, m - ANCHOR + 1, self._bits))
        places = places - offset
        self._last = (sub, places)
        return places

    def _rarest(self, offsets: list[int], tops: np.ndarray) -> tuple[int, np.ndarray]:
        """Of the anchors at ``offsets`` (their hashes ``tops``), the rarest's offset and places."""
        keys = self._index()
        bounds = np.searchsorted(keys, np.concatenate([tops, tops | np.uint64((1 << self._bits) - 1)]))
        counts = bounds[len(tops) :] - bounds[: len(tops)]
        rarest = int(np.argmin(counts))
        a, b = int(bounds[rarest]), int(bounds[len(tops) + rarest])
        return offsets[rarest], (keys[a:b] & np.uint64((1 << self._bits) - 1)).astype(np.int64)

    def _index(self) -> np.ndarray:
        """The sorted ``hash << bits | position`` of every :data:`ANCHOR`-character substring."""
        if self._keys is None:
            codes = code_points(self.text)
            count = max(len(codes) - ANCHOR + 1, 0)
            keys = np.empty(count, dtype=np.uint64)
            for first in range(0, count, _BLOCK):
                stop = min(count, first + _BLOCK)
                keys[first:stop] = _window_hashes(codes, first, stop, self._bits)
                keys[first:stop] |= np.arange(first, stop, dtype=np.uint64)
            keys.sort()
            self._keys = keys
        return self._keys


def code_points(text: str) -> np.ndarray:
    """The code points of ``text`` (lone surrogates included)."""
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def _window_hashes(codes: np.ndarray, first: int, stop: int, bits: int) -> np.ndarray:
    """The hashes of the :data:`ANCHOR`-code windows starting at ``first`` ... ``stop - 1``,
    their low ``bits`` bits cleared (where the index keeps the position)."""
    h = np.zeros(stop - first, dtype=np.uint64)
    for j in range(ANCHOR):
        h *= np.uint64(_BASE)
        h += codes[first + j : stop + j]
    h *= np.uint64(_MIX)
    h >>= np.uint64(bits)
    h <<= np.uint64(bits)
    return h


__all__ = ["ANCHOR", "NEAR", "TextSearch", "code_points"]
