"""The disk caches of a test session: every process of one run (the xdist workers, the Streamlit
servers they start, the CLI they run) computes a document's sentence similarities and a text's
embedding once, and reads them from one shared folder afterwards; model answers and the rest
stay private to each cache root.

A test that checks caching itself points ``CHUNKVIZ_CACHE_DIR`` at a folder of its own
(``semantic_cache_dir``, ``tmp_path``); the shared folder is new for every run (under pytest's
base temporary folder), so no run reads what an earlier one computed.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import pytest

from chunkviz.core.cache import CACHE_DIR_ENV

#: The sub-folders of chunkviz's disk cache that hold vectors (:func:`chunkviz.core.cache.cache_folder`):
#: deterministic for a text and a model, written atomically (a rename, SQLite), so safe to share.
SHARED_CACHES = ("semantic", "embeddings")


def shared_vectors_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of this run's shared vectors: beside the workers' own temporary folders under
    xdist (their common parent is one run's), in the base temporary folder without it."""
    base = tmp_path_factory.getbasetemp()
    run_folder = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    return run_folder / "shared-vectors"


def cache_root_sharing_vectors(tmp_path_factory: pytest.TempPathFactory, name: str = "chunkviz-cache") -> Path:
    """A new cache root of its own whose :data:`SHARED_CACHES` folders are links to the run's
    shared ones (for ``CHUNKVIZ_CACHE_DIR`` of this process or of a server it starts)."""
    root = tmp_path_factory.mktemp(name)
    shared = shared_vectors_folder(tmp_path_factory)
    for cache in SHARED_CACHES:
        (shared / cache).mkdir(parents=True, exist_ok=True)
        (root / cache).symlink_to(shared / cache, target_is_directory=True)
    return root


@pytest.fixture(scope="session")
def session_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path | None]:
    """``CHUNKVIZ_CACHE_DIR`` for the session, unless it is set already (then None): a root of
    this worker's (model answers) sharing the run's vectors (:func:`cache_root_sharing_vectors`)."""
    if CACHE_DIR_ENV in os.environ:
        yield None
        return
    root = cache_root_sharing_vectors(tmp_path_factory)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(CACHE_DIR_ENV, str(root))
        yield root
