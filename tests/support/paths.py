"""Where the shared data lives (``../shared``: real documents, seeds) and how to read it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def shared_dir() -> Path:
    """The shared data folder: ``$CHUNKVIZ_SHARED`` if set, else ``<repo>/../shared``."""
    env = os.environ.get("CHUNKVIZ_SHARED")
    if env:
        return Path(env).expanduser()
    return Path(__file__).resolve().parents[3] / "shared"


SHARED = shared_dir()
REALDOCS = SHARED / "realdocs"
SEEDS = SHARED / "seeds"

#: provenance/notes files in the realdocs folder that are not documents to chunk
REALDOCS_NOT_DOCUMENTS = {"SOURCES.md", "README.md"}


def realdoc_paths() -> list[Path]:
    """The real documents (empty when the shared folder is absent)."""
    if not REALDOCS.is_dir():
        return []
    return sorted(
        p
        for p in REALDOCS.iterdir()
        if p.is_file() and not p.name.startswith(".") and p.name not in REALDOCS_NOT_DOCUMENTS
    )


def read_realdoc(path: Path) -> str:
    """A real document's exact text (``newline=""`` keeps CRLF line ends as they are)."""
    with open(path, encoding="utf-8", newline="") as handle:
        return handle.read()


@pytest.fixture(scope="session")
def realdocs_dir() -> Path:
    if not REALDOCS.is_dir():
        pytest.skip(f"shared realdocs folder not found at {REALDOCS} (set CHUNKVIZ_SHARED to the shared folder)")
    return REALDOCS


def realdoc_text_paths() -> list[Path]:
    """The real Markdown, reStructuredText and plain-text documents (empty when absent)."""
    return [p for p in realdoc_paths() if p.suffix in (".md", ".rst", ".txt")]
