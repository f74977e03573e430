"""chunkviz in a notebook: ``chunkviz.show(text, "recursive", "semantic", chunk_size=200)`` draws the
app's Compare view inline (Jupyter, JupyterLab, VS Code) through ``_repr_html_``.

The cell's output is :func:`chunkviz.views.page.view_fragment`: the same renderer as the app and the
report (render.py's HTML, docview.css, the docview*.js scripts joined by page.docview_js), started on the output's own root by a unique id,
so several views in one notebook (or each in its own iframe, as VS Code draws outputs) never meet.
Hover, linked scrolling, ribbon clicks, click to select and the semantic slider work in the cell;
:meth:`ChunkView.save` writes the same view as a report file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chunkviz.core.files import write_text_atomic

if TYPE_CHECKING:
    from chunkviz.core.types import Chunk
    from chunkviz.document.model import Document
    from chunkviz.views.build import ComparisonView

#: Height of the document boxes in a cell (pixels).
CELL_HEIGHT_PX = 520


class ChunkView:
    """A comparison shown inline by a notebook (``_repr_html_``); :meth:`save` writes it as a report."""

    def __init__(self, view: ComparisonView, height_px: int = CELL_HEIGHT_PX) -> None:
        self.view = view
        self.height_px = height_px

    @classmethod
    def from_chunks(
        cls,
        text_or_document: str | Document,
        chunks: Sequence[Chunk] | Mapping[str, Sequence[Chunk]],
        *,
        tokenizer: str | None = None,
        height_px: int = CELL_HEIGHT_PX,
        language: str | None = None,
    ) -> ChunkView:
        """A view of chunks you already have: one list (one column), or ``{label: chunks}`` (a column
        each). Every chunk must be a span of the document (``chunk.text == text[chunk.start:chunk.end]``).
        ``language`` (e.g. ``"de"``) is the document's, for its sentences (default: detected)."""
        from chunkviz.document.model import as_document  # noqa: PLC0415
        from chunkviz.text.tokenizers import DEFAULT_TOKENIZER  # noqa: PLC0415 - views load on first use
        from chunkviz.views.build import view_from_chunks  # noqa: PLC0415

        chunkings = dict(chunks) if isinstance(chunks, Mapping) else {"your chunks": list(chunks)}
        document = as_document(text_or_document, language=language)
        return cls(view_from_chunks(document, chunkings, tokenizer=tokenizer or DEFAULT_TOKENIZER), height_px)

    @property
    def chunks(self) -> dict[str, tuple[Chunk, ...]]:
        """Each column's chunks, by its label."""
        return {c.label: c.run.chunks for c in self.view.columns}

    def _repr_html_(self) -> str:
        from chunkviz.views.page import view_fragment  # noqa: PLC0415

        return view_fragment(self.view, height_px=self.height_px)

    def html(self) -> str:
        """The view as a self-contained report page."""
        from chunkviz.views.page import report_html  # noqa: PLC0415

        return report_html(self.view)

    def save(self, path: str | Path) -> Path:
        """Write the view as a report file (opens from ``file://``, asks no host for anything).

        The page is rendered first and written beside ``path``, then renamed over it: a failure
        leaves an existing file as it was (:func:`chunkviz.core.files.write_text_atomic`)."""
        return write_text_atomic(path, self.html())

    def __repr__(self) -> str:
        columns = ", ".join(f"{c.label} ({len(c.run.chunks)} chunks)" for c in self.view.columns)
        return f"<ChunkView of {self.view.doc_name!r}: {columns}>"


def show(
    text_or_document: str | Document,
    *strategies: str | tuple[str, Mapping[str, Any]],
    tokenizer: str | None = None,
    height_px: int = CELL_HEIGHT_PX,
    language: str | None = None,
    embedding_model: str | None = None,
    hygiene: Any = None,
    **params: Any,
) -> ChunkView:
    """The Compare view of ``strategies`` on a text or Document, for a notebook cell.

    Each strategy is a name or ``(name, {param: value})``; ``params`` go to every strategy that has
    them (a name no strategy has is an error; ``model=`` is the embedding model of ``semantic`` and
    ``cluster``). Up to four columns, as in the app. ``language`` (e.g. ``"de"``) is the document's,
    for its sentences (default: detected). ``embedding_model`` is the model whose input limit the
    "over the model's limit" flag checks (a :mod:`chunkviz.text.models` name or ``openai:MODEL``;
    default all-MiniLM-L6-v2). ``hygiene`` is a :class:`chunkviz.diagnostics.hygiene.HygieneRules`
    (the hygiene flags' thresholds; default its defaults)."""
    from chunkviz.core.errors import InvalidParamError  # noqa: PLC0415
    from chunkviz.diagnostics.compare import ColumnConfig  # noqa: PLC0415
    from chunkviz.document.model import as_document  # noqa: PLC0415
    from chunkviz.strategies.base import get_strategy  # noqa: PLC0415
    from chunkviz.text.models import DEFAULT_EMBEDDING_MODEL  # noqa: PLC0415
    from chunkviz.text.tokenizers import DEFAULT_TOKENIZER  # noqa: PLC0415
    from chunkviz.views.build import build_view  # noqa: PLC0415

    if not strategies:
        raise ValueError('name at least one strategy, e.g. chunkviz.show(text, "recursive", "semantic")')
    columns, used = [], set()
    for item in strategies:
        name, own = (item, {}) if isinstance(item, str) else (item[0], dict(item[1]))
        known = {p.name for p in get_strategy(name).params_info()}
        mine = {k: v for k, v in params.items() if k in known}
        used |= set(mine)
        columns.append(ColumnConfig(name, {**mine, **own}))
    unknown = sorted(set(params) - used)
    if unknown:
        names = ", ".join(c.strategy for c in columns)
        raise InvalidParamError(columns[0].strategy, unknown[0], f"is a parameter of none of the strategies ({names})")
    view = build_view(
        as_document(text_or_document, language=language),
        columns,
        tokenizer=tokenizer or DEFAULT_TOKENIZER,
        embedding_model=embedding_model or DEFAULT_EMBEDDING_MODEL,
        hygiene=hygiene,
    )
    return ChunkView(view, height_px)
