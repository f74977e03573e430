"""``chunkviz tune``: exit codes, what a bad setting says, the tables, the command that reproduces
the choice, and its chunkviz.json (read back by --config). The stand-in embedder (``fake_model``)
keeps it fast."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_evaluation_tune import encode_words

from chunkviz.cli import commands as cli
from chunkviz.evaluation import evaluate as evaluate_module
from chunkviz.evaluation.config import load_config

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "chunkviz/sample_docs"
DOC = SAMPLES / "topic_shifts.txt"
QUESTIONS = SAMPLES / "questions" / "topic_shifts.jsonl"


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", str(tmp_path / "cache"))


WORDS = "tests/words"


@pytest.fixture
def fake_model(monkeypatch: pytest.MonkeyPatch) -> str:
    """A model name whose encoder is the bag of words of test_evaluation_tune (no model loaded)."""
    real = evaluate_module.default_encoder
    monkeypatch.setattr(
        evaluate_module,
        "default_encoder",
        lambda name, role="passage": encode_words if name == WORDS else real(name, role),
    )
    return WORDS


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(["tune", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_best_configuration_its_command_and_its_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_model: str
) -> None:
    target, plot, study = tmp_path / "chunkviz.json", tmp_path / "frontier.html", tmp_path / "study.json"
    code, out, err = run(
        capsys, str(DOC), "--questions", str(QUESTIONS), "--strategies", "recursive,fixed_tokens",
        "--retrievers", "dense,bm25", "--budget", "3", "--sizes", "32,128", "--model", fake_model,
        "--maximise", "iou", "--subject-to", "recall>=0.1", "-o", str(target), "--plot", str(plot), "--json", str(study),
    )  # fmt: skip
    assert code == 0, err
    assert "chunking 1/3" in err and "ETA" in err and "3 chunkings embedded and scored in" in err
    lines = out.splitlines()
    assert lines[0].startswith("26 questions on 1 document(s), top 5 chunks each; 3 chunkings (budget 3)")
    assert "Frontier, recall against IoU (dense):" in lines and "Frontier, recall against IoU (bm25):" in lines
    assert "Frontier, recall against tokens retrieved per question (all retrievers):" in lines
    best = next(line for line in lines if line.startswith("Best (maximise IoU subject to recall>=10%): "))
    command = lines[lines.index("Reproduce it:") + 1].strip()
    assert command.startswith(f"chunkviz eval {DOC} --questions {QUESTIONS} -s ")
    # the file holds the chosen configuration, and chunkviz reads it back
    config = load_config(target)
    (column,) = config.columns
    assert best.split(": ", 1)[1].startswith(f"{column.strategy}(")
    for name, value in column.params.items():
        if name != "separators":
            assert f"-p {name}={value}" in command
    assert config.tokenizer == "cl100k_base"
    assert config.retrieval is not None
    assert f"with {config.retrieval.retriever} retrieval · " in best
    # the command evaluates the same configuration: its IoU is the one tune reported
    argv = command.split()[2:] + ["--model", fake_model, "--json", "-"]
    assert cli.main(["eval", *argv]) == 0
    (result,) = json.loads(capsys.readouterr().out)
    iou = float(best.split(", IoU ")[1].split(",")[0])
    assert 100 * result["summary"]["iou"]["mean"] == pytest.approx(iou, abs=0.051)
    assert "<html>" in plot.read_text(encoding="utf-8")[:200].lower()
    data = json.loads(study.read_text(encoding="utf-8"))
    assert data["chunkings"] == 3 and len(data["points"]) == 6


def test_no_configuration_meets_the_constraint_exit_1_nothing_written(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_model: str
) -> None:
    target = tmp_path / "chunkviz.json"
    code, out, err = run(
        capsys, str(DOC), "--questions", str(QUESTIONS), "--strategies", "recursive", "--retrievers", "dense",
        "--budget", "1", "--sizes", "64", "--model", fake_model, "--subject-to", "recall>=1,iou>=0.99", "-o", str(target),
    )  # fmt: skip
    assert code == 1, err
    assert "No configuration tried meets recall>=100%, iou>=99%." in out
    # issue 36 item 14: what the search reached, plainly (the same configuration's scores as the table's)
    assert (
        "Best reached: recall 73.9% (recursive(chunk_size=64, overlap=0) with dense retrieval); "
        "IoU 6.1% (recursive(chunk_size=64, overlap=0) with dense retrieval)."
    ) in out.splitlines()
    assert "Closest: recursive(chunk_size=64, overlap=0) with dense retrieval · recall 73.9, IoU 6.1," in out
    assert not target.exists()


def test_sizes_out_of_the_strategys_range_are_refused_before_any_work(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_model: str
) -> None:
    """Issue 36 item 14: --sizes 200000 printed empty tables and "No configuration tried meets .", exit 1;
    a size out of one strategy's range left that strategy out without a word."""
    target = tmp_path / "chunkviz.json"
    code, out, err = run(
        capsys, str(DOC), "--questions", str(QUESTIONS), "--strategies", "fixed_chars,recursive",
        "--sizes", "64,200000", "--model", fake_model, "-o", str(target),
    )  # fmt: skip
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        "chunkviz: error: --sizes '64,200000': size 200,000 is outside the range of recursive's chunk_size, "
        "1 to 100,000; give sizes from 1 to 100,000"
    ]
    assert not target.exists()


def test_when_no_configuration_can_be_evaluated_one_line_says_why(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Every chunking failed (here the model cannot load): no empty tables, no "meets ." line."""
    code, out, err = run(
        capsys, str(DOC), "--questions", str(QUESTIONS), "--strategies", "recursive", "--retrievers", "dense",
        "--budget", "1", "--sizes", "64", "--model", str(tmp_path / "no-model"), "-o", str(tmp_path / "c.json"),
    )  # fmt: skip
    assert (code, out) == (2, "")
    (line,) = [line for line in err.replace("\r", "\n").splitlines() if line.startswith("chunkviz: error:")]
    assert line.startswith(
        "chunkviz: error: no configuration could be evaluated: recursive(chunk_size=64, overlap=0): "
        "cannot load embedding model"
    )
    assert not (tmp_path / "c.json").exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--subject-to", "recall>=80"],
            "constraint 'recall>=80': recall is a fraction from 0 to 1; write recall>=0.8",
        ),
        (["--subject-to", "recall"], "constraint 'recall': write it as METRIC>=VALUE, e.g. recall>=0.8"),
        (["--maximise", "speed"], "unknown metric 'speed'; choose one of recall, precision"),
        (["--budget", "0"], "--budget must be at least 1"),
        (["--retrievers", "dense,sparse"], "--retrievers: retriever must be one of dense, bm25, hybrid, got 'sparse'"),
        (["--strategies", "llm"], "strategy 'llm' calls a language model"),
        (["--strategies", "nope"], "nope"),
        (["--sizes", "64,big"], "--sizes '64,big': 'big' is not a whole number"),
        (["--k", "0"], "--k must be at least 1"),
    ],
)
def test_bad_settings_exit_2_with_what_to_fix(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, str(DOC), "--questions", str(QUESTIONS), *argv)
    assert code == 2
    assert err.startswith("chunkviz: error: ") and message in err
    assert out == ""


def test_a_bad_question_file_names_its_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "q.jsonl"
    bad.write_text('{"question": "a?", "references": [{"document": "topic_shifts.txt", "excerpt": "nowhere"}]}\n')
    code, _, err = run(capsys, str(DOC), "--questions", str(bad), "--retrievers", "dense")
    assert code == 2
    assert f"{bad}, line 1" in err
