"""The terminal view (chunkviz/terminal) and ``chunkviz show``: exact plain output for small
cases, colours with rich's forced terminal and none when piped, hostile text kept inert."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from support.texts import SETTINGS, any_text, examples

import chunkviz
from chunkviz.cli import commands as cli
from chunkviz.core.types import Chunk
from chunkviz.core.vocabulary import Boundary, Reason
from chunkviz.text.printable import visible, visible_name
from chunkviz.views.terminal import plain_view, rich_view, runs

ANSI = re.compile(r"\x1b\[[0-9;]*m")
TEXT = "alpha beta gamma delta"


@pytest.fixture(autouse=True)
def _no_colour_settings_from_outside(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rich reads FORCE_COLOR (a level: 1 is 16 colours), NO_COLOR and TERM when a Console is made;
    the tests here set what they test (another library in the same worker may have set FORCE_COLOR)."""
    for name in ("FORCE_COLOR", "NO_COLOR", "COLORTERM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    _forget_rich_escape_codes()


def _forget_rich_escape_codes() -> None:
    """Rich keeps a combined style (``Style._add``, an lru_cache) with the escape codes of the first
    console that drew it, whatever the next console's colour system: after a 256-colour console in
    the same worker (a CLI test), a truecolor console wrote ``48;5;`` codes. Start each test without them."""
    try:
        from rich.style import Style
    except ImportError:
        return
    add = getattr(Style, "_add", None)
    if add is not None and hasattr(add, "cache_clear"):
        add.cache_clear()


def spans(*pairs: tuple[int, int]) -> list[Chunk]:
    return [
        Chunk.from_span(
            TEXT, i, a, b, Reason.SIZE_LIMIT if b < len(TEXT) else Reason.END_OF_DOCUMENT, boundary=Boundary.WORD
        )
        for i, (a, b) in enumerate(pairs)
    ]


def test_plain_view_marks_starts_ends_overlaps_and_gaps() -> None:
    chunks = spans((0, 11), (6, 16), (17, 22))  # "beta " is in two chunks, "gamma" ends 1, " " is in none
    assert plain_view(TEXT, chunks, "demo").splitlines() == [
        "== demo: 3 chunks over 22 characters ==",
        "[0>alpha [1>beta<0 size limit · word] gamma<1 size limit · word] [2>delta<2 end of document · word]",
    ]
    kinds = [(r.kind, r.text) for r in runs(TEXT, chunks) if r.kind not in ("start", "end")]
    assert kinds == [
        ("band", "alpha "),
        ("overlap", "beta"),
        ("overlap", " "),
        ("band", "gamma"),
        ("plain", " "),
        ("band", "delta"),
    ]
    gap = spans((0, 5), (11, 22))
    assert [r.kind for r in runs(TEXT, gap) if r.text == " beta "] == ["gap"]


def test_hostile_text_is_drawn_not_run() -> None:
    text = "ok \x1b]0;owned\x07 \x1b[2J\r\nnext \u202eevil\x9b\x7f"
    shown = visible(text)
    assert "\x1b" not in shown and "\x07" not in shown and "\u202e" not in shown and "\x9b" not in shown
    assert shown == "ok ␛]0;owned␇ ␛[2J\nnext <RLO>evil<U+009B>␡"
    chunks = chunkviz.chunk(text, "fixed_chars", chunk_size=8, overlap=2)
    out = io.StringIO()
    Console = pytest.importorskip("rich.console").Console

    Console(file=out, force_terminal=True, color_system="truecolor", width=40).print(rich_view(text, chunks, "x"))
    assert "\x1b]" not in out.getvalue() and "\x1b[2J" not in out.getvalue() and "\u202e" not in out.getvalue()


def test_names_are_shown_not_run() -> None:
    """A file name is printed on one line: every control character pictured (tab and line feed
    too), bidirectional controls named, undecodable bytes (lone surrogates) as code points."""
    assert visible_name("c\x1b[31m\x07\t\n\u202e\udcff.jsonl") == "c␛[31m␇␉␊<RLO><U+DCFF>.jsonl"
    assert visible_name("plain näme.md") == "plain näme.md"


def test_colours_on_a_forced_terminal_and_width() -> None:
    rich = pytest.importorskip("rich.console")
    chunks = spans((0, 11), (6, 16), (16, 22))
    out = io.StringIO()
    rich.Console(file=out, force_terminal=True, color_system="truecolor", width=30).print(
        rich_view(TEXT, chunks, "demo")
    )
    coloured = out.getvalue()
    assert "\x1b[" in coloured and "48;2;" in coloured  # truecolor backgrounds
    plain = ANSI.sub("", coloured)
    assert all(len(line) <= 30 for line in plain.splitlines())
    assert "◀0 size limit · word" in plain.replace("\n", "")
    piped = io.StringIO()
    rich.Console(file=piped, width=30).print(rich_view(TEXT, chunks, "demo"))  # not a terminal: rich writes no colour
    assert "\x1b" not in piped.getvalue()


@settings(max_examples=examples(40), **SETTINGS)
@given(text=any_text())
def test_plain_view_without_markers_is_the_visible_text(text: str) -> None:
    """Taking every marker out of the plain view gives the document (made visible) back."""
    chunks = chunkviz.chunk(text, "fixed_chars", chunk_size=5, overlap=1) if text else []
    body = "".join(visible(r.text, r.following) for r in runs(text, chunks) if r.kind not in ("start", "end"))
    assert body == visible(text)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def doc(tmp_path: Path) -> Path:
    path = tmp_path / "doc.txt"
    path.write_text(TEXT, encoding="utf-8")
    return path


def test_show_piped_is_plain(capsys: pytest.CaptureFixture[str], doc: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    code, out, err = run(capsys, "show", str(doc), "-s", "fixed_chars", "-p", "chunk_size=11", "-p", "overlap=5")
    assert code == 0, err
    assert "\x1b" not in out
    assert out.splitlines()[1].startswith("[0>alpha [1>beta<0 size limit")


def test_show_forced_colour_and_no_color(
    capsys: pytest.CaptureFixture[str], doc: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("rich")
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("FORCE_COLOR", "1")
    code, out, err = run(
        capsys, "show", str(doc), "-s", "fixed_chars", "-p", "chunk_size=11", "-p", "overlap=5", "--width", "40"
    )
    assert code == 0, err
    assert "\x1b[" in out and all(len(line) <= 40 for line in ANSI.sub("", out).splitlines())
    code, out, err = run(
        capsys, "show", str(doc), "-s", "fixed_chars", "-p", "chunk_size=11", "-p", "overlap=0", "--no-color"
    )
    assert code == 0 and "\x1b" not in out


def test_show_your_chunks_with_their_audit(capsys: pytest.CaptureFixture[str], doc: Path, tmp_path: Path) -> None:
    chunks = tmp_path / "c.jsonl"
    rows = [("alpha beta", 0), ("gamma delta", -1)]
    chunks.write_text("".join(json.dumps({"page_content": t, "metadata": {"start_index": s}}) + "\n" for t, s in rows))
    code, out, err = run(capsys, "show", str(doc), "--chunks", str(chunks), "--no-color")
    assert code == 0, err
    assert out.splitlines() == [
        f"== your chunks ({chunks}): 2 chunks over 22 characters · audit: 1 misplaced chunk ==",
        "[0>alpha beta<0 cut at word] [1>gamma delta<1 cut at document end · misplaced]",
    ]


def test_show_prints_a_hostile_chunk_file_name_escaped(
    capsys: pytest.CaptureFixture[str], doc: Path, tmp_path: Path
) -> None:
    """The name of the chunk file is in the view's title: an ESC or a BEL in it is pictured."""
    chunks = tmp_path / "c\x1b[31m\x07.jsonl"
    chunks.write_text(json.dumps({"page_content": "alpha beta", "metadata": {"start_index": 0}}) + "\n")
    code, out, err = run(capsys, "show", str(doc), "--chunks", str(chunks), "--no-color")
    assert code == 0, err
    assert "\x1b" not in out + err and "\x07" not in out + err
    assert out.splitlines()[0].startswith(f"== your chunks ({tmp_path}/c␛[31m␇.jsonl): 1 chunks")
