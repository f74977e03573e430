#!/usr/bin/env python
"""Soak: many sessions on one app server for several minutes (issue 13 item 8, issue 20 item 4).

Two clients. ``--client browser`` (the default) drives Chromium, as below. ``--client ws`` speaks
Streamlit's own websocket protocol (chunkviz.ui.wsclient: no browser, so N sessions cost the
machine what N students cost the server): N sessions arrive one per ``--arrival`` s, each opens
the app from a URL (``doc=`` a sample of chunkviz/sample_docs/, three columns: fixed_tokens, a rotating
second strategy, and a third column that is ``semantic`` for every third session, else
paragraphs; one in five of those without ``semantic`` opens the plain link instead, as a class given
the link does: a new visitor's first screen, then the whole page, timed together as "open plain link"),
then every ``--interval`` s for ``--duration`` s changes one parameter in turn:
column 1's chunk size, column 2's strategy (semantic among them), column 3's semantic percentile
(or paragraphs' max tokens). Each change is timed from the rerun request to ``script_finished``;
an exception box, an error box, a missing document view or a timeout (``--timeout``) is an
error, and a session whose run times out stops there (figures count only finished runs; the
failed ones are counted beside them). It prints the same latency, error, RSS and CPU sections,
plus the server's CPU seconds per interaction and its RSS in the first and the second half.
Loopback only; at most MAX_WS_SESSIONS sessions and MAX_WS_DURATION_S seconds; every wait has a
timeout.

    .venv/bin/python bench/bench_soak.py --client ws [--sessions 30] [--interval 5] [--duration 180]
        [--server-option runner.postScriptGC=false] [--no-warm-up] [--warm-semantic]

The browser client:

One ``streamlit run app.py`` on loopback (a free port, uploads capped at 5 MiB as ``./dev app``
does) and N sessions in Debian's headless Chromium (one browser, one context per session,
Playwright's async API), arriving one per second. Each session opens the app with three columns
from the URL (every third session with a ``semantic`` column), uploads its own document (a
variant of a sample or a real document: its paragraphs rotated, a session line added, so no two
sessions share a cached run) and then, for ``--minutes`` from the moment its upload shows,
changes parameters with a pause of 1-3 s between changes: column 1's chunk size, then column
2's strategy (semantic among them), in turn.

While the sessions run, one more session uploads the three hostile files of
``tests/test_app_limits.py`` (5 MB of one letter, a DOCX that inflates to a gigabyte, a PDF of
10,000 empty pages) and times how long each takes to show its outcome.

It prints:
  rss         the server's resident memory (with its child processes) every ~10 s
  latency     per interaction, from the change to the updated document view (p50/p90/max,
              per kind of interaction and overall)
  errors      page errors, Streamlit exception boxes, error boxes and interactions that timed out
              (expected: 0)
  memory      whether the RSS is flat after warm-up: the slope of a least-squares line over the
              second half of the samples, in MB per minute, and that half's rise
  hostile     seconds from each hostile upload to its message
  load        the machine's load average at the start and the end (the numbers depend on it)

Exit status 1 when an error was seen. Skips (exit 0, with the reason) without Chromium or playwright.

    .venv/bin/python bench/bench_soak.py [--sessions 30] [--minutes 5] [--no-hostile]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

REPO = Path(__file__).resolve().parent.parent
for _path in (REPO, REPO / "tests"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from support.browser import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    VIEWPORT,
    WHOLE_PAGE_JS,
    ServerError,
    _wait_healthy,
    free_port,
    stop,
)  # fmt: skip

SAMPLES = REPO / "chunkviz/sample_docs"
REALDOCS = REPO.parent / "shared" / "realdocs"
#: Documents longer than this are cut (at a paragraph) so that 30 sessions fit on a small machine.
MAX_DOCUMENT_CHARS = 40_000
SIZES = [80, 120, 200, 300, 160, 240]
COLUMN2_STRATEGIES = ["sentences", "semantic", "paragraphs", "recursive", "headings", "semantic"]
COLUMN3 = {True: "semantic", False: "paragraphs"}
#: An interaction that has not updated the view after this long counts as an error.
INTERACTION_TIMEOUT_S = 300
RSS_EVERY_S = 10
ROOT_JS = "document.querySelector('[data-testid=stBidiComponentIsolated]')?.shadowRoot?.querySelector('.cvd-root')"
#: What the document view shows: per column, its header ("2. sentences") and chunk ends.
SIGNATURE_JS = f"""() => {{
    const root = {ROOT_JS};
    if (!root) return null;
    const labels = [...root.querySelectorAll('.cvd-label')].map(e => e.textContent);
    return [...root.querySelectorAll('.cv-doc')].map((d, i) => (labels[i] || d.dataset.strategy) + ':' +
        [...d.querySelectorAll('[data-chunk-index]')].map(e => e.dataset.end).join(',')).join('|');
}}"""
RUNNING = '[data-testid="stStatusWidget"]'
EXCEPTION_BOX = '[data-testid="stException"]'
ERROR_BOX = '[data-testid="stAlertContentError"]'


# ----------------------------------------------------------------------------- documents
def base_documents() -> list[tuple[str, str]]:
    """(name, text) of the prose samples and the real documents (when the shared folder exists)."""
    paths = [p for p in sorted(SAMPLES.iterdir()) if p.suffix in (".md", ".txt") and p.name != "README.md"]
    if REALDOCS.is_dir():
        paths += [
            p
            for p in sorted(REALDOCS.iterdir())
            if p.suffix in (".md", ".txt", ".rst") and p.name not in ("SOURCES.md", "README.md")
        ]
    return [(p.name, p.read_text(encoding="utf-8", errors="replace")) for p in paths]


def variant(name: str, text: str, session: int) -> tuple[str, bytes]:
    """Session ``session``'s own version of a document: paragraphs rotated by the session
    number, a first line naming the session, at most MAX_DOCUMENT_CHARS characters."""
    paragraphs = [p for p in text.split("\n\n") if p.strip()]
    k = session % max(len(paragraphs), 1)
    rotated = paragraphs[k:] + paragraphs[:k]
    out, size = [f"Session {session} reads {name}."], 0
    for paragraph in rotated:
        if size + len(paragraph) > MAX_DOCUMENT_CHARS and len(out) > 1:
            break
        out.append(paragraph)
        size += len(paragraph) + 2
    stem, suffix = os.path.splitext(name)
    return f"{stem}.session{session}{suffix if suffix in ('.md', '.txt') else '.txt'}", (
        "\n\n".join(out) + "\n"
    ).encode("utf-8")


# ----------------------------------------------------------------------------- the server and its memory
def start_server(
    log_dir: Path, cache_dir: Path, options: list[str] | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    """``streamlit run app.py`` on loopback; ``options`` are ``section.name=value`` config settings."""
    port = free_port()
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", CHUNKVIZ_CACHE_DIR=str(cache_dir))
    env.pop("CHUNKVIZ_ALLOW_DOWNLOAD", None)
    command = [
        sys.executable, "-m", "streamlit", "run", str(REPO / "app.py"),
        "--server.headless", "true", "--server.port", str(port), "--server.address", "127.0.0.1",
        "--server.maxUploadSize", "5", "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
    ]  # fmt: skip
    for option in options or []:
        name, _, value = option.partition("=")
        command += [f"--{name}", value]
    log_path = log_dir / "server.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            command, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(process, url, log_path)
    except ServerError:
        stop(process)
        raise
    return process, url


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                ppid = int(handle.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        tree.setdefault(ppid, []).append(int(entry))
    return tree


def _family(pid: int) -> list[int]:
    tree, found, todo = _children(), [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(tree.get(current, []))
    return found


def rss_mb(pid: int) -> float:
    """Resident memory of ``pid`` and all its descendants, in MB (from /proc/PID/status)."""
    total = 0
    for member in _family(pid):
        try:
            with open(f"/proc/{member}/status") as handle:
                for line in handle:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of ``pid`` and its descendants so far (from /proc/PID/stat)."""
    ticks = 0
    for member in _family(pid):
        try:
            with open(f"/proc/{member}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])  # utime, stime
        except (OSError, IndexError, ValueError):
            pass
    return ticks / os.sysconf("SC_CLK_TCK")


# ----------------------------------------------------------------------------- what was seen
@dataclass
class Report:
    began: float = field(default_factory=time.monotonic)
    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    rss: list[tuple[float, float]] = field(default_factory=list)
    cpu: list[tuple[float, float]] = field(default_factory=list)  # (elapsed, the server's CPU seconds so far)
    hostile: list[tuple[str, float, str]] = field(default_factory=list)
    hostile_running: bool = False
    during_hostile: list[float] = field(
        default_factory=list
    )  # other sessions' changes begun while a hostile upload ran
    client_cpu: float = 0.0  # the benchmark process's own CPU seconds (the ws client)
    failed: dict[str, int] = field(default_factory=dict)  # interactions that ended in an error, by kind

    def elapsed(self) -> float:
        return time.monotonic() - self.began

    def latency(self, kind: str, seconds: float) -> None:
        self.latencies.setdefault(kind, []).append(seconds)

    def error(self, session: int, what: str) -> None:
        self.errors.append(f"session {session}: {what}")
        print(f"  [{self.elapsed():6.0f} s] ERROR session {session}: {what}", flush=True)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def slope_per_minute(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of (seconds, MB), in MB per minute."""
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    var = sum((x - mx) ** 2 for x in xs)
    return 60 * sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / var if var else 0.0


# ----------------------------------------------------------------------------- one session
async def signature(page: Any) -> str | None:
    try:
        return await page.evaluate(SIGNATURE_JS)
    except Exception:  # noqa: BLE001 - the view is being replaced
        return None


async def settled(page: Any, before: str | None, timeout: float) -> bool:
    """Until the document view differs from ``before`` and no script runs; False on timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        now = await signature(page)
        if now is not None and now != before and await page.locator(RUNNING).count() == 0:
            return True
        await asyncio.sleep(0.25)
    return False


async def check_page(page: Any, session: int, report: Report, seen: dict[str, int]) -> None:
    """Report page errors and Streamlit exception or error boxes that appeared since the last check."""
    while len(page.page_errors) > seen["page"]:
        report.error(session, f"page error: {page.page_errors[seen['page']][:200]}")
        seen["page"] += 1
    for selector, kind in ((EXCEPTION_BOX, "exception box"), (ERROR_BOX, "error box")):
        boxes = page.locator(selector)
        count = await boxes.count()
        if count and count != seen.get(kind, 0):
            text = (await boxes.first.inner_text())[:200].replace("\n", " ")
            report.error(session, f"{kind}: {text}")
        seen[kind] = count


async def new_page(browser: Any) -> Any:
    context = await browser.new_context(viewport=VIEWPORT)
    page = await context.new_page()
    page.set_default_timeout(INTERACTION_TIMEOUT_S * 1000)
    page.page_errors = []
    page.on("pageerror", lambda e: page.page_errors.append(str(e)))
    page.on("dialog", lambda d: asyncio.ensure_future(d.dismiss()))
    return page


async def open_app(page: Any, url: str, semantic: bool, session: int) -> None:
    query = {
        "n": "3",
        "s0": "fixed_tokens",
        "s1": ["recursive", "sentences", "paragraphs"][session % 3],
        "s2": COLUMN3[semantic],
    }
    await page.goto(url + "/?" + urllib.parse.urlencode(query))
    await page.wait_for_selector("[data-chunk-index]")


async def upload(page: Any, name: str, data: bytes, mime: str) -> None:
    await page.locator('[data-testid="stSidebar"] [role="radiogroup"] label').filter(has_text="Upload").first.click()
    file_input = page.locator(
        '[data-testid="stSidebar"] .st-key-upload input[type="file"]'
    )  # the document's (not "Your chunks")
    await file_input.wait_for(state="attached")
    await file_input.set_input_files({"name": name, "mimeType": mime, "buffer": data})


def column_expander(page: Any, number: int) -> Any:
    return (
        page.locator('[data-testid="stSidebar"] [data-testid="stExpander"]').filter(has_text=f"Column {number}").first
    )


async def set_chunk_size(page: Any, value: int) -> None:
    field = column_expander(page, 1).get_by_role("spinbutton", name="chunk size", exact=True)
    await field.fill(str(value))
    await field.press("Enter")


async def set_strategy(page: Any, column: int, strategy: str) -> None:
    expander = column_expander(page, column)
    if (
        await expander.locator('[data-testid="stSelectbox"]').count() == 0
        or not await expander.locator('[data-testid="stSelectbox"]').first.is_visible()
    ):
        await expander.locator("summary").first.click()
    box = expander.locator('[data-testid="stSelectbox"]').first
    await box.click()
    await page.keyboard.type(strategy)
    await page.keyboard.press("Enter")


def next_strategy(shown: str | None, step: int, session: int) -> str:
    """Column 2's next strategy in the session's cycle, never the one it shows (``2. name:``)."""
    current = next(
        (part.split(":")[0].split(". ", 1)[-1] for part in (shown or "").split("|") if part.startswith("2. ")), None
    )
    for offset in range(len(COLUMN2_STRATEGIES)):
        strategy = COLUMN2_STRATEGIES[(step // 2 + session + offset) % len(COLUMN2_STRATEGIES)]
        if strategy != current:
            return strategy
    return COLUMN2_STRATEGIES[0]


async def run_session(
    browser: Any, url: str, session: int, document: tuple[str, bytes], minutes: float, report: Report
) -> None:
    """Open the app, upload the session's document, then change parameters for ``minutes``."""
    semantic = session % 3 == 0
    rng = random.Random(session)
    page = await new_page(browser)
    seen = {"page": 0}
    try:
        began = time.monotonic()
        await open_app(page, url, semantic, session)
        report.latency("open", time.monotonic() - began)
        before = await signature(page)
        began = time.monotonic()
        await upload(page, document[0], document[1], "text/markdown" if document[0].endswith(".md") else "text/plain")
        if await settled(page, before, INTERACTION_TIMEOUT_S):
            report.latency("upload", time.monotonic() - began)
        else:
            report.error(session, "the upload did not show in the document view")
        await check_page(page, session, report, seen)
        step = 0
        until = time.monotonic() + 60 * minutes
        while time.monotonic() < until:
            await asyncio.sleep(rng.uniform(1, 3))
            before = await signature(page)
            began = time.monotonic()
            if step % 2 == 0:
                kind = "chunk size"
                await set_chunk_size(page, SIZES[(step // 2 + session) % len(SIZES)])
            else:
                strategy = next_strategy(before, step, session)
                kind = f"strategy ({'semantic' if strategy == 'semantic' else 'other'})"
                await set_strategy(page, 2, strategy)
            during_hostile = report.hostile_running
            if await settled(page, before, INTERACTION_TIMEOUT_S):
                report.latency(kind, time.monotonic() - began)
                if during_hostile:
                    report.during_hostile.append(time.monotonic() - began)
            else:
                report.error(session, f"{kind}: the view did not update in {INTERACTION_TIMEOUT_S} s")
            await check_page(page, session, report, seen)
            step += 1
    except Exception as exc:  # noqa: BLE001 - a session that broke is an error to report, not a crash
        report.error(session, f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}")
    finally:
        await page.context.close()


async def hostile_session(browser: Any, url: str, start_after: float, report: Report) -> None:
    """Upload the hostile files one after the other, timing each until its outcome shows."""
    from test_app_limits import hostile_uploads

    files = hostile_uploads()
    await asyncio.sleep(start_after)
    page = await new_page(browser)
    try:
        await page.goto(url)
        await page.wait_for_selector("[data-chunk-index]")
        await page.wait_for_function(WHOLE_PAGE_JS)  # after a new visitor's first screen
        report.hostile_running = True
        for name, (data, mime) in files.items():
            before = await signature(page)
            began = time.monotonic()
            await upload(page, name, data, mime)
            outcome = await hostile_outcome(page, name, before)
            seconds = time.monotonic() - began
            report.hostile.append((name, seconds, outcome))
            print(f"  [{report.elapsed():6.0f} s] hostile {name}: {seconds:.1f} s -> {outcome}", flush=True)
            if outcome.startswith("nothing after"):
                report.error(-1, f"hostile {name}: {outcome}")
            if await page.locator(EXCEPTION_BOX).count():
                report.error(-1, f"hostile {name}: an exception box")
    except Exception as exc:  # noqa: BLE001
        report.error(-1, f"hostile session: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}")
    finally:
        report.hostile_running = False
        await page.context.close()


async def hostile_outcome(page: Any, name: str, before: str | None) -> str:
    """What the upload of ``name`` ended with: an error or warning naming the problem, or chunks."""
    deadline = time.monotonic() + INTERACTION_TIMEOUT_S
    while time.monotonic() < deadline:
        await asyncio.sleep(0.25)
        if await page.locator(RUNNING).count():
            continue
        for selector in (ERROR_BOX, '[data-testid="stAlertContentWarning"]'):
            boxes = page.locator(selector)
            for i in range(await boxes.count()):
                text = " ".join((await boxes.nth(i).inner_text()).split())
                if name in text or "nothing to chunk" in text or "stopped after" in text:
                    return text[:160]
        now = await signature(page)
        if now is not None and now != before:
            return "chunked: " + ", ".join(
                f"{part.split(':')[0]} {len(part.split(':')[1].split(','))} chunks" for part in now.split("|")
            )
    return f"nothing after {INTERACTION_TIMEOUT_S} s"


# ----------------------------------------------------------------------------- the run
def sample(pid: int, report: Report, note: str = "") -> None:
    """One line: the server's RSS, its CPU share since the last line (100% = one core), the load."""
    mb, cpu, now = rss_mb(pid), cpu_seconds(pid), report.elapsed()
    share = 100 * (cpu - report.cpu[-1][1]) / max(now - report.cpu[-1][0], 1e-6) if report.cpu else 0.0
    report.rss.append((now, mb))
    report.cpu.append((now, cpu))
    print(
        f"  [{now:6.0f} s] server RSS {mb:7.1f} MB  CPU {share:4.0f}%  load {os.getloadavg()[0]:.1f}{note}", flush=True
    )


async def sample_rss(pid: int, done: asyncio.Event, report: Report, every_s: float = RSS_EVERY_S) -> None:
    while not done.is_set():
        sample(pid, report)
        try:
            await asyncio.wait_for(done.wait(), every_s)
        except asyncio.TimeoutError:
            pass
    sample(pid, report, " (all sessions done)")


async def soak(args: argparse.Namespace, url: str, pid: int, report: Report) -> None:
    from playwright.async_api import async_playwright

    bases = base_documents()
    documents = [variant(*bases[k % len(bases)], k) for k in range(args.sessions)]
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            done = asyncio.Event()
            sampler = asyncio.create_task(sample_rss(pid, done, report))
            tasks = []
            if not args.no_hostile:  # once every session has arrived, early: the memory is judged on the second half
                tasks.append(
                    asyncio.create_task(hostile_session(browser, url, args.sessions * args.arrival + 10, report))
                )
            for k in range(args.sessions):  # users arrive one after another
                tasks.append(asyncio.create_task(run_session(browser, url, k, documents[k], args.minutes, report)))
                await asyncio.sleep(args.arrival)
            await asyncio.gather(*tasks)
            done.set()
            await sampler
        finally:
            await browser.close()


# ----------------------------------------------------------------------------- the websocket client (--client ws)
#: Bounds of a websocket soak (it stops by itself: so many sessions, so long, each wait timed out).
MAX_WS_SESSIONS = 300
MAX_WS_DURATION_S = 3600
WS_SAMPLES = ["field_station_handbook.md", "api_guide.md", "topic_shifts.txt", "contract_excerpt.txt",
              "support_call_transcript.txt", "inventory.py"]  # fmt: skip
WS_COLUMN2 = ["recursive", "sentences", "semantic", "paragraphs", "headings"]
WS_PERCENTILES = [90.0, 85.0, 95.0, 80.0]
WS_MAX_TOKENS = [96, 160, 200, 128]
DOCVIEW = "chunkviz_docview"


def ws_columns(session: int) -> list[str]:
    """Session ``session``'s three strategies: fixed_tokens, a rotating second one, and semantic
    for every third session (else paragraphs) in the third column."""
    return ["fixed_tokens", WS_COLUMN2[session % len(WS_COLUMN2)], COLUMN3[session % 3 == 0]]


def plain_link(session: int) -> bool:
    """Whether session ``session`` opens the app's plain link, as a class given the link does: a new
    visitor's first screen, then the whole page (the default sample and columns); one in five of the
    sessions without a semantic column."""
    return session % 5 == 1 and session % 3 != 0


def ws_url(url: str, session: int) -> str:
    """The app's URL with session ``session``'s configuration (the app's own share format), or the
    plain link (:func:`plain_link`)."""
    from chunkviz.diagnostics.compare import ColumnConfig, config_to_query

    if plain_link(session):
        return url + "/"
    sample = WS_SAMPLES[session % len(WS_SAMPLES)]
    query = config_to_query(sample, "cl100k_base", [ColumnConfig(name) for name in ws_columns(session)])
    return url + "/?" + urllib.parse.urlencode(query)


def _other(values: list[Any], current: Any, start: int) -> Any:
    """The first of ``values`` from ``start`` on (cyclically) that is not ``current``."""
    for offset in range(len(values)):
        if values[(start + offset) % len(values)] != current:
            return values[(start + offset) % len(values)]
    return values[0]


def ws_change(session: Any, number: int, step: int) -> tuple[str, str, Any]:
    """(kind, widget key, value) of the session's ``step``-th change: column 1's chunk size, column 2's
    strategy, column 3's semantic percentile or paragraphs' max tokens, in turn."""
    turn = step // 3 + number
    if step % 3 == 0:
        key = "col0.fixed_tokens.chunk_size"
        return "chunk size", key, _other(SIZES, session.value(key), turn)
    if step % 3 == 1:
        strategy = _other(WS_COLUMN2, session.value("col1.strategy"), turn)
        return f"strategy ({'semantic' if strategy == 'semantic' else 'other'})", "col1.strategy", strategy
    if ws_columns(number)[2] == "semantic":
        key = "col2.semantic.percentile"
        return "semantic percentile", key, _other(WS_PERCENTILES, session.value(key), turn)
    key = "col2.paragraphs.max_tokens"
    return "max tokens", key, _other(WS_MAX_TOKENS, session.value(key), turn)


def ws_record(report: Report, number: int, kind: str, result: Any, session: Any) -> None:
    """The run's time under ``kind``, and as errors its exception and error boxes or a missing view."""
    report.latency(kind, result.seconds)
    for text in (*result.exceptions, *result.errors):
        report.error(number, f"{kind}: {text[:200]}")
    if not session.components(DOCVIEW):
        report.error(number, f"{kind}: no document view on the page after the run ({result.status})")


async def ws_session(url: str, number: int, args: argparse.Namespace, report: Report) -> None:
    """One student: open the app from the session's URL, then change a parameter every
    ``args.interval`` s for ``args.duration`` s (right after the last one when it took longer)."""
    from chunkviz.ui.wsclient import Session, WsClientError

    kind = "open plain link" if plain_link(number) else "open"
    try:
        async with Session.open(ws_url(url, number), timeout_s=args.timeout) as session:
            ws_record(report, number, kind, await session.run(), session)
            for column in (1, 2):  # a closed column draws no control: open the two it changes, as a student does
                kind = "open a column"
                ws_record(report, number, kind, await session.set(f"col{column}.open", True), session)
            until = time.monotonic() + args.duration
            next_at, step = time.monotonic() + args.interval, 0
            while next_at < until:
                await asyncio.sleep(max(0.0, next_at - time.monotonic()))
                kind, key, value = ws_change(session, number, step)
                ws_record(report, number, kind, await session.set(key, value), session)
                step += 1
                next_at = max(next_at + args.interval, time.monotonic())
    except WsClientError as exc:
        report.failed[kind] = report.failed.get(kind, 0) + 1
        report.error(number, f"{kind}: {exc}")


async def ws_soak(args: argparse.Namespace, url: str, pid: int, report: Report) -> None:
    """The sessions, arriving one per ``args.arrival`` s, while the server's RSS and CPU are sampled."""
    from chunkviz.ui.wsclient import visit

    warm_ups = [] if args.no_warm_up else [("the default page", url)]
    if args.warm_semantic:
        warm_ups.append(("session 0's page, a semantic column", ws_url(url, 0)))
    for what, address in warm_ups:
        began = time.monotonic()
        result = await visit(address, args.timeout)
        print(f"  warm-up ({what}): {time.monotonic() - began:.1f} s, {result.status}", flush=True)
    report.began = time.monotonic()
    done = asyncio.Event()
    sampler = asyncio.create_task(sample_rss(pid, done, report, args.sample_every))
    tasks = []
    for number in range(args.sessions):
        tasks.append(asyncio.create_task(ws_session(url, number, args, report)))
        await asyncio.sleep(args.arrival)
    bound = args.duration + 2 * args.timeout + 30
    finished, late = await asyncio.wait(tasks, timeout=bound)
    for task in late:
        task.cancel()
        report.error(-1, f"a session was still running {bound:.0f} s after the last arrival (cancelled)")
    done.set()
    await sampler


def summary(args: argparse.Namespace, report: Report, load_before: tuple[float, float, float]) -> None:
    length = (
        f"{args.duration:g} s, a change every {args.interval:g} s" if args.client == "ws" else f"{args.minutes:g} min"
    )
    print(f"\n{args.sessions} {args.client} sessions, {length}; load average before {load_before[0]:.1f}/{load_before[1]:.1f}, "
          f"after {os.getloadavg()[0]:.1f}/{os.getloadavg()[1]:.1f} (1/5 min) on {os.cpu_count()} cores")  # fmt: skip
    print("\nlatency (s)              n     p50     p90     max  failed (not in the figures)")
    every: list[float] = []
    for kind in sorted(set(report.latencies) | set(report.failed)):
        values = report.latencies.get(kind, [])
        every += values if kind not in ("open", "upload") else []
        failed = f"{report.failed[kind]:7d}" if kind in report.failed else ""
        if values:
            print(f"  {kind:<20} {len(values):4d} {percentile(values, 0.5):7.2f} {percentile(values, 0.9):7.2f} "
                  f"{max(values):7.2f}{failed}")  # fmt: skip
        else:
            print(f"  {kind:<20} {0:4d} {'-':>7} {'-':>7} {'-':>7}{failed}")
    if report.during_hostile:
        values = report.during_hostile
        print(
            f"  {'  while hostile ran':<20} {len(values):4d} {percentile(values, 0.5):7.2f} {percentile(values, 0.9):7.2f} {max(values):7.2f}"
        )
    if every:
        failed_changes = sum(n for kind, n in report.failed.items() if kind not in ("open", "upload"))
        print(f"  {'all changes':<20} {len(every):4d} {percentile(every, 0.5):7.2f} {percentile(every, 0.9):7.2f} "
              f"{max(every):7.2f}{f'{failed_changes:7d}' if failed_changes else ''}")  # fmt: skip
    if report.rss:
        second_half = [p for p in report.rss if p[0] >= report.rss[-1][0] / 2]
        mbs = [mb for _, mb in report.rss]
        print(f"\nserver RSS: start {mbs[0]:.0f} MB, peak {max(mbs):.0f} MB, end {mbs[-1]:.0f} MB")
        if len(second_half) >= 3:
            slope = slope_per_minute(second_half)
            rise = second_half[-1][1] - second_half[0][1]
            flat = slope * (second_half[-1][0] - second_half[0][0]) / 60 < max(50.0, 0.05 * statistics.fmean(mbs))
            print(f"second half: slope {slope:+.1f} MB/min, {second_half[0][1]:.0f} -> {second_half[-1][1]:.0f} MB ({rise:+.0f} MB): "
                  f"{'flat' if flat else 'GROWING'} after warm-up")  # fmt: skip
        first_half = [mb for t, mb in report.rss if t < report.rss[-1][0] / 2]
        if first_half and second_half:
            later = [mb for _, mb in second_half]
            print(f"RSS by half: first mean {statistics.fmean(first_half):.0f} MB / max {max(first_half):.0f} MB, "
                  f"second mean {statistics.fmean(later):.0f} MB / max {max(later):.0f} MB")  # fmt: skip
    if len(report.cpu) >= 2:
        (t0, c0), (t1, c1) = report.cpu[0], report.cpu[-1]
        print(
            f"server CPU: {c1 - c0:.0f} s in {t1 - t0:.0f} s ({100 * (c1 - c0) / max(t1 - t0, 1e-6):.0f}% of one core on average)"
        )
        interactions = sum(len(v) for v in report.latencies.values())
        if interactions:
            print(
                f"server CPU per interaction: {(c1 - c0) / interactions:.3f} s ({interactions} interactions, opens included)"
            )
    if report.client_cpu:
        print(f"this client's own CPU: {report.client_cpu:.0f} s")
    if report.hostile:
        print("\nhostile uploads (while the others ran):")
        for name, seconds, outcome in report.hostile:
            print(f"  {name:<16} {seconds:6.1f} s  {outcome}")
    timeouts = sum(
        "Timeout" in e or "did not" in e or "nothing after" in e or "no script_finished" in e for e in report.errors
    )
    print(
        f"\nerrors: {len(report.errors)} ({timeouts} of them timeouts; the rest page errors, exception or error boxes, server tracebacks)"
    )
    for line in report.errors[:40]:
        print(f"  {line}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--client",
        choices=["browser", "ws"],
        default="browser",
        help="browser: Chromium pages (default); ws: Streamlit's websocket protocol, no browser",
    )
    parser.add_argument("--sessions", type=int, default=30, help="sessions (default 30)")
    parser.add_argument(
        "--minutes",
        type=float,
        default=5,
        help="how long each session changes parameters once its upload shows (default 5)",
    )
    parser.add_argument("--arrival", type=float, default=1.0, help="seconds between two sessions' arrivals (default 1)")
    parser.add_argument("--no-hostile", action="store_true", help="skip the hostile uploads (browser)")
    parser.add_argument(
        "--interval", type=float, default=5.0, help="ws: seconds between a session's changes (default 5)"
    )
    parser.add_argument(
        "--duration", type=float, default=180.0, help="ws: seconds each session makes changes (default 180)"
    )
    parser.add_argument(
        "--timeout", type=float, default=120.0, help="ws: seconds one run may take before it is an error"
    )
    parser.add_argument("--sample-every", type=float, default=5.0, help="ws: seconds between RSS and CPU samples")
    parser.add_argument("--no-warm-up", action="store_true", help="ws: no default-page visit before the sessions")
    parser.add_argument(
        "--warm-semantic",
        action="store_true",
        help="ws: also visit a page with a semantic column before the sessions (loads the models)",
    )
    parser.add_argument(
        "--server-option",
        action="append",
        default=[],
        metavar="SECTION.NAME=VALUE",
        help="a Streamlit config option for the server, e.g. runner.postScriptGC=false (repeatable)",
    )
    args = parser.parse_args(argv)
    if args.client == "ws":
        return main_ws(args)
    if not CHROMIUM.exists():
        print(f"skipped: Chromium not found at {CHROMIUM}")
        return 0
    try:
        import playwright.async_api  # noqa: F401
    except ImportError:
        print("skipped: the playwright package is not installed")
        return 0
    load_before = os.getloadavg()
    report = Report()
    with soak_server(args.server_option, report) as (process, url):
        print(f"server {url} (pid {process.pid}); {args.sessions} sessions for {args.minutes:g} min", flush=True)
        asyncio.run(soak(args, url, process.pid, report))
    summary(args, report, load_before)
    return 1 if report.errors else 0


@contextlib.contextmanager
def soak_server(server_options: list[str], report: Report) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """The app's server in a temporary folder (its own cache), stopped at the end; the
    tracebacks in its log become the report's errors."""
    with tempfile.TemporaryDirectory(prefix="chunkviz-soak-") as tmp:
        process, url = start_server(Path(tmp), Path(tmp) / "cache", server_options)
        try:
            yield process, url
        finally:
            stop(process)
            log = (Path(tmp) / "server.log").read_text(errors="replace")
            tracebacks = log.count("Traceback")
            if tracebacks:
                report.errors.append(f"server log: {tracebacks} tracebacks")
                print(log[-3000:])


def main_ws(args: argparse.Namespace) -> int:
    """The websocket soak: bounded sessions and duration, one server, the summary; 1 on an error."""
    if not 1 <= args.sessions <= MAX_WS_SESSIONS or not 0 < args.duration <= MAX_WS_DURATION_S or args.interval <= 0:
        print(f"--sessions must be 1..{MAX_WS_SESSIONS}, --duration 0..{MAX_WS_DURATION_S} s, --interval above 0")
        return 2
    load_before = os.getloadavg()
    report = Report()
    with soak_server(args.server_option, report) as (process, url):
        options = f" with {', '.join(args.server_option)}" if args.server_option else ""
        print(f"server {url} (pid {process.pid}){options}; {args.sessions} websocket sessions, a change every "
              f"{args.interval:g} s for {args.duration:g} s", flush=True)  # fmt: skip
        own = os.times()
        asyncio.run(ws_soak(args, url, process.pid, report))
        now = os.times()
        report.client_cpu = (now.user - own.user) + (now.system - own.system)
    summary(args, report, load_before)
    return 1 if report.errors else 0


if __name__ == "__main__":
    sys.exit(main())
