"""LaTeX source: the document's body without comments, its sectioning commands as headings.

No TeX is run. The text is the body, between ``\\begin{document}`` and ``\\end{document}`` (the
whole file when it has none, e.g. a chapter meant for ``\\input``), with the comments taken out:
a line that is only a comment goes whole, a comment after text goes from its ``%`` to the line's
end (``\\%`` is a percent sign, not a comment; ``verbatim``-like environments keep theirs) and
``comment`` environments go whole. Everything else stays as written, so a chunk shows the source
a user would index. ``\\part``, ``\\chapter``, ``\\section``, ``\\subsection``,
``\\subsubsection``, ``\\paragraph`` and ``\\subparagraph`` (starred or not, with or without a
short title in ``[...]``) are ``heading`` blocks over the command, levelled from the highest one
used; their titles lose the commands and braces inside them. The structure of a LaTeX document
is these headings and its blank-line paragraphs (``markup`` ``none``: no Markdown is looked for).

Bounds: one pass over the text; a heading's title is read over at most
:data:`MAX_TITLE_CHARS` characters and :data:`MAX_BRACE_DEPTH` levels of braces (a title that
does not close within them is not a heading, with a note). Files named by ``\\input`` or
``\\include`` are not read (a note lists them).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import replace

from chunkviz.document.blocks import Block
from chunkviz.document.model import Document

LATEX_NOTE = "LaTeX: the body without its comments; offsets index that text"
#: Most characters a sectioning command's title is read over.
MAX_TITLE_CHARS = 2_000
#: Deepest braces inside a title.
MAX_BRACE_DEPTH = 32
SECTIONING = ("part", "chapter", "section", "subsection", "subsubsection", "paragraph", "subparagraph")
_VERBATIM = ("verbatim", "verbatim*", "lstlisting", "minted", "Verbatim", "alltt")

_BEGIN_DOCUMENT = re.compile(r"\\begin\s*\{document\}")
_END_DOCUMENT = re.compile(r"\\end\s*\{document\}")
_SECTION = re.compile(r"\\(" + "|".join(SECTIONING) + r")\*?\s*(?:\[[^\]\n]{0,500}\])?\s*\{")
_INPUT = re.compile(r"\\(?:input|include)\s*\{([^}\n]{1,300})\}")
_ENVIRONMENT = re.compile(r"\\(begin|end)\s*\{([A-Za-z*]+)\}")
_COMMAND = re.compile(r"\\[A-Za-z@]+\*?|\\.")
_LINE = re.compile(r"[^\n]*\n|[^\n]+")
_ESCAPED_CHARACTERS = set("%&$#_{}")


def latex_document(document: Document) -> Document:
    """A decoded LaTeX file as its body without comments (format ``latex``), with its sectioning
    commands as ``heading`` blocks."""
    source = document.text
    body, preamble_lines = _body(source)
    text = strip_comments(body)
    headings, unclosed = latex_headings(text)
    notes = [n for n in document.notes if not n.startswith("document contains only")]
    notes.append(LATEX_NOTE)
    if preamble_lines:
        notes.append(
            f"the preamble ({preamble_lines} line{'s' if preamble_lines != 1 else ''} before \\begin{{document}}) is left out"
        )
    inputs = list(dict.fromkeys(m.group(1).strip() for m in _INPUT.finditer(text)))
    if inputs:
        shown = ", ".join(inputs[:5]) + (f" and {len(inputs) - 5} more" if len(inputs) > 5 else "")
        notes.append(f"files included with \\input or \\include are not read: {shown}")
    if unclosed:
        notes.append(
            f"{unclosed} sectioning command{'s' if unclosed > 1 else ''} whose title does not close are not headings"
        )
    return replace(document, text=text, format="latex", notes=tuple(notes), extra_blocks=tuple(headings))


def _body(source: str) -> tuple[str, int]:
    """The text between ``\\begin{document}`` and ``\\end{document}`` (the line break after the
    first taken too), and the preamble's line count; the whole source when there is no body."""
    begin = _uncommented_match(_BEGIN_DOCUMENT, source, 0)
    if begin is None:
        return source, 0
    start = begin.end()
    if source.startswith("\r\n", start):
        start += 2
    elif source.startswith(("\n", "\r"), start):
        start += 1
    end_match = _uncommented_match(_END_DOCUMENT, source, start)
    end = end_match.start() if end_match is not None else len(source)
    return source[start:end], source.count("\n", 0, begin.start())


def _uncommented_match(pattern: re.Pattern[str], text: str, pos: int) -> re.Match[str] | None:
    """The first match of ``pattern`` from ``pos`` that is not inside a comment."""
    for match in pattern.finditer(text, pos):
        line_start = text.rfind("\n", 0, match.start()) + 1
        if _comment_start(text[line_start : match.start()]) is None:
            return match
    return None


def _comment_start(line: str) -> int | None:
    """Where the comment of a line starts: its first ``%`` after an even number of backslashes."""
    pos = line.find("%")
    while pos >= 0:
        backslashes = len(line[:pos]) - len(line[:pos].rstrip("\\"))
        if backslashes % 2 == 0:
            return pos
        pos = line.find("%", pos + 1)
    return None


def strip_comments(text: str) -> str:
    """``text`` without its comments (see the module's docstring); line by line, linear."""
    out: list[str] = []
    verbatim: str | None = None  # the environment whose end is awaited
    in_comment_environment = False
    for match in _LINE.finditer(text):
        line = match.group()
        content = line.rstrip("\r\n")
        ending = line[len(content) :]
        if verbatim is not None:
            out.append(line)
            if re.search(r"\\end\s*\{" + re.escape(verbatim) + r"\}", content):
                verbatim = None
            continue
        if in_comment_environment:
            in_comment_environment = re.search(r"\\end\s*\{comment\}", content) is None
            continue
        cut = _comment_start(content)
        code = content if cut is None else content[:cut]
        opened = _opened_environment(code)
        if opened == "comment":
            in_comment_environment = True
            kept = code[: code.find("\\begin")].rstrip()
            if kept:
                out.append(kept + ending)
            continue
        if opened in _VERBATIM:
            verbatim = opened
            out.append(line)  # a % inside the environment is text
            continue
        if cut is None:
            out.append(line)
        elif code.strip():
            out.append(code.rstrip() + ending)
        # a line that is only a comment is left out, line break and all
    return "".join(out)


def _opened_environment(code: str) -> str | None:
    """The environment a line opens and does not close on the same line, if any."""
    opened: str | None = None
    for kind, environment in _ENVIRONMENT.findall(code):
        if kind == "begin":
            opened = environment
        elif environment == opened:
            opened = None
    return opened


def latex_headings(text: str) -> tuple[list[Block], int]:
    """The sectioning commands of ``text`` as ``heading`` blocks (levels from 1 for the highest
    command used), and how many had a title that does not close."""
    found: list[tuple[int, int, str, str]] = []  # (start, end, command, title)
    unclosed = 0
    verbatim = _verbatim_spans(text)
    starts = [start for start, _ in verbatim]
    for match in _SECTION.finditer(text):
        k = bisect.bisect_right(starts, match.start()) - 1
        if k >= 0 and match.start() < verbatim[k][1]:  # source shown as it is, not a heading
            continue
        line_start = text.rfind("\n", 0, match.start()) + 1
        if _comment_start(text[line_start : match.start()]) is not None:
            continue
        close = _closing_brace(text, match.end())
        if close is None:
            unclosed += 1
            continue
        found.append((match.start(), close + 1, match.group(1), plain_title(text[match.end() : close])))
    used = sorted({SECTIONING.index(command) for _, _, command, _ in found})
    level_of = {SECTIONING[rank]: min(k + 1, 6) for k, rank in enumerate(used)}
    blocks = [Block("heading", start, end, level_of[command], title) for start, end, command, title in found]
    return blocks, unclosed


def _verbatim_spans(text: str) -> list[tuple[int, int]]:
    """The spans of the ``verbatim``-like environments of ``text``, in order (one pass)."""
    spans: list[tuple[int, int]] = []
    open_at: tuple[str, int] | None = None
    for kind, environment, start, end in ((m[1], m[2], m.start(), m.end()) for m in _ENVIRONMENT.finditer(text)):
        if open_at is None and kind == "begin" and environment in _VERBATIM:
            open_at = (environment, start)
        elif open_at is not None and kind == "end" and environment == open_at[0]:
            spans.append((open_at[1], end))
            open_at = None
    if open_at is not None:
        spans.append((open_at[1], len(text)))
    return spans


def _closing_brace(text: str, pos: int) -> int | None:
    """The ``}`` that closes the brace opened just before ``pos``, within the title's bounds."""
    depth = 1
    limit = min(len(text), pos + MAX_TITLE_CHARS)
    k = pos
    while k < limit:
        ch = text[k]
        if ch == "\\":
            k += 2
            continue
        if ch == "{":
            depth += 1
            if depth > MAX_BRACE_DEPTH:
                return None
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return k
        k += 1
    return None


def plain_title(title: str) -> str:
    """A title without its commands and braces: ``The \\emph{first} step~1`` -> ``The first step 1``."""
    text = _COMMAND.sub(lambda m: m.group()[1] if m.group()[1:] in _ESCAPED_CHARACTERS else " ", title)
    text = text.replace("{", "").replace("}", "").replace("~", " ")
    return " ".join(text.split())
