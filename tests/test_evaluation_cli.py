"""``chunkviz eval``: configurations, the sweep, the table, JSON and clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkviz.cli import commands as cli
from chunkviz.evaluation.evaluate import Configuration
from chunkviz.evaluation.report import SweepError, configurations, parse_sweep, swept_param
from chunkviz.semantic import embedcache

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "chunkviz/sample_docs"
SAMPLE_FILES = sorted(p for p in SAMPLES.iterdir() if p.is_file() and p.name != "README.md")


@pytest.fixture(autouse=True)
def shared_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """One embedding cache for this module's runs (the same chunks are embedded once)."""
    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "eval-cache"))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(["eval", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_sweep_parsing_and_configurations() -> None:
    assert parse_sweep("chunk_size=128,256, 512") == ("chunk_size", [128, 256, 512])
    assert parse_sweep("similarity=0.5,0.7") == ("similarity", [0.5, 0.7])
    for bad in ("chunk_size", "=1,2", "chunk_size="):
        with pytest.raises(SweepError, match="NAME=V1,V2"):
            parse_sweep(bad)
    # a strategy without the swept name sweeps its declared size
    assert swept_param("paragraphs", "chunk_size") == "max_tokens"
    assert swept_param("recursive", "chunk_size") == "chunk_size"
    with pytest.raises(SweepError, match="no size parameter"):
        swept_param("semantic", "chunk_size")
    got = configurations(["recursive", "paragraphs"], {}, "cl100k_base", ("chunk_size", [64, 128]))
    assert got == [
        Configuration("recursive", {"chunk_size": 64}), Configuration("recursive", {"chunk_size": 128}),
        Configuration("paragraphs", {"max_tokens": 64}), Configuration("paragraphs", {"max_tokens": 128}),
    ]  # fmt: skip
    assert [c.label() for c in got[:1]] == ["recursive(chunk_size=64)"]


def test_a_sweep_of_an_unknown_name_is_refused_listing_the_valid_ones(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 36 item 13: ``--sweep ovrlap=8,16`` (a typo) swept chunk_size at 8 and 16 without a
    word; only the names of sizes stand for another strategy's size."""
    with pytest.raises(SweepError) as refused:
        swept_param("recursive", "ovrlap")
    assert str(refused.value) == (
        "--sweep ovrlap: recursive has no parameter 'ovrlap'; choose one of: chunk_size, overlap, separators, "
        "or a size name (chunk_size, max_tokens, child_size) to sweep its chunk_size"
    )
    with pytest.raises(
        SweepError, match="paragraphs has no parameter 'overlap'; choose one of: min_tokens, max_tokens"
    ):
        configurations(["recursive", "paragraphs"], {}, "cl100k_base", ("overlap", [8, 16]))
    assert swept_param("fixed_tokens", "max_tokens") == "chunk_size"  # a size name: the strategy's size
    questions = SAMPLES / "questions" / "topic_shifts.jsonl"
    code, out, err = run(
        capsys, str(SAMPLES / "topic_shifts.txt"), "--questions", str(questions), "--sweep", "ovrlap=8,16"
    )
    assert (code, out) == (2, "")
    assert err.strip().splitlines() == [f"chunkviz: error: {refused.value}"]


@pytest.mark.slow
def test_table_and_json_for_a_sweep(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc, questions = SAMPLES / "topic_shifts.txt", SAMPLES / "questions" / "topic_shifts.jsonl"
    # nothing embedded yet, whatever ran before in this process: the progress lines below are certain
    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", str(tmp_path / "cache"))
    embedcache.clear_memory()
    out_json = tmp_path / "scores.json"
    code, out, err = run(capsys, str(doc), "--questions", str(questions), "-s", "recursive", "-s", "paragraphs",
                         "--sweep", "chunk_size=64,128", "--k", "3", "--json", str(out_json))  # fmt: skip
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("26 questions on 1 document(s), top 3 chunks each")
    assert lines[1].split()[:3] == ["configuration", "chunks", "mean"]
    blank = lines.index("")
    labels = [line.split()[0] for line in lines[3:blank]]
    # after the table, what the question file says about itself
    assert lines[blank + 1].startswith("question set: 26 questions; 0 with overlapping references;")
    assert lines[blank + 2].startswith("question words found in their references: 40% on average")
    assert labels == [
        "recursive(chunk_size=64)",
        "recursive(chunk_size=128)",
        "paragraphs(max_tokens=64)",
        "paragraphs(max_tokens=128)",
    ]
    assert "embedding questions" in err  # progress goes to stderr
    data = json.loads(out_json.read_text())
    assert [d["label"] for d in data] == labels and all(d["k"] == 3 and len(d["questions"]) == 26 for d in data)
    # the table shows the JSON's numbers
    recall = data[0]["summary"]["recall"]
    assert f"{100 * recall['mean']:.1f} ± {100 * recall['std']:.1f}" in lines[3]


@pytest.mark.slow
@pytest.mark.parametrize("document", SAMPLE_FILES, ids=lambda p: p.name)
def test_every_sample_runs_with_its_questions(capsys: pytest.CaptureFixture[str], document: Path) -> None:
    questions = SAMPLES / "questions" / f"{document.stem}.jsonl"
    code, out, err = run(capsys, str(document), "--questions", str(questions), "--json", "-")
    assert code == 0, err
    (result,) = json.loads(out)
    assert result["strategy"] == "recursive" and len(result["questions"]) >= 20
    assert 0.0 <= result["summary"]["recall"]["mean"] <= 1.0
    # written for these documents: the default chunking finds most answers in its top 5
    assert result["summary"]["recall_at_k"]["mean"] >= 0.5


def test_errors_are_clear_and_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    doc = SAMPLES / "topic_shifts.txt"
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"question": "fine?", "references": [{"excerpt": "Roasting coffee"}]}\n{not json\n', encoding="utf-8"
    )
    code, _, err = run(capsys, str(doc), "--questions", str(bad))
    assert code == 2 and "line 2" in err and "bad.jsonl" in err
    code, _, err = run(
        capsys, str(doc), "--questions", str(SAMPLES / "questions" / "topic_shifts.jsonl"), "--sweep", "chunk_size"
    )
    assert code == 2 and "NAME=V1,V2" in err
    code, _, err = run(capsys, str(doc), "--questions", str(SAMPLES / "questions" / "topic_shifts.jsonl"), "--k", "0")
    assert code == 2 and "--k must be at least 1" in err
    code, _, err = run(capsys, str(doc), "--questions", str(SAMPLES / "questions" / "topic_shifts.jsonl"), "-s", "nope")
    assert code == 2 and "nope" in err
    embedcache.clear_memory()


@pytest.mark.slow
def test_first_find_placement_scores_a_repeated_paragraph_at_its_first_copy(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    text = "The gauge reads tides.\n\nThe gauge reads tides.\n\nCoffee is brewed at dawn by the cook."
    doc = tmp_path / "repeat.txt"
    doc.write_text(text, encoding="utf-8")
    second = text.index("The gauge", 1)
    questions = tmp_path / "q.jsonl"
    questions.write_text(
        json.dumps(
            {
                "question": "What does the gauge read?",
                "references": [
                    {"document": "repeat.txt", "start": second, "end": second + len("The gauge reads tides.")}
                ],
            }
        )
        + "\n",
        encoding="utf-8",
    )
    spans = {}
    for placement in ("exact", "first_find"):
        code, out, err = run(capsys, str(doc), "--questions", str(questions), "-s", "paragraphs", "-p", "min_tokens=0",
                             "--k", "3", "--placement", placement, "--json", "-")  # fmt: skip
        assert code == 0, err
        (result,) = json.loads(out)
        assert result["placement"] == placement
        spans[placement] = sorted((r["start"], r["end"]) for r in result["questions"][0]["retrieved"])
        recall = result["questions"][0]["scores"]["recall"]
        assert recall == (1.0 if placement == "exact" else 0.0)
    assert spans["exact"] == [(0, second), (second, 2 * second), (2 * second, len(text))]
    # both copies at the first; the last chunk loses its final period, as in Chroma's placement
    assert spans["first_find"] == [(0, second), (0, second), (2 * second, len(text) - 1)]
