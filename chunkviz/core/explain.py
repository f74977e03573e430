"""What an explaining strategy shows besides its chunks: a caption, figures and a JSON form.

A strategy registered with ``explain=`` returns an :class:`Explanation`; interfaces draw it
without knowing the strategy: ``summary()`` is one caption line, ``figures(chunks)`` are the
plotly figures (plotly is the optional ``app`` extra), ``to_dict()`` is JSON-ready data.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from chunkviz.core.errors import ChunkvizError, missing_extra
from chunkviz.core.types import Chunk

try:  # plotly belongs to the app extra: explanations work without it, only figures need it
    import plotly.graph_objects as go
except ImportError:  # pragma: no cover - depends on the installed extras
    go = None

APP_EXTRA_MESSAGE = missing_extra("drawing figures", "app", "plotly")


class FiguresUnavailable(ChunkvizError, ImportError):
    """plotly (the ``app`` extra) is not installed."""

    def __init__(self) -> None:
        super().__init__(APP_EXTRA_MESSAGE)


def require_plotly() -> None:
    if go is None:
        raise FiguresUnavailable()


@dataclass(frozen=True)
class ExplanationFigure:
    """One figure of an explanation: ``name`` is stable (a widget key suffix), ``caption`` is shown
    above it (may be empty), ``selectable`` says whether clicking a point selects a chunk
    (see :meth:`Explanation.chunk_at`)."""

    name: str
    figure: Any  # plotly.graph_objects.Figure
    caption: str = ""
    selectable: bool = False


class Explanation(ABC):
    """The analysis behind one chunking, for any interface."""

    @abstractmethod
    def summary(self) -> str:
        """One caption line, e.g. ``similarity threshold 0.023 (percentile 95) · 12 breakpoints``."""

    @abstractmethod
    def figures(self, chunks: Sequence[Chunk]) -> list[ExplanationFigure]:
        """Plotly figures of the analysis with ``chunks`` marked (requires the ``app`` extra)."""

    @abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data (no NaN: a missing number is None)."""

    def chunk_at(self, figure: str, point: Mapping[str, Any], chunks: Sequence[Chunk]) -> int | None:
        """The index of the chunk a clicked ``point`` (plotly selection: ``x``, ``y`` ...) of the
        figure named ``figure`` stands for; None when the point selects nothing."""
        return None


def finite(value: Any) -> float | None:
    """A float for JSON, or None for NaN and infinities."""
    number = float(value)
    return number if number == number and number not in (float("inf"), float("-inf")) else None


__all__ = [
    "APP_EXTRA_MESSAGE",
    "Explanation",
    "ExplanationFigure",
    "FiguresUnavailable",
    "finite",
    "go",
    "require_plotly",
]
