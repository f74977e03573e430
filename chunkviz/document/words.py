"""Words and user-perceived characters: the one definition of "a cut inside a word".

A cut splits a word when it has word characters (letters, digits, marks) on both sides, or when
it falls between the code points of one grapheme (CR LF, a combining mark or ZWJ sequence, a
skin-tone modifier, a flag pair). A letter of a script written without spaces (Chinese,
Japanese, Thai, Lao, Khmer, Myanmar, Tibetan) on either side does not make it one: where such a
word ends is not known from the text, so a cut there splits a sentence (the "cuts a sentence"
flag says so), not a known word: the structure calls it ``inside_sentence``
(:func:`joins_unspaced_letters`). The structure's ``inside_word`` boundary and the diagnostics'
"cuts a word" flag both use :func:`cuts_mid_word`.
"""

from __future__ import annotations

import unicodedata

from chunkviz.document.scripts import is_unspaced

_ZWJ = "\u200d"
_ZWNJ = "\u200c"


def _is_word_char(ch: str) -> bool:
    """Letters, digits and marks (not whitespace, punctuation or symbols)."""
    return unicodedata.category(ch)[0] in "LNM"


def _is_regional_indicator(ch: str) -> bool:
    return "\U0001f1e6" <= ch <= "\U0001f1ff"


def _joins_previous(ch: str) -> bool:
    """Code points that extend the grapheme before them (marks, ZWJ/ZWNJ, emoji modifiers, tags)."""
    return (
        unicodedata.category(ch)[0] == "M"  # combining marks, variation selectors, keycap
        or ch in (_ZWJ, _ZWNJ)
        or "\U0001f3fb" <= ch <= "\U0001f3ff"  # skin-tone modifiers
        or "\U000e0020" <= ch <= "\U000e007f"  # tag characters (flag sequences)
    )


def splits_grapheme(text: str, pos: int) -> bool:
    """True when ``pos`` falls between the code points of one user-perceived character.

    Covers CR LF, a combining mark / ZWJ / variation selector / skin-tone modifier / tag after
    the cut, a character joined by a ZWJ before the cut, and the middle of a regional-indicator
    flag pair. (Cuts between two letters, e.g. Hangul jamo, are mid-word anyway.)
    """
    if pos <= 0 or pos >= len(text):
        return False
    before, after = text[pos - 1], text[pos]
    if before == "\r":
        return after == "\n"
    if before == "\n":
        return False
    if _joins_previous(after):
        return True
    if before in (_ZWJ, _ZWNJ):
        return not after.isspace()
    if _is_regional_indicator(before) and _is_regional_indicator(after):
        run = 0
        k = pos - 1
        while k >= 0 and _is_regional_indicator(text[k]):
            run += 1
            k -= 1
        return run % 2 == 1
    return False


def cuts_mid_word(text: str, pos: int) -> bool:
    """True when cutting at ``pos`` splits a word (word characters on both sides, neither of a
    script written without spaces) or a grapheme.

    Cuts at the document's start or end never split anything.
    """
    if pos <= 0 or pos >= len(text):
        return False
    before, after = text[pos - 1], text[pos]
    if _is_word_char(before) and _is_word_char(after) and not (is_unspaced(before) or is_unspaced(after)):
        return True
    return splits_grapheme(text, pos)


def joins_unspaced_letters(text: str, pos: int) -> bool:
    """True when ``pos`` falls between two word characters of which one is of a script written
    without spaces (``日|本``, ``約|1400``): inside a sentence, at no known word boundary."""
    if pos <= 0 or pos >= len(text):
        return False
    before, after = text[pos - 1], text[pos]
    return _is_word_char(before) and _is_word_char(after) and (is_unspaced(before) or is_unspaced(after))


__all__ = ["cuts_mid_word", "joins_unspaced_letters", "splits_grapheme"]
