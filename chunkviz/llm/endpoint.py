"""What every caller of an OpenAI-compatible endpoint shares: the LLM client (chat completions)
and the ``openai:MODEL`` embedding provider (``/v1/embeddings``).

The ``openai`` package imported only when a call is made (:func:`import_openai`), a base URL
refused at once when no request could reach it (:func:`check_base_url`) and shown without its
credentials (:func:`display_url`), the server's own message and ``Retry-After`` read from a
failed request (:func:`error_detail`, :func:`retry_after`), and the one retry loop: a
:class:`Retryable` failure is tried again with exponential backoff (a short ``Retry-After``
honoured, the total wait bounded) until :func:`call_with_retries` gives up.
"""

from __future__ import annotations

import email.utils
import random
import re
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, TypeVar
from urllib.parse import urlsplit, urlunsplit

from chunkviz.core.errors import ChunkvizError, missing_extra

T = TypeVar("T")


class LLMPackageMissing(ChunkvizError, ImportError):
    """The ``openai`` package (the ``llm`` extra) is not installed."""

    def __init__(self) -> None:
        super().__init__(missing_extra("calling a language model", "llm", "the openai package"))


class LLMSettingsError(ChunkvizError, ValueError):
    """A setting out of range (timeout, retries, concurrency) or a base URL no request could reach."""


def import_openai() -> Any:
    """The ``openai`` module, or :class:`LLMPackageMissing` naming the extra to install."""
    try:
        import openai
    except ImportError:
        raise LLMPackageMissing() from None
    return openai


def check_base_url(url: str, *, what: str = "LLM base URL", setting: str = "--llm-base-url or OPENAI_BASE_URL") -> None:
    """Refuse at once a base URL that no request could reach (``notaurl``, ``localhost:11434``
    without ``http://``, ``http://`` alone, a port that is not a number), instead of retrying a
    connection that cannot be made. :class:`LLMSettingsError` naming the URL (credentials removed),
    ``what`` it is and the ``setting`` that gives it."""
    problem = None
    if any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in url):
        problem = "it contains a space or a control character"
    else:
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError:
            parts, port = None, None
            problem = "it cannot be parsed (a port that is not a number in 0..65535, or a bad [IPv6] host)"
        if parts is not None:
            if parts.scheme.lower() not in ("http", "https"):
                problem = "it does not start with http:// or https://"
            elif not parts.hostname:
                problem = "it names no host"
            elif port == 0:
                problem = "port 0 is not a port a server listens on"
    if problem is not None:
        try:
            shown = display_url(url)
        except ValueError:
            shown = re.sub(r"//[^/@]*@", "//", url)
        raise LLMSettingsError(
            f"the {what} {shown!r} is not usable: {problem}; give the server's URL, e.g. "
            f"http://localhost:11434/v1 for Ollama ({setting})"
        )


def display_url(url: str) -> str:
    """``url`` without credentials (``http://user:secret@host`` -> ``http://host``)."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def error_detail(exc: Any) -> str:
    """``: <the server's message>`` of a failed request (one line, at most 200 characters), or ''."""
    body = getattr(exc, "body", None)
    message = ""
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        message = str(inner.get("message", "") if isinstance(inner, Mapping) else inner)
    elif isinstance(body, str):
        message = body
    message = " ".join(message.split())[:200]
    return f": {message}" if message else ""


def retry_after(exc: Any) -> float | None:
    """Seconds from a failed request's ``Retry-After`` header (seconds or an HTTP date), or None."""
    response = getattr(exc, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class Retryable(Exception):
    """One failed request that may be tried again (after ``wait`` seconds, if the server said):
    ``what`` happened and the ``advice`` to give if it keeps failing."""

    def __init__(self, what: str, advice: str, wait: float | None = None) -> None:
        super().__init__(what)
        self.what = what
        self.advice = advice
        self.wait = wait


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long a request is tried again."""

    max_retries: int = 4
    backoff: float = 1.0  # the first retry's delay in seconds, doubled each retry (with jitter)
    max_retry_after: float = 30.0  # a Retry-After longer than this is not waited for
    max_total_wait: float = 120.0  # the most one request waits between its retries in total


def call_with_retries(
    call: Callable[[], T],
    policy: RetryPolicy,
    give_up: Callable[[str, str], Exception],
    on_retry: Callable[[], None] | None = None,
) -> T:
    """``call()``, tried again after each :class:`Retryable` failure (exponential backoff with
    jitter, or the server's ``Retry-After``). When the retries, the longest ``Retry-After`` or
    the total wait run out, raises ``give_up(what, advice)``: ``what`` says what happened and
    after how many attempts. Any other exception passes through at once."""
    waited, attempt = 0.0, 0
    while True:
        try:
            return call()
        except Retryable as failure:
            delay = (
                failure.wait if failure.wait is not None else policy.backoff * 2**attempt * (1 + random.random() / 4)
            )
            too_long = failure.wait is not None and failure.wait > policy.max_retry_after
            if attempt >= policy.max_retries or too_long or waited + delay > policy.max_total_wait:
                tries = f"{attempt + 1} attempt{'' if attempt == 0 else 's'}"
                asked = f" (it asked to wait {failure.wait:g} s)" if too_long else ""
                raise give_up(f"{failure.what} after {tries}{asked}", failure.advice) from None
            if on_retry is not None:
                on_retry()
            time.sleep(delay)
            waited += delay
            attempt += 1


__all__ = [
    "LLMPackageMissing",
    "LLMSettingsError",
    "RetryPolicy",
    "Retryable",
    "call_with_retries",
    "check_base_url",
    "display_url",
    "error_detail",
    "import_openai",
    "retry_after",
]
