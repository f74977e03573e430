"""Lines, blank lines and runs of whitespace in a text: the scanners the structure is built from.

The one definition of a line break (``str.splitlines``'s) and of a paragraph break, the
non-blank paragraphs of a text, whitespace runs measured in time independent of how often they
are asked for (:class:`SpaceRuns`) and headings' underlines found with each line scanned once
(:class:`UnderlinesBelow`). :mod:`chunkviz.document.structure` uses them; they import nothing
of chunkviz.
"""

from __future__ import annotations

import bisect
import re
import threading

#: The line breaks of ``str.splitlines`` ("\r\n" counts as one).
LINE_BREAK_CHARS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
_LB = "(?:\r\n|\r(?!\n)|[" + LINE_BREAK_CHARS.replace("\r", "") + "])"
_INLINE_SPACE = "[^\\S" + LINE_BREAK_CHARS + "]"
LINE_BREAK = re.compile(_LB)
#: A blank line: a line break, whitespace-only lines and the line break that ends them; or a
#: Unicode paragraph separator. The one definition of "paragraph" in chunkviz.
PARAGRAPH_SEPARATOR = re.compile(_LB + _INLINE_SPACE + "*" + _LB + "|\u2029")
#: A paragraph break: a paragraph separator and the whitespace after it.
PARAGRAPH_BREAK = re.compile("(?:" + PARAGRAPH_SEPARATOR.pattern + ")" + r"\s*")
_SPACE_RUN = re.compile(r"\s*")
_LINE = re.compile("([^" + LINE_BREAK_CHARS + "]*)(?:" + _LB + "|$)")
#: a setext underline (Markdown) or an rst adornment line under a title
_UNDERLINE = re.compile(r" {0,3}(?:=+|-+|([!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])\1{2,})[ \t]*$")
_ADORNMENT = re.compile(r"([!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])\1{2,}[ \t]*$")


def _skip_space(text: str, pos: int) -> int:
    """The first non-space position at or after ``pos`` (``len(text)`` when only space follows)."""
    match = _SPACE_RUN.match(text, pos)
    return match.end() if match is not None else pos


def paragraph_spans(text: str) -> list[tuple[int, int]]:
    """The non-blank paragraphs of ``text``, from first to last non-space character."""
    breaks = [m.span() for m in PARAGRAPH_BREAK.finditer(text)]
    # a paragraph break takes the whitespace after it, so every paragraph but the first starts
    # at text; only its end may need trimming (spaces before the line break)
    starts = [_skip_space(text, 0), *(end for _, end in breaks)]
    ends = [start for start, _ in breaks] + [len(text)]
    spans = []
    for start, end in zip(starts, ends):
        if end > start and text[end - 1].isspace():
            end = start + len(text[start:end].rstrip())
        if end > start:
            spans.append((start, end))
    return spans


#: Whitespace runs at least this long are measured once and remembered (see :class:`SpaceRuns`);
#: shorter ones are measured again at each use, in fewer than this many steps.
_LONG_RUN_MIN = 32


class SpaceRuns:
    """The maximal whitespace run around a position, in time independent of how often it is asked.

    Scanning a run character by character from every cut or separator inside it made long runs
    quadratic (40,000 newlines: minutes). A run is measured where it is asked for (C-speed string
    methods: a regular expression forwards, ``rstrip`` backwards), and a run of at least
    ``_LONG_RUN_MIN`` characters is remembered, so each long run is measured once however many
    positions inside it are asked about; nothing is computed for the rest of the text.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self._starts: list[int] = []  # the long runs measured so far, sorted and disjoint
        self._ends: list[int] = []
        self._lock = threading.Lock()

    def _known_run_at(self, pos: int) -> tuple[int, int] | None:
        """The long run measured earlier that contains ``pos``, if any."""
        if not self._starts:
            return None
        with self._lock:
            k = bisect.bisect_right(self._starts, pos) - 1
            if k >= 0 and pos < self._ends[k]:
                return self._starts[k], self._ends[k]
        return None

    def _remember(self, start: int, end: int) -> tuple[int, int]:
        with self._lock:
            k = bisect.bisect_left(self._starts, start)
            if k == len(self._starts) or self._starts[k] != start:
                self._starts.insert(k, start)
                self._ends.insert(k, end)
        return start, end

    def _measure_long_run(self, pos: int) -> tuple[int, int]:
        """The whole run around ``pos`` (a whitespace character inside a long run), remembered."""
        text = self.text
        end = _skip_space(text, pos)
        width = 4 * _LONG_RUN_MIN
        while True:  # growing windows backwards: linear in the run's length
            lo = max(0, pos - width)
            kept = len(text[lo:pos].rstrip())
            if kept or lo == 0:
                return self._remember(lo + kept, end)
            width *= 4

    def start_before(self, pos: int) -> int:
        """Where the whitespace run that ends at ``pos`` starts (``pos`` if none ends there)."""
        text = self.text
        if pos <= 0 or not text[pos - 1].isspace():
            return pos
        known = self._known_run_at(pos - 1)
        if known is not None:
            return known[0]
        lo = max(0, pos - _LONG_RUN_MIN)
        kept = len(text[lo:pos].rstrip())
        if kept or lo == 0:
            return lo + kept
        return self._measure_long_run(pos - 1)[0]

    def end_after(self, pos: int) -> int:
        """Where the whitespace run that starts at ``pos`` ends (``pos`` if none starts there)."""
        text = self.text
        if pos >= len(text) or not text[pos].isspace():
            return pos
        known = self._known_run_at(pos)
        if known is not None:
            return known[1]
        match = _SPACE_RUN.match(text, pos, pos + _LONG_RUN_MIN)
        end = match.end() if match is not None else pos
        if end < pos + _LONG_RUN_MIN:
            return end
        return self._measure_long_run(pos)[1]


def count_line_breaks(gap: str) -> int:
    return len(LINE_BREAK.findall(gap))


#: Every line break but "\n" (a text without them has its lines found by ``str.find``).
_OTHER_LINE_BREAKS = LINE_BREAK_CHARS.replace("\n", "")
#: The first line (at or after a line start) that ends a paragraph's search for an underline: a
#: blank line or an underline (``_UNDERLINE``), in a text whose only line break is "\n".
_PARAGRAPH_STOP = re.compile(r"^(?:[^\S\n]*$|" + _UNDERLINE.pattern.removesuffix("$") + "$)", re.MULTILINE)


class UnderlinesBelow:
    """Whether a line of the text, or one after it before its paragraph ends, underlines a heading.

    ``below(line)`` is true when the first line from ``line`` on that is blank, is the text's
    last line or is an underline (``_UNDERLINE``) is an underline. Every line of a stretch up to
    such a line has the same answer, so the stretches found are remembered and each line is
    scanned at most once: asking about every line of a paragraph of many lines is linear, not
    quadratic (a paragraph of 200,000 short lines was minutes).
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self._only_newlines = not any(ch in text for ch in _OTHER_LINE_BREAKS)
        self._starts: list[int] = []  # stretches [start, stop) of line starts with a known answer
        self._stops: list[int] = []
        self._values: list[bool] = []
        self._lock = threading.Lock()

    def line_end(self, pos: int) -> tuple[int, int]:
        """Where the line at ``pos`` ends, and where the next one starts (``len(text)`` at the end)."""
        text = self.text
        if self._only_newlines:
            end = text.find("\n", pos)
            return (len(text), len(text)) if end < 0 else (end, end + 1)
        match = _LINE.match(text, pos)
        assert match is not None  # the pattern matches at every position
        return match.end(1), match.end()

    def below(self, line: int) -> bool:
        """See the class docstring; ``line`` is a line start."""
        with self._lock:
            k = bisect.bisect_right(self._starts, line) - 1
            if k >= 0 and line < self._stops[k]:
                return self._values[k]
            known_from = self._starts[k + 1] if k + 1 < len(self._starts) else len(self.text) + 1
            stop, value = self._scan(line, known_from)
            if stop is None:  # reached a stretch known already: the same answer
                stop, value = known_from, self._values[k + 1]
            self._starts.insert(k + 1, line)
            self._stops.insert(k + 1, stop)
            self._values.insert(k + 1, value)
            return value

    def _scan(self, line: int, known_from: int) -> tuple[int | None, bool]:
        """From ``line``, the first line that decides (just past its start) and its answer;
        ``(None, False)`` when the line ``known_from`` is reached first."""
        text = self.text
        if self._only_newlines:
            match = _PARAGRAPH_STOP.search(text, line, min(known_from, len(text)))
            if match is not None and match.start() < known_from:
                stop_line = match.start()  # blank (False) or an underline (True)
                return stop_line + 1, bool(_UNDERLINE.match(text, stop_line, self.line_end(stop_line)[0]))
            if known_from <= len(text):
                return None, False
            return len(text) + 1, False
        for match in _LINE.finditer(text, line):
            if match.start() >= known_from:
                return None, False
            content = match.group(1)
            if _UNDERLINE.match(content):
                return match.start() + 1, True
            if not content.strip() or match.end() >= len(text):
                return match.start() + 1, False
        return len(text) + 1, False


__all__ = [
    "LINE_BREAK",
    "LINE_BREAK_CHARS",
    "PARAGRAPH_BREAK",
    "PARAGRAPH_SEPARATOR",
    "SpaceRuns",
    "UnderlinesBelow",
    "count_line_breaks",
    "paragraph_spans",
]
