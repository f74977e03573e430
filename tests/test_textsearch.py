"""chunkviz/text/textsearch.py: ``find`` and ``rfind`` answer as ``str``'s do, through its index too."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.texts import SETTINGS, examples

from chunkviz.text import textsearch
from chunkviz.text.textsearch import ANCHOR, TextSearch

#: Few letters, so that texts repeat; a lone surrogate and an astral character among them.
ALPHABET = st.sampled_from(["a", "b", "ab ", "\n", "\ud800", "😀", "abcdefgh"])


@settings(max_examples=examples(300), **SETTINGS)
@given(
    text=st.lists(ALPHABET, max_size=120).map("".join),
    queries=st.lists(
        st.tuples(st.integers(0, 200), st.integers(1, 40), st.integers(-5, 250), st.integers(-5, 250)), max_size=12
    ),
    foreign=st.lists(ALPHABET, min_size=1, max_size=12).map("".join),
    common=st.sampled_from([0, 64]),
)
def test_find_and_rfind_are_strs_own(
    text: str, queries: list[tuple[int, int, int, int]], foreign: str, common: int
) -> None:
    """Substrings of the text and other strings, over ranges inside and beyond it, with a near
    window of 4 characters so that most answers come from the index (``common`` 0: through
    the rarest of every anchor of the text sought)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(textsearch, "NEAR", 4)
        patch.setattr(textsearch, "COMMON", common)
        search = TextSearch(text)
        for at, length, start, end in queries:
            sub = text[at : at + length] if at < len(text) else foreign
            for s, e in ((start, end), (0, None), (start, None)):
                want_s, want_e = max(s, 0), None if e is None else max(e, 0)  # clamped, not from the end
                assert search.find(sub, s, e) == text.find(sub, want_s, want_e), (sub, s, e)
                assert search.rfind(sub, s, e) == text.rfind(sub, want_s, want_e), (sub, s, e)
            assert search.find(foreign + sub) == text.find(foreign + sub)


def test_a_text_absent_from_a_long_document_is_answered_by_the_index() -> None:
    """Past the near window no scan: the index says an anchor of the text occurs nowhere."""
    document = "".join(f"line {i} of the log\n" for i in range(20_000))
    search = TextSearch(document)
    assert search.find("line 19999 of the log") == document.find("line 19999 of the log")
    assert search.find("line 20000 of the log") == -1
    assert search.rfind("line 3 of the log", 0, len(document)) == document.rfind("line 3 of the log")
    assert search.find("short") == -1 and len("short") < ANCHOR  # scanned: shorter than an anchor
