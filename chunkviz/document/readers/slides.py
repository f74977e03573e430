"""PPTX with python-pptx: one section per slide, as Markdown through the HTML reader.

Each slide becomes ``<h1>Slide N: its title</h1>`` (``Slide N`` when it has none), then its
shapes in the slide's order: the paragraphs of a body placeholder as a bulleted list nested by
their indent level, other text boxes as paragraphs, tables as tables (their first row the
header), the shapes of a group in their place (groups nested deeper than
:data:`MAX_GROUP_DEPTH` are left out, with a note). The speaker notes follow as paragraphs
after ``Notes:`` when asked for (``notes=True``). The HTML is converted to Markdown by
:func:`~chunkviz.document.readers.html.convert_html`, so headings, lists and pipe tables are
found by the Markdown parser as for any HTML or DOCX input. Pictures, charts and media are not
read.

Before python-pptx opens the file, its XML parts may declare at most :data:`MAX_XML_BYTES`
(:mod:`~chunkviz.document.readers.archive`).
"""

from __future__ import annotations

import html
import io
from typing import Any, Iterable

from chunkviz.core.deadline import RunTimeLimitExceeded, check_time_now
from chunkviz.core.errors import DocumentError
from chunkviz.document.model import Document
from chunkviz.document.readers import needs_formats_extra, one_line
from chunkviz.document.readers.archive import check_archive

try:
    import pptx
    from pptx.enum.shapes import MSO_SHAPE_TYPE, PP_PLACEHOLDER

    HAVE_PPTX = True
except ImportError:  # the formats extra is not installed
    HAVE_PPTX = False

#: Most bytes the XML parts of a presentation may declare (python-pptx reads them as lxml trees).
MAX_XML_BYTES = 20_000_000
#: Groups inside groups deeper than this are left out.
MAX_GROUP_DEPTH = 16
PPTX_NOTE = "converted from PPTX to Markdown (one section per slide); offsets index the converted text"


def read_pptx(data: bytes, name: str = "document", notes: bool = False) -> Document:
    """A presentation as Markdown, one ``# Slide N: title`` section per slide (format ``pptx``);
    with ``notes``, each slide's speaker notes after its content. A damaged or non-PowerPoint
    file raises :class:`DocumentError`."""
    if not HAVE_PPTX:
        raise needs_formats_extra("reading PPTX")
    from chunkviz.document.readers.html import convert_html

    check_archive(data, name, MAX_XML_BYTES)
    try:
        presentation = pptx.Presentation(io.BytesIO(data))
        page, skipped = _presentation_html(presentation, notes)
    except (DocumentError, RunTimeLimitExceeded):
        raise
    except Exception as exc:  # zipfile, XML, KeyError and python-pptx's own on damaged files
        raise DocumentError(f"{name} could not be read as a PowerPoint presentation (PPTX): {_problem(exc)}") from None
    text, conversion_notes = convert_html(page, name)
    found = [PPTX_NOTE, *conversion_notes]
    if skipped:
        found.append(
            f"{skipped} group{'s' if skipped > 1 else ''} nested deeper than {MAX_GROUP_DEPTH} levels left out"
        )
    if not notes:
        found.append("speaker notes not read (read them with slide_notes=True, or --slide-notes)")
    if not len(presentation.slides):
        found.append("the presentation has no slides")
    return Document(text=text, name=name, encoding="", notes=tuple(found), format="pptx")


def _problem(exc: BaseException) -> str:
    if type(exc).__name__ == "BadZipFile":
        return f"it is not a valid ZIP archive ({one_line(exc)})"
    if isinstance(exc, KeyError):
        return f"it is not a PowerPoint package (missing part {one_line(exc)})"
    return f"the file is damaged or not a presentation ({type(exc).__name__}: {one_line(exc)})"


def _presentation_html(presentation: Any, with_notes: bool) -> tuple[str, int]:
    """The HTML of every slide, and how many groups were too deep to read."""
    pieces: list[str] = []
    skipped = 0
    for number, slide in enumerate(presentation.slides, 1):
        check_time_now()  # the app's time limit for reading (a no-op without one)
        title_shape = slide.shapes.title
        title = _one_line(title_shape.text_frame.text) if title_shape is not None and title_shape.has_text_frame else ""
        heading = f"Slide {number}: {title}" if title else f"Slide {number}"
        pieces.append(f"<h1>{html.escape(heading)}</h1>")
        others = [shape for shape in slide.shapes if title_shape is None or shape.shape_id != title_shape.shape_id]
        skipped += _shapes_html(others, pieces, 0)
        if with_notes and slide.has_notes_slide:
            frame = slide.notes_slide.notes_text_frame
            lines = [_one_line(p.text) for p in frame.paragraphs] if frame is not None else []
            lines = [line for line in lines if line]
            if lines:
                pieces.append(f"<p>Notes: {html.escape(lines[0])}</p>")
                pieces.extend(f"<p>{html.escape(line)}</p>" for line in lines[1:])
    return "\n".join(pieces), skipped


def _shapes_html(shapes: Iterable[Any], pieces: list[str], depth: int) -> int:
    """Append the HTML of ``shapes`` (groups' shapes in their place); the groups left out."""
    skipped = 0
    for shape in shapes:
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            if depth >= MAX_GROUP_DEPTH:
                skipped += 1
            else:
                skipped += _shapes_html(shape.shapes, pieces, depth + 1)
        elif getattr(shape, "has_table", False) and shape.has_table:
            pieces.append(_table_html(shape.table))
        elif getattr(shape, "has_text_frame", False) and shape.has_text_frame:
            paragraphs = [(p.level, _one_line(p.text)) for p in shape.text_frame.paragraphs]
            paragraphs = [(level, text) for level, text in paragraphs if text]
            if paragraphs and _is_body(shape):
                pieces.append(list_html(paragraphs))
            else:
                pieces.extend(f"<p>{html.escape(text)}</p>" for _, text in paragraphs)
    return skipped


def _is_body(shape: Any) -> bool:
    """A body or content placeholder: its paragraphs are bullets."""
    if not shape.is_placeholder:
        return False
    return shape.placeholder_format.type in (PP_PLACEHOLDER.BODY, PP_PLACEHOLDER.OBJECT)


def _table_html(table: Any) -> str:
    rows = []
    for row in table.rows:
        cells = "".join(f"<td>{html.escape(_one_line(cell.text))}</td>" for cell in row.cells)
        rows.append(f"<tr>{cells}</tr>")
    return "<table>" + "".join(rows) + "</table>"


def _one_line(text: str) -> str:
    """Whitespace runs (python-pptx's vertical tab for a line break too) as one space."""
    return " ".join(text.split())


def list_html(items: list[tuple[int, str]]) -> str:
    """A nested ``<ul>`` of (indent level, text) items; a level deeper than one below the item
    before it is taken as one below."""
    out: list[str] = []
    depth = 0  # open <ul> elements
    for level, text in items:
        target = min(level, depth) + 1 if depth else 1
        if target > depth:
            out.append("<ul>")
            depth = target
        else:
            out.append("</li>")
            while depth > target:
                out.append("</ul></li>")
                depth -= 1
        out.append("<li>" + html.escape(text))
    out.append("</li>")
    while depth > 1:
        out.append("</ul></li>")
        depth -= 1
    out.append("</ul>")
    return "".join(out)
