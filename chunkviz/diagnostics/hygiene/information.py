"""Low-information chunks: almost no letters, or almost only stop words, markup and numbers.

A table of dashes, a row of numbers, a lone heading, a closing brace: an embedding of such a chunk
matches everything a little and nothing well. A *content word* is a run of two letters or more that
is not an English stop word (each CJK character counts as one: those scripts write no spaces). A
chunk is flagged when it has fewer content words than the rule's minimum, or when letters are under
a fifth of its visible characters (markup or numbers, whatever the words).
"""

from __future__ import annotations

import re

#: Under this share of letters among the visible characters, a chunk is markup or numbers.
MIN_LETTER_SHARE = 0.2

_WORD = re.compile(r"[^\W\d_]{2,}")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")

#: Words that carry no topic on their own (English; other languages' words all count as content).
STOP_WORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have having
    he her here hers herself him himself his how i if in into is it its itself just me more most my myself no
    nor not now of off on once only or other our ours ourselves out over own same she should so some such than
    that the their theirs them themselves then there these they this those through to too under until up very
    was we were what when where which while who whom why will with would you your yours yourself yourselves
    also may might must shall yes ok okay oh""".split()
)


def content_words(text: str) -> int:
    """Runs of two letters or more that are not stop words, plus one per CJK character."""
    cjk = len(_CJK.findall(text))
    words = sum(1 for w in _WORD.findall(text) if not _CJK.match(w) and w.casefold() not in STOP_WORDS)
    return words + cjk


def low_information(text: str, min_words: int) -> str | None:
    """Why ``text`` carries almost no information (plain words), or None when it does."""
    visible = sum(1 for c in text if not c.isspace())
    if visible == 0:
        return "only whitespace"
    letters = sum(1 for c in text if c.isalpha())
    if letters == 0:
        return "no letters at all"
    words = content_words(text)
    if words < min_words:
        return f"{words} content word{'' if words == 1 else 's'} (under {min_words}): markup, numbers or stop words"
    if letters < MIN_LETTER_SHARE * visible:
        return f"letters are {100 * letters / visible:.0f} % of its characters: mostly markup or numbers"
    return None
