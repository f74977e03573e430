"""The one small interface every embedding provider implements, and what they share.

A :class:`Provider` says which ``model`` names are its own (:meth:`Provider.claims`), loads an
:class:`Embedder` for one of them, and answers without loading anything what the caches and
the size checks need to know: the name its vectors are cached under and the prefix its model's
convention puts before a query, a passage or a text compared with its like (:data:`Role`).

An :class:`Embedder` turns texts into unit vectors for one role and measures texts as its model
reads them (:class:`SizeTokenizer`: its tokenizer, the tokens it adds, its input limit).
"""

from __future__ import annotations

import contextlib
import importlib.util
from abc import ABC, abstractmethod
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Callable, Iterator, Literal, Sequence

import numpy as np

from chunkviz.core.errors import ChunkvizError, missing_extra
from chunkviz.core.types import Progress
from chunkviz.text.tokenizers import Tokenizer

#: What a text is to the model: a search ``query``, a ``passage`` searched (a chunk), or one of
#: several texts compared with each other (``symmetric``: semantic chunking's sentences, the
#: cluster strategy's pieces). Models without a convention embed all three alike.
Role = Literal["query", "passage", "symmetric"]
ROLES: tuple[Role, ...] = ("query", "passage", "symmetric")

SEMANTIC_EXTRA_MESSAGE = missing_extra("semantic chunking", "semantic")
_EXTRA_MODULES = ("torch", "sentence_transformers")


class ModelUnavailable(ChunkvizError, RuntimeError):
    """An embedding model that cannot be loaded or reached (offline, wrong name or path, an
    endpoint that fails): the message says what to do."""


class InvalidModelName(ModelUnavailable, TypeError):
    """A ``model`` value that is not a name or a path (None, a number, a list ...)."""


class UnknownModelError(ModelUnavailable, ValueError):
    """A ``model`` name no provider serves; the message lists the kinds of model and how to name them."""


class SemanticExtraMissing(ChunkvizError, ImportError):
    """torch or sentence-transformers (the ``semantic`` extra) is not installed."""

    def __init__(self) -> None:
        super().__init__(SEMANTIC_EXTRA_MESSAGE)


def require_semantic_extra() -> None:
    """Raise :class:`SemanticExtraMissing` unless the ``semantic`` extra is installed (no import)."""
    for module in _EXTRA_MODULES:
        if not module_installed(module):
            raise SemanticExtraMissing()


def module_installed(module: str) -> bool:
    """Whether ``module`` can be imported (found without importing it)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a module set to None in sys.modules (tests)
        return False


@dataclass(frozen=True)
class SizeTokenizer:
    """What measures a text as the model reads it: its tokenizer, the tokens it adds to every
    passage (special tokens and the passage prefix), its input limit (those included)."""

    tokenizer: Tokenizer
    special_tokens: int
    model_limit: int


class Embedder(ABC):
    """A loaded embedding model: unit vectors of texts in a role, and its sizes."""

    name: str

    @abstractmethod
    def encode(
        self,
        texts: Sequence[str],
        progress: Progress | None = None,
        batch: int = 512,
        batch_size: int = 64,
        *,
        role: Role = "passage",
    ) -> np.ndarray:
        """Unit vectors, one row per text; ``progress(done, total)`` after each block of
        ``batch`` texts; ``batch_size`` the model's own batch (where it has one)."""

    @abstractmethod
    def sizes(self) -> SizeTokenizer:
        """The model's tokenizer, the tokens it adds to a passage and its input limit."""


class Provider(ABC):
    """One kind of embedding model (one file under :mod:`chunkviz.semantic.providers`)."""

    #: How a user names it, e.g. ``openai:MODEL``; listed in the unknown-model error.
    kind: str
    #: What it is, one line (the error's list, ``chunkviz strategies``).
    description: str
    #: Providers claim names in this order (the sentence-transformers folder, which takes any
    #: name, comes last).
    order: int = 50
    #: Its place where the kinds are listed (the default model first).
    rank: int = 50

    @abstractmethod
    def claims(self, name: str) -> str | None:
        """The canonical name of ``name`` (stripped) when it names this provider's model, else None."""

    @abstractmethod
    def load(self, name: str) -> Embedder:
        """The embedder of a canonical name (raises :class:`ModelUnavailable` with what to do)."""

    def require(self, name: str) -> None:  # noqa: B027 - most providers need nothing more
        """Raise (naming the extra to install) when what loads the model is not installed; checked
        without importing it, before a strategy segments or embeds anything."""

    def sizes(self, name: str) -> SizeTokenizer | None:
        """The sizes of a canonical name where they need no model load, else None (then the
        loaded model's :meth:`Embedder.sizes` tell)."""
        return None

    def prefix(self, name: str, role: Role) -> str:
        """The text the model's convention puts before an input of ``role`` ("" without one)."""
        return ""

    def cache_name(self, name: str) -> str:
        """The name its vectors are cached under (an endpoint's model: with the endpoint's URL)."""
        return name


#: ``announce(line)``: told before an embedder sends texts out of the process (how many, about
#: how many tokens, the cost where it is known). The CLI prints it; elsewhere nothing is said.
Announcer = Callable[[str], None]
_ANNOUNCER: ContextVar[Announcer | None] = ContextVar("chunkviz_embedding_announcer", default=None)


@contextlib.contextmanager
def announce_with(announcer: Announcer) -> Iterator[None]:
    """Send the embedders' announcements to ``announcer`` inside the block (this context only)."""
    token = _ANNOUNCER.set(announcer)
    try:
        yield
    finally:
        _ANNOUNCER.reset(token)


def announce(line: str) -> None:
    """Tell the active announcer (if any) ``line``."""
    announcer = _ANNOUNCER.get()
    if announcer is not None:
        announcer(line)


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to length 1 (cosine is then a dot product); float32."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms > 0, norms, 1.0)


__all__ = [
    "ROLES",
    "SEMANTIC_EXTRA_MESSAGE",
    "Announcer",
    "Embedder",
    "InvalidModelName",
    "ModelUnavailable",
    "Provider",
    "Role",
    "SemanticExtraMissing",
    "SizeTokenizer",
    "UnknownModelError",
    "announce",
    "announce_with",
    "module_installed",
    "require_semantic_extra",
    "unit_rows",
]
