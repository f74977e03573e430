"""recursive: separator hierarchy, exact spans, honest overlap (seed 000 §13.4)."""

from __future__ import annotations

import pytest
from support.chunking import assert_valid_chunking, cuts, reasons, texts

from chunkviz import InvalidParamError, chunk
from chunkviz.text.tokenizers import get_tokenizer

CL100K = get_tokenizer("cl100k_base")
ENC = CL100K.encoding

# ============================================================================ recursive


def test_recursive_merges_paragraphs_up_to_the_size() -> None:
    text = "one two three\n\nfour five\n\nsix seven eight nine\n\nten"
    # paragraphs (words): 3, 2, 4, 1; each separator run "\n\n" stays with the piece before it.
    # 3+2 = 5 <= 6, +4 = 9 > 6 -> [one..five\n\n]; 4+1 = 5 -> [six..ten]
    chunks = chunk(text, "recursive", tokenizer="words", chunk_size=6, overlap=0)
    assert texts(chunks) == ["one two three\n\nfour five\n\n", "six seven eight nine\n\nten"]
    assert cuts(chunks) == [(0, 26, "paragraph"), (26, 51, "document_end")]
    assert chunks[0].metadata["separator"] == "\n\n"


def test_recursive_whole_text_that_fits_is_one_chunk() -> None:
    text = "one two three\n\nfour five\n\nsix seven eight nine\n\nten"
    assert cuts(chunk(text, "recursive", tokenizer="words", chunk_size=10, overlap=0)) == [(0, 51, "document_end")]


def test_recursive_oversized_paragraph_splits_at_lines_then_words() -> None:
    text = "alpha beta\ngamma delta epsilon zeta eta\n\nomega"
    # "\n\n": [alpha..eta\n\n] (7 words > 4) and [omega]. The big one at "\n": [alpha beta\n] (2)
    # and [gamma..eta\n\n] (5 > 4); that one at " ": gamma | delta | epsilon | zeta | eta\n\n,
    # packed 4 + 1. Pieces of different parents are not merged (as in LangChain).
    chunks = chunk(text, "recursive", tokenizer="words", chunk_size=4, overlap=0)
    assert texts(chunks) == ["alpha beta\n", "gamma delta epsilon zeta", " eta\n\n", "omega"]
    assert cuts(chunks) == [(0, 11, "line"), (11, 35, "word"), (35, 41, "paragraph"), (41, 46, "document_end")]


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
    assert [c.boundary for c in chunks] == ["word", "word", "word", "document_end"]
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
    assert cuts(chunks) == [(0, 12, "paragraph"), (12, 15, "document_end")]


def test_recursive_finds_a_separator_whose_whitespace_run_starts_within_the_budget() -> None:
    text = "one two three" + "\t" * 16 + "\n\n" + "four five six"
    # cl100k: one| two| three|<16 tabs>|\n\n|four| five| six. With 3 tokens the budget from 0 ends
    # at the tabs (13); the paragraph break's run [13, 31) starts there, so its start is a
    # paragraph cut that fits: chunk 1 = "one two three". Actual: "one two" (a word cut at 7).
    assert CL100K.count("one two three") == 3
    chunks = chunk(text, "recursive", chunk_size=3, overlap=0)
    assert_valid_chunking(text, chunks, limit=3, tokenizer=CL100K)
    assert (chunks[0].text, chunks[0].boundary) == ("one two three", "paragraph")


def test_recursive_overlap_over_paragraph_pieces_does_not_vanish() -> None:
    # pieces (paragraphs of 5 words) are larger than the overlap; LangChain would drop the overlap,
    # here it is the tail of the previous chunk at a word boundary with at most 2 words
    text = "a1 a2 a3 a4 a5\n\nb1 b2 b3 b4 b5\n\nc1 c2 c3 c4 c5"
    chunks = chunk(text, "recursive", tokenizer="words", chunk_size=8, overlap=2)
    assert texts(chunks) == ["a1 a2 a3 a4 a5\n\n", " a4 a5\n\nb1 b2 b3 b4 b5\n\n", " b4 b5\n\nc1 c2 c3 c4 c5"]
    assert [c.boundary for c in chunks] == ["paragraph", "paragraph", "document_end"]


def test_markdown_preset_cuts_before_headings() -> None:
    text = "# Guide\nIntro line here.\n## Install\nRun the installer now.\n## Use\nCall the tool.\n"
    # sections (words): 5, 6, 5; size 8 cannot hold two -> one chunk per section, cut before "##"
    for tokenizer in ("words", "cl100k_base"):
        chunks = chunk(text, "recursive", tokenizer=tokenizer, chunk_size=8, overlap=0, separators="markdown")
        assert texts(chunks) == [
            "# Guide\nIntro line here.\n",
            "## Install\nRun the installer now.\n",
            "## Use\nCall the tool.\n",
        ]
        assert [c.boundary for c in chunks] == ["section", "section", "document_end"]
        assert chunks[0].metadata["separator"] == "\n## "


def test_default_preset_ignores_headings() -> None:
    text = "# Guide\nIntro line here.\n## Install\nRun the installer now.\n## Use\nCall the tool.\n"
    # lines (words): 2, 3, 2, 4, 2, 3 -> 2+3+2 = 7 (+4 > 8), 4+2 = 6 (+3 > 8), 3
    chunks = chunk(text, "recursive", tokenizer="words", chunk_size=8, overlap=0)
    assert texts(chunks) == [
        "# Guide\nIntro line here.\n## Install\n",
        "Run the installer now.\n## Use\n",
        "Call the tool.\n",
    ]
    assert [c.boundary for c in chunks] == ["line", "line", "document_end"]


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
    assert [c.boundary for c in chunks] == ["paragraph", "paragraph", "document_end"]


def test_custom_separator_list_and_json_form() -> None:
    text = "a b|c d|e f"
    # "|" cuts before the separator (it starts the next piece); pieces of 2 words, 2 + 2 > 2
    expected = [(0, 3, "word"), (3, 7, "word"), (7, 11, "document_end")]  # "b|" and "d|": a word's edge
    assert (
        cuts(chunk(text, "recursive", tokenizer="words", chunk_size=2, overlap=0, separators=["|", " ", ""]))
        == expected
    )
    assert (
        cuts(chunk(text, "recursive", tokenizer="words", chunk_size=2, overlap=0, separators='["|", " ", ""]'))
        == expected
    )
    assert (
        cuts(chunk(text, "recursive", tokenizer="words", chunk_size=2, overlap=0, separators=("|", " ", "")))
        == expected
    )


@pytest.mark.parametrize("name", ["recursive", "recursive_langchain", "langchain_recursive"])
def test_separators_as_json_text_are_read_within_the_side_files_bounds(name: str) -> None:
    """Issue 36 item 17: separators given as JSON text (the library, the app) were parsed without a
    depth bound: 100,000 brackets ended in RecursionError, 5,000 digits in Python's int-digits ValueError."""
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(InvalidParamError) as refused:
        chunk("a b", name, separators=deep)
    assert str(refused.value) == (
        f"{name}: parameter 'separators' JSON nested more than 32 levels deep (at character 33); "
        "nothing chunkviz reads needs more than a few levels: check for a run of [ or {"
    )
    with pytest.raises(InvalidParamError, match="a whole number of 5,000 digits"):
        chunk("a b", name, separators="[" + "9" * 5_000 + "]")
    assert texts(chunk("a b", name, separators='[" ", ""]')) == ["a b"]


def test_custom_separators_are_literal_not_regex() -> None:
    # "." must match only dots: pieces a | .b | .c ; 1 + 2 > 2
    chunks = chunk("a.b.c", "recursive", tokenizer="chars", chunk_size=2, overlap=0, separators=["."])
    assert cuts(chunks) == [(0, 1, "word"), (1, 3, "word"), (3, 5, "document_end")]  # before "." : a word's edge


def test_custom_list_without_character_level_keeps_indivisible_pieces_flagged() -> None:
    text = "aaaa bbbbbbbbbb cc"
    chunks = chunk(text, "recursive", tokenizer="chars", chunk_size=6, overlap=0, separators=[" "])
    # pieces: "aaaa" 4, " bbbbbbbbbb" 11 (> 6, nothing left to split at), " cc" 3
    assert texts(chunks) == ["aaaa", " bbbbbbbbbb", " cc"]
    assert [bool(c.metadata.get("indivisible")) for c in chunks] == [False, True, False]


def test_character_level_on_cjk_without_spaces() -> None:
    chunks = chunk("日本語のテキスト", "recursive", tokenizer="chars", chunk_size=3, overlap=0)
    # a cut between two CJK letters is inside a sentence, not between words (issue 37)
    assert cuts(chunks) == [(0, 3, "inside_sentence"), (3, 6, "inside_sentence"), (6, 8, "document_end")]


def test_single_character_over_the_limit_is_indivisible() -> None:
    chunks = chunk("a😀b", "recursive", chunk_size=1, overlap=0)  # the emoji is 2 cl100k tokens
    assert cuts(chunks) == [(0, 1, "word"), (1, 2, "word"), (2, 3, "document_end")]  # letter | emoji: no word split
    assert [bool(c.metadata.get("indivisible")) for c in chunks] == [False, True, False]
    assert chunks[1].metadata.get("over_size_limit") is True


def test_crlf_paragraphs_split_like_lf() -> None:
    lf = "one two three\n\nfour five\n\nsix seven eight nine\n\nten"
    crlf = lf.replace("\n", "\r\n")
    a = chunk(lf, "recursive", tokenizer="words", chunk_size=6, overlap=0)
    b = chunk(crlf, "recursive", tokenizer="words", chunk_size=6, overlap=0)
    assert [c.text.replace("\r\n", "\n") for c in b] == texts(a)
    assert [c.boundary for c in b] == [c.boundary for c in a] == ["paragraph", "document_end"]
    assert texts(b) == ["one two three\r\n\r\nfour five\r\n\r\n", "six seven eight nine\r\n\r\nten"]


def test_crlf_lines_and_headings_split_like_lf() -> None:
    lf = "# Guide\nIntro line here.\n## Install\nRun the installer now.\n## Use\nCall the tool.\n"
    crlf = lf.replace("\n", "\r\n")
    for preset, expected in (
        ("markdown", ["section", "section", "document_end"]),
        ("default", ["line", "line", "document_end"]),
    ):
        a = chunk(lf, "recursive", tokenizer="words", chunk_size=8, overlap=0, separators=preset)
        b = chunk(crlf, "recursive", tokenizer="words", chunk_size=8, overlap=0, separators=preset)
        assert [c.text.replace("\r\n", "\n") for c in b] == texts(a)
        assert [c.boundary for c in b] == expected
        assert reasons(b) == ["size_limit", "size_limit", "end_of_document"]


def test_crlf_with_cl100k_keeps_paragraph_reasons() -> None:
    paras = ["This is paragraph number %d, with a handful of ordinary words in it." % k for k in range(6)]
    lf = "\n\n".join(paras)
    crlf = "\r\n\r\n".join(paras)
    for text in (lf, crlf):
        chunks = chunk(text, "recursive", chunk_size=40, overlap=0)
        assert [c.boundary for c in chunks][:-1] == ["paragraph"] * (len(chunks) - 1)
        assert len(chunks) == 3
        assert_valid_chunking(text, chunks, limit=40, tokenizer=CL100K)


def test_recursive_reason_words_for_a_long_line() -> None:
    text = "word " * 30
    chunks = chunk(text, "recursive", tokenizer="words", chunk_size=10, overlap=0)
    assert [c.boundary for c in chunks] == ["word", "word", "document_end"]
    assert [CL100K.count(c.text) for c in chunks]  # texts are real spans
    assert texts(chunks) == ["word " * 9 + "word", " word" * 10, " word" * 10 + " "]


def test_guide_preset_cuts_at_sentences() -> None:
    text = "One two three. Four five six. Seven eight nine."
    chunks = chunk(text, "recursive", tokenizer="words", chunk_size=4, overlap=0, separators="guide")
    # ". " cut after the space (the next sentence starts the piece): 3, 3, 3 words; 3+3 > 4
    assert texts(chunks) == ["One two three. ", "Four five six. ", "Seven eight nine."]
    assert [c.boundary for c in chunks] == ["sentence", "sentence", "document_end"]
