"""The document view as self-contained HTML: a report file (``chunkviz report``), a notebook cell
(:mod:`chunkviz.views.notebook`) and the app's "Download this view as HTML" (:mod:`chunkviz.ui.share`).

One renderer everywhere: the columns are :func:`chunkviz.drawing.render.render_html` output, the payload is
:func:`chunkviz.views.docview.view_payload` (every page: there is no server to page from), the
stylesheet is the app's (render.py's rules, then ``docview.css``) and the behaviour is
the app's own script, unchanged: ``chunkviz/ui/docview.js`` and the files before it, joined by
:func:`docview_js` in :data:`DOCVIEW_FILES` order. :func:`view_script` turns its one ``export
default`` into a constant, puts ``report.js`` (the host Streamlit would be, and the semantic slider)
after it and wraps both in one function, started on the view's root by its unique id (never
``document.body``: a notebook shows many views in one page, or each in an iframe).

Safety: document text is escaped by render.py exactly as in the app, and every other value by its
:func:`~chunkviz.drawing.render.escape` (lone surrogates as U+FFFD there and in the payload, so a page always
encodes as UTF-8); the payload is JSON in a ``<script type="application/json">`` whose ``</`` and
``<!`` are escaped (no document text can end it); a report file carries a Content-Security-Policy
that allows no request to any host and runs only the one inline script whose hash it names, so even
markup that got through would not run.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
import shlex
from functools import lru_cache
from pathlib import Path
from typing import Any

from chunkviz.core.errors import ChunkvizError
from chunkviz.core.files import write_text_atomic
from chunkviz.diagnostics.compare import ColumnConfig, document_stats, size_phrase, stats_row
from chunkviz.drawing.render import escape, stylesheet_rules
from chunkviz.evaluation.config import CONFIG_FILE_NAME, config_from_columns, config_json
from chunkviz.formats.export import cli_command
from chunkviz.semantic.tuning import CONTROLS
from chunkviz.text.tokenizers import surrogate_safe
from chunkviz.views.build import ComparisonView
from chunkviz.views.docview import view_payload

_SCRIPT_OPEN = re.compile(r"<script", re.IGNORECASE)
_UI = Path(__file__).resolve().parent.parent / "ui"
#: The one line of docview.js that Streamlit's components v2 calls; the hosted script names it instead.
ENTRY = "export default function (component) {"
#: The document view's script files in the order the browser runs them: DocViewBase (types, helpers, DOM)
#: first, then each file whose class extends the one before, then the entry (``ENTRY``, the one export).
DOCVIEW_FILES = (
    "docview_base.js",
    "docview_paging.js",
    "docview_scroll.js",
    "docview_hits.js",
    "docview_selection.js",
    "docview.js",
)
#: Height of the linked document boxes in a report (the app's VIEW_HEIGHT_PX) and in a notebook cell.
REPORT_HEIGHT_PX = 745
NOTEBOOK_HEIGHT_PX = 520


@lru_cache(maxsize=1)
def docview_js() -> str:
    """The document view's script as one payload (the app's component, a report, a notebook cell):
    ``chunkviz/ui``'s ``DOCVIEW_FILES`` joined in their order."""
    return "\n".join((_UI / name).read_text(encoding="utf-8") for name in DOCVIEW_FILES)


@lru_cache(maxsize=1)
def view_script() -> str:
    """docview.js and report.js as one classic script defining ``cvdMount`` and ``cvStart`` inside a
    function (call it with the root's id: :func:`start_script`)."""
    docview = docview_js()
    if docview.count(ENTRY) != 1 or "\nexport " in docview.replace("\n" + ENTRY, "") or "\nimport " in docview:
        raise RuntimeError(f"the docview*.js files must have exactly one {ENTRY!r} and no other import or export")
    hosted = docview.replace(ENTRY, "const cvdEntry = function (component) {", 1)
    report = (_UI / "report.js").read_text(encoding="utf-8")
    return f"const cvdMount = (() => {{\n{hosted}\nreturn cvdEntry;\n}})();\n{report}"


def start_script(root_id: str) -> str:
    """The inline script of one view: the hosted document view, started on element ``root_id``."""
    if not root_id.replace("-", "").isalnum():
        raise ValueError(f"a view's root id is letters, digits and dashes, got {root_id!r}")
    return f'(() => {{\n"use strict";\n{view_script()}\ncvStart("{root_id}", cvdMount);\n}})();\n'


@lru_cache(maxsize=1)
def view_css() -> str:
    """The document view's stylesheet in its shadow root: the app's (render.py's rules, then docview.css)."""
    return stylesheet_rules() + "\n" + (_UI / "docview.css").read_text(encoding="utf-8")


def script_json(data: Any) -> str:
    """``data`` as JSON that cannot end the ``<script type="application/json">`` it is put in (a lone
    surrogate, which ``ensure_ascii=False`` leaves as it is and UTF-8 cannot encode, as U+FFFD)."""
    text = surrogate_safe(json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False))
    text = text.replace("</", "<\\/").replace("<!", "<\\u0021")
    return _SCRIPT_OPEN.sub(lambda m: "\\u003c" + m.group(0)[1:], text)  # no "<script" at all, to any parser


def view_data(view: ComparisonView, *, height_px: int) -> dict[str, Any]:
    """What the page's script reads (``ViewData`` in report.js)."""
    payload = view_payload(
        [c.view() for c in view.columns],
        length=len(view.document.text),
        height_px=height_px,
        legend=view.legend(),
        all_pages=True,
    )
    semantic = [{"column": i, **c.semantic} for i, c in enumerate(view.columns) if c.semantic is not None]
    return {
        "view": payload,
        "css": view_css(),
        "marks": text_marks(view.document.text),
        "tokenizer": view.tokenizer,
        "semantic": semantic,
    }


_PARSER_CHANGES = re.compile("\r\n?|\x00")


def text_marks(text: str) -> list[list[int]]:
    """Where the HTML parser changes the document's text: ``[offset, kind]`` with kind 0 for the CR of
    a CRLF (the parser keeps the LF), 1 for a lone CR (it becomes LF), 2 for a NUL (dropped). The page
    reads the text back from the first column's HTML and puts these back (report.js ``cvRestore``):
    the document is in the file once, inside the columns, instead of once more on its own."""
    return [
        [m.start(), 0 if m.group() == "\r\n" else 1 if m.group() == "\r" else 2] for m in _PARSER_CHANGES.finditer(text)
    ]


_CSS = """
.cvr{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#212529;font-size:14px;line-height:1.45}
.cvr h2{font-size:1.35rem;margin:0.2rem 0}.cvr h3{font-size:1.02rem;margin:1rem 0 0.35rem}
.cvr-sub,.cvr-note{color:#495057;font-size:0.85rem;margin:0.2rem 0}
.cvr-focus{border:1px solid #dee2e6;border-radius:6px;padding:0.4rem 0.7rem;margin:0.6rem 0;background:#f8f9fa}
.cvr-focus h3{margin:0.2rem 0}.cvr-facts,.cvr-flags{margin:0.2rem 0;font-size:0.85rem}
.cvr pre{white-space:pre-wrap;word-wrap:break-word;background:#fff;border:1px solid #dee2e6;border-radius:4px;
padding:0.4rem 0.6rem;font-size:0.8rem;max-height:16rem;overflow:auto;margin:0.3rem 0}
.cvr-semantic{border-top:1px solid #dee2e6;margin-top:0.8rem}
.cvr-control{display:flex;flex-wrap:wrap;align-items:center;gap:0.3rem 1rem;font-size:0.9rem}
.cvr-control input{width:16rem;vertical-align:middle}.cvr-value{font-weight:600;min-width:2.5rem;display:inline-block}
.cvr-caption{font-size:0.85rem;margin:0.3rem 0}.cvr-plot-box{width:100%;overflow:hidden}
.cvr-plot{display:block}.cvr-pt{cursor:pointer}
.cvr table{border-collapse:collapse;font-size:0.8rem;margin:0.3rem 0}
.cvr th,.cvr td{border:1px solid #dee2e6;padding:0.2rem 0.45rem;text-align:right}
.cvr th:first-child,.cvr td:first-child,.cvr th:nth-child(2),.cvr td:nth-child(2){text-align:left}
.cvr th{background:#f1f3f5;font-weight:600}
"""


def view_fragment(view: ComparisonView, *, height_px: int = NOTEBOOK_HEIGHT_PX, root_id: str | None = None) -> str:
    """The view as one HTML fragment (styles, markup, payload and script inside one element): a
    notebook cell's output, and the body of a report."""
    root_id = root_id or "cvr-" + secrets.token_hex(6)
    return _fragment(view, height_px, root_id)[0]


def _fragment(view: ComparisonView, height_px: int, root_id: str) -> tuple[str, str]:
    """The fragment and its inline script (whose hash a report's policy names)."""
    data = view_data(view, height_px=height_px)
    script = start_script(root_id)
    doc = view.document
    stats = document_stats(doc.text, view.tokenizer)
    e = escape
    head = (
        f'<header><h2>chunkviz · <bdi>{e(Path(view.doc_name).name or view.doc_name)}</bdi></h2><p class="cvr-sub">'
        f"{size_phrase(stats)} · {stats['tokens']:,} {e(view.tokenizer)} tokens"
        f" · {len(view.columns)} column{'' if len(view.columns) == 1 else 's'}. Hover a chunk for its facts, click it"
        " for its text; the ribbon's ticks are the cuts (click one to scroll there).</p></header>"
    )
    notes = "".join(f'<p class="cvr-note">{e(n)}</p>' for n in view.notes)
    parts = [
        f'<div class="cvr" id="{root_id}"><style>{_CSS}</style>',
        head,
        notes,
        # the text inside the host shows only until the script gives it a shadow root (an untrusted notebook
        # strips scripts; a browser may have them off)
        '<div class="cvr-view"><p class="cvr-note">The document view draws when its own inline script runs'
        " (in a notebook: run the cell, or trust the notebook).</p></div>",
        '<section class="cvr-focus" aria-live="polite"><p class="cvr-note">Click a chunk to see its text and why it ends where it does.</p></section>',
        *(_semantic_section(view, i) for i, c in enumerate(view.columns) if c.semantic is not None),
        _statistics(view),
        _reproduce(view),
        f'<script type="application/json">{script_json(data)}</script>',
        f"<script>{script}</script>",
        "</div>",
    ]
    return "".join(parts), script


def _semantic_section(view: ComparisonView, i: int) -> str:
    column = view.columns[i]
    data = column.semantic or {}
    control = CONTROLS["percentile"]
    e = escape
    slider = (
        f'<label>percentile <input class="cvr-range" type="range" min="{control.minimum:g}" max="{control.maximum:g}"'
        f' step="{control.step:g}" aria-label="percentile of column {e(column.label)}"></label>'
        f'<span>p = <output class="cvr-value"></output></span><span class="cvr-note">{e(control.label)}</span>'
        if data.get("recut")
        else ""
    )
    return (
        f'<section class="cvr-semantic" data-column="{i}"><h3>{e(column.label)}: similarity of adjacent sentences</h3>'
        f'<div class="cvr-control">{slider}</div><p class="cvr-caption"></p><div class="cvr-plot-box"></div>'
        f'<p class="cvr-note">As written: {e(str(data.get("summary", "")))}. The slider re-cuts this column from the'
        " similarities stored in this file (thresholds are arithmetic on them; no model runs here), by chunkviz's rules:"
        " the same chunks as chunkviz at that percentile.</p></section>"
    )


def _statistics(view: ComparisonView) -> str:
    rows = [stats_row(c.label, c.run) for c in view.columns]
    keys: list[str] = []
    for row in rows:
        keys += [k for k in row if k not in keys]
    e = escape
    head = "".join(f"<th>{e(k)}</th>" for k in keys)
    body = "".join("<tr>" + "".join(f"<td>{e(_cell(row.get(k)))}</td>" for k in keys) + "</tr>" for row in rows)
    note = (
        '<p class="cvr-note">Of the chunks as written (a semantic column re-cut by its slider keeps these numbers).</p>'
        if any(c.semantic is not None and c.semantic.get("recut") for c in view.columns)
        else ""
    )
    return (
        f'<section class="cvr-stats"><h3>Statistics</h3>{note}<table><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></section>"
    )


def _cell(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:g}"
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


def reproduce_commands(view: ComparisonView, output: str = "report.html") -> list[str]:
    """The commands that make this view again: the report itself, then each column's ``chunkviz chunk``."""
    configs = [c.config for c in view.columns if c.config is not None]
    name = view.doc_name
    if len(configs) != len(view.columns):
        return []
    report = ["chunkviz", "report", name, "--config", CONFIG_FILE_NAME, "-o", output]
    lines = [" ".join(shlex.quote(p) for p in report)]
    if not any(c.params or c.tokenizer for c in configs):
        direct = ["chunkviz", "report", name, *(x for c in configs for x in ("-s", c.strategy))]
        lines.append(" ".join(shlex.quote(p) for p in [*direct, "--tokenizer", view.tokenizer, "-o", output]))
    for c in configs:
        lines.append(cli_command(name, c.strategy, dict(c.params), c.tokenizer or view.tokenizer))
    return lines


def configuration(view: ComparisonView) -> str | None:
    """The view's chunkviz.json (None when a column has no configuration: chunks given as they are)."""
    configs: list[ColumnConfig] = [c.config for c in view.columns if c.config is not None]
    if len(configs) != len(view.columns):
        return None
    try:
        return config_json(config_from_columns(configs, tokenizer=view.tokenizer, embedding_model=view.embedding_model))
    except ChunkvizError:
        return None


def _reproduce(view: ComparisonView) -> str:
    e = escape
    config = configuration(view)
    commands = reproduce_commands(view)
    if config is None:
        return '<section class="cvr-config"><h3>Configuration</h3><p class="cvr-note">These chunks were given as they are (no strategy ran here).</p></section>'
    return (
        f'<section class="cvr-config"><h3>Configuration ({CONFIG_FILE_NAME})</h3><pre class="cvr-json">{e(config)}</pre>'
        f'<h3>Reproduce</h3><p class="cvr-note">Save the configuration as {CONFIG_FILE_NAME} next to the document, then:</p>'
        f'<pre class="cvr-commands">{e(chr(10).join(commands))}</pre></section>'
    )


def script_hash(script: str) -> str:
    """The CSP source of an inline script: ``'sha256-…'``."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii") + "'"


def report_html(view: ComparisonView, *, title: str | None = None) -> str:
    """One self-contained HTML page: opens from ``file://`` or any static host, asks no host for anything."""
    fragment, script = _fragment(view, REPORT_HEIGHT_PX, "cvr-" + secrets.token_hex(6))
    policy = (
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
        f"script-src {script_hash(script)}; base-uri 'none'; form-action 'none'"
    )
    name = escape(title or f"chunkviz · {Path(view.doc_name).name or view.doc_name}")
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="generator" content="chunkviz"><title>{name}</title>'
        "<style>body{margin:1rem 1.5rem;background:#fff}</style></head><body>"
        f"{fragment}</body></html>\n"
    )


def write_report(view: ComparisonView, path: str | Path) -> Path:
    """Write :func:`report_html` to ``path`` (UTF-8, atomically: a failure leaves the old file)."""
    return write_text_atomic(path, report_html(view))


def fixed_bytes() -> int:
    """Bytes of a report that do not grow with the document: the script and the stylesheets."""
    return len(start_script("cvr-000000000000").encode("utf-8")) + len(view_css().encode()) + len(_CSS.encode())


__all__ = [
    "ENTRY",
    "configuration",
    "fixed_bytes",
    "report_html",
    "reproduce_commands",
    "script_json",
    "start_script",
    "view_css",
    "view_data",
    "view_fragment",
    "view_script",
    "write_report",
]
