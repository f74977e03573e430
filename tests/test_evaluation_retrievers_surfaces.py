"""The retrievers outside the engine: ``chunkviz eval --retriever/--fusion/--alpha/--rerank`` and
chunkviz.json's ``retrieval`` (saved, loaded, validated). BM25 needs no embedding model, so the
command runs here without one."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from chunkviz.cli import commands as cli
from chunkviz.diagnostics.compare import ColumnConfig
from chunkviz.evaluation.config import (
    ConfigError,
    Retrieval,
    config_from_columns,
    config_from_dict,
    eval_configurations,
    load_config,
    save_config,
)
from chunkviz.evaluation.evaluate import Configuration
from chunkviz.evaluation.report import SweepError, plain_twins, retrieval_options, variant_options

SAMPLES = Path(__file__).resolve().parent.parent / "chunkviz/sample_docs"
DOC, QUESTIONS = SAMPLES / "topic_shifts.txt", SAMPLES / "questions" / "topic_shifts.jsonl"


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", str(tmp_path / "cache"))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(["eval", str(DOC), "--questions", str(QUESTIONS), *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_eval_bm25_rows_show_the_retriever_in_the_table_and_the_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out_json = tmp_path / "scores.json"
    code, out, err = run(
        capsys, "-s", "paragraphs", "--retriever", "bm25", "--k", "3", "--rerank-candidates", "7", "--json", str(out_json)
    )  # fmt: skip
    assert code == 0, err
    lines = out.splitlines()
    rows = lines[3 : lines.index("")]  # the table, then what the question set says about itself
    assert [row.split("  ")[0] for row in rows] == ["paragraphs [bm25]"]
    data = json.loads(out_json.read_text())
    assert [(d["retriever"], d["fusion"], d["alpha"], d["rerank"]) for d in data] == [("bm25", None, None, None)]
    assert all(len(q["retrieved"]) <= 3 for q in data[0]["questions"])


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--retriever", "sparse"], "--retriever 'sparse': unknown value 'sparse'; choose from dense, bm25, hybrid"),
        (["--retriever", "bm25", "--fusion", "weighted"], "--fusion 'weighted' fuses the hybrid .* --retriever hybrid"),
        (["--retriever", "hybrid", "--fusion", "max"], "choose from rrf, weighted"),
        (["--alpha", "1.5"], "--alpha 1.5: alpha .* from 0 to 1"),
        (["--rerank-candidates", "0"], "--rerank-candidates 0: give a whole number from 1 to 1000"),
        (["--retriever", "bm25", "--rerank", "/no/such/folder"], "no such folder; .* chunkviz ships none"),
    ],
)
def test_eval_retrieval_flags_say_what_to_fix(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, "-s", "paragraphs", *argv)
    assert code == 2
    assert re.search(message, err), err


def test_variant_options_list_the_retrievers_and_fusions() -> None:
    assert variant_options()["retriever"] == ["dense"] and variant_options()["fusion"] == ["rrf"]
    options = variant_options(retriever="hybrid,bm25,hybrid", fusion="weighted,rrf")
    assert options["retriever"] == ["hybrid", "bm25"] and options["fusion"] == ["weighted", "rrf"]
    assert retrieval_options(0.25, "models/ce", 5) == {"alpha": 0.25, "rerank": "models/ce", "rerank_candidates": 5}
    with pytest.raises(SweepError, match="--alpha"):
        retrieval_options(-0.1)


def test_retriever_rows_are_compared_with_their_dense_twin() -> None:
    from chunkviz.evaluation.evaluate import Result

    def result(config: Configuration) -> Result:
        return Result(config, 5, (), (), 0, 0.0)

    dense = Configuration("recursive")
    rows = [result(dense), result(Configuration("recursive", retriever="bm25")),
            result(Configuration("recursive", retriever="hybrid", rerank="ce"))]  # fmt: skip
    assert plain_twins(rows) == [None, 0, 0]


# ----------------------------------------------------------------------------- chunkviz.json
def test_chunkviz_json_saves_and_loads_the_retrieval(tmp_path: Path) -> None:
    retrieval = Retrieval(retriever="hybrid", fusion="weighted", alpha=0.3)
    data = config_from_columns([ColumnConfig("recursive", {"chunk_size": 200, "overlap": 0})], retrieval=retrieval)
    assert data["retrieval"] == {
        "retriever": "hybrid", "fusion": "weighted", "alpha": 0.3, "rerank": None, "rerank_candidates": 20,
    }  # fmt: skip
    path = save_config(data, tmp_path / "chunkviz.json")
    loaded = load_config(path)
    assert loaded.retrieval == retrieval
    (config,) = eval_configurations(loaded)
    assert (config.retriever, config.fusion, config.alpha) == ("hybrid", "weighted", 0.3)
    assert config.label().endswith("[hybrid: weighted alpha=0.3]")
    assert Retrieval.of(config) == retrieval
    # without "retrieval": dense, and nothing written
    plain = config_from_dict({"strategy": "recursive"})
    assert plain.retrieval is None and "retrieval" not in plain.to_dict()
    assert eval_configurations(plain)[0].retriever == "dense"


@pytest.mark.parametrize(
    ("retrieval", "message"),
    [
        ({"retriever": "sparse"}, "retrieval.retriever: retriever must be one of dense, bm25, hybrid"),
        ({"retriever": "hybrid", "fusion": "max"}, "retrieval.fusion: fusion must be one of rrf, weighted"),
        ({"retriever": "hybrid", "fusion": "weighted", "alpha": 2}, "retrieval.alpha: alpha .* from 0 to 1"),
        ({"rerank": "ce", "rerank_candidates": 0}, "retrieval.rerank_candidates: "),
        ({"rerank": 3}, "retrieval.rerank: expected a local cross-encoder folder or null"),
        ({"retriever": 1}, "retrieval.retriever: expected a name, got a number"),
        ({"k": 5}, "retrieval: unknown key\\(s\\) 'k'; allowed: retriever, fusion, alpha, rerank, rerank_candidates"),
        ([], 'retrieval: expected null or an object like {"retriever": "hybrid"}, got a list'),
    ],
)
def test_a_bad_retrieval_in_chunkviz_json_names_the_field(retrieval: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        config_from_dict({"strategy": "recursive", "retrieval": retrieval})


def test_one_retrieval_settings_type_for_chunkviz_json_and_the_evaluation() -> None:
    from chunkviz.evaluation.evaluate import Configuration
    from chunkviz.evaluation.retrievers import RetrievalSettings

    assert Retrieval is RetrievalSettings and issubclass(Configuration, RetrievalSettings)
    config = Configuration("recursive", {"chunk_size": 200}, retriever="hybrid", fusion="weighted", alpha=0.2)
    assert RetrievalSettings.of(config) == Retrieval(retriever="hybrid", fusion="weighted", alpha=0.2)
    # one normalization: settings that do not apply take their defaults, in both
    for settings in (Retrieval(retriever="bm25", fusion="weighted", alpha=0.2), Configuration("recursive", retriever="bm25", fusion="weighted", alpha=0.2)):  # fmt: skip
        assert (settings.fusion, settings.alpha, settings.rerank_candidates) == ("rrf", 0.5, 20)
    with pytest.raises(ValueError, match="rerank must be a local cross-encoder folder"):
        Retrieval(rerank=" ")
