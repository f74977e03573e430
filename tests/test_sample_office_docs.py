"""The deck and the workbook among the samples (issue 40 item 3): written by
scripts/make_office_samples.py (the files are its output, byte for byte), and each shows what a
structure-aware strategy does that fixed windows cannot."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

import chunkviz
from chunkviz.core.vocabulary import Boundary
from chunkviz.document.read import read_path

pytest.importorskip("pptx")
pytest.importorskip("openpyxl")
REPO = Path(__file__).resolve().parent.parent
DECK = REPO / "chunkviz/sample_docs/volunteer_briefing.pptx"
WORKBOOK = REPO / "chunkviz/sample_docs/station_log.xlsx"


def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_office_samples", REPO / "scripts/make_office_samples.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_samples_are_the_scripts_output() -> None:
    make = generator()
    assert DECK.read_bytes() == make.with_fixed_times(make.make_deck())
    assert WORKBOOK.read_bytes() == make.with_fixed_times(make.make_workbook())


def test_the_deck_is_one_chunk_per_slide_by_headings_and_fixed_windows_mix_slides() -> None:
    document = read_path(DECK)
    slides = chunkviz.chunk(document, "headings")
    assert [c.text.split("\n", 1)[0] for c in slides] == [
        f"# Slide {n}: {t}" for n, (t, _, _) in enumerate(generator().SLIDES, 1)
    ]
    assert {c.boundary for c in slides} == {Boundary.SECTION, Boundary.DOCUMENT_END}
    windows = chunkviz.chunk(document, "fixed_tokens", chunk_size=100, overlap=0)
    assert any(c.text.count("# Slide") > 1 for c in windows)  # one window holds the end of a slide and the next
    assert any(c.boundary in (Boundary.WORD, Boundary.INSIDE_WORD) for c in windows[:-1])  # cut inside a bullet


def test_the_workbook_keeps_rows_whole_with_their_header_and_fixed_windows_cut_rows() -> None:
    document = read_path(WORKBOOK)
    groups = [c for c in chunkviz.chunk(document, "tables", rows_per_chunk=5) if c.metadata.get("kind") == "table"]
    text = document.text
    headers = {
        "Stations": "| Station | River | Sensors | Installed | Status |\n| --- | --- | --- | --- | --- |\n",
        "Service visits": "| Date | Station | Volunteer | Work done | Hours |\n| --- | --- | --- | --- | --- |\n",
        "Spare parts": "| Part | Supplier | Unit cost (GBP) | In stock | Used for |\n| --- | --- | --- | --- | --- |\n",
    }
    for chunk in groups:
        assert text[chunk.start - 1] == "\n" and text[chunk.end - 1] == "\n"  # whole rows
        sheet = document.structure.heading_path_at(chunk.start)[-1]
        if chunk.added_text:  # every group after a sheet's first repeats that sheet's header
            assert chunk.added_text == headers[sheet]
        else:
            assert chunk.text.startswith(headers[sheet])
    # at most 5 rows a group, fewer where 5 would pass the strategy's max_tokens (the visits' rows are long)
    assert [tuple(c.metadata["rows"]) for c in groups] == [
        (1, 4), (5, 8), (9, 12), (1, 3), (4, 6), (7, 9), (10, 12), (13, 15), (1, 4), (5, 6)
    ]  # fmt: skip
    windows = chunkviz.chunk(document, "fixed_tokens", chunk_size=100, overlap=0)
    assert any(c.boundary not in (Boundary.LINE, Boundary.SECTION, Boundary.PARAGRAPH) for c in windows[:-1])
