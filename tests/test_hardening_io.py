"""Issue 13, items 4-7: readers that lose text or explode, memory limits, raw errors, CSV formulas.

Every reproduction of those items is a test here. Fixtures (HTML, DOCX, PDF) are generated in
``tmp_path``; nothing asserts wall-clock time (work is bounded by counts and sizes instead).
"""

from __future__ import annotations

import csv
import dataclasses
import errno
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.files import docx_bomb, docx_bytes

import chunkviz
from chunkviz.cli import commands as cli
from chunkviz.core import limits
from chunkviz.core.errors import ChunkvizError, DocumentError, InvalidParamError
from chunkviz.core.limits import (
    MAX_CHUNKS,
    TooManyChunksError,
    check_chunk_count,
    check_chunk_count_bound,
    estimated_chunk_count,
)
from chunkviz.document.read import read_bytes
from chunkviz.document.readers import docx as docx_reader
from chunkviz.document.readers import html as html_reader
from chunkviz.document.readers import pdf as pdf_reader
from chunkviz.formats.export import (
    FORMULA_TRIGGERS,
    chunk_records,
    csv_cell_text,
    serialize,
    spreadsheet_safe,
)
from chunkviz.semantic.embeddings import InvalidModelName, canonical_model, load_model
from chunkviz.strategies import base as strategy_base
from chunkviz.strategies import guarded
from chunkviz.strategies.base import get_strategy
from chunkviz.text.tokenizers import get_tokenizer

# --------------------------------------------------------------------------- 7. CSV formulas

FORMULA_TEXT = '=HYPERLINK("http://x","y")\n\n+1+2\n\n-3\n\n@SUM(A1)\n\n\tcmd\n\n\rz\n\n\'quoted\n\nplain\n'


def _csv_rows(text: str) -> list[dict[str, str]]:
    chunks = chunkviz.chunk(text, "fixed_chars", chunk_size=len(text), overlap=0)
    records = chunk_records(chunks, get_tokenizer("words"), text)
    return list(csv.DictReader(io.StringIO(serialize(records, "csv"), newline="")))


@pytest.mark.parametrize("first", ["=", "+", "-", "@", "\t", "\r"])
def test_csv_cell_starting_with_a_formula_trigger_gets_an_apostrophe(first: str) -> None:
    text = first + "1+1 cmd|' /C calc'!A0"
    (row,) = _csv_rows(text)
    assert row["text"] == "'" + text
    assert csv_cell_text(row["text"]) == text


def test_csv_leaves_ordinary_cells_and_numbers_alone() -> None:
    (row,) = _csv_rows("plain words")
    assert row["text"] == "plain words"
    assert row["start"] == "0" and row["end"] == "11" and row["parent"] == ""
    assert row["metadata"].startswith("{")


def test_csv_apostrophe_cell_is_escaped_too_so_the_escape_is_reversible() -> None:
    assert spreadsheet_safe("'=1") == "''=1"
    assert csv_cell_text(spreadsheet_safe("'=1")) == "'=1"
    assert spreadsheet_safe(-3) == -3  # only text cells are touched
    assert set(FORMULA_TRIGGERS) == {"=", "+", "-", "@", "\t", "\r"}


def test_csv_neutralizes_every_chunk_and_added_text_while_json_stays_exact() -> None:
    chunks = chunkviz.chunk(FORMULA_TEXT, "paragraphs", min_tokens=1, max_tokens=3, tokenizer="words")
    enriched = chunkviz.enrich(FORMULA_TEXT, chunks, tokenizer="words", source="=cmd.md")
    records = chunk_records(enriched, get_tokenizer("words"), FORMULA_TEXT)
    rows = list(csv.DictReader(io.StringIO(serialize(records, "csv"), newline="")))
    assert [r["text"][:1] for r in rows if r["text"]] and all(not r["text"].startswith(FORMULA_TRIGGERS) for r in rows)
    assert [csv_cell_text(r["text"]) for r in rows] == [c.text for c in enriched]
    assert [csv_cell_text(r["added_text"]) for r in rows] == [c.added_text for c in enriched]
    assert [json.loads(line)["text"] for line in serialize(records, "jsonl").splitlines()] == [c.text for c in enriched]
    assert [r["text"] for r in json.loads(serialize(records, "json"))] == [c.text for c in enriched]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(["=", "+", "-", "@", "\t", "\r", "\n", "'", "a", " ", ",", '"']), min_size=1))
def test_csv_cells_never_start_a_formula_and_give_the_exact_text_back(text: str) -> None:
    record = {
        "index": 0,
        "start": 0,
        "end": len(text),
        "text": text,
        "reason": "end",
        "boundary": "end",
        "parent": None,
        "level": 0,
        "added_text": text,
        "token_count": 1,
        "metadata": {"k": text},
    }
    (row,) = csv.DictReader(io.StringIO(serialize([record], "csv"), newline=""))
    for key in ("text", "added_text"):
        assert not row[key].startswith(FORMULA_TRIGGERS)
        assert csv_cell_text(row[key]) == text
    assert json.loads(csv_cell_text(row["metadata"])) == {"k": text}


# --------------------------------------------------------------------------- 6. raw errors


REPO_ROOT = Path(__file__).resolve().parents[1]
SEMANTIC_TEXT = "Alpha beta. Gamma delta. Epsilon zeta.\n\nEta theta."
NOT_STRINGS = [None, 1, 1.5, True, [], {}, ("a",), b"percentile"]


def _run_shell(command: str) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH", "")]))
    return subprocess.run(["sh", "-c", command], capture_output=True, env=env, timeout=120, check=False)


@pytest.fixture
def small_doc(tmp_path: Path) -> Path:
    path = tmp_path / "doc.md"
    path.write_text("# Title\n\nSome words here. More words there.\n", encoding="utf-8")
    return path


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("command", ["chunk {doc} -s recursive", "diagnose {doc} -s recursive", "strategies"])
def test_full_disk_is_one_error_line_and_a_failure_status(command: str, small_doc: Path) -> None:
    done = _run_shell(f"'{sys.executable}' -m chunkviz {command.format(doc=small_doc)} > /dev/full")
    assert done.returncode == cli.EXIT_FAILURE
    assert done.stderr.decode() == (
        "chunkviz: error: cannot write the output: No space left on device (free some space or write to another disk)\n"
    )


def test_closed_stdout_is_one_error_line_and_a_failure_status(small_doc: Path) -> None:
    done = _run_shell(f"'{sys.executable}' -m chunkviz chunk '{small_doc}' -s recursive >&-")
    assert done.returncode == cli.EXIT_FAILURE
    assert (
        done.stderr.decode()
        == "chunkviz: error: standard output is closed; redirect it to a file instead (e.g. > out.jsonl)\n"
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["strategies"],
        ["diagnose", "{doc}", "-s", "recursive"],
        ["chunk", "{doc}", "-s", "recursive", "--format", "text"],
    ],
)
def test_closed_stdout_in_process(
    argv: list[str], small_doc: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdout", None)
    assert cli.main([a.format(doc=small_doc) for a in argv]) == cli.EXIT_FAILURE
    assert capsys.readouterr().err.startswith("chunkviz: error: standard output is closed")


class _FailingStream(io.StringIO):
    def __init__(self, error: int) -> None:
        super().__init__()
        self.error = error

    def write(self, text: str) -> int:
        raise OSError(self.error, os.strerror(self.error))


@pytest.mark.parametrize("error", [errno.ENOSPC, errno.EIO])
def test_a_write_error_in_process_names_the_reason(
    error: int, small_doc: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    failing = _FailingStream(error)
    monkeypatch.setattr(sys, "stdout", failing)
    assert cli.main(["chunk", str(small_doc), "-s", "recursive"]) == cli.EXIT_FAILURE
    assert sys.stdout is failing  # restored after the run
    err = capsys.readouterr().err
    assert err.startswith(f"chunkviz: error: cannot write the output: {os.strerror(error)}") and err.count("\n") == 1


@pytest.mark.parametrize("value", NOT_STRINGS)
@pytest.mark.parametrize("name", ["threshold_type", "model"])
def test_non_string_semantic_parameters_are_the_parameter_error(name: str, value: object) -> None:
    with pytest.raises(InvalidParamError, match=f"parameter '{name}' must be of type str"):
        chunkviz.chunk(SEMANTIC_TEXT, "semantic", **{name: value})


@pytest.mark.parametrize("value", NOT_STRINGS)
def test_non_string_model_in_the_embedding_functions_names_the_parameter(value: object) -> None:
    for function in (canonical_model, load_model):
        with pytest.raises(InvalidModelName, match="parameter 'model' must be a model name or a folder path"):
            function(value)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "value", [v for v in NOT_STRINGS if not isinstance(v, bytes)]
)  # bytes: UnknownTokenizerError already
def test_non_string_tokenizer_is_a_chunkviz_error(value: object) -> None:
    with pytest.raises(ChunkvizError, match="tokenizer"):
        chunkviz.chunk(SEMANTIC_TEXT, "recursive", tokenizer=value)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("params", "name"),
    [
        ({"threshold_type": "absolute", "similarity": float("nan")}, "similarity"),
        ({"percentile": float("nan")}, "percentile"),
        ({"percentile": float("inf")}, "percentile"),
        ({"threshold_type": "standard_deviation", "std_multiplier": float("-inf")}, "std_multiplier"),
        ({"percentile": "nan"}, "percentile"),
    ],
)
def test_nan_and_infinity_are_refused_with_the_parameter_name(params: dict[str, object], name: str) -> None:
    with pytest.raises(InvalidParamError, match=f"semantic: parameter '{name}' must be a finite number"):
        chunkviz.chunk(SEMANTIC_TEXT, "semantic", **params)


def test_nan_is_refused_for_every_float_parameter_of_every_strategy() -> None:
    checked = 0
    for spec in chunkviz.strategies():
        for p in spec["params"]:
            if p["type"] == "float":
                with pytest.raises(InvalidParamError, match=f"parameter '{p['name']}' must be a finite number"):
                    get_strategy(spec["name"]).make_params({p["name"]: float("nan")})
                checked += 1
    assert checked >= 4  # semantic: percentile, std_multiplier, iqr_multiplier, similarity


def test_integral_floats_are_accepted_by_the_api_and_the_cli_alike(
    small_doc: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    api = chunkviz.chunk(SEMANTIC_TEXT, "paragraphs", max_tokens=5.0, min_tokens=0)
    assert api == chunkviz.chunk(SEMANTIC_TEXT, "paragraphs", max_tokens=5, min_tokens=0)
    spec = get_strategy("semantic")
    assert (
        spec.make_params({"max_tokens": "5.0"})
        == spec.make_params({"max_tokens": 5.0})
        == spec.make_params({"max_tokens": 5})
    )
    assert (
        spec.make_params({"max_tokens": "5.0"}).max_tokens == 5
        and spec.make_params({"max_tokens": "1e3"}).max_tokens == 1000
    )
    assert cli.main(["chunk", str(small_doc), "-s", "fixed_chars", "-p", "chunk_size=10.0", "-p", "overlap=0"]) == 0
    out = capsys.readouterr().out
    assert [json.loads(line)["end"] for line in out.splitlines()][:2] == [10, 20]
    for bad in (5.5, "5.5", "nan", "inf"):
        with pytest.raises(InvalidParamError, match="parameter 'max_tokens' must be an integer"):
            spec.make_params({"max_tokens": bad})


@pytest.mark.slow  # a fresh interpreter loads sentence-transformers: the stray line was printed on the console
def test_an_invalid_model_name_prints_only_the_error(small_doc: Path) -> None:
    done = _run_shell(f"'{sys.executable}' -m chunkviz chunk '{small_doc}' -s semantic -p model=../not-a-model")
    assert done.returncode == cli.EXIT_USAGE
    lines = done.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "chunkviz: error: cannot load embedding model '../not-a-model' offline"
    )
    assert done.stdout == b""


# --------------------------------------------------------------------------- 4. readers


NO_BODY_HTML = (
    b'<!doctype html><html><head><meta charset="utf-8"><title>T</title><h1>Station report</h1><p>Gauge read 3.2 m.</p>'
)


@pytest.fixture(params=["lxml", "html.parser"])
def html_parser(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(html_reader, "_PARSER", request.param)
    return request.param


def test_html_without_head_end_or_body_keeps_the_whole_document(
    html_parser: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = read_bytes(NO_BODY_HTML, "report.html")
    assert doc.text == "# Station report\n\nGauge read 3.2 m.\n"
    assert [c.text for c in chunkviz.chunk(doc, "recursive")] == ["# Station report\n\nGauge read 3.2 m.\n"]
    assert "left out of the text (not page content): 1 <title>" in doc.notes


def test_html_without_head_end_through_the_cli_gives_chunks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "report.html"
    path.write_bytes(NO_BODY_HTML)
    assert cli.main(["chunk", str(path), "-s", "recursive"]) == 0
    out, err = capsys.readouterr()
    assert [json.loads(line)["text"] for line in out.splitlines()] == ["# Station report\n\nGauge read 3.2 m.\n"]
    assert "note: left out of the text (not page content): 1 <title>" in err


def test_text_directly_inside_a_table_is_moved_before_it_in_document_order(html_parser: str) -> None:
    source = (
        b"<table>before<tr>in row<td>a</td><td>b</td></tr><p>para</p><tr><td>c</td><td>d</td></tr>after</table>"
        b"<table><tr><td>e</td></tr>z</table>"
    )
    doc = read_bytes(source, "t.html")
    assert (
        doc.text == "before\n\nin row\n\npara\n\nafter\n\n| a | b |\n| --- | --- |\n| c | d |\n\nz\n\n| e |\n| --- |\n"
    )
    assert "5 pieces of text inside a table but outside its cells moved before the table" in doc.notes
    assert [len(t.rows) for t in doc.structure.tables] == [3, 2]


def test_pre_inside_a_heading_keeps_its_words_apart(html_parser: str) -> None:
    assert read_bytes(b"<h2>oscar<pre>papa</pre>quebec</h2>", "h.html").text == "## oscar papa quebec\n"


def test_deeply_nested_lists_keep_every_item_with_bounded_text() -> None:
    source = b"<ul><li>item" * 20000  # 240 KB: unbounded, markdownify recursed too deep / grew quadratically
    doc = read_bytes(source, "nested.html")
    assert doc.text.count("item") == 20000
    assert len(doc.text) < len(source)  # indentation stops growing at MAX_NESTING levels
    assert (
        f"HTML nested deeper than {html_reader.MAX_NESTING} levels: 39,954 deeper elements kept as plain text lines"
        in doc.notes
    )
    assert chunkviz.chunk(doc, "recursive")


@pytest.mark.parametrize(
    "unit", ["<div>w", "<b>w", "<blockquote>w", "<table><tr><td>w", "<ol><li>w", "<dl><dt>w<dd>", "<pre>w", "<h2>w"]
)
def test_any_deep_nesting_converts_without_exhausting_the_stack(unit: str) -> None:
    doc = read_bytes((unit * 3000).encode(), "deep.html")
    assert doc.text.count("w") == 3000
    assert any(note.startswith(f"HTML nested deeper than {html_reader.MAX_NESTING} levels") for note in doc.notes)


def test_flattening_counts_only_what_is_below_the_limit() -> None:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup("<div>" * 10 + "x" + "</div>" * 10 + "<p>y</p>", "html.parser")
    assert html_reader._flatten_deep_nesting(soup, limit=4) == 6  # divs 5..10 are below depth 4
    assert soup.get_text() == "xy"
    assert html_reader._flatten_deep_nesting(soup, limit=4) == 0


def test_converted_html_over_the_text_limit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(html_reader, "MAX_TEXT_CHARS", 1000)
    assert read_bytes(b"<p>" + b"a" * 900 + b"</p>", "ok.html").text == "a" * 900 + "\n"
    with pytest.raises(DocumentError, match="big.html expands to more than 1,000 characters of text"):
        read_bytes(b"<p>" + b"a" * 1001 + b"</p>", "big.html")


def test_docx_whose_xml_inflates_past_the_limit_is_refused_before_inflating(monkeypatch: pytest.MonkeyPatch) -> None:
    data = docx_bomb(docx_reader.MAX_XML_BYTES + 5_000_000)
    assert len(data) < 200_000  # the upload is small; what it expands to is not

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the DOCX was inflated")

    monkeypatch.setattr(docx_reader.mammoth, "convert_to_html", never)
    with pytest.raises(
        DocumentError,
        match=r"bomb.docx is too large once unpacked: its XML inflates to 25\.\d+ MB .* the limit is 20 MB",
    ):
        read_bytes(data, "bomb.docx")


def test_docx_under_the_xml_limit_reads_and_a_damaged_archive_is_a_document_error() -> None:
    doc = read_bytes(docx_bytes(["First.", "Second."]), "ok.docx")
    assert doc.text == "First.\n\nSecond.\n"
    with pytest.raises(DocumentError, match="could not be read as a DOCX"):
        read_bytes(b"PK\x03\x04" + b"\x00" * 100, "broken.docx")


def test_docx_conversion_notes_are_kept() -> None:
    doc = read_bytes(docx_bytes(["=1+1"]), "n.docx")
    assert doc.notes[0] == docx_reader.DOCX_NOTE and doc.text == "=1+1\n"


def _blank_pdf(pages: int) -> bytes:
    from pypdf import PdfWriter

    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(612, 792)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_pdf_with_10000_empty_pages_ends_with_a_message() -> None:
    doc = read_bytes(_blank_pdf(10_000), "empty.pdf")
    assert not doc.text.strip() and "no text could be extracted (scanned PDF?)" in doc.notes
    assert chunkviz.chunk(doc, "recursive") == []


def test_pdf_extraction_stops_at_the_text_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    from pypdf import PageObject

    calls = {"n": 0}

    def page_text(self: object, *args: object, **kwargs: object) -> str:
        calls["n"] += 1
        return "x" * 100

    monkeypatch.setattr(PageObject, "extract_text", page_text)
    monkeypatch.setattr(pdf_reader, "MAX_TEXT_CHARS", 1000)
    with pytest.raises(DocumentError, match=r"big.pdf \(by page 10 of 50\) expands to more than 1,000 characters"):
        read_bytes(_blank_pdf(50), "big.pdf")
    assert calls["n"] == 10  # the other 40 pages were never extracted


# --------------------------------------------------------------------------- 5. memory: a bounded number of chunks


def _bound(
    strategy: str, text: str, tokenizer: str = "cl100k_base", max_chunks: int = MAX_CHUNKS, **params: object
) -> limits.ChunkBound | None:
    spec = get_strategy(strategy)
    return estimated_chunk_count(spec, spec.make_params(params), text, get_tokenizer(tokenizer), max_chunks)


def test_the_estimate_for_windows_is_exact() -> None:
    text = "abcdefghij" * 10  # 100 characters
    bound = _bound("fixed_chars", text, max_chunks=1, chunk_size=10, overlap=3)
    assert bound == limits.ChunkBound("chunk_size", 10, 3, "chars", 100, 14)  # ceil(97 / 7)
    assert bound.fewest == 10
    assert len(chunkviz.chunk(text, "fixed_chars", chunk_size=10, overlap=3)) == bound.chunks
    assert len(chunkviz.chunk(text, "fixed_tokens", tokenizer="chars", chunk_size=10, overlap=3)) == bound.chunks
    assert bound.size_for(5) == 3 + 20  # ceil(97 / 5) = 20 new characters per chunk


SIZE_PARAMS = {
    "fixed_chars": "chunk_size",
    "fixed_tokens": "chunk_size",
    "recursive": "chunk_size",
    "paragraphs": "max_tokens",
    "sentences": "max_tokens",
    "parent_child": "child_size",
    "small_to_big": "max_child_tokens",
    "headings": "max_tokens",
}


@settings(max_examples=60, deadline=None)
@given(
    text=st.text(alphabet=st.sampled_from(list("ab \n.😀é")), min_size=1, max_size=200),
    strategy=st.sampled_from(sorted(SIZE_PARAMS)),
    size=st.integers(min_value=2, max_value=12),
)
def test_no_strategy_produces_fewer_chunks_than_the_fewest(text: str, strategy: str, size: int) -> None:
    params: dict[str, object] = {SIZE_PARAMS[strategy]: size}
    if strategy in ("fixed_chars", "fixed_tokens", "recursive"):
        params["overlap"] = size // 2
    if strategy == "paragraphs":
        params["min_tokens"] = 0
    if strategy == "parent_child":
        params.update(parent_size=size * 2, child_overlap=size // 2)
    tokenizer = "chars" if strategy == "fixed_chars" else "words"
    bound = _bound(strategy, text, tokenizer, max_chunks=0, **params)
    assert bound is not None and bound.param == SIZE_PARAMS[strategy]
    chunks = chunkviz.chunk(text, strategy, tokenizer=tokenizer, **params)
    finest = [c for c in chunks if not any(o.parent == c.index for o in chunks)]
    if text.strip():
        assert len(finest) >= bound.fewest


def test_fixed_chars_of_one_character_on_4_mb_is_refused_up_front_naming_the_parameter() -> None:
    text = "word " * 800_000  # 4 MB: 4 million one-character chunks before (49 s, 4.5 GB)
    spec = get_strategy("fixed_chars")
    with pytest.raises(
        TooManyChunksError,
        match=(
            r"fixed_chars: chunk_size=1 would cut this document \(4,000,000 chars\) into at least 4,000,000 chunks; "
            r"a run may produce at most 100,000\. Raise chunk_size to at least 40, or chunk a smaller document"
        ),
    ):
        check_chunk_count_bound(
            spec, spec.make_params({"chunk_size": 1, "overlap": 0}), text, get_tokenizer("cl100k_base")
        )


def test_the_cli_refuses_before_chunking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "big.txt"
    path.write_text("word " * 50_000, encoding="utf-8")  # 250,000 characters, 50,000 tokens
    chunked: list[str] = []
    spec = get_strategy("fixed_tokens")
    spy = dataclasses.replace(spec, function=lambda *a: chunked.append("called") or [])
    monkeypatch.setitem(strategy_base._REGISTRY, "fixed_tokens", spy)
    monkeypatch.setattr(limits, "MAX_CHUNKS", 1_000)
    monkeypatch.setattr(guarded, "check_chunk_count_bound", lambda *a: check_chunk_count_bound(*a, max_chunks=1_000))
    assert (
        cli.main(["chunk", str(path), "-s", "fixed_tokens", "-p", "chunk_size=8", "-p", "overlap=4"]) == cli.EXIT_USAGE
    )
    err = capsys.readouterr().err
    assert err == (
        "chunkviz: error: fixed_tokens: chunk_size=8 with overlap 4 would cut this document (50,001 tokens) into about "
        "12,500 chunks; a run may produce at most 1,000. Raise chunk_size to at least 54 (or lower the overlap), or chunk a smaller document\n"
    )
    assert chunked == []  # refused before any chunking


def test_tokens_are_counted_only_when_the_byte_length_could_exceed_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    counted: list[int] = []
    tokenizer = get_tokenizer("words")
    monkeypatch.setattr(tokenizer, "count", lambda text: counted.append(len(text)) or len(text.split()))
    spec = get_strategy("recursive")
    params = spec.make_params({"chunk_size": 100, "overlap": 0})
    assert (
        estimated_chunk_count(spec, params, "word " * 1000, tokenizer, max_chunks=50) is None
    )  # 5,000 bytes / 100 <= 50
    assert counted == []
    bound = estimated_chunk_count(spec, params, "word " * 1000, tokenizer, max_chunks=10)
    assert counted == [5000] and bound is not None and bound.chunks == 10


def test_strategies_without_a_size_cap_are_checked_on_the_result() -> None:
    spec = get_strategy("semantic")
    assert estimated_chunk_count(spec, spec.make_params({}), "a. b. c.", get_tokenizer("words")) is None
    check_chunk_count(spec, spec.make_params({}), [object()] * 3, max_chunks=3)
    with pytest.raises(
        TooManyChunksError,
        match=r"semantic cut this document into 4 chunks; a run may produce at most 3: change the parameters",
    ):
        check_chunk_count(spec, spec.make_params({}), [object()] * 4, max_chunks=3)
    paragraphs = get_strategy("paragraphs")
    with pytest.raises(TooManyChunksError, match=r"raise max_tokens \(now 128\)"):
        check_chunk_count(paragraphs, paragraphs.make_params({}), [object()] * 4, max_chunks=3)


def test_a_run_at_the_limit_is_allowed_and_bounded() -> None:
    text = "abcd" * 25_000  # 100,000 characters
    spec = get_strategy("fixed_chars")
    check_chunk_count_bound(
        spec, spec.make_params({"chunk_size": 1, "overlap": 0}), text, get_tokenizer("chars")
    )  # exactly 100,000
    with pytest.raises(TooManyChunksError):
        check_chunk_count_bound(
            spec, spec.make_params({"chunk_size": 1, "overlap": 0}), text + "e", get_tokenizer("chars")
        )


@pytest.mark.parametrize("value", [None, 1, [], {}, ("recursive",)])
def test_a_strategy_name_that_is_not_a_string_is_the_unknown_strategy_error(value: object) -> None:
    from chunkviz.core.errors import UnknownStrategyError

    with pytest.raises(UnknownStrategyError, match="unknown strategy .*; choose one of: .*recursive"):
        chunkviz.chunk("a b. c d.", value)  # type: ignore[arg-type]


def test_eval_json_that_cannot_be_written_is_one_error_line_before_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A missing folder is bad input, known before anything is embedded (issue 36: exit 2, not after the run)."""
    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", str(tmp_path / "cache"))
    samples = REPO_ROOT / "chunkviz/sample_docs"
    target = tmp_path / "missing-folder" / "scores.json"
    code = cli.main(["eval", str(samples / "topic_shifts.txt"), "--questions", str(samples / "questions" / "topic_shifts.jsonl"),
                     "--k", "3", "--json", str(target)])  # fmt: skip
    err = capsys.readouterr().err
    assert code == cli.EXIT_USAGE
    assert err == (
        f"chunkviz: error: cannot write {target}: no such folder {target.parent}; create it first or give another path\n"
    )
    assert not (tmp_path / "cache").exists()  # nothing was embedded
