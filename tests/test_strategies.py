"""Exact expected outputs of every strategy on small inputs, parameter validation, registry.

Every expected span below was derived by hand from the strategy's definition (seed 000 §13.2-13.4,
guide 001) before being hard-coded; the comments give the derivation.
"""

from __future__ import annotations

import pytest

import chunkviz
from chunkviz import InvalidParamError, UnknownStrategyError, chunk
from chunkviz.tokenizers import get_tokenizer

from conftest import assert_valid_chunking, spans, texts

CL100K = get_tokenizer("cl100k_base")
ENC = CL100K.encoding


# ============================================================================ registry, params


def test_registered_strategies_and_defaults() -> None:
    described = {s["name"]: s for s in chunkviz.strategies()}
    assert {"fixed_tokens", "fixed_chars", "sentences", "paragraphs", "recursive"} <= set(described)
    defaults = {name: {p["name"]: p["default"] for p in s["params"]} for name, s in described.items()}
    assert defaults["fixed_tokens"] == {"chunk_size": 400, "overlap": 50}
    assert defaults["fixed_chars"] == {"chunk_size": 1600, "overlap": 200}
    assert defaults["sentences"] == {"max_tokens": 400, "overlap_sentences": 1}
    assert defaults["paragraphs"] == {"min_tokens": 100, "max_tokens": 600}
    assert defaults["recursive"] == {"chunk_size": 500, "overlap": 50, "separators": "default"}
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
    assert chunk("a b c d", "fixed_tokens", chunk_size=2.0, overlap=0) == chunk("a b c d", "fixed_tokens", chunk_size=2, overlap=0)


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
    params = {"fixed_tokens": {"chunk_size": 5, "overlap": 1}, "fixed_chars": {"chunk_size": 20, "overlap": 5},
              "sentences": {"max_tokens": 8}, "paragraphs": {"min_tokens": 1, "max_tokens": 10},
              "recursive": {"chunk_size": 6, "overlap": 2}}[strategy]
    first = chunk(text, strategy, **params)
    assert first == chunk(text, strategy, **params)
    assert_valid_chunking(text, first)


# ============================================================================ fixed_tokens


def test_worked_example_13_2_exact_token_ranges() -> None:
    # " a" is one cl100k token, so token k is text[2k:2k+2]; 1436 tokens exactly.
    text = " a" * 1436
    assert CL100K.count(text) == 1436
    chunks = chunk(text, "fixed_tokens", chunk_size=512, overlap=50)
    # step = 512 - 50 = 462: windows [0,512), [462,974), [924,1436) -- seed 000 §13.2
    ranges = [(c.metadata["token_start"], c.metadata["token_end"]) for c in chunks]
    assert ranges == [(0, 512), (462, 974), (924, 1436)]
    assert [c.metadata["token_count"] for c in chunks] == [512, 512, 512]
    assert spans(chunks) == [(0, 1024, "token_cap"), (924, 1948, "token_cap"), (1848, 2872, "end_of_document")]
    for c in chunks:
        assert CL100K.count(c.text) == 512
        assert "snapped_to_character" not in c.metadata
    # neighbours share exactly 50 tokens
    assert chunks[0].text[-100:] == chunks[1].text[:100] == " a" * 50


def _prose_of_exactly(n_tokens: int) -> str:
    base = (
        "Fixed-size chunking splits a document every few hundred tokens. Overlap repeats the "
        "end of one chunk at the start of the next, so a sentence cut at a boundary still "
        "appears whole somewhere — naïve, but predictable (and cheap: 3.5 µs per chunk).\n\n"
    )
    text = ""
    while CL100K.count(text + base) <= n_tokens:
        text += base
    while CL100K.count(text) < n_tokens:
        text += " a"
    assert CL100K.count(text) == n_tokens
    return text


def test_worked_example_13_2_on_prose_maps_to_tiktoken_offsets() -> None:
    text = _prose_of_exactly(1436)
    tokens = ENC.encode_ordinary(text)
    _, offsets = ENC.decode_with_offsets(tokens)  # independent token -> character offsets
    offsets.append(len(text))
    chunks = chunk(text, "fixed_tokens", chunk_size=512, overlap=50)
    assert [(c.metadata["token_start"], c.metadata["token_end"]) for c in chunks] == [(0, 512), (462, 974), (924, 1436)]
    assert [(c.start, c.end) for c in chunks] == [
        (0, offsets[512]),
        (offsets[462], offsets[974]),
        (offsets[924], len(text)),
    ]
    for c in chunks:
        first, stop = c.metadata["token_start"], c.metadata["token_end"]
        assert ENC.encode_ordinary(c.text) == tokens[first:stop]  # the span re-tokenizes to its window
    assert [c.reason for c in chunks] == ["token_cap", "token_cap", "end_of_document"]


def test_fixed_tokens_default_params_follow_the_guide() -> None:
    text = " a" * 1000
    chunks = chunk(text, "fixed_tokens")  # 400 / 50: step 350 -> starts 0, 350, 700 (700+400 >= 1000)
    assert [(c.metadata["token_start"], c.metadata["token_end"]) for c in chunks] == [(0, 400), (350, 750), (700, 1000)]


def test_fixed_tokens_words_and_no_redundant_last_window() -> None:
    text = "one two three four five six seven"
    # words: 7 tokens; size 3, overlap 1, step 2 -> starts 0, 2, 4 (4+3 = 7 reaches the end;
    # the naive loop would add a window at 6 that lies inside [4, 7))
    chunks = chunk(text, "fixed_tokens", tokenizer="words", chunk_size=3, overlap=1)
    assert texts(chunks) == ["one two three ", "three four five ", "five six seven"]
    assert spans(chunks) == [(0, 14, "token_cap"), (8, 24, "token_cap"), (19, 33, "end_of_document")]
    assert [c.metadata["token_count"] for c in chunks] == [3, 3, 3]


def test_fixed_tokens_short_last_window() -> None:
    chunks = chunk("a b c d e", "fixed_tokens", tokenizer="words", chunk_size=2, overlap=0)
    # 5 words, step 2: [0,2), [2,4), [4,5)
    assert [(c.metadata["token_start"], c.metadata["token_end"], c.metadata["token_count"]) for c in chunks] == [
        (0, 2, 2), (2, 4, 2), (4, 5, 1)
    ]
    assert texts(chunks) == ["a b ", "c d ", "e"]


def test_fixed_tokens_same_as_word_split_on_one_token_words() -> None:
    text = "one two three four five six seven eight nine ten"  # every word is one cl100k token
    chunks = chunk(text, "fixed_tokens", chunk_size=4, overlap=2)
    assert spans(chunks) == [(0, 18, "token_cap"), (7, 27, "token_cap"), (18, 39, "token_cap"), (27, 48, "end_of_document")]


def test_fixed_tokens_leading_whitespace_belongs_to_the_first_window() -> None:
    text = "   lead and trail   "
    chunks = chunk(text, "fixed_tokens", tokenizer="words", chunk_size=2, overlap=0)
    assert texts(chunks) == ["   lead and ", "trail   "]


@pytest.mark.parametrize("text", ["\u200b", "\u0301", "\x00 \ufeff"])
def test_fixed_tokens_keeps_text_without_any_token(text: str) -> None:
    assert get_tokenizer("minilm").count(text) == 0 and text.strip()
    chunks = chunk(text, "fixed_tokens", tokenizer="minilm", chunk_size=5, overlap=0)
    assert_valid_chunking(text, chunks)  # actual: [] -- "non-blank text gave no chunks"


# ============================================================================ fixed_chars


@pytest.mark.parametrize(
    ("text", "size", "overlap", "expected"),
    [
        # step 3; 10 chars: starts 0, 3, 6 (6+4 = 10)
        ("abcdefghij", 4, 1, [(0, 4, "char_cap"), (3, 7, "char_cap"), (6, 10, "end_of_document")]),
        # step 4: starts 0, 4, 8 -> last window shorter
        ("abcdefghij", 4, 0, [(0, 4, "char_cap"), (4, 8, "char_cap"), (8, 10, "end_of_document")]),
        # 7 chars, step 3: starts 0, 3 (3+4 = 7); no redundant window at 6
        ("abcdefg", 4, 1, [(0, 4, "char_cap"), (3, 7, "end_of_document")]),
        ("abc", 5, 2, [(0, 3, "end_of_document")]),
        # code points, not graphemes: the skin tone modifier is its own character
        ("👍🏽ab", 2, 1, [(0, 2, "char_cap"), (1, 3, "char_cap"), (2, 4, "end_of_document")]),
    ],
)
def test_fixed_chars_exact(text: str, size: int, overlap: int, expected: list) -> None:
    chunks = chunk(text, "fixed_chars", chunk_size=size, overlap=overlap)
    assert spans(chunks) == expected
    assert all(c.metadata == {} or "snapped_to_character" not in c.metadata for c in chunks)


def test_fixed_chars_defaults_1600_200() -> None:
    text = "x" * 3000
    chunks = chunk(text, "fixed_chars")  # step 1400: 0, 1400 (1400+1600 = 3000)
    assert [(c.start, c.end) for c in chunks] == [(0, 1600), (1400, 3000)]


# ============================================================================ recursive


def test_recursive_merges_paragraphs_up_to_the_size() -> None:
    text = "one two three\n\nfour five\n\nsix seven eight nine\n\nten"
    # paragraphs (words): 3, 2, 4, 1; each separator run "\n\n" stays with the piece before it.
    # 3+2 = 5 <= 6, +4 = 9 > 6 -> [one..five\n\n]; 4+1 = 5 -> [six..ten]
    chunks = chunk(text, "recursive", tokenizer="words", chunk_size=6, overlap=0)
    assert texts(chunks) == ["one two three\n\nfour five\n\n", "six seven eight nine\n\nten"]
    assert spans(chunks) == [(0, 26, "paragraph"), (26, 51, "end_of_document")]
    assert chunks[0].metadata["separator"] == "\n\n"


def test_recursive_whole_text_that_fits_is_one_chunk() -> None:
    text = "one two three\n\nfour five\n\nsix seven eight nine\n\nten"
    assert spans(chunk(text, "recursive", tokenizer="words", chunk_size=10, overlap=0)) == [(0, 51, "end_of_document")]


def test_recursive_oversized_paragraph_splits_at_lines_then_words() -> None:
    text = "alpha beta\ngamma delta epsilon zeta eta\n\nomega"
    # "\n\n": [alpha..eta\n\n] (7 words > 4) and [omega]. The big one at "\n": [alpha beta\n] (2)
    # and [gamma..eta\n\n] (5 > 4); that one at " ": gamma | delta | epsilon | zeta | eta\n\n,
    # packed 4 + 1. Pieces of different parents are not merged (as in LangChain).
    chunks = chunk(text, "recursive", tokenizer="words", chunk_size=4, overlap=0)
    assert texts(chunks) == ["alpha beta\n", "gamma delta epsilon zeta", " eta\n\n", "omega"]
    assert spans(chunks) == [(0, 11, "line"), (11, 35, "word"), (35, 41, "paragraph"), (41, 46, "end_of_document")]


def test_recursive_overlap_is_the_longest_word_aligned_tail() -> None:
    text = "one two three four five six seven eight nine ten"  # one cl100k token per word
    # chunk_size 4, overlap 2: every chunk after the first starts two words back
    chunks = chunk(text, "recursive", chunk_size=4, overlap=2)
    assert texts(chunks) == [
        "one two three four",
        " three four five six",
        " five six seven eight",
        " seven eight nine ten",
    ]
    assert [c.reason for c in chunks] == ["word", "word", "word", "end_of_document"]
    for a, b in zip(chunks, chunks[1:]):
        assert CL100K.count(text[b.start : a.end]) == 2
    assert_valid_chunking(text, chunks, limit=4, tokenizer=CL100K, overlap_tokens=2, strictly_advancing=True)


def test_recursive_overlap_stays_word_aligned_when_no_word_tail_fits() -> None:
    text = "I saw antidisestablishmentarianism today"
    # cl100k: I| saw| ant|idis|establish|ment|arian|ism| today -> chunk 1 = first 8 tokens.
    # Word-aligned tails of chunk 1: " antidisestablishmentarianism" (6 tokens) and " saw ..." (7):
    # none fits overlap=2, and the text has spaces, so the documented rule gives no overlap.
    chunks = chunk(text, "recursive", chunk_size=8, overlap=2)
    assert texts(chunks)[0] == "I saw antidisestablishmentarianism"
    assert texts(chunks)[1] == " today"  # actual: "arianism today" (overlap starts mid-word)


def test_recursive_long_blank_run_does_not_break_greedy_merging() -> None:
    text = "First paragraph.\n\nSecond paragraph.\n\nThird" + "\n" * 200 + "Fourth paragraph."
    # "\n\n" pieces: [0,18) [18,37) [37,242) [242,259); cl100k counts 3, 3, 8, 3 (the 200 line
    # breaks are 7 tokens). Greedy with 10: 3+3 = 6 (+8 > 10) | 8 (+3 > 10) | 3.
    assert CL100K.count(text[0:37]) <= 10 and CL100K.count(text[0:242]) > 10
    chunks = chunk(text, "recursive", chunk_size=10, overlap=0)
    assert_valid_chunking(text, chunks, limit=10, tokenizer=CL100K)
    # The blank-line run's preferred cut (after it) does not fit, so the cut falls at the run's
    # start: "Third" joins the first chunk and the 200 line breaks lead the last one (7 + 3 tokens).
    assert [(c.start, c.end) for c in chunks] == [(0, 42), (42, 259)]
    assert [CL100K.count(c.text) for c in chunks] == [CL100K.count(text[0:42]), 10]


def test_recursive_mixed_line_endings_merge_like_lf() -> None:
    text = "a b\n\r\nc d\n\r\ne f"  # blank lines made of an LF line end followed by a CRLF one
    # "\n\n" pieces (the regex \r?\n\r?\n matches "\n\r\n"): [a b\n\r\n] [c d\n\r\n] [e f] = 2, 2, 2 words
    # greedy with 4 words: [0, 12) and [12, 15); actual: [0, 6) and [6, 15)
    chunks = chunk(text, "recursive", tokenizer="words", chunk_size=4, overlap=0)
    assert spans(chunks) == [(0, 12, "paragraph"), (12, 15, "end_of_document")]


def test_recursive_finds_a_separator_whose_whitespace_run_starts_within_the_budget() -> None:
    text = "one two three" + "\t" * 16 + "\n\n" + "four five six"
    # cl100k: one| two| three|<16 tabs>|\n\n|four| five| six. With 3 tokens the budget from 0 ends
    # at the tabs (13); the paragraph break's run [13, 31) starts there, so its start is a
    # paragraph cut that fits: chunk 1 = "one two three". Actual: "one two" (a word cut at 7).
    assert CL100K.count("one two three") == 3
    chunks = chunk(text, "recursive", chunk_size=3, overlap=0)
    assert_valid_chunking(text, chunks, limit=3, tokenizer=CL100K)
    assert (chunks[0].text, chunks[0].reason) == ("one two three", "paragraph")


def test_recursive_overlap_over_paragraph_pieces_does_not_vanish() -> None:
    # pieces (paragraphs of 5 words) are larger than the overlap; LangChain would drop the overlap,
    # here it is the tail of the previous chunk at a word boundary with at most 2 words
    text = "a1 a2 a3 a4 a5\n\nb1 b2 b3 b4 b5\n\nc1 c2 c3 c4 c5"
    chunks = chunk(text, "recursive", tokenizer="words", chunk_size=8, overlap=2)
    assert texts(chunks) == ["a1 a2 a3 a4 a5\n\n", " a4 a5\n\nb1 b2 b3 b4 b5\n\n", " b4 b5\n\nc1 c2 c3 c4 c5"]
    assert [c.reason for c in chunks] == ["paragraph", "paragraph", "end_of_document"]


def test_markdown_preset_cuts_before_headings() -> None:
    text = "# Guide\nIntro line here.\n## Install\nRun the installer now.\n## Use\nCall the tool.\n"
    # sections (words): 5, 6, 5; size 8 cannot hold two -> one chunk per section, cut before "##"
    for tokenizer in ("words", "cl100k_base"):
        chunks = chunk(text, "recursive", tokenizer=tokenizer, chunk_size=8, overlap=0, separators="markdown")
        assert texts(chunks) == ["# Guide\nIntro line here.\n", "## Install\nRun the installer now.\n", "## Use\nCall the tool.\n"]
        assert [c.reason for c in chunks] == ["heading", "heading", "end_of_document"]
        assert chunks[0].metadata["separator"] == "\n## "


def test_default_preset_ignores_headings() -> None:
    text = "# Guide\nIntro line here.\n## Install\nRun the installer now.\n## Use\nCall the tool.\n"
    # lines (words): 2, 3, 2, 4, 2, 3 -> 2+3+2 = 7 (+4 > 8), 4+2 = 6 (+3 > 8), 3
    chunks = chunk(text, "recursive", tokenizer="words", chunk_size=8, overlap=0)
    assert texts(chunks) == ["# Guide\nIntro line here.\n## Install\n", "Run the installer now.\n## Use\n", "Call the tool.\n"]
    assert [c.reason for c in chunks] == ["line", "line", "end_of_document"]


def test_python_preset_cuts_before_class_and_def() -> None:
    text = (
        "import os\n\n"
        "class A:\n    def f(self):\n        return 1\n\n"
        "def g():\n    return 2\n\n"
        "def h():\n    return 3\n"
    )
    # "\nclass ": [import os] (2 words) | [class A ... return 3] (14 > 8) -> "\ndef " (the indented
    # "    def f" is not preceded by a bare line break): [class A..return 1] 6, [def g..] 4, [def h..] 4
    # -> 6 (+4 > 8) and 4+4 = 8.
    chunks = chunk(text, "recursive", tokenizer="words", chunk_size=8, overlap=0, separators="python")
    assert texts(chunks) == [
        "import os\n\n",
        "class A:\n    def f(self):\n        return 1\n\n",
        "def g():\n    return 2\n\ndef h():\n    return 3\n",
    ]
    assert [c.reason for c in chunks] == ["class", "function", "end_of_document"]


def test_custom_separator_list_and_json_form() -> None:
    text = "a b|c d|e f"
    # "|" cuts before the separator (it starts the next piece); pieces of 2 words, 2 + 2 > 2
    expected = [(0, 3, "separator"), (3, 7, "separator"), (7, 11, "end_of_document")]
    assert spans(chunk(text, "recursive", tokenizer="words", chunk_size=2, overlap=0, separators=["|", " ", ""])) == expected
    assert spans(chunk(text, "recursive", tokenizer="words", chunk_size=2, overlap=0, separators='["|", " ", ""]')) == expected
    assert spans(chunk(text, "recursive", tokenizer="words", chunk_size=2, overlap=0, separators=("|", " ", ""))) == expected


def test_custom_separators_are_literal_not_regex() -> None:
    # "." must match only dots: pieces a | .b | .c ; 1 + 2 > 2
    chunks = chunk("a.b.c", "recursive", tokenizer="chars", chunk_size=2, overlap=0, separators=["."])
    assert spans(chunks) == [(0, 1, "separator"), (1, 3, "separator"), (3, 5, "end_of_document")]


def test_custom_list_without_character_level_keeps_indivisible_pieces_flagged() -> None:
    text = "aaaa bbbbbbbbbb cc"
    chunks = chunk(text, "recursive", tokenizer="chars", chunk_size=6, overlap=0, separators=[" "])
    # pieces: "aaaa" 4, " bbbbbbbbbb" 11 (> 6, nothing left to split at), " cc" 3
    assert texts(chunks) == ["aaaa", " bbbbbbbbbb", " cc"]
    assert [bool(c.metadata.get("indivisible")) for c in chunks] == [False, True, False]


def test_character_level_on_cjk_without_spaces() -> None:
    chunks = chunk("日本語のテキスト", "recursive", tokenizer="chars", chunk_size=3, overlap=0)
    assert spans(chunks) == [(0, 3, "character"), (3, 6, "character"), (6, 8, "end_of_document")]


def test_single_character_over_the_limit_is_indivisible() -> None:
    chunks = chunk("a😀b", "recursive", chunk_size=1, overlap=0)  # the emoji is 2 cl100k tokens
    assert spans(chunks) == [(0, 1, "character"), (1, 2, "character"), (2, 3, "end_of_document")]
    assert [bool(c.metadata.get("indivisible")) for c in chunks] == [False, True, False]
    assert chunks[1].metadata.get("over_limit") is True


def test_crlf_paragraphs_split_like_lf() -> None:
    lf = "one two three\n\nfour five\n\nsix seven eight nine\n\nten"
    crlf = lf.replace("\n", "\r\n")
    a = chunk(lf, "recursive", tokenizer="words", chunk_size=6, overlap=0)
    b = chunk(crlf, "recursive", tokenizer="words", chunk_size=6, overlap=0)
    assert [c.text.replace("\r\n", "\n") for c in b] == texts(a)
    assert [c.reason for c in b] == [c.reason for c in a] == ["paragraph", "end_of_document"]
    assert texts(b) == ["one two three\r\n\r\nfour five\r\n\r\n", "six seven eight nine\r\n\r\nten"]


def test_crlf_lines_and_headings_split_like_lf() -> None:
    lf = "# Guide\nIntro line here.\n## Install\nRun the installer now.\n## Use\nCall the tool.\n"
    crlf = lf.replace("\n", "\r\n")
    for preset, reasons in (("markdown", ["heading", "heading", "end_of_document"]), ("default", ["line", "line", "end_of_document"])):
        a = chunk(lf, "recursive", tokenizer="words", chunk_size=8, overlap=0, separators=preset)
        b = chunk(crlf, "recursive", tokenizer="words", chunk_size=8, overlap=0, separators=preset)
        assert [c.text.replace("\r\n", "\n") for c in b] == texts(a)
        assert [c.reason for c in b] == reasons


def test_crlf_with_cl100k_keeps_paragraph_reasons() -> None:
    paras = ["This is paragraph number %d, with a handful of ordinary words in it." % k for k in range(6)]
    lf = "\n\n".join(paras)
    crlf = "\r\n\r\n".join(paras)
    for text in (lf, crlf):
        chunks = chunk(text, "recursive", chunk_size=40, overlap=0)
        assert [c.reason for c in chunks][:-1] == ["paragraph"] * (len(chunks) - 1)
        assert len(chunks) == 3
        assert_valid_chunking(text, chunks, limit=40, tokenizer=CL100K)


def test_recursive_reason_words_for_a_long_line() -> None:
    text = "word " * 30
    chunks = chunk(text, "recursive", tokenizer="words", chunk_size=10, overlap=0)
    assert [c.reason for c in chunks] == ["word", "word", "end_of_document"]
    assert [CL100K.count(c.text) for c in chunks]  # texts are real spans
    assert texts(chunks) == ["word " * 9 + "word", " word" * 10, " word" * 10 + " "]


def test_guide_preset_cuts_at_sentences() -> None:
    text = "One two three. Four five six. Seven eight nine."
    chunks = chunk(text, "recursive", tokenizer="words", chunk_size=4, overlap=0, separators="guide")
    # ". " cut after the space (the next sentence starts the piece): 3, 3, 3 words; 3+3 > 4
    assert texts(chunks) == ["One two three. ", "Four five six. ", "Seven eight nine."]
    assert [c.reason for c in chunks] == ["sentence", "sentence", "end_of_document"]


# ============================================================================ sentences

SIX = "Cats eat fish. Dogs chase cats. Birds sing songs. Fish swim fast. Cows eat grass. Bees make honey."
# sentence units (whitespace before a sentence belongs to it): [0,14) [14,31) [31,49) [49,65) [65,81) [81,98)


@pytest.mark.parametrize(
    ("overlap", "expected_units"),
    [
        (0, [(0, 3), (3, 6)]),
        (1, [(0, 3), (2, 5), (4, 6)]),  # the last sentence of each chunk starts the next
        (2, [(0, 3), (1, 4), (2, 5), (3, 6)]),
        (5, [(0, 3), (1, 4), (2, 5), (3, 6)]),  # never the whole previous chunk again
    ],
)
def test_sentences_overlap_is_whole_sentences(overlap: int, expected_units: list) -> None:
    cuts = [0, 14, 31, 49, 65, 81, 98]
    chunks = chunk(SIX, "sentences", tokenizer="words", max_tokens=9, overlap_sentences=overlap)
    assert [tuple(c.metadata["units"]) for c in chunks] == expected_units
    assert [(c.start, c.end) for c in chunks] == [(cuts[a], cuts[b]) for a, b in expected_units]
    assert [c.reason for c in chunks] == ["sentence_end"] * (len(chunks) - 1) + ["end_of_document"]
    assert all(c.metadata["segmenter"] for c in chunks)
    assert_valid_chunking(SIX, chunks, limit=9, tokenizer="words")


def test_sentences_overlap_shrinks_when_it_does_not_fit() -> None:
    text = "Hi there. This sentence has exactly six words. Three words here."
    # units: "Hi there." (2) | " This ... words." (6) | " Three words here." (3); max 8:
    # chunk 1 = 2 + 6; repeating the 6-word sentence before the 3-word one would need 9 > 8
    chunks = chunk(text, "sentences", tokenizer="words", max_tokens=8, overlap_sentences=1)
    assert [(c.start, c.end, tuple(c.metadata["units"])) for c in chunks] == [(0, 46, (0, 2)), (46, 64, (2, 3))]


def test_sentences_over_long_sentence_is_split_and_flagged() -> None:
    text = "Short start. This single sentence is far too long to fit in one small chunk at all. Tiny end."
    chunks = chunk(text, "sentences", tokenizer="words", max_tokens=5, overlap_sentences=1)
    assert texts(chunks) == [
        "Short start.",
        " This single sentence is far",
        " too long to fit in",
        " one small chunk at all.",
        " Tiny end.",
    ]
    assert [c.reason for c in chunks] == ["sentence_end", "word", "word", "sentence_end", "end_of_document"]
    assert [bool(c.metadata.get("split_sentence")) for c in chunks] == [False, True, True, True, False]
    assert [tuple(c.metadata["units"]) for c in chunks] == [(0, 1), (1, 2), (1, 2), (1, 2), (2, 3)]
    assert_valid_chunking(text, chunks, limit=5, tokenizer="words")


def test_sentences_never_span_a_blank_line() -> None:
    text = "A heading without a period\n\nThe body starts here. It ends here."
    chunks = chunk(text, "sentences", tokenizer="words", max_tokens=5, overlap_sentences=0)
    assert texts(chunks) == ["A heading without a period\n\n", "The body starts here.", " It ends here."]


def test_sentences_cl100k_limit() -> None:
    text = " ".join(f"Sentence number {k} is here." for k in range(40))
    chunks = chunk(text, "sentences", max_tokens=30, overlap_sentences=2)
    assert_valid_chunking(text, chunks, limit=30, tokenizer=CL100K, strictly_advancing=True)
    assert len(chunks) > 5


# ============================================================================ paragraphs


def test_paragraphs_pack_split_and_flag_small() -> None:
    text = "a b\n\nc d e\n\nf g h i j k\n\nl"
    # paragraphs (words): 2, 3, 6, 1 with max 5, min 3:
    # 2+3 = 5 -> one chunk; the 6-word paragraph is split at words (5 + 1); "l" cannot join the
    # previous piece of a split paragraph; chunks under 3 words are flagged
    chunks = chunk(text, "paragraphs", tokenizer="words", min_tokens=3, max_tokens=5)
    assert texts(chunks) == ["a b\n\nc d e\n\n", "f g h i j", " k\n\n", "l"]
    assert [c.reason for c in chunks] == ["paragraph", "word", "paragraph", "end_of_document"]
    assert [bool(c.metadata.get("split_paragraph")) for c in chunks] == [False, True, True, False]
    assert [bool(c.metadata.get("below_min_tokens")) for c in chunks] == [False, False, True, True]


def test_paragraphs_min_tokens_controls_merging() -> None:
    text = "First para one.\n\nSecond para two.\n\nThird para three."
    # 3 words each. min 0: every paragraph is its own chunk; min 6 (max 7): merge until 6 words,
    # the small tail cannot join (9 > 7); min == max: the guide's greedy packing up to max_tokens
    assert spans(chunk(text, "paragraphs", tokenizer="words", min_tokens=0, max_tokens=100)) == [
        (0, 17, "paragraph"), (17, 35, "paragraph"), (35, 52, "end_of_document")
    ]
    assert spans(chunk(text, "paragraphs", tokenizer="words", min_tokens=6, max_tokens=7)) == [
        (0, 35, "paragraph"), (35, 52, "end_of_document")
    ]
    assert spans(chunk(text, "paragraphs", tokenizer="words", min_tokens=100, max_tokens=100)) == [(0, 52, "end_of_document")]


def test_paragraphs_max_tokens_is_a_hard_limit_and_small_tail_is_flagged() -> None:
    text = "First para one.\n\nSecond para two.\n\nThird para three."
    # 3 words each; max 6: 3+3, then 3 alone (merging would give 9 > 6) -> flagged below min 4
    chunks = chunk(text, "paragraphs", tokenizer="words", min_tokens=4, max_tokens=6)
    assert spans(chunks) == [(0, 35, "paragraph"), (35, 52, "end_of_document")]
    assert [bool(c.metadata.get("below_min_tokens")) for c in chunks] == [False, True]


def test_paragraphs_crlf_and_whitespace_only_blank_lines() -> None:
    text = "First para one.\r\n\r\nSecond para two.\r\n  \r\nThird para three."
    chunks = chunk(text, "paragraphs", tokenizer="words", min_tokens=4, max_tokens=6)
    assert texts(chunks) == ["First para one.\r\n\r\nSecond para two.\r\n  \r\n", "Third para three."]
    assert [c.reason for c in chunks] == ["paragraph", "end_of_document"]


def test_paragraphs_min_zero_flags_nothing() -> None:
    text = "x\n\ny\n\nz"
    chunks = chunk(text, "paragraphs", tokenizer="words", min_tokens=0, max_tokens=1)
    assert texts(chunks) == ["x\n\n", "y\n\n", "z"]
    assert not any(c.metadata.get("below_min_tokens") for c in chunks)


def test_paragraphs_single_newlines_do_not_split() -> None:
    text = "line one\nline two\nline three\n\nnext"
    chunks = chunk(text, "paragraphs", tokenizer="words", min_tokens=6, max_tokens=6)
    assert texts(chunks) == ["line one\nline two\nline three\n\n", "next"]
