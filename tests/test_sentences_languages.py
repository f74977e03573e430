"""Sentences in every language (issue 37): the document's language chooses the segmenter (spaCy
for English, sentencex for the others, a regex without the extra); spans are exact; abbreviations
are not sentence ends; a cut between two characters of a script written without spaces is not a
mid-word cut."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chunkviz
from chunkviz.core.vocabulary import Boundary, Flag
from chunkviz.diagnostics import diagnose
from chunkviz.document import sentences
from chunkviz.document.model import Document
from chunkviz.document.sentences import SENTENCEX_CONTEXT, _piece_starts, _windowed_starts, get_segmenter
from chunkviz.document.words import cuts_mid_word

sentencex = pytest.importorskip("sentencex")


def sentences_of(text: str, language: str | None = None) -> list[str]:
    document = Document(text, given_language=language)
    return [text[a:b] for a, b in document.structure.trimmed_sentences]


# ---- exact spans per language -------------------------------------------------------------------
EXPECTED = {
    "de": [
        "Das Treffen beginnt z. B. um 9 Uhr.",
        "Dr. Weber leitet es in Raum Nr. 5 im Erdgeschoss.",
        "Am 3. Oktober ist das Büro geschlossen, d. h. niemand ist da.",
        "Prof. Dr. Schmidt kommt ca. um 10 Uhr bzw. später.",
        "Ende.",
    ],
    "fr": [
        "M. Dupont arrive à 9 h.",
        "Il y a p. ex. trois options.",
        "Mme Durand, c.-à-d. la directrice, est là.",
        "Voir le chap. 3 et la p. 12.",
        "Le Dr. Martin parle.",
        "Fin.",
    ],
    "es": [
        "Hay p. ej. tres opciones.",
        "El Sr. García y la Dra. López llegan a las 9.",
        "Vive en la calle Mayor núm. 5.",
        "Los EE. UU. son grandes.",
        "Fin.",
    ],
    "ja": [
        "東京は日本の首都です。",
        "人口は約1400万人です。",
        "「本当？」と彼は聞いた。",
        "浅草寺に行ったことがありますか？",
    ],
    "zh": ["北京是中国的首都。", "它有三千多年的历史！", "你去过长城吗？", "我去年去过。"],
    "ar": [
        "تقع القاهرة على ضفاف نهر النيل.",
        "هل زرت الأهرامات من قبل؟",
        "نعم، زرتها في الصيف الماضي!",
        "كانت الرحلة رائعة.",
    ],
    "ru": [
        "Москва — столица России.",
        "В ней живёт более 12 млн. человек, т. е. очень много.",
        "Вы были в Кремле?",
        "Да, я был там в 2019 г. летом.",
    ],
    "hi": [
        "दिल्ली भारत की राजधानी है।",
        "यहाँ बहुत सारे ऐतिहासिक स्मारक हैं।",
        "क्या आपने लाल किला देखा है?",
        "मैंने पिछले साल देखा था।",
    ],
}
#: How the sentences are joined into a text: no space after a CJK full stop.
JOINER = {"ja": "", "zh": ""}


@pytest.mark.parametrize("language", list(EXPECTED))
def test_exact_sentence_spans(language: str) -> None:
    """Detected, not given: the text alone chooses the segmenter."""
    expected = EXPECTED[language]
    text = JOINER.get(language, " ").join(expected) + "\n"
    document = Document(text)
    assert document.language == language
    assert document.structure.segmenter.name == f"sentencex ({language})"
    assert sentences_of(text) == expected
    starts = document.structure.sentence_starts
    assert list(starts) == [text.index(s) for s in expected]  # each sentence is in the text once


@pytest.mark.parametrize(
    ("language", "text", "expected"),
    [
        ("de", "Es kostet z. B. 5 Euro. Gut.", ["Es kostet z. B. 5 Euro.", "Gut."]),
        ("de", "Dr. Weber kommt. Gut.", ["Dr. Weber kommt.", "Gut."]),
        ("de", "Sie wohnt in Nr. 5 am Markt. Gut.", ["Sie wohnt in Nr. 5 am Markt.", "Gut."]),
        ("de", "Am 3. Oktober ist Feiertag. Gut.", ["Am 3. Oktober ist Feiertag.", "Gut."]),
        ("es", "Hay p. ej. tres. Bien.", ["Hay p. ej. tres.", "Bien."]),
        ("fr", "Il y a p. ex. trois. Bien.", ["Il y a p. ex. trois.", "Bien."]),
        ("fr", "M. Dupont arrive. Bien.", ["M. Dupont arrive.", "Bien."]),
    ],
)
def test_abbreviations_are_not_sentence_ends(language: str, text: str, expected: list[str]) -> None:
    assert sentences_of(text, language) == expected


def test_a_quoted_question_and_its_particle_are_one_japanese_sentence() -> None:
    """sentencex ends a sentence after 」; と (or って) right after it continues the sentence."""
    text = "「本当？」と彼は聞いた。「はい。」それが答えだった。"
    assert sentences_of(text, "ja") == ["「本当？」と彼は聞いた。", "「はい。」", "それが答えだった。"]


def test_english_keeps_spacy() -> None:
    text = "Dr. Smith went to Washington. He arrived at 5 p.m. on Monday. It rained."
    document = Document(text)
    assert document.language == "en"
    assert document.structure.segmenter is get_segmenter("en") is get_segmenter()
    assert not document.structure.segmenter.name.startswith("sentencex")
    assert sentences_of(text) == ["Dr. Smith went to Washington.", "He arrived at 5 p.m. on Monday.", "It rained."]


# ---- where a CJK cut falls ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "pos", "mid_word"),
    [
        ("日本語", 1, False),
        ("カタカナ", 2, False),
        ("ひらがな", 1, False),
        ("ภาษาไทย", 3, False),  # Thai, between two consonants
        ("สวัสดี", 2, True),  # Thai, before the combining vowel ั: splits a grapheme
        ("約1400", 1, False),  # a Han character and a digit
        ("1400", 2, True),
        ("día", 1, True),
        ("한국어", 1, True),  # Korean writes spaces between words
        ("Москва", 3, True),
    ],
)
def test_cuts_mid_word_in_every_script(text: str, pos: int, mid_word: bool) -> None:
    assert cuts_mid_word(text, pos) is mid_word


JAPANESE = "".join(EXPECTED["ja"]) * 3


@pytest.mark.parametrize(
    ("strategy", "params"),
    [("fixed_chars", {"chunk_size": 7, "overlap": 0}), ("fixed_tokens", {"chunk_size": 5, "overlap": 0})],
)
def test_no_cjk_cut_is_flagged_mid_word(strategy: str, params: dict[str, int]) -> None:
    text = JAPANESE.replace("1400", "千四百")  # a cut inside a number is inside a word in every script
    chunks = chunkviz.chunk(text, strategy, **params)
    report = diagnose(text, chunks)
    flags = {flag for c in report.chunks for flag in c.flags}
    assert Flag.MID_WORD not in flags and Flag.STARTS_MID_WORD not in flags
    assert Flag.MID_SENTENCE in flags  # the cuts split sentences: that is what they do
    assert Boundary.INSIDE_WORD not in {c.boundary for c in chunks}


def test_sentence_cuts_fall_at_sentence_ends_in_japanese() -> None:
    """The issue's case: -s sentences on Japanese text cut inside a word every 16 tokens."""
    chunks = chunkviz.chunk(JAPANESE, "sentences", max_tokens=32)
    ends = {JAPANESE.index(s) + len(s) for s in EXPECTED["ja"]} | {
        len(JAPANESE) // 3 * k + JAPANESE.index(s) + len(s) for k in (1, 2) for s in EXPECTED["ja"]
    }
    assert {c.end for c in chunks} <= ends and len(chunks) > 4  # every sentence fits: none is cut
    assert {c.boundary for c in chunks[:-1]} == {Boundary.SENTENCE}
    report = diagnose(JAPANESE, chunks)
    assert report.summary.mid_sentence_cuts == 0 and report.summary.mid_word_cuts == 0


@pytest.mark.parametrize("strategy", ["sentences", "small_to_big"])
def test_sentence_strategies_cut_german_at_sentence_ends(strategy: str) -> None:
    text = " ".join(EXPECTED["de"]) * 4
    chunks = chunkviz.chunk(text, strategy)
    report = diagnose(text, chunks)
    assert report.summary.mid_sentence_cuts == 0


#: The issue's done-when languages (German, Japanese and Arabic also have samples: test_samples_topic_shifts.py).
DONE_WHEN = ["zh", "ja", "de", "ru", "ar", "hi"]


def repeated(language: str, times: int = 4, numerals: bool = True) -> tuple[str, set[int]]:
    """The language's sentences ``times`` over, and the offsets where a sentence ends (without
    ``numerals``: 1400 written 千四百, as a cut inside a number is inside a word in every script)."""
    joiner = JOINER.get(language, " ")
    sentences = [s if numerals else s.replace("1400", "千四百") for s in EXPECTED[language]] * times
    text = joiner.join(sentences)
    ends, at = set(), 0
    for sentence in sentences:
        at = text.index(sentence, at) + len(sentence)
        ends.add(at)
    return text, ends


@pytest.mark.parametrize("language", DONE_WHEN)
@pytest.mark.parametrize(("strategy", "size"), [("sentences", "max_tokens"), ("small_to_big", "max_parent_tokens")])
def test_sentence_cuts_fall_at_sentence_ends_in_the_done_when_languages(
    language: str, strategy: str, size: str
) -> None:
    """Issue 37, done when: in Chinese, Japanese, German, Russian, Arabic and Hindi every cut of a
    sentence strategy is a sentence end (every sentence fits the budget), none is flagged as
    cutting a sentence or a word, and each is described as a sentence (or the document's) end."""
    text, ends = repeated(language)
    chunks = [c for c in chunkviz.chunk(text, strategy, **{size: 64}) if c.level == 0]
    assert len(chunks) > 2, "the budget makes it cut"
    assert {c.end for c in chunks} <= ends
    assert {c.boundary for c in chunks[:-1]} == {Boundary.SENTENCE}
    report = diagnose(text, chunks)
    assert report.summary.mid_sentence_cuts == 0 and report.summary.mid_word_cuts == 0


@pytest.mark.parametrize("language", ["zh", "ja"])
def test_a_cjk_cut_inside_a_sentence_is_described_as_one_not_as_a_word(language: str) -> None:
    """A fixed-size window cuts between two Han or kana letters: 'cuts a sentence', never 'cuts a
    word', and its boundary says inside a sentence (no word boundary is known there)."""
    text, ends = repeated(language, numerals=False)
    chunks = chunkviz.chunk(text, "fixed_chars", chunk_size=7, overlap=0)
    report = diagnose(text, chunks)
    flags = {flag for c in report.chunks for flag in c.flags}
    assert Flag.MID_WORD not in flags and Flag.STARTS_MID_WORD not in flags and Flag.MID_SENTENCE in flags
    between_letters = [
        c for c in chunks[:-1] if c.end not in ends and text[c.end - 1].isalpha() and text[c.end].isalpha()
    ]
    assert between_letters and {c.boundary for c in between_letters} == {Boundary.INSIDE_SENTENCE}


# ---- sentencex read in windows --------------------------------------------------------------------
def test_windowed_segmentation_gives_the_whole_blocks_starts() -> None:
    rng = random.Random(37)
    block = "".join(rng.choice(EXPECTED["ja"] + EXPECTED["zh"]) for _ in range(600))  # ~7,000 characters
    whole = _piece_starts(block, 0, len(block), sentencex.segment("ja", block))
    assert _windowed_starts(block, lambda piece: sentencex.segment("ja", piece)) == whole
    german = " ".join(rng.choice(EXPECTED["de"]) for _ in range(300))
    whole = _piece_starts(german, 0, len(german), sentencex.segment("de", german))
    assert _windowed_starts(german, lambda piece: sentencex.segment("de", piece)) == whole


def test_sentencex_reads_a_long_cjk_paragraph_in_bounded_windows() -> None:
    """sentencex's time grows with the square of a run of sentences without spaces (8,000
    Japanese sentences in one call: about 1 s; 40,000: 25 s). Windows keep the characters it reads
    in one call bounded, and the total linear in the paragraph's length."""
    calls: list[int] = []

    def counting(piece: str) -> list[str]:
        calls.append(len(piece))
        return list(sentencex.segment("ja", piece))

    totals = []
    for repeat in (200, 400, 800):
        calls.clear()
        block = "".join(EXPECTED["ja"]) * repeat
        starts = _windowed_starts(block, counting)
        assert len(starts) == 5 * repeat  # sentencex's own: 「本当？」 | と彼は聞いた。
        assert max(calls) <= sentences.SENTENCEX_WINDOW
        totals.append(sum(calls))
    assert totals[1] < 2.2 * totals[0] and totals[2] < 2.2 * totals[1]


def test_a_window_without_a_settled_start_is_read_again_longer() -> None:
    block = "あ" * 5000 + "。" + "い" * 10 + "。"
    starts = _windowed_starts(block, lambda piece: sentencex.segment("ja", piece))
    assert starts == [0, 5001]
    assert SENTENCEX_CONTEXT < sentences.SENTENCEX_WINDOW


def test_pieces_are_placed_by_walking_forward() -> None:
    """A repeated sentence gets its own offset, never the first occurrence's; whitespace the
    segmenter left out is skipped; a piece that is not next in the text stops the walk."""
    block = "Gut. Gut.\n\nGut."
    assert _piece_starts(block, 0, len(block), ["Gut. ", "Gut.", "Gut."]) == [0, 5, 11]
    assert _piece_starts(block, 0, len(block), ["Gut. ", "Schlecht.", "Gut."]) == [0]


# ---- properties ------------------------------------------------------------------------------------
#: Words and sentence ends of each supported script (the segmenter's language in brackets).
SCRIPTS = {
    "de": (["Haus", "grün", "Straße", "z. B.", "Dr.", "Nr. 5", "3."], [". ", "! ", "? ", "… "]),
    "ru": (["дом", "Москва", "т. е.", "г.", "ещё"], [". ", "? ", "! "]),
    "ja": (["東京", "は", "日本", "の", "首都", "です", "「本当？」", "カタカナ"], ["。", "！", "？"]),
    "zh": (["北京", "是", "中国", "的", "首都", "“你好”"], ["。", "！", "？"]),
    "ar": (["القاهرة", "مدينة", "كبيرة", "هل", "نعم"], [". ", "؟ ", "! "]),
    "hi": (["दिल्ली", "भारत", "की", "राजधानी", "है"], ["। ", "? "]),
    "th": (["กรุงเทพ", "เมือง", "หลวง", "ไทย"], [" ", "  "]),
    "ko": (["서울", "한국", "수도", "입니다"], [". ", "? "]),
    "he": (["ירושלים", "עיר", "גדולה"], [". ", "? "]),
}


@st.composite
def multilingual_text(draw: st.DrawFn) -> tuple[str, str]:
    language = draw(st.sampled_from(sorted(SCRIPTS)))
    words, ends = SCRIPTS[language]
    parts = []
    for _ in range(draw(st.integers(1, 12))):
        sentence = draw(st.lists(st.sampled_from(words), min_size=1, max_size=8))
        joiner = "" if language in ("ja", "zh") else " "
        parts.append(joiner.join(sentence) + draw(st.sampled_from(ends)))
        parts.append(draw(st.sampled_from(["", "", "\n", "\n\n", "\r\n", " \u3000", "\t"])))
    noise = draw(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=20))
    return language, "".join(parts) + noise


def _check_spans(text: str, document: Document) -> None:
    structure = document.structure
    spans = structure.sentences
    if not text.strip():
        return
    assert spans[0][0] == 0 and spans[-1][1] == len(text)  # they cover the text ...
    assert all(a < b for a, b in spans) and all(spans[k][1] == spans[k + 1][0] for k in range(len(spans) - 1))
    for a, b in structure.trimmed_sentences:  # ... and each one's text is exactly the text there
        assert a < b and not text[a].isspace() and not text[b - 1].isspace()
    for start in structure.sentence_starts[1:]:
        assert not text[start].isspace()


@settings(max_examples=150, deadline=None)
@given(multilingual_text())
def test_sentence_spans_are_exact_and_cover_the_text_in_every_script(case: tuple[str, str]) -> None:
    language, text = case
    _check_spans(text, Document(text))  # detected
    given_document = Document(text, given_language=language)
    _check_spans(text, given_document)
    assert given_document.structure.segmenter.name == f"sentencex ({language})"


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200), st.sampled_from(sorted(SCRIPTS)))
def test_sentence_spans_are_exact_on_any_text(text: str, language: str) -> None:
    _check_spans(text, Document(text, given_language=language))


@settings(max_examples=100, deadline=None)
@given(multilingual_text())
def test_a_sentence_boundary_is_where_a_sentence_starts(case: tuple[str, str]) -> None:
    """The structure's ``sentence`` boundary and the sentences agree at every position."""
    language, text = case
    document = Document(text, given_language=language)
    starts = set(document.structure.sentence_starts)
    boundaries = document.structure.boundaries_at(range(1, len(text)))
    for pos, boundary in zip(range(1, len(text)), boundaries):
        if boundary == Boundary.SENTENCE:
            after = pos
            while text[after].isspace():
                after += 1
            assert after in starts, (pos, text)


# ---- everything that reads sentences ---------------------------------------------------------------
def test_the_semantic_strategy_reads_the_documents_sentences(fake_model: str) -> None:
    from chunkviz.semantic import ENCODE_CALLS, semantic_chunking

    german = Document(" ".join(EXPECTED["de"]) * 3)
    result = semantic_chunking(german, model=fake_model)
    assert result.analysis.segmenter == "sentencex (de)"
    assert len(result.analysis.sentences) == 3 * len(EXPECTED["de"])
    as_english = semantic_chunking(Document(german.text, given_language="en"), model=fake_model)
    assert as_english.analysis.segmenter != "sentencex (de)"  # keyed by the segmenter: not the German hit
    before = ENCODE_CALLS["count"]
    assert as_english.count_curve and result.count_curve  # each with its own sentences: nothing embedded again
    assert ENCODE_CALLS["count"] == before


def test_the_llm_strategy_numbers_the_documents_sentences() -> None:
    from chunkviz.strategies.llm import LLMParams, _plan
    from chunkviz.text.tokenizers import get_tokenizer

    tokenizer = get_tokenizer("cl100k_base")
    numbered = _plan(Document(JAPANESE), LLMParams(), tokenizer).cuts  # what the model is shown, sentence by sentence
    assert [JAPANESE[a:b] for a, b in zip(numbered, numbered[1:])] == EXPECTED["ja"] * 3
    assert len(_plan(Document(JAPANESE, given_language="en"), LLMParams(), tokenizer).cuts) < 13


def test_the_structures_sentence_boundary_and_the_flag_read_the_language() -> None:
    text = JAPANESE
    japanese, as_english = Document(text), Document(text, given_language="en")
    first_end = len(EXPECTED["ja"][0])
    assert japanese.structure.boundary_at(first_end) == Boundary.SENTENCE
    assert as_english.structure.boundary_at(first_end) == Boundary.WORD  # spaCy's English sees no sentence end
    chunk = chunkviz.chunk(text, "fixed_chars", chunk_size=first_end, overlap=0)[0]
    assert diagnose(japanese, [chunk]).chunks[0].flags == ()
    assert Flag.MID_SENTENCE in diagnose(as_english, [chunk]).chunks[0].flags
