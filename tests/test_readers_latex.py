"""LaTeX (chunkviz.document.readers.latex): the body without comments, sectioning commands as
headings; no TeX is run."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import chunkviz
from chunkviz.core.vocabulary import Boundary
from chunkviz.document.read import read_bytes
from chunkviz.document.readers import latex

PAPER = r"""\documentclass{article}
\usepackage{listings} % for code
\title{Chunking papers}
\begin{document}
\maketitle
% \section{An old section, commented out}
\section{Introduction} % why
We cut papers at 50\% of the window. % a note to self
Two lines, one paragraph.

\subsection*[Short]{How \emph{we} cut~it}
Body text.
\begin{verbatim}
x = 1 % kept: verbatim
\section{not a heading: verbatim source}
\end{verbatim}
\begin{comment}
dropped entirely
\end{comment}
\paragraph{A small one}
Last words.
\input{appendix}
\end{document}
ignored after the end
"""

BODY = r"""\maketitle
\section{Introduction}
We cut papers at 50\% of the window.
Two lines, one paragraph.

\subsection*[Short]{How \emph{we} cut~it}
Body text.
\begin{verbatim}
x = 1 % kept: verbatim
\section{not a heading: verbatim source}
\end{verbatim}
\paragraph{A small one}
Last words.
\input{appendix}
"""


def test_the_body_without_comments_with_its_sections_as_headings() -> None:
    document = read_bytes(PAPER.encode(), "paper.tex")
    assert document.format == "latex"
    assert document.text == BODY
    assert document.notes == (
        latex.LATEX_NOTE,
        "the preamble (3 lines before \\begin{document}) is left out",
        "files included with \\input or \\include are not read: appendix",
    )
    headings = [(h.level, h.title, document.text[h.start : h.end]) for h in document.structure.headings]
    assert headings == [
        (1, "Introduction", r"\section{Introduction}"),
        (2, "How we cut it", r"\subsection*[Short]{How \emph{we} cut~it}"),
        (3, "A small one", r"\paragraph{A small one}"),
    ]
    assert [s.path for s in document.structure.sections][:2] == [("Introduction",), ("Introduction", "How we cut it")]


def test_a_cut_before_a_sectioning_command_is_a_section_boundary() -> None:
    document = read_bytes(PAPER.encode(), "paper.tex")
    before_subsection = document.text.index(r"\subsection")
    assert document.structure.boundary_at(before_subsection) == Boundary.SECTION
    assert document.structure.boundary_at(document.text.index("Two lines")) == Boundary.LINE
    chunks = chunkviz.chunk(document, "headings")
    assert [c.text.split("\n", 1)[0] for c in chunks] == [
        r"\maketitle",
        r"\section{Introduction}",
        r"\subsection*[Short]{How \emph{we} cut~it}",
        r"\paragraph{A small one}",
    ]


def test_a_file_without_a_document_environment_is_read_whole() -> None:
    document = read_bytes(b"\\chapter{Methods}\r\nWe measure 10\\% % really\r\n", "chapter.tex")
    assert document.text == "\\chapter{Methods}\r\nWe measure 10\\%\r\n"
    assert [(h.level, h.title) for h in document.structure.headings] == [(1, "Methods")]


def test_a_title_that_never_closes_is_bounded_and_noted() -> None:
    text = "\\section{" + "{" * 100_000 + "\n" + "words " * 10_000
    document = read_bytes(text.encode(), "unclosed.tex")
    assert document.structure.headings == ()
    assert "1 sectioning command whose title does not close are not headings" in document.notes


def test_comments_and_escapes() -> None:
    assert latex.strip_comments("a \\\\% comment\nb \\% kept\n%whole\nc\n") == "a \\\\\nb \\% kept\nc\n"
    assert latex.plain_title(r"Costs \& \textbf{benefits}\\ of 5\%") == "Costs & benefits of 5%"


_PIECES = st.sampled_from(
    [
        "\\section{A}",
        "\\subsection*{B {c}}",
        "\\paragraph[s]{D}",
        "\\section{",
        "}",
        "{",
        "text ",
        "\n",
        "\n\n",
        "\\\\",
        "\\emph{x}",
    ]
)


@settings(max_examples=80, deadline=None)
@given(st.lists(_PIECES, max_size=30).map("".join))
def test_latex_without_comments_is_kept_and_every_heading_is_a_command(source: str) -> None:
    document = read_bytes(source.encode(), "part.tex")
    assert document.text == source  # no comment, no document environment: nothing is taken out
    for heading in document.structure.headings:
        span = document.text[heading.start : heading.end]
        assert span.startswith("\\") and span.endswith("}") and 1 <= heading.level <= 6
        if heading.start > 0 and document.text[heading.start - 1] == "\n":  # a command that opens a line
            assert document.structure.boundary_at(heading.start) == Boundary.SECTION
