"""A new strategy is ONE definition: registered here, inside the test suite, and picked up by the
CLI, the Python API, the diagnostics and the app's generated controls without any other edit."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest
from streamlit.testing.v1 import AppTest

import chunkviz
from chunkviz.cli import commands as cli
from chunkviz.core.types import Chunk
from chunkviz.core.vocabulary import Reason
from chunkviz.diagnostics import diagnose
from chunkviz.diagnostics.compare import chunk_table, run_strategy
from chunkviz.document.model import Document
from chunkviz.splitting import Piece, to_chunks
from chunkviz.strategies.base import get_strategy, param, temporary_strategy
from chunkviz.text.tokenizers import Tokenizer

NAME = "token_windows_test"
TAG_PRESETS = {"none": [], "science": ["field", "station"]}
TEXT = " ".join(f"word{i}" for i in range(60)) + "\n"


# ----------------------------------------------------------------------------- the one definition


@dataclass(frozen=True)
class TokenWindowParams:
    size: int = param(10, "tokens per window", minimum=2, maximum=10_000)
    overlap: int = param(3, "tokens shared by adjacent windows", minimum=0, maximum=10_000, overlap_unit="tokens")
    tags: str | list[str] = param("none", "words to tag chunks with: a preset or a list", presets=TAG_PRESETS)

    def __post_init__(self) -> None:
        if self.overlap >= self.size:
            raise chunkviz.InvalidParamError(NAME, "overlap", f"must be smaller than size ({self.size})")


def token_windows(document: Document, params: TokenWindowParams, tokenizer: Tokenizer) -> list[Chunk]:
    text = document.text
    positions = tokenizer.boundaries(text).positions
    n = len(positions) - 1
    tags = TAG_PRESETS[params.tags] if isinstance(params.tags, str) else params.tags
    pieces = []
    for first in range(0, max(n - params.overlap, 1), params.size - params.overlap):
        stop = min(first + params.size, n)
        start = 0 if first == 0 else int(positions[first])
        end = len(text) if stop == n else int(positions[stop])
        found = [t for t in tags if t in text[start:end]]
        pieces.append(Piece(start, end, Reason.SIZE_LIMIT, metadata={"tags": found}))
        if stop == n:
            break
    return to_chunks(document, pieces)


@pytest.fixture(autouse=True)
def registered_strategy() -> Iterator[None]:
    with temporary_strategy(
        NAME, "Windows of size tokens (a strategy defined in a test).", TokenWindowParams, token_windows
    ):
        yield


@pytest.fixture
def doc_path(tmp_path: Path) -> Path:
    path = tmp_path / "words.txt"
    path.write_text(TEXT, encoding="utf-8")
    return path


# ----------------------------------------------------------------------------- picked up everywhere


def test_python_api_lists_and_runs_it() -> None:
    (described,) = [s for s in chunkviz.strategies() if s["name"] == NAME]
    params = {p["name"]: p for p in described["params"]}
    assert params["overlap"]["overlap_unit"] == "tokens"
    assert params["tags"]["presets"] == TAG_PRESETS
    chunks = chunkviz.chunk(TEXT, NAME, tokenizer="words", size=10, overlap=3)
    assert len(chunks) > 5
    assert all(TEXT[c.start : c.end] == c.text for c in chunks)


def test_params_validate_themselves() -> None:
    with pytest.raises(chunkviz.InvalidParamError, match="size"):
        TokenWindowParams(size=-5, overlap=-10)
    with pytest.raises(chunkviz.InvalidParamError, match="must be smaller than size"):
        chunkviz.chunk(TEXT, NAME, size=4, overlap=4)


def test_cli_strategies_json(capsys) -> None:
    assert cli.main(["strategies", "--json"]) == 0
    described = {s["name"]: s for s in json.loads(capsys.readouterr().out)}
    assert NAME in described
    assert {p["name"] for p in described[NAME]["params"]} == {"size", "overlap", "tags"}


def test_cli_chunk_with_a_list_parameter(capsys, doc_path: Path) -> None:
    code = cli.main(
        ["chunk", str(doc_path), "-s", NAME, "-p", "size=12", "-p", 'tags=["word7"]', "--tokenizer", "words"]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    assert records and all(TEXT[r["start"] : r["end"]] == r["text"] for r in records)
    assert records[0]["metadata"]["tags"] == ["word7"]
    assert {"reason", "boundary"} <= set(records[0])
    code = cli.main(["chunk", str(doc_path), "-s", NAME, "-p", "size=1"])
    assert code == 2 and "size" in capsys.readouterr().err


def test_diagnostics_compare_configured_and_actual_overlap() -> None:
    chunks = chunkviz.chunk(TEXT, NAME, tokenizer="words", size=10, overlap=3)
    report = diagnose(
        TEXT, chunks, tokenizer="words", strategy=NAME, params={"size": 10, "overlap": 3}, embedding_tokenizer=None
    )
    assert (report.overlap.configured, report.overlap.unit) == (3, "tokens")
    assert report.overlap.actual and set(report.overlap.actual) == {3}
    assert report.overlap.mismatches == 0
    defaults = diagnose(
        TEXT, chunkviz.chunk(TEXT, NAME, tokenizer="words"), tokenizer="words", strategy=NAME, embedding_tokenizer=None
    )
    assert defaults.overlap.configured == 3  # the declared default


def test_views_run_it_with_reason_and_boundary() -> None:
    run = run_strategy(TEXT, NAME, {"size": 10}, "words")
    rows = chunk_table(run)
    assert len(rows) == len(run.chunks) and {"reason", "boundary"} <= set(rows[0])


def _controls_script() -> None:
    import streamlit as st

    from chunkviz.strategies.base import get_strategy as lookup
    from chunkviz.ui.widgets import param_controls

    st.session_state["values"] = param_controls("t", lookup("token_windows_test"))


def test_app_controls_are_generated_from_the_declaration() -> None:
    at = AppTest.from_function(_controls_script, default_timeout=60).run()
    assert not at.exception
    assert [w.key for w in at.number_input] == [f"t.{NAME}.size", f"t.{NAME}.overlap"]
    (tags,) = [w for w in at.selectbox if w.key == f"t.{NAME}.tags"]
    assert list(tags.options) == [*TAG_PRESETS, "custom…"]
    tags.set_value("science").run()
    assert at.session_state["values"] == {"tags": "science"}
    [w for w in at.selectbox if w.key == f"t.{NAME}.tags"][0].set_value("custom…").run()
    (custom,) = [w for w in at.text_input if w.key == f"t.{NAME}.tags.custom"]
    custom.set_value('["word3", "word4"]').run()
    assert at.session_state["values"] == {"tags": ["word3", "word4"]}
    assert get_strategy(NAME).make_params(at.session_state["values"]).tags == ["word3", "word4"]
