"""Writing systems of characters: the one table of Unicode script ranges chunkviz reads.

Two questions are asked of it: which script a letter is written in (a document's language is
guessed from its scripts when the language detector is not installed, see
:mod:`chunkviz.document.language`), and whether a script is written without spaces between its
words (Chinese, Japanese, Thai, Lao, Khmer, Myanmar, Tibetan): a cut between two such letters is
not known to split a word (:mod:`chunkviz.document.words`).
"""

from __future__ import annotations

import bisect
import re

#: Scripts whose words are not separated by spaces.
UNSPACED_SCRIPTS = frozenset({"han", "hiragana", "katakana", "thai", "lao", "khmer", "myanmar", "tibetan"})

# (first, last, script) of the main Unicode blocks of each script, sorted and not overlapping;
# the Latin, Greek and Cyrillic letters outside these (and everything else) have no script here.
_RANGES: tuple[tuple[int, int, str], ...] = (
    (0x0041, 0x024F, "latin"),
    (0x0370, 0x03FF, "greek"),
    (0x0400, 0x052F, "cyrillic"),
    (0x0530, 0x058F, "armenian"),
    (0x0590, 0x05FF, "hebrew"),
    (0x0600, 0x06FF, "arabic"),
    (0x0750, 0x077F, "arabic"),
    (0x08A0, 0x08FF, "arabic"),
    (0x0900, 0x097F, "devanagari"),
    (0x0980, 0x09FF, "bengali"),
    (0x0A00, 0x0A7F, "gurmukhi"),
    (0x0A80, 0x0AFF, "gujarati"),
    (0x0B00, 0x0B7F, "oriya"),
    (0x0B80, 0x0BFF, "tamil"),
    (0x0C00, 0x0C7F, "telugu"),
    (0x0C80, 0x0CFF, "kannada"),
    (0x0D00, 0x0D7F, "malayalam"),
    (0x0D80, 0x0DFF, "sinhala"),
    (0x0E00, 0x0E7F, "thai"),
    (0x0E80, 0x0EFF, "lao"),
    (0x0F00, 0x0FFF, "tibetan"),
    (0x1000, 0x109F, "myanmar"),
    (0x10A0, 0x10FF, "georgian"),
    (0x1100, 0x11FF, "hangul"),
    (0x1200, 0x139F, "ethiopic"),
    (0x1780, 0x17FF, "khmer"),
    (0x19E0, 0x19FF, "khmer"),
    (0x1C80, 0x1C8F, "cyrillic"),
    (0x1E00, 0x1EFF, "latin"),
    (0x1F00, 0x1FFF, "greek"),
    (0x2DE0, 0x2DFF, "cyrillic"),
    (0x3005, 0x3007, "han"),  # 々 〆 〇
    (0x3021, 0x3029, "han"),  # Hangzhou numerals
    (0x3031, 0x3035, "katakana"),  # kana repeat marks
    (0x3040, 0x309F, "hiragana"),
    (0x30A0, 0x30FF, "katakana"),  # with ー, the prolonged sound mark
    (0x3130, 0x318F, "hangul"),
    (0x31F0, 0x31FF, "katakana"),
    (0x3400, 0x4DBF, "han"),
    (0x4E00, 0x9FFF, "han"),
    (0xA640, 0xA69F, "cyrillic"),
    (0xA9E0, 0xA9FF, "myanmar"),
    (0xAA60, 0xAA7F, "myanmar"),
    (0xAC00, 0xD7AF, "hangul"),
    (0xF900, 0xFAFF, "han"),
    (0xFB1D, 0xFB4F, "hebrew"),
    (0xFB50, 0xFDFF, "arabic"),
    (0xFE70, 0xFEFF, "arabic"),
    (0xFF66, 0xFF9F, "katakana"),  # half-width
    (0x20000, 0x323AF, "han"),
)
_FIRSTS = [first for first, _, _ in _RANGES]


def script_of(ch: str) -> str | None:
    """The script of a letter (``"han"``, ``"arabic"``, ``"latin"`` ...), or None when it has none
    in the table. Ask about letters only: the ranges are whole Unicode blocks, with the block's
    punctuation (``"["`` is in the Latin range)."""
    code = ord(ch)
    k = bisect.bisect_right(_FIRSTS, code) - 1
    if k < 0:
        return None
    first, last, script = _RANGES[k]
    return script if code <= last else None


def is_unspaced(ch: str) -> bool:
    """True for a character of a script written without spaces between words (see :data:`UNSPACED_SCRIPTS`)."""
    return ord(ch) >= 0x0E00 and script_of(ch) in UNSPACED_SCRIPTS


#: The letters of the scripts written without spaces, as one character class.
_UNSPACED_LETTER = re.compile(
    "["
    + "".join(f"\\U{first:08x}-\\U{last:08x}" for first, last, script in _RANGES if script in UNSPACED_SCRIPTS)
    + "]"
)
_LETTER = re.compile(r"[^\W\d_]")
#: How much of a text :func:`mostly_unspaced` reads (the start of a long document says enough).
UNSPACED_SAMPLE = 100_000


def mostly_unspaced(text: str) -> bool:
    """True when most letters of ``text`` (of its first :data:`UNSPACED_SAMPLE` characters) are of a
    script written without spaces: counting its words at spaces would count sentences, not words."""
    sample = text[:UNSPACED_SAMPLE]
    letters = len(_LETTER.findall(sample))
    return letters > 0 and 2 * len(_UNSPACED_LETTER.findall(sample)) > letters


__all__ = ["UNSPACED_SCRIPTS", "UNSPACED_SAMPLE", "is_unspaced", "mostly_unspaced", "script_of"]
