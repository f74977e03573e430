"""What the browser tests (and bench/bench_tuning.py) share: a Streamlit server on a free port
and Debian's headless Chromium (``playwright install`` is never needed)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any, Awaitable, Callable, Iterator, Mapping, Sequence, TypeVar

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
TIMEOUT_S = 90
#: Pause between two polls of a condition (a bound, not a wait for anything to happen)
POLL_S = 0.25


class ServerError(RuntimeError):
    """The Streamlit server exited or did not become healthy (the message holds its log)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


#: Tries at starting a server: a free port can be taken by another process (an xdist worker starting
#: its own server) between :func:`free_port` and Streamlit binding it.
PORT_ATTEMPTS = 3


@contextlib.contextmanager
def streamlit_server(
    script: Path | str,
    log_dir: Path,
    env: Mapping[str, str] | None = None,
    args: Sequence[str] = (),
    warm: bool = False,
) -> Iterator[str]:
    """``streamlit run script [-- args]`` on a free port, offline, no file watcher; yields its URL.
    Each xdist worker starts its own servers, each on a port of its own. ``warm``: start it as
    ``./dev app`` does, through ``chunkviz.ui.serve``, which runs the app's pages at start."""
    log_path = Path(log_dir) / "server.log"
    environment = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", **(env or {}))
    environment.pop("CHUNKVIZ_ALLOW_DOWNLOAD", None)
    for attempt in range(1, PORT_ATTEMPTS + 1):
        port = free_port()
        launcher = ["chunkviz.ui.serve", str(script), "--"] if warm else ["streamlit", "run", str(script)]
        command = [
            sys.executable, "-m", *launcher,
            "--server.headless", "true", "--server.port", str(port), "--server.address", "127.0.0.1",
            "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
            *(["--", *args] if args else []),
        ]  # fmt: skip
        with open(log_path, "wb") as log:
            process = subprocess.Popen(
                command, cwd=REPO, env=environment, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_healthy(process, url, log_path)
        except ServerError as error:
            stop(process)
            if attempt < PORT_ATTEMPTS and f"Port {port} is already in use" in str(error):
                continue
            raise
        try:
            yield url
        finally:
            stop(process)
        return


def _wait_healthy(process: subprocess.Popen[bytes], url: str, log_path: Path, timeout_s: float = 60) -> None:
    """Poll the server's health endpoint until it answers ``ok``; between polls, wait for the process
    to exit (so a server that dies is reported at once), at most :data:`POLL_S`."""
    deadline = time.monotonic() + timeout_s
    while True:
        if process.poll() is not None:
            raise ServerError(f"streamlit exited with {process.returncode}:\n{log_path.read_text(errors='replace')}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.read().strip() == b"ok":
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise ServerError(
                f"streamlit did not become healthy in {timeout_s:g} s:\n{log_path.read_text(errors='replace')}"
            )
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=POLL_S)


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=5)


@contextlib.contextmanager
def chromium(sync_api: Any) -> Iterator[Any]:
    """Debian's Chromium through playwright (``sync_api``: the playwright.sync_api module)."""
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


#: The app's whole page is drawn: the sidebar's controls and the view switch (a new visitor's first
#: screen has neither: chunkviz.ui.firstpaint), the page's last section (its run got to the end) and
#: no script run going on (Streamlit shows its status widget only after a moment).
WHOLE_PAGE_JS = """() => !!document.querySelector('[data-testid=stSidebar] [data-testid=stNumberInput]')
  && !!document.querySelector('[data-testid=stMain] [data-testid=stButtonGroup]')
  && [...document.querySelectorAll('[data-testid=stMain] h2')].some(h => h.textContent.includes('Share and reproduce'))
  && !document.querySelector('[data-testid=stStatusWidget]')"""


def wait_for_whole_page(page: Any, timeout_s: float = TIMEOUT_S) -> Any:
    """Wait until the app's whole page is drawn (:data:`WHOLE_PAGE_JS`); returns ``page``."""
    page.wait_for_function(WHOLE_PAGE_JS, timeout=timeout_s * 1000, polling=100)
    return page


def wait_for(condition: Callable[[], Any], what: str, timeout: float = TIMEOUT_S) -> Any:
    """Poll until ``condition()`` is truthy (the page re-renders asynchronously after each input)."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        try:
            last = condition()
        except Exception as exc:  # noqa: BLE001 - elements are replaced while Streamlit re-renders
            last = exc
        if last and not isinstance(last, Exception):
            return last
        time.sleep(POLL_S)
    raise AssertionError(f"timed out waiting for {what}; last value: {last!r}")


def animation_frames(page: Any, frames: int = 2) -> None:
    """Wait until the page has rendered ``frames`` more animation frames (after a scroll, before a
    screenshot or a check that something did *not* follow)."""
    page.evaluate(
        "(n) => new Promise((done) => { const step = () => (n-- > 0 ? requestAnimationFrame(step) : done()); step(); })",
        frames,
    )


# ----------------------------------------------------------------------------- the document view
#: The document view component's root (in its shadow root); :func:`js` puts it in scope as ``root``.
ROOT_JS = "document.querySelector('[data-testid=stBidiComponentIsolated]').shadowRoot.querySelector('.cvd-root')"


def js(page: Any, body: str, arg: Any = None) -> Any:
    """Evaluate ``body`` with ``root`` (the document view's .cvd-root) and ``arg`` in scope."""
    return page.evaluate(f"(arg) => {{ const root = {ROOT_JS}; {body} }}", arg)


def box_rect(page: Any, column: int) -> dict[str, float]:
    """The bounding box of column ``column``'s scroll box."""
    return js(page, "const r = root.querySelectorAll('.cvd-box')[arg].getBoundingClientRect();"
              "return {top: r.top, bottom: r.bottom, left: r.left, right: r.right};", column)  # fmt: skip


def chunk_rect(page: Any, column: int, index: int) -> dict[str, float]:
    """The first line box of chunk ``index``'s band in ``column``."""
    return js(
        page,
        "const [c, i] = arg; const e = root.querySelectorAll('.cvd-box')[c].querySelector(`.cv-c[data-chunk-index=\"${i}\"]`);"
        "const r = e.getClientRects()[0]; return {top: r.top, bottom: r.bottom, left: r.left, right: r.right};",
        [column, index],
    )


VIEWPORT = {"width": 1500, "height": 1100}


def shared_context(browser: Any) -> Any:
    """The browser's one context at 1500x1100, made at the first call: the pages of a module share it,
    so the app's scripts are fetched once (the HTTP cache and V8's code cache live in a context). A
    load of the default page took 5.0-5.4 s of this machine's CPU (Chromium and server) in a shared
    context against 5.4-5.9 s in fresh ones. Each page is still a new Streamlit session (its own
    websocket); bench/ measures new visitors in fresh contexts."""
    context = getattr(browser, "chunkviz_context", None)
    if context is None:
        context = browser.chunkviz_context = browser.new_context(viewport=VIEWPORT)
    return context


def open_page(browser: Any, url: str, timeout_s: float = TIMEOUT_S) -> Any:
    """A new page at 1500x1100 on ``url`` (in the browser's :func:`shared_context`; close it with
    ``page.close()``) that records page errors (``page.page_errors``) and dismisses dialogs (``page.dialogs``)."""
    page = shared_context(browser).new_page()
    page.set_default_timeout(timeout_s * 1000)
    page.dialogs = []
    page.page_errors = []
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    page.on("pageerror", lambda e: page.page_errors.append(str(e)))
    page.goto(url)
    return page


T = TypeVar("T")


def run_bounded(coroutine: Awaitable[T], timeout_s: float) -> T:
    """``asyncio.run(coroutine)``, stopped with ``TimeoutError`` after ``timeout_s`` (a websocket
    session of the tests never waits without bound)."""

    async def bounded() -> T:
        return await asyncio.wait_for(coroutine, timeout_s)

    return asyncio.run(bounded())
