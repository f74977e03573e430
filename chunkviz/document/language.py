"""The language of a document: given by the user, or detected offline from samples of its text.

Detection reads at most :data:`MAX_WINDOWS` windows of :data:`WINDOW_CHARS` characters, evenly
spaced over the text (the whole text in consecutive windows when it is shorter), so a 20 MB
document takes as long as a 16 kB one. Each window with at least :data:`MIN_WINDOW_LETTERS`
letters is classified by py3langid (the ``multilingual`` extra: its model is in its wheel,
nothing is downloaded); dialects are counted as their language (Egyptian Arabic as ``ar``,
Cantonese as ``zh``). A window votes for its language, weighted by its letters, when the
detector gives it at least :data:`MIN_WINDOW_CONFIDENCE`; the language with most votes is the
document's, and every language with at least :data:`MIXED_SHARE` of them is listed
(:attr:`LanguageGuess.shares`: a mixed document says so). Too little text or no confident window
gives the language of the letters' scripts (below), which is English for Latin letters.

Without the extra the letters' scripts decide (kana: Japanese, Han: Chinese, Arabic script:
Arabic, Cyrillic: Russian ...); Latin letters give English, since the script cannot tell.
"""

from __future__ import annotations

import functools
import importlib.util
import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Sequence

from chunkviz.document.scripts import script_of
from chunkviz.document.sentences import segmenter_note

#: The language of a document with too little text to tell (and of one in Latin letters when
#: the detector is not installed).
DEFAULT_LANGUAGE = "en"
#: Characters per sampled window, and at most this many windows per document.
WINDOW_CHARS = 1000
MAX_WINDOWS = 16
#: A window with fewer letters says nothing (a table of numbers, a code block, a heading); a
#: window of mostly other letters than Latin ones needs fewer (a Japanese sentence of 12
#: characters is Japanese, while "eleven twelve" reads as Dutch).
MIN_WINDOW_LETTERS = 20
MIN_WINDOW_LETTERS_NON_LATIN = 5
#: A window whose best language has a lower probability does not vote.
MIN_WINDOW_CONFIDENCE = 0.5
#: A language with at least this share of the votes is listed beside the dominant one.
MIXED_SHARE = 0.15
#: What the detector's labels count as (its dialect and script variants, by their language).
_LANGUAGE_OF_LABEL = {"ary": "ar", "arz": "ar", "wuu": "zh", "yue": "zh", "uzs": "uz", "gug": "gn", "hbo": "he"}
_NO_LANGUAGE = "zxx"  # the detector's label for text without linguistic content
#: The language a script suggests when no detector is installed (Latin: unknown).
_SCRIPT_LANGUAGE = {
    "han": "zh",
    "hangul": "ko",
    "arabic": "ar",
    "hebrew": "he",
    "cyrillic": "ru",
    "greek": "el",
    "devanagari": "hi",
    "bengali": "bn",
    "gurmukhi": "pa",
    "gujarati": "gu",
    "oriya": "or",
    "tamil": "ta",
    "telugu": "te",
    "kannada": "kn",
    "malayalam": "ml",
    "sinhala": "si",
    "thai": "th",
    "lao": "lo",
    "tibetan": "bo",
    "myanmar": "my",
    "georgian": "ka",
    "armenian": "hy",
    "ethiopic": "am",
    "khmer": "km",
}
#: Names of the languages the app offers by name (any other ISO 639 code can be given too).
LANGUAGE_NAMES = {
    "ar": "Arabic",
    "bg": "Bulgarian",
    "bn": "Bengali",
    "ca": "Catalan",
    "cs": "Czech",
    "da": "Danish",
    "de": "German",
    "el": "Greek",
    "en": "English",
    "es": "Spanish",
    "et": "Estonian",
    "fa": "Persian",
    "fi": "Finnish",
    "fr": "French",
    "he": "Hebrew",
    "hi": "Hindi",
    "hr": "Croatian",
    "hu": "Hungarian",
    "hy": "Armenian",
    "id": "Indonesian",
    "it": "Italian",
    "ja": "Japanese",
    "ka": "Georgian",
    "km": "Khmer",
    "ko": "Korean",
    "lo": "Lao",
    "lt": "Lithuanian",
    "lv": "Latvian",
    "mr": "Marathi",
    "ms": "Malay",
    "my": "Burmese",
    "nl": "Dutch",
    "no": "Norwegian",
    "pl": "Polish",
    "pt": "Portuguese",
    "ro": "Romanian",
    "ru": "Russian",
    "sk": "Slovak",
    "sl": "Slovenian",
    "sr": "Serbian",
    "sv": "Swedish",
    "sw": "Swahili",
    "ta": "Tamil",
    "te": "Telugu",
    "th": "Thai",
    "tr": "Turkish",
    "uk": "Ukrainian",
    "ur": "Urdu",
    "vi": "Vietnamese",
    "zh": "Chinese",
}
#: What ``language=`` / ``--language`` take to mean "detect it".
AUTO = "auto"
#: The ISO 639-1 codes (a three-letter ISO 639-2/3 code is taken as it is).
ISO_639_1 = frozenset(
    "aa ab ae af ak am an ar as av ay az ba be bg bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz ee el "
    "en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it "
    "iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt "
    "my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl "
    "sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo "
    "za zh zu".split()
)
#: Country codes and withdrawn codes often given for a language, and the language's code.
_MISTAKEN = {"jp": "ja", "cn": "zh", "kr": "ko", "gr": "el", "cz": "cs", "dk": "da", "ua": "uk", "iw": "he", "in": "id"}
_CODE = re.compile(r"[a-z]{2,3}")


@dataclass(frozen=True)
class LanguageGuess:
    """A document's language and how it is known.

    ``source`` is ``given`` (by the user), ``detected`` (py3langid), ``script`` (from the letters'
    scripts, without the detector) or ``default`` (too little text to tell, or Latin letters
    without the detector). ``confidence`` is the
    share of the sampled text that reads as ``code`` (1.0 when given); ``shares`` the languages
    with at least :data:`MIXED_SHARE` of the sampled windows, largest first.
    """

    code: str
    confidence: float
    source: str
    shares: tuple[tuple[str, float], ...] = ()

    @property
    def mixed(self) -> bool:
        return len(self.shares) > 1

    def brief(self) -> str:
        """``detected 99%``, ``given``, ``assumed``, ``from its script 80%``, with ``, mixed`` when it is:
        short enough for a control's label (:meth:`describe` says it in full)."""
        if self.source in ("given", "default"):
            return "given" if self.source == "given" else "assumed"
        how = "detected" if self.source == "detected" else "from its script"
        return f"{how} {self.confidence:.0%}" + (", mixed" if self.mixed else "")

    def describe(self) -> str:
        """``ja (detected, 99%)``, ``de (given)``, ``en (assumed: no language detected)`` ..."""
        if self.source == "given":
            return f"{self.code} (given)"
        if self.source == "default":
            return f"{self.code} (assumed: no language detected)"
        how = "detected" if self.source == "detected" else "from its script"
        mixed = f"; mixed: {mixed_summary(self.shares)}" if self.mixed else ""
        return f"{self.code} ({how}, {self.confidence:.0%}{mixed})"


def mixed_summary(shares: Sequence[tuple[str, float]]) -> str:
    """``de 60%, en 40%``."""
    return ", ".join(f"{code} {share:.0%}" for code, share in shares)


def language_name(code: str) -> str:
    """``German`` for ``de``; the code itself for a language without a name here."""
    return LANGUAGE_NAMES.get(code, code)


def normalize_language(value: str | None) -> str | None:
    """The language code ``value`` gives (``"de-DE"`` and ``"DE"`` are ``"de"``), or None for
    None, ``""`` and ``"auto"`` (detect it). Anything else that is not a two- or three-letter
    code is a ValueError that says what to give."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError(f"language must be a language code (str) such as 'de', got {type(value).__name__}")
    code = value.strip().lower().replace("_", "-").split("-")[0]
    if code in ("", AUTO):
        return None
    if code in _MISTAKEN:
        raise ValueError(
            f"language {value!r} is not a language code: {language_name(_MISTAKEN[code])} is '{_MISTAKEN[code]}'"
        )
    if not _CODE.fullmatch(code) or (len(code) == 2 and code not in ISO_639_1):
        raise ValueError(
            f"language {value!r} is not a language code: give an ISO 639-1 code such as 'de', 'ja' or 'ar', "
            f"or '{AUTO}' to detect it"
        )
    return code


def given(code: str) -> LanguageGuess:
    return LanguageGuess(code, 1.0, "given")


def sample_windows(length: int) -> list[tuple[int, int]]:
    """The ``(start, end)`` windows detection reads of a text of ``length`` characters: consecutive
    windows of about :data:`WINDOW_CHARS` covering a short text, else :data:`MAX_WINDOWS` evenly
    spaced ones."""
    if length <= WINDOW_CHARS * MAX_WINDOWS:
        count = max(1, math.ceil(length / WINDOW_CHARS))
        size = math.ceil(length / count) if length else 0
        return [(k * size, min(length, (k + 1) * size)) for k in range(count)]
    step = (length - WINDOW_CHARS) / (MAX_WINDOWS - 1)
    return [(round(k * step), round(k * step) + WINDOW_CHARS) for k in range(MAX_WINDOWS)]


def _letters(window: str) -> int:
    """The letters of ``window``; 0 when they are too few to tell its language."""
    letters = [ch for ch in window if ch.isalpha()]
    latin = sum(1 for ch in letters if ch < "\u0250")  # Basic Latin to Latin Extended-B
    needed = MIN_WINDOW_LETTERS if 2 * latin >= len(letters) else MIN_WINDOW_LETTERS_NON_LATIN
    return len(letters) if len(letters) >= needed else 0


def detector_installed() -> bool:
    """Whether py3langid (the ``multilingual`` extra) can be imported; found without importing it."""
    return importlib.util.find_spec("py3langid") is not None


@functools.lru_cache(maxsize=1)
def _identifier() -> Any | None:
    """py3langid's classifier with normalized probabilities (its model is read once: ~1 s); None
    when it is not installed."""
    try:
        from py3langid.langid import MODEL_FILE, LanguageIdentifier
    except ImportError:
        return None
    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def _probabilities(identifier: Any, window: str) -> dict[str, float]:
    """Each language's probability for ``window``, dialects counted as their language."""
    merged: dict[str, float] = {}
    for label, probability in identifier.rank(window):
        language = _LANGUAGE_OF_LABEL.get(label, label)
        merged[language] = merged.get(language, 0.0) + float(probability)
    return merged


def detect_language(text: str) -> LanguageGuess:
    """The language of ``text`` from at most :data:`MAX_WINDOWS` windows (see module docstring)."""
    # line endings say nothing of a language: a CRLF text is detected as its LF copy is
    windows = [text[start:end].replace("\r\n", "\n").replace("\r", "\n") for start, end in sample_windows(len(text))]
    lettered = [(window, letters) for window in windows if (letters := _letters(window))]
    if not lettered:
        return LanguageGuess(DEFAULT_LANGUAGE, 0.0, "default")
    identifier = _identifier()
    if identifier is None:
        return _guess_from_scripts([window for window, _ in lettered])
    weights = [letters for _, letters in lettered]
    probabilities = [_probabilities(identifier, window) for window, _ in lettered]
    votes: Counter[str] = Counter()
    for probability, weight in zip(probabilities, weights):
        code, best = max(probability.items(), key=lambda item: item[1])
        if best >= MIN_WINDOW_CONFIDENCE and code != _NO_LANGUAGE:
            votes[code] += weight
    if not votes:  # e.g. a short Cyrillic text (Russian, Bulgarian or Macedonian?): its script tells more than English
        return _guess_from_scripts([window for window, _ in lettered])
    dominant = votes.most_common(1)[0][0]
    confidence = sum(p.get(dominant, 0.0) * w for p, w in zip(probabilities, weights)) / sum(weights)
    return LanguageGuess(dominant, round(confidence, 4), "detected", _shares(votes))


def language_notes(guess: LanguageGuess) -> list[str]:
    """What a user should know about a document's language: that it is mixed, and that its
    sentences need the ``multilingual`` extra to be segmented properly."""
    notes = []
    if guess.mixed:
        notes.append(
            f"mixed languages ({mixed_summary(guess.shares)}): sentences are segmented as {guess.code}, "
            "the dominant one; set the language to choose another"
        )
    missing = segmenter_note(guess.code)
    if missing is not None:
        notes.append(missing)
    return notes


def _shares(votes: Counter[str]) -> tuple[tuple[str, float], ...]:
    total = sum(votes.values())
    return tuple((code, round(count / total, 4)) for code, count in votes.most_common() if count / total >= MIXED_SHARE)


def _guess_from_scripts(windows: Sequence[str]) -> LanguageGuess:
    """The language the letters' scripts suggest (see module docstring)."""
    scripts: Counter[str] = Counter()
    for window in windows:
        scripts.update(script_of(ch) or "other" for ch in window if ch.isalpha())
    if scripts["hiragana"] + scripts["katakana"]:  # Japanese writes Han with kana; Chinese has none
        scripts["han"] += scripts.pop("hiragana", 0) + scripts.pop("katakana", 0)  # counted as Japanese below
        japanese = True
    else:
        japanese = False
    script, count = scripts.most_common(1)[0]
    language = "ja" if script == "han" and japanese else _SCRIPT_LANGUAGE.get(script)
    if language is None:
        return LanguageGuess(DEFAULT_LANGUAGE, 0.0, "default")
    return LanguageGuess(language, round(count / sum(scripts.values()), 4), "script")


__all__ = [
    "AUTO",
    "DEFAULT_LANGUAGE",
    "LANGUAGE_NAMES",
    "LanguageGuess",
    "detect_language",
    "detector_installed",
    "given",
    "language_name",
    "language_notes",
    "mixed_summary",
    "normalize_language",
    "sample_windows",
]
