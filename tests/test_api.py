"""The public API and the registry: chunk(), strategies(), parameter validation, generic behaviour."""

from __future__ import annotations

import pytest
from support.chunking import assert_valid_chunking

import chunkviz
from chunkviz import InvalidParamError, UnknownStrategyError, chunk
from chunkviz.text.tokenizers import get_tokenizer

CL100K = get_tokenizer("cl100k_base")
ENC = CL100K.encoding

# ============================================================================ registry, params


def test_registered_strategies_and_defaults() -> None:
    described = {s["name"]: s for s in chunkviz.strategies()}
    assert {"fixed_tokens", "fixed_chars", "sentences", "paragraphs", "recursive"} <= set(described)
    defaults = {name: {p["name"]: p["default"] for p in s["params"]} for name, s in described.items()}
    # sizes fit the default embedding model (all-MiniLM-L6-v2 reads 256 wordpieces; on the samples
    # a chunk of 128 cl100k tokens is at most 216 of them)
    assert defaults["fixed_tokens"] == {"chunk_size": 128, "overlap": 16}
    assert defaults["fixed_chars"] == {"chunk_size": 512, "overlap": 64}
    assert defaults["sentences"] == {"max_tokens": 128, "overlap_sentences": 1}
    assert defaults["paragraphs"] == {"min_tokens": 32, "max_tokens": 128}
    assert defaults["recursive"] == {"chunk_size": 128, "overlap": 16, "separators": "default"}
    for s in described.values():
        assert s["description"]
        for p in s["params"]:
            assert p["help"] and p["range"]


def test_unknown_strategy_lists_the_valid_names() -> None:
    with pytest.raises(UnknownStrategyError) as info:
        chunk("some text", "no_such_strategy")
    message = str(info.value)
    assert "no_such_strategy" in message
    for name in ("fixed_tokens", "fixed_chars", "sentences", "paragraphs", "recursive"):
        assert name in message
    assert isinstance(info.value, ValueError) and isinstance(info.value, chunkviz.ChunkvizError)


@pytest.mark.parametrize(
    ("strategy", "params", "bad"),
    [
        ("fixed_tokens", {"chunk_size": 10, "overlap": 10}, "overlap"),  # overlap >= size
        ("fixed_tokens", {"chunk_size": 10, "overlap": 11}, "overlap"),
        ("fixed_tokens", {"chunk_size": 0}, "chunk_size"),  # size <= 0
        ("fixed_tokens", {"chunk_size": -5}, "chunk_size"),
        ("fixed_tokens", {"overlap": -1}, "overlap"),
        ("fixed_tokens", {"chunk_size": "ten"}, "chunk_size"),  # wrong type
        ("fixed_tokens", {"chunk_size": 1.5}, "chunk_size"),
        ("fixed_tokens", {"chunk_size": True}, "chunk_size"),
        ("fixed_tokens", {"chunk_size": None}, "chunk_size"),
        ("fixed_tokens", {"size": 10}, "size"),  # unknown key
        ("fixed_chars", {"chunk_size": 100, "overlap": 100}, "overlap"),
        ("fixed_chars", {"chunk_size": 0}, "chunk_size"),
        ("fixed_chars", {"max_tokens": 5}, "max_tokens"),
        ("sentences", {"max_tokens": 0}, "max_tokens"),
        ("sentences", {"overlap_sentences": -1}, "overlap_sentences"),
        ("sentences", {"overlap_sentences": "one"}, "overlap_sentences"),
        ("sentences", {"overlap": 1}, "overlap"),
        ("paragraphs", {"max_tokens": 0}, "max_tokens"),
        ("paragraphs", {"min_tokens": 50, "max_tokens": 10}, "min_tokens"),
        ("paragraphs", {"min_tokens": -1}, "min_tokens"),
        ("paragraphs", {"chunk_size": 10}, "chunk_size"),
        ("recursive", {"chunk_size": 10, "overlap": 10}, "overlap"),
        ("recursive", {"chunk_size": 0}, "chunk_size"),
        ("recursive", {"chunk_size": "big"}, "chunk_size"),
        ("recursive", {"separators": "nope"}, "separators"),  # unknown preset
        ("recursive", {"separators": []}, "separators"),
        ("recursive", {"separators": ["\n\n", 5]}, "separators"),
        ("recursive", {"separators": '["ok", 1]'}, "separators"),
        ("recursive", {"separators": "[not json"}, "separators"),
        ("recursive", {"seps": "default"}, "seps"),
    ],
)
def test_invalid_params_name_the_param(strategy: str, params: dict, bad: str) -> None:
    with pytest.raises(InvalidParamError) as info:
        chunk("Some text. More text.", strategy, **params)
    assert info.value.param == bad
    assert info.value.strategy == strategy
    assert repr(bad) in str(info.value)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("value", [5, None])
def test_non_iterable_separators_name_the_param(value: object) -> None:
    with pytest.raises(InvalidParamError) as info:
        chunk("Some text.", "recursive", separators=value)
    assert info.value.param == "separators"


def test_params_are_validated_even_for_empty_text() -> None:
    with pytest.raises(InvalidParamError):
        chunk("", "fixed_tokens", chunk_size=0)
    with pytest.raises(UnknownStrategyError):
        chunk("", "nope")


def test_cli_style_string_params_are_converted() -> None:
    a = chunk("one two three four five six", "fixed_tokens", chunk_size="3", overlap="1")
    b = chunk("one two three four five six", "fixed_tokens", chunk_size=3, overlap=1)
    assert a == b
    assert chunk("a b c d", "fixed_tokens", chunk_size=2.0, overlap=0) == chunk(
        "a b c d", "fixed_tokens", chunk_size=2, overlap=0
    )


@pytest.mark.parametrize("strategy", ["fixed_tokens", "fixed_chars", "sentences", "paragraphs", "recursive"])
@pytest.mark.parametrize("text", ["", " ", "\n\n\t  \r\n", "\u00a0\u2028\u3000"])
def test_empty_and_whitespace_only_text_give_no_chunks(strategy: str, text: str) -> None:
    assert chunk(text, strategy) == []


@pytest.mark.parametrize("strategy", ["fixed_tokens", "fixed_chars", "sentences", "paragraphs", "recursive"])
def test_short_text_is_one_chunk_ending_the_document(strategy: str) -> None:
    text = "  Just one short line.\n"
    chunks = chunk(text, strategy)
    assert len(chunks) == 1
    assert (chunks[0].start, chunks[0].end) == (0, len(text))
    assert chunks[0].reason == "end_of_document"


@pytest.mark.parametrize("strategy", ["fixed_tokens", "fixed_chars", "sentences", "paragraphs", "recursive"])
def test_results_are_deterministic_and_comparable(strategy: str) -> None:
    text = "Alpha beta. Gamma delta!\n\nEpsilon 😀 zeta? Eta theta.\r\n\r\nIota kappa lambda mu."
    params = {
        "fixed_tokens": {"chunk_size": 5, "overlap": 1},
        "fixed_chars": {"chunk_size": 20, "overlap": 5},
        "sentences": {"max_tokens": 8},
        "paragraphs": {"min_tokens": 1, "max_tokens": 10},
        "recursive": {"chunk_size": 6, "overlap": 2},
    }[strategy]
    first = chunk(text, strategy, **params)
    assert first == chunk(text, strategy, **params)
    assert_valid_chunking(text, first)


def test_blank_texts_give_no_chunks_and_are_told_without_a_copy() -> None:
    from chunkviz.document import is_blank

    assert [is_blank(t) for t in ("", " ", "\n\t\u3000", " a ", "a")] == [True, True, True, False, False]
    for text in ("", "   \n\n\t", "\u2029\u3000"):
        assert chunkviz.chunk(text, "fixed_tokens", chunk_size=8, overlap=0) == []
    assert [c.text for c in chunkviz.chunk("\n a \n", "fixed_chars", chunk_size=10, overlap=0)] == ["\n a \n"]
