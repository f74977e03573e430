"""The structure of one document, built once: the only place that defines its units.

Lines, paragraphs, sentences, blocks (headings, code, tables with rows, list items, quotes, and
what a reader adds: pages, functions, classes) and sections with heading paths are all exact
ranges of the text. Everything is computed on first use and cached on the object, so a
strategy that needs only paragraphs never parses Markdown and one that needs no sentences
never loads spaCy.

``boundary_at(pos)`` names the strongest structural boundary at an offset (see
:class:`chunkviz.core.vocabulary.Boundary`); every chunk's ``boundary`` comes from it.
"""

from __future__ import annotations

import bisect
import re
import threading
from functools import cached_property
from typing import Callable, Sequence

from chunkviz.core.vocabulary import Boundary
from chunkviz.document.blocks import Block, LeafSection, Section
from chunkviz.document.code.languages import LANGUAGES
from chunkviz.document.lines import (
    _ADORNMENT,
    LINE_BREAK,
    LINE_BREAK_CHARS,
    PARAGRAPH_BREAK,
    PARAGRAPH_SEPARATOR,
    SpaceRuns,
    UnderlinesBelow,
    _skip_space,
    count_line_breaks,
    paragraph_spans,
)
from chunkviz.document.markdown import MarkdownParserFailed, markdown_blocks
from chunkviz.document.rst import detect_markup, rst_blocks
from chunkviz.document.sentences import (
    ENGLISH,
    Segmenter,
    expected_segmenter_name,
    get_segmenter,
    sentence_starts,
    sentence_starts_per_block,
)
from chunkviz.document.words import cuts_mid_word, joins_unspaced_letters


class _LineHint:
    """Whether some line of a text opens with one of a few patterns, found at C speed.

    ``re.MULTILINE`` with ``^`` makes the regex engine try every position of the text (12-43 ms
    on 3 MB of prose); the same alternatives after a literal ``"\\n"`` let it skip from line
    break to line break. The text's first line is matched on its own.
    """

    def __init__(self, alternatives: str) -> None:
        self.first_line = re.compile(f"(?:{alternatives})", re.MULTILINE)
        self.other_lines = re.compile(f"\\n(?:{alternatives})", re.MULTILINE)

    def found_in(self, text: str) -> bool:
        return bool(self.first_line.match(text) or self.other_lines.search(text))


#: Lines that could start or underline a heading; when none occurs, no parse is needed to know
#: that a document has no headings.
_HEADING_HINT = _LineHint(
    r" {0,3}#| {0,3}(?:=+|-+)[ \t]*\r?$|([!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])\1{2,}[ \t]*\r?$"
)
#: A line that opens a Markdown block other than a paragraph (a list item, quote, table row,
#: fence or indented code).
_BLOCK_HINT = _LineHint(r" {0,3}(?:[-*+>|]|\d+[.)]|```|~~~)|(?: {4}|\t)\S")


#: The opening of an ATX heading at a line's start: 1-6 "#" and a space, a tab or the line's end.
_ATX_OPENING = re.compile(r"#{1,6}(?:[ \t\n]|\Z)")
#: Where an HTML block that may span blank lines could open (CommonMark types 1-5), and more.
_LONG_HTML_BLOCK_OPENER = re.compile(r"<(?:[!?]|(?i:pre|script|style|textarea))")

#: Markup a document format is parsed as.
MARKUP_OF_FORMAT = {
    "markdown": "markdown",
    "rst": "rst",
    "html": "markdown",  # converted to Markdown by its reader
    "docx": "markdown",
    "pdf": "markdown",
    "pptx": "markdown",
    "xlsx": "markdown",
    "csv": "markdown",
    "epub": "markdown",
    "eml": "markdown",
    "python": "none",
    **{language: "none" for language in LANGUAGES},  # source code: no markup
    "latex": "none",  # its reader gives the sectioning commands as heading blocks
}


def markup_for(format: str, text: str) -> str:
    """``markdown``, ``rst`` or ``none``; plain text is sniffed (rst directives, else Markdown)."""
    return MARKUP_OF_FORMAT.get(format) or detect_markup(text)


#: Words of context on each side of a cut when only the paragraph around it is segmented, and
#: the most characters searched for them. spaCy's senter (en_core_web_sm: a window-1, depth-2
#: CNN over token features) decides a token from a few tokens on each side, and spaCy tokenizes
#: whitespace-separated pieces on their own, each into at least one token: a window cut at the
#: 8th space on each side decides like the whole paragraph. tests/test_structure.py checks it
#: on every candidate cut of the sample and real documents; it fails with 3 words and passes
#: from 4, so 8 keeps a margin. Where 8 spaces are not within ``SENTENCE_WINDOW`` characters, the
#: window reaches that far (at whitespace when there is some).
SENTENCE_WINDOW_WORDS = 8
SENTENCE_WINDOW = 200
_SENTENCE_FINAL = ".!?…。！？｡؟۔।॥։።။។།"
#: Full stops after which a sentence starts without a space (Chinese, Japanese).
_UNSPACED_SENTENCE_FINAL = "。！？｡"
_CLOSERS = "\"')]}»”’」』）】〕〉》"


def _nth_space(text: str, pos: int, limit: int, n: int) -> int:
    """The ``n``-th space after ``pos`` (``n`` > 0, before ``limit``) or the ``-n``-th before it
    (``n`` < 0, at or after ``limit``); -1 when there are fewer."""
    found = pos
    for _ in range(abs(n)):
        found = text.find(" ", found + 1, limit) if n > 0 else text.rfind(" ", limit, found)
        if found < 0:
            return -1
    return found


#: Whitespace runs told apart without measuring them: their line breaks.
_PLAIN_RUNS = {"": 0, " ": 0, "\n": 1, "\n\n": 2}


def _plain_run_at(text: str, pos: int) -> tuple[int, int, int] | None:
    """The whitespace run at ``pos`` and its line breaks when it is one of the commonest: none,
    one space, one or two ``"\n"``, between two non-space characters. ``None`` for any other
    run (longer, other whitespace, or at the text's start or end): it is measured instead."""
    n = len(text)
    if not 0 < pos < n:
        return None
    lo = pos  # up to 3 characters each way: a run of 3 or more is never a plain one
    while lo > 0 and pos - lo < 3 and text[lo - 1].isspace():
        lo -= 1
    hi = pos
    while hi < n and hi - pos < 3 and text[hi].isspace():
        hi += 1
    if lo == 0 or hi == n:
        return None
    breaks = _PLAIN_RUNS.get(text[lo:hi])
    return None if breaks is None else (lo, hi, breaks)


def _after_sentence_punctuation(text: str, end: int, marks: str = _SENTENCE_FINAL) -> bool:
    """Whether ``text[:end]`` ends with sentence-final punctuation (one of ``marks``; closing
    quotes and brackets after it allowed)."""
    k = end
    while k > 0 and end - k < 3 and text[k - 1] in _CLOSERS:
        k -= 1
    return k > 0 and text[k - 1] in marks


class Structure:
    """Lines, paragraphs, sentences, blocks and sections of one text, computed lazily."""

    def __init__(
        self,
        text: str,
        markup: str = "markdown",
        extra_blocks: Sequence[Block] = (),
        segmenter: Segmenter | None = None,
        language_of: Callable[[], str] | None = None,
    ):
        """``language_of`` gives the text's language (an ISO 639 code), asked when sentences are
        first needed: it chooses the segmenter (English when not given)."""
        self.text = text
        self.markup = markup
        self._extra = tuple(extra_blocks)
        self._segmenter = segmenter
        self._language_of = language_of
        self._lock = threading.Lock()
        self._window_sentences: dict[tuple[int, int], frozenset[int]] = {}
        self._spaces = SpaceRuns(text)
        self._gaps: dict[tuple[int, int], tuple[int, bool]] = {}  # whitespace run -> (line breaks up to 2, has U+2029)
        self._notes: list[str] = []
        self._markdown_failed = False

    @property
    def notes(self) -> tuple[str, ...]:
        """What parsing the markup has noted so far: a parser that failed and how the text is read
        instead. Shown with the document's own notes (:attr:`Document.notes`)."""
        return tuple(self._notes)

    def markup_notes(self) -> tuple[str, ...]:
        """:attr:`notes` once the markup is parsed (parsed now if it is not yet: a page that shows
        the document's notes before any strategy runs)."""
        _ = self.blocks
        return self.notes

    def _markdown_blocks(self, headings_only: bool = False) -> list[Block]:
        """:func:`markdown_blocks` of the text; none when the parser fails on it (said once in
        :attr:`notes`, and not tried again)."""
        if self._markdown_failed:
            return []
        try:
            return markdown_blocks(self.text, headings_only)
        except MarkdownParserFailed as exc:
            self._markdown_failed = True
            self._notes.append(str(exc))
            return []

    # ---- blocks and sections ---------------------------------------------------------------
    @cached_property
    def blocks(self) -> tuple[Block, ...]:
        """Markup blocks and reader blocks (pages, functions, classes) in document order."""
        if self.markup == "markdown":
            parsed = self._markdown_blocks() if self._may_have_blocks() else []
        elif self.markup == "rst":
            parsed = rst_blocks(self.text)
        else:
            parsed = []
        return tuple(sorted([*parsed, *self._extra], key=lambda b: (b.start, -b.end)))

    def _may_have_blocks(self) -> bool:
        """Markdown without any heading-, fence-, table- or list-like line parses to paragraphs
        only; skipping the parse then keeps plain prose fast."""
        return bool(self.headings_possible or "|" in self.text or _BLOCK_HINT.found_in(self.text))

    def of_kind(self, *kinds: str) -> list[Block]:
        return [b for b in self.blocks if b.kind in kinds]

    @cached_property
    def headings(self) -> tuple[Block, ...]:
        if self.markup == "markdown" and not self.headings_possible:
            return ()
        if self.markup == "markdown" and "blocks" not in self.__dict__:
            return tuple(self._markdown_blocks(headings_only=True))  # the same headings, faster
        return tuple(b for b in self.blocks if b.kind == "heading")

    @cached_property
    def _heading_anchors(self) -> frozenset[int]:
        """The first non-space character of every heading."""
        return frozenset(_skip_space(self.text, h.start) for h in self.headings)

    @cached_property
    def tables(self) -> tuple[Block, ...]:
        return tuple(b for b in self.blocks if b.kind == "table")

    @cached_property
    def sections(self) -> tuple[Section, ...]:
        """Every heading's section: from the heading to the next heading of the same or higher level.

        One pass with a stack of the open sections: a heading closes (ends at its start) every
        open section of the same or a deeper level, and the one left on top is its parent.
        Linear in the number of headings (each is pushed and popped once); scanning the later
        headings from each heading took 19 s at 100,000 headings."""
        heads = self.headings
        starts: list[int] = []
        ends: list[int] = []
        parents: list[int | None] = []
        paths: list[tuple[str, ...]] = []
        stack: list[int] = []  # indices of the open sections, outermost first
        for k, head in enumerate(heads):
            while stack and heads[stack[-1]].level >= head.level:
                ends[stack.pop()] = head.start
            parent = stack[-1] if stack else None
            starts.append(head.start)
            ends.append(len(self.text))
            parents.append(parent)
            paths.append((*(paths[parent] if parent is not None else ()), head.title))
            stack.append(k)
        return tuple(map(Section, heads, starts, ends, paths, parents))

    @cached_property
    def _section_starts(self) -> list[int]:
        return [section.start for section in self.sections]

    def leaf_sections(self, max_level: int = 6) -> list[LeafSection]:
        """Sections cut at every heading of level ``<= max_level``; they tile the whole text (a
        blank preamble belongs to the first section, a document without headings is one)."""
        text = self.text
        kept = [s for s in self.sections if s.heading.level <= max_level]
        first = kept[0].start if kept else len(text)
        out: list[LeafSection] = []
        if text[:first].strip():
            out.append(LeafSection(0, first, (), 0))
        for k, s in enumerate(kept):
            end = kept[k + 1].start if k + 1 < len(kept) else len(text)
            # a kept heading's ancestors have lower levels, so they are kept too: its path is complete
            out.append(LeafSection(s.start if out else 0, end, s.path, s.heading.level))
        return out

    def heading_path_at(self, pos: int) -> tuple[str, ...]:
        """Titles of the sections that contain ``pos`` (innermost last); () before the first heading.

        The innermost is the last section starting at or before ``pos``, or the nearest of its
        ancestors that still contains ``pos`` (found by bisection: asking for every chunk of a
        document with many headings stays linear)."""
        sections = self.sections
        k: int | None = bisect.bisect_right(self._section_starts, pos) - 1
        while k is not None and k >= 0:
            section = sections[k]
            if section.start <= pos < section.end:
                return section.path
            k = section.parent
        return ()

    def _could_start_heading(self, pos: int) -> bool:
        """A cheap necessary condition for a heading at ``pos`` (a line's first non-space): the
        line starts with ``#`` or is an rst overline, or a line of its paragraph below it is an
        underline. Only then does :attr:`headings` need the full parse. Linear over all the
        positions asked about (each line is scanned once, see :class:`UnderlinesBelow`)."""
        if self.markup == "none":
            return bool(self._extra) and pos in self._heading_anchors  # a reader's headings (LaTeX)
        if not self.headings_possible:
            return False
        text = self.text
        if text.startswith("#", pos):
            return True
        lines = self._underlines
        line_end, next_line = lines.line_end(pos)
        if _ADORNMENT.match(text, pos, line_end):
            return True
        # an empty line after it (a one-line paragraph, the usual case) underlines nothing
        return next_line < len(text) and text[next_line] != "\n" and lines.below(next_line)

    @cached_property
    def _underlines(self) -> UnderlinesBelow:
        return UnderlinesBelow(self.text)

    def _starts_heading(self, pos: int) -> bool:
        """Whether a heading's first non-space character is at ``pos`` (a line's first non-space).

        An ATX heading that is certainly one (:meth:`_certain_atx_heading`) needs no parse;
        anything else is looked up in :attr:`headings` (parsed once)."""
        parsed = "_heading_anchors" in self.__dict__ or self._markdown_failed  # failed: no heading is certain
        if not parsed and self._certain_atx_heading(pos):
            return True
        return pos in self._heading_anchors

    def _certain_atx_heading(self, pos: int) -> bool:
        """True only where the Markdown parse is sure to find an ATX heading at ``pos``.

        A line at column 0 opening with 1-6 ``#`` and a space, a tab or the line's end, after a
        blank line (or first in the text), is an ATX heading in CommonMark unless a block that
        spans blank lines is open: fenced code or an HTML block of types 1-5 (``<pre``,
        ``<script``, ``<style``, ``<textarea``, ``<!``, ``<?``). A text with none of those openers
        (nor a carriage return, nor reader blocks that are headings) cannot have one open; any
        other case is left to the parse. ``tests/test_structure_headings.py`` compares this with
        the parse on generated Markdown.
        """
        if not self._plain_block_markdown:
            return False
        text = self.text
        if (pos > 0 and text[pos - 1] != "\n") or _ATX_OPENING.match(text, pos) is None:
            return False
        if pos <= 1:  # the first line, or after a first empty line
            return True
        previous = text.rfind("\n", 0, pos - 1) + 1
        return not text[previous : pos - 1].strip(" \t")

    @cached_property
    def _plain_block_markdown(self) -> bool:
        """Markdown without anything that could keep a block open across a blank line (see
        :meth:`_certain_atx_heading`)."""
        text = self.text
        # each search for a string is preceded by a search for its first character (several times faster)
        return (
            self.markup == "markdown"
            and not ("`" in text and "```" in text)
            and not ("~" in text and "~~~" in text)
            and "\r" not in text
            and not ("<" in text and _LONG_HTML_BLOCK_OPENER.search(text))
            and not any(block.kind == "heading" for block in self._extra)
        )

    @cached_property
    def headings_possible(self) -> bool:
        """False when no line of the text could start or underline a heading."""
        return _HEADING_HINT.found_in(self.text)

    # ---- lines and paragraphs ------------------------------------------------------------------
    @cached_property
    def paragraphs(self) -> tuple[tuple[int, int], ...]:
        """Non-blank paragraphs from their first to their last non-space character."""
        return tuple(paragraph_spans(self.text))

    @cached_property
    def paragraph_starts(self) -> list[int]:
        return [start for start, _ in self.paragraphs]

    # ---- sentences ------------------------------------------------------------------------------
    @cached_property
    def language(self) -> str:
        """The language whose segmenter finds the sentences."""
        return self._language_of() if self._language_of is not None else ENGLISH

    @property
    def segmenter(self) -> Segmenter:
        if self._segmenter is None:
            self._segmenter = get_segmenter(self.language)
        return self._segmenter

    def expected_segmenter_name(self) -> str:
        """The name of the segmenter that finds this text's sentences, found without loading it."""
        if self._segmenter is not None:
            return self._segmenter.name
        return expected_segmenter_name(self.language)

    @cached_property
    def sentence_starts(self) -> tuple[int, ...]:
        """Where sentences start (a non-space character); a sentence never spans a blank line."""
        return tuple(sentence_starts(self.text, self.paragraphs, self.segmenter))

    def adopt_sentence_starts(self, starts: Sequence[int], segmenter_name: str) -> None:
        """Use sentence starts computed earlier by the segmenter named ``segmenter_name`` (e.g.
        read from a disk cache) instead of segmenting again. Ignored when this structure has
        segmented already, or when another segmenter would run here (the starts would differ)."""
        if "sentence_starts" in self.__dict__:
            return
        if self.expected_segmenter_name() != segmenter_name:
            return
        self.__dict__["sentence_starts"] = tuple(starts)

    @cached_property
    def sentences(self) -> tuple[tuple[int, int], ...]:
        """Sentence spans that tile the text: the whitespace after a sentence belongs to it."""
        starts = self.sentence_starts
        if not starts:
            return ()
        bounds = [0, *starts[1:], len(self.text)]
        return tuple(zip(bounds[:-1], bounds[1:]))

    @cached_property
    def trimmed_sentences(self) -> tuple[tuple[int, int], ...]:
        """Sentence spans from their first to their last non-space character."""
        text = self.text
        starts = self.sentence_starts
        out = []
        for k, start in enumerate(starts):
            end = starts[k + 1] if k + 1 < len(starts) else len(text)
            while end > start and text[end - 1].isspace():
                end -= 1
            out.append((start, end))
        return tuple(out)

    def _sentence_starts_at(self, positions: Sequence[int]) -> list[bool]:
        """Whether a sentence of the document's segmenter starts at each position.

        When the whole document is not segmented yet, only a window of the paragraph around each
        position is (all windows in one batch): the senter model decides from a few tokens of
        context on each side, so a window reaching ``SENTENCE_WINDOW_WORDS`` words past the
        position on both sides (or the paragraph's ends) gives the same answer
        (``tests/test_structure.py`` checks this on the sample and real documents) at a fraction
        of the cost of segmenting long paragraphs. A linear segmenter (sentencex, the regex)
        segments the whole document instead: as cheap, and the same answer by construction.
        """
        if "sentence_starts" in self.__dict__ or self.segmenter.linear:
            known = self.sentence_starts
            return [(k := bisect.bisect_left(known, pos)) < len(known) and known[k] == pos for pos in positions]
        windows = [self._sentence_window(pos) for pos in positions]
        with self._lock:
            todo = sorted({w for w in windows if w is not None and w not in self._window_sentences})
            if todo:
                for window, starts in zip(todo, self._segment_windows(todo)):
                    self._window_sentences[window] = starts
            return [w is not None and pos in self._window_sentences[w] for pos, w in zip(positions, windows)]

    def _segment_windows(self, windows: Sequence[tuple[int, int]]) -> list[frozenset[int]]:
        """Sentence starts of each window, segmented separately, in one call of the segmenter."""
        per_window = sentence_starts_per_block(self.text, windows, self.segmenter)
        return [frozenset(starts) for starts in per_window]

    def _sentence_window(self, pos: int) -> tuple[int, int] | None:
        """The paragraph around ``pos`` (a non-space character), cut at the
        ``SENTENCE_WINDOW_WORDS``-th space on each side (or about ``SENTENCE_WINDOW``
        characters away, at whitespace), so a window edge never falls inside a word. Found
        locally: only the text within ``SENTENCE_WINDOW`` of ``pos`` is searched."""
        text = self.text
        lo_limit, hi_limit = max(0, pos - SENTENCE_WINDOW), min(len(text), pos + SENTENCE_WINDOW)
        space_before = _nth_space(text, pos, lo_limit, -SENTENCE_WINDOW_WORDS)
        if space_before < 0 and lo_limit > 0:  # few spaces: the last one in the reach's first half
            space_before = text.rfind(" ", lo_limit, pos - SENTENCE_WINDOW // 2)
        lo_bound = space_before if space_before >= 0 else lo_limit
        breaks_before = [m.end() for m in PARAGRAPH_BREAK.finditer(text, lo_bound, pos + 1) if m.end() <= pos]
        if breaks_before:
            lo = breaks_before[-1]
        elif lo_bound == 0:
            lo = _skip_space(text, 0)
        else:
            lo = _skip_space(text, space_before) if space_before >= 0 else lo_limit
        space_after = _nth_space(text, pos, hi_limit, SENTENCE_WINDOW_WORDS)
        if space_after < 0 and hi_limit < len(text):
            space_after = text.find(" ", pos + SENTENCE_WINDOW // 2, hi_limit)
        hi_bound = space_after if space_after >= 0 else hi_limit
        after = PARAGRAPH_BREAK.search(text, pos, hi_bound)
        if after is not None:
            hi = after.start()
        elif hi_bound == len(text):
            hi = len(text)
        else:
            hi = hi_bound
        while hi > lo and text[hi - 1].isspace():
            hi -= 1
        return (lo, hi) if lo <= pos < hi else None

    # ---- boundaries -----------------------------------------------------------------------------
    def boundary_at(self, pos: int) -> Boundary:
        """The strongest structural boundary at ``pos`` (between ``text[pos-1]`` and ``text[pos]``).

        The whitespace run around ``pos`` decides: the next text is a heading (section), the run
        has a blank line (paragraph) or a line break (line), the next text starts a sentence
        (sentence), or it is only spaces (word). A cut with no whitespace at it is inside a word
        when :func:`~chunkviz.document.words.cuts_mid_word` says so (word characters on both
        sides, or a split grapheme), inside a sentence between two letters of a script written
        without spaces (where its words end is not known), at a sentence end after a CJK full
        stop (。！？), which needs no space after it, else at a word's edge (word: e.g. before
        punctuation).
        A sentence boundary needs both: sentence-final punctuation before the spaces, and a
        sentence of the document's segmenter starting after them. The punctuation test comes
        first, so most cuts between words never load the segmenter (spaCy).
        """
        return self.boundaries_at([pos])[0]

    def boundaries_at(self, positions: Sequence[int]) -> list[Boundary]:
        """:meth:`boundary_at` of many positions; the sentence checks they need are segmented
        in one batch."""
        found = [self._boundary_without_sentences(pos) for pos in positions]
        pending = [(k, after) for k, (boundary, after) in enumerate(found) if boundary is None]
        if pending:
            starts = self._sentence_starts_at([after for _, after in pending])
            for (k, after), starts_sentence in zip(pending, starts):
                found[k] = (Boundary.SENTENCE if starts_sentence else Boundary.WORD, after)
        return [boundary for boundary, _ in found]  # type: ignore[misc]  # the sentence check filled in every None

    def _gap_kind(self, before: int, after: int) -> tuple[int, bool]:
        """Line breaks in the whitespace run ``[before, after)`` (counted up to 2) and whether it
        has a U+2029; computed once per run, however many cuts fall inside it."""
        kind = self._gaps.get((before, after))
        if kind is None:
            found = 0
            for _ in LINE_BREAK.finditer(self.text, before, after):
                found += 1
                if found == 2:
                    break
            kind = self._gaps[(before, after)] = (found, self.text.find("\u2029", before, after) >= 0)
        return kind

    def _boundary_without_sentences(self, pos: int) -> tuple[Boundary | None, int]:
        """The boundary at ``pos`` and the first non-space at or after it; ``None`` when only the
        sentence segmentation can tell a sentence end from a word gap."""
        text = self.text
        n = len(text)
        pos = min(max(pos, 0), n)
        plain = _plain_run_at(text, pos)
        if plain is not None:  # the commonest runs, measured on the spot
            before, after, breaks = plain
            paragraph_separator = False
        else:
            after = self._spaces.end_after(pos)
            if after >= n:
                return Boundary.DOCUMENT_END, after
            before = self._spaces.start_before(pos)
            breaks, paragraph_separator = self._gap_kind(before, after) if before < after else (0, False)
        if before == after:  # no whitespace at the cut
            if cuts_mid_word(text, pos):
                return Boundary.INSIDE_WORD, after
            if _after_sentence_punctuation(text, pos, _UNSPACED_SENTENCE_FINAL):  # 。 needs no space after it
                return None, after
            if joins_unspaced_letters(text, pos):  # 日|本: where a word ends is not known
                return Boundary.INSIDE_SENTENCE, after
            return Boundary.WORD, after
        if (breaks or before == 0) and self._could_start_heading(after) and self._starts_heading(after):
            return Boundary.SECTION, after
        if before == 0 or breaks >= 2 or paragraph_separator:
            return Boundary.PARAGRAPH, after
        if breaks == 1:
            return Boundary.LINE, after
        if _after_sentence_punctuation(text, before):
            return None, after
        return Boundary.WORD, after


__all__ = [
    "Block",
    "LINE_BREAK",
    "LINE_BREAK_CHARS",
    "LeafSection",
    "PARAGRAPH_BREAK",
    "PARAGRAPH_SEPARATOR",
    "Section",
    "SpaceRuns",
    "Structure",
    "count_line_breaks",
    "markup_for",
    "paragraph_spans",
]
