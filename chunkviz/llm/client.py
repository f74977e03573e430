"""One client for every LLM technique: any OpenAI-compatible chat-completions endpoint.

Configured by the standard environment variables (``OPENAI_BASE_URL``, ``OPENAI_API_KEY``) plus
``CHUNKVIZ_LLM_MODEL``, overridden by CLI flags or app controls (:meth:`LLMSettings.from_env`).
Every call goes through :meth:`LLMClient.complete`: answers come from the disk cache when the
same prompt (name, version), model and messages were answered before; otherwise the endpoint is
asked with a timeout, and 429 / 5xx / connection errors are retried with exponential backoff
(a small ``Retry-After`` is respected; the total wait is bounded). Only complete answers that
the caller accepts are cached. :meth:`LLMClient.estimate` says beforehand how many calls and
roughly how many input tokens (cl100k) a run takes; :attr:`LLMClient.stats` counts afterwards
what was asked and what the cache served.

The API key is never logged, shown, exported or put in an error message or a ``repr``.
The ``openai`` package (the ``llm`` extra) is imported only when a call is made.
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from chunkviz.core.errors import ChunkvizError
from chunkviz.core.parallel import run_bounded
from chunkviz.core.types import Progress
from chunkviz.llm.cache import AnswerCache, answer_key, default_cache_dir
from chunkviz.llm.endpoint import (
    LLMPackageMissing,
    LLMSettingsError,
    Retryable,
    RetryPolicy,
    call_with_retries,
    check_base_url,
    display_url,
    error_detail,
    import_openai,
    retry_after,
)

#: ``accept(answer) -> bool``: whether an answer is usable (an unusable one is asked again, never cached).
Accept = Callable[[str], bool]

ENV_BASE_URL = "OPENAI_BASE_URL"
ENV_API_KEY = "OPENAI_API_KEY"
ENV_MODEL = "CHUNKVIZ_LLM_MODEL"
OPENAI_BASE_URL = "https://api.openai.com/v1"

#: How to point chunkviz at an endpoint (shown wherever one is missing).
OLLAMA_EXAMPLE = "OPENAI_BASE_URL=http://localhost:11434/v1 CHUNKVIZ_LLM_MODEL=llama3.1"
OPENAI_EXAMPLE = "OPENAI_API_KEY=sk-... CHUNKVIZ_LLM_MODEL=gpt-4o-mini"
#: An answer that is empty, cut off or not accepted is asked for at most this many times.
ANSWER_ATTEMPTS = 2


class LLMNotConfigured(ChunkvizError, ValueError):
    """No endpoint or no model: the message says what to set and how (Ollama and OpenAI examples)."""

    def __init__(self, missing: Sequence[str] = ()) -> None:
        self.missing = tuple(missing)
        what = f" (missing: {', '.join(self.missing)})" if self.missing else ""
        super().__init__(
            f"no LLM endpoint is configured{what}. Set {ENV_BASE_URL} to an OpenAI-compatible server and "
            f"{ENV_MODEL} to its model ({ENV_API_KEY} too if the server needs a key), or on the command line "
            f"--llm-base-url and --llm-model. Ollama: {OLLAMA_EXAMPLE} (after 'ollama pull llama3.1'). "
            f"OpenAI: {OPENAI_EXAMPLE} (leave {ENV_BASE_URL} unset)."
        )


class LLMError(ChunkvizError):
    """The endpoint failed after retries, timed out or gave no usable answer: the message says
    which endpoint and model, what happened and what to try."""


@dataclass(frozen=True)
class LLMSettings:
    """Where and how to call the model. ``api_key`` is hidden from ``repr`` and :meth:`public`."""

    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    model: str | None = None
    timeout: float = 60.0  # seconds per request
    max_retries: int = 4  # retries after a 429 / 5xx / connection error or timeout
    concurrency: int = 4  # requests in flight at once
    backoff: float = 1.0  # first retry delay in seconds, doubled each retry (with jitter)
    max_retry_after: float = 30.0  # a Retry-After longer than this is not waited for
    max_total_wait: float = 120.0  # the most one call waits between its retries in total

    def __post_init__(self) -> None:
        checks = {
            "timeout": self.timeout > 0,
            "max_retries": 0 <= self.max_retries <= 20,
            "concurrency": 1 <= self.concurrency <= 64,
            "backoff": self.backoff >= 0,
            "max_retry_after": self.max_retry_after >= 0,
            "max_total_wait": self.max_total_wait >= 0,
        }
        bad = [name for name, ok in checks.items() if not ok]
        if bad:
            ranges = {"timeout": "> 0 seconds", "max_retries": "0..20", "concurrency": "1..64"}
            name = bad[0]
            raise LLMSettingsError(
                f"LLM setting {name} must be {ranges.get(name, '>= 0')}, got {getattr(self, name)!r}"
            )

    def __repr__(self) -> str:  # no key, and no password in the URL
        shown = {**self.public(), "base_url": display_url(self.base_url) if self.base_url else None}
        shown.pop("api_key_set")
        return (
            "LLMSettings("
            + ", ".join(f"{k}={v!r}" for k, v in shown.items())
            + f", api_key={'set' if self.api_key else None})"
        )

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> "LLMSettings":
        """Settings from ``OPENAI_BASE_URL``, ``OPENAI_API_KEY`` and ``CHUNKVIZ_LLM_MODEL``; an
        override that is None (an unset flag or control) keeps the environment's value, an empty
        string clears it."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {
            "base_url": env.get(ENV_BASE_URL) or None,
            "api_key": env.get(ENV_API_KEY) or None,
            "model": env.get(ENV_MODEL) or None,
        }
        unknown = set(overrides) - {f for f in cls.__dataclass_fields__}
        if unknown:
            raise LLMSettingsError(f"unknown LLM setting(s): {', '.join(sorted(unknown))}")
        for name, value in overrides.items():
            if value is None:
                continue
            values[name] = (value.strip() or None) if isinstance(value, str) else value
        return cls(**values)

    @property
    def configured(self) -> bool:
        """A model and somewhere to send it: a base URL, or a key for OpenAI's own endpoint."""
        return not self.missing()

    def missing(self) -> list[str]:
        """The environment variables that still need a value."""
        out = []
        if not (self.base_url or self.api_key):
            out.append(f"{ENV_BASE_URL} (or {ENV_API_KEY} for OpenAI)")
        if not self.model:
            out.append(ENV_MODEL)
        return out

    @property
    def endpoint(self) -> str:
        """The base URL as it may be shown (any user:password in it removed)."""
        return display_url(self.base_url or OPENAI_BASE_URL)

    def public(self) -> dict[str, Any]:
        """The settings as they may be shown or exported: no key, only whether one is set."""
        return {
            "base_url": self.endpoint,
            "model": self.model,
            "api_key_set": bool(self.api_key),
            "timeout": self.timeout,
            "max_retries": self.max_retries,
            "concurrency": self.concurrency,
        }


@dataclass(frozen=True)
class Prompt:
    """A prompt template: ``version`` is part of the cache key (bump it when the text changes)."""

    name: str
    version: int
    system: str
    template: str  # str.format(**inputs)
    json: bool = False  # ask for a JSON answer (response_format when the server allows it)

    def messages(self, inputs: Mapping[str, str]) -> list[dict[str, str]]:
        """The chat messages for ``inputs``."""
        try:
            user = self.template.format(**inputs)
        except KeyError as exc:
            raise LLMError(f"prompt {self.name!r} needs the input {exc.args[0]!r}") from None
        return [{"role": "system", "content": self.system}, {"role": "user", "content": user}]


@dataclass
class CallStats:
    """What a client did: answers from the endpoint (``made``), from the cache (``cached``),
    calls that ended in an error (``failed``), HTTP requests retried (``retries``) and the input
    and output tokens of the calls made (the server's usage, else a cl100k count)."""

    made: int = 0
    cached: int = 0
    failed: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    retries: int = 0

    def summary(self) -> str:
        """e.g. ``3 calls made, 5 answers from the cache, 4,210 input tokens``."""
        parts = [f"{self.made:,} call{'' if self.made == 1 else 's'} made", f"{self.cached:,} from the cache"]
        if self.failed:
            parts.append(f"{self.failed:,} failed")
        if self.retries:
            parts.append(f"{self.retries:,} retried")
        parts.append(f"{self.input_tokens:,} input tokens")
        return ", ".join(parts)


@dataclass(frozen=True)
class CallEstimate:
    """Before a run: calls it will make, answers the cache already has, input tokens (~cl100k)."""

    calls: int
    cached: int
    input_tokens: int

    def summary(self) -> str:
        """e.g. ``4 calls, about 9,800 input tokens (2 answers cached)``."""
        text = f"{self.calls:,} call{'' if self.calls == 1 else 's'}, about {self.input_tokens:,} input tokens"
        return text + (f" ({self.cached:,} answer{'' if self.cached == 1 else 's'} cached)" if self.cached else "")


def count_tokens(messages: Sequence[Mapping[str, str]]) -> int:
    """cl100k tokens of ``messages`` plus the chat format's few tokens per message."""
    from chunkviz.text.tokenizers import get_tokenizer

    tokenizer = get_tokenizer("cl100k_base")
    return sum(tokenizer.count(m["content"]) + 4 for m in messages) + 3


class LLMClient:
    """Cached, retried, concurrency-limited chat completions (see the module docstring)."""

    def __init__(self, settings: LLMSettings, cache_dir: Path | None = None) -> None:
        if not settings.configured:
            raise LLMNotConfigured(settings.missing())
        if settings.base_url:
            check_base_url(settings.base_url)  # before any call: a malformed URL is never retried
        self.settings = settings
        self.cache = AnswerCache(cache_dir if cache_dir is not None else default_cache_dir())
        self.stats = CallStats()
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(settings.concurrency)
        self._openai: Any = None
        self._json_mode = True  # response_format json_object, until the server refuses it

    def __repr__(self) -> str:
        return f"<LLMClient {self.settings.model} at {self.settings.endpoint}>"

    # ---- planning -----------------------------------------------------------------------------
    def key(self, prompt: Prompt, inputs: Mapping[str, str]) -> str:
        return answer_key(prompt.name, prompt.version, str(self.settings.model), prompt.messages(inputs), prompt.json)

    def estimate(self, prompt: Prompt, inputs: Sequence[Mapping[str, str]]) -> CallEstimate:
        """Calls a run over ``inputs`` will make (identical inputs count once), answers already
        cached, and the cl100k input tokens of the calls still to make."""
        calls = cached = tokens = 0
        seen: set[str] = set()
        for item in inputs:
            key = self.key(prompt, item)
            if key in seen:
                continue
            seen.add(key)
            if self.cache.contains(key):
                cached += 1
            else:
                calls += 1
                tokens += count_tokens(prompt.messages(item))
        return CallEstimate(calls, cached, tokens)

    # ---- calls --------------------------------------------------------------------------------
    def complete(self, prompt: Prompt, inputs: Mapping[str, str], accept: Accept | None = None) -> str:
        """The model's answer to ``prompt`` with ``inputs``: from the cache, else from the
        endpoint. An empty or cut-off answer, or one ``accept`` rejects, is asked for again (at
        most :data:`ANSWER_ATTEMPTS` times) and never cached; then :class:`LLMError`."""
        messages = prompt.messages(inputs)
        key = answer_key(prompt.name, prompt.version, str(self.settings.model), messages, prompt.json)
        found = self.cache.get(key)
        if found is not None and (accept is None or accept(found)):
            self._count(cached=1)
            return found
        problem = ""
        for _ in range(ANSWER_ATTEMPTS):
            answer, finish = self._call_with_retries(messages, prompt.json)
            if finish == "length":
                problem = "was cut off (finish_reason 'length'): the model's context or output limit is too small"
            elif not answer.strip():
                problem = "was empty"
            elif accept is not None and not accept(answer):
                problem = f"was not usable ({_preview(answer)})"
            else:
                self.cache.put(key, answer, prompt.name, prompt.version, str(self.settings.model))
                return answer
        self._count(failed=1)
        raise LLMError(
            f"the model {self.settings.model} at {self.settings.endpoint} gave no usable answer to prompt "
            f"{prompt.name!r} in {ANSWER_ATTEMPTS} attempts: the last answer {problem}. Try a larger or more "
            "capable model (one that follows JSON instructions), or check the server's log"
        )

    def complete_many(
        self,
        prompt: Prompt,
        inputs: Sequence[Mapping[str, str]],
        progress: Progress | None = None,
        accept: Accept | None = None,
    ) -> list[str]:
        """Answers for every item of ``inputs``, in order, at most ``concurrency`` calls at a time;
        ``progress(done, total)`` after each (cached answers count as done at once). The first
        error stops the run (calls not started are dropped) and is raised; answers completed
        before it stay cached, so a re-run resumes."""
        total = len(inputs)
        if progress is not None:
            progress(0, total)
        if not total:
            return []
        keys = [self.key(prompt, item) for item in inputs]
        first_of: dict[str, int] = {}
        for i, key in enumerate(keys):
            first_of.setdefault(key, i)
        unique = sorted(first_of.values())
        answers: dict[int, str] = {}
        done = 0

        def arrived(i: int, answer: str) -> None:
            nonlocal done
            answers[unique[i]] = answer
            done += sum(1 for k in keys if first_of[k] == unique[i])
            if progress is not None:
                progress(done, total)

        calls = [partial(self.complete, prompt, inputs[i], accept) for i in unique]
        run_bounded(calls, self.settings.concurrency, arrived, thread_name_prefix="chunkviz-llm")
        return [answers[first_of[key]] for key in keys]

    # ---- one call, retried ----------------------------------------------------------------------
    def _call_with_retries(self, messages: list[dict[str, str]], json_mode: bool) -> tuple[str, str | None]:
        """(content, finish_reason) of one answer; transient failures retried with backoff."""
        settings = self.settings
        policy = RetryPolicy(settings.max_retries, settings.backoff, settings.max_retry_after, settings.max_total_wait)

        def once() -> tuple[str, str | None]:
            with self._slots:
                return self._call_once(messages, json_mode)

        def give_up(what: str, advice: str) -> LLMError:
            return LLMError(f"the LLM endpoint {settings.endpoint} (model {settings.model}) {what}; {advice}")

        try:
            return call_with_retries(once, policy, give_up, on_retry=lambda: self._count(retries=1))
        except LLMError:
            self._count(failed=1)
            raise

    def _call_once(self, messages: list[dict[str, str]], json_mode: bool) -> tuple[str, str | None]:
        openai = import_openai()
        client = self._client()
        kwargs: dict[str, Any] = {"model": self.settings.model, "messages": messages, "temperature": 0}
        if json_mode and self._json_mode:
            kwargs["response_format"] = {"type": "json_object"}
        try:
            response = client.chat.completions.create(**kwargs)
        except openai.APITimeoutError:
            raise Retryable(
                f"did not answer within {self.settings.timeout:g} s",
                "raise the timeout (--llm-timeout) or use a faster model",
            ) from None
        except openai.APIConnectionError:
            raise Retryable(
                "could not be reached",
                "check that the server is running and that the base URL is right (it usually ends in /v1)",
            ) from None
        except openai.APIStatusError as exc:
            if exc.status_code == 400 and "response_format" in kwargs and _mentions_response_format(exc):
                self._json_mode = False  # the server does not know JSON mode: the prompt asks for JSON anyway
                return self._call_once(messages, json_mode)
            raise self._status_failure(exc) from None
        return self._answer(response, messages)

    def _answer(self, response: Any, messages: list[dict[str, str]]) -> tuple[str, str | None]:
        try:
            choice = response.choices[0]
            content = choice.message.content or ""
            finish = getattr(choice, "finish_reason", None)
        except (AttributeError, IndexError, TypeError):
            raise Retryable(
                "sent a response without choices[0].message", "check that the server speaks chat completions"
            ) from None
        usage = getattr(response, "usage", None)
        prompt_tokens = getattr(usage, "prompt_tokens", None) or count_tokens(messages)
        completion_tokens = getattr(usage, "completion_tokens", None) or 0
        self._count(made=1, input_tokens=int(prompt_tokens), output_tokens=int(completion_tokens))
        return content, finish

    def _status_failure(self, exc: Any) -> Exception:
        status = int(exc.status_code)
        detail = self._scrub(error_detail(exc))
        if status == 429:
            return Retryable(
                f"refused the request: rate limited (429{detail})",
                "wait a moment, or lower the concurrency (--llm-concurrency)",
                retry_after(exc),
            )
        if status >= 500:
            return Retryable(
                f"failed with HTTP {status}{detail}",
                "check the server's log; it may be overloaded or the model not loaded",
                retry_after(exc),
            )
        advice = {
            401: f"the server rejected the API key: set {ENV_API_KEY}",
            403: f"the key is not allowed to use this model: check {ENV_API_KEY} and {ENV_MODEL}",
            404: f"check {ENV_MODEL} (the server does not know the model) and that the base URL ends in /v1",
        }.get(status, "check the model name and the server's log")
        return LLMError(
            f"the LLM endpoint {self.settings.endpoint} (model {self.settings.model}) answered HTTP {status}{detail}; {advice}"
        )

    def _scrub(self, text: str) -> str:
        key = self.settings.api_key
        return text.replace(key, "***") if key else text

    def _client(self) -> Any:
        with self._lock:
            if self._openai is None:
                openai = import_openai()
                self._openai = openai.OpenAI(
                    api_key=self.settings.api_key or "no-key",  # local servers need none; the package wants one
                    base_url=self.settings.base_url or OPENAI_BASE_URL,
                    timeout=self.settings.timeout,
                    max_retries=0,  # retried here: backoff, Retry-After, stats
                )
            return self._openai

    def close(self) -> None:
        """Close the HTTP connections (the client makes new ones if used again)."""
        with self._lock:
            client, self._openai = self._openai, None
        if client is not None:
            client.close()

    def _count(self, **amounts: int) -> None:
        with self._lock:
            for name, amount in amounts.items():
                setattr(self.stats, name, getattr(self.stats, name) + amount)


def _mentions_response_format(exc: Any) -> bool:
    return "response_format" in error_detail(exc) or "json_object" in error_detail(exc)


def _preview(answer: str) -> str:
    flat = re.sub(r"\s+", " ", answer).strip()
    return repr(flat[:80] + ("…" if len(flat) > 80 else ""))


__all__ = [
    "Accept",
    "CallEstimate",
    "CallStats",
    "LLMClient",
    "LLMError",
    "LLMNotConfigured",
    "LLMPackageMissing",
    "LLMSettings",
    "LLMSettingsError",
    "check_base_url",
    "OLLAMA_EXAMPLE",
    "OPENAI_EXAMPLE",
    "Prompt",
    "count_tokens",
    "display_url",
]
