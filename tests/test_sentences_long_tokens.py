"""Sentence segmentation on long runs of non-space characters (issue 23 item 3).

spaCy's tokenizer strips one prefix or suffix at a time from a whitespace-free piece and searches
the rest again each time: a 16 kB line of ``=`` took 91 s in ``diagnose`` and 95 s in
``sentences``, ``!`` as bad, and any run of punctuation alike. The segmenter now reads a form of
each block with no run of one character over ``MAX_TOKEN_CHARS`` and no whitespace-free run over
it either (:func:`chunkviz.document.sentences._segmenter_form`); offsets map back exactly.

No clock is read: the work is the characters spaCy's suffix search reads, counted at three sizes.
"""

from __future__ import annotations

import random
from typing import Any, Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.chunking import assert_valid_chunking

import chunkviz
from chunkviz.document import sentences
from chunkviz.document.model import Document
from chunkviz.document.sentences import (
    MAX_TOKEN_CHARS,
    Segmenter,
    _block_offset,
    _segmenter_form,
    sentence_starts,
)
from chunkviz.document.structure import Structure

SIZES = (1_000, 4_000, 16_000)
MAX_RATIO = 6.0  # linear grows 4x, quadratic 16x


def _varied(n: int, alphabet: str) -> str:
    rng = random.Random(n)  # another text at each size: nothing is read from spaCy's cache
    return "".join(rng.choice(alphabet) for _ in range(n))


#: Long whitespace-free runs of several classes: one repeated non-word character (others than the
#: issue's ``=`` and ``!``), mixed punctuation that never repeats a piece, punctuation glued to
#: words, and a long word.
SHAPES: dict[str, Callable[[int], str]] = {
    "dashes": lambda n: "Intro. " + "-" * n + " The end.",
    "tildes_lines": lambda n: "Intro.\n" + ("~" * (n // 4) + "\n") * 4 + "End.",
    "full_stops": lambda n: "Intro " + "." * n + " End.",
    "non_ascii_symbol": lambda n: "Intro. " + "\u2014" * n + " End.",  # em dash
    "mixed_punctuation": lambda n: "Intro. " + _varied(n, "=!?-*#~^.,;:)(][") + " End.",
    "punctuation_and_words": lambda n: "Intro. " + _varied(n, "ab.!?,;)(x1") + " End.",
    "one_long_word": lambda n: "Intro. " + _varied(n, "abcdefghij") + " end.",
}


class CountingSegmenter:
    """spaCy's rule-based sentencizer (the English tokenizer of every spaCy segmenter here), its
    suffix search counting the characters it reads."""

    def __init__(self) -> None:
        segmenter = sentences._sentencizer_segmenter()
        if segmenter is None:
            pytest.skip("spaCy is not installed")
        self.segmenter = segmenter
        tokenizer = segmenter.starts.args[0].tokenizer  # type: ignore[attr-defined]
        search = tokenizer.suffix_search
        self.read = 0

        def counting(string: str) -> Any:
            self.read += len(string)
            return search(string)

        tokenizer.suffix_search = counting  # set once: setting it rebuilds the tokenizer's cache

    def suffix_chars(self, text: str) -> int:
        """Characters the suffix search reads while ``text`` is segmented."""
        self.read = 0
        starts = sentence_starts(text, Structure(text, "none").paragraphs, self.segmenter)
        assert starts and all(not text[p].isspace() for p in starts)
        return self.read


@pytest.fixture(scope="module")
def counting() -> CountingSegmenter:
    return CountingSegmenter()


@pytest.mark.parametrize("shape", list(SHAPES))
def test_segmenting_long_runs_is_linear(shape: str, counting: CountingSegmenter) -> None:
    make = SHAPES[shape]
    measured = [counting.suffix_chars(make(n)) for n in SIZES]
    for n, chars in zip(SIZES, measured):
        assert chars <= 2 * MAX_TOKEN_CHARS * (n + 100), f"{shape}: suffix search read {measured} at {SIZES}"
    for small, large in zip(measured, measured[1:]):
        assert large <= MAX_RATIO * small, f"{shape}: suffix search read {measured} characters at {SIZES}"


def test_the_measure_catches_the_old_shape(counting: CountingSegmenter, monkeypatch: pytest.MonkeyPatch) -> None:
    """Given whole, a run of ``=`` makes the suffix search read the square of its length."""
    monkeypatch.setattr(sentences, "_segmenter_form", lambda block: (block, []))
    measured = [counting.suffix_chars("=" * n) for n in (200, 800)]
    assert measured[1] > MAX_RATIO * measured[0]


def _recording_segmenter(seen: list[str]) -> Segmenter:
    def starts(blocks: list[str]) -> list[list[int]]:
        seen.extend(blocks)
        # a start after every space and at every character that follows a cut of ours
        return [[0, *(k + 1 for k, ch in enumerate(b) if ch == " " and k + 1 < len(b))] for b in blocks]

    return Segmenter("recording", starts)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(alphabet="ab.!= \n\t", max_size=40),
            st.builds(lambda ch, k: ch * k, st.sampled_from("=!-.*~a\u2014\U0001f600"), st.integers(1, 200)),
            st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=80),
        ),
        max_size=8,
    ).map("".join)
)
def test_the_segmenter_form_maps_back_exactly(block: str) -> None:
    """Every character of the form that is not an inserted space is the block's character at the
    position it maps to; positions keep their order; no run the segmenter reads is too long."""
    form, steps = _segmenter_form(block)
    assert not any(len(run) > MAX_TOKEN_CHARS for run in form.split())
    inserted = {k for k in range(len(form) - 1) if _block_offset(k + 1, steps) is None}
    assert all(form[k] == " " for k in inserted)
    mapped = []
    for offset, ch in enumerate(form):
        pos = _block_offset(offset, steps)
        if offset in inserted or pos is None:  # a space of ours, or the character after it
            continue
        assert block[pos] == ch
        mapped.append(pos)
    assert mapped == sorted(set(mapped))
    assert len(form) - len(inserted) <= len(block)
    if len(block) <= MAX_TOKEN_CHARS or not any(len(run) > MAX_TOKEN_CHARS for run in block.split()):
        assert form == block and not steps  # nothing changes where nothing is long


def test_starts_at_our_cuts_are_dropped_and_the_rest_map_back() -> None:
    text = "First one. " + "=" * 100 + " " + "ab" * 60 + " Last one."
    seen: list[str] = []
    starts = sentence_starts(text, [(0, len(text))], _recording_segmenter(seen))
    assert max(len(run) for block in seen for run in block.split()) <= MAX_TOKEN_CHARS
    # the recording segmenter starts a sentence after each space: the text's own spaces only
    assert [text[p : p + 4] for p in starts] == ["Firs", "one.", "====", "abab", "Last", "one."]


@pytest.mark.parametrize("strategy", ["sentences", "semantic"])
def test_sentence_strategies_keep_exact_spans_on_long_runs(strategy: str, request: pytest.FixtureRequest) -> None:
    params: dict[str, Any] = {"max_tokens": 8}
    if strategy == "semantic":
        params["model"] = request.getfixturevalue("fake_model")
        request.getfixturevalue("semantic_cache_dir")
    text = "A line. " + "#" * 3000 + "\n" + _varied(2000, "?!.;ab ") + "\nLast line here. Done."
    chunks = chunkviz.chunk(Document(text), strategy, tokenizer="cl100k_base", **params)
    assert_valid_chunking(text, chunks)


def test_a_long_run_of_one_character_reaches_the_segmenter_shortened() -> None:
    """``diagnose`` reads the document's sentences: a line of one character is segmented as its first piece."""
    text = "!" * 20_000 + "\n"
    seen: list[str] = []
    structure = Structure(text, "markdown", segmenter=_recording_segmenter(seen))
    assert structure.sentence_starts == (0,)
    assert sum(map(len, seen)) <= MAX_TOKEN_CHARS + 1
