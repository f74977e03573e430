"""Query rewriting and HyDE (chunkviz.llm.queries) against the loopback server: exact texts,
calls counted at the server (a second run makes none), the playground's side-by-side helpers,
the evaluation engine's query modes and ``chunkviz eval --query``."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from support.llm import LoopbackLLM, Reply, fast_settings

from chunkviz import chunk
from chunkviz.evaluation.evaluate import (
    Configuration,
    evaluate,
    results_json,
    with_variants,
)
from chunkviz.evaluation.metrics import DocumentSpan
from chunkviz.evaluation.playground import (
    answer_scores,
    query_variants,
    search_variants,
    variant_label,
    variant_rows,
)
from chunkviz.evaluation.report import deltas, table
from chunkviz.llm import LLMClient, LLMNotConfigured, LLMSettings, use_llm
from chunkviz.llm.cache import clear_memory
from chunkviz.llm.queries import (
    HYDE_PROMPT,
    REWRITE_PROMPT,
    clean_answer,
    estimate_queries,
    hypothetical_passage,
    query_texts,
    rewrite_query,
)
from chunkviz.semantic import embedcache

VOCABULARY = ["coffee", "roast", "beans", "tide", "turbine", "barrage", "binding", "quire", "leather", "cover"]
TEXT = (
    "Coffee roast notes. The beans crack when the roast is done.\n\n"
    "Tide power uses a turbine. A barrage holds the tide back.\n\n"
    "Book binding starts with a quire. The binding is covered in leather.\n"
)
QUESTION = "what protects a volume from wear"  # no word of the vocabulary: the raw query finds nothing
ANSWER = "The binding is covered in leather."
encoded: list[str] = []


def encode_words(texts: Sequence[str], progress: Any = None) -> np.ndarray:
    """A bag of words over VOCABULARY (plus a constant so no vector is zero)."""
    encoded.extend(texts)
    rows = []
    for text in texts:
        words = re.findall(r"[a-z]+", text.lower())
        rows.append([sum(w.startswith(v) for w in words) for v in VOCABULARY] + [0.01])
    return np.asarray(rows, dtype=np.float32)


def answers(request: dict[str, Any]) -> Reply:
    """Rewrites and passages about book binding, labelled and quoted as models often do."""
    user = request["messages"][-1]["content"]
    query = re.search(r"^(?:Query|Question): (.*)$", user, re.MULTILINE).group(1)
    if user.startswith("Rewrite the following search query"):
        return Reply(f'Rewritten query: "Which cover material protects the binding? ({len(query)})"')
    return Reply(f"Passage: The binding of a volume ({len(query)}) is covered in leather.\n")


@pytest.fixture(autouse=True)
def _fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", str(tmp_path / "cache"))
    clear_memory()
    embedcache.clear_memory()
    encoded.clear()


@pytest.fixture
def client(llm_server: LoopbackLLM, tmp_path: Path) -> LLMClient:
    llm_server.reset(answers)
    return LLMClient(fast_settings(llm_server), tmp_path / "llm")


def test_clean_answer_drops_labels_quotes_and_extra_whitespace() -> None:
    assert clean_answer('Rewritten query: "How long do tokens last?"') == "How long do tokens last?"
    assert clean_answer("“passage: a  b\n c”") == "passage: a b c"  # the label is only removed at the start
    assert clean_answer("Passage:\n  Tokens expire after an hour. ") == "Tokens expire after an hour."
    assert clean_answer("'x'") == "x"
    assert clean_answer('""') == ""


def test_raw_queries_need_no_client_and_no_call(llm_server: LoopbackLLM) -> None:
    assert query_texts(None, ["a", "b"], "raw") == ["a", "b"]
    assert llm_server.calls == 0
    with pytest.raises(ValueError, match="query mode must be one of raw, rewrite, hyde"):
        query_texts(None, ["a"], "expand")


def test_rewrites_and_passages_are_cached_per_query(client: LLMClient, llm_server: LoopbackLLM, tmp_path: Path) -> None:
    queries = ["how long is a session", "who signs the contract", "how long is a session"]
    assert estimate_queries(client, queries, "rewrite").calls == 2  # the repeated query is asked once
    assert query_texts(client, queries, "rewrite") == [
        "Which cover material protects the binding? (21)",
        "Which cover material protects the binding? (22)",
        "Which cover material protects the binding? (21)",
    ]
    assert query_texts(client, queries, "hyde") == [
        "The binding of a volume (21) is covered in leather.",
        "The binding of a volume (22) is covered in leather.",
        "The binding of a volume (21) is covered in leather.",
    ]
    assert llm_server.calls == 4
    prompts = [r["messages"][0]["content"] for r in llm_server.requests]
    assert sorted(prompts) == sorted([REWRITE_PROMPT.system] * 2 + [HYDE_PROMPT.system] * 2)
    clear_memory()  # a new process: the disk cache answers
    again = LLMClient(fast_settings(llm_server), tmp_path / "llm")
    assert rewrite_query(again, "who signs the contract") == "Which cover material protects the binding? (22)"
    assert hypothetical_passage(again, "how long is a session") == "The binding of a volume (21) is covered in leather."
    assert llm_server.calls == 4
    assert (again.stats.made, again.stats.cached) == (0, 2)


def test_the_playground_shows_each_query_mode_with_its_own_hits(client: LLMClient, llm_server: LoopbackLLM) -> None:
    chunks = chunk(TEXT, "paragraphs", min_tokens=1, max_tokens=100)
    assert len(chunks) == 3
    variants = query_variants(QUESTION, ["raw", "rewrite", "hyde", "raw"], "words", encode_words, client)
    assert [(v.mode, v.text) for v in variants] == [
        ("raw", QUESTION),
        ("rewrite", "Which cover material protects the binding? (32)"),
        ("hyde", "The binding of a volume (32) is covered in leather."),
    ]
    assert [variant_label(v.mode) for v in variants] == ["raw query", "rewritten query", "hypothetical passage (HyDE)"]
    hits = search_variants(chunks, False, variants, 1, "words", encode_words)
    # the raw query matches nothing: every chunk ties and the first wins; both LLM texts find the binding
    assert {mode: [(h.index, h.rank) for h in found] for mode, found in hits.items()} == {
        "raw": [(0, 1)],
        "rewrite": [(2, 1)],
        "hyde": [(2, 1)],
    }
    answer = (TEXT.index(ANSWER), TEXT.index(ANSWER) + len(ANSWER))
    recall = {mode: answer_scores(chunks, False, found, answer).recall for mode, found in hits.items()}
    assert recall == {"raw": 0.0, "rewrite": 1.0, "hyde": 1.0}
    scores = {mode: answer_scores(chunks, False, found, answer) for mode, found in hits.items()}
    rows = variant_rows("1. paragraphs", variants, hits, scores)
    assert [(r["column"], r["searched with"], r["top k: rank, chunk, score"], r["recall %"]) for r in rows] == [
        # cosines of bags of words: nothing shared; binding + cover; binding + cover + leather
        ("1. paragraphs · raw query", QUESTION, "#1 chunk 0: 0.00", 0.0),
        (
            "1. paragraphs · rewritten query",
            "Which cover material protects the binding? (32)",
            "#1 chunk 2: 0.80",
            100.0,
        ),
        (
            "1. paragraphs · hypothetical passage (HyDE)",
            "The binding of a volume (32) is covered in leather.",
            "#1 chunk 2: 0.87",
            100.0,
        ),
    ]
    assert llm_server.calls == 2
    query_variants(QUESTION, ["rewrite", "hyde"], "words", encode_words, client)
    assert llm_server.calls == 2  # asked again: from the cache


class Q:
    def __init__(self, question: str, excerpt: str) -> None:
        start = TEXT.index(excerpt)
        self.question = question
        self.references = (DocumentSpan("doc", start, start + len(excerpt)),)


def test_the_evaluation_scores_one_row_per_query_mode(llm_server: LoopbackLLM, tmp_path: Path) -> None:
    llm_server.reset(answers)
    questions = [Q(QUESTION, ANSWER)]
    configs = with_variants(
        [Configuration("paragraphs", {"min_tokens": 1, "max_tokens": 100})], query=["raw", "rewrite", "hyde"]
    )
    assert [c.label() for c in configs] == [
        "paragraphs(max_tokens=100, min_tokens=1)",
        "paragraphs(max_tokens=100, min_tokens=1) [query: rewrite]",
        "paragraphs(max_tokens=100, min_tokens=1) [query: hyde]",
    ]
    announced: list[tuple[str, int]] = []
    with use_llm(
        fast_settings(llm_server),
        cache_dir=tmp_path / "llm",
        on_estimate=lambda what, e: announced.append((what, e.calls)),
    ):
        results = evaluate({"doc": TEXT}, questions, configs, k=1, model="words", encode=encode_words)
    assert [r.scores[0].recall for r in results] == [0.0, 1.0, 1.0]
    assert [r.query_texts for r in results] == [
        (QUESTION,),
        ("Which cover material protects the binding? (32)",),
        ("The binding of a volume (32) is covered in leather.",),
    ]
    assert announced == [("query rewrite of 1 questions", 1), ("query hyde of 1 questions", 1)]
    data = json.loads(results_json(results))
    assert [d["query"] for d in data] == ["raw", "rewrite", "hyde"]
    assert "query_text" not in data[0]["questions"][0]
    assert data[2]["questions"][0]["query_text"] == "The binding of a volume (32) is covered in leather."
    assert llm_server.calls == 2
    # the answer's 34 characters in the 69-character binding paragraph
    gained = {"recall": 100.0, "iou": pytest.approx(100 * 34 / 69), "reciprocal_rank": 100.0}
    assert deltas(results) == [None, gained, gained]
    assert table(results).splitlines()[2:] == [
        "paragraphs(max_tokens=100, min_tokens=1)                        3          63    0.0 ± 0.0   0.0 ± 0.0   49.3 ± 0.0   0.0 ± 0.0"
        "    0.0 ± 0.0    0.0 ± 0.0    0.0 ± 0.0    0.0 ± 0.0         –      –       –",
        "paragraphs(max_tokens=100, min_tokens=1) [query: rewrite]       3          63  100.0 ± 0.0  49.3 ± 0.0   49.3 ± 0.0  49.3 ± 0.0"
        "  100.0 ± 0.0  100.0 ± 0.0  100.0 ± 0.0  100.0 ± 0.0    +100.0  +49.3  +100.0",
        "paragraphs(max_tokens=100, min_tokens=1) [query: hyde]          3          63  100.0 ± 0.0  49.3 ± 0.0   49.3 ± 0.0  49.3 ± 0.0"
        "  100.0 ± 0.0  100.0 ± 0.0  100.0 ± 0.0  100.0 ± 0.0    +100.0  +49.3  +100.0",
    ]
    assert len({len(line) for line in table(results).splitlines()}) == 1
    assert table(results[:1]).splitlines()[0].endswith("MAP")  # no Δ columns without a technique
    clear_memory()
    with use_llm(fast_settings(llm_server), cache_dir=tmp_path / "llm") as session:
        again = evaluate({"doc": TEXT}, questions, configs, k=1, model="words", encode=encode_words)
    assert [r.summary() for r in again] == [r.summary() for r in results]
    assert llm_server.calls == 2 and session.stats.cached == 2


def test_an_llm_query_mode_without_endpoint_fails_before_embedding() -> None:
    configs = [Configuration("paragraphs"), Configuration("paragraphs", query="hyde")]
    with use_llm(LLMSettings()), pytest.raises(LLMNotConfigured, match="no LLM endpoint is configured"):
        evaluate({"doc": TEXT}, [Q(QUESTION, ANSWER)], configs, k=1, model="words", encode=encode_words)
    assert encoded == []
    with pytest.raises(ValueError, match="query mode must be one of raw, rewrite, hyde"):
        Configuration("paragraphs", query="expand")


# ----------------------------------------------------------------------------- the CLI
@pytest.fixture
def eval_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    import chunkviz.evaluation.evaluate as engine

    monkeypatch.setattr(engine, "default_encoder", lambda model, role="passage": encode_words)
    doc = tmp_path / "doc.txt"
    doc.write_text(TEXT, encoding="utf-8")
    questions = tmp_path / "q.jsonl"
    questions.write_text(
        json.dumps({"question": QUESTION, "references": [{"document": "doc.txt", "excerpt": ANSWER}]}) + "\n",
        encoding="utf-8",
    )
    return doc, questions


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    from chunkviz.cli.commands import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_eval_query_modes_side_by_side(
    capsys, llm_endpoint_env: LoopbackLLM, eval_files: tuple[Path, Path]
) -> None:  # noqa: ANN001
    llm_endpoint_env.reset(answers)
    doc, questions = eval_files
    argv = [
        "eval",
        str(doc),
        "--questions",
        str(questions),
        "-s",
        "paragraphs",
        "-p",
        "min_tokens=1",
        "--k",
        "1",
        "--query",
        "rewrite,hyde",
    ]
    code, out, err = run_cli(capsys, *argv)
    assert code == 0, err
    rows = [line.split("  ")[0] for line in out.split("\n\n")[0].splitlines()[3:]]
    assert rows == [
        "paragraphs(min_tokens=1)",
        "paragraphs(min_tokens=1) [query: rewrite]",
        "paragraphs(min_tokens=1) [query: hyde]",
    ]
    recall = [re.split(r"\s{2,}", line)[3] for line in out.split("\n\n")[0].splitlines()[3:]]
    assert recall == ["0.0 ± 0.0", "100.0 ± 0.0", "100.0 ± 0.0"]
    assert "llm: query rewrite of 1 questions: 1 call" in err
    assert "llm: 2 calls made, 0 from the cache" in err
    assert llm_endpoint_env.calls == 2
    clear_memory()
    code, again, err = run_cli(capsys, *argv)
    assert (code, again) == (0, out)
    assert llm_endpoint_env.calls == 2  # the second run asks nothing
    assert "llm: 0 calls made, 2 from the cache" in err


def test_cli_llm_query_without_endpoint_exits_2(
    capsys, eval_files: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:  # noqa: ANN001
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "CHUNKVIZ_LLM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    doc, questions = eval_files
    code, out, err = run_cli(capsys, "eval", str(doc), "--questions", str(questions), "--query", "hyde")
    assert (code, out) == (2, "")
    assert err.startswith("chunkviz: error: no LLM endpoint is configured") and len(err.strip().splitlines()) == 1
    assert "OPENAI_BASE_URL=http://localhost:11434/v1" in err
    assert encoded == []
    code, _, err = run_cli(capsys, "eval", str(doc), "--questions", str(questions), "--query", "hyde,expand")
    assert code == 2
    assert "--query 'hyde,expand': unknown value 'expand'; choose from raw, rewrite, hyde" in err


def test_a_rate_limit_is_waited_out_and_a_failing_server_caches_nothing(
    llm_server: LoopbackLLM, tmp_path: Path
) -> None:
    from support.llm import rate_limited, server_error

    llm_server.reset(answers)
    client = LLMClient(fast_settings(llm_server, concurrency=1), tmp_path / "llm")
    llm_server.play(rate_limited(Reply("Passage: tokens last an hour.")))
    assert query_texts(client, ["how long do tokens last"], "hyde") == ["tokens last an hour."]
    assert llm_server.calls == 2 and client.stats.retries == 1
    llm_server.reset(server_error)
    with pytest.raises(Exception, match="HTTP 500"):
        query_texts(client, ["who signs"], "rewrite")
    assert estimate_queries(client, ["who signs"], "rewrite").calls == 1  # nothing was cached


def test_cli_endpoint_failure_exits_1_with_one_line(
    capsys, llm_endpoint_env: LoopbackLLM, eval_files: tuple[Path, Path]
) -> None:  # noqa: ANN001
    from support.llm import server_error

    llm_endpoint_env.reset(server_error)
    doc, questions = eval_files
    code, out, err = run_cli(
        capsys, "eval", str(doc), "--questions", str(questions), "--query", "rewrite", "--llm-retries", "0"
    )
    assert (code, out) == (1, "")
    lines = [line for line in err.splitlines() if line.startswith("chunkviz: error:")]
    assert len(lines) == 1 and "failed with HTTP 500: model crashed" in lines[0]
