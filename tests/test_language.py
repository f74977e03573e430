"""A document's language (issue 37): detected offline from a bounded sample of its text, or given
in the API (``language=``), on the command line (``--language``) and in the app; the language
chooses the sentence segmenter."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import chunkviz
from chunkviz.cli import commands as cli
from chunkviz.document import language as language_module
from chunkviz.document.language import (
    LanguageGuess,
    detect_language,
    normalize_language,
    sample_windows,
)
from chunkviz.document.model import Document, as_document, with_language
from chunkviz.document.read import read_bytes, read_path

pytest.importorskip("py3langid")

#: Short texts written for these tests, one per language and script.
TEXTS = {
    "de": "Das Treffen beginnt z. B. um 9 Uhr. Dr. Weber leitet es in Raum Nr. 5 im Erdgeschoss.",
    "ja": "東京は日本の首都です。人口は約1400万人です。東京には多くの観光地があります！",
    "zh": "北京是中国的首都。它有三千多年的历史！你去过长城吗？我去年去过。",
    "ar": "تقع القاهرة على ضفاف نهر النيل. هل زرت الأهرامات من قبل؟ نعم، زرتها في الصيف الماضي!",
    "ru": "Москва — столица России. В ней живёт более 12 млн. человек. Вы были в Кремле?",
    "hi": "दिल्ली भारत की राजधानी है। यहाँ बहुत सारे ऐतिहासिक स्मारक हैं। क्या आपने लाल किला देखा है?",
    "en": "The meeting starts at nine. Dr. Weber leads it in room five on the ground floor.",
}
GERMAN_PARAGRAPH = (
    "Die Messstation liegt auf einer Lichtung am Rand des Waldes. Jeden Morgen lesen wir die Werte ab, "
    "prüfen die Sensoren und tragen alles in das Tagebuch ein. Bei starkem Regen fällt die Kontrolle aus, "
    "dann übernimmt die automatische Aufzeichnung die Arbeit und wir holen die Daten am nächsten Tag nach.\n\n"
)
ENGLISH_PARAGRAPH = (
    "The station sits in a clearing at the edge of the forest. Every morning we read the values, "
    "check the sensors and write everything into the logbook. In heavy rain the check is skipped, "
    "and the automatic recorder does the work until we collect the data on the next day.\n\n"
)


@pytest.mark.parametrize("code", list(TEXTS))
def test_each_language_is_detected(code: str) -> None:
    guess = Document(TEXTS[code]).language_guess
    assert (guess.code, guess.source, guess.mixed) == (code, "detected", False)
    assert guess.confidence > 0.9


@pytest.mark.parametrize("text", ["", "Hello world.", "eleven twelve", "1234 5678 | --- |", "x = 1\ny = 2\n"])
def test_too_little_text_is_english_as_before(text: str) -> None:
    """Short English strings ("eleven twelve" reads as Dutch to the detector) keep chunkviz's
    English segmenter: a window needs 20 letters (5 in other scripts than Latin) and 50% confidence."""
    assert Document(text).language_guess == LanguageGuess("en", 0.0, "default")


def test_a_short_cyrillic_text_is_not_english() -> None:
    """The detector is unsure between Russian, Bulgarian and Macedonian: the script decides."""
    guess = Document("Привет, как дела?").language_guess
    assert (guess.code, guess.source) == ("ru", "script")


def test_a_mixed_document_says_so_and_uses_the_dominant_language() -> None:
    text = GERMAN_PARAGRAPH * 6 + ENGLISH_PARAGRAPH * 4
    document = Document(text)
    assert document.language == "de"
    assert [code for code, _ in document.languages] == ["de", "en"]
    de_share, en_share = (share for _, share in document.languages)
    assert 0.5 < de_share < 0.7 and 0.3 < en_share < 0.5
    assert 0.5 < document.language_guess.confidence < 0.75  # the share of the text that reads as German
    assert "mixed: de " in document.language_guess.describe()
    notes = document.language_notes()
    assert len(notes) == 1 and notes[0].startswith("mixed languages (de ") and "segmented as de" in notes[0]


def test_a_document_of_one_language_has_no_note() -> None:
    document = Document(GERMAN_PARAGRAPH * 3)
    assert document.language_notes() == []  # nothing asked the language yet: nothing to say
    assert document.language == "de" and document.languages == (("de", 1.0),)
    assert document.language_notes() == []


def test_detection_reads_a_bounded_sample(monkeypatch: pytest.MonkeyPatch) -> None:
    """At most MAX_WINDOWS windows of WINDOW_CHARS characters are classified, whatever the size:
    a 20 MB document costs what a 16 kB one does."""
    identifier = language_module._identifier()
    read: list[int] = []
    real_rank = identifier.rank

    class Counting:
        def rank(self, window: str) -> list[tuple[str, float]]:
            read.append(len(window))
            return real_rank(window)  # type: ignore[no-any-return]

    monkeypatch.setattr(language_module, "_identifier", lambda: Counting())
    limit = language_module.MAX_WINDOWS * language_module.WINDOW_CHARS
    for size in (16_000, 2_000_000, 20_000_000):
        read.clear()
        text = (GERMAN_PARAGRAPH * (size // len(GERMAN_PARAGRAPH) + 1))[:size]
        assert detect_language(text).code == "de"
        assert len(read) <= language_module.MAX_WINDOWS and sum(read) <= limit + language_module.MAX_WINDOWS


def test_sample_windows_cover_a_short_text_and_spread_over_a_long_one() -> None:
    assert sample_windows(0) == [(0, 0)]
    assert sample_windows(2500) == [(0, 834), (834, 1668), (1668, 2500)]
    windows = sample_windows(20_000_000)
    assert len(windows) == 16 and windows[0][0] == 0 and windows[-1][1] == 20_000_000
    assert all(end - start == 1000 for start, end in windows)


# ---- giving the language ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("given", "code"),
    [
        ("de", "de"),
        ("DE", "de"),
        ("de-DE", "de"),
        ("pt_BR", "pt"),
        ("yue", "yue"),
        ("auto", None),
        ("", None),
        (None, None),
    ],
)
def test_normalize_language(given: str | None, code: str | None) -> None:
    assert normalize_language(given) == code


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ("jp", "language 'jp' is not a language code: Japanese is 'ja'"),
        ("cn", "language 'cn' is not a language code: Chinese is 'zh'"),
        (
            "english",
            "language 'english' is not a language code: give an ISO 639-1 code such as 'de', 'ja' or 'ar', or 'auto' to detect it",
        ),
        (
            "xx",
            "language 'xx' is not a language code: give an ISO 639-1 code such as 'de', 'ja' or 'ar', or 'auto' to detect it",
        ),
    ],
)
def test_a_wrong_language_code_says_what_to_give(given: str, message: str) -> None:
    with pytest.raises(ValueError) as raised:
        normalize_language(given)
    assert str(raised.value) == message


def test_a_given_language_wins_and_keys_the_document() -> None:
    text = TEXTS["de"]
    detected, given = Document(text), Document(text, given_language="en-GB")
    assert (detected.language, given.language) == ("de", "en")
    assert given.language_guess == LanguageGuess("en", 1.0, "given")
    assert given.language_guess.describe() == "en (given)"
    assert detected.digest != given.digest  # the app's caches tell them apart
    assert Document(text).digest == detected.digest
    assert as_document(text, language="en") is as_document(text, language="en")
    assert as_document(text, language="en") is not as_document(text)
    assert with_language(detected, None) is detected and with_language(detected, "auto") is detected
    assert with_language(detected, "fr").given_language == "fr"


def _segmenters(chunks: list[chunkviz.Chunk]) -> set[str]:
    return {c.metadata["segmenter"] for c in chunks}


def test_the_api_takes_the_language() -> None:
    text = TEXTS["de"]
    assert _segmenters(chunkviz.chunk(text, "sentences")) == {"sentencex (de)"}
    english = chunkviz.chunk(text, "sentences", language="en")
    assert _segmenters(english) != {"sentencex (de)"} and not any("sentencex" in s for s in _segmenters(english))
    assert _segmenters(chunkviz.chunk(text, "sentences", language="fr")) == {"sentencex (fr)"}
    with pytest.raises(ValueError, match="Japanese is 'ja'"):
        chunkviz.chunk(text, "sentences", language="jp")


def test_reading_takes_the_language(tmp_path: Path) -> None:
    path = tmp_path / "de.txt"
    path.write_text(TEXTS["de"], encoding="utf-8")
    assert read_path(path).language == "de"
    assert read_path(path, language="ja").language == "ja"
    assert read_bytes(TEXTS["de"].encode(), "de.md", language="fr").language == "fr"
    with pytest.raises(ValueError, match="Japanese is 'ja'"):
        read_path(tmp_path / "missing.txt", language="jp")  # the code is checked before the file is read


def test_the_notebook_view_takes_the_language() -> None:
    view = chunkviz.show(TEXTS["de"], "sentences", language="fr")
    assert {c.metadata["segmenter"] for c in view.chunks["1. sentences"]} == {"sentencex (fr)"}


# ---- the command line ---------------------------------------------------------------------------
def test_every_command_that_reads_a_document_takes_language() -> None:
    parser = cli.build_parser()
    commands = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    takes = {name for name, sub in commands.items() if any(a.dest == "language" for a in sub._actions)}
    assert takes == set(cli.READS_DOCUMENTS)
    assert set(commands) - takes == {"strategies", "app"}


def test_the_command_line_takes_the_language(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "de.txt"
    path.write_text(TEXTS["de"], encoding="utf-8")
    assert cli.main(["chunk", str(path), "-s", "sentences"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {r["metadata"]["segmenter"] for r in records} == {"sentencex (de)"}
    assert cli.main(["chunk", str(path), "-s", "sentences", "--language", "es"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {r["metadata"]["segmenter"] for r in records} == {"sentencex (es)"}


def test_a_wrong_language_on_the_command_line_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "de.txt"
    path.write_text(TEXTS["de"], encoding="utf-8")
    assert cli.main(["diagnose", str(path), "-s", "sentences", "--language", "jp"]) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [
        "chunkviz: error: argument --language: language 'jp' is not a language code: Japanese is 'ja' "
        "(see 'chunkviz diagnose --help')"
    ]


def test_a_mixed_document_is_noted_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "mixed.txt"
    path.write_text(GERMAN_PARAGRAPH * 6 + ENGLISH_PARAGRAPH * 4, encoding="utf-8")
    assert cli.main(["chunk", str(path), "-s", "sentences", "--format", "text"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("note: mixed languages (de ") and "sentences are segmented as de" in err
    assert cli.main(["chunk", str(path), "-s", "sentences", "--language", "en", "--format", "text"]) == 0
    assert capsys.readouterr().err == ""  # a given language: nothing to note


# ---- without the extra --------------------------------------------------------------------------
def test_without_the_detector_the_script_decides(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(language_module, "_identifier", lambda: None)
    assert detect_language(TEXTS["ja"]) == LanguageGuess("ja", 1.0, "script")
    assert detect_language(TEXTS["zh"]).code == "zh"
    assert detect_language(TEXTS["ar"]).code == "ar"
    assert detect_language(TEXTS["hi"]).code == "hi"
    assert detect_language(TEXTS["de"]) == LanguageGuess("en", 0.0, "default")  # Latin letters: cannot tell


def test_without_sentencex_a_note_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from chunkviz.document import sentences

    monkeypatch.setitem(sys.modules, "sentencex", None)  # `import sentencex` raises ImportError
    sentences.get_segmenter.cache_clear()
    try:
        document = Document(TEXTS["ja"])
        spans = document.structure.trimmed_sentences
        assert document.structure.segmenter.name == "regex"
        assert [document.text[a:b] for a, b in spans] == [
            "東京は日本の首都です。",
            "人口は約1400万人です。",
            "東京には多くの観光地があります！",
        ]
        assert document.language_notes() == [
            "sentences of this ja text are found at full stops by a regular expression; segmenting ja sentences "
            "properly needs the multilingual extra: pip install 'chunkviz[multilingual]'"
        ]
    finally:
        sentences.get_segmenter.cache_clear()


def test_batch_takes_the_language(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each document's language is detected; --language gives every document one (and is part
    of the run's identity: a run with it does not resume one without it)."""
    from chunkviz.diagnostics.compare import ColumnConfig
    from chunkviz.evaluation.config import config_from_columns, save_config

    config = save_config(config_from_columns([ColumnConfig("sentences", {})]), tmp_path / "chunkviz.json")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "de.txt").write_text(TEXTS["de"], encoding="utf-8")
    (docs / "ja.txt").write_text(TEXTS["ja"], encoding="utf-8")

    def segmenters(out: Path, *extra: str) -> dict[str, set[str]]:
        assert cli.main(["batch", str(docs), "--config", str(config), "--out", str(out), "--quiet", *extra]) == 0
        records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        found: dict[str, set[str]] = {}
        for r in records:
            found.setdefault(Path(r["source"]).name, set()).add(r["metadata"]["segmenter"])
        return found

    # chunked here (one worker: no processes to spawn); the second run's two spawned workers get the language too
    detected = segmenters(tmp_path / "detected.jsonl", "--workers", "1")
    assert detected == {"de.txt": {"sentencex (de)"}, "ja.txt": {"sentencex (ja)"}}
    assert segmenters(tmp_path / "detected.jsonl", "--language", "fr", "--workers", "2") == {  # not resumed
        "de.txt": {"sentencex (fr)"},
        "ja.txt": {"sentencex (fr)"},
    }


SAMPLES = Path(__file__).resolve().parent.parent / "chunkviz/sample_docs"
SAMPLE_LANGUAGES = {"newsletter_de.txt": "de", "household_guide_ja.txt": "ja", "magazine_ar.txt": "ar"}


@pytest.mark.parametrize(
    "path", sorted(p for p in SAMPLES.iterdir() if p.is_file() and p.name != "README.md"), ids=lambda p: p.name
)
def test_each_sample_is_detected_in_its_language(path: Path) -> None:
    guess = read_path(path).language_guess
    assert (guess.code, guess.source, guess.mixed) == (SAMPLE_LANGUAGES.get(path.name, "en"), "detected", False)
    assert guess.confidence > 0.85


@pytest.mark.parametrize("name", sorted(SAMPLE_LANGUAGES))
def test_every_sentence_of_the_new_samples_ends_at_a_full_stop(name: str) -> None:
    """The title aside, each sentence ends with . ! ? 。 ！ ？ or ؟: no abbreviation ended one
    early, no sentence end was missed (two ends in one sentence)."""
    document = read_path(SAMPLES / name)
    text = document.text
    sentences = [text[a:b] for a, b in document.structure.trimmed_sentences]
    assert document.structure.segmenter.name == f"sentencex ({SAMPLE_LANGUAGES[name]})"
    assert len(sentences) == {"newsletter_de.txt": 66, "household_guide_ja.txt": 65, "magazine_ar.txt": 26}[name]
    for sentence in sentences[1:]:
        assert sentence[-1] in ".!?。！？؟", sentence
        assert not any(sentence[k] in "。！？؟" for k in range(len(sentence) - 1)), sentence


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("東京は日本の首都です。 人口は約1400万人です。", "25 characters"),  # a space is no word boundary here
        ("ภาษาไทย ง่าย", "12 characters"),
        ("Ein Satz mit fünf Wörtern.", "26 characters · 5 words"),
        ("مرحبا بالعالم", "13 characters · 2 words"),  # Arabic writes spaces between words
        ("Tokyo 東京", "8 characters · 2 words"),  # mostly Latin letters: counted at spaces
    ],
)
def test_the_size_line_counts_words_only_in_scripts_that_space_them(text: str, expected: str) -> None:
    from chunkviz.diagnostics.compare import document_stats, size_phrase

    assert size_phrase(document_stats(text, "chars")) == expected


@pytest.mark.parametrize(
    ("guess", "brief"),
    [
        (LanguageGuess("ja", 0.994, "detected"), "detected 99%"),
        (LanguageGuess("de", 0.6, "detected", (("de", 0.6), ("en", 0.4))), "detected 60%, mixed"),
        (LanguageGuess("zh", 0.8, "script"), "from its script 80%"),
        (LanguageGuess("en", 1.0, "given"), "given"),
        (LanguageGuess("en", 0.0, "default"), "assumed"),
    ],
)
def test_the_brief_description_has_no_nested_brackets(guess: LanguageGuess, brief: str) -> None:
    assert guess.brief() == brief
