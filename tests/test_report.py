"""The static report (chunkviz.views: page, build, semantic, cli): one self-contained HTML file with the
app's renderer, and a semantic slider that re-cuts exactly as chunkviz does.

The re-cut itself (report.js ``cvRecut``) runs here in Node on the tables the page stores, and is
compared with ``chunkviz.chunk(..., "semantic", percentile=p)`` at every percentile; the browser test
(tests/test_browser_report.py) checks the same in the page.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.semantic import TOPIC_TEXT

import chunkviz
from chunkviz.cli import commands as cli
from chunkviz.diagnostics.compare import ColumnConfig
from chunkviz.semantic import semantic_chunking
from chunkviz.views import page
from chunkviz.views.build import build_view, view_from_chunks
from chunkviz.views.semantic import semantic_view_data

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "chunkviz" / "sample_docs" / "field_station_handbook.md"
REPORT_JS = ROOT / "chunkviz" / "ui" / "report.js"
NODE = shutil.which("node")
HOSTILE = (
    "Hostile document, shown as text only.\n\n<script>window.__pwned=1</script>\n"
    '<img src=x onerror="window.__pwned=2">\n</div></div>\n</script><!-- x -->\n'
    '<a href="javascript:window.__pwned=3">click</a>\n\nThe end.\n'
)


def payload_of(report: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json">(.*?)</script>', report, re.S)
    assert found is not None
    return json.loads(found.group(1))


def test_the_hosted_script_is_docview_js_itself() -> None:
    files = [(ROOT / "chunkviz" / "ui" / name).read_text(encoding="utf-8") for name in page.DOCVIEW_FILES]
    docview = "\n".join(files)
    script = page.view_script()
    assert docview.replace(page.ENTRY, "const cvdEntry = function (component) {") in script
    assert REPORT_JS.read_text(encoding="utf-8") in script
    assert "\nexport default" not in script and "\nimport " not in script
    with pytest.raises(ValueError, match="root id"):
        page.start_script('x"); alert(1); ("')


@given(st.text(alphabet=st.sampled_from(["<", "/", "!", "-", "s", "c", "r", "i", "p", "t", ">", "\u2028", "é", "\n"])))
@settings(max_examples=200, deadline=None)
def test_script_json_cannot_end_its_script_and_reads_back(text: str) -> None:
    data = {"text": text, "html": f"<span>{text}</span>"}
    out = page.script_json(data)
    assert "</" not in out and "<!" not in out and "<script" not in out.lower()
    assert json.loads(out) == data


def test_report_of_hostile_text_runs_only_its_own_script(tmp_path: Path) -> None:
    view = build_view(
        HOSTILE, [ColumnConfig("fixed_tokens", {"chunk_size": 16, "overlap": 4}), ColumnConfig("recursive")]
    )
    report = page.report_html(view)
    scripts = re.findall(r"<script[^>]*>", report)
    assert scripts == ['<script type="application/json">', "<script>"]
    inline = re.search(r"<script>(.*?)</script>", report, re.S)
    assert inline is not None and page.script_hash(inline.group(1)) in report
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', report)
    assert policy is not None and "default-src 'none'" in policy.group(1) and "unsafe-inline'; img" in policy.group(1)
    assert "'unsafe-inline'" not in policy.group(1).split("script-src")[1]
    data = payload_of(report)
    assert data["marks"] == [] and "text" not in data  # the text is in the file once: inside the columns
    for column in data["view"]["columns"]:
        body = "".join(h for _, h in column["page_html"])
        assert "<script" not in body and "<img" not in body and "&lt;script&gt;" in body
    # nothing outside the payload and the script holds the document's markup unescaped
    outside = report.replace(re.search(r'<script type="application/json">.*?</script>', report, re.S).group(0), "")
    outside = outside.replace(inline.group(0), "")
    assert "window.__pwned" not in html.unescape(outside.replace("&lt;script&gt;window.__pwned", ""))


def test_no_address_of_any_host_in_a_report() -> None:
    report = page.report_html(build_view("Some text.\n\nMore text.", [ColumnConfig("paragraphs")]))
    addresses = set(re.findall(r"(?:https?:)?//[\w.-]+\.[a-z]{2,}[^\s\"'<>)]*", report))
    assert addresses <= {"http://www.w3.org/2000/svg"}, addresses  # the SVG namespace, never fetched
    assert "src=" not in report.replace('data-src="', "") and "@import" not in report and "url(" not in report


def test_size_of_the_default_sample_with_three_columns_keeps_the_budget() -> None:
    text = SAMPLE.read_text(encoding="utf-8")
    columns = [ColumnConfig("fixed_tokens"), ColumnConfig("recursive"), ColumnConfig("paragraphs")]
    report = page.report_html(build_view(chunkviz.read_path(SAMPLE), columns))
    variable = len(report.encode("utf-8")) - page.fixed_bytes()
    assert variable <= 3 * len(text) * len(columns), variable / len(text) / len(columns)


def test_report_carries_statistics_configuration_and_commands() -> None:
    view = build_view(
        chunkviz.read_path(SAMPLE), [ColumnConfig("fixed_tokens", {"chunk_size": 64}), ColumnConfig("recursive")]
    )
    report = page.report_html(view)
    assert "<h3>Statistics</h3>" in report and "<th>tokens median</th>" in report
    config = json.loads(html.unescape(re.search(r'<pre class="cvr-json">(.*?)</pre>', report, re.S).group(1)))
    assert [c["strategy"] for c in config["columns"]] == ["fixed_tokens", "recursive"]
    assert config["columns"][0]["params"]["chunk_size"] == 64
    commands = html.unescape(re.search(r'<pre class="cvr-commands">(.*?)</pre>', report, re.S).group(1)).splitlines()
    assert commands[0].endswith("--config chunkviz.json -o report.html")
    assert any(c.startswith("chunkviz chunk") and "-p chunk_size=64" in c for c in commands)
    data = payload_of(report)
    assert [c["label"] for c in data["view"]["columns"]] == ["1. fixed_tokens", "2. recursive"]
    assert all(len(c["page_html"]) == len(c["pages"]) for c in data["view"]["columns"])  # every page: no server


def test_a_view_of_chunks_you_already_have() -> None:
    text = "One. Two.\n\nThree."
    chunks = [
        chunkviz.Chunk.from_span(text, 0, 0, 9, "size_limit"),
        chunkviz.Chunk.from_span(text, 1, 11, 17, "end_of_document"),
    ]
    view = view_from_chunks(text, {"mine": chunks})
    assert view.columns[0].label == "1. mine" and "text in no chunk" not in view.columns[0].summary
    assert page.configuration(view) is None and "given as they are" in page.report_html(view)
    with pytest.raises(ValueError, match="not the document's characters"):
        view_from_chunks(text, {"bad": [chunkviz.Chunk(0, 0, 4, "Two.", "size_limit")]})


def test_the_apps_download_is_the_report_of_the_runs_it_drew() -> None:
    from chunkviz.diagnostics.compare import run_strategy  # noqa: PLC0415
    from chunkviz.text.models import DEFAULT_EMBEDDING_MODEL  # noqa: PLC0415
    from chunkviz.ui.share import view_report  # noqa: PLC0415

    document = chunkviz.read_path(SAMPLE)
    configs = [
        ColumnConfig("fixed_tokens", {"chunk_size": 64}),
        ColumnConfig("nope_not_run"),
        ColumnConfig("paragraphs"),
    ]
    drawn = run_strategy(document, "fixed_tokens", {"chunk_size": 64}, "cl100k_base")
    report = view_report(
        document,
        "chunkviz/sample_docs/field_station_handbook.md",
        "cl100k_base",
        configs,
        DEFAULT_EMBEDDING_MODEL,
        [drawn],
    )
    data = payload_of(report)
    assert [c["label"] for c in data["view"]["columns"]] == ["1. fixed_tokens", "3. paragraphs"]
    assert "column 2 (nope_not_run) did not run" in report
    expected = build_view(document, [configs[0], configs[2]], doc_name="chunkviz/sample_docs/field_station_handbook.md")
    assert [c["page_html"] for c in data["view"]["columns"]] == [
        c["page_html"] for c in payload_of(page.report_html(expected))["view"]["columns"]
    ]


# ------------------------------------------------------------------------------ the command


def test_cli_report_writes_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "report.html"
    code = cli.main(
        ["report", str(SAMPLE), "-s", "fixed_tokens", "-s", "recursive", "-p", "chunk_size=80", "-o", str(out)]
    )
    err = capsys.readouterr().err
    assert code == 0, err
    assert "bytes per character per column" in err
    data = payload_of(out.read_text(encoding="utf-8"))
    assert len(data["view"]["columns"]) == 2


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-s", "recursive", "-p", "no_such=1"], "-p no_such: no column's strategy has this parameter"),
        ([], "choose strategies with -s NAME"),
        (["-s", "nope"], "nope"),
        (["-s", "a", "-s", "b", "-s", "c", "-s", "d", "-s", "e"], "at most 4 columns"),
        (["-s", "recursive", "-p", "chunk_size"], "-p expects key=value"),
    ],
)
def test_cli_report_bad_input_exits_2_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code = cli.main(["report", str(SAMPLE), *argv, "-o", str(tmp_path / "r.html")])
    assert code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()


def test_cli_report_reads_a_configuration(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    view = build_view(
        chunkviz.read_path(SAMPLE), [ColumnConfig("fixed_tokens", {"chunk_size": 50}), ColumnConfig("paragraphs")]
    )
    (tmp_path / "chunkviz.json").write_text(page.configuration(view) or "", encoding="utf-8")
    out = tmp_path / "again.html"
    code = cli.main(["report", str(SAMPLE), "--config", str(tmp_path / "chunkviz.json"), "-o", str(out)])
    assert code == 0, capsys.readouterr().err
    first, again = payload_of(page.report_html(view)), payload_of(out.read_text(encoding="utf-8"))
    assert [c["page_html"] for c in first["view"]["columns"]] == [c["page_html"] for c in again["view"]["columns"]]


# ------------------------------------------------------------------------------ the semantic slider


def node_recut(data: dict[str, Any], length: int) -> list[dict[str, Any]]:
    """report.js's cvRecut at every step of the slider, run in Node."""
    assert NODE is not None
    harness = (
        REPORT_JS.read_text(encoding="utf-8")
        + "\nconst input = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        + "\nprocess.stdout.write(JSON.stringify(input.R.steps.map((p, k) => { const r = cvRecut(input.R, k, input.length);"
        + " return { chunks: r.chunks.map((c) => [c.start, c.end, c.reason, c.boundary, c.mtokens]), caption: r.caption,"
        + " breakpoints: r.breakpoints, ties: r.ties, sizeCuts: r.sizeCuts }; })));"
    )
    done = subprocess.run(
        [NODE, "-e", harness],
        input=json.dumps({"R": data["recut"], "length": length}),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def python_recut(text: str, params: dict[str, Any], p: float) -> dict[str, Any]:
    explanation = semantic_chunking(text, amount=p, **params)
    return {
        "chunks": [
            [c.start, c.end, str(c.reason), str(c.boundary), c.metadata["model_tokens"]] for c in explanation.chunks
        ],
        "caption": explanation.threshold_caption(),
        "breakpoints": list(explanation.threshold.breakpoints),
        "ties": list(explanation.threshold.at_threshold),
        "sizeCuts": list(explanation.size_splits),
    }


def check_every_percentile(text: str, params: dict[str, Any], api_params: dict[str, Any]) -> int:
    document = chunkviz.Document(text, "doc.txt", "utf-8", ())
    data = semantic_view_data(document, semantic_chunking(document, **params))
    assert data["recut"] is not None, data["why_not"]
    got = node_recut(data, len(text))
    forced = 0
    for k, p in enumerate(data["recut"]["steps"]):
        expected = python_recut(text, params, p)
        assert got[k] == expected, f"percentile {p}"
        if p % 10 == 0 or p == 95:  # the public API gives the same spans (its own cache: every 10th is enough)
            spans = [(c.start, c.end) for c in chunkviz.chunk(text, "semantic", percentile=p, **api_params)]
            assert [(a, b) for a, b, *_ in got[k]["chunks"]] == spans, f"percentile {p}"
        forced += len(expected["sizeCuts"])
    return forced


@pytest.mark.skipif(NODE is None, reason="Node is not installed (./dev installs it for the TypeScript check)")
def test_slider_recut_is_chunkviz_at_every_percentile_on_the_topic_document() -> None:
    check_every_percentile(TOPIC_TEXT, {}, {})


@pytest.mark.skipif(NODE is None, reason="Node is not installed (./dev installs it for the TypeScript check)")
@pytest.mark.parametrize(
    "limits",
    [{}, {"max_tokens": 40}, {"max_tokens": 90, "min_tokens": 30}, {"min_tokens": 60}],
    ids=["defaults", "max40", "max90-min30", "min60"],
)
def test_slider_recut_is_chunkviz_with_size_limits(fake_model: str, limits: dict[str, Any]) -> None:
    """A longer document with the cheap stand-in embedder: forced cuts, merges and a sentence over the budget."""
    text = SAMPLE.read_text(encoding="utf-8") + "\n\n" + " ".join(["longword"] * 400) + ".\n"
    params = {"model": fake_model, **limits}
    forced = check_every_percentile(text, params, params)
    if "max_tokens" in limits:
        assert forced > 0  # the size limits were exercised


@pytest.mark.skipif(NODE is None, reason="Node is not installed (./dev installs it for the TypeScript check)")
@given(
    st.lists(
        st.sampled_from(["Cats purr.", "Dogs bark loudly.", "Rain falls.", "Tax rates rose.", "Ok.", "\n\n"]),
        min_size=1,
        max_size=30,
    )
)
@settings(max_examples=8, deadline=None)
def test_slider_recut_is_chunkviz_on_arbitrary_sentences(sentences: list[str]) -> None:
    from support.semantic import FAKE_MODEL  # noqa: PLC0415 - the fixture is set up by hand below

    text = " ".join(sentences)
    with pytest.MonkeyPatch.context() as mp:
        from support.semantic import MINILM_LIMIT, HashedBagOfWords  # noqa: PLC0415

        import chunkviz.semantic.embeddings as embeddings  # noqa: PLC0415

        fake = HashedBagOfWords(FAKE_MODEL, None, chunkviz.get_tokenizer("minilm"), MINILM_LIMIT)
        real = embeddings.load_model
        mp.setattr(
            embeddings, "load_model", lambda name=embeddings.DEFAULT_MODEL: fake if name == FAKE_MODEL else real(name)
        )
        document = chunkviz.Document(text, "doc.txt", "utf-8", ())
        explanation = semantic_chunking(document, model=FAKE_MODEL, max_tokens=12)
        data = semantic_view_data(document, explanation)
        if data["recut"] is None:
            return  # fewer than two sentences, or sizes that are not arithmetic: the page shows no slider
        check_every_percentile(text, {"model": FAKE_MODEL, "max_tokens": 12}, {"model": FAKE_MODEL, "max_tokens": 12})


@pytest.mark.skipif(NODE is None, reason="Node is not installed (./dev installs it for the TypeScript check)")
def test_a_recut_column_is_drawn_as_render_py_draws_it(fake_model: str) -> None:
    """The page draws a re-cut column itself (no Python there): the same HTML render.py writes for
    those chunks, with the model's tokens as their only annotation."""
    from chunkviz.drawing.render import ChunkAnnotation, RenderOptions, render_html  # noqa: PLC0415

    text = "Ünïcode 😀 first line.\r\n\r\n  " + SAMPLE.read_text(encoding="utf-8") + "\n\n  \n"
    params = {"model": fake_model, "max_tokens": 60}
    document = chunkviz.Document(text, "doc.txt", "utf-8", ())
    data = semantic_view_data(document, semantic_chunking(document, **params))
    harness = (
        REPORT_JS.read_text(encoding="utf-8")
        + "\nconst input = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        + "\nconst slice = cvSlicer(input.text);"
        + "\nprocess.stdout.write(JSON.stringify(input.steps.map((k) => { const r = cvRecut(input.R, k, input.length);"
        + " const { pages, html } = cvColumnPages(slice, r.chunks, 'col2'); return { pages, html: html.join('') }; })));"
    )
    steps = [30, 70, 95]
    done = subprocess.run(
        [NODE, "-e", harness],
        input=json.dumps({"R": data["recut"], "length": len(text), "text": text, "steps": steps}),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    for step, got in zip(steps, json.loads(done.stdout)):
        chunks = semantic_chunking(document, amount=step, **params).chunks
        notes = {c.index: ChunkAnnotation(embedding_tokens=c.metadata["model_tokens"]) for c in chunks}
        expected = render_html(text, chunks, RenderOptions("col2", annotations=notes))
        assert expected[expected.index(">") + 1 : -len("</div>")] == got["html"], f"percentile {step}"
        starts = [p[0] for p in got["pages"]]
        assert starts[0] == 0 and [p[1] for p in got["pages"]][-1] == len(text) and starts == sorted(starts)


def test_cli_report_draws_the_configurations_enrichment(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from chunkviz.evaluation.config import config_from_columns, config_json  # noqa: PLC0415

    config = tmp_path / "chunkviz.json"
    config.write_text(config_json(config_from_columns([ColumnConfig("paragraphs")], {"title": "Field <notes>"})))
    out = tmp_path / "r.html"
    assert cli.main(["report", str(SAMPLE), "--config", str(config), "-o", str(out)]) == 0, capsys.readouterr().err
    body = "".join(h for _, h in payload_of(out.read_text(encoding="utf-8"))["view"]["columns"][0]["page_html"])
    assert '<ins class="cv-add" data-added-to="0"' in body and "Field &lt;notes&gt;" in body


@given(st.text(max_size=200))
@settings(max_examples=30, deadline=None)
def test_any_text_reaches_the_page_whole_and_only_as_text(text: str) -> None:
    view = build_view(text, [ColumnConfig("paragraphs")])
    report = page.report_html(view)
    assert re.findall(r"<script[^>]*>", report) == ['<script type="application/json">', "<script>"]
    data = payload_of(report)
    assert data["marks"] == page.text_marks(text)
    body = "".join(h for _, h in data["view"]["columns"][0]["page_html"])
    assert html.unescape(re.sub(r"<[^>]*>", "", body)) == text  # every character, escaped, in order


@pytest.mark.skipif(NODE is None, reason="Node is not installed (./dev installs it for the TypeScript check)")
def test_the_page_puts_back_what_the_html_parser_changes_in_the_text() -> None:
    """The page reads the document from a column's HTML; the parser made LF of CRLF and CR and dropped
    NUL: cvRestore puts them back from the marks (code point offsets, an emoji before them)."""
    import random  # noqa: PLC0415

    rng = random.Random(21)
    alphabet = ["a", "\r", "\n", "\x00", "😀", "é", " ", "\r\n"]
    texts = ["", "\r", "\r\r\n", "\x00\x00", "😀\r\n😀\r"] + [
        "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 40))) for _ in range(300)
    ]
    cases = [
        {"parsed": t.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", ""), "marks": page.text_marks(t)}
        for t in texts
    ]
    harness = (
        REPORT_JS.read_text(encoding="utf-8")
        + "\nconst cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        + "\nprocess.stdout.write(JSON.stringify(cases.map((c) => cvRestore(c.parsed, c.marks))));"
    )
    done = subprocess.run([NODE, "-e", harness], input=json.dumps(cases), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == texts


def test_a_hostile_output_name_is_printed_escaped(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The line confirming the report names its file with ESC and BEL pictured, not sent to the terminal."""
    doc = tmp_path / "doc.txt"
    doc.write_text("One sentence here. Another one there.\n", encoding="utf-8")
    out = tmp_path / "r\x1b[2J\x07.html"
    assert cli.main(["report", str(doc), "-s", "fixed_chars", "-o", str(out)]) == 0
    captured = capsys.readouterr()
    assert out.is_file()
    assert not any(c in captured.out + captured.err for c in "\x1b\x07")
    assert f"wrote {tmp_path}/r␛[2J␇.html: " in captured.out + captured.err
