"""Embeddings of texts (chunks, questions, summary sentences), cached per (model, text).

A sweep embeds the same chunks again and again (a size 256 and a size 512 chunking share many
paragraphs; a re-run shares everything): each text is embedded once per model and kept in one
SQLite file per model under ``embeddings/`` of chunkviz's disk cache
(:func:`chunkviz.core.cache.cache_folder`; an empty ``CHUNKVIZ_CACHE_DIR`` keeps vectors in memory
only, for this process). In memory, the most recently used vectors are kept up to
:data:`MEMORY_LIMIT_BYTES` (an app server embeds for every session).
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path
from typing import Sequence

import numpy as np

from chunkviz.core.cache import BoundedLRU, cache_folder
from chunkviz.core.types import Progress
from chunkviz.semantic.embeddings import Encoder, ModelUnavailable, UnknownModelError
from chunkviz.semantic.providers import cache_name, role_prefix
from chunkviz.semantic.providers.base import Role

_VERSION = "1"
#: Bytes of vectors kept in memory (64 MiB: ~43,000 MiniLM vectors); older ones are read from disk again.
MEMORY_LIMIT_BYTES = 64 * 1024 * 1024
#: Vectors in memory by (model, text key), least recently used forgotten first.
VECTORS: BoundedLRU[tuple[str, str], np.ndarray] = BoundedLRU(max_bytes=MEMORY_LIMIT_BYTES, size=lambda v: v.nbytes)


def text_key(model: str, text: str, prefix: str = "") -> str:
    """The key of ``text`` embedded by ``model`` with its convention's ``prefix`` for the role
    ("" for a model without one: every role shares a text's vector, as before roles)."""
    digest = hashlib.sha256(f"{_VERSION}\0{model}\0{prefix + chr(0) if prefix else ''}".encode())
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def store_path(model: str) -> Path | None:
    """The SQLite file of ``model``'s vectors (None: the disk cache is off)."""
    folder = cache_folder("embeddings")
    if folder is None:
        return None
    return folder / f"{hashlib.sha256(model.encode()).hexdigest()[:16]}.sqlite"


def embed_texts(
    texts: Sequence[str],
    model: str,
    encode: Encoder,
    progress: Progress | None = None,
    role: Role = "passage",
) -> np.ndarray:
    """One vector per text, in order; only texts never embedded with ``model`` in ``role`` are
    encoded (``progress(done, total)`` counts those; ``encode`` embeds them in that role). The
    vectors of one model are kept under its :func:`~chunkviz.semantic.providers.cache_name` (an
    endpoint's model: with the endpoint), nothing of a failed encode is kept."""
    model, prefix = _identity(model, role)
    keys = [text_key(model, t, prefix) for t in texts]
    found = _lookup(model, set(keys))
    missing: dict[str, str] = {}
    for key, text in zip(keys, texts):
        if key not in found and key not in missing:
            missing[key] = text
    if missing:
        vectors = np.asarray(encode(list(missing.values()), progress), dtype=np.float32)
        _check_dimension(model, vectors, found)
        fresh = dict(zip(missing, vectors))
        _store(model, fresh)
        found.update(fresh)
    elif progress is not None:
        progress(0, 0)
    if not keys:
        return np.zeros((0, 0), dtype=np.float32)
    return np.stack([found[k] for k in keys])


def _identity(model: str, role: Role) -> tuple[str, str]:
    """The name ``model``'s vectors are kept under and its prefix for ``role``; a name no
    provider knows (a caller's own encoder) is its own key, with no prefix."""
    try:
        return cache_name(model), role_prefix(model, role)
    except UnknownModelError:
        return model, ""


def _check_dimension(model: str, vectors: np.ndarray, cached: dict[str, np.ndarray]) -> None:
    """Refuse vectors whose dimension is not the cached vectors' of the same model (a server
    that now serves another model under its name): nothing of them is kept."""
    if not cached or vectors.ndim != 2:
        return
    known = len(next(iter(cached.values())))
    if vectors.shape[1] != known:
        raise ModelUnavailable(
            f"the embedding model {model} now answers vectors of dimension {vectors.shape[1]}, but its cached "
            f"vectors have dimension {known}: the model behind the name changed; clear chunkviz's cache "
            "(CHUNKVIZ_CACHE_DIR) or use the model that made them"
        )


def _lookup(model: str, keys: set[str]) -> dict[str, np.ndarray]:
    found = {k: v for (_, k), v in VECTORS.get_many((model, k) for k in keys).items()}
    path = store_path(model)
    wanted = [k for k in keys if k not in found]
    if path is None or not wanted or not path.exists():
        return found
    from_disk: dict[str, np.ndarray] = {}
    try:
        with sqlite3.connect(path) as db:
            for start in range(0, len(wanted), 500):
                block = wanted[start : start + 500]
                rows = db.execute(f"SELECT key, data FROM vectors WHERE key IN ({','.join('?' * len(block))})", block)
                for key, data in rows:
                    from_disk[key] = np.frombuffer(data, dtype=np.float32)
    except sqlite3.Error:
        pass  # a damaged or locked cache: embed again
    VECTORS.put_many({(model, k): v for k, v in from_disk.items()})
    found.update(from_disk)
    return found


def memory_bytes() -> int:
    """Bytes of vectors held in memory now (at most :data:`MEMORY_LIMIT_BYTES`)."""
    return VECTORS.bytes


def _store(model: str, vectors: dict[str, np.ndarray]) -> None:
    VECTORS.put_many({(model, k): v for k, v in vectors.items()})
    path = store_path(model)
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with sqlite3.connect(path, timeout=30) as db:
            db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, data BLOB NOT NULL)")
            db.executemany(
                "INSERT OR REPLACE INTO vectors (key, data) VALUES (?, ?)",
                [(k, np.asarray(v, dtype=np.float32).tobytes()) for k, v in vectors.items()],
            )
    except (OSError, sqlite3.Error):
        pass  # caching is an optimisation; never fail the evaluation for it


def clear_memory() -> None:
    VECTORS.clear()
