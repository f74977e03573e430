"""Reading the document view's payload as the browser would: a column's whole HTML from its pages."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chunkviz.ui import docview


def column_html(entry: Mapping[str, Any]) -> str:
    """The whole HTML of one column of the document view's data (``payload["columns"][i]``).

    A one-page column is sent whole (its root, its page, ``</div>``: the rendered HTML exactly); a
    longer one sends only the pages near its window, so its HTML is read where those pages were cut
    from, the page cache of :mod:`chunkviz.ui.docview` (the script ran in this process, as AppTest runs it).
    """
    if len(entry["pages"]) == 1 and entry["page_html"]:
        return entry["root"] + entry["page_html"][0][1] + "</div>"
    html = docview.cached_column_html(entry["id"])
    assert html is not None, f"column {entry.get('label')!r}: content id {entry['id']} is not in the page cache"
    return html
