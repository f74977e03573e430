"""Question files: the samples' questions, JSONL spans and excerpts, Chroma's CSV, errors, save/load."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from support.paths import SHARED

from chunkviz.core.errors import ChunkvizError
from chunkviz.document import read_path
from chunkviz.evaluation.questions import (
    Question,
    QuestionFileError,
    Reference,
    load_questions,
    parse_questions,
    questions_to_jsonl,
    sample_questions_path,
    save_questions,
)

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "chunkviz/sample_docs"
QUESTIONS = SAMPLES / "questions"
CHROMA = SHARED / "eval" / "chroma"  # <repo>/../shared/eval/chroma unless $CHUNKVIZ_SHARED says otherwise

SAMPLE_DOCUMENTS = sorted(p for p in SAMPLES.iterdir() if p.is_file() and p.name != "README.md")


def _jsonl(*objects: object) -> str:
    return "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objects)


def _error(text: str, corpus: dict[str, str], **kwargs: object) -> QuestionFileError:
    with pytest.raises(QuestionFileError) as info:
        parse_questions(text, corpus, **kwargs)  # type: ignore[arg-type]
    assert isinstance(info.value, ChunkvizError)
    return info.value


# ----------------------------------------------------------------------------- the samples' questions


def test_every_sample_document_has_a_question_file() -> None:
    assert len(SAMPLE_DOCUMENTS) >= 6
    for doc in SAMPLE_DOCUMENTS:
        assert sample_questions_path(doc) == QUESTIONS / f"{doc.stem}.jsonl", doc.name
    stems = {p.stem for p in QUESTIONS.glob("*.jsonl")}
    assert stems == {p.stem for p in SAMPLE_DOCUMENTS}, "a question file without its sample document"


@pytest.mark.parametrize("doc", SAMPLE_DOCUMENTS, ids=lambda p: p.name)
def test_sample_questions_load_against_their_document(doc: Path) -> None:
    document = read_path(doc)
    text = document.text
    corpus = {document.name: text}
    path = QUESTIONS / f"{doc.stem}.jsonl"
    questions = load_questions(path, corpus)

    assert len(questions) >= 20
    assert len({q.question for q in questions}) == len(questions), "a question is asked twice"
    assert any(len(q.references) >= 2 for q in questions), "no question with several references"
    for q in questions:
        assert q.question.strip().endswith(("?", "？", "؟")), q.question  # the Japanese and Arabic samples' own marks
        for ref in q.references:
            assert ref.document == document.name
            assert 0 <= ref.start < ref.end <= len(text)
            assert ref.text(corpus).strip(), q.question

    # the file itself: every reference is an excerpt that names its document and occurs exactly once
    raw = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(raw) == len(questions)
    for obj, q in zip(raw, questions):
        for item, ref in zip(obj["references"], q.references):
            excerpt = item["excerpt"]
            assert item["document"] == doc.name
            first = text.find(excerpt)
            assert first >= 0 and text.find(excerpt, first + 1) == -1, excerpt
            assert (ref.start, ref.end) == (first, first + len(excerpt))


def test_all_sample_questions_load_against_a_corpus_of_every_sample() -> None:
    """Each reference names its document, so the files also work when the corpus holds every sample."""
    corpus = {str(p): read_path(p).text for p in SAMPLE_DOCUMENTS}
    for doc in SAMPLE_DOCUMENTS:
        questions = load_questions(QUESTIONS / f"{doc.stem}.jsonl", corpus)
        assert {r.document for q in questions for r in q.references} == {str(doc)}


# ----------------------------------------------------------------------------- JSONL

CORPUS = {"notes.txt": "alpha beta gamma. alpha delta. The answer is forty-two."}


def test_jsonl_excerpts_and_spans() -> None:
    text = CORPUS["notes.txt"]
    file = _jsonl(
        {"question": "What is the answer?", "references": [{"excerpt": "The answer is forty-two."}]},
        {"question": "Span?", "references": [{"document": "notes.txt", "start": 0, "end": 5}]},
        {"question": "Both?", "references": [{"excerpt": "beta gamma"}, {"start": 18, "end": 23, "excerpt": "alpha"}]},
    )
    questions = parse_questions(file, CORPUS)
    answer = text.index("The answer")
    assert questions[0] == Question("What is the answer?", (Reference("notes.txt", answer, len(text)),))
    assert questions[1].references == (Reference("notes.txt", 0, 5),)
    assert questions[2].references == (Reference("notes.txt", 6, 16), Reference("notes.txt", 18, 23))
    assert [r.text(CORPUS) for r in questions[2].references] == ["beta gamma", "alpha"]


def test_jsonl_skips_blank_lines_and_reads_a_bom_and_crlf() -> None:
    file = "\ufeff" + _jsonl({"question": "Q?", "references": [{"excerpt": "delta"}]}).replace("\n", "\r\n") + "\r\n\n"
    assert parse_questions(file, CORPUS)[0].references[0].start == CORPUS["notes.txt"].index("delta")


def test_document_names_match_by_key_file_name_or_stem() -> None:
    corpus = {"docs/a/guide.md": "one two three", "other.txt": "four five"}
    file = _jsonl(
        {"question": "By key?", "references": [{"document": "docs/a/guide.md", "excerpt": "two"}]},
        {"question": "By file name?", "references": [{"document": "guide.md", "excerpt": "three"}]},
        {"question": "By stem?", "references": [{"document": "other", "excerpt": "five"}]},
        {
            "question": "By another path to the same file name?",
            "references": [{"document": "x/other.txt", "excerpt": "four"}],
        },
    )
    docs = [q.references[0].document for q in parse_questions(file, corpus)]
    assert docs == ["docs/a/guide.md", "docs/a/guide.md", "other.txt", "other.txt"]


def test_document_may_be_left_out_only_when_the_corpus_has_one_document() -> None:
    file = _jsonl({"question": "Q?", "references": [{"excerpt": "four"}]})
    assert parse_questions(file, {"only.txt": "four"})[0].references == (Reference("only.txt", 0, 4),)
    err = _error("\n" + file, {"a.txt": "four", "b.txt": "five"}, name="q.jsonl")
    assert "q.jsonl, line 2" in str(err) and '"document"' in str(err) and "'a.txt'" in str(err)


def test_unknown_document_names_the_line_and_the_documents() -> None:
    file = _jsonl({"question": "Q?", "references": [{"document": "missing.md", "excerpt": "four"}]})
    err = _error(file, {"a.txt": "four", "b.txt": "five"}, name="q.jsonl")
    assert "q.jsonl, line 1" in str(err) and "'missing.md'" in str(err) and "'b.txt'" in str(err)


def test_format_is_read_from_the_extension_or_sniffed(tmp_path: Path) -> None:
    jsonl = _jsonl({"question": "Q?", "references": [{"excerpt": "delta"}]})
    for name in ("q.jsonl", "q.txt", "questions"):
        path = tmp_path / name
        path.write_text(jsonl, encoding="utf-8")
        assert len(load_questions(path, CORPUS)) == 1
        assert len(load_questions(str(path), CORPUS)) == 1
    assert len(load_questions(jsonl, CORPUS)) == 1  # text
    assert len(load_questions(jsonl.encode("utf-8"), CORPUS, name="upload.jsonl")) == 1  # an upload's bytes
    csv_text = (
        'question,references,corpus_id\nQ?,"[{""content"": ""delta"", ""start_index"": 24, ""end_index"": 29}]",notes\n'
    )
    assert CORPUS["notes.txt"][24:29] == "delta"
    assert load_questions(csv_text, CORPUS)[0].references == (Reference("notes.txt", 24, 29),)
    (tmp_path / "c.csv").write_text(csv_text, encoding="utf-8")
    assert len(load_questions(tmp_path / "c.csv", CORPUS)) == 1
    (tmp_path / "odd").write_text("hello\n", encoding="utf-8")
    with pytest.raises(QuestionFileError, match="cannot tell the format"):
        load_questions(tmp_path / "odd", CORPUS)


def test_a_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(QuestionFileError, match="file not found") as info:
        load_questions(tmp_path / "nope.jsonl", CORPUS)
    assert "nope.jsonl" in str(info.value)


# ----------------------------------------------------------------------------- JSONL errors


def test_excerpt_not_found_names_the_line() -> None:
    file = _jsonl(
        {"question": "Fine?", "references": [{"excerpt": "delta"}]},
        {"question": "Missing?", "references": [{"excerpt": "omega"}]},
    )
    err = _error(file, CORPUS, name="q.jsonl")
    assert err.line == 2 and err.source == "q.jsonl"
    assert str(err).startswith("q.jsonl, line 2: reference 1: excerpt 'omega' is not in 'notes.txt'")
    assert "copy the excerpt exactly" in str(err)


def test_excerpt_found_with_other_case_or_spacing_says_so() -> None:
    err = _error(_jsonl({"question": "Q?", "references": [{"excerpt": "Beta   GAMMA"}]}), CORPUS, name="q.jsonl")
    assert "line 1" in str(err) and "case and whitespace" in str(err)


def test_excerpt_found_twice_asks_for_a_longer_one() -> None:
    file = "\n" + _jsonl({"question": "Twice?", "references": [{"excerpt": "delta"}, {"excerpt": "alpha"}]})
    err = _error(file, CORPUS, name="q.jsonl")
    assert "q.jsonl, line 2: reference 2" in str(err)
    assert "more than once" in str(err) and "at characters 0, 18" in str(err)
    assert "longer excerpt" in str(err) and '"start" and "end"' in str(err)


def test_overlapping_occurrences_count_as_twice() -> None:
    err = _error(_jsonl({"question": "Q?", "references": [{"excerpt": "aa"}]}), {"d": "xaaay"})
    assert "more than once" in str(err)


def test_bad_json_names_the_line() -> None:
    file = _jsonl({"question": "Q?", "references": [{"excerpt": "delta"}]}) + '{"question": "broken",\n'
    err = _error(file, CORPUS, name="q.jsonl")
    assert str(err).startswith("q.jsonl, line 2: not valid JSON")
    assert "one JSON object" in str(err)
    err = _error('["a list"]\n', CORPUS, name="q.jsonl", format="jsonl")
    assert "line 1: expected a JSON object" in str(err)


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        ({"references": [{"excerpt": "delta"}]}, "missing key 'question'"),
        ({"question": "Q?"}, "missing key 'references'"),
        ({}, "missing keys 'question', 'references'"),
        ({"question": "", "references": [{"excerpt": "delta"}]}, '"question" must be non-empty'),
        ({"question": "Q?", "references": []}, '"references" must be a non-empty list'),
        ({"question": "Q?", "references": ["delta"]}, "reference 1 must be an object"),
        ({"question": "Q?", "references": [{"document": "notes.txt"}]}, 'reference 1 needs "excerpt"'),
        ({"question": "Q?", "references": [{"start": 1}]}, "reference 1 has no 'end'"),
        ({"question": "Q?", "references": [{"excerpt": "delta", "strat": 1}]}, "unknown key 'strat'"),
        ({"question": "Q?", "references": [{"excerpt": ""}]}, '"excerpt" must be non-empty'),
        ({"question": "Q?", "references": [{"start": "1", "end": 4}]}, "must be whole numbers"),
        ({"question": "Q?", "references": [{"start": True, "end": 4}]}, "must be whole numbers"),
    ],
)
def test_missing_or_malformed_keys_name_the_line(obj: dict, expected: str) -> None:
    file = _jsonl(
        {"question": "Fine?", "references": [{"excerpt": "delta"}]},
        {"question": "x", "references": [{"excerpt": "gamma"}]},
        obj,
    )
    err = _error(file, CORPUS, name="q.jsonl")
    assert "q.jsonl, line 3: " in str(err) and expected in str(err), str(err)


@pytest.mark.parametrize(("start", "end"), [(-1, 4), (4, 4), (5, 2), (0, 10_000)])
def test_span_out_of_range_names_the_line_and_the_length(start: int, end: int) -> None:
    file = _jsonl({"question": "Q?", "references": [{"start": start, "end": end}]})
    err = _error(file, CORPUS, name="q.jsonl")
    size = len(CORPUS["notes.txt"])
    assert f"q.jsonl, line 1: reference 1: span {start}..{end} is out of range" in str(err)
    assert f"({size} characters)" in str(err) and f"<= {size}" in str(err)


def test_span_and_excerpt_that_disagree_is_an_error() -> None:
    file = _jsonl({"question": "Q?", "references": [{"start": 0, "end": 5, "excerpt": "gamma"}]})
    err = _error(file, CORPUS, name="q.jsonl")
    assert "line 1" in str(err) and "'alpha'" in str(err) and "'gamma'" in str(err)


def test_an_empty_file_or_corpus_is_an_error() -> None:
    assert "no questions" in str(_error("\n\n", CORPUS, format="jsonl"))
    assert "corpus is empty" in str(_error(_jsonl({"question": "Q?", "references": [{"excerpt": "a"}]}), {}))


def test_undecodable_bytes_name_the_line() -> None:
    data = _jsonl({"question": "Q?", "references": [{"excerpt": "delta"}]}).encode() + b'{"question": "\xff"}\n'
    with pytest.raises(QuestionFileError, match=r"up\.jsonl, line 2: is not valid UTF-8"):
        load_questions(data, CORPUS, name="up.jsonl")


def test_reference_and_question_check_themselves() -> None:
    with pytest.raises(ValueError):
        Reference("d", 3, 3)
    with pytest.raises(ValueError):
        Question("Q?", ())
    assert Question("Q?", [Reference("d", 0, 1)]).references == (Reference("d", 0, 1),)  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- Chroma CSV


def _chroma_csv(
    rows: list[tuple[str, list[dict], str]], header: tuple[str, ...] = ("question", "references", "corpus_id")
) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for question, refs, corpus_id in rows:
        writer.writerow([question, json.dumps(refs), corpus_id])
    return out.getvalue()


CHROMA_CORPUS = {"corpora/speech.md": "We cut late fees.\nWe raised wages.", "corpora/notes.md": "Beta café — résumé."}


def test_chroma_csv_reads_spans_and_checks_content() -> None:
    text = _chroma_csv(
        [
            ("What about fees?", [{"content": "We cut late fees.", "start_index": 0, "end_index": 17}], "speech"),
            (
                "What was done,\nin two parts?",  # a quoted newline: the next row starts a line later
                [
                    {"content": "late fees", "start_index": 7, "end_index": 16},
                    {"content": "We raised wages.", "start_index": 18, "end_index": 34},
                ],
                "speech",
            ),
            ("Non-ASCII?", [{"content": "café — résumé", "start_index": 5, "end_index": 18}], "notes"),
        ]
    )
    questions = parse_questions(text, CHROMA_CORPUS, format="csv")
    assert [len(q.references) for q in questions] == [1, 2, 1]
    assert questions[1].question == "What was done,\nin two parts?"
    assert questions[1].references[1] == Reference("corpora/speech.md", 18, 34)
    assert questions[2].references[0].text(CHROMA_CORPUS) == "café — résumé"


def test_chroma_csv_content_mismatch_names_the_line() -> None:
    text = _chroma_csv(
        [
            ("Multi\nline?", [{"content": "We cut", "start_index": 0, "end_index": 6}], "speech"),
            ("Wrong?", [{"content": "late fees", "start_index": 8, "end_index": 17}], "speech"),
        ]
    )
    err = _error(text, CHROMA_CORPUS, name="questions_df.csv")
    assert str(err).startswith("questions_df.csv, line 4: reference 1: the text at 8..17 of 'corpora/speech.md'")
    assert "'ate fees.'" in str(err) and "'late fees'" in str(err) and "corpus file" in str(err)


def test_chroma_csv_errors_name_the_line() -> None:
    good = ("Fine?", [{"content": "We cut", "start_index": 0, "end_index": 6}], "speech")
    out_of_range = _chroma_csv([good, ("Far?", [{"content": "x", "start_index": 30, "end_index": 99}], "speech")])
    assert "line 3: reference 1: span 30..99 is out of range" in str(_error(out_of_range, CHROMA_CORPUS))
    missing_key = _chroma_csv([good, good, ("No end?", [{"content": "We", "start_index": 0}], "speech")])
    assert "line 4: reference 1 is missing 'end_index'" in str(_error(missing_key, CHROMA_CORPUS))
    unknown_corpus = _chroma_csv([("Where?", [{"content": "We", "start_index": 0, "end_index": 2}], "finance")])
    assert "line 2: corpus_id: document 'finance' is not in the corpus" in str(_error(unknown_corpus, CHROMA_CORPUS))
    bad_json = "question,references,corpus_id\nQ?,[{not json},speech\n"
    assert "line 2: the 'references' cell is not valid JSON" in str(_error(bad_json, CHROMA_CORPUS, format="csv"))
    no_column = "question,corpus_id\nQ?,speech\n"
    err = _error(no_column, CHROMA_CORPUS, format="csv", name="q.csv")
    assert "q.csv, line 1: missing column 'references'" in str(err)


def test_chroma_csv_extra_columns_and_a_single_document_without_corpus_id() -> None:
    text = _chroma_csv(
        [("Q?", [{"content": "Beta", "start_index": 0, "end_index": 4}], "")],
        header=("question", "references", "corpus_id"),
    )
    assert parse_questions(text, {"notes": "Beta"}, format="csv")[0].references == (Reference("notes", 0, 4),)
    indexed = ',question,references\n0,Q?,"[{""content"": ""Beta"", ""start_index"": 0, ""end_index"": 4}]"\n'
    assert parse_questions(indexed, {"notes": "Beta"}, format="csv")[0].question == "Q?"


@pytest.mark.skipif(not (CHROMA / "questions_df.csv").is_file(), reason=f"Chroma evaluation data not found at {CHROMA}")
def test_all_chroma_questions_load_against_their_corpora() -> None:
    corpus = {str(p): read_path(p).text for p in sorted((CHROMA / "corpora").glob("*.md"))}
    questions = load_questions(CHROMA / "questions_df.csv", corpus)
    assert len(questions) == 472
    assert sum(len(q.references) for q in questions) == 790
    per_corpus: dict[str, int] = {}
    for q in questions:
        documents = {r.document for r in q.references}
        assert len(documents) == 1
        name = Path(documents.pop()).stem
        per_corpus[name] = per_corpus.get(name, 0) + 1
    assert per_corpus == {"chatlogs": 56, "finance": 97, "pubmed": 99, "state_of_the_union": 76, "wikitexts": 144}


# ----------------------------------------------------------------------------- saving


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    corpus = {"docs/a.md": "Line one — é.\nLine two.", "b.txt": "x" * 10}
    questions = [
        Question('First? "quoted"', (Reference("docs/a.md", 0, 13), Reference("b.txt", 2, 5))),
        Question("Second?", (Reference("docs/a.md", 14, 23),)),
    ]
    path = save_questions(questions, tmp_path / "saved.jsonl", corpus)
    assert path == tmp_path / "saved.jsonl"
    first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert first["references"][0] == {"document": "docs/a.md", "start": 0, "end": 13, "excerpt": "Line one — é."}
    assert "—" in path.read_text(encoding="utf-8")  # readable, not \u-escaped
    assert load_questions(path, corpus) == questions

    save_questions(questions, tmp_path / "spans.jsonl")  # without the corpus: spans only
    assert "excerpt" not in (tmp_path / "spans.jsonl").read_text(encoding="utf-8")
    assert load_questions(tmp_path / "spans.jsonl", corpus) == questions
    assert parse_questions(questions_to_jsonl(questions, corpus), corpus) == questions


def test_a_saved_file_whose_document_changed_is_caught(tmp_path: Path) -> None:
    corpus = {"a.md": "The river rose two metres."}
    path = save_questions([Question("How much?", (Reference("a.md", 16, 26),))], tmp_path / "q.jsonl", corpus)
    with pytest.raises(QuestionFileError, match=r"line 1: reference 1: the text at 16\.\.26"):
        load_questions(path, {"a.md": "The river rose three metres."})
