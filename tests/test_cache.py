"""chunkviz.core.cache: the one bounded LRU (eviction order, refresh on hit, bytes, threads) and the folder rule."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from chunkviz.core.cache import BoundedLRU, cache_folder, cache_root, text_key


def test_the_least_recently_used_entry_goes_first() -> None:
    lru: BoundedLRU[str, int] = BoundedLRU(max_entries=3)
    for i, key in enumerate("abcd"):
        lru.put(key, i)
    assert lru.keys() == ["b", "c", "d"]
    assert lru.get("a") is None
    assert len(lru) == 3


def test_a_hit_makes_an_entry_the_most_recent() -> None:
    lru: BoundedLRU[str, int] = BoundedLRU(max_entries=3)
    for i, key in enumerate("abc"):
        lru.put(key, i)
    assert lru.get("a") == 0  # now the newest: "b" is the oldest
    lru.put("d", 3)
    assert lru.keys() == ["c", "a", "d"]
    assert lru.get_many(["c", "zz"]) == {"c": 2}  # a hit of many refreshes each one found
    lru.put("e", 4)
    assert lru.keys() == ["d", "c", "e"]


def test_putting_a_key_again_replaces_it_and_makes_it_the_newest() -> None:
    lru: BoundedLRU[str, int] = BoundedLRU(max_entries=2)
    lru.put("a", 1)
    lru.put("b", 2)
    lru.put("a", 10)
    lru.put("c", 3)
    assert lru.keys() == ["a", "c"]
    assert lru.get("a") == 10


def test_membership_and_the_key_snapshot_refresh_nothing() -> None:
    lru: BoundedLRU[str, int] = BoundedLRU(max_entries=2)
    lru.put("a", 1)
    lru.put("b", 2)
    assert "a" in lru
    lru.keys()
    lru.put("c", 3)
    assert lru.keys() == ["b", "c"]


def test_the_byte_bound_forgets_the_oldest_until_the_rest_fits() -> None:
    vector = np.zeros(4, dtype=np.float32)  # 16 bytes
    lru: BoundedLRU[str, np.ndarray] = BoundedLRU(max_bytes=48, size=lambda v: v.nbytes)
    lru.put_many({"a": vector, "b": vector.copy(), "c": vector.copy()})
    assert lru.bytes == 48
    lru.get("a")
    lru.put("d", vector.copy())
    assert lru.keys() == ["c", "a", "d"] and lru.bytes == 48
    lru.put("big", np.zeros(8, dtype=np.float32))  # 32 bytes: two older ones go
    assert lru.keys() == ["d", "big"] and lru.bytes == 48
    lru.put("d", np.zeros(1, dtype=np.float32))  # replaced: its old bytes are given back
    assert lru.bytes == 36
    lru.clear()
    assert lru.bytes == 0 and len(lru) == 0


def test_an_entry_larger_than_the_byte_bound_is_not_kept() -> None:
    lru: BoundedLRU[str, bytes] = BoundedLRU(max_bytes=10, size=len)
    lru.put("small", b"12345")
    lru.put("huge", b"x" * 11)
    assert lru.keys() == [] and lru.bytes == 0


def test_count_and_byte_bounds_together() -> None:
    lru: BoundedLRU[str, bytes] = BoundedLRU(max_entries=2, max_bytes=100, size=len)
    lru.put_many({"a": b"1", "b": b"2", "c": b"3"})
    assert lru.keys() == ["b", "c"]
    lru.put("d", b"x" * 99)
    assert lru.keys() == ["c", "d"] and lru.bytes == 100


def test_a_byte_bound_needs_a_size() -> None:
    with pytest.raises(ValueError, match="size"):
        BoundedLRU(max_bytes=10)


def test_many_threads_keep_counts_and_bytes_consistent() -> None:
    lru: BoundedLRU[tuple[int, int], bytes] = BoundedLRU(max_entries=50, max_bytes=400, size=len)
    barrier = threading.Barrier(8)
    errors: list[BaseException] = []

    def work(thread: int) -> None:
        try:
            barrier.wait()
            for i in range(2_000):
                lru.put((thread, i), b"x" * (1 + i % 16))
                lru.get((thread, i - 1))
                lru.get_many([(thread - 1, i), (thread + 1, i)])
                if i % 500 == 0:
                    lru.keys()
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    keys = lru.keys()
    assert len(keys) == len(lru) == len(set(keys)) <= 50
    held = lru.get_many(keys)
    assert lru.bytes == sum(len(v) for v in held.values()) <= 400


def test_the_folder_rule_with_chunkviz_cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", str(tmp_path / "mine"))
    assert cache_root() == tmp_path / "mine"
    assert cache_folder("llm") == tmp_path / "mine" / "llm"


def test_the_folder_rule_without_chunkviz_cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CHUNKVIZ_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_folder("semantic") == tmp_path / "xdg" / "chunkviz" / "semantic"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_root() == tmp_path / "home" / ".cache" / "chunkviz"


def test_an_empty_chunkviz_cache_dir_turns_every_disk_cache_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", "")
    assert cache_root() is None
    assert cache_folder("embeddings") is None


def test_every_cache_uses_the_one_folder_rule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from chunkviz.llm.cache import default_cache_dir
    from chunkviz.semantic.cache import cache_dir
    from chunkviz.semantic.embedcache import store_path

    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", str(tmp_path))
    assert cache_dir() == tmp_path / "semantic"
    assert default_cache_dir() == tmp_path / "llm"
    path = store_path("words")
    assert path is not None and path.parent == tmp_path / "embeddings"
    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", "")
    assert (cache_dir(), default_cache_dir(), store_path("words")) == (None, None, None)


def test_every_in_memory_cache_is_the_one_lru_with_todays_bounds() -> None:
    from chunkviz.document.model import SHARED_DOCUMENTS
    from chunkviz.llm import cache as answers
    from chunkviz.semantic import cache as similarities
    from chunkviz.semantic import embedcache
    from chunkviz.strategies import peers, semantic

    caches = {
        "similarities": (similarities.MEMORY, 16, None),
        "vectors": (embedcache.VECTORS, None, 64 * 1024 * 1024),
        "answers": (answers.ANSWERS, 20_000, None),
        "peer runs": (peers.RUNS, 16, None),
        "explanations": (semantic.EXPLANATIONS, 4, None),
        "documents": (SHARED_DOCUMENTS, 8, None),
    }
    for name, (cache, entries, max_bytes) in caches.items():
        assert isinstance(cache, BoundedLRU), name
        assert (cache.max_entries, cache.max_bytes) == (entries, max_bytes), name


def test_get_or_make_makes_a_missing_value_once_and_never_keeps_an_unhashable_key() -> None:
    cache: BoundedLRU[object, str] = BoundedLRU(max_entries=2)
    made: list[object] = []

    def make(key: object) -> str:
        made.append(key)
        return f"value of {key!r}"

    assert cache.get_or_make("a", lambda: make("a")) == "value of 'a'"
    assert cache.get_or_make("a", lambda: make("a")) == "value of 'a'"
    assert made == ["a"]
    unhashable = ("doc", ["a list inside"])
    assert cache.get_or_make(unhashable, lambda: make(unhashable)) == cache.get_or_make(
        unhashable, lambda: make(unhashable)
    )
    assert made == ["a", unhashable, unhashable] and len(cache) == 1


def test_text_keys_are_equal_for_equal_texts_and_cheap_for_long_ones() -> None:
    long = "".join(f"word{k} " for k in range(20_000))
    assert text_key(long) == text_key("".join(list(long)))  # an equal text, another object
    assert text_key("short text") == (10, "short text")
    n, samples = text_key(long)
    assert n == len(long) and len(samples) < 300
    assert text_key(long[:-1] + "!") != text_key(long)  # the end is always read
    assert text_key(long + " ") != text_key(long)  # so is the length


def test_texts_with_the_same_key_never_share_a_counter_or_a_document() -> None:
    from chunkviz.document.model import as_document
    from chunkviz.text.spancount import shared_counter
    from chunkviz.text.tokenizers import get_tokenizer

    base = "".join(f"word{k} " for k in range(20_000))
    step = len(base) // 16
    unsampled = step + 100  # between two samples
    other = base[:unsampled] + "X" + base[unsampled + 1 :]
    assert text_key(other) == text_key(base) and other != base
    tok = get_tokenizer("words")
    assert shared_counter(base, tok).text == base
    assert shared_counter(other, tok).text == other  # a key collision is a miss, not a wrong hit
    assert as_document(base).text == base and as_document(other).text == other
    assert as_document(base) is as_document("".join(list(base)))  # equal texts share one
