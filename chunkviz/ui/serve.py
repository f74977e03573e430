"""Start the app's Streamlit server and warm it up before the first visitor.

``python -m chunkviz.ui.serve APP [--warm QUERY ...] -- STREAMLIT-RUN-OPTIONS [-- APP-ARGS]`` runs
``streamlit run APP`` in this process and, as soon as the server answers its health check, opens
one websocket session per page to warm (:func:`chunkviz.ui.wsclient.warm_up`, on loopback): the
tokenizers and models load and those pages' runs are cached while nobody waits. The pages are
``--warm`` query strings, by default :data:`WARM_PAGES`; ``--no-warm`` starts cold. A visitor who
arrives during the warm-up is served as without it (the caches fill either way).
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
import urllib.request
from typing import Sequence

from chunkviz.ui.wsclient import warm_up

#: How long the warm-up waits for the server's health check, and for each page's run.
HEALTH_TIMEOUT_S = 120
PAGE_TIMEOUT_S = 300
#: The default page (its sample and three columns) and the Tune view's demo: the page its "add a
#: semantic column" button opens from the default one (the topic-shifts sample, a fourth column).
WARM_PAGES = ("", "doc=topic_shifts.txt&n=4&s0=fixed_tokens&s1=recursive&s2=paragraphs&s3=semantic")


def option(options: Sequence[str], name: str, default: str) -> str:
    """The value of ``--name VALUE`` (or ``--name=VALUE``) among Streamlit's options."""
    for i, item in enumerate(options):
        if item == name and i + 1 < len(options):
            return options[i + 1]
        if item.startswith(name + "="):
            return item.split("=", 1)[1]
    return default


def loopback_url(options: Sequence[str]) -> str:
    """Where this machine reaches the server the options describe (whatever address it serves)."""
    return f"http://127.0.0.1:{option(options, '--server.port', '8501')}"


def wait_healthy(url: str, timeout_s: float = HEALTH_TIMEOUT_S) -> bool:
    """Poll the server's health endpoint until it answers ``ok`` (``False``: not within ``timeout_s``)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.read().strip() == b"ok":
                    return True
        except OSError:
            pass
        time.sleep(0.2)
    return False


def warm(url: str, queries: Sequence[str]) -> None:
    """Run each page (``url`` with each query string) once; say how long each took."""
    if not wait_healthy(url):
        print(f"chunkviz: the server at {url} did not answer; no warm-up", file=sys.stderr)
        return
    for query in queries:
        page = f"{url}/?{query}" if query else f"{url}/"
        began = time.perf_counter()
        try:
            result = warm_up(page, PAGE_TIMEOUT_S)
        except Exception as exc:  # noqa: BLE001 - a failed warm-up must not stop the server
            print(f"chunkviz: warming up {page} failed: {exc}", file=sys.stderr)
            continue
        state = "raised an exception" if result.raised else "ready"
        print(f"chunkviz: warmed up {query or 'the default page'} in {time.perf_counter() - began:.1f} s ({state})")


def parse(argv: Sequence[str]) -> tuple[str, list[str], list[str]]:
    """(app script, warm-up query strings, the options and arguments for ``streamlit run``)."""
    mine, _, streamlit_args = _split(argv)
    parser = argparse.ArgumentParser(prog="python -m chunkviz.ui.serve", description=__doc__.split("\n\n")[0])
    parser.add_argument("app", help="the Streamlit script (app.py)")
    parser.add_argument("--warm", action="append", metavar="QUERY", help="a page to run at start (default: the app's)")
    parser.add_argument("--no-warm", action="store_true", help="run no page at start")
    args = parser.parse_args(mine)
    pages = [] if args.no_warm else (args.warm if args.warm is not None else list(WARM_PAGES))
    return args.app, pages, streamlit_args


def _split(argv: Sequence[str]) -> tuple[list[str], str, list[str]]:
    """``argv`` at its first ``--``: (before, the separator, after)."""
    items = list(argv)
    if "--" not in items:
        return items, "", []
    at = items.index("--")
    return items[:at], "--", items[at + 1 :]


def main(argv: Sequence[str] | None = None) -> None:
    app, queries, streamlit_args = parse(sys.argv[1:] if argv is None else argv)
    if queries:
        url = loopback_url(streamlit_args)
        threading.Thread(target=warm, args=(url, queries), name="chunkviz-warm-up", daemon=True).start()
    from streamlit.web import cli  # noqa: PLC0415 - only when serving

    sys.argv = ["streamlit", "run", app, *streamlit_args]
    cli.main()


if __name__ == "__main__":
    main()
