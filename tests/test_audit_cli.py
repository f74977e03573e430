"""``chunkviz audit`` (chunkviz/cli/audit.py): the report, --json, --fix, bad input; and on
the real documents, LangChain's own output audited as its users export it against the
``langchain_recursive`` peer column."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.paths import REALDOCS, realdoc_paths

import chunkviz
from chunkviz.cli import commands as cli
from chunkviz.document.read import read_path
from chunkviz.formats.external import chunk_flags, load_chunks

DOC = "one two. one two three. four"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    doc = tmp_path / "doc.txt"
    doc.write_text(DOC, encoding="utf-8")
    chunks = tmp_path / "chunks.jsonl"
    rows = [("one two.", 0), ("one two three.", -1), ("four", 24)]
    chunks.write_text(
        "".join(json.dumps({"page_content": t, "metadata": {"start_index": s}}) + "\n" for t, s in rows),
        encoding="utf-8",
    )
    return doc, chunks


def test_report_lists_flagged_chunks_and_statistics(capsys: pytest.CaptureFixture[str], files: Any) -> None:
    doc, chunks = files
    code, out, err = run(capsys, "audit", str(doc), "--chunks", str(chunks), "--tokenizer", "words")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == f"3 chunks from {chunks} (langchain, placed by LangChain's start_index) in {doc}"
    assert lines[1] == "audit: 1 misplaced chunk"
    assert lines[2] == "  chunk 1 (line 2) [9:23] misplaced: LangChain's start_index found nothing (-1)"
    assert lines[3].startswith("3 chunks; document 28 chars, 6 tokens (words)")
    assert any(line.startswith("coverage: ") for line in lines)


def test_json_and_fix(capsys: pytest.CaptureFixture[str], files: Any, tmp_path: Path) -> None:
    doc, chunks = files
    fixed = tmp_path / "fixed.jsonl"
    code, out, err = run(
        capsys, "audit", str(doc), "--chunks", str(chunks), "--json", "--fix", str(fixed), "--max-tokens", "2"
    )
    assert code == 0, err
    report = json.loads(out)
    assert report["flags"] == {"misplaced": 1, "over_peer_limit": 2}
    assert [f["line"] for f in report["flagged"]] == [1, 2]
    assert report["diagnostics"]["summary"]["chunks"] == 3
    assert "wrote 3 exactly placed chunk(s)" in err
    records = [json.loads(line) for line in fixed.read_text(encoding="utf-8").splitlines()]
    assert [(r["start"], r["end"], r["text"]) for r in records] == [
        (0, 8, "one two."),
        (9, 23, "one two three."),
        (24, 28, "four"),
    ]
    code, out, err = run(capsys, "audit", str(doc), "--chunks", str(fixed))  # chunkviz's own JSONL: nothing to flag
    assert code == 0 and "audit: no problems found" in out


def test_fix_refuses_an_input_file(capsys: pytest.CaptureFixture[str], files: Any) -> None:
    doc, chunks = files
    before = chunks.read_bytes()
    for target, what in ((chunks, "the chunk file"), (doc, "the document")):
        code, out, err = run(capsys, "audit", str(doc), "--chunks", str(chunks), "--fix", str(target))
        assert code == 2 and out == ""
        assert err.strip() == f"chunkviz: error: --fix {target} is {what} ({target}): write the output to another file"
    assert chunks.read_bytes() == before


def test_malformed_chunk_file(capsys: pytest.CaptureFixture[str], files: Any, tmp_path: Path) -> None:
    doc, _ = files
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"page_content": "one", "metadata": {}}\n{"page_content": "two", "metadata": [1]}\n', "utf-8")
    code, out, err = run(capsys, "audit", str(doc), "--chunks", str(bad))
    assert code == 2 and out == ""
    assert err.strip() == f"chunkviz: error: {bad}, line 2: metadata must be a JSON object, got a list"


def test_delimiter_escapes(capsys: pytest.CaptureFixture[str], files: Any, tmp_path: Path) -> None:
    doc, _ = files
    texts = tmp_path / "chunks.txt"
    texts.write_text("one two.\n\none two three.\n\nfour", encoding="utf-8")
    code, out, _ = run(capsys, "audit", str(doc), "--chunks", str(texts), "--delimiter", r"\n\n")
    assert code == 0 and out.splitlines()[1] == "audit: no problems found"


def test_hostile_file_names_are_printed_escaped(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """An ESC or a BEL in the name of the document or the chunk file reaches no output: the
    report, the --fix line and an error naming the file show them pictured."""
    doc = tmp_path / "doc\x1b[31m\x07.txt"
    doc.write_text(DOC, encoding="utf-8")
    chunks = tmp_path / "c\x1b[31m\x07.jsonl"
    chunks.write_text(json.dumps({"page_content": "one two.", "metadata": {"start_index": 0}}) + "\n")
    fixed = tmp_path / "f\x1b[2J.jsonl"
    code, out, err = run(capsys, "audit", str(doc), "--chunks", str(chunks), "--fix", str(fixed))
    assert code == 0, err
    assert not any(c in out + err for c in "\x1b\x07")
    assert out.splitlines()[0].startswith(f"1 chunks from {tmp_path}/c␛[31m␇.jsonl (langchain, ")
    assert f"in {tmp_path}/doc␛[31m␇.txt" in out.splitlines()[0]
    assert f"to {tmp_path}/f␛[2J.jsonl" in err
    chunks.write_text("not json", encoding="utf-8")
    code, out, err = run(capsys, "audit", str(doc), "--chunks", str(chunks))
    assert code == 2 and err.startswith(f"chunkviz: error: {tmp_path}/c␛[31m␇.jsonl, line 1: not JSON")
    assert not any(c in out + err for c in "\x1b\x07")


def test_a_reversed_export_keeps_every_chunk(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A LangChain export listed backwards (a vector store's order, say): the same audit as in
    order, a line saying the order differs, and --fix writes every chunk, in document order."""
    doc = tmp_path / "doc.txt"
    doc.write_text("alpha beta. gamma. alpha beta. delta.", encoding="utf-8")
    rows = [("alpha beta.", 0), ("gamma.", 12), ("alpha beta.", 19), ("delta.", 31)]
    chunks = tmp_path / "chunks.jsonl"
    chunks.write_text(
        "".join(json.dumps({"page_content": t, "metadata": {"start_index": s}}) + "\n" for t, s in rows[::-1])
    )
    fixed = tmp_path / "fixed.jsonl"
    code, out, err = run(capsys, "audit", str(doc), "--chunks", str(chunks), "--fix", str(fixed))
    assert code == 0, err
    assert out.splitlines()[1:3] == [
        "audit: no problems found",
        "order: out of document order in the file; each chunk placed by its own text; --fix sorts them",
    ]
    assert "wrote 4 exactly placed chunk(s)" in err
    records = [json.loads(line) for line in fixed.read_text(encoding="utf-8").splitlines()]
    assert [(r["index"], r["start"], r["text"]) for r in records] == [(i, s, t) for i, (t, s) in enumerate(rows)]


# ----------------------------------------------------------------------------- real documents, real LangChain

REALDOC_PATHS = realdoc_paths()


@pytest.mark.skipif(not REALDOC_PATHS, reason=f"shared realdocs not found at {REALDOCS} (set CHUNKVIZ_SHARED)")
@pytest.mark.parametrize("path", REALDOC_PATHS, ids=lambda p: p.name)
def test_langchain_export_finds_the_peer_columns_misplaced_chunks(
    path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """LangChain's RecursiveCharacterTextSplitter (add_start_index=True) with the peer column's
    parameters, exported as its users do (JSONL of page_content and metadata), audited by the
    command: the same chunks misplaced as the ``langchain_recursive`` column, at the same spans;
    the same document chunked by chunkviz and audited back: none."""
    splitters = pytest.importorskip("langchain_text_splitters")
    from chunkviz.strategies.peers import run_peer
    from chunkviz.text.tokenizers import get_tokenizer

    document = read_path(path)  # the text the command reads (line ends kept), as the peer column is given
    tokenizer = get_tokenizer("cl100k_base")
    splitter = splitters.RecursiveCharacterTextSplitter(
        chunk_size=128, chunk_overlap=16, length_function=tokenizer._count, add_start_index=True
    )
    exported = tmp_path / "langchain.jsonl"
    with exported.open("w", encoding="utf-8") as out:
        for d in splitter.create_documents([document.text]):
            out.write(json.dumps({"page_content": d.page_content, "metadata": d.metadata}, ensure_ascii=False) + "\n")
    code, out, err = run(capsys, "audit", str(path), "--chunks", str(exported), "--json")
    assert code == 0, err
    report = json.loads(out)
    peer = run_peer(document, "langchain_recursive", {"chunk_size": 128, "chunk_overlap": 16}, tokenizer)
    peer_misplaced = [c.metadata["peer_index"] for c in peer.chunks if "misplaced" in c.metadata["peer_flags"]]
    ours = [f["index"] for f in report["flagged"] if "misplaced" in f["flags"]]
    assert ours == peer_misplaced
    assert report["flags"].get("misplaced", 0) == peer.audit.counts.get("misplaced", 0)
    loaded = load_chunks(document, exported)
    assert [(c.start, c.end) for c in loaded.chunks] == [(c.start, c.end) for c in peer.chunks]
    assert not any("text_not_in_source" in map(str, chunk_flags(c)) for c in loaded.chunks)

    ours_file = tmp_path / "ours.jsonl"
    code, out, err = run(capsys, "chunk", str(path), "-s", "recursive")
    assert code == 0, err
    ours_file.write_text(out, encoding="utf-8")
    code, out, err = run(capsys, "audit", str(path), "--chunks", str(ours_file), "--json")
    assert code == 0, err
    assert json.loads(out)["flags"] == {}


@pytest.mark.skipif(not REALDOC_PATHS, reason=f"shared realdocs not found at {REALDOCS} (set CHUNKVIZ_SHARED)")
@pytest.mark.parametrize("path", REALDOC_PATHS, ids=lambda p: p.name)
def test_a_reversed_langchain_export_of_a_real_document(
    path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """chunkviz's recursive_langchain chunks exported as LangChain's users write them
    (page_content, start_index), listed backwards: nothing flagged, and --fix writes every chunk
    at its span in document order (before: all but one "occurs more than once", one kept)."""
    document = read_path(path)
    chunks = chunkviz.chunk(document, "recursive_langchain")
    exported = tmp_path / "reversed.jsonl"
    rows = [{"page_content": c.text, "metadata": {"start_index": c.start}} for c in reversed(chunks)]
    exported.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    fixed = tmp_path / "fixed.jsonl"
    code, out, err = run(capsys, "audit", str(path), "--chunks", str(exported), "--fix", str(fixed), "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["flags"] == {} and report["placed_exactly"] == len(chunks) and not report["in_document_order"]
    records = [json.loads(line) for line in fixed.read_text(encoding="utf-8").splitlines()]
    assert [(r["start"], r["end"]) for r in records] == [(c.start, c.end) for c in chunks]
