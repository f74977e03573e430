"""A real chat-completions server on loopback with scripted answers, for every LLM test.

``LoopbackLLM`` speaks ``POST /v1/chat/completions`` (the OpenAI protocol: a JSON body with
``messages``; a JSON answer with ``choices[0].message.content`` and ``usage``) on 127.0.0.1 from
a thread, counts the requests it receives and keeps their bodies. Each request takes the next
:class:`Reply` of the script; when the script is used up, ``fallback(request)`` answers (by
default a section start at every sentence that begins with ``#``, read from the numbered prompt).

Scripts for the cases the issue names are the functions below (``good_json``, ``malformed_json``,
``out_of_range_unsorted``, ``empty``, ``slow``, ``rate_limited``, ``server_error``). Import the
fixtures (``llm_server``, ``llm_settings``, ``llm_endpoint_env``, ``loopback_llm_env``) are found by
every test module (``tests/conftest.py`` registers this module as a plugin); or use
:func:`running_server` directly (module- or session-scoped servers, hypothesis tests).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterator, Sequence

import pytest

from chunkviz.llm import LLMSettings


@dataclass(frozen=True)
class Reply:
    """One scripted response: a 200 with ``content`` (or ``body`` as raw text), or an error ``status``."""

    content: str = ""
    status: int = 200
    delay: float = 0.0  # seconds to wait before answering (a slow server)
    headers: dict[str, str] = field(default_factory=dict)
    finish_reason: str = "stop"
    body: str | None = None  # raw response body, instead of the chat-completion JSON


Responder = Callable[[dict[str, Any]], Reply]


def sections_reply(starts: Sequence[Any]) -> Reply:
    """A well-formed answer naming ``starts`` as section starts."""
    return Reply(json.dumps({"section_starts": list(starts)}))


def numbered_sentences(request: dict[str, Any]) -> list[str]:
    """The sentences of an ``llm_chunking`` prompt, in their order (``[k] text`` lines)."""
    user = request["messages"][-1]["content"]
    return [m.group(1) for m in re.finditer(r"^\[\d+\] (.*)$", user, re.MULTILINE)]


def heading_sections(request: dict[str, Any]) -> Reply:
    """A section starts at every sentence that begins with ``#`` (a Markdown heading)."""
    sentences = numbered_sentences(request)
    return sections_reply([k + 1 for k, s in enumerate(sentences) if s.startswith("#")])


# ---- scripts for the cases of issue 11 -------------------------------------------------------------
def good_json(starts: Sequence[int]) -> list[Reply]:
    return [sections_reply(starts)]


def malformed_json(starts: Sequence[int]) -> list[Reply]:
    """Cut off mid-list: not JSON, but the numbers are there."""
    return [Reply('{"section_starts": [' + ", ".join(str(s) for s in starts) + ",")]


def out_of_range_unsorted(starts: Sequence[int]) -> list[Reply]:
    """The given starts reversed, repeated once, plus 0 and 10,000."""
    return [sections_reply([10_000, *reversed(starts), starts[0], 0])]


def empty(times: int = 1) -> list[Reply]:
    return [Reply("")] * times


def slow(seconds: float, times: int = 1) -> list[Reply]:
    return [Reply(json.dumps({"section_starts": []}), delay=seconds)] * times


def rate_limited(then: Reply, retry_after: float = 0.05) -> list[Reply]:
    return [
        Reply(status=429, headers={"Retry-After": f"{retry_after:g}"}, body='{"error": {"message": "slow down"}}'),
        then,
    ]


def server_error(request: dict[str, Any]) -> Reply:
    """A fallback for "500 forever"."""
    return Reply(status=500, body='{"error": {"message": "model crashed"}}')


class LoopbackLLM:
    """The server (see the module docstring). ``calls`` counts requests received."""

    def __init__(self, fallback: Responder = heading_sections) -> None:
        self.fallback = fallback
        self.script: list[Reply] = []
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.in_flight = 0
        self.max_in_flight = 0  # the most requests it was answering at once
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._server.block_on_close = False
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.02,), name="loopback-llm", daemon=True
        )
        self._thread.start()

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    @property
    def calls(self) -> int:
        with self._lock:
            return len(self.requests)

    def play(self, *replies: Reply | Sequence[Reply], fallback: Responder | None = None) -> None:
        """Answer the next requests with ``replies`` (lists are flattened), then ``fallback``."""
        flat: list[Reply] = []
        for reply in replies:
            flat.extend([reply] if isinstance(reply, Reply) else reply)
        with self._lock:
            self.script = flat
            if fallback is not None:
                self.fallback = fallback

    def reset(self, fallback: Responder = heading_sections) -> None:
        with self._lock:
            self.script, self.requests, self.headers, self.fallback = [], [], [], fallback
            self.max_in_flight = 0

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _next(self, request: dict[str, Any], headers: dict[str, str]) -> Reply:
        with self._lock:
            self.requests.append(request)
            self.headers.append(headers)
            if self.script:
                return self.script.pop(0)
            fallback = self.fallback
        return fallback(request)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, '{"error": {"message": "not found"}}', {})
                    return
                request = json.loads(raw or b"{}")
                with server._lock:
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    reply = server._next(request, {k.lower(): v for k, v in self.headers.items()})
                    if reply.delay:
                        time.sleep(reply.delay)
                    body = reply.body if reply.body is not None else _completion(request, reply)
                    self._send(reply.status, body, reply.headers)
                finally:
                    with server._lock:
                        server.in_flight -= 1

            def _send(self, status: int, body: str, headers: dict[str, str]) -> None:
                data = body.encode("utf-8")
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
                    pass

        return Handler


def _completion(request: dict[str, Any], reply: Reply) -> str:
    prompt = sum(len(str(m.get("content", "")).split()) for m in request.get("messages", []))
    return json.dumps(
        {
            "id": "chatcmpl-loopback",
            "object": "chat.completion",
            "created": 0,
            "model": request.get("model", ""),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply.content},
                    "finish_reason": reply.finish_reason,
                }
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": len(reply.content.split()),
                "total_tokens": prompt + len(reply.content.split()),
            },
        }
    )


@contextlib.contextmanager
def running_server(fallback: Responder = heading_sections) -> Iterator[LoopbackLLM]:
    server = LoopbackLLM(fallback)
    try:
        yield server
    finally:
        server.close()


def fast_settings(server: LoopbackLLM, **overrides: Any) -> LLMSettings:
    """Settings for ``server`` with small timeouts and backoff, so failing cases stay quick."""
    values: dict[str, Any] = {
        "base_url": server.base_url,
        "api_key": "sk-test-SECRET-0123456789",
        "model": "loopback-model",
        "timeout": 2.0,
        "max_retries": 2,
        "concurrency": 2,
        "backoff": 0.01,
        "max_total_wait": 1.0,
    }
    return LLMSettings(**{**values, **overrides})


@pytest.fixture
def llm_server() -> Iterator[LoopbackLLM]:
    """A fresh loopback server per test."""
    with running_server() as server:
        yield server


@pytest.fixture
def llm_settings(llm_server: LoopbackLLM) -> LLMSettings:
    return fast_settings(llm_server)


@pytest.fixture
def llm_endpoint_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Any, llm_server: LoopbackLLM) -> LoopbackLLM:
    """The environment pointing at the loopback server (and a private answer cache): what a user
    sets, for CLI and app tests."""
    monkeypatch.setenv("OPENAI_BASE_URL", llm_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-SECRET-0123456789")
    monkeypatch.setenv("CHUNKVIZ_LLM_MODEL", "loopback-model")
    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", str(tmp_path / "cache"))
    return llm_server


@pytest.fixture(scope="session")
def loopback_llm_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LoopbackLLM]:
    """One loopback server for a whole test session, with the environment pointing at it (no
    key; answers: a section at every Markdown heading) and, unless a test sets its own, the
    answer cache in a temporary folder. For conftest, so that generic tests that run every
    registered strategy run ``llm`` too (``tests/conftest.py`` uses it in an autouse fixture).
    Under pytest-xdist each worker has its own."""
    with running_server() as server, pytest.MonkeyPatch.context() as mp:
        mp.setenv("OPENAI_BASE_URL", server.base_url)
        mp.setenv("CHUNKVIZ_LLM_MODEL", "loopback-model")
        mp.delenv("OPENAI_API_KEY", raising=False)
        if "CHUNKVIZ_CACHE_DIR" not in os.environ:
            mp.setenv("CHUNKVIZ_CACHE_DIR", str(tmp_path_factory.mktemp("llm-cache")))
        yield server


__all__ = [
    "LoopbackLLM",
    "Reply",
    "empty",
    "fast_settings",
    "good_json",
    "heading_sections",
    "llm_endpoint_env",
    "llm_server",
    "llm_settings",
    "loopback_llm_env",
    "malformed_json",
    "numbered_sentences",
    "out_of_range_unsorted",
    "rate_limited",
    "running_server",
    "sections_reply",
    "server_error",
    "slow",
]
