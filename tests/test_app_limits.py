"""The app under hostile input (issue 13 item 8): each upload ends with a message and the app
keeps working.

Three files a careless or hostile user might upload, each through the app's Upload source in
``AppTest``: 5 MB of one repeated character (the largest upload the app accepts), a DOCX whose
``word/document.xml`` inflates to a gigabyte from 2.5 MB (declared honestly, and a variant that
declares a few kilobytes and inflates to the same gigabyte), and a PDF of 10,000 empty pages.
Each run ends with what the user should see (the chunks, or a message that says what happened),
and a later run on a sample in the same session works. The builders are reused by
``bench/bench_soak.py``, which uploads the same files while other sessions run.

A run's time limit (``chunkviz.core.deadline``) is exercised with a fake clock, never real time.
"""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path
from typing import Any, Iterator

import pytest
from streamlit.testing.v1 import AppTest
from support.apptest import app_test
from test_app import (
    APP,
    APP_MAX_BYTES,
    DEFAULT_COLUMNS,
    chunk_counts,
    chunk_views,
    errors,
    run,
    set_widget,
    upload,
    warnings,
)

from chunkviz.document.readers import MAX_TEXT_CHARS

REPO = Path(__file__).resolve().parent.parent
#: Slow, but bounded: 5 MB through three default columns takes ~30 s on a loaded 2-core machine.
TIMEOUT_S = 600


# ----------------------------------------------------------------------------- hostile files
#: A Word body's XML around repeated paragraphs of 1,000 letters each.
XML_HEAD = (
    b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    b'<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>'
)
XML_TAIL = b"</w:body></w:document>"
PARAGRAPH = b"<w:p><w:r><w:t>" + b"a" * 1000 + b"</w:t></w:r></w:p>"
CONTENT_TYPES = (
    b'<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    b'<Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" '
    b'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'
)
RELS = (
    b'<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    b'<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" '
    b'Target="word/document.xml"/></Relationships>'
)
GIGABYTE = 1 << 30


def _deflated(data: bytes, final: bool = False) -> bytes:
    """Raw deflate of ``data`` ending on a byte boundary with no back-references past it (a full
    flush), so copies of it can be concatenated; ``final`` ends the stream."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    return compressor.compress(data) + (compressor.flush() if final else compressor.flush(zlib.Z_FULL_FLUSH))


def zip_archive(members: list[tuple[str, bytes, int, int]]) -> bytes:
    """A ZIP of deflated members ``(name, raw deflate bytes, crc32, declared size)``, written by
    hand so that a member can declare any size (Python's zipfile would compress a gigabyte)."""
    out = io.BytesIO()
    central = []
    for name, deflated, crc, size in members:
        offset = out.tell()
        encoded = name.encode()
        out.write(struct.pack("<4s5H3I2H", b"PK\x03\x04", 20, 0, 8, 0, 0x21, crc, len(deflated), size, len(encoded), 0))
        out.write(encoded + deflated)
        central.append(
            struct.pack(
                "<4s6H3I5H2I",
                b"PK\x01\x02",
                20,
                20,
                0,
                8,
                0,
                0x21,
                crc,
                len(deflated),
                size,
                len(encoded),
                0,
                0,
                0,
                0,
                0,
                offset,
            )
            + encoded
        )
    directory = b"".join(central)
    start = out.tell()
    out.write(directory)
    out.write(struct.pack("<4s4H2IH", b"PK\x05\x06", 0, 0, len(members), len(members), len(directory), start, 0))
    return out.getvalue()


def _member(name: str, data: bytes) -> tuple[str, bytes, int, int]:
    return name, _deflated(data, final=True), zlib.crc32(data), len(data)


def docx_bomb(inflated: int = GIGABYTE, declared: int | None = None) -> bytes:
    """A DOCX whose ``word/document.xml`` inflates to ``inflated`` bytes (about 2.5 MB for a
    gigabyte: one deflated block of 1,024 paragraphs, repeated). It declares its true size and
    CRC, or ``declared`` bytes (a lie: then the CRC is that of the first ``declared`` bytes)."""
    block = PARAGRAPH * 1024
    repeats = (inflated - len(XML_HEAD) - len(XML_TAIL)) // len(block)
    deflated = _deflated(XML_HEAD) + _deflated(block) * repeats + _deflated(XML_TAIL, final=True)
    if declared is None:
        crc = zlib.crc32(XML_HEAD)
        for _ in range(repeats):
            crc = zlib.crc32(block, crc)
        crc = zlib.crc32(XML_TAIL, crc)
        declared = len(XML_HEAD) + repeats * len(block) + len(XML_TAIL)
    else:
        crc = zlib.crc32((XML_HEAD + block)[:declared])
    return zip_archive(
        [
            _member("[Content_Types].xml", CONTENT_TYPES),
            _member("_rels/.rels", RELS),
            ("word/document.xml", deflated, crc, declared),
        ]
    )


def empty_pages_pdf(pages: int = 10_000) -> bytes:
    """A PDF of ``pages`` blank US-letter pages (about 1.3 MB for 10,000)."""
    from pypdf import PdfWriter

    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(612, 792)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def one_character(size: int = APP_MAX_BYTES) -> bytes:
    """The largest upload the app accepts: ``size`` bytes of one letter."""
    return b"a" * size


def hostile_uploads() -> dict[str, tuple[bytes, str]]:
    """File name -> (content, MIME type) of the hostile uploads (the soak bench uploads these)."""
    return {
        "one_letter.txt": (one_character(), "text/plain"),
        "bomb.docx": (docx_bomb(), "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
        "empty_pages.pdf": (empty_pages_pdf(), "application/pdf"),
    }


# ----------------------------------------------------------------------------- fixtures and helpers
@pytest.fixture(autouse=True)
def _app_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As test_app.py: the command line is app.py's own (no FILE), caches in a temporary folder."""
    monkeypatch.setattr("sys.argv", [str(APP)])
    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    monkeypatch.delenv("CHUNKVIZ_ALLOW_DOWNLOAD", raising=False)


@pytest.fixture(scope="module")
def pdf_of_empty_pages() -> bytes:
    return empty_pages_pdf()


def new_app() -> AppTest:
    return run(app_test(APP, TIMEOUT_S))


def back_to_a_sample_works(at: AppTest) -> None:
    """The same session, on the default sample: every default column shows chunks, no error."""
    set_widget(at, "source", "Sample")
    assert errors(at) == []
    views = chunk_views(at)
    assert sorted(views) == list(range(len(DEFAULT_COLUMNS)))
    assert all(view.chunks for view in views.values())


def infos(at: AppTest) -> list[str]:
    return [i.value for i in at.info]


# ----------------------------------------------------------------------------- the tests
def test_five_megabytes_of_one_letter_are_chunked_or_refused_with_the_reason() -> None:
    """The largest upload the app takes, one letter repeated: every column either shows its
    chunks, which cover the whole text, or says why it did not run; then a sample still works."""
    at = upload(new_app(), "one_letter.txt", one_character(), "text/plain")
    assert errors(at) == [] or all("limit" in e or "allows" in e for e in errors(at)), errors(at)
    views = chunk_views(at)
    assert sorted(views) == list(range(len(DEFAULT_COLUMNS)))
    for column, view in views.items():
        if view.chunks:  # a column that ran covers every character of the 5 MB
            covered = sorted((start, end) for _, start, end in view.chunks)
            assert covered[0][0] == 0 and max(end for _, end in covered) == APP_MAX_BYTES, column
        else:
            assert view.label and "Not run" in view.payload.get("summary", ""), view.payload
    assert len(chunk_counts(at)) + len(errors(at)) == len(DEFAULT_COLUMNS)
    back_to_a_sample_works(at)


@pytest.mark.parametrize(
    ("name", "data", "words"),
    [
        ("bomb.docx", lambda: docx_bomb(), ["bomb.docx", "too large once unpacked", "1073.7 MB", "the limit is 20 MB"]),
        ("liar.docx", lambda: docx_bomb(declared=10_000), ["liar.docx", "could not be read as a DOCX"]),
    ],
    ids=["declares_a_gigabyte", "declares_10_kB_inflates_a_gigabyte"],
)
def test_a_docx_that_inflates_to_a_gigabyte_is_refused_with_a_message(name: str, data: Any, words: list[str]) -> None:
    """2.5 MB of DOCX whose XML inflates to 1 GiB: refused before inflating (the declared size),
    or, when the archive lies about the size, stopped at the declared size (Python's zipfile
    never inflates past it) and refused as damaged. Nothing is chunked; a sample works after."""
    content = data()
    assert len(content) < APP_MAX_BYTES
    at = upload(new_app(), name, content, "application/vnd.openxmlformats-officedocument.wordprocessingml.document")
    shown = errors(at)
    assert len(shown) == 1 and all(w in shown[0] for w in words), shown
    assert chunk_views(at) == {}
    back_to_a_sample_works(at)


def test_the_inflated_size_limit_is_the_readers(monkeypatch: pytest.MonkeyPatch) -> None:
    """The DOCX bomb above is refused by the reader's limit on what it expands to
    (``MAX_XML_BYTES``) and the reader's text limit is what caps any other expansion."""
    from chunkviz.document.readers import docx

    assert docx.MAX_XML_BYTES == 20_000_000 and MAX_TEXT_CHARS == 20_000_000
    inflated = []
    real = docx._docx_to_html
    monkeypatch.setattr(docx, "_docx_to_html", lambda *a: inflated.append(1) or real(*a))
    with pytest.raises(Exception, match="too large once unpacked"):
        docx.read_docx(docx_bomb(), "bomb.docx")
    assert inflated == [], "the archive was opened for conversion before its size was checked"


def test_a_pdf_of_ten_thousand_empty_pages_says_there_is_no_text(pdf_of_empty_pages: bytes) -> None:
    """10,000 blank pages: the app says no text could be extracted and that there is nothing to
    chunk; nothing is chunked; a sample works after."""
    assert len(pdf_of_empty_pages) < APP_MAX_BYTES
    at = upload(new_app(), "empty_pages.pdf", pdf_of_empty_pages, "application/pdf")
    assert errors(at) == []
    assert any("10000 PDF pages" in i for i in infos(at)), infos(at)
    assert any("no text could be extracted" in i for i in infos(at)), infos(at)
    assert any("nothing to chunk" in w for w in warnings(at)), warnings(at)
    assert chunk_views(at) == {}
    back_to_a_sample_works(at)


# ----------------------------------------------------------------------------- the time limit
class JumpingClock:
    """A clock that moves ``step`` seconds ahead at every reading: a run with a time limit that
    reads the clock twice is over any limit under ``step``, without waiting."""

    def __init__(self, step: float = 1_000.0) -> None:
        self.now = 0.0
        self.step = step
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        self.now += self.step
        return self.now


@pytest.fixture
def jumping_clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[JumpingClock]:
    from chunkviz.core import deadline

    clock = JumpingClock()
    monkeypatch.setattr(deadline, "monotonic", clock)
    yield clock


def test_a_run_over_the_time_limit_says_so_and_the_app_keeps_working(jumping_clock: JumpingClock) -> None:
    """With a clock that jumps 1,000 s at each reading, every run is over its limit at its first
    check: a column whose run reaches a check says it was stopped, how long it ran, the limit and
    what to try, instead of hanging (and no other error shows). When time stands still again, the
    same session chunks the sample in every column."""
    import streamlit as st

    st.cache_resource.clear()  # runs cached by earlier tests in this process would not reach a check
    st.cache_data.clear()
    at = new_app()
    shown = errors(at)
    assert jumping_clock.reads > 0, "no run read the deadline's clock"
    assert shown and all("was stopped after" in e and "the app allows" in e and "command line" in e for e in shown), (
        shown
    )
    assert any("column 1 (fixed_tokens) was stopped after" in e for e in shown), shown
    jumping_clock.step = 0.0  # time stands still: no run is over its limit
    run(at)  # a rerun with the same settings does not spend the limit again: the stopped runs stay stopped
    assert errors(at) and all("Change a setting to try again." in e for e in errors(at))
    set_widget(at, "col0.fixed_tokens.chunk_size", 120)  # a changed column runs again
    assert not any("column 1 (fixed_tokens)" in e for e in errors(at))
    assert chunk_views(at)[0].chunks
