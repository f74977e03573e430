"""The formats of issue 40 (PPTX, XLSX, CSV, EPUB, LaTeX, e-mail) through every surface that reads
documents: ``chunkviz chunk`` (and ``--slide-notes``), ``report``, ``batch``, the notebook's
``chunkviz.show`` and the app's uploader. They all read through ``chunkviz.document.read``; these
tests check that each surface takes the files and says what is wrong with a bad one."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from test_readers_eml import message_bytes
from test_readers_epub import book_bytes
from test_readers_latex import PAPER
from test_readers_sheets import _two_sheets, workbook_bytes
from test_readers_slides import deck_bytes

import chunkviz
from chunkviz.cli import commands as cli
from chunkviz.cli.batch.command import add_batch_arguments, cmd_batch
from chunkviz.core.deadline import RunTimeLimitExceeded, time_limit
from chunkviz.document.read import accepted_formats, read_bytes, read_path

FILES = {
    "talk.pptx": deck_bytes,
    "stations.xlsx": lambda: workbook_bytes(_two_sheets),
    "people.csv": lambda: b"id,name\n1,Ann\n2,Bob\n",
    "river.epub": book_bytes,
    "paper.tex": lambda: PAPER.encode(),
    "readings.eml": message_bytes,
}
FORMAT_OF = {"pptx": "pptx", "xlsx": "xlsx", "csv": "csv", "epub": "epub", "tex": "latex", "eml": "eml"}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("formats")
    for name, make in FILES.items():
        (root / name).write_bytes(make())  # type: ignore[operator]
    return root


@pytest.mark.parametrize("name", sorted(FILES))
def test_chunk_reads_each_format(name: str, folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = folder / name
    assert cli.main(["chunk", str(path), "-s", "headings"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    document = read_path(path)
    assert document.format == FORMAT_OF[name.rsplit(".", 1)[1]]
    assert records and all(r["text"] == document.text[r["start"] : r["end"]] for r in records)
    assert records[0]["start"] == 0 and records[-1]["end"] == len(document.text)


def test_chunk_reads_speaker_notes_when_asked(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["chunk", str(folder / "talk.pptx"), "-s", "headings", "--slide-notes"]) == 0
    out, err = capsys.readouterr()
    assert "Notes: Say this first." in "".join(json.loads(line)["text"] for line in out.splitlines())
    assert "speaker notes not read" not in err
    assert cli.main(["chunk", str(folder / "talk.pptx"), "-s", "headings"]) == 0
    out, err = capsys.readouterr()
    assert (
        "Notes:" not in out
        and "note: speaker notes not read (read them with slide_notes=True, or --slide-notes)" in err
    )


def test_chunk_says_what_a_bad_file_is_and_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    damaged = tmp_path / "cut.xlsx"
    damaged.write_bytes(workbook_bytes(_two_sheets)[:2_000])
    assert cli.main(["chunk", str(damaged), "-s", "headings"]) == 2
    err = capsys.readouterr().err.strip()
    assert "cut.xlsx could not be read as an Excel workbook (XLSX): " in err and "\n" not in err


def test_report_reads_a_deck(folder: Path, tmp_path: Path) -> None:
    out = tmp_path / "talk.html"
    assert cli.main(["report", str(folder / "talk.pptx"), "-s", "headings", "-s", "fixed_tokens", "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert "Slide 2: Results" in page


def test_batch_reads_every_format(folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "chunkviz.json"
    config.write_text(json.dumps({"columns": [{"strategy": "headings", "params": {}}]}), encoding="utf-8")
    parser = argparse.ArgumentParser()
    add_batch_arguments(parser)
    out = tmp_path / "chunks.jsonl"
    args = parser.parse_args([str(folder), "--config", str(config), "--out", str(out), "--workers", "1", "--quiet"])
    assert cmd_batch(args) == 0
    assert "skipped" not in capsys.readouterr().err
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert sorted({Path(r["source"]).name for r in records}) == sorted(FILES)
    for name in FILES:
        text = read_path(folder / name).text
        mine = [r for r in records if Path(r["source"]).name == name]
        assert all(r["text"] == text[r["start"] : r["end"]] for r in mine), name


def test_the_notebook_shows_a_workbook(folder: Path) -> None:
    document = read_path(folder / "stations.xlsx")
    fragment = chunkviz.show(document, "tables", rows_per_chunk=1)._repr_html_()
    assert "Mill Weir" in fragment


def test_the_uploader_names_every_format() -> None:
    assert accepted_formats() == (
        "md, rst, txt, py, js, ts, tsx, go, rs, java, c, cpp, cs, rb, php, html, pdf, docx, pptx, xlsx, epub, csv, tex, eml"
    )


def test_the_app_uploader_takes_a_workbook() -> None:
    pytest.importorskip("streamlit")
    from test_app import DEFAULT_COLUMNS, chunk_views, errors, new_app, upload

    at = new_app()
    at = upload(at, "stations.xlsx", workbook_bytes(_two_sheets), "application/octet-stream")
    assert "pptx, xlsx, epub, csv, tex, eml" in at.file_uploader(key="upload").label
    assert errors(at) == []
    views = chunk_views(at)
    assert sorted(views) == list(range(len(DEFAULT_COLUMNS)))
    assert all(view.chunks for view in views.values())


@pytest.mark.parametrize("name", ["talk.pptx", "stations.xlsx", "river.epub"])
def test_the_apps_time_limit_stops_a_reader_with_its_own_message(name: str, folder: Path) -> None:
    """The readers look at the app's time limit while they read (a fake clock: each look is an
    hour later); the limit's message comes out, not "could not be read as ...: damaged"."""
    hours = iter(range(0, 10**6, 3600))
    with (
        pytest.raises(RunTimeLimitExceeded),
        time_limit(60, "reading", clock=lambda: float(next(hours)), check_every=1),
    ):
        read_bytes((folder / name).read_bytes(), name)
