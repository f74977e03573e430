"""How many chunks a run may produce, checked from the parameters before chunking.

Every chunk costs about 1-2.5 kB of memory on top of the text (the Chunk, its text, its
metadata, its token count; more in diagnostics and exports), so a run of one chunk per
character (``fixed_chars`` with ``chunk_size=1``) needs about a thousand times the document's
size. A run is therefore limited to :data:`MAX_CHUNKS` chunks, which bounds that part of the
memory (about 250 MB at the limit) whatever the parameters.

The check comes first, from the parameters: a strategy whose chunks hold at most ``size``
units (its smallest size cap: ``chunk_size``, ``max_tokens``, ``child_size`` ...) must cut a
document of ``units`` units into at least ``ceil(units / size)`` chunks, since its chunks cover
the document. With an overlap of ``overlap`` units each chunk adds at most ``size - overlap``
new units, so the estimate is ``ceil((units - overlap) / (size - overlap))``: exact for the
fixed windows, and for strategies that overlap less than asked (``recursive`` keeps overlaps
word-aligned) an estimate. When the estimate is over the limit the run is refused before any
chunking, and the message names the parameter to raise and the value that fits. Strategies whose chunk count the
parameters do not bound (e.g. ``semantic``, or many short paragraphs) are checked on the
result, before diagnostics or exports multiply the cost.

This module sits at the bottom of the package (the strategies call :func:`refuse_as_counted`
as they chunk), so it names a strategy and a tokenizer by what it reads of them
(:class:`SizedStrategy`, :class:`Counter`), never by importing them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, is_dataclass
from typing import Any, Protocol, cast

from chunkviz.core.errors import ChunkvizError

#: Most chunks one run may produce.
MAX_CHUNKS = 100_000

_SIZE_UNITS = ("tokens", "chars")


class SizeParam(Protocol):
    """What the bound reads of a strategy's parameter (a ``chunkviz.strategies.base.ParamInfo``)."""

    @property
    def name(self) -> str: ...
    @property
    def unit(self) -> str | None: ...
    @property
    def size_target(self) -> bool: ...
    @property
    def overlap_unit(self) -> str | None: ...


class SizedStrategy(Protocol):
    """What the bound reads of a strategy (a ``chunkviz.strategies.base.Strategy``)."""

    @property
    def name(self) -> str: ...
    def params_info(self) -> Sequence[SizeParam]: ...
    def overlap_param(self) -> SizeParam | None: ...


class Counter(Protocol):
    """What the bound reads of a tokenizer (a ``chunkviz.text.tokenizers.Tokenizer``)."""

    def count(self, text: str) -> int: ...


class TooManyChunksError(ChunkvizError, ValueError):
    """A run that would produce more than :data:`MAX_CHUNKS` chunks; the message says which
    parameter to raise."""


@dataclass(frozen=True)
class ChunkBound:
    """How many chunks a size-capped strategy cuts a document into, from its parameters: at
    least ``ceil(units / size)``, and ``ceil((units - overlap) / (size - overlap))`` when the
    overlap is kept as asked (see the module docstring)."""

    param: str  #: the size cap, e.g. ``chunk_size``
    size: int  #: its value
    overlap: int  #: the overlap in the same unit (0 without one)
    unit: str  #: ``tokens`` or ``chars``
    units: int  #: the document's length in that unit
    chunks: int

    @property
    def fewest(self) -> int:
        """The count no chunking can go below, overlap or not."""
        return math.ceil(self.units / self.size) if self.units else 0

    def size_for(self, max_chunks: int) -> int:
        """The smallest value of :attr:`param` that keeps the estimate within ``max_chunks``."""
        return self.overlap + math.ceil(max(self.units - self.overlap, 1) / max_chunks)


def _param_values(params: Any) -> dict[str, Any]:
    """A params dataclass (or a mapping) as a plain dict of its values."""
    if is_dataclass(params) and not isinstance(params, type):
        return asdict(params)
    return dict(params)


def size_cap(strategy: SizedStrategy, values: dict[str, Any]) -> tuple[SizeParam, int] | None:
    """The strategy's smallest size cap in tokens or characters (the size target, a ``max_*``
    or ``*_size`` parameter) and its value; None when no parameter caps the chunk size."""
    caps = [
        (info, values[info.name])
        for info in strategy.params_info()
        if info.unit in _SIZE_UNITS
        and (info.size_target or info.name.startswith("max_") or info.name.endswith("_size"))
        and isinstance(values.get(info.name), int)
        and values[info.name] > 0
    ]
    return min(caps, key=lambda cap: cap[1]) if caps else None


def estimated_chunk_count(
    strategy: SizedStrategy, params: Any, text: str, tokenizer: Counter, max_chunks: int = MAX_CHUNKS
) -> ChunkBound | None:
    """How many chunks ``strategy`` with ``params`` cuts ``text`` into, from the parameters
    (see :class:`ChunkBound`); None when the parameters cap no size. Tokens are counted only when the
    document's UTF-8 length (at least its token count) could be over ``max_chunks`` windows."""
    values = _param_values(params)
    found = size_cap(strategy, values)
    if found is None:
        return None
    info, size = found
    overlap_info = strategy.overlap_param()
    overlap = 0
    if overlap_info is not None and overlap_info.overlap_unit == info.unit:
        overlap = min(int(values.get(overlap_info.name) or 0), size - 1)
    step = size - overlap
    if info.unit == "chars":
        units = len(text)
    elif math.ceil(len(text.encode("utf-8", "surrogatepass")) / step) <= max_chunks:
        return None  # a token spans at least one byte: within the limit without counting
    else:
        units = tokenizer.count(text)
    estimate = max(math.ceil(max(units - overlap, 0) / step), 1) if units else 0
    unit = cast(str, info.unit)  # size_cap keeps only caps in tokens or chars
    return ChunkBound(info.name, size, overlap, unit, units, estimate)


def check_chunk_count_bound(
    strategy: SizedStrategy, params: Any, text: str, tokenizer: Counter, max_chunks: int = MAX_CHUNKS
) -> None:
    """Refuse, before chunking, a run that must produce more than ``max_chunks`` chunks."""
    bound = estimated_chunk_count(strategy, params, text, tokenizer, max_chunks)
    if bound is None or bound.chunks <= max_chunks:
        return
    overlap = f" with overlap {bound.overlap}" if bound.overlap else ""
    about = "about" if bound.overlap else "at least"
    lower = " (or lower the overlap)" if bound.overlap else ""
    raise TooManyChunksError(
        f"{strategy.name}: {bound.param}={bound.size}{overlap} would cut this document "
        f"({bound.units:,} {bound.unit}) into {about} {bound.chunks:,} chunks; a run may produce "
        f"at most {max_chunks:,}. Raise {bound.param} to at least {bound.size_for(max_chunks):,}{lower}, "
        "or chunk a smaller document"
    )


def check_chunk_count(
    strategy: SizedStrategy, params: Any, chunks: Sequence[Any], max_chunks: int = MAX_CHUNKS
) -> None:
    """Refuse a result of more than ``max_chunks`` chunks (strategies the parameters do not bound)."""
    if len(chunks) <= max_chunks:
        return
    values = _param_values(params)
    found = size_cap(strategy, values)
    hint = f"raise {found[0].name} (now {found[1]:,})" if found else "change the parameters"
    raise TooManyChunksError(
        f"{strategy.name} cut this document into {len(chunks):,} chunks; a run may produce at most "
        f"{max_chunks:,}: {hint}, or chunk a smaller document"
    )


def refuse_as_counted(strategy: str, at_least: int, what: str, hint: str) -> None:
    """Refuse a run while it is chunked, as soon as it is known to produce more than
    :data:`MAX_CHUNKS` chunks: ``at_least`` chunks from ``what`` (e.g. "its 120,000 paragraphs,
    each a parent with at least one child"). For strategies whose count the size parameters do
    not bound (``small_to_big``, ``tables``): they call it before the costly steps and as they go,
    so the refusal comes before the work, not after it."""
    if at_least > MAX_CHUNKS:
        raise TooManyChunksError(
            f"{strategy}: {what} make at least {at_least:,} chunks; a run may produce at most {MAX_CHUNKS:,}. {hint}"
        )


__all__ = [
    "MAX_CHUNKS",
    "MAX_CONFIG_BYTES",
    "MAX_CONFIG_COLUMNS",
    "MAX_CONFIG_TEXT_CHARS",
    "MAX_QUERY_VALUE_CHARS",
    "MAX_QUESTION_FILE_BYTES",
    "MAX_SIDE_FILE_DEPTH",
    "MAX_SIDE_FILE_DIGITS",
    "ChunkBound",
    "TooManyChunksError",
    "check_chunk_count",
    "check_chunk_count_bound",
    "estimated_chunk_count",
    "refuse_as_counted",
    "size_cap",
]


# --------------------------------------------------------------------------- side files (issue 23)
# The files a run reads besides its documents: a configuration (--config, chunkviz.json) and a
# question file (--questions, JSONL or Chroma's CSV). Each is read through
# chunkviz.core.sidefile.read_side_file, which refuses it past these bounds with "FILE, line N: ..."
# before the work grows with what the file holds.

#: The largest configuration file: a saved one is about 1 kB per column.
MAX_CONFIG_BYTES = 1_000_000
#: The most columns a configuration may have (the app shows a handful side by side).
MAX_CONFIG_COLUMNS = 64
#: The longest enrichment text (title, date) of a configuration: it is added to every chunk.
MAX_CONFIG_TEXT_CHARS = 1_000
#: The largest question file: about 100,000 questions with excerpts.
MAX_QUESTION_FILE_BYTES = 64_000_000
#: The deepest nesting of JSON in a side file (a configuration needs 5 levels, a question line 3).
MAX_SIDE_FILE_DEPTH = 32
#: The most digits of a whole number in a side file (a character offset of the largest document has 9).
MAX_SIDE_FILE_DIGITS = 30


# --------------------------------------------------------------------------- shared links (issue 36)
#: The longest value of one query parameter of a shared link the app reads
#: (:func:`chunkviz.diagnostics.compare.config_from_query`): a column's parameters as the app writes them take
#: under 100 characters, a few hundred with custom separators. Its JSON has the side files' bounds.
MAX_QUERY_VALUE_CHARS = 8_000
