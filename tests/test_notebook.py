"""chunkviz.show in a notebook (chunkviz.views.notebook): docs/notebook.ipynb executed headlessly by nbclient
with ipykernel (the test extra), its rendered outputs checked; then, in Chromium, the notebook as
nbconvert exports it (every network request blocked) shows working views, and its picture is taken.

Executing a real notebook costs a kernel start and, for its semantic column, the embedding model in
that kernel (about 20 s here): the issue asks for exactly this test, so it runs once per module."""

from __future__ import annotations

import dataclasses
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

import chunkviz
from chunkviz.views.build import view_from_chunks
from chunkviz.views.notebook import ChunkView

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "docs" / "notebook.ipynb"
OUTPUT = ROOT / "test-output"
TEXT = (ROOT / "chunkviz" / "sample_docs" / "topic_shifts.txt").read_text(encoding="utf-8")

nbformat = pytest.importorskip("nbformat", reason="the test extra installs nbformat, nbclient and ipykernel")
nbclient = pytest.importorskip("nbclient", reason="the test extra installs nbclient and ipykernel")


@pytest.fixture(scope="module")
def executed() -> Any:
    """docs/notebook.ipynb run top to bottom in a fresh kernel (from the docs folder, as a user opens it)."""
    pytest.importorskip("ipykernel", reason="the test extra installs ipykernel")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOK.parent)}}
    )
    client.execute()
    return notebook


def html_outputs(notebook: Any) -> list[str]:
    return [
        o["data"]["text/html"]
        for c in notebook.cells
        if c.cell_type == "code"
        for o in c.outputs
        if "text/html" in o.get("data", {})
    ]


def payload(fragment: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json">(.*?)</script>', fragment, re.S)
    assert found is not None
    return json.loads(found.group(1))


def spans_in(column: dict[str, Any]) -> list[tuple[int, int]]:
    body = "".join(h for _, h in column["page_html"])
    found = re.findall(
        r'<span id="[^"]*" class="cv-c[^"]*" data-chunk-index="(\d+)" data-start="(\d+)" data-end="(\d+)"', body
    )
    return [(int(a), int(b)) for _, a, b in sorted(found, key=lambda m: int(m[0]))]


def test_the_notebook_runs_and_each_view_is_in_its_own_output(executed: Any) -> None:
    errors = [o for c in executed.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert errors == []
    fragments = html_outputs(executed)
    assert len(fragments) == 2
    ids = [re.match(r'<div class="cvr" id="(cvr-[0-9a-f]+)">', f).group(1) for f in fragments]
    assert len(set(ids)) == 2  # each view finds its own root, never document.body
    for fragment, root_id in zip(fragments, ids):
        assert (
            f'cvStart("{root_id}", cvdMount)' in fragment
            and "document.body" not in fragment.split("<script>")[-1].split("cvStart")[-1]
        )
    first, second = (payload(f) for f in fragments)
    assert [c["label"] for c in first["view"]["columns"]] == ["1. recursive", "2. sentences", "3. semantic"]
    assert spans_in(first["view"]["columns"][0]) == [
        (c.start, c.end) for c in chunkviz.chunk(TEXT, "recursive", chunk_size=60)
    ]
    assert spans_in(first["view"]["columns"][2]) == [(c.start, c.end) for c in chunkviz.chunk(TEXT, "semantic")]
    assert [s["column"] for s in first["semantic"]] == [2] and first["semantic"][0]["recut"] is not None
    assert [c["label"] for c in second["view"]["columns"]] == ["1. my pipeline"]
    assert spans_in(second["view"]["columns"][0]) == [
        (c.start, c.end) for c in chunkviz.chunk(TEXT, "fixed_tokens", chunk_size=40, overlap=8)
    ]


def test_show_checks_its_arguments() -> None:
    with pytest.raises(ValueError, match="at least one strategy"):
        chunkviz.show("Some text.")
    with pytest.raises(chunkviz.InvalidParamError, match="none of the strategies"):
        chunkviz.show("Some text.", "paragraphs", chunk_sise=3)
    view = chunkviz.show("One.\n\nTwo.", "paragraphs", ("recursive", {"chunk_size": 5, "overlap": 0}))
    expected = [
        chunkviz.chunk("One.\n\nTwo.", "paragraphs"),
        chunkviz.chunk("One.\n\nTwo.", "recursive", chunk_size=5, overlap=0),
    ]
    assert [list(c) for c in view.chunks.values()] == expected
    assert "ChunkView of 'document'" in repr(view) and view._repr_html_().startswith('<div class="cvr" id="cvr-')


HOSTILE = '"><img src=x onerror="alert(7)">'


class _Elements(HTMLParser):
    """Every element's tag and attributes, and the text outside added text (``<ins>``) and scripts."""

    def __init__(self, markup: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self._skip = 0
        self.feed(markup)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._skip += tag in ("ins", "script", "style")

    def handle_endtag(self, tag: str) -> None:
        self._skip -= tag in ("ins", "script", "style")

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.text.append(data)


def test_chunks_given_with_indexes_that_are_not_whole_numbers_are_refused() -> None:
    """Issue 36 item 5: a string index drew script into the cell; now the chunk is refused, saying what to pass."""
    text = "One. Two.\n\nThree."
    good = chunkviz.Chunk.from_span(text, 0, 0, len(text), "end_of_document")
    assert [list(c) for c in chunkviz.ChunkView.from_chunks(text, {"mine": [good]}).chunks.values()] == [[good]]
    for field, value, shown in [
        ("index", HOSTILE, repr(HOSTILE) + " (a str)"),
        ("index", True, "True (a bool)"),
        ("parent", "0", "'0' (a str)"),
        ("level", 1.0, "1.0 (a float)"),
    ]:
        bad = dataclasses.replace(good, **{field: value})
        message = (
            f"'mine', the chunk at position 1: its {field} is {shown}; a chunk's index is an int (its number in "
            "the chunking), its parent an int or None, its level an int (0 for a flat chunking): pass int(...) values"
        )
        with pytest.raises(TypeError) as refused:
            chunkviz.ChunkView.from_chunks(text, {"mine": [good, bad]})
        assert str(refused.value) == message


def test_hostile_labels_stay_text_in_a_notebook_view() -> None:
    text = "One. Two.\n\nThree."
    chunks = [chunkviz.Chunk.from_span(text, 0, 0, len(text), "end_of_document")]
    fragment = chunkviz.ChunkView.from_chunks(text, {HOSTILE: chunks})._repr_html_()
    elements = _Elements(fragment)
    assert {tag for tag, _ in elements.tags} == {"div", "style", "header", "h2", "p", "section", "h3", "table",
                                                  "thead", "tr", "th", "tbody", "td", "script", "bdi"}  # fmt: skip
    assert not any(name.startswith("on") for _, attrs in elements.tags for name in attrs)
    assert payload(fragment)["view"]["columns"][0]["label"] == f"1. {HOSTILE}"


def test_a_view_of_text_with_lone_surrogates_shows_and_saves(tmp_path: Path) -> None:
    """Issue 36 item 3: each lone surrogate is drawn as U+FFFD (the cell's output and the saved file are
    UTF-8); the chunks keep the text's own characters and offsets."""
    text = "A lone \ud800 surrogate.\n\nAnother \udfff one, é.\n\nA pair as two code points \ud83d\ude00 here.\n"
    view = chunkviz.show(text, "paragraphs", ("fixed_chars", {"chunk_size": 12, "overlap": 0}))
    expected = [chunkviz.chunk(text, "paragraphs"), chunkviz.chunk(text, "fixed_chars", chunk_size=12, overlap=0)]
    assert [list(c) for c in view.chunks.values()] == expected
    assert "\ud800" in expected[0][0].text  # the chunks hold the text as it is
    fragment = view._repr_html_()
    fragment.encode("utf-8")
    saved = view.save(tmp_path / "view.html").read_bytes().decode("utf-8")  # strict: valid UTF-8
    shown = text.replace("\ud800", "\ufffd").replace("\udfff", "\ufffd").replace("\ud83d\ude00", "\ufffd\ufffd")
    for page in (fragment, saved):
        columns = payload(page)["view"]["columns"]
        for column, chunks in zip(columns, expected):
            assert spans_in(column) == [(c.start, c.end) for c in chunks]
            assert "".join(_Elements("".join(h for _, h in column["page_html"])).text) == shown
    named = view_from_chunks(text, {"mine": expected[0]}, doc_name="caf\udce9.md")  # a name read with surrogateescape
    assert "chunkviz · caf\ufffd.md" in ChunkView(named).html().encode("utf-8").decode("utf-8")


@pytest.mark.browser
def test_the_exported_notebook_shows_working_views_offline(executed: Any, browser: Any) -> None:
    from nbconvert import HTMLExporter

    OUTPUT.mkdir(exist_ok=True)
    exported = OUTPUT / "notebook.html"
    exported.write_text(HTMLExporter(template_name="lab").from_notebook_node(executed)[0], encoding="utf-8")
    page = browser.new_context(viewport={"width": 1300, "height": 1000}).new_page()
    errors: list[str] = []
    blocked: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))

    def route(r: Any) -> None:
        if r.request.url == exported.as_uri():
            r.continue_()
        else:  # nbconvert's template links require.js and MathJax from a CDN: never fetched here
            blocked.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.goto(exported.as_uri())
    page.wait_for_selector('.cv-doc[data-strategy="col2"] [data-chunk-index]')
    assert page.locator(".cvr .cvd-root").count() == 2
    assert all("cdnjs" in url for url in blocked), blocked  # the views asked for nothing
    band = page.locator('.cv-doc[data-strategy="col2"] [data-chunk-index="1"]').first
    band.hover()
    page.wait_for_function(
        "() => [...document.querySelectorAll('.cvr-view')].some((h) => !h.shadowRoot.querySelector('.cvd-tip').hidden)"
    )
    page.screenshot(path=str(OUTPUT / "notebook.png"))  # docs/notebook.png is this picture
    # linked scrolling inside the cell: scrolling the first column moves the others to the same offset
    boxes = "document.querySelector('.cvr-view').shadowRoot.querySelectorAll('.cvd-box')"
    page.evaluate(f"() => {{ const b = {boxes}[0]; b.scrollTop = b.scrollHeight / 2; }}")
    page.wait_for_function(f"() => [...{boxes}].slice(1).every((b) => b.scrollTop > 0)")
    assert errors == []
    page.context.close()


def test_an_arabic_document_reads_right_to_left_in_a_notebook_view_and_a_report() -> None:
    """Issue 37: the notebook cell and the report carry the renderer's direction rules and the
    column's dir="auto" (the document view draws them in its shadow root); the name is isolated."""
    text = "تقع القاهرة على ضفاف نهر النيل. هل زرت الأهرامات من قبل؟ نعم، زرتها في الصيف الماضي!"
    view = chunkviz.show(text, "sentences")
    for html in (view._repr_html_(), view.html()):
        assert "unicode-bidi:plaintext" in html and ".cvd-page { unicode-bidi: plaintext; }" in html
        assert 'dir=\\"auto\\"' in html or 'dir="auto"' in html
        assert "<h2>chunkviz · <bdi>" in html
