"""The one cache: a bounded, thread-safe LRU in memory and one folder rule on disk.

Every cache of chunkviz (sentence similarities, embedding vectors, model answers, peer runs,
semantic explanations) keeps its recent values in a :class:`BoundedLRU` and, when it writes
to disk, writes under :func:`cache_folder`:

- **Memory.** One eviction rule: the least recently used entry goes first, a hit makes an
  entry the most recent, and the cache is bounded by a count of entries, by bytes, or both
  (checked after each store; an entry larger than the whole byte bound is not kept). Every
  operation holds one lock, because Streamlit serves its sessions from threads.
- **Disk.** ``CHUNKVIZ_CACHE_DIR`` when set, else ``$XDG_CACHE_HOME/chunkviz`` (``~/.cache/chunkviz``);
  an empty ``CHUNKVIZ_CACHE_DIR`` turns every disk cache off. Each cache has its own
  sub-folder (``semantic/``, ``embeddings/``, ``llm/``) and its own file format (``.npz``
  files, SQLite), written so that a damaged or missing file is a miss, never an error.

Why our own ~80 lines rather than a library: ``cachetools`` would still need a lock around
every call (its caches are not thread-safe) and a ``getsizeof`` for the byte bound, and it
would be a new dependency of the core install (which runs without any extra); the disk side
already uses only the standard library (SQLite, ``os.replace``), which ``diskcache`` would
replace with a second on-disk format for no feature we need.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Mapping
from pathlib import Path
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

#: The environment variable that moves (or, set empty, turns off) every disk cache.
CACHE_DIR_ENV = "CHUNKVIZ_CACHE_DIR"


def cache_root() -> Path | None:
    """chunkviz's disk cache: ``CHUNKVIZ_CACHE_DIR``, else ``$XDG_CACHE_HOME/chunkviz``
    (``~/.cache/chunkviz``); None when ``CHUNKVIZ_CACHE_DIR`` is set to an empty value."""
    value = os.environ.get(CACHE_DIR_ENV)
    if value == "":
        return None
    if value:
        return Path(value)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "chunkviz"


def cache_folder(name: str) -> Path | None:
    """The folder of one disk cache (``name`` under :func:`cache_root`); None when disk caching is off."""
    root = cache_root()
    return None if root is None else root / name


#: :func:`text_key` reads this many samples of this many characters from a long text.
_KEY_SAMPLES, _KEY_SAMPLE_CHARS = 16, 16


def text_key(text: str) -> tuple[int, str]:
    """A cheap cache key for a text: its length and, for a long text, evenly spaced samples of
    it (Python's ``hash`` of a new 3 MB string reads all of it, ~3 ms). Equal texts get equal
    keys, different ones almost always different keys; a cache keyed by it compares the text
    itself on a hit (an identity check for the same string object)."""
    n = len(text)
    if n <= 2 * _KEY_SAMPLES * _KEY_SAMPLE_CHARS:
        return n, text
    step = n // _KEY_SAMPLES
    samples = [text[k * step : k * step + _KEY_SAMPLE_CHARS] for k in range(_KEY_SAMPLES)]
    return n, "".join(samples) + text[-_KEY_SAMPLE_CHARS:]


class BoundedLRU(Generic[K, V]):
    """A thread-safe mapping that forgets its least recently used entries beyond its bounds.

    ``max_entries`` bounds the count, ``max_bytes`` the sum of ``size(value)`` (both may be
    given; None is no bound). A read that finds a key makes it the most recent. Values are
    never None (:meth:`get` answers None for a key it does not hold).
    """

    def __init__(
        self,
        max_entries: int | None = None,
        max_bytes: int | None = None,
        size: Callable[[V], int] | None = None,
    ) -> None:
        if max_bytes is not None and size is None:
            raise ValueError("a byte bound needs size(value) -> bytes")
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._size = size
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        """The value of ``key`` (now the most recent), or None."""
        with self._lock:
            if key not in self._entries:
                return None
            self._entries.move_to_end(key)
            return self._entries[key]

    def get_or_make(self, key: K, make: Callable[[], V]) -> V:
        """The value of ``key``, made by ``make()`` and kept when it is missing. A key that cannot be
        hashed (e.g. a Document holding a reader's unhashable extra blocks) is made every time, not kept."""
        try:
            hash(key)
        except TypeError:
            return make()
        found = self.get(key)
        if found is None:
            found = make()
            self.put(key, found)
        return found

    def get_many(self, keys: Iterable[K]) -> dict[K, V]:
        """The values of those ``keys`` that are held (each now among the most recent)."""
        with self._lock:
            found = {}
            for key in keys:
                if key in self._entries:
                    self._entries.move_to_end(key)
                    found[key] = self._entries[key]
            return found

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` as the most recent entry, then forget the oldest beyond the bounds."""
        self.put_many({key: value})

    def put_many(self, items: Mapping[K, V]) -> None:
        with self._lock:
            for key, value in items.items():
                self._forget(key)
                self._entries[key] = value
                self._bytes += self._bytes_of(value)
            while self._entries and self._over_bounds():
                self._forget(next(iter(self._entries)))

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0

    def keys(self) -> list[K]:
        """The keys held, least recently used first (a snapshot; reading it refreshes nothing)."""
        with self._lock:
            return list(self._entries)

    @property
    def bytes(self) -> int:
        """The bytes held now (0 without a byte bound)."""
        with self._lock:
            return self._bytes

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def __contains__(self, key: object) -> bool:
        """Whether ``key`` is held (refreshes nothing)."""
        with self._lock:
            return key in self._entries

    def _forget(self, key: K) -> None:
        old = self._entries.pop(key, None)
        if old is not None:
            self._bytes -= self._bytes_of(old)

    def _bytes_of(self, value: V) -> int:
        return self._size(value) if self._size is not None else 0

    def _over_bounds(self) -> bool:
        too_many = self.max_entries is not None and len(self._entries) > self.max_entries
        too_big = self.max_bytes is not None and self._bytes > self.max_bytes
        return too_many or too_big


__all__ = ["CACHE_DIR_ENV", "BoundedLRU", "cache_folder", "cache_root"]
