"""The one guarded run (chunkviz.strategies.guarded): bounds, chunk, count, enrich, with the
parameters validated once, shared by the CLI, batch, the app and the report."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from chunkviz.cli import commands as cli
from chunkviz.core.limits import MAX_CHUNKS, TooManyChunksError
from chunkviz.diagnostics.compare import run_strategy
from chunkviz.document.model import Document
from chunkviz.strategies import base
from chunkviz.strategies.guarded import guarded_run, prepare
from chunkviz.text.tokenizers import get_tokenizer

TEXT = "One two three. Four five six.\n\nSeven eight nine.\n"


@pytest.fixture
def validations(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The parameter sets ``fixed_chars`` validates (a spy on its registered strategy)."""
    seen: list[dict[str, Any]] = []
    spec = base.get_strategy("fixed_chars")

    class Counted(type(spec)):  # type: ignore[misc]  # a subclass of the frozen Strategy that records make_params
        def make_params(self, raw: Any = None) -> Any:
            seen.append(dict(raw or {}))
            return super().make_params(raw)

    counted = Counted(**{f.name: getattr(spec, f.name) for f in dataclasses.fields(spec)})
    monkeypatch.setitem(base._REGISTRY, "fixed_chars", counted)
    return seen


def test_the_app_and_report_run_validates_the_parameters_once(validations: list[dict[str, Any]]) -> None:
    run = run_strategy(TEXT, "fixed_chars", {"chunk_size": 12, "overlap": 0}, "words")
    assert validations == [{"chunk_size": 12, "overlap": 0}]  # three times before
    assert run.params["chunk_size"] == 12 and "overlap" in run.params
    assert "".join(c.text for c in run.chunks) == TEXT


def test_the_cli_run_validates_the_parameters_once(
    validations: list[dict[str, Any]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "doc.txt"
    path.write_text(TEXT, encoding="utf-8")
    assert cli.main(["chunk", str(path), "-s", "fixed_chars", "-p", "chunk_size=12", "-p", "overlap=0"]) == 0
    assert len(validations) == 1 and validations[0].keys() == {"chunk_size", "overlap"}  # twice before
    assert capsys.readouterr().out.count('"text"') == len(
        run_strategy(TEXT, "fixed_chars", {"chunk_size": 12, "overlap": 0}, "cl100k_base").chunks
    )


def test_a_run_over_the_bound_is_refused_before_the_strategy_is_called() -> None:
    called: list[str] = []
    spec = base.get_strategy("fixed_chars")
    spy = dataclasses.replace(spec, function=lambda *a: called.append("chunked") or [])
    with pytest.raises(TooManyChunksError, match="fixed_chars: chunk_size=1 would cut this document"):
        guarded_run(
            Document("x" * (2 * MAX_CHUNKS)), prepare(spy, {"chunk_size": 1, "overlap": 0}), get_tokenizer("chars")
        )
    assert called == []


def test_enrichment_runs_on_a_result_only_and_blank_text_gives_no_chunks() -> None:
    enriched: list[int] = []

    def enrich(document: Document, chunks: Any) -> Any:
        enriched.append(len(chunks))
        return [dataclasses.replace(c, added_text="ctx ") for c in chunks]

    prepared = prepare("fixed_chars", {"chunk_size": 20, "overlap": 0})
    assert guarded_run(Document(" \n\t"), prepared, get_tokenizer("chars"), enrich=enrich).chunks == []
    assert enriched == []
    run = guarded_run(Document(TEXT), prepared, get_tokenizer("chars"), enrich=enrich)
    assert enriched == [len(run.chunks)] and all(c.added_text == "ctx " for c in run.chunks)
    assert [c.text for c in run.chunks] == [TEXT[c.start : c.end] for c in run.chunks]
