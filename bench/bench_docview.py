#!/usr/bin/env python
"""Document view benchmark ("draw only what is seen", issue 20): payload bytes, DOM elements and
time to the first chunk in Chromium, for the default sample (3 columns) and a 5 MB document
(4 columns), against a bare Streamlit page in the same browser and run.

The app is bench/docview_app.py (the document view alone, columns rendered as the app renders
them), served by ``streamlit run`` on 127.0.0.1; Debian's Chromium through playwright at 1500x1100.
Per case: one warm-up visit (computes and caches the chunkings), then ``--visits`` new visitors,
each timed from ``goto`` to the first chunk element visible. Reported, median over the visits:

  first chunk      seconds from navigation to the first chunk drawn (bare page: to its title)
  ratio            first chunk / bare page's first text (same run)
  websocket        bytes the page received over Streamlit's websocket until the first chunk
  payload          bytes of the document view's data (UTF-8 JSON, what Python sends it), and per
                   column (its page table, the HTML of the pages near its window, its ribbon cuts)
  DOM now          elements in the page: the document plus the component's shadow root
  DOM whole        the same page if every column's whole HTML were drawn (one element per tag;
                   docview_app.py writes the columns' element count under the view)
  end              seconds from a ribbon click at 99% to every column drawn there (the pages there
                   are asked for: a window request and the rerun that sends them)
  payload frame    seconds from navigation to the largest websocket frame received (the payload)
  first update     milliseconds of the view's first update (cutting pages, drawing the first ones)

To measure another version, run that version's own copy of this script from an export of its tree
(``git archive <commit> | tar -x -C /tmp/old`` then ``.venv/bin/python /tmp/old/bench/bench_docview.py``):
``PYTHONPATH`` does not switch trees, because ``python -m streamlit`` puts the script's repository
first on the path.

    .venv/bin/python bench/bench_docview.py [--mb 5] [--visits 3] [--compress] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "tests"))

from support.browser import ROOT_JS, VIEWPORT, chromium, streamlit_server, wait_for  # noqa: E402

APP = "bench/docview_app.py"
FIRST_CHUNK = ".cvd-box [data-chunk-index]"
WARMUP_TIMEOUT_S = 900

DOM_JS = f"""() => {{
  const root = {ROOT_JS};
  const shadow = root.getRootNode();
  const now = document.querySelectorAll('*').length + shadow.querySelectorAll('*').length;
  const boxes = [...root.querySelectorAll('.cvd-box')].reduce((n, b) => n + b.querySelectorAll('*').length, 0);
  const found = /whole HTML: ([\\d,]+) elements/.exec(document.body.innerText);
  const whole = found ? Number(found[1].replace(/,/g, '')) : NaN;
  const bytes = (x) => new TextEncoder().encode(JSON.stringify(x)).length;
  const v = root.__cvd;
  const payload = bytes(v.data);
  const columns = v.data.columns.map(c => bytes(c));
  const cuts = v.data.columns.map(c => bytes(c.cuts));
  const pages = v.columns.map(c => c.pages ? [c.pages.filter(p => p.drawn).length, c.pages.length] : [1, 1]);
  return {{now, whole: now - boxes + whole, payload, columns, cuts, pages, length: v.data.length,
          requests: v.stats.requests ?? null, held: v.store ? v.store.size : null}};
}}"""


def visit(browser: Any, url: str, selector: str, timeout_s: float) -> dict[str, Any]:
    """A new visitor: seconds to ``selector`` visible, websocket bytes received until then, the page."""
    page = browser.new_context(
        viewport=VIEWPORT
    ).new_page()  # a new visitor: a context of its own (closed by the caller)
    page.set_default_timeout(timeout_s * 1000)
    page.page_errors = []
    page.on("pageerror", lambda e: page.page_errors.append(str(e)))
    received = [0]
    largest = [0, 0.0]  # bytes and arrival (seconds after navigation) of the largest frame

    def on_frame(payload: Any) -> None:
        received[0] += len(payload)
        if len(payload) > largest[0]:
            largest[:] = [len(payload), time.perf_counter() - began]

    page.on("websocket", lambda ws: ws.on("framereceived", on_frame))
    began = time.perf_counter()
    page.goto(url)
    page.wait_for_selector(selector, timeout=timeout_s * 1000)
    seconds = time.perf_counter() - began
    return {"seconds": seconds, "ws_bytes": received[0], "largest_frame_s": largest[1], "page": page}


def ribbon_to_end(page: Any) -> float:
    """Seconds from a click at 99% of the first ribbon track to every column showing a chunk there."""
    track = page.evaluate(f"() => {{ const r = {ROOT_JS}.querySelector('.cvd-track').getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; }}")  # fmt: skip
    began = time.perf_counter()
    page.mouse.click(track[0] + track[2] * 0.99, track[1] + track[3] / 2)
    at_end = f"""() => {{ const v = {ROOT_JS}.__cvd; const target = v.data.length * 0.99;
      return v.columns.every(c => [...c.box.querySelectorAll('.cv-c[data-start]')].some(e => +e.dataset.start <= target && target < +e.dataset.end)); }}"""  # fmt: skip
    page.wait_for_function(at_end, polling="raf", timeout=120_000)
    return time.perf_counter() - began


def measure_case(browser: Any, url: str, visits: int) -> dict[str, Any]:
    warm = visit(browser, url, FIRST_CHUNK, WARMUP_TIMEOUT_S)
    warm["page"].context.close()
    rows = []
    for _ in range(visits):
        v = visit(browser, url, FIRST_CHUNK, WARMUP_TIMEOUT_S)
        page = v.pop("page")
        wait_for(lambda p=page: p.evaluate(f"() => !!{ROOT_JS}.__cvd.data.columns"), "the payload")
        v.update(page.evaluate(DOM_JS))
        v["update_ms"] = page.evaluate(f"() => {ROOT_JS}.__cvd.stats.updateMs[0]")
        v["end_seconds"] = ribbon_to_end(page)
        at_end = page.evaluate(DOM_JS)
        v["dom_at_end"], v["payload_at_end"], v["requests"], v["held"] = (
            at_end["now"],
            at_end["columns"],
            at_end["requests"],
            at_end["held"],
        )
        if page.page_errors:
            raise SystemExit(f"page errors: {page.page_errors}")
        page.context.close()
        rows.append(v)
    return {
        "first_chunk_s": statistics.median(r["seconds"] for r in rows),
        "first_chunk_all_s": [round(r["seconds"], 2) for r in rows],
        "ws_bytes": statistics.median(r["ws_bytes"] for r in rows),
        "payload_bytes": rows[-1]["payload"],
        "column_bytes": rows[-1]["columns"],
        "cuts_bytes": rows[-1]["cuts"],
        "column_bytes_at_end": rows[-1]["payload_at_end"],
        "window_requests": rows[-1]["requests"],
        "pages_held": rows[-1]["held"],
        "dom_now": rows[-1]["now"],
        "dom_at_end": rows[-1]["dom_at_end"],
        "dom_whole": rows[-1]["whole"],
        "pages": rows[-1]["pages"],
        "length": rows[-1]["length"],
        "end_s": statistics.median(r["end_seconds"] for r in rows),
        "largest_frame_s": statistics.median(r["largest_frame_s"] for r in rows),
        "first_update_ms": statistics.median(r["update_ms"] for r in rows),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=float, default=5.0, help="size of the long document in megabytes (default 5)")
    parser.add_argument("--visits", type=int, default=3, help="timed visits per case (default 3)")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON here")
    parser.add_argument(
        "--compress", action="store_true", help="serve with server.enableWebsocketCompression (permessage-deflate)"
    )
    args = parser.parse_args()
    from playwright import sync_api

    cases = {"sample x 3": "doc=sample&columns=3", f"{args.mb:g} MB x 4": f"doc=big&mb={args.mb:g}&columns=4"}
    out: dict[str, Any] = {"compress": args.compress}
    env = {"STREAMLIT_SERVER_ENABLE_WEBSOCKET_COMPRESSION": "true"} if args.compress else {}
    with (
        tempfile.TemporaryDirectory() as logs,
        streamlit_server(APP, Path(logs), env=env) as url,
        chromium(sync_api) as browser,
    ):
        bare = []
        for _ in range(args.visits + 1):
            v = visit(browser, url + "/?bare=1", "text=A bare page", 120)
            v.pop("page").context.close()
            bare.append(v["seconds"])
        out["bare_s"] = statistics.median(bare[1:])
        for name, query in cases.items():
            out[name] = measure_case(browser, f"{url}/?{query}", args.visits)
    print("websocket compression on" if args.compress else "websocket compression off (Streamlit's default)")
    print(f"bare page: first text {out['bare_s']:.2f} s (median of {args.visits})")
    header = f"{'case':<12} {'chars':>10} {'first chunk':>12} {'ratio':>6} {'websocket':>12} {'payload':>12} {'DOM now':>8} {'at end':>8} {'DOM whole':>10} {'end':>6}  pages drawn/total"  # fmt: skip
    print(header)
    for name in cases:
        r = out[name]
        print(f"{name:<12} {r['length']:>10,} {r['first_chunk_s']:>10.2f} s {r['first_chunk_s'] / out['bare_s']:>5.1f}x "
              f"{r['ws_bytes']:>12,} {r['payload_bytes']:>12,} {r['dom_now']:>8,} {r['dom_at_end']:>8,} {r['dom_whole']:>10,} "
              f"{r['end_s']:>5.2f}s  {r['pages']}")  # fmt: skip
    print(
        "where the time goes (median): the largest websocket frame (the payload) arrives, then the view's first update"
    )
    for name in cases:
        r = out[name]
        print(f"  {name:<12} payload frame at {r['largest_frame_s']:.2f} s, first update {r['first_update_ms']:.0f} ms")
    print(
        "payload per column (bytes of its JSON; of which ribbon cuts), first screen and after the ribbon click to 99%"
    )
    for name in cases:
        r = out[name]
        print(f"  {name:<12} first {[f'{b:,}' for b in r['column_bytes']]} (cuts {[f'{b:,}' for b in r['cuts_bytes']]}), "
              f"at the end {[f'{b:,}' for b in r['column_bytes_at_end']]}; window requests {r['window_requests']}, "
              f"pages held {r['pages_held']}")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
