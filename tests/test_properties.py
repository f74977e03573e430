"""Property tests: every registered strategy keeps the span contract on random, hostile text.

The strategies are read from ``chunkviz.strategies()``, so a strategy added later is covered by
the generic contract (exact spans, order, coverage) without touching this file; the built-in
ones also get their own size and overlap rules checked.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from support.chunking import assert_valid_chunking
from support.texts import ADVERSARIAL_PIECES, SETTINGS, adversarial_text, any_text, examples, long_pieces, prose_text

import chunkviz
from chunkviz import InvalidParamError, chunk
from chunkviz.core.types import Chunk
from chunkviz.document.structure import LINE_BREAK, PARAGRAPH_SEPARATOR
from chunkviz.splitting import PRESETS
from chunkviz.strategies.peers.catalogue import PEER_NAMES
from chunkviz.strategies.recursive_langchain import length_function
from chunkviz.text.tokenizers import get_tokenizer

#: The peers (LangChain, semchunk, Chonkie run as comparison columns) are placed as their users
#: place them and audited for it (tests/test_peers.py): the span contract is ours, not theirs.
STRATEGY_NAMES = [s["name"] for s in chunkviz.strategies() if s["name"] not in PEER_NAMES]
DESCRIBED = {s["name"]: s for s in chunkviz.strategies()}
KNOWN = {"fixed_tokens", "fixed_chars", "recursive", "recursive_langchain", "sentences", "paragraphs"}
MAIN_TOKENIZERS = ["cl100k_base", "words"]


# ----------------------------------------------------------------------------- inputs


#: Characters that break counts and spans: emoji with ZWJ and modifiers, the Unicode line
#: breaks U+2028/U+2029/U+0085, zero-width characters, private use (BMP and plane 15/16),
#: combining marks, CJK, lone surrogates, and the bytes a byte-level BPE splits inside one character.
ODD_PIECES = [
    "😀",
    "😀😀😀",
    "👨\u200d👩\u200d👧\u200d👦",
    "🏳️\u200d🌈",
    "👍🏽",
    "\u2028",
    "\u2029",
    "\u0085",
    "\u200b",
    "\u200c",
    "\u200d",
    "\u2060",
    "\ufeff",
    "\ue000",
    "\uf8ff",
    "\U000f0000",
    "\U0010fffd",
    "\ud800",  # lone surrogates (a Python string, e.g. from JSON, can hold them)
    "\udfff",
    "\ud83d\ude00",  # a surrogate pair as two code points (not the emoji)
    "\ude00\ud83d",
    "e\u0301",
    "a\u0308\u0323",
    "\u0301\u0301",
    "语",
    "日本語のテキスト",
    "x = '😀😀😀'; y = 'é'\n",
    " ",
    "\n",
    "\n\n",
    "word",
    ". ",
]


#: Strategies that cannot read lone surrogates yet (none: the embedding model reads a surrogate-safe copy).
NO_SURROGATES_YET: set[str] = set()


def odd_text(max_pieces: int = 30, surrogates: bool = True) -> st.SearchStrategy[str]:
    """Text made of :data:`ODD_PIECES` and arbitrary characters (any code point, surrogates too)."""
    pieces = [p for p in ODD_PIECES if surrogates or not any("\ud800" <= ch <= "\udfff" for ch in p)]
    alphabet = st.characters() if surrogates else st.characters(codec="utf-8")
    piece = st.one_of(st.sampled_from(pieces), st.text(alphabet=alphabet, min_size=1, max_size=4))
    return st.lists(piece, max_size=max_pieces).map("".join)


def hostile_text(surrogates: bool = True) -> st.SearchStrategy[str]:
    """Adversarial mixes plus very long words, long CJK runs, long whitespace runs and odd characters."""
    odd = odd_text(surrogates=surrogates)
    mixed = st.lists(
        st.one_of(long_pieces(), st.sampled_from(ADVERSARIAL_PIECES), odd, prose_text(10)), max_size=12
    ).map("".join)
    return st.one_of(any_text(), mixed, adversarial_text(60), odd)


def separators_choice() -> st.SearchStrategy[Any]:
    custom = st.lists(
        st.sampled_from(["\n\n", "\n", " ", "", ". ", "|", "\t", "\r\n", "😀", "ab", "\n## ", "\ndef "]),
        min_size=1,
        max_size=5,
    )
    return st.one_of(st.sampled_from(sorted(PRESETS)), custom)


@st.composite
def params_for(draw: st.DrawFn, name: str) -> dict[str, Any]:
    """Valid random params; small sizes so that splitting is exercised hard."""
    small = st.one_of(st.integers(1, 8), st.integers(1, 60))
    if name in ("fixed_tokens", "recursive"):
        size = draw(small)
        params: dict[str, Any] = {"chunk_size": size, "overlap": draw(st.integers(0, size - 1))}
        if name == "recursive":
            params["separators"] = draw(separators_choice())
        return params
    if name == "recursive_langchain":
        size = draw(small)
        return {
            "chunk_size": size,
            "overlap": draw(st.integers(0, size)),
            "separators": draw(separators_choice()),
            "keep_separator": draw(st.sampled_from(["start", "end"])),
            "count_special_tokens": draw(st.booleans()),
        }
    if name == "fixed_chars":
        size = draw(st.integers(1, 200))
        return {"chunk_size": size, "overlap": draw(st.integers(0, size - 1))}
    if name == "sentences":
        return {"max_tokens": draw(small), "overlap_sentences": draw(st.integers(0, 4))}
    if name == "paragraphs":
        high = draw(small)
        return {"min_tokens": draw(st.integers(0, high)), "max_tokens": high}
    # a strategy this file does not know yet: small values inside the declared ranges
    params = {}
    for p in DESCRIBED[name]["params"]:
        if p["type"] == "int" and draw(st.booleans()):
            low = int(p["minimum"]) if p["minimum"] is not None else 0
            high = int(p["maximum"]) if p["maximum"] is not None else low + 60
            params[p["name"]] = draw(st.integers(low, max(low, min(high, low + 60))))
        elif p["type"] == "bool" and draw(st.booleans()):
            params[p["name"]] = draw(st.booleans())
        elif p["choices"] and draw(st.booleans()):
            params[p["name"]] = draw(st.sampled_from(p["choices"]))
    return params


def run(text: str, name: str, tokenizer: str, params: dict[str, Any]) -> list[Chunk]:
    try:
        return chunk(text, name, tokenizer=tokenizer, **params)
    except InvalidParamError:
        if name in KNOWN:
            raise
        assume(False)  # generic params for an unknown strategy may be jointly invalid
        raise


# ----------------------------------------------------------------------------- reference offsets


def token_positions(text: str, tokenizer: str) -> tuple[list[int], list[bool]]:
    """Token start offsets computed without chunkviz (tiktoken decode_with_offsets / a regex)."""
    if tokenizer == "cl100k_base":
        enc = get_tokenizer("cl100k_base").encoding
        # a lone surrogate is read as U+FFFD, one character for one (tiktoken alone would join a
        # surrogate pair's two code points into one character, shifting every later offset)
        text = re.sub("[\ud800-\udfff]", "\ufffd", text)
        tokens = enc.encode_ordinary(text)
        _, offsets = enc.decode_with_offsets(tokens)
        exact = [not 0x80 <= enc.decode_single_token_bytes(t)[0] < 0xC0 for t in tokens]
        return [*offsets, len(text)], [*exact, True]
    if tokenizer == "words":
        starts = [m.start() for m in re.finditer(r"\S+", text)]
        return [*starts, len(text)], [True] * (len(starts) + 1)
    bounds = get_tokenizer(tokenizer).boundaries(text)
    return bounds.positions.tolist(), bounds.exact.tolist()


# ----------------------------------------------------------------------------- per-strategy rules


def reference_token_windows(positions: list[int], n_chars: int, size: int, overlap: int) -> list[tuple[int, int]]:
    """Token windows ``(first, stop)`` by the definition: every ``size - overlap`` tokens; without
    overlap a cut whose (snapped) character position is not after the previous cut is dropped, so
    that the windows tile the text and no character is in two of them."""
    n = len(positions) - 1
    if overlap:
        step = size - overlap
        windows, first = [], 0
        while True:
            windows.append((first, min(first + size, n)))
            if first + size >= n:
                return windows
            first += step
    cuts = [0]
    for k in range(size, n, size):
        if (0 if cuts[-1] == 0 else positions[cuts[-1]]) < positions[k] < n_chars:
            cuts.append(k)
    return list(zip(cuts, [*cuts[1:], n]))


def check_fixed_tokens(text: str, chunks: list[Chunk], tokenizer: str, params: dict[str, Any]) -> None:
    size, overlap = params["chunk_size"], params["overlap"]
    positions, exact = token_positions(text, tokenizer)
    n = len(positions) - 1
    tok = get_tokenizer(tokenizer)
    assert_valid_chunking(text, chunks)
    # the count is the chunk's own; over the size only when flagged (indivisible: a character whose
    # tokens straddled a cut; else a note: a wordpiece window cut inside a word re-tokenizes longer)
    for c in chunks:
        assert c.metadata["token_count"] == tok.count(c.text), c
        assert bool(c.metadata.get("over_size_limit")) == (tok.count(c.text) > size), c
    if n == 0:
        return
    assert chunks, "a text with tokens gave no windows"
    windows = reference_token_windows(positions, len(text), size, overlap)
    assert [(c.metadata["token_start"], c.metadata["token_end"]) for c in chunks] == windows
    for k, (c, (first, stop)) in enumerate(zip(chunks, windows)):
        start = 0 if first == 0 else positions[first]
        end = len(text) if stop == n else positions[stop]
        if end <= start:  # a window inside one multibyte character keeps that character
            end = start + 1
        assert (c.start, c.end) == (start, end), (k, first, stop)
        flags = c.metadata.get("snapped_to_character", [])
        assert ("start" in flags) == (first > 0 and not exact[first])
        if stop < n and not exact[stop]:
            assert "end" in flags
        assert c.reason == ("end_of_document" if c.end == len(text) else "size_limit")
    if overlap == 0:
        for a, b in zip(chunks, chunks[1:]):
            assert b.start == a.end, "without overlap the windows tile the text"


def check_fixed_chars(text: str, chunks: list[Chunk], params: dict[str, Any]) -> None:
    size, overlap = params["chunk_size"], params["overlap"]
    step = size - overlap
    assert_valid_chunking(text, chunks, limit=size, limit_of=lambda c: len(c.text), strictly_advancing=True)
    for k, c in enumerate(chunks):
        assert c.start == k * step
        assert c.end == min(c.start + size, len(text))
        assert c.reason == ("end_of_document" if c.end == len(text) else "size_limit")
    assert chunks[-1].end == len(text)
    for a, b in zip(chunks, chunks[1:]):
        assert a.end - b.start == overlap, "neighbours must share exactly `overlap` characters"
        assert len(a.text) == size


def check_recursive(text: str, chunks: list[Chunk], tokenizer: str, params: dict[str, Any]) -> None:
    size, overlap = params["chunk_size"], params["overlap"]
    seps = PRESETS[params["separators"]] if isinstance(params["separators"], str) else params["separators"]
    assert_valid_chunking(
        text, chunks, limit=size, tokenizer=tokenizer, overlap_tokens=overlap, strictly_advancing=True
    )
    tok = get_tokenizer(tokenizer)
    assert chunks[0].start == 0 and chunks[-1].end == len(text)
    for c in chunks:
        assert c.reason in ("size_limit", "end_of_document"), (c.reason, seps)
        if c.metadata.get("indivisible"):
            assert tok.count(c.text) > size
            if "" in seps:
                assert len(c.text) == 1, "with character-level splitting only a single character may exceed the limit"
        if c.reason != "end_of_document":
            assert c.metadata.get("separator") in seps
    for a, b in zip(chunks, chunks[1:]):
        if overlap == 0:
            assert b.start == a.end, "without overlap the chunks tile the text"
        else:
            assert a.start < b.start <= a.end


def check_recursive_langchain(text: str, chunks: list[Chunk], tokenizer: str, params: dict[str, Any]) -> None:
    """LangChain's algorithm: its own length (splits measured alone, summed) within the size unless
    flagged indivisible; chunks stripped unless returned whole; without overlap, no shared text that
    LangChain's length function counts (its merge keeps splits that measure 0)."""
    length = length_function(get_tokenizer(tokenizer), params.get("count_special_tokens", False))
    size = params["chunk_size"]
    seps = PRESETS[params["separators"]] if isinstance(params["separators"], str) else params["separators"]
    assert_valid_chunking(text, chunks)
    for c in chunks:
        length = c.metadata["langchain_length"]
        assert (length > size) == bool(c.metadata.get("indivisible")), (length, size, c.metadata)
        assert c.text == c.text.strip() or length >= size, "only a split returned whole keeps its whitespace"
        if c.reason == "size_limit":
            assert c.metadata.get("separator") in seps
        else:
            assert c.reason in ("end_of_document", "unit_end") and not text[c.end :].strip()
    for a, b in zip(chunks, chunks[1:]):
        assert b.start >= a.start
        if params["overlap"] == 0 and b.start < a.end:  # LangChain keeps splits that measure 0 as overlap
            assert length(text[b.start : a.end]) == 0, (text[b.start : a.end], a, b)


def _unit_map(chunks: list[Chunk]) -> dict[int, int]:
    """Unit index -> character cut, from non-split chunks; must be consistent across chunks."""
    cuts: dict[int, int] = {}
    for c in chunks:
        first, last = c.metadata["units"]
        if c.metadata.get("split_unit"):
            assert last == first + 1, "a split chunk comes from exactly one unit"
            continue
        for unit, pos in ((first, c.start), (last, c.end)):
            assert cuts.setdefault(unit, pos) == pos, f"unit {unit} starts at two different offsets"
    return cuts


def check_sentences(text: str, chunks: list[Chunk], tokenizer: str, params: dict[str, Any]) -> None:
    limit, k = params["max_tokens"], params["overlap_sentences"]
    assert_valid_chunking(text, chunks, limit=limit, tokenizer=tokenizer, strictly_advancing=True)
    _unit_map(chunks)
    tok = get_tokenizer(tokenizer)
    for c in chunks:
        if c.metadata.get("indivisible"):
            assert len(c.text) == 1 and tok.count(c.text) > limit
    for a, b in zip(chunks, chunks[1:]):
        a_first, a_last = a.metadata["units"]
        b_first, b_last = b.metadata["units"]
        split_a, split_b = a.metadata.get("split_unit"), b.metadata.get("split_unit")
        if split_a and split_b and a_first == b_first:
            assert b.start == a.end, "pieces of one split sentence tile it"
            continue
        shared_units = a_last - b_first
        assert 0 <= shared_units <= k, f"{shared_units} sentences repeated, overlap_sentences={k}"
        if split_a or split_b:
            assert shared_units == 0 and b.start == a.end, "no overlap around a split sentence"
        elif shared_units:
            assert b_first > a_first, "the overlap never repeats the whole previous chunk"
            assert b.start < a.end
        else:
            assert b.start == a.end
        assert b_last > a_last or (split_b and b_last == a_last + 1), "every chunk adds new sentences"


def check_paragraphs(text: str, chunks: list[Chunk], tokenizer: str, params: dict[str, Any]) -> None:
    low, high = params["min_tokens"], params["max_tokens"]
    assert_valid_chunking(text, chunks, limit=high, tokenizer=tokenizer, overlap_tokens=0, strictly_advancing=True)
    _unit_map(chunks)
    tok = get_tokenizer(tokenizer)
    assert chunks[0].start == 0 and chunks[-1].end == len(text)
    for a, b in zip(chunks, chunks[1:]):
        assert b.start == a.end, "paragraph chunks tile the text"
    for c in chunks:
        assert bool(c.metadata.get("below_min_tokens")) == (tok.count(c.text) < low)
        if c.metadata.get("indivisible"):
            assert len(c.text) == 1 and tok.count(c.text) > high


def check_reported_counts(chunks: list[Chunk], tokenizer: str) -> None:
    """Every ``token_count`` a strategy reports is the count of that chunk's own text."""
    tok = get_tokenizer(tokenizer)
    for c in chunks:
        if "token_count" in c.metadata:
            assert c.metadata["token_count"] == tok.count(c.text), c


def check(name: str, text: str, chunks: list[Chunk], tokenizer: str, params: dict[str, Any]) -> None:
    check_reported_counts(chunks, tokenizer)
    if name == "fixed_tokens":
        check_fixed_tokens(text, chunks, tokenizer, params)
    elif name == "fixed_chars":
        check_fixed_chars(text, chunks, params)
    elif name == "recursive":
        check_recursive(text, chunks, tokenizer, params)
    elif name == "recursive_langchain":
        check_recursive_langchain(text, chunks, tokenizer, params)
    elif name == "sentences":
        check_sentences(text, chunks, tokenizer, params)
    elif name == "paragraphs":
        check_paragraphs(text, chunks, tokenizer, params)
    else:  # the generic contract; strategies this file does not know may add text (table headers)
        assert_valid_chunking(text, chunks, tokenizer=tokenizer, allow_added_text=True)


def _checked(name: str, text: str, tokenizer: str, params: dict[str, Any]) -> list[Chunk]:
    chunks = run(text, name, tokenizer, params)
    if not text.strip():
        assert chunks == []
        return chunks
    check(name, text, chunks, tokenizer, params)
    return chunks


# ----------------------------------------------------------------------------- the properties

EXAMPLES = {
    "sentences": 70,
    "paragraphs": 90,
    "recursive": 150,
    "recursive_langchain": 100,
    "fixed_tokens": 120,
    "fixed_chars": 100,
}
#: strategies this file has no specific rules for (e.g. ``semantic``, which embeds every example
#: with a neural model) get few examples: the generic contract only, within the time budget
UNKNOWN_EXAMPLES = 5


def n_examples(name: str, known: int) -> int:
    return examples(known if name in KNOWN else UNKNOWN_EXAMPLES)


def _mark(name: str) -> Any:
    return name if name in KNOWN else pytest.param(name, marks=pytest.mark.slow)


ALL_NAMES = [_mark(n) for n in STRATEGY_NAMES]


@pytest.fixture(autouse=True)
def _private_caches(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Strategies with a disk cache (semantic) write into a temporary folder, not ~/.cache."""
    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "chunkviz-cache"))


@pytest.mark.parametrize("tokenizer", MAIN_TOKENIZERS)
@pytest.mark.parametrize("name", ALL_NAMES)
def test_span_contract_on_hostile_text(name: str, tokenizer: str) -> None:
    @settings(max_examples=n_examples(name, EXAMPLES.get(name, 60)), **SETTINGS)
    @given(text=hostile_text(name not in NO_SURROGATES_YET), params=params_for(name))
    def prop(text: str, params: dict[str, Any]) -> None:
        _checked(name, text, tokenizer, params)

    prop()


@pytest.mark.parametrize("name", ALL_NAMES)
def test_span_contract_on_prose(name: str) -> None:
    """Sentence-like text with CRLF paragraphs, where every strategy has real boundaries to find."""

    @settings(max_examples=n_examples(name, 40), **SETTINGS)
    @given(text=prose_text(150), params=params_for(name), tokenizer=st.sampled_from(MAIN_TOKENIZERS))
    def prop(text: str, params: dict[str, Any], tokenizer: str) -> None:
        _checked(name, text, tokenizer, params)

    prop()


@pytest.mark.parametrize("name", ALL_NAMES)
def test_span_contract_with_the_embedding_tokenizer(name: str) -> None:
    @settings(max_examples=n_examples(name, 25), **SETTINGS)
    @given(
        text=st.one_of(prose_text(60), adversarial_text(25), odd_text(15, name not in NO_SURROGATES_YET)),
        params=params_for(name),
    )
    def prop(text: str, params: dict[str, Any]) -> None:
        _checked(name, text, "minilm", params)

    prop()


@pytest.mark.parametrize("name", ALL_NAMES)
def test_default_params_on_hostile_text(name: str) -> None:
    @settings(max_examples=n_examples(name, 20), **SETTINGS)
    @given(text=hostile_text(name not in NO_SURROGATES_YET))
    def prop(text: str) -> None:
        chunks = chunk(text, name)
        assert_valid_chunking(text, chunks, allow_added_text=name not in KNOWN)

    prop()


# A property of these three strategies only: fixed_chars counts the \r characters; sentences depend on spaCy's statistical senter, which
# segments "the the.\r\nthe the." as one sentence and "the the.\nthe the." as two.
@pytest.mark.parametrize("name", ["fixed_tokens", "recursive", "paragraphs"])
def test_crlf_text_chunks_like_lf_text(name: str) -> None:
    """Line-ending style must not change where the words-tokenizer chunkings cut."""

    @settings(max_examples=examples(30), **SETTINGS)
    @given(text=prose_text(60), params=params_for(name))
    def prop(text: str, params: dict[str, Any]) -> None:
        # a custom separator that spells out "\r" cannot match LF text, by definition
        assume(not any("\r" in sep for sep in params.get("separators", [])))
        lf = text.replace("\r\n", "\n")
        assume(lf.strip())
        crlf = lf.replace("\n", "\r\n")
        a = run(lf, name, "words", params)
        b = run(crlf, name, "words", params)
        assert [c.text.replace("\r\n", "\n") for c in b] == [c.text for c in a]
        assert [c.reason for c in b] == [c.reason for c in a]
        assert [c.boundary for c in b] == [c.boundary for c in a]

    prop()


def _word_start(text: str, p: int) -> bool:
    """The overlap search's word boundaries: before a space or tab that follows a non-space, or at a
    line start before a non-space."""
    return (text[p] in " \t" and not text[p - 1].isspace()) or (text[p - 1] == "\n" and not text[p].isspace())


@pytest.mark.parametrize("tokenizer", MAIN_TOKENIZERS)
def test_recursive_overlap_is_word_aligned_and_maximal(tokenizer: str) -> None:
    """The overlap is the *longest* word-aligned tail of the previous chunk within the budget."""
    tok = get_tokenizer(tokenizer)

    @settings(max_examples=examples(80), **SETTINGS)
    @given(text=prose_text(120), size=st.integers(2, 40), data=st.data())
    def prop(text: str, size: int, data: st.DataObject) -> None:
        overlap = data.draw(st.integers(1, size - 1))
        chunks = run(text, "recursive", tokenizer, {"chunk_size": size, "overlap": overlap})
        if not text.strip():
            return
        for a, b in zip(chunks, chunks[1:]):
            boundaries = [q for q in range(a.start + 1, a.end) if _word_start(text, q)]
            fits = [q for q in boundaries if tok.count(text[q : a.end]) <= overlap]
            if b.start >= a.end:
                # no overlap: either nothing fits, or adding the overlap would overflow the next chunk
                if fits:
                    assert tok.count(text[fits[0] : b.end]) > size
                continue
            assert tok.count(text[b.start : a.end]) <= overlap
            if boundaries:  # a text with word boundaries: the overlap starts at one, the furthest back
                assert b.start in boundaries, (b.start, text[b.start - 1 : b.start + 1], boundaries)
                assert b.start == fits[0], "a longer word-aligned tail would also fit the overlap"
            # else: no word boundary in the previous chunk (e.g. CJK): any character boundary

    prop()


# ----------------------------------------------------------------------------- recursive = greedy


def _separator_pattern(sep: str) -> re.Pattern[str]:
    """Separators as the library defines them: "\n\n" and "\n" are the document structure's
    paragraph and line breaks; any other line break in a separator also matches CRLF."""
    if sep == "\n\n":
        return PARAGRAPH_SEPARATOR
    if sep == "\n":
        return LINE_BREAK
    return re.compile(r"\r?\n".join(re.escape(part) for part in sep.split("\n")))


def reference_recursive(text: str, tokenizer: str, size: int, seps: list[str]) -> list[tuple[int, int, bool]]:
    """A slow, obviously-greedy recursive splitter (overlap 0) to compare the fast one with.

    At the first separator that occurs in a piece, every occurrence (overlapping ones too) is
    located; from each position the chunk runs to the *furthest* cut whose span fits (greedy
    merging). A piece that does not fit alone is split with the next separators. The cut
    positions of an occurrence follow the library's documented choice, tested separately: the
    preferred cut of the whole whitespace run around it (``best_cut``), or else the run's start;
    a piece that must be split further runs to the next preferred cut. Search and merging are
    written independently of the library here (brute force, no token-budget arithmetic).
    """
    from chunkviz.text.spancount import SpanCounter, best_cut

    tok = get_tokenizer(tokenizer)
    counter = SpanCounter(text, tok)

    def count(a: int, b: int) -> int:
        return tok.count(text[a:b])

    def run_of(q: int, r: int) -> tuple[int, int]:
        while q > 0 and text[q - 1].isspace():
            q -= 1
        while r < len(text) and text[r].isspace():
            r += 1
        return q, r

    def level_of(a: int, b: int, level: int) -> int | None:
        for lvl in range(level, len(seps)):
            if seps[lvl] == "":
                return lvl if b - a > 1 else None
            if _separator_pattern(seps[lvl]).search(text, a, b):
                return lvl
        return None

    def cuts_of(a: int, b: int, lvl: int) -> tuple[list[int], list[int]]:
        """(cuts a chunk may end at, cuts a too-large piece ends at) strictly inside (a, b)."""
        if seps[lvl] == "":
            every = list(range(a + 1, b))
            return every, every
        pattern = _separator_pattern(seps[lvl])
        fit, piece = set(), set()
        for p in range(a, b):  # every occurrence, overlapping ones included
            m = pattern.match(text, p, b)
            if m:
                run_start, run_end = run_of(m.start(), m.end())
                preferred = best_cut(text, run_start, run_end, counter)
                fit.update(c for c in (preferred, run_start) if a < c < b)
                if a < preferred < b:
                    piece.add(preferred)
        return sorted(fit), sorted(piece)

    out: list[tuple[int, int, bool]] = []

    def split(a: int, b: int, level: int) -> None:
        lvl = level_of(a, b, level)
        if lvl is None:
            out.append((a, b, count(a, b) > size))
            return
        fit_cuts, piece_cuts = cuts_of(a, b, lvl)
        pos = a
        while pos < b:
            if count(pos, b) <= size:
                out.append((pos, b, False))
                return
            fits = [c for c in fit_cuts if c > pos and count(pos, c) <= size]
            if fits:
                out.append((pos, max(fits), False))
                pos = max(fits)
                continue
            nxt = min((c for c in piece_cuts if c > pos), default=b)
            if nxt - pos == 1 or lvl + 1 >= len(seps):
                out.append((pos, nxt, count(pos, nxt) > size))
            else:
                split(pos, nxt, lvl + 1)
            pos = nxt

    split(0, len(text), 0)
    return out


@pytest.mark.parametrize("tokenizer", ["words", "chars"])  # token counts that only grow with the span
def test_recursive_equals_greedy_merging(tokenizer: str) -> None:
    """The lazy splitter must give exactly greedy merging of each level's pieces (its docstring)."""

    @settings(max_examples=examples(300), **SETTINGS)
    @given(
        text=st.one_of(any_text(), prose_text(80)),
        size=st.one_of(st.integers(1, 6), st.integers(1, 40)),
        seps=separators_choice(),
    )
    def prop(text: str, size: int, seps: Any) -> None:
        separators = PRESETS[seps] if isinstance(seps, str) else seps
        chunks = run(text, "recursive", tokenizer, {"chunk_size": size, "overlap": 0, "separators": seps})
        if not text.strip():
            return
        got = [(c.start, c.end, bool(c.metadata.get("indivisible"))) for c in chunks]
        assert got == reference_recursive(text, tokenizer, size, separators)

    prop()


def test_strategy_list_is_complete() -> None:
    assert KNOWN <= set(STRATEGY_NAMES)
