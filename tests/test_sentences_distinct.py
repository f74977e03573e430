"""The sentence segmentation's shortcuts give what the plain path gives, exactly.

Two shortcuts (chunkviz/document/sentences.py and chunkviz/document/senter.py):

* a block whose text repeats in the same call is segmented once (``_starts_of_distinct``);
* spaCy's senter embeds each distinct row of token attributes once (``senter_scores``), then
  runs its window encoder and softmax on every token as ``nlp.pipe`` does.

Each is compared with the plain path (every block segmented, ``nlp.pipe`` in batches of 64):
the senter's scores bit for bit, and the sentence starts, on generated text and on the real
documents.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.paths import REALDOCS, read_realdoc, realdoc_paths

import chunkviz
from chunkviz.document import sentences
from chunkviz.document import senter as senter_module
from chunkviz.document.sentences import Segmenter, get_segmenter, sentence_starts, sentence_starts_per_block
from chunkviz.document.senter import runs_senter_itself, senter_scores, senter_starts

CHROMA_CORPORA = REALDOCS.parent / "eval" / "chroma" / "corpora"
#: Chroma's corpora read here (the small ones: the test stays fast), and the characters read of each.
CHROMA_NAMES = ("chatlogs.md", "state_of_the_union.md", "wikitexts.md")
CHROMA_CHARS = 60_000


def _senter_nlp() -> Any:
    """The spaCy pipeline of the English segmenter; the test skips without a senter model."""
    segmenter = get_segmenter("en")
    if "(senter)" not in segmenter.name:
        pytest.skip(f"no spaCy senter model installed (the English segmenter is {segmenter.name})")
    starts = segmenter.starts
    assert isinstance(starts, functools.partial)
    return starts.args[0]


def _plain_scores(nlp: Any, docs: list[Any]) -> list[Any]:
    """The senter's scores as ``nlp.pipe(batch_size=64)`` computes them."""
    model = nlp.get_pipe("senter").model
    scores: list[Any] = []
    for k in range(0, len(docs), 64):
        batch = docs[k : k + 64]
        scores += list(model.predict(batch)) if any(len(doc) for doc in batch) else [None] * len(batch)
    return scores


def _plain_starts(nlp: Any, blocks: list[str]) -> list[list[int]]:
    return [[sent.start_char for sent in doc.sents] for doc in nlp.pipe(blocks, batch_size=64)]


def _assert_same_as_the_pipeline(nlp: Any, blocks: list[str]) -> None:
    docs = [nlp.make_doc(block) for block in blocks]
    fast = senter_scores(nlp, docs) if any(len(doc) for doc in docs) else [None] * len(docs)
    for k, (mine, plain) in enumerate(zip(fast, _plain_scores(nlp, docs))):
        if plain is not None and len(plain):
            assert np.array_equal(mine, plain), f"block {k}: {blocks[k][:80]!r}"
    assert senter_starts(nlp, blocks) == _plain_starts(nlp, blocks)


def _paragraph_forms(text: str) -> list[str]:
    """What the segmenter reads of each paragraph of ``text``."""
    paragraphs = chunkviz.Document(text).structure.paragraphs
    return [sentences._segmenter_form(sentences._lf_form(text[s:e])[0])[0] for s, e in paragraphs]


def _real_texts() -> list[tuple[str, str]]:
    texts = [(path.name, read_realdoc(path)) for path in realdoc_paths()]
    for name in CHROMA_NAMES:
        if (CHROMA_CORPORA / name).is_file():
            text = read_realdoc(CHROMA_CORPORA / name)
            cut = text.find("\n\n", CHROMA_CHARS)
            texts.append((name, text if cut < 0 else text[:cut]))
    return texts


# ---- the senter, distinct rows of attributes embedded once ----------------------------------


def test_the_installed_senter_is_run_by_the_shortcut() -> None:
    assert runs_senter_itself(_senter_nlp())


@pytest.mark.skipif(not REALDOCS.is_dir(), reason="shared realdocs folder not found")
def test_the_senter_scores_equal_the_pipelines_on_the_real_documents() -> None:
    nlp = _senter_nlp()
    for name, text in _real_texts():
        blocks = _paragraph_forms(text)
        try:
            _assert_same_as_the_pipeline(nlp, blocks)
        except AssertionError as exc:
            raise AssertionError(f"{name}: {exc}") from exc


_WORDS = st.sampled_from(
    "the The of a Mr. Dr. U.S. e.g. i.e. don't It's 3.5 1999 $20 (see [1] \"quoted\" 'single' — - -- : ; , "
    "Hello world WORLD x42 http://a.b/c foo_bar naïve café 日本語 ! ? ... . .. ?! Yes. No! Why?".split(" ")
)
_SPACES = st.sampled_from([" ", " ", " ", "  ", "\n", "\n", "\t", " \n "])
_BLOCK = st.lists(st.tuples(_WORDS, _SPACES), min_size=1, max_size=60).map(
    lambda pairs: "".join(w + s for w, s in pairs).strip() or "x"
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_BLOCK, min_size=1, max_size=12), st.data())
def test_the_senter_scores_equal_the_pipelines_on_generated_text(blocks: list[str], data: st.DataObject) -> None:
    repeated = blocks + data.draw(st.lists(st.sampled_from(blocks), max_size=6))  # repeats across blocks
    _assert_same_as_the_pipeline(_senter_nlp(), repeated)


def test_a_collision_of_row_keys_falls_back_to_every_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows that fold into one key are checked: with every key the same, each row is its own."""
    rows = np.array([[1, 2, 3, 4, 0], [5, 6, 7, 8, 1], [1, 2, 3, 4, 0]], dtype=np.uint64)
    distinct, inverse = senter_module._distinct_rows(rows)
    assert len(distinct) == 2 and np.array_equal(distinct[inverse], rows)
    monkeypatch.setattr(senter_module, "_ROW_MULTIPLIERS", np.zeros(5, dtype=np.uint64))
    distinct, inverse = senter_module._distinct_rows(rows)
    assert np.array_equal(distinct, rows) and list(inverse) == [0, 1, 2]
    _assert_same_as_the_pipeline(_senter_nlp(), ["Hello there. It's 3.5 m long.", "Mr. Smith left. Then he came."])


# ---- repeated blocks segmented once -----------------------------------------------------------


class _Counting:
    """A segmenter that records the blocks it is given (starts after each ". ")."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def starts(self, blocks: list[str]) -> list[list[int]]:
        self.seen.extend(blocks)
        return [[0, *(k + 2 for k in range(len(b) - 2) if b[k : k + 2] == ". ")] for b in blocks]


def test_a_repeated_paragraph_is_segmented_once() -> None:
    text = "One. Two.\n\nThree. Four.\n\nOne. Two.\r\n\r\nOne. Two.\n\nThree. Four.\n"
    counting = _Counting()
    segmenter = Segmenter("counting", counting.starts)
    paragraphs = chunkviz.Document(text).structure.paragraphs
    found = sentence_starts(text, paragraphs, segmenter)
    assert sorted(counting.seen) == ["One. Two.", "Three. Four."]
    assert found == [k for k in range(len(text)) if text.startswith(("One", "Two", "Three", "Four"), k)]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_BLOCK, min_size=1, max_size=6), st.data())
def test_segmenting_distinct_blocks_gives_every_blocks_starts(blocks: list[str], data: st.DataObject) -> None:
    """With the real segmenter, on a text whose paragraphs repeat (some with CRLF line ends)."""
    order = data.draw(st.lists(st.sampled_from(blocks), min_size=1, max_size=10))
    crlf = data.draw(st.lists(st.booleans(), min_size=len(order), max_size=len(order)))
    text = "\n\n".join(b.replace("\n", "\r\n") if c else b for b, c in zip(order, crlf)) + "\n"
    paragraphs = chunkviz.Document(text).structure.paragraphs
    segmenter = get_segmenter("en")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sentences, "_starts_of_distinct", lambda seg, forms: seg.starts(forms))
        plain = sentence_starts_per_block(text, paragraphs, segmenter)
    assert sentence_starts_per_block(text, paragraphs, segmenter) == plain


def test_small_batches_give_the_same_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks are read a batch of about ``BATCH_TOKENS`` tokens at a time; where the batches
    end changes nothing."""
    nlp = _senter_nlp()
    blocks = ["Hello there. It's 3.5 m long.", "x", "Mr. Smith left.\nThen he came back!", "Yes. No. Why?"] * 3
    monkeypatch.setattr(senter_module, "BATCH_TOKENS", 5)
    assert senter_starts(nlp, blocks) == _plain_starts(nlp, blocks)
