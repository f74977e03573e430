"""Issue 23 items 1, 2, 11 and 12: a batch never harms an input, holds its output for the run,
records any file name losslessly as valid UTF-8, and reads each file once through any links.

Each class is checked on generated cases (names with other characters, other ways of naming the
same file, other loop shapes), not only on the issue's examples. Nothing here chunks more than a
few lines (``fixed_chars``), and the refusals are checked before any chunking happens.
"""

from __future__ import annotations

import glob
import json
import os
import random
import string
import sys
from pathlib import Path
from urllib.parse import unquote_to_bytes

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.texts import SETTINGS, examples

from chunkviz.cli.batch.inputs import BatchInputError, expand_inputs, glob_files, match_components, pattern_would_read
from chunkviz.cli.batch.run import run_batch
from chunkviz.cli.batch.state import OutputLock, OutputLocked, make_layout
from chunkviz.cli.batch.worker import PERCENT_ENCODED, recorded_source
from chunkviz.cli.commands import main
from chunkviz.evaluation.config import save_config

CONFIG = {
    "version": 1,
    "tokenizer": "chars",
    "columns": [{"strategy": "fixed_chars", "params": {"chunk_size": 40, "overlap": 0}}],
}
#: names with other characters than the issue's (spaces, accents, CJK, a leading dash, brackets)
NAMES = ["notes.md", "a b.txt", "résumé.md", "日本語.md", "-dash.md", "x[1].md", "100%.txt"]


@pytest.fixture()
def config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_config(CONFIG, tmp_path_factory.mktemp("config") / "c.json")


def _tree(root: Path, names: list[str]) -> dict[Path, bytes]:
    """``names`` under ``root/docs`` (and one in a sub-folder), each with distinct content."""
    made = {}
    for i, name in enumerate(names):
        path = root / "docs" / ("sub" if i % 3 == 2 else "") / name
        path.parent.mkdir(parents=True, exist_ok=True)
        data = f"# Doc {i}\n\n{name} holds text number {i}.\n".encode()
        path.write_bytes(data)
        made[path] = data
    return made


def _unchanged(files: dict[Path, bytes]) -> bool:
    return all(path.read_bytes() == data for path, data in files.items())


# --------------------------------------------------------------------------- item 1: never over an input


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("how", ["named", "in_folder", "hard_link", "symlink", "folder_target"])
def test_an_output_that_is_or_would_replace_an_input_is_refused_and_nothing_is_written(
    tmp_path: Path, config: Path, name: str, how: str
) -> None:
    files = _tree(tmp_path, [name, "other.md", "third.md"])
    victim = tmp_path / "docs" / name
    inputs = [str(tmp_path / "docs")]
    if how == "named":
        inputs, out = [str(victim)], victim
    elif how == "in_folder":
        out = victim
    elif how == "hard_link":  # another name of the same file
        out = tmp_path / "docs" / f"link-{name}"
        os.link(victim, out)
    elif how == "symlink":
        out = tmp_path / f"alias-{name}"
        out.symlink_to(victim)
    else:  # --out DIR whose chunks.jsonl is a user's file in the input folder
        out = tmp_path / "docs"
        victim = out / "chunks.jsonl"
        victim.write_text("my own file\n")
        files[victim] = victim.read_bytes()
    before = set(tmp_path.rglob("*"))
    with pytest.raises(BatchInputError) as error:
        run_batch(inputs, config, out, progress=None)
    message = str(error.value)
    assert f"--out {out}" in message and "the input file" in message
    assert _unchanged(files)
    assert set(tmp_path.rglob("*")) == before  # no lock, state folder or temporary file left behind


@pytest.mark.parametrize("pattern", ["docs/*.md", "docs/**/*.md", "docs/**", "d*/s?b/*", "docs/[a-z]*.jsonl"])
def test_an_output_a_glob_input_would_read_later_is_refused(tmp_path: Path, config: Path, pattern: str) -> None:
    files = _tree(tmp_path, ["a.md", "b.md", "c.md", "log.jsonl"])
    out = {
        "docs/*.md": "docs/new.md",
        "docs/**/*.md": "docs/deep/er/new.md",
        "docs/**": "docs/chunks.jsonl",
        "d*/s?b/*": "docs/sub/out.jsonl",
        "docs/[a-z]*.jsonl": "docs/out.jsonl",
    }[pattern]
    os.chdir(tmp_path)
    try:
        with pytest.raises(BatchInputError, match="is where the input pattern"):
            run_batch([pattern], config, out, progress=None)
        assert not Path(out).exists() and _unchanged(files)
    finally:
        os.chdir(Path(__file__).parent.parent)


def test_the_cli_refuses_with_exit_2_naming_both_paths(
    tmp_path: Path, config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = _tree(tmp_path, ["notes.md"])
    victim = tmp_path / "docs" / "notes.md"
    assert main(["batch", str(victim), "--config", str(config), "--out", str(victim), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count(str(victim)) == 2 and _unchanged(files)
    assert main(["batch", str(tmp_path / "docs"), "--config", str(config), "--out", str(config)]) == 2
    assert "is the --config file" in capsys.readouterr().err
    assert json.loads(config.read_text())["columns"]


def test_an_earlier_output_inside_an_input_folder_is_left_out_but_a_file_put_in_its_place_is_protected(
    tmp_path: Path, config: Path
) -> None:
    _tree(tmp_path, ["a.md", "b.md"])
    out = tmp_path / "docs" / "chunks.jsonl"
    first = run_batch([str(tmp_path / "docs")], config, out, progress=None)
    again = run_batch([str(tmp_path / "docs")], config, out, progress=None)
    assert first.documents == again.documents == 2 and again.kept == 2
    out.write_text("now a file of my own\n")  # same path, another file: an input again
    with pytest.raises(BatchInputError, match="the output would replace it"):
        run_batch([str(tmp_path / "docs")], config, out, progress=None)
    assert out.read_text() == "now a file of my own\n"


def test_an_existing_file_without_an_extension_is_a_file_target(tmp_path: Path, config: Path) -> None:
    files = _tree(tmp_path, ["README"])
    with pytest.raises(BatchInputError, match="the output would replace it"):
        run_batch([str(tmp_path / "docs")], config, tmp_path / "docs" / "README", progress=None)
    assert _unchanged(files)


# --------------------------------------------------------------------------- item 2: the lock


def test_a_second_run_to_a_locked_output_is_refused_naming_the_holder(tmp_path: Path, config: Path) -> None:
    _tree(tmp_path, ["a.md"])
    (tmp_path / "more").mkdir()
    (tmp_path / "more" / "b.md").write_text("other inputs\n")
    out = tmp_path / "out.jsonl"
    layout = make_layout(str(out), "jsonl", "0" * 64)
    with OutputLock(layout):  # a run in progress (any configuration: the lock is the output's)
        with pytest.raises(OutputLocked, match=f"process {os.getpid()}.*is writing {out}"):
            run_batch([str(tmp_path / "more")], config, out, progress=None)
        assert not out.exists()
    done = run_batch([str(tmp_path / "more")], config, out, progress=None)  # released: the run goes ahead
    assert done.documents == 1 and out.read_text().count("\n") == 1


def test_the_cli_reports_a_locked_output_as_one_line(
    tmp_path: Path, config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _tree(tmp_path, ["a.md"])
    out = tmp_path / "res"
    with OutputLock(make_layout(str(out), "jsonl", "f" * 64)):
        assert main(["batch", str(tmp_path / "docs"), "--config", str(config), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "another chunkviz batch" in err[0]


def test_a_lock_held_by_another_process_refuses_this_one(tmp_path: Path, config: Path) -> None:
    import subprocess

    _tree(tmp_path, ["a.md"])
    out = tmp_path / "o.jsonl"
    lock = make_layout(str(out), "jsonl", "0" * 64).lock
    lock.parent.mkdir(parents=True)
    holder = subprocess.Popen(
        [sys.executable, "-c", f"import fcntl,sys;f=open({str(lock)!r},'a+');fcntl.flock(f,fcntl.LOCK_EX);"
         "f.write('4242\\n');f.flush();print('held',flush=True);sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with pytest.raises(OutputLocked, match="process 4242"):
            run_batch([str(tmp_path / "docs")], config, out, progress=None)
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=30)
    assert run_batch([str(tmp_path / "docs")], config, out, progress=None).documents == 1


# --------------------------------------------------------------------------- item 11: file names


def _bad_names(count: int) -> list[bytes]:
    """File names that are not UTF-8: lone continuation bytes, Latin-1, cut sequences, with %."""
    rng = random.Random(23)
    names = [b"\xff.md", b"caf\xe9.txt", b"\x80%41.md", b"ok-\xe2\x82.md", b"\xc3(.md"]
    while len(names) < count:
        junk = bytes(rng.choice([0x80, 0xBF, 0xC0, 0xF5, 0xFE, 0xFF, 0xE9]) for _ in range(rng.randint(1, 3)))
        names.append(rng.choice(string.ascii_letters).encode() + junk + b"%" * rng.randint(0, 1) + b".md")
    return names


@pytest.mark.skipif(sys.platform == "win32" or sys.getfilesystemencoding() != "utf-8", reason="POSIX byte names")
@pytest.mark.parametrize("fmt", ["jsonl", "parquet", "langchain"])
def test_names_that_are_not_utf8_are_recorded_losslessly_as_valid_utf8(tmp_path: Path, config: Path, fmt: str) -> None:
    if fmt == "parquet":
        pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow not installed (extra 'scale')")
    folder = tmp_path / "docs"
    folder.mkdir()
    names = _bad_names(8)
    for i, raw in enumerate(names):
        with open(os.path.join(os.fsencode(folder), raw), "wb") as handle:
            handle.write(f"text {i} of a badly named file\n".encode())
    (folder / "plain.md").write_text("a plain name\n")
    out = tmp_path / ("o.parquet" if fmt == "parquet" else "o.jsonl")
    summary = run_batch([str(folder)], config, out, fmt=fmt, progress=None)
    assert summary.documents == len(names) + 1 and summary.failed == 0
    if fmt == "parquet":
        rows = pq.read_table(out).to_pylist()
        records = [(r["source"], json.loads(r["metadata"])) for r in rows]
    else:
        lines = out.read_bytes().decode("utf-8").split("\n")[:-1]  # strict UTF-8
        assert not any("\\ud" in line.lower() for line in lines)  # no surrogate escapes
        parsed = [json.loads(line) for line in lines]
        if fmt == "langchain":
            records = [(p["metadata"]["source"], p["metadata"]) for p in parsed]
        else:
            records = [(p["source"], p["metadata"]) for p in parsed]
    wanted = {os.path.join(os.fsencode(folder), raw) for raw in names} | {os.fsencode(folder / "plain.md")}
    got = set()
    for source, metadata in records:
        encoded = metadata.get(PERCENT_ENCODED, False)
        got.add(unquote_to_bytes(source) if encoded else source.encode("utf-8"))
        assert encoded == (source != str(folder / "plain.md"))
    assert got == wanted


@given(st.binary(min_size=1, max_size=12))
@settings(max_examples=examples(200), **SETTINGS)
def test_the_recorded_form_gives_the_exact_bytes_back(raw: bytes) -> None:
    name = os.fsdecode(raw)
    recorded, encoded = recorded_source(name)
    recorded.encode("utf-8")  # always valid
    assert (unquote_to_bytes(recorded) if encoded else recorded.encode("utf-8")) == raw
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        assert encoded
    else:
        assert not encoded and recorded == name


# --------------------------------------------------------------------------- item 12: globs and links


def _loops(root: Path, shape: str) -> None:
    (root / "in2" / "deep").mkdir(parents=True)
    (root / "in2" / "a.md").write_text("one file\n")
    (root / "in2" / "deep" / "b.md").write_text("another\n")
    links = {
        "one": [("in2/loop", ".")],
        "two": [("in2/loop", "."), ("in2/deep/up", "..")],
        "three": [("in2/x", "."), ("in2/y", "."), ("in2/deep/z", "../..")],
    }[shape]
    for link, target in links:
        (root / link).symlink_to(target, target_is_directory=True)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX links")
@pytest.mark.parametrize("shape", ["one", "two", "three"])
@pytest.mark.parametrize("pattern", ["in2/**/*.md", "in2/**", "**/*.md", "in2/*/*.md", "in2"])
def test_links_to_folders_are_not_followed_and_each_file_counts_once(tmp_path: Path, shape: str, pattern: str) -> None:
    _loops(tmp_path, shape)
    os.chdir(tmp_path)
    try:
        found = expand_inputs([pattern])
    finally:
        os.chdir(Path(__file__).parent.parent)
    expected = {"in2/*/*.md": ["in2/deep/b.md"]}.get(pattern, ["in2/a.md", "in2/deep/b.md"])
    assert found == expected


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX links")
def test_a_file_named_through_links_counts_once_by_its_real_path(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("x\n")
    (tmp_path / "alias.md").symlink_to(tmp_path / "docs" / "a.md")
    (tmp_path / "docs" / "again.md").symlink_to("a.md")
    found = expand_inputs([str(tmp_path / "docs"), str(tmp_path / "alias.md"), str(tmp_path / "*.md")])
    assert found == [str(tmp_path / "docs" / "a.md")]


def test_an_empty_folder_is_no_matching_files_not_missing(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "hidden_only" / ".git").mkdir(parents=True)
    (tmp_path / "hidden_only" / ".env").write_text("x")
    for folder in ("empty", "hidden_only"):
        with pytest.raises(BatchInputError, match=f"input '.*{folder}' is a folder with no matching files"):
            expand_inputs([str(tmp_path / folder)])
    with pytest.raises(BatchInputError, match="does not exist"):
        expand_inputs([str(tmp_path / "absent")])
    with pytest.raises(BatchInputError, match="matches no file"):
        expand_inputs([str(tmp_path / "empty" / "*.md")])


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX pipes")
def test_a_pipe_is_never_read(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.md")
    (tmp_path / "a.md").write_text("x\n")
    assert expand_inputs([str(tmp_path)]) == [str(tmp_path / "a.md")]
    assert expand_inputs([str(tmp_path / "*.md")]) == [str(tmp_path / "a.md")]
    with pytest.raises(BatchInputError, match="not a regular file or folder"):
        expand_inputs([str(tmp_path / "pipe.md")])


TREE = ["a.md", "b.txt", "sub/c.md", "sub/d.md", "sub/deep/e.md", ".hid/f.md", "sub/.g.md", "x1/y.md", "x2/y.txt"]
PATTERNS = ["*.md", "**/*.md", "sub/*", "sub/**", "**", "x?/*", "[ab].*", "sub/**/e.md", "*/*.md", ".hid/*", "**/y.*"]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_globs_match_what_glob_matches_on_a_tree_without_links(tmp_path: Path, pattern: str) -> None:
    for name in TREE:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(name)
    os.chdir(tmp_path)
    try:
        ours = sorted(glob_files(pattern))
        theirs = set()
        for match in glob.glob(pattern, recursive=True):
            if os.path.isfile(match):
                theirs.add(os.path.normpath(match))
            elif os.path.isdir(match):
                for root, dirs, files in os.walk(match):
                    dirs[:] = [d for d in dirs if not d.startswith(".")]
                    theirs.update(os.path.normpath(os.path.join(root, f)) for f in files if not f.startswith("."))
    finally:
        os.chdir(Path(__file__).parent.parent)
    assert [os.path.normpath(p) for p in ours] == sorted(theirs)


def test_component_matching_and_would_read() -> None:
    assert match_components(["**", "*.md"], ["a.md"])
    assert match_components(["**", "*.md"], ["x", "y", "a.md"])
    assert not match_components(["**", "*.md"], [".x", "a.md"])
    assert not match_components(["*.md"], [".a.md"])
    assert match_components([".*"], [".a"])
    deep = ["d"] * 2000 + ["a.md"]
    assert match_components(["**", "**", "**", "*.md"], deep)  # no backtracking blow-up
    assert pattern_would_read("docs/*.md", "docs/new.md")
    assert pattern_would_read("docs/*", "docs/sub/out.jsonl")  # inside a folder the pattern matches
    assert not pattern_would_read("docs/*.md", "docs/new.jsonl")
    assert not pattern_would_read("docs/*.md", "elsewhere/new.md")


@pytest.mark.skipif(sys.platform == "win32" or sys.getfilesystemencoding() != "utf-8", reason="POSIX byte names")
def test_ray_reports_a_name_it_cannot_read_and_never_starts_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from chunkviz.cli.batch import engines
    from chunkviz.cli.batch.worker import DocResult, Plan

    class NoRay:
        def is_initialized(self) -> bool:
            raise AssertionError("Ray must not start for files it cannot read")

    monkeypatch.setattr(engines, "_import_ray", lambda: NoRay())
    names = [os.fsdecode(os.path.join(os.fsencode(tmp_path), raw)) for raw in _bad_names(4)]
    results: list[DocResult] = []
    engines.run_ray(names, Plan({}, None, "jsonl", str(tmp_path)), {}, 1, results.append)
    assert [r.source for r in results] == names and {r.status for r in results} == {"failed"}
    for result in results:
        assert result.error is not None and "is not valid UTF-8" in result.error
        result.error.encode("utf-8")  # the message itself is valid UTF-8
