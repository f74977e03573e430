"""Answers of the model, cached in memory and on disk per (prompt, version, model, messages).

Re-chunking or re-evaluating the same document with the same prompt and model never repeats a
call: each complete, accepted answer is kept in one SQLite file under ``llm/`` of chunkviz's
disk cache (:func:`chunkviz.core.cache.cache_folder`; an empty ``CHUNKVIZ_CACHE_DIR`` keeps answers
in memory only, for this process). Only what :class:`~chunkviz.llm.client.LLMClient` hands over is stored: a failed,
timed-out, cut-off or rejected answer never reaches the cache. The endpoint and its key are not
part of the key and never stored.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from pathlib import Path
from typing import Any, Sequence

from chunkviz.core.cache import BoundedLRU, cache_folder

_VERSION = "1"
#: Answers kept in memory, least recently used forgotten first (the rest are read from disk again).
MEMORY_MAX_ANSWERS = 20_000
#: Answers in memory by key, shared by every client of the process.
ANSWERS: BoundedLRU[str, str] = BoundedLRU(max_entries=MEMORY_MAX_ANSWERS)


def default_cache_dir() -> Path | None:
    """``llm/`` under chunkviz's disk cache (:func:`chunkviz.core.cache.cache_folder`); None when
    ``CHUNKVIZ_CACHE_DIR`` is set to an empty value (memory only)."""
    return cache_folder("llm")


def answer_key(
    prompt_name: str, prompt_version: int, model: str, messages: Sequence[dict[str, str]], json_mode: bool
) -> str:
    """The cache key of one call: everything that decides the answer, nothing about the endpoint."""
    payload = json.dumps([_VERSION, prompt_name, prompt_version, model, list(messages), json_mode], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()


class AnswerCache:
    """Memory (shared by every client of the process) in front of one SQLite file."""

    def __init__(self, directory: Path | None) -> None:
        self.path = directory / "answers.sqlite" if directory is not None else None

    def get(self, key: str) -> str | None:
        held = ANSWERS.get(key)
        if held is not None:
            return held
        found = self._read(key)
        if found is not None:
            ANSWERS.put(key, found)
        return found

    def contains(self, key: str) -> bool:
        return self.get(key) is not None

    def put(self, key: str, answer: str, prompt_name: str, prompt_version: int, model: str) -> None:
        ANSWERS.put(key, answer)
        if self.path is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with sqlite3.connect(self.path, timeout=30) as db:
                _create(db)
                db.execute(
                    "INSERT OR REPLACE INTO answers (key, prompt, version, model, answer, created) VALUES (?, ?, ?, ?, ?, ?)",
                    (key, prompt_name, prompt_version, model, answer, time.time()),
                )
        except (OSError, sqlite3.Error):
            pass  # caching is an optimisation: the answer is still returned

    def _read(self, key: str) -> str | None:
        if self.path is None or not self.path.exists():
            return None
        try:
            with sqlite3.connect(self.path, timeout=30) as db:
                _create(db)
                row = db.execute("SELECT answer FROM answers WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error:
            return None  # a damaged or locked cache: ask again
        return row[0] if row else None

    def count(self) -> int:
        """Answers stored on disk (0 without a disk cache)."""
        if self.path is None or not self.path.exists():
            return 0
        try:
            with sqlite3.connect(self.path, timeout=30) as db:
                _create(db)
                return int(db.execute("SELECT COUNT(*) FROM answers").fetchone()[0])
        except sqlite3.Error:
            return 0


def _create(db: Any) -> None:
    db.execute(
        "CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, prompt TEXT NOT NULL, version INTEGER NOT NULL, "
        "model TEXT NOT NULL, answer TEXT NOT NULL, created REAL NOT NULL)"
    )


def clear_memory() -> None:
    """Forget the answers held in memory (the disk cache stays)."""
    ANSWERS.clear()


__all__ = ["AnswerCache", "answer_key", "clear_memory", "default_cache_dir"]
