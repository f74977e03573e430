"""``chunkviz batch``: local and Ray engines give the same records; a killed run resumes to the same
file; a corrupt document is reported and skipped; the exports load with their libraries."""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest
from support.paths import REALDOCS

from chunkviz.api import chunk
from chunkviz.cli.batch.command import add_batch_arguments, cmd_batch
from chunkviz.cli.batch.inputs import BatchInputError, expand_inputs
from chunkviz.cli.batch.progress import ProgressLine, format_duration
from chunkviz.cli.batch.run import run_batch
from chunkviz.cli.batch.state import Manifest, make_layout
from chunkviz.cli.batch.worker import DocResult, DocumentChunker
from chunkviz.document.enrich import enrich
from chunkviz.document.read import read_path
from chunkviz.evaluation.config import config_from_dict, save_config
from chunkviz.formats.export import chunk_records
from chunkviz.text.tokenizers import get_tokenizer

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_DOCS = ROOT / "chunkviz/sample_docs"
CONFIG = {
    "version": 1,
    "tokenizer": "cl100k_base",
    "enrichment": {"kind": "metadata", "date": "2024-05-01"},
    "columns": [{"strategy": "recursive", "params": {"chunk_size": 200, "overlap": 20}}],
}


def zip_bytes(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


#: corrupt inputs and what their skip line says
CORRUPT = {
    "garbage.bin": (bytes(range(256)) * 8, "looks like a binary file"),
    "broken.docx": (b"PK\x03\x04" + b"\x00garbage" * 50, "not a valid ZIP archive"),
    "bad_utf8.docx": (
        zip_bytes(
            {
                "[Content_Types].xml": b"<Types/>",
                "word/document.xml": b'<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/'
                b'wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>caf\xe9 \xff\xfe</w:t></w:r></w:p></w:body></w:document>',
            }
        ),
        "could not be read as a DOCX",
    ),
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two copies of the real documents and of chunkviz/sample_docs (about 0.8 MB, 40 documents)."""
    if not REALDOCS.is_dir():
        pytest.skip(f"shared realdocs folder not found at {REALDOCS}")
    root = tmp_path_factory.mktemp("corpus")
    for copy in ("copy1", "copy2"):
        shutil.copytree(REALDOCS, root / copy / "realdocs")
        shutil.copytree(SAMPLE_DOCS, root / copy / "chunkviz/sample_docs")
    (root / "copy1" / "empty.txt").write_text("")
    return root


@pytest.fixture(scope="module")
def config_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_config(CONFIG, tmp_path_factory.mktemp("config") / "chunkviz.json")


@pytest.fixture(scope="module")
def reference(corpus: Path, config_path: Path, tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The uninterrupted one-worker output over the corpus."""
    out = tmp_path_factory.mktemp("reference") / "chunks.jsonl"
    run_batch([str(corpus)], config_path, out, workers=1, progress=None)
    return out.read_bytes()


def with_corrupt(corpus: Path, tmp_path: Path) -> Path:
    """The corpus plus the corrupt files (a copy, so other tests keep a clean corpus)."""
    folder = tmp_path / "input"
    shutil.copytree(corpus, folder)
    for name, (data, _) in CORRUPT.items():
        (folder / "copy1" / name).write_bytes(data)
    return folder


def lines(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in data.decode("utf-8").splitlines()]


# --------------------------------------------------------------------------- records


def test_records_are_the_chunk_commands_records_with_their_source(corpus: Path, reference: bytes) -> None:
    records = lines(reference)
    sources = expand_inputs([str(corpus)])
    assert (
        len(sources)
        == 2 * (len(list(REALDOCS.iterdir())) + len([p for p in SAMPLE_DOCS.rglob("*") if p.is_file()])) + 1
    )
    assert [s for s in dict.fromkeys(r["source"] for r in records)] == [
        s for s in sources if not s.endswith("empty.txt")
    ]
    tokenizer = get_tokenizer("cl100k_base")
    for source in sources[:6] + sources[-3:]:
        document = read_path(source)
        chunks = chunk(document, "recursive", tokenizer=tokenizer, chunk_size=200, overlap=20)
        chunks = enrich(document, chunks, source=source, date="2024-05-01", tokenizer=tokenizer)
        expected = [{"source": source, **r} for r in chunk_records(chunks, tokenizer, document.text)]
        assert [r for r in records if r["source"] == source] == json.loads(json.dumps(expected))
    for r in records[:50]:
        assert r["added_text"].endswith("Date: 2024-05-01\n\n")


def test_two_worker_processes_give_the_same_bytes_and_load_once(
    corpus: Path, config_path: Path, reference: bytes, tmp_path: Path
) -> None:
    summary = run_batch([str(corpus)], config_path, tmp_path / "out", workers=2, progress=None)
    assert (tmp_path / "out" / "chunks.jsonl").read_bytes() == reference
    assert 1 <= len(summary.workers) <= 2 and os.getpid() not in summary.workers
    assert set(summary.workers.values()) == {1}  # each worker built its chunker (and loaded its models) once
    assert summary.chunked == summary.documents and summary.failed == 0


@pytest.fixture
def two_small_documents(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("a.md", "b.md"):
        (docs / name).write_text(f"# {name}\n\nOne sentence here. Another one there.\n", encoding="utf-8")
    return docs


def test_spawned_workers_do_not_run_the_parents_main_script(
    two_small_documents: Path, config_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A main without a guard (or the page Streamlit's AppTest last ran, which it leaves as
    ``__main__``) would run again in every spawned worker; one that fails there made the pool
    replace its workers forever (a CI run hung here for 300 s)."""
    import types

    marker = tmp_path / "main ran in a worker"
    script = tmp_path / "unguarded_main.py"
    script.write_text(f"open({str(marker)!r}, 'a').write('ran\\n')\nraise SystemExit('a main that fails')\n")
    fake_main = types.ModuleType("__main__")
    fake_main.__file__ = str(script)
    monkeypatch.setitem(sys.modules, "__main__", fake_main)
    summary = run_batch([str(two_small_documents)], config_path, tmp_path / "out.jsonl", workers=2, progress=None)
    assert (summary.chunked, summary.failed) == (2, 0)
    assert not marker.exists()
    assert sys.modules["__main__"] is fake_main  # given back


@pytest.mark.timeout(120)
def test_a_worker_that_cannot_set_up_fails_its_documents_instead_of_hanging(
    two_small_documents: Path, tmp_path: Path
) -> None:
    """A pool whose initializer raises replaces the worker forever; the problem is reported per document."""
    from chunkviz.cli.batch.engines import run_local
    from chunkviz.cli.batch.worker import Plan

    plan = Plan(
        {"version": 1, "columns": [{"strategy": "no such strategy", "params": {}}]}, None, "jsonl", str(tmp_path)
    )
    results: list[DocResult] = []
    sources = [str(p) for p in sorted(two_small_documents.iterdir())]
    run_local(sources, plan, {}, 2, results.append)
    assert sorted(r.source for r in results) == sources
    for result in results:
        assert result.status == "failed"
        assert (
            result.error is not None
            and "could not set up its chunker" in result.error
            and "no such strategy" in result.error
        )


def test_a_rerun_chunks_nothing_again(corpus: Path, config_path: Path, reference: bytes, tmp_path: Path) -> None:
    out = tmp_path / "chunks.jsonl"
    first = run_batch([str(corpus)], config_path, out, progress=None)
    second = run_batch([str(corpus)], config_path, out, progress=None)
    assert (first.chunked, first.kept) == (first.documents, 0)
    assert (second.chunked, second.kept, second.chunks) == (0, first.documents, first.chunks)
    assert out.read_bytes() == reference
    changed = config_from_dict({**CONFIG, "columns": [{"strategy": "recursive", "params": {"chunk_size": 150}}]})
    third = run_batch([str(corpus)], changed, out, progress=None)
    assert (third.chunked, third.kept) == (first.documents, 0)  # another configuration: a run of its own
    assert out.read_bytes() != reference


# --------------------------------------------------------------------------- interrupted runs


def test_an_interrupted_run_resumes_to_the_same_file(
    corpus: Path, config_path: Path, reference: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = DocumentChunker.process
    calls = {"n": 0}

    def interrupted(self: DocumentChunker, source: str, data: bytes) -> DocResult:
        calls["n"] += 1
        if calls["n"] == 8:
            raise KeyboardInterrupt  # the run dies with 7 documents done, one in flight
        return original(self, source, data)

    monkeypatch.setattr(DocumentChunker, "process", interrupted)
    out = tmp_path / "chunks.jsonl"
    with pytest.raises(KeyboardInterrupt):
        run_batch([str(corpus)], config_path, out, progress=None)
    assert not out.exists()
    monkeypatch.setattr(DocumentChunker, "process", original)
    resumed = run_batch([str(corpus)], config_path, out, progress=None)
    assert (resumed.kept, resumed.chunked) == (7, resumed.documents - 7)
    assert out.read_bytes() == reference


#: Documents the killed batch finishes before it blocks (one of them may be the empty one).
HALFWAY = 6
SLOW_BATCH = f"HALFWAY = {HALFWAY}\n" + textwrap.dedent(
    """
    import sys, threading
    from chunkviz.cli.batch.worker import DocumentChunker
    original = DocumentChunker.process
    started = []
    def stops_halfway(self, source, data):
        if len(started) == HALFWAY:
            threading.Event().wait()  # the test kills the process here, halfway through the corpus
        started.append(source)
        return original(self, source, data)
    DocumentChunker.process = stops_halfway
    from chunkviz.cli.batch.run import run_batch
    run_batch([sys.argv[1]], sys.argv[2], sys.argv[3], workers=1, progress=None)
    """
)


def test_a_killed_process_resumes_to_the_same_file(
    corpus: Path, config_path: Path, reference: bytes, tmp_path: Path
) -> None:
    out = tmp_path / "chunks.jsonl"
    process = subprocess.Popen([sys.executable, "-c", SLOW_BATCH, str(corpus), str(config_path), str(out)], cwd=ROOT)
    from chunkviz import __version__
    from chunkviz.evaluation.config import column_hash, load_config, normalized

    config = normalized(load_config(config_path))
    layout = make_layout(
        str(out), "jsonl", column_hash(config, config.columns[0], "format=jsonl", f"chunkviz={__version__}")
    )
    manifest = Manifest(layout.manifest, {})
    try:
        deadline = time.monotonic() + 240
        while len(list(manifest.entries())) < HALFWAY:
            assert process.poll() is None, "the batch ended before it could be killed"
            assert time.monotonic() < deadline, "no document finished in time"
            time.sleep(0.05)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    done_before = len([e for e in manifest.entries() if e.status == "done"])
    assert 3 <= done_before < len(expand_inputs([str(corpus)]))
    assert not out.exists()
    resumed = run_batch([str(corpus)], config_path, out, progress=None)
    assert resumed.kept >= done_before
    assert out.read_bytes() == reference
    leftovers = [p for p in layout.parts.rglob("*.tmp")]
    assert len(leftovers) <= 1  # at most the part that was being written when the process died


# --------------------------------------------------------------------------- corrupt input, the command


def batch_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="chunkviz batch")
    add_batch_arguments(parser)
    return parser


def test_corrupt_documents_are_reported_and_skipped(
    corpus: Path, config_path: Path, reference: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = with_corrupt(corpus, tmp_path)
    out = tmp_path / "out"
    args = batch_parser().parse_args([str(folder), "--config", str(config_path), "--out", str(out), "--workers", "1"])
    assert cmd_batch(args) == 0
    err = capsys.readouterr().err
    for name, (_, message) in CORRUPT.items():
        line = next(line for line in err.splitlines() if line.startswith(f"skipped {folder / 'copy1' / name}: "))
        assert message in line
    assert "skipped (failed)" in err and "documents/s" in err and "MB/s" in err
    records = lines((out / "chunks.jsonl").read_bytes())
    assert not any(Path(r["source"]).name in CORRUPT for r in records)
    renamed = (out / "chunks.jsonl").read_text(encoding="utf-8").replace(str(folder), str(corpus))
    assert renamed == reference.decode("utf-8")  # the other documents' records are all there


def test_when_every_document_fails_the_command_exits_1(
    tmp_path: Path, config_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.bin").write_bytes(CORRUPT["garbage.bin"][0])
    args = batch_parser().parse_args(
        [str(tmp_path / "a.bin"), "--config", str(config_path), "--out", str(tmp_path / "o.jsonl"), "--quiet"]
    )
    assert cmd_batch(args) == 1
    err = capsys.readouterr().err
    assert "skipped" in err and "looks like a binary file" in err
    assert (tmp_path / "o.jsonl").read_bytes() == b""


# --------------------------------------------------------------------------- formats


def test_parquet_holds_the_jsonl_records(corpus: Path, config_path: Path, reference: bytes, tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow not installed (extra 'scale')")
    run_batch([str(corpus / "copy1")], config_path, tmp_path / "chunks.parquet", progress=None)
    rows = pq.read_table(tmp_path / "chunks.parquet").to_pylist()
    for row in rows:
        row["metadata"] = json.loads(row["metadata"])
    expected = [r for r in lines(reference) if "/copy1/" in r["source"]]
    assert rows == expected


def test_langchain_and_llamaindex_outputs_load(corpus: Path, config_path: Path, tmp_path: Path) -> None:
    documents = pytest.importorskip("langchain_core.documents", reason="langchain-core not installed (extra 'interop')")
    schema = pytest.importorskip("llama_index.core.schema", reason="llama-index-core not installed (extra 'interop')")
    inputs = [str(corpus / "copy1" / "chunkviz/sample_docs")]
    run_batch(inputs, config_path, tmp_path / "lc", fmt="langchain", progress=None)
    run_batch(inputs, config_path, tmp_path / "li", fmt="llamaindex", progress=None)
    texts = {s: read_path(s).text for s in expand_inputs(inputs)}
    loaded = [documents.Document(**r) for r in lines((tmp_path / "lc" / "chunks.jsonl").read_bytes())]
    # LlamaIndex TextNodes: a JSON list, as the CLI and the app write them (the output formats' registry)
    nodes = [schema.TextNode.from_dict(r) for r in json.loads((tmp_path / "li" / "chunks.json").read_text("utf-8"))]
    assert len(loaded) == len(nodes) > 20
    for doc, node in zip(loaded, nodes):
        source = doc.metadata["source"]
        assert doc.page_content == texts[source][doc.metadata["start_index"] : doc.metadata["end_index"]]
        assert node.text == texts[source][node.start_char_idx : node.end_char_idx] == doc.page_content
        assert node.source_node is not None and node.source_node.node_id == source
        assert doc.metadata["added_text"].endswith("Date: 2024-05-01\n\n")


# --------------------------------------------------------------------------- inputs and progress


def test_inputs_files_folders_and_globs(tmp_path: Path) -> None:
    (tmp_path / "docs" / "sub").mkdir(parents=True)
    (tmp_path / "docs" / ".hidden").mkdir()
    for name in ("docs/b.md", "docs/a.txt", "docs/sub/c.md", "docs/.secret.md", "docs/.hidden/d.md", "docs-x.md"):
        (tmp_path / name).write_text("x")
    os.chdir(tmp_path)
    try:
        assert expand_inputs(["docs"]) == ["docs/a.txt", "docs/b.md", "docs/sub/c.md"]
        assert expand_inputs(["docs/**/*.md", "./docs/b.md", "docs-x.md"]) == [
            "docs/b.md",
            "docs/sub/c.md",
            "docs-x.md",
        ]
        assert expand_inputs(["docs/b.md", str(tmp_path / "docs" / "b.md")]) == ["docs/b.md"]
        assert expand_inputs(["docs"], exclude=["docs/sub"]) == ["docs/a.txt", "docs/b.md"]
        with pytest.raises(BatchInputError, match="input 'nope/\\*.md' matches no file"):
            expand_inputs(["nope/*.md"])
        with pytest.raises(BatchInputError, match="input 'missing.md' does not exist"):
            expand_inputs(["missing.md"])
    finally:
        os.chdir(ROOT)


def test_output_inside_an_input_folder_is_not_read_back(tmp_path: Path, config_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n\nSome text here.\n")
    first = run_batch([str(tmp_path)], config_path, tmp_path / "out", progress=None)
    again = run_batch([str(tmp_path)], config_path, tmp_path / "out", progress=None)
    assert first.documents == again.documents == 1 and again.kept == 1


def test_progress_line() -> None:
    now = [100.0]
    stream = io.StringIO()
    progress = ProgressLine(10, stream, clock=lambda: now[0], log_interval=5.0)
    now[0] = 102.0
    progress.update(DocResult("a", "done", chunks=3, bytes=1_000_000))
    progress.update(DocResult("b", "kept", chunks=2))
    progress.update(DocResult("c", "failed", error="bad"))
    assert stream.getvalue() == ""  # not yet time for a line
    now[0] = 106.0
    progress.update(DocResult("d", "done", chunks=1, bytes=500_000))
    assert (
        stream.getvalue()
        == "batch: 4/10 documents · 0.5 documents/s · 0.25 MB/s · ETA 0:12 · 1 done before · 1 failed\n"
    )
    assert (progress.chunks, progress.chunked) == (6, 2)
    assert [format_duration(s) for s in (0, 75, 3725)] == ["0:00", "1:15", "1:02:05"]


# --------------------------------------------------------------------------- Ray


@pytest.fixture(scope="module")
def local_ray() -> Any:
    ray = pytest.importorskip("ray", reason="Ray not installed (extra 'scale')")
    pytest.importorskip("ray.data", reason="Ray Data not installed (extra 'scale')")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    yield ray
    ray.shutdown()


def test_ray_gives_the_same_file_and_skips_corrupt_documents(
    local_ray: Any, corpus: Path, config_path: Path, tmp_path: Path
) -> None:
    folder = with_corrupt(corpus, tmp_path)
    local = run_batch([str(folder)], config_path, tmp_path / "local.jsonl", progress=None)
    on_ray = run_batch([str(folder)], config_path, tmp_path / "ray.jsonl", engine="ray", workers=1, progress=None)
    assert (tmp_path / "ray.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()
    assert sorted(on_ray.failures) == sorted(local.failures) and len(on_ray.failures) == len(CORRUPT)
    assert (on_ray.documents, on_ray.chunked, on_ray.chunks) == (local.documents, local.chunked, local.chunks)
    assert len(on_ray.workers) == 1 and set(on_ray.workers.values()) == {1}  # one actor, models loaded once
    assert os.getpid() not in on_ray.workers


def test_one_document_is_read_and_parsed_once_on_its_way_through_a_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # read -> chunk -> enrich -> LangChain records: every step takes the reader's Document, so its
    # structure is built once (no step wraps the text into a Document of its own)
    from chunkviz.cli.batch.worker import Plan
    from chunkviz.document import model

    built: list[str] = []

    class CountedStructure(model.Structure):
        def __init__(self, text: str, *args: Any, **kwargs: Any) -> None:
            built.append(text)
            super().__init__(text, *args, **kwargs)

    config = {**CONFIG, "columns": [{"strategy": "headings", "params": {"max_tokens": 50}}]}
    chunker = DocumentChunker(Plan(config, None, "langchain", str(tmp_path)))
    monkeypatch.setattr(model, "Structure", CountedStructure)
    text = "# Guide\n\nIntro line.\n\n## Setup\n\nInstall it now.\n"
    result = chunker.process("guide.md", text.encode())
    assert result.status == "done", result.error
    assert built == [text]
    (part,) = tmp_path.rglob("*.jsonl")
    records = lines(part.read_bytes())
    assert [r["metadata"]["heading_path"] for r in records] == [["Guide"], ["Guide", "Setup"]]
    assert records[1]["metadata"]["added_text"] == "Document: Guide\nSection: Guide > Setup\nDate: 2024-05-01\n\n"
