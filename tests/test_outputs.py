"""Issue 36 items 1, 2, 3, 14 (``report -o``), 16 and 17 (part): what chunkviz reads and writes
(chunkviz/core/files.py).

Every command that writes a file refuses, before any work, an output that is one of its inputs
(named, through a symbolic link or a hard link), a device, a FIFO, a folder or a path in a missing
folder; a write goes to a temporary file beside the target, renamed over it, so a failure leaves
the old file and no temporary; a symbolic link is followed; a new file's mode honours the umask.
Inputs that are not regular files (a FIFO) are refused at once instead of waited on, and Ctrl-C
in a batch ends it without a traceback from each worker.

No test here may replace a device: the autouse ``_devices_are_never_replaced`` makes any rename
onto ``/dev`` fail loudly, so even code without the guard cannot turn ``/dev/null`` into a file.
Tests that could hang on code without the guard (reading a FIFO) run the CLI in a subprocess
under a timeout that only a hang reaches.
"""

from __future__ import annotations

import builtins
import errno
import json
import os
import signal
import stat
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import chunkviz
from chunkviz.cli import commands as cli
from chunkviz.cli.batch.run import run_batch
from chunkviz.core import files
from chunkviz.core.files import (
    NotRegularFileError,
    OutputError,
    OutputPathError,
    check_output,
    open_regular,
    replacing,
    write_text_atomic,
)
from chunkviz.evaluation.config import save_config
from chunkviz.evaluation.questions import Question, Reference, save_questions

ROOT = Path(__file__).resolve().parent.parent
DOC = "one two. one two three. four\n\nfive six seven.\n"
CONFIG = {
    "version": 1,
    "tokenizer": "chars",
    "columns": [{"strategy": "fixed_chars", "params": {"chunk_size": 12, "overlap": 0}}],
}
#: Only a hang (a FIFO read without a writer) takes this long; the commands themselves take seconds.
HANG_TIMEOUT_S = 60
NOT_REGULAR = "not a regular file; give the file itself (a pipe or a device is not read)"


@dataclass
class Inputs:
    doc: Path
    chunks: Path
    questions: Path
    config: Path


@pytest.fixture(autouse=True)
def _devices_are_never_replaced(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever the code under test does, no rename lands on a device here."""
    for name in ("replace", "rename"):
        real = getattr(os, name)

        def guarded(src: Any, dst: Any, *args: Any, _real: Callable[..., None] = real, **kwargs: Any) -> None:
            if os.path.realpath(os.fsdecode(dst)).startswith("/dev/"):
                raise AssertionError(f"a test tried to rename a file onto {dst}")
            _real(src, dst, *args, **kwargs)

        monkeypatch.setattr(os, name, guarded)


@pytest.fixture
def inputs(tmp_path: Path) -> Inputs:
    folder = tmp_path / "in"
    folder.mkdir()
    doc = folder / "doc.txt"
    doc.write_text(DOC, encoding="utf-8")
    chunks = folder / "chunks.json"
    chunks.write_text(json.dumps(["one two.", "one two three.", "four"]), encoding="utf-8")
    questions = folder / "q.jsonl"
    questions.write_text(
        json.dumps({"question": "What is four?", "references": [{"document": "doc.txt", "excerpt": "four"}]}) + "\n",
        encoding="utf-8",
    )
    config = save_config(CONFIG, folder / "chunkviz.json")
    return Inputs(doc, chunks, questions, config)


@pytest.fixture
def no_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading a document (the first work of every command) or running a batch fails the test."""
    import chunkviz.cli.batch.run
    import chunkviz.document.read

    def work(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the command started its work before refusing its output")

    monkeypatch.setattr(chunkviz.document.read, "read_path", work)
    monkeypatch.setattr(chunkviz.cli.batch.run, "_run_locked", work)


def run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    code = cli.main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


#: Each command that writes a file: its command line writing to ``out``, and its inputs.
COMMANDS: dict[str, tuple[Callable[[Inputs, Path], list[str]], tuple[str, ...]]] = {
    "eval --json": (
        lambda i, out: ["eval", str(i.doc), "--questions", str(i.questions), "--json", str(out)],
        ("doc", "questions"),
    ),
    "tune -o": (
        lambda i, out: ["tune", str(i.doc), "--questions", str(i.questions), "-o", str(out)],
        ("doc", "questions"),
    ),
    "tune --json": (
        lambda i, out: [
            "tune",
            str(i.doc),
            "--questions",
            str(i.questions),
            "--json",
            str(out),
            "-o",
            str(i.doc.parent / "c.json"),
        ],
        ("doc", "questions"),
    ),
    "tune --plot": (
        lambda i, out: [
            "tune",
            str(i.doc),
            "--questions",
            str(i.questions),
            "--plot",
            str(out),
            "-o",
            str(i.doc.parent / "c.json"),
        ],
        ("doc", "questions"),
    ),
    "report -o": (
        lambda i, out: ["report", str(i.doc), "--config", str(i.config), "-o", str(out)],
        ("doc", "config"),
    ),
    "questions --out": (lambda i, out: ["questions", str(i.doc), "--out", str(out)], ("doc",)),
    "audit --fix": (
        lambda i, out: ["audit", str(i.doc), "--chunks", str(i.chunks), "--fix", str(out)],
        ("doc", "chunks"),
    ),
    "batch --out": (
        lambda i, out: ["batch", str(i.doc), "--config", str(i.config), "--out", str(out), "--quiet"],
        ("doc", "config"),
    ),
}
CASES = [(command, name) for command, (_, names) in COMMANDS.items() for name in names]


def _snapshot(folder: Path) -> dict[str, tuple[int, bytes | str]]:
    """Every entry under ``folder``: its type and its bytes (a link: where it points)."""
    found: dict[str, tuple[int, bytes | str]] = {}
    for path in sorted(folder.rglob("*")):
        mode = path.lstat().st_mode
        content: bytes | str = b""
        if stat.S_ISLNK(mode):
            content = os.readlink(path)
        elif stat.S_ISREG(mode):
            content = path.read_bytes()
        found[str(path.relative_to(folder))] = (stat.S_IFMT(mode), content)
    return found


# --------------------------------------------------------------------------- item 2: never over an input


@pytest.mark.parametrize("how", ["named", "symlink", "hard_link"])
@pytest.mark.parametrize(("command", "input_name"), CASES)
def test_an_output_that_is_an_input_is_refused_before_any_work(
    command: str,
    input_name: str,
    how: str,
    inputs: Inputs,
    tmp_path: Path,
    no_work: None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv, _ = COMMANDS[command]
    victim: Path = getattr(inputs, input_name)
    out = victim
    if how == "symlink":
        out = tmp_path / f"alias{victim.suffix}"
        out.symlink_to(victim)
    elif how == "hard_link":
        out = tmp_path / f"other-name{victim.suffix}"
        os.link(victim, out)
    before = _snapshot(tmp_path)
    code, _, err = run(capsys, argv(inputs, out))
    assert code == cli.EXIT_USAGE, err
    assert err.count("\n") == 1 and err.startswith("chunkviz: error: ")
    assert str(out) in err and str(victim) in err  # names both
    assert _snapshot(tmp_path) == before  # the input, the link, and nothing new


def test_two_outputs_of_one_command_may_not_be_one_file(
    inputs: Inputs, tmp_path: Path, no_work: None, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "same.json"
    argv = ["tune", str(inputs.doc), "--questions", str(inputs.questions), "-o", str(out), "--json", str(out)]
    code, _, err = run(capsys, argv)
    assert code == cli.EXIT_USAGE
    assert err == f"chunkviz: error: --json {out} is the file -o also writes; give each output its own file\n"


# --------------------------------------------------------------------------- item 1: no special file replaced


def _special(kind: str, tmp_path: Path) -> tuple[Path, str]:
    """An output that may not be written and the message's reason."""
    if kind == "fifo":
        path = tmp_path / "out.pipe"
        os.mkfifo(path)
        return path, "it is a FIFO (named pipe), not a regular file; give a file"
    if kind == "folder":
        path = tmp_path / "out.d"
        path.mkdir()
        return path, "it is a folder; give the path of a file"
    if kind == "missing_folder":
        path = tmp_path / "no" / "such" / "out.json"
        return path, f"no such folder {tmp_path / 'no' / 'such'}; create it first or give another path"
    path = Path("/dev/null")
    if not path.exists() or not stat.S_ISCHR(path.stat().st_mode):
        pytest.skip("no /dev/null character device")
    return path, "it is a character device, not a regular file; give a file"


# a batch --out folder is a folder target (it gets chunks.jsonl) and a batch makes missing folders
SPECIAL_CASES = [
    (command, kind)
    for command in COMMANDS
    for kind in ("fifo", "dev_null", "folder", "missing_folder")
    if not (command == "batch --out" and kind in ("folder", "missing_folder"))
]


@pytest.mark.parametrize(("command", "kind"), SPECIAL_CASES)
def test_a_device_a_fifo_a_folder_or_a_missing_folder_is_refused_before_any_work(
    command: str,
    kind: str,
    inputs: Inputs,
    tmp_path: Path,
    no_work: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out, reason = _special(kind, tmp_path)
    monkeypatch.setattr(files, "_new_temporary", _never)
    before = _snapshot(tmp_path)
    device = out.stat().st_mode if out.exists() else None
    code, _, err = run(capsys, COMMANDS[command][0](inputs, out))
    assert (code, err) == (cli.EXIT_USAGE, f"chunkviz: error: cannot write {out}: {reason}\n")
    assert _snapshot(tmp_path) == before  # the FIFO is a FIFO, nothing was made beside it
    if device is not None:
        assert out.stat().st_mode == device  # /dev/null is still the character device


def _never(*args: Any) -> Any:
    raise AssertionError("the output was written")


@pytest.mark.parametrize("kind", ["fifo", "dev_null", "folder", "missing_folder"])
@pytest.mark.parametrize("writer", ["ChunkView.save", "save_config", "save_questions", "write_report"])
def test_the_library_writers_refuse_the_same_outputs(
    writer: str, kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out, reason = _special(kind, tmp_path)
    monkeypatch.setattr(files, "_new_temporary", _never)
    before = _snapshot(tmp_path)
    with pytest.raises(OutputPathError) as refused:
        _WRITERS[writer](out)
    assert str(refused.value) == f"cannot write {out}: {reason}"
    assert _snapshot(tmp_path) == before


def _view() -> chunkviz.ChunkView:
    return chunkviz.ChunkView.from_chunks(
        DOC, chunkviz.chunk(DOC, "fixed_chars", chunk_size=12, overlap=0), tokenizer="chars"
    )


def _write_report(out: Path) -> None:
    from chunkviz.views.page import write_report

    write_report(_view().view, out)


_WRITERS: dict[str, Callable[[Path], Any]] = {
    "ChunkView.save": lambda out: _view().save(out),
    "save_config": lambda out: save_config(CONFIG, out),
    "save_questions": lambda out: save_questions([Question("q?", (Reference("d", 0, 1),))], out),
    "write_report": _write_report,
}


# --------------------------------------------------------------------------- item 3: a failed write leaves the old file


def test_a_failed_notebook_save_leaves_the_existing_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The issue's case: rendering text that cannot be encoded (a lone surrogate) truncated the report to 0 bytes."""
    out = tmp_path / "report.html"
    view = _view()
    view.save(out)
    saved = out.read_bytes()
    monkeypatch.setattr(chunkviz.ChunkView, "html", lambda self: "<p>\ud800</p>")
    with pytest.raises(UnicodeEncodeError):
        view.save(out)
    assert out.read_bytes() == saved
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]  # no temporary file


class _FullDisk:
    """A file whose writes fail as on a full disk, after part of the data is written."""

    def __init__(self, handle: Any) -> None:
        self.handle = handle

    def __enter__(self) -> _FullDisk:
        return self

    def __exit__(self, *exc: object) -> None:
        self.handle.close()

    def write(self, data: bytes) -> int:
        self.handle.write(data[:7])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.fixture
def full_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(files, "open", lambda path, mode="r": _FullDisk(builtins.open(path, mode)), raising=False)


@pytest.mark.parametrize("command", ["audit --fix", "report -o"])
def test_a_full_disk_is_one_line_exit_1_and_leaves_the_old_file(
    command: str, inputs: Inputs, tmp_path: Path, full_disk: None, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.file"
    out.write_bytes(b"the old output\n")
    code, _, err = run(capsys, COMMANDS[command][0](inputs, out))
    assert code == cli.EXIT_FAILURE
    assert err.splitlines()[-1] == f"chunkviz: error: cannot write {out}: No space left on device"
    assert out.read_bytes() == b"the old output\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in", "out.file"]  # no temporary file


@pytest.mark.parametrize("writer", list(_WRITERS))
def test_a_full_disk_in_a_library_writer_leaves_the_old_file(writer: str, tmp_path: Path, full_disk: None) -> None:
    out = tmp_path / "out.file"
    out.write_bytes(b"the old output\n")
    with pytest.raises(OutputError, match=f"^cannot write {out}: No space left on device$"):
        _WRITERS[writer](out)
    assert out.read_bytes() == b"the old output\n" and [p.name for p in tmp_path.iterdir()] == ["out.file"]


def test_a_failed_fix_leaves_no_temporary_file(
    inputs: Inputs, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 17: the rename fails (an I/O error): the old file stays and the temporary file goes."""
    out = tmp_path / "fixed.jsonl"
    out.write_bytes(b"old\n")
    guarded = os.replace

    def failing(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
        if os.path.realpath(dst) == os.path.realpath(out):
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        guarded(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", failing)
    code, _, err = run(capsys, COMMANDS["audit --fix"][0](inputs, out))
    assert code != 0 and err.splitlines()[-1] == f"chunkviz: error: cannot write {out}: Input/output error"
    assert out.read_bytes() == b"old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fixed.jsonl", "in"]


@pytest.mark.parametrize(
    ("error", "raised"),
    [
        (KeyboardInterrupt(), KeyboardInterrupt),
        (UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed"), UnicodeEncodeError),
        (OSError(errno.EIO, os.strerror(errno.EIO)), OutputError),
    ],
    ids=["ctrl_c", "encoding", "io_error"],
)
def test_any_failure_while_writing_removes_the_temporary_file(
    error: BaseException, raised: type[BaseException], tmp_path: Path
) -> None:
    out = tmp_path / "out.txt"
    out.write_text("old")
    with pytest.raises(raised), replacing(out) as temporary:
        temporary.write_text("half of the new")
        raise error
    assert out.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["out.txt"]


# --------------------------------------------------------------------------- links, modes


def test_a_symlink_output_is_followed_not_replaced(
    inputs: Inputs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "real" / "fixed.jsonl"
    target.parent.mkdir()
    target.write_text("old\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    code, _, err = run(capsys, COMMANDS["audit --fix"][0](inputs, link))
    assert code == 0, err
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert [json.loads(line)["text"] for line in target.read_text().splitlines()] == [
        "one two.",
        "one two three.",
        "four",
    ]
    assert sorted(p.name for p in target.parent.iterdir()) == ["fixed.jsonl"]


def test_a_dangling_symlink_output_creates_its_target(tmp_path: Path) -> None:
    link = tmp_path / "link.txt"
    link.symlink_to(tmp_path / "made.txt")
    write_text_atomic(link, "new")
    assert link.is_symlink() and (tmp_path / "made.txt").read_text() == "new"


@pytest.fixture
def umask_027() -> Iterator[None]:
    old = os.umask(0o027)
    try:
        yield
    finally:
        os.umask(old)


@pytest.mark.parametrize("command", ["audit --fix", "report -o"])
def test_a_new_output_gets_the_umask_mode_and_an_old_one_keeps_its_mode(
    command: str, inputs: Inputs, tmp_path: Path, umask_027: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 17: outputs were 0600 (mkstemp's mode); an ordinary open() gives 0o666 & ~umask."""
    new = tmp_path / "new.out"
    assert run(capsys, COMMANDS[command][0](inputs, new))[0] == 0
    assert stat.S_IMODE(new.stat().st_mode) == 0o640
    old = tmp_path / "old.out"
    old.write_text("old")
    old.chmod(0o604)
    assert run(capsys, COMMANDS[command][0](inputs, old))[0] == 0
    assert stat.S_IMODE(old.stat().st_mode) == 0o604 and old.read_text() != "old"


def test_a_read_only_output_or_folder_is_refused_before_any_work(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root may write anything")
    out = tmp_path / "ro.txt"
    out.write_text("x")
    out.chmod(0o444)
    with pytest.raises(OutputPathError, match="the file is read-only"):
        check_output(out, "-o")


# --------------------------------------------------------------------------- item 14: report -o


@pytest.mark.parametrize("kind", ["folder", "missing_folder"])
def test_report_to_a_folder_or_a_missing_folder_is_bad_input_not_a_bug(
    kind: str, inputs: Inputs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, reason = _special(kind, tmp_path)
    code, _, err = run(capsys, ["report", str(inputs.doc), "-s", "fixed_chars", "-o", str(out)])
    assert (code, err) == (cli.EXIT_USAGE, f"chunkviz: error: cannot write {out}: {reason}\n")


# --------------------------------------------------------------------------- item 16: inputs that are no files


def test_open_regular_refuses_a_fifo_even_with_a_writer_and_a_file_swapped_after_the_look(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    writer = os.open(fifo, os.O_WRONLY)  # with a writer, a plain open() would not block: the type decides
    try:
        with pytest.raises(NotRegularFileError) as refused:
            open_regular(fifo)
        assert str(refused.value) == f"{fifo} is a FIFO (named pipe), {NOT_REGULAR}"
        regular = tmp_path / "file"
        regular.write_text("x")
        looks_regular = os.stat(regular)
        real_stat = os.stat
        monkeypatch.setattr(os, "stat", lambda p, *a, **k: looks_regular if str(p) == str(fifo) else real_stat(p))
        with pytest.raises(NotRegularFileError):  # the open file itself is checked again
            open_regular(fifo)
    finally:
        os.close(writer)
        os.close(reader)
    with pytest.raises(IsADirectoryError):
        open_regular(tmp_path)


def _cli(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """The CLI in its own process: a hang is a timeout there, not a stuck test session."""
    return subprocess.run(
        [sys.executable, "-m", "chunkviz", *argv],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=HANG_TIMEOUT_S,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))},
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["chunk", "{fifo}", "-s", "recursive"], "{fifo} is a FIFO (named pipe), " + NOT_REGULAR),
        (["audit", "{doc}", "--chunks", "{fifo}"], "{fifo}: is a FIFO (named pipe), " + NOT_REGULAR),
        (["eval", "{doc}", "--questions", "{fifo}"], "{fifo}: is a FIFO (named pipe), " + NOT_REGULAR),
        (["chunk", "{doc}", "--config", "{fifo}"], "{fifo} is a FIFO (named pipe), " + NOT_REGULAR),
    ],
    ids=["document", "chunks", "questions", "config"],
)
def test_a_fifo_input_is_refused_at_once(argv: list[str], message: str, inputs: Inputs, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    names = {"fifo": str(fifo), "doc": str(inputs.doc)}
    done = _cli([a.format(**names) for a in argv], tmp_path)
    assert (done.returncode, done.stderr) == (cli.EXIT_USAGE, f"chunkviz: error: {message.format(**names)}\n")
    assert stat.S_ISFIFO(fifo.stat().st_mode)


SWAP_MID_BATCH = textwrap.dedent(
    """
    import os, sys
    from chunkviz.cli.batch.worker import DocumentChunker
    original = DocumentChunker.process_path
    def swapped(self, source):
        if source.endswith("b.md"):  # the file became a FIFO after the inputs were listed
            os.unlink(source)
            os.mkfifo(source)
        return original(self, source)
    DocumentChunker.process_path = swapped
    from chunkviz.cli.batch.run import run_batch
    summary = run_batch([sys.argv[1]], sys.argv[2], sys.argv[3], workers=1, progress=None)
    print(repr(summary.failures))
    """
)


def test_a_file_swapped_for_a_fifo_mid_batch_is_a_failed_document_not_a_hang(inputs: Inputs, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("a.md", "b.md", "c.md"):
        (docs / name).write_text(f"{name} holds a few words.\n")
    out = tmp_path / "chunks.jsonl"
    done = subprocess.run(
        [sys.executable, "-c", SWAP_MID_BATCH, str(docs), str(inputs.config), str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=HANG_TIMEOUT_S,
    )
    assert done.returncode == 0, done.stderr
    shown = str(docs / "b.md")
    assert done.stdout.strip() == repr([(shown, f"{shown} is a FIFO (named pipe), {NOT_REGULAR}")])
    assert {json.loads(line)["source"] for line in out.read_text().splitlines()} == {
        str(docs / "a.md"),
        str(docs / "c.md"),
    }


def test_ray_never_gets_a_fifo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from chunkviz.cli.batch import engines
    from chunkviz.cli.batch.worker import DocResult, Plan

    class NoRay:
        def is_initialized(self) -> bool:
            raise AssertionError("Ray must not start for a FIFO: its read would wait for ever")

    monkeypatch.setattr(engines, "_import_ray", lambda: NoRay())
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    results: list[DocResult] = []
    engines.run_ray([str(fifo)], Plan({}, None, "jsonl", str(tmp_path)), {}, 1, results.append)
    assert [(r.status, r.error) for r in results] == [("failed", f"{fifo} is a FIFO (named pipe), {NOT_REGULAR}")]


# --------------------------------------------------------------------------- item 17: Ctrl-C in a batch

#: Loaded by every process of the interrupted batch (PYTHONPATH): each worker chunks one document,
#: then waits on the next one until the test's Ctrl-C ends the run.
BLOCKING_WORKER = textwrap.dedent(
    """
    import os
    if os.environ.get("CHUNKVIZ_TEST_WAIT_AFTER_ONE"):
        import threading
        from chunkviz.cli.batch import worker
        _original = worker.DocumentChunker.process
        _done = []
        def _process(self, source, data):
            if _done:
                threading.Event().wait()
            _done.append(source)
            return _original(self, source, data)
        worker.DocumentChunker.process = _process
    """
)


@pytest.mark.skipif(sys.platform == "win32", reason="process groups and SIGINT")
def test_ctrl_c_in_a_batch_prints_no_worker_traceback_and_the_run_resumes_to_the_same_bytes(
    inputs: Inputs, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(8):
        (docs / f"d{i}.md").write_text(f"# Document {i}\n\nIt holds sentence number {i} and a few more words.\n")
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(BLOCKING_WORKER)
    reference = tmp_path / "reference.jsonl"
    run_batch([str(docs)], inputs.config, reference, workers=1, progress=None)
    out = tmp_path / "out" / "chunks.jsonl"
    out.parent.mkdir()
    pythonpath = os.pathsep.join(filter(None, [str(hook), str(ROOT), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": pythonpath, "CHUNKVIZ_TEST_WAIT_AFTER_ONE": "1"}
    argv = ["batch", str(docs), "--config", str(inputs.config), "--out", str(out), "--workers", "2", "--quiet"]
    process = subprocess.Popen(
        [sys.executable, "-m", "chunkviz", *argv],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's Ctrl-C reaches one
    )
    state = out.parent / f".{out.name}.chunkviz-batch"
    try:
        deadline = time.monotonic() + HANG_TIMEOUT_S  # only a batch that never starts reaches it
        while _finished(state) < 2:  # both workers chunked a document and wait on their next
            assert process.poll() is None, process.communicate()[1]
            assert time.monotonic() < deadline, "the workers never finished a document"
            time.sleep(0.05)
        workers = _pool_workers(process.pid)
        assert len(workers) == 2
        for pid in workers:  # the deterministic part: each worker ignores SIGINT and ends quietly on SIGTERM
            ignored, caught = _signal_masks(pid)
            assert ignored & (1 << (signal.SIGINT - 1)) and caught & (1 << (signal.SIGTERM - 1)), pid
            os.kill(pid, signal.SIGINT)  # a worker reached first (the parent may be busy) is no exception
        os.killpg(process.pid, signal.SIGINT)  # then Ctrl-C, which reaches the whole process group
        _, err = process.communicate(timeout=HANG_TIMEOUT_S)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == 130
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert not out.exists()
    resumed = run_batch([str(docs)], inputs.config, out, workers=1, progress=None)
    assert resumed.kept == 2
    assert out.read_bytes() == reference.read_bytes()
    assert list(state.rglob("*.tmp")) == []


def _pool_workers(pid: int) -> list[int]:
    """The spawned pool workers among the children of ``pid`` (Linux's /proc)."""
    children = Path(f"/proc/{pid}/task/{pid}/children")
    if not children.exists():
        pytest.skip("needs /proc/PID/task/PID/children")
    found = [int(c) for c in children.read_text().split()]
    return [c for c in found if b"spawn_main" in Path(f"/proc/{c}/cmdline").read_bytes()]


def _signal_masks(pid: int) -> tuple[int, int]:
    """(ignored, caught) signal bit masks of a process (``SigIgn`` and ``SigCgt`` of /proc/PID/status)."""
    fields = dict(
        line.split(":\t", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":\t" in line
    )
    return int(fields["SigIgn"], 16), int(fields["SigCgt"], 16)


def _finished(state: Path) -> int:
    """Documents the batch's manifest records as finished."""
    return sum(line.count('"status"') for m in state.glob("*/manifest.jsonl") for line in m.read_text().splitlines())
