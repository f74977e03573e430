"""Progress that reads well everywhere (chunkviz.cli.progress): whole lines in a log, a rich
bar on a terminal, and ``chunkviz eval ... 2> log.txt`` leaves whole lines."""

from __future__ import annotations

import io
import sys
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from chunkviz.cli.commands import main
from chunkviz.cli.progress import Progress
from chunkviz.semantic import embedcache

SAMPLES = Path(__file__).resolve().parent.parent / "chunkviz" / "sample_docs"


def test_a_log_gets_a_whole_line_per_interval_and_one_when_a_task_completes() -> None:
    now = [0.0]
    stream = io.StringIO()
    progress = Progress(stream, clock=lambda: now[0], log_interval=10.0)
    progress.start("embedding questions", 100, unit="texts")
    for step in range(1, 101):  # 100 texts over 50 seconds
        now[0] = step / 2
        progress.update("embedding questions", step, 100, unit="texts")
    progress.update("embedding questions", 100, 100, unit="texts")  # the same state again: no second line
    progress.note("skipped b.txt: empty")
    progress.close()
    assert stream.getvalue().splitlines() == [
        "embedding questions: 20/100 texts · 2.0 texts/s · ETA 0:40",
        "embedding questions: 40/100 texts · 2.0 texts/s · ETA 0:30",
        "embedding questions: 60/100 texts · 2.0 texts/s · ETA 0:20",
        "embedding questions: 80/100 texts · 2.0 texts/s · ETA 0:10",
        "embedding questions: 100/100 texts · 2.0 texts/s · done in 0:50",
        "skipped b.txt: empty",
    ]
    assert "\r" not in stream.getvalue() and "\x1b" not in stream.getvalue()


def test_a_terminal_gets_richs_bar_with_rate_and_time_left() -> None:
    pytest.importorskip("rich")
    stream = io.StringIO()
    with Progress(stream, bar=True) as progress:
        progress.update("embedding questions", 3, 10, unit="texts")
        bar = progress._rich
        (task,) = bar.tasks
        assert (task.description, task.completed, task.total, task.fields["unit"]) == (
            "embedding questions",
            3,
            10,
            "texts",
        )
        columns = [type(c).__name__ for c in bar.columns]
        assert {"BarColumn", "MofNCompleteColumn", "_Rate", "TimeRemainingColumn"} <= set(columns)


def test_nothing_is_shown_without_a_stream() -> None:
    progress = Progress(None)
    progress.update("x", 1, 2)
    progress.note("y")
    progress.close()


@pytest.mark.slow
def test_eval_with_stderr_to_a_file_leaves_whole_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", str(tmp_path / "cache"))  # nothing cached: the embedding runs
    embedcache.clear_memory()
    log = tmp_path / "log.txt"
    args = [
        "eval", str(SAMPLES / "api_guide.md"), "--questions", str(SAMPLES / "questions" / "api_guide.jsonl"),
        "-p", "chunk_size=64",
    ]  # fmt: skip
    with log.open("w", encoding="utf-8") as stderr, redirect_stdout(io.StringIO()):
        monkeypatch.setattr(sys, "stderr", stderr)
        assert main(args) == 0
    text = log.read_text(encoding="utf-8")
    assert "\r" not in text and "\x1b" not in text
    assert text.endswith("\n")
    lines = text.splitlines()
    assert any(line.startswith("embedding questions: 27/27 texts") for line in lines), lines
    assert any(line.startswith("embedding recursive(chunk_size=64): ") and "done in" in line for line in lines), lines
