"""Summary indexing (chunkviz.evaluation.summaries): extractive summaries are exact spans of their
sections (no endpoint needed), LLM summaries are added text over their section (calls counted
at the loopback server; a second run makes none); retrieval over summaries returns sections,
in the engine and through ``chunkviz eval --summaries``."""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.chunking import assert_valid_chunking
from support.llm import LoopbackLLM, Reply, fast_settings
from support.texts import SETTINGS, examples, prose_text

from chunkviz import chunk
from chunkviz.document.model import as_document
from chunkviz.evaluation.evaluate import (
    Configuration,
    configured_chunks,
    evaluate,
    with_variants,
)
from chunkviz.evaluation.metrics import DocumentSpan
from chunkviz.evaluation.playground import chunk_texts
from chunkviz.evaluation.summaries import (
    EMBED_ADDED_TEXT,
    SummaryIndexError,
    central_order,
    embedding_text,
    estimate_summaries,
    section_sentences,
    summary_index,
)
from chunkviz.llm import LLMClient, LLMNotConfigured, LLMSettings, use_llm
from chunkviz.llm.cache import clear_memory
from chunkviz.semantic import embedcache

DOC = (
    "# Coffee\n\nCoffee roast notes. The beans crack when the roast is done. Coffee beans and roast.\n\n"
    "# Tide\n\nTide power uses a turbine. A barrage holds the tide back.\n"
)
VOCABULARY = ["coffee", "roast", "beans", "tide", "turbine", "barrage"]
encoded: list[str] = []


def encode_words(texts: Sequence[str], progress: Any = None) -> np.ndarray:
    encoded.extend(texts)
    rows = [[re.findall(r"[a-z]+", t.lower()).count(v) for v in VOCABULARY] + [0.01] for t in texts]
    return np.asarray(rows, dtype=np.float32)


def encode_hashed(texts: Sequence[str], progress: Any = None) -> np.ndarray:
    out = np.zeros((len(texts), 64), dtype=np.float32)
    out[:, 63] = 0.05
    for i, text in enumerate(texts):
        for word in re.findall(r"\w+", text.lower()):
            out[i, zlib.crc32(word.encode()) % 63] += 1.0
    return out


def summary_of(request: dict[str, Any]) -> Reply:
    """``Summary: This section covers <its first word>.``"""
    user = request["messages"][-1]["content"]
    section = re.search(r"<section>\n(.*)\n</section>", user, re.DOTALL).group(1)
    return Reply(f"Summary: This section covers {section.lstrip('# ').split()[0].lower()}.")


@pytest.fixture(autouse=True)
def _fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", str(tmp_path / "cache"))
    clear_memory()
    embedcache.clear_memory()
    encoded.clear()


def test_section_sentences_are_trimmed_and_clipped() -> None:
    document = as_document(DOC)
    assert [DOC[a:b] for a, b in section_sentences(document, 0, 95)] == [
        "# Coffee",
        "Coffee roast notes.",
        "The beans crack when the roast is done.",
        "Coffee beans and roast.",
    ]
    assert [DOC[a:b] for a, b in section_sentences(document, 15, 40)] == ["e roast notes.", "The beans"]
    assert section_sentences(document, 93, 95) == []  # whitespace only


def test_central_order() -> None:
    got = central_order(np.array([[1.0, 0.0], [2.0, 0.0], [0.0, 1.0]]))
    assert [i for i, _ in got] == [0, 1, 2]  # the tie keeps the earlier row first
    assert [round(s, 4) for _, s in got] == [0.8944, 0.8944, 0.4472]
    assert central_order(np.zeros((0, 2))) == []


def test_extractive_summaries_are_the_most_central_sentences_of_each_section() -> None:
    sections = chunk(DOC, "headings")
    assert [(c.start, c.end) for c in sections] == [(0, 95), (95, 161)]
    got = summary_index(DOC, sections, sentences=2, model="words", encode=encode_words)
    assert [(c.index, c.level, c.parent, c.text) for c in got] == [
        (0, 0, None, sections[0].text),
        (1, 0, None, sections[1].text),
        (2, 1, 0, "Coffee roast notes."),
        (3, 1, 0, "Coffee beans and roast."),
        (4, 1, 1, "# Tide"),
        (5, 1, 1, "Tide power uses a turbine."),
    ]
    assert [dict(c.metadata) for c in got[2:]] == [
        {"summary": "extractive", "centrality": 0.9186, "summary_rank": 2},
        {"summary": "extractive", "centrality": 0.9753, "summary_rank": 1},
        {"summary": "extractive", "centrality": 0.9239, "summary_rank": 1},
        {"summary": "extractive", "centrality": 0.8446, "summary_rank": 2},
    ]
    assert [dict(c.metadata) for c in got[:2]] == [dict(c.metadata) for c in sections]
    assert_valid_chunking(DOC, got)
    one = summary_index(DOC, sections, sentences=1, model="words", encode=encode_words)
    assert [c.text for c in one if c.level == 1] == ["Coffee beans and roast.", "# Tide"]
    # the sentences were embedded once: the second index read them from the cache
    assert len(encoded) == len(set(encoded)) == 7


def test_summaries_need_a_one_level_chunking() -> None:
    nested = chunk(DOC, "parent_child", parent_size=20, child_size=8, child_overlap=0)
    with pytest.raises(SummaryIndexError, match="one-level chunking"):
        summary_index(DOC, nested, model="words", encode=encode_words)
    with pytest.raises(SummaryIndexError, match="summaries must be one of extractive, llm"):
        summary_index(DOC, chunk(DOC, "headings"), mode="abstractive", model="words", encode=encode_words)
    with pytest.raises(SummaryIndexError, match="LLM summaries need an LLM client"):
        summary_index(DOC, chunk(DOC, "headings"), mode="llm")


@settings(max_examples=examples(40), **SETTINGS)
@given(text=prose_text(60), strategy=st.sampled_from(["paragraphs", "headings", "sentences"]), n=st.integers(1, 3))
def test_extractive_summaries_are_exact_spans_inside_their_sections(text: str, strategy: str, n: int) -> None:
    sections = chunk(text, strategy)
    got = summary_index(text, sections, sentences=n, model="hashed", encode=encode_hashed)
    assert_valid_chunking(text, got)
    top = [c for c in got if c.level == 0]
    assert [(c.start, c.end, c.text) for c in top] == [(c.start, c.end, c.text) for c in sections]
    document = as_document(text)
    for k, section in enumerate(top):
        summaries = [c for c in got if c.parent == k]
        assert len(summaries) == min(n, len(section_sentences(document, section.start, section.end)))
        for c in summaries:
            assert c.level == 1 and c.text == text[c.start : c.end] and c.text == c.text.strip() and c.text
            assert section.start <= c.start and c.end <= section.end
        assert sorted(c.metadata["summary_rank"] for c in summaries) == list(range(1, len(summaries) + 1))


# ----------------------------------------------------------------------------- written by the model
@pytest.fixture
def client(llm_server: LoopbackLLM, tmp_path: Path) -> LLMClient:
    llm_server.reset(summary_of)
    return LLMClient(fast_settings(llm_server), tmp_path / "llm")


def test_llm_summaries_are_added_text_over_their_section(
    client: LLMClient, llm_server: LoopbackLLM, tmp_path: Path
) -> None:
    sections = chunk(DOC, "headings")
    assert estimate_summaries(client, DOC, sections).calls == 2
    got = summary_index(DOC, sections, mode="llm", client=client, tokenizer="words")
    assert [(c.index, c.level, c.parent, c.start, c.end, c.added_text) for c in got] == [
        (0, 0, None, 0, 95, ""),
        (1, 0, None, 95, 161, ""),
        (2, 1, 0, 0, 95, "This section covers coffee."),
        (3, 1, 1, 95, 161, "This section covers tide."),
    ]
    assert [dict(c.metadata) for c in got[2:]] == [
        {"summary": "llm", EMBED_ADDED_TEXT: True, "summary_token_count": 4}
    ] * 2
    assert [embedding_text(c) for c in got] == [
        sections[0].text,
        sections[1].text,
        "This section covers coffee.",
        "This section covers tide.",
    ]
    assert chunk_texts(got) == [
        "This section covers coffee.",
        "This section covers tide.",
    ]  # the playground embeds the same
    assert_valid_chunking(DOC, got, allow_added_text=True)
    users = sorted(r["messages"][-1]["content"] for r in llm_server.requests)
    assert users[0].startswith(
        "Here is a section of a document (section: Coffee):\n<section>\n# Coffee\n\nCoffee roast notes."
    )
    assert llm_server.calls == 2
    clear_memory()
    again = LLMClient(fast_settings(llm_server), tmp_path / "llm")
    assert summary_index(DOC, sections, mode="llm", client=again, tokenizer="words") == got
    assert llm_server.calls == 2


# ----------------------------------------------------------------------------- retrieval over summaries
class Q:
    def __init__(self, question: str, excerpt: str) -> None:
        start = DOC.index(excerpt)
        self.question = question
        self.references = (DocumentSpan("doc", start, start + len(excerpt)),)


TIDE_SECTION = "# Tide\n\nTide power uses a turbine. A barrage holds the tide back.\n"
BROAD = Q("what is said about the tide", TIDE_SECTION)


def test_retrieval_over_summaries_returns_whole_sections() -> None:
    configs = with_variants(
        [Configuration("sentences", {"max_tokens": 12, "overlap_sentences": 0})], summaries=[None, "extractive"]
    )
    assert [c.label() for c in configs] == [
        "sentences(max_tokens=12, overlap_sentences=0)",
        "sentences(max_tokens=12, overlap_sentences=0) [summaries: extractive]",
    ]
    sentences, _ = evaluate({"doc": DOC}, [BROAD], configs, k=1, model="words", encode=encode_words)
    headings = evaluate(
        {"doc": DOC},
        [BROAD],
        with_variants([Configuration("headings")], summaries=[None, "extractive"]),
        k=1,
        model="words",
        encode=encode_words,
    )
    # sentence chunks: the broad question hits one sentence of the section
    (hit,) = sentences.retrieved[0]
    assert DOC[hit.span.start : hit.span.end] == "Tide power uses a turbine."
    assert sentences.scores[0].recall == pytest.approx(26 / 66)
    # summaries of heading sections: a summary matches and its whole section is returned
    plain, summarized = headings
    (hit,) = summarized.retrieved[0]
    assert (hit.span.start, hit.span.end, hit.chunk_index, hit.matched) == (95, 161, 1, 4)
    assert summarized.scores[0].recall == 1.0 and summarized.scores[0].iou == 1.0
    assert summarized.chunks == 4  # two summary sentences per section are searched
    assert plain.chunks == 2 and plain.scores[0].recall == 1.0


def test_llm_summaries_in_the_evaluation(llm_server: LoopbackLLM, tmp_path: Path) -> None:
    llm_server.reset(summary_of)
    config = Configuration("headings", summaries="llm")
    with use_llm(fast_settings(llm_server), cache_dir=tmp_path / "llm"):
        (result,) = evaluate({"doc": DOC}, [BROAD], [config], k=1, model="words", encode=encode_words)
        shown = configured_chunks(DOC, config, name="doc", model="words", encode=encode_words)
    assert "This section covers tide." in encoded and not any(
        "turbine" in t for t in encoded
    )  # only the summaries are embedded
    (hit,) = result.retrieved[0]
    assert (hit.span.start, hit.span.end, hit.matched) == (95, 161, 3)
    assert [c.added_text for c in shown if c.level == 1] == ["This section covers coffee.", "This section covers tide."]
    assert llm_server.calls == 2
    with use_llm(LLMSettings()), pytest.raises(LLMNotConfigured):
        evaluate({"doc": DOC}, [BROAD], [config], k=1, model="words", encode=encode_words)


# ----------------------------------------------------------------------------- the CLI
@pytest.fixture
def eval_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    import chunkviz.evaluation.evaluate as engine

    monkeypatch.setattr(engine, "default_encoder", lambda model, role="passage": encode_words)
    doc = tmp_path / "doc.md"
    doc.write_text(DOC, encoding="utf-8")
    questions = tmp_path / "q.jsonl"
    questions.write_text(
        json.dumps(
            {"question": BROAD.question, "references": [{"document": "doc.md", "excerpt": TIDE_SECTION.strip()}]}
        )
        + "\n",
        encoding="utf-8",
    )
    return doc, questions


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    from chunkviz.cli.commands import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_extractive_summaries_work_without_an_endpoint(
    capsys, eval_files: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:  # noqa: ANN001
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "CHUNKVIZ_LLM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    doc, questions = eval_files
    code, out, err = run_cli(
        capsys,
        "eval",
        str(doc),
        "--questions",
        str(questions),
        "-s",
        "headings",
        "--k",
        "1",
        "--summaries",
        "extractive",
        "--json",
        "-",
    )
    assert code == 0, err
    data = json.loads(out)
    assert [(d["label"], d["summaries"], d["chunks"]) for d in data] == [
        ("headings", None, 2),
        ("headings [summaries: extractive]", "extractive", 4),
    ]
    assert [d["questions"][0]["retrieved"][0]["start"] for d in data] == [
        95,
        95,
    ]  # the Tide section, searched or via its summary
    assert "llm:" not in err
    code, out, err = run_cli(capsys, "eval", str(doc), "--questions", str(questions), "--summaries", "llm")
    assert (code, out) == (2, "")
    assert err.startswith("chunkviz: error: no LLM endpoint is configured")


def test_cli_llm_summaries_second_run_makes_no_call(
    capsys, llm_endpoint_env: LoopbackLLM, eval_files: tuple[Path, Path]
) -> None:  # noqa: ANN001
    llm_endpoint_env.reset(summary_of)
    doc, questions = eval_files
    argv = ["eval", str(doc), "--questions", str(questions), "-s", "headings", "--k", "1", "--summaries", "llm"]
    code, out, err = run_cli(capsys, *argv)
    assert code == 0, err
    assert [line.split("  ")[0] for line in out.split("\n\n")[0].splitlines()[3:]] == [
        "headings",
        "headings [summaries: llm]",
    ]
    assert f"llm: summaries for headings [summaries: llm] of {doc}: 2 calls" in err
    assert llm_endpoint_env.calls == 2
    clear_memory()
    code, again, _ = run_cli(capsys, *argv)
    assert (code, again, llm_endpoint_env.calls) == (0, out, 2)


# ----------------------------------------------------------------------------- the real model
@pytest.mark.slow
@pytest.mark.usefixtures("semantic_cache_dir")
def test_the_offline_minilm_ranks_an_off_topic_sentence_least_central() -> None:
    from support.semantic import ASTRONOMY, COOKING, TAX_LAW

    sections = [
        ("Baking", COOKING[:6], TAX_LAW[0]),
        ("Stars", ASTRONOMY[:6], COOKING[9]),
        ("Taxes", TAX_LAW[1:7], ASTRONOMY[9]),
    ]
    text = "".join(
        f"# {title}\n\n{' '.join(body[:3])} {intruder} {' '.join(body[3:])}\n\n" for title, body, intruder in sections
    )
    got = summary_index(text, chunk(text, "headings"), sentences=8)
    for k, (_, body, intruder) in enumerate(sections):
        ranked = sorted((c for c in got if c.parent == k), key=lambda c: c.metadata["summary_rank"])
        assert [c.text for c in ranked][0] in body  # the most central sentence is on the section's topic
        assert ranked[-1].text == intruder or ranked[-2].text == intruder  # the intruder: last, or before the heading


def test_twin_question_rows_put_broad_questions_first() -> None:
    from chunkviz.evaluation.report import twin_question_rows

    specific = Q("what does the barrage hold", "A barrage holds the tide back.")
    configs = with_variants(
        [Configuration("sentences", {"max_tokens": 12, "overlap_sentences": 0})], summaries=[None, "extractive"]
    )
    plain, summarized = evaluate({"doc": DOC}, [specific, BROAD], configs, k=1, model="words", encode=encode_words)
    rows = twin_question_rows(plain, summarized, [specific, BROAD])
    assert [(r["#"], r["reference chars"], r["first hit"], r["first hit (summaries: extractive)"]) for r in rows] == [
        (2, 66, 1, 1),
        (1, 30, 1, 1),
    ]
    # sentence-sized "sections" make poor summaries: the heading line "# Tide" alone (all "tide")
    # now wins the broad question over "Tide power uses a turbine."; its chunk is 8 of 66 characters
    assert [(r["recall %"], r["recall % (summaries: extractive)"], r["Δ recall"]) for r in rows] == [
        (39.4, 12.1, -27.3),
        (100.0, 100.0, 0.0),
    ]
