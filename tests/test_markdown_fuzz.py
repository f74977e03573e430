"""The Markdown path under fuzzing, and a panic of the native parser contained (issue 36 item 4).

An 18-character text, ``# Title\\n\\nx [` ` `\\n``, made markdown-it-pyrs 0.4.0 panic in its code
span rule (``pyo3_runtime.PanicException``, a BaseException that ``except Exception`` misses): a
Rust backtrace and exit 1 in ``chunk -s headings``, ``-s tables``, ``diagnose``, ``report`` and
``audit``, and a page spinning for ever in the app. Now only the parser's block rules run (the
inline rules never decided a block), and the one call of the native parser turns a panic into a
note and a plain-text reading. Here:

- the issue's text through every command, with exact results;
- a parser that panics (markdown-it-pyrs's full CommonMark parser on that text while it still
  panics, else a stand-in of the same type name): the document is read as plain text with a note
  that the CLI prints, the report and the app show, and every strategy still chunks it;
- random Markdown of brackets, backticks, emphasis, lists, tables, HTML, link references and
  headings: the block rules find the same blocks as the full parser, and every strategy that
  runs no language model (the embedding ones with the stand-in model) keeps the span contract,
  with ``diagnose`` on its chunks, raising nothing but chunkviz's own errors.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it_pyrs import MarkdownIt
from support.apptest import app_test
from support.chunking import assert_valid_chunking
from support.semantic import embedding_strategies
from support.texts import SETTINGS, examples

import chunkviz
from chunkviz.cli.commands import main
from chunkviz.core.errors import ChunkvizError
from chunkviz.diagnostics import diagnose
from chunkviz.document import markdown
from chunkviz.document.markdown import MarkdownParserFailed, is_native_panic, markdown_blocks
from chunkviz.document.model import Document, as_document
from chunkviz.strategies.peers.catalogue import PEER_NAMES
from chunkviz.views.build import ColumnConfig, build_view

ISSUE_TEXT = "# Title\n\nx [` ` `\n"
#: markdown-it-pyrs with every CommonMark rule (inline ones too): what chunkviz parsed with before.
FULL_PARSER = MarkdownIt("commonmark").enable("table")
#: Strategies that call no language model; the embedding ones run with the stand-in model.
STRATEGIES = [s["name"] for s in chunkviz.strategies() if s["name"] not in PEER_NAMES and not s["calls_model"]]
EMBEDDING = embedding_strategies()
#: Strategies whose chunks may carry added text (flat span strategies add none).
ADDING = {"tables"}


# ----------------------------------------------------------------------------- the issue's text


def test_the_issue_text_chunks_by_its_heading() -> None:
    document = Document(ISSUE_TEXT, format="markdown")
    assert [(h.start, h.end, h.level, h.title) for h in document.structure.headings] == [(0, 7, 1, "Title")]
    assert document.structure.notes == ()
    chunks = chunkviz.chunk(document, "headings")
    assert [(c.start, c.end, c.metadata["heading_path"]) for c in chunks] == [(0, 18, ["Title"])]


@pytest.mark.parametrize(
    "argv",
    [
        ["chunk", "-s", "headings"],
        ["chunk", "-s", "tables"],
        ["diagnose", "-s", "recursive"],
        ["diagnose", "-s", "headings"],
    ],
)
def test_the_issue_text_in_every_command(argv: list[str], tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "p.md"
    path.write_text(ISSUE_TEXT, encoding="utf-8")
    assert main([*argv[:1], str(path), *argv[1:]]) == 0
    out, err = capfd.readouterr()
    assert "panicked" not in err and "Traceback" not in err and "note:" not in err
    if argv[0] == "chunk":
        (record,) = [json.loads(line) for line in out.splitlines()]
        assert (record["start"], record["end"]) == (0, len(ISSUE_TEXT))


def test_the_issue_text_in_report_and_audit(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "p.md"
    path.write_text(ISSUE_TEXT, encoding="utf-8")
    assert main(["report", str(path), "-s", "headings", "-s", "tables", "-o", str(tmp_path / "r.html")]) == 0
    chunks = tmp_path / "c.json"
    chunks.write_text(json.dumps(["# Title", "x [` ` `"]), encoding="utf-8")
    assert main(["audit", str(path), "--chunks", str(chunks)]) == 0
    err = capfd.readouterr().err
    assert "panicked" not in err and "Traceback" not in err


# ----------------------------------------------------------------------------- a parser that panics

#: What pyo3 raises for a Rust panic when markdown-it-pyrs no longer panics on the issue's text.
PanicStandIn = type("PanicException", (BaseException,), {"__module__": "pyo3_runtime"})


#: What chunkviz parses with (the block rules).
BLOCK_PARSER = markdown._parser()
#: The part of the issue's text that the full parser panics on.
TRIGGER = "x [` ` `"


class PanickingParser:
    """A parser that panics on a text holding :data:`TRIGGER` (the real markdown-it-pyrs panic
    while the full parser still has it, else the stand-in) and parses any other as chunkviz does:
    the app's sample, cached for the tests that run after, is parsed as always."""

    def tree(self, text: str) -> Any:
        if TRIGGER not in text:
            return BLOCK_PARSER.tree(text)
        FULL_PARSER.tree(ISSUE_TEXT)
        raise PanicStandIn("index out of bounds: the len is 0 but the index is 1")


@pytest.fixture
def panicking(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(markdown, "_parser", PanickingParser)
    yield


def test_the_panic_is_known_by_its_type() -> None:
    try:
        PanickingParser().tree(ISSUE_TEXT)
    except BaseException as exc:  # noqa: BLE001 - the panic is what is looked at
        assert is_native_panic(exc) and not isinstance(exc, Exception)
    assert not is_native_panic(KeyboardInterrupt()) and not is_native_panic(ValueError("x"))


def test_a_panic_becomes_a_plain_text_reading_with_a_note(panicking: None) -> None:
    with pytest.raises(MarkdownParserFailed, match=r"markdown-it-pyrs\) failed on this text \(index out of bounds"):
        markdown_blocks(ISSUE_TEXT)
    structure = Document(ISSUE_TEXT, format="markdown").structure
    assert structure.headings == () and structure.blocks == () and structure.sections == ()
    assert len(structure.notes) == 1 and "read as plain text" in structure.notes[0]
    assert structure.markup_notes() == structure.notes  # said once, the parse not tried again


def test_other_base_exceptions_pass_through(monkeypatch: pytest.MonkeyPatch) -> None:
    class Interrupted:
        def tree(self, text: str) -> Any:
            raise KeyboardInterrupt

    monkeypatch.setattr(markdown, "_parser", Interrupted)
    with pytest.raises(KeyboardInterrupt):
        Document(ISSUE_TEXT, format="markdown").structure.markup_notes()


@pytest.mark.parametrize("name", STRATEGIES)
def test_every_strategy_chunks_a_text_the_parser_fails_on(name: str, panicking: None, fake_model: str) -> None:
    text = "# Title\n\nx [` ` `\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```\ncode\n```\n"
    document = Document(text, format="markdown")
    params = {"model": fake_model} if name in EMBEDDING else {}
    chunks = chunkviz.chunk(document, name, **params)
    assert chunks and all(c.text == text[c.start : c.end] for c in chunks)
    assert all(c.boundary == document.structure.boundary_at(c.end) for c in chunks)
    assert document.structure.headings == () and len(document.structure.notes) == 1


def test_the_cli_prints_the_note(panicking: None, tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "p.md"
    path.write_text(ISSUE_TEXT, encoding="utf-8")
    assert main(["chunk", str(path), "-s", "headings", "--format", "jsonl"]) == 0
    out, err = capfd.readouterr()
    assert [json.loads(line)["metadata"]["heading_path"] for line in out.splitlines()] == [[]]
    assert err.count("note: the Markdown parser (markdown-it-pyrs) failed on this text") == 1


def test_the_report_shows_the_note(panicking: None) -> None:
    view = build_view(Document(ISSUE_TEXT, format="markdown"), [ColumnConfig("headings", {})])
    assert len(view.notes) == 1 and "read as plain text" in view.notes[0]


def test_the_app_shows_the_note_and_the_columns(panicking: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.argv", [str(APP)])
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    at = app_test(APP, 120)
    at.run()
    at.radio(key="source").set_value("Upload").run()
    text = "# App title\n\nx [` ` `\n\nA line of the app's own upload.\n"
    at.file_uploader(key="upload").set_value(("p.md", text.encode("utf-8"), "text/markdown")).run()
    assert not at.exception, [e.message for e in at.exception]
    assert any("read as plain text" in i.value for i in at.info), [i.value for i in at.info]
    assert not at.error, [e.value for e in at.error]
    (view,) = [c for c in at.get("bidi_component") if c.proto.component_name == "chunkviz_docview"]
    assert len(json.loads(view.proto.json)["columns"]) == 3  # the default columns ran on it


APP = Path(__file__).resolve().parents[1] / "app.py"


# ----------------------------------------------------------------------------- random Markdown

#: The pieces of the Markdown the fuzz builds: brackets, backticks, emphasis, lists, tables, HTML,
#: link references, headings, quotes, code, line breaks, and characters of several UTF-8 lengths.
PIECES = [
    "[", "]", "[x]", "[x][y]", "![", "](", "(", ")", "[a]: http://x", "[a]: <b> 'title'", "[^1]",
    "`", "``", "```", "~~~", "` `", "x [` ` `", "\\`", "\\",
    "*", "**", "_", "__", "***", "~",
    "- ", "* ", "+ ", "1. ", "2) ", "- [ ] ",
    "|", "| a | b |", "|---|---|", "| --- |", ":-:",
    "<div>", "</div>", "<pre>", "</pre>", "<!--", "-->", "<script>", "<a href='x'>", "</a>", "<br/>", "<http://x>",
    "# ", "## ", "###### ", "#", "===", "---", "> ", ">",
    "    ", "\t", " ", "\n", "\n\n", "\r\n", "\r",
    "x", "word", "Title", "&amp;", "&#", "é", "😀", "语",
]  # fmt: skip


def markdown_text(max_pieces: int = 40) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(PIECES), max_size=max_pieces).map("".join)


def full_parse_blocks(text: str, headings_only: bool) -> list[Any] | None:
    """:func:`markdown_blocks` with the full CommonMark parser; None when that parser panics."""
    original = markdown._parser
    markdown._parser = lambda: FULL_PARSER  # type: ignore[assignment]  # restored below
    try:
        return markdown_blocks(text, headings_only)
    except MarkdownParserFailed:
        return None
    finally:
        markdown._parser = original


@settings(max_examples=examples(300), **SETTINGS)
@given(text=markdown_text(60))
def test_the_block_rules_find_the_blocks_of_the_full_parser(text: str) -> None:
    """The same blocks and spans; a heading's title is compared with its source, not with the full
    parser's: the full parser's inline nodes can lack a source map (``# *[**``: the unmatched ``*``
    has none), so its title can lose a character that the block rules' title (the heading's inline
    source) keeps."""
    for headings_only in (False, True):
        expected = full_parse_blocks(text, headings_only)
        if expected is None:
            continue
        found = markdown_blocks(text, headings_only)
        assert [replace(b, title="") for b in found] == [replace(b, title="") for b in expected]
        for block in found:
            if block.kind == "heading":
                assert " ".join(block.title.split()) in " ".join(text[block.start : block.end].split())


def test_a_heading_title_keeps_an_unmatched_emphasis_marker() -> None:
    [heading] = markdown_blocks("# *[**", True)
    assert (heading.start, heading.end, heading.title) == (0, 6, "*[**")


@pytest.mark.parametrize("name", STRATEGIES)
def test_every_strategy_keeps_the_span_contract_on_random_markdown(name: str, fake_model: str) -> None:
    @settings(max_examples=examples(25), **SETTINGS)
    @given(text=markdown_text(), tokenizer=st.sampled_from(["cl100k_base", "words"]), small=st.booleans())
    def prop(text: str, tokenizer: str, small: bool) -> None:
        document = as_document(text, "markdown")
        params: dict[str, Any] = {"model": fake_model} if name in EMBEDDING else {}
        if small:  # the smallest size the strategy allows: every split is exercised
            params.update(smallest_sizes(name))
        try:
            chunks = chunkviz.chunk(document, name, tokenizer=tokenizer, **params)
            assert_valid_chunking(text, chunks, allow_added_text=name in ADDING, format="markdown")
            diagnose(document, chunks, tokenizer=tokenizer, strategy=name, params=params)
        except ChunkvizError:
            pass  # a user error (e.g. a size too small for the text) is a message, not a crash
        assert document.structure.notes == ()

    prop()


def smallest_sizes(name: str) -> dict[str, Any]:
    """Each parameter of the strategy in tokens or characters (sizes, overlaps) at its minimum."""
    info = next(s for s in chunkviz.strategies() if s["name"] == name)
    return {p["name"]: p["minimum"] for p in info["params"] if p["unit"] in ("tokens", "chars") or p["overlap_unit"]}
