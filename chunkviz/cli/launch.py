"""``chunkviz app [FILE] [--port N] [--address A]``: serve the app from the installed package.

After ``pip install "chunkviz[app]"`` there is no ``app.py`` to ``streamlit run``: this command runs
the page module inside the package (:mod:`chunkviz.ui.app`) through :mod:`chunkviz.ui.serve`, which
warms the server up before the first visitor. ``./dev app`` in a clone runs this command too.

The server's settings are :data:`SERVER_OPTIONS` (the same as the clone's ``.streamlit/config.toml``,
for ``streamlit run app.py``): no file watching, no full garbage collection after each run, uploads
capped, no usage statistics. It listens on loopback unless ``--address`` says otherwise.

It sits outside :mod:`chunkviz.ui` because the CLI imports it: it names the page by its file and
imports Streamlit (through :mod:`chunkviz.ui.serve`) only when serving, so the CLI parses its
arguments without the app extra.
"""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path
from typing import Any

from chunkviz.core.argtypes import whole_number
from chunkviz.core.errors import ChunkvizError

#: The page module Streamlit runs (a file inside the installed package).
APP_SCRIPT = Path(__file__).resolve().parent.parent / "ui" / "app.py"
LOOPBACK = ("127.0.0.1", "localhost", "::1")
DEFAULT_PORT = 8501
#: Streamlit options every served app gets (``section.name`` -> value); .streamlit/config.toml agrees.
SERVER_OPTIONS: dict[str, str] = {
    "server.headless": "true",
    # The app refuses documents over 5 MB itself; the server stops far larger uploads before reading them.
    "server.maxUploadSize": "5",
    # A served app never changes under its visitors (and a .venv in the folder overflowed inotify).
    "server.fileWatcherType": "none",
    # No full collection after every run: seconds per run with spaCy and torch loaded (Streamlit #8977).
    "runner.postScriptGC": "false",
    "browser.gatherUsageStats": "false",
    # Visitors see no developer menu ("Deploy", "Rerun", settings).
    "client.toolbarMode": "viewer",
}
#: While developing (``--watch``): rerun on every saved source file.
WATCH_OPTIONS: dict[str, str] = {"server.fileWatcherType": "auto", "server.runOnSave": "true"}


def add_app_parser(commands: Any) -> argparse.ArgumentParser:
    """Add ``app`` to the CLI's subparsers; returns its parser."""
    parser = commands.add_parser(
        "app",
        help="start the web app (needs the app extra: pip install 'chunkviz[app]')",
        description="Serve the chunkviz app on this machine (loopback) or, with --address, on a network. "
        "Ctrl-C stops it.",
    )
    parser.add_argument("file", nargs="?", type=Path, metavar="FILE", help="the document to open (default: a sample)")
    parser.add_argument(
        "--port", type=whole_number(1, 65535, "a port number"), default=DEFAULT_PORT, help="port (default 8501)"
    )
    parser.add_argument(
        "--address",
        default="127.0.0.1",
        metavar="A",
        help="address to listen on (default 127.0.0.1, this machine only; 0.0.0.0 serves every interface)",
    )
    parser.add_argument("--no-warm", action="store_true", help="do not run the default pages before the first visitor")
    parser.add_argument("--watch", action="store_true", help="rerun when a source file changes (for developing)")
    return parser


def streamlit_arguments(args: argparse.Namespace) -> list[str]:
    """``streamlit run``'s options and the app's own argument (the document) for ``args``."""
    options = {**SERVER_OPTIONS, **(WATCH_OPTIONS if args.watch else {})}
    options["server.address"] = args.address
    options["server.port"] = str(args.port)
    argv = [item for name, value in options.items() for item in (f"--{name}", value)]
    if args.file is not None:
        argv += ["--", str(args.file.resolve())]
    return argv


def where(args: argparse.Namespace) -> str:
    """The line that tells the user where the app is served."""
    if args.address in LOOPBACK:
        return f"chunkviz: serving on http://localhost:{args.port}, this machine only (--address 0.0.0.0 serves your network)"
    return f"chunkviz: serving on http://{args.address}:{args.port}, reachable from the network"


def cmd_app(args: argparse.Namespace) -> int:
    """Serve the app until interrupted (the exit status of Streamlit's CLI)."""
    if importlib.util.find_spec("streamlit") is None:
        raise ChunkvizError("the app needs Streamlit: pip install 'chunkviz[app]'")
    if args.file is not None and not args.file.is_file():
        raise ChunkvizError(f"{args.file}: no such file (give a document to open, or no FILE for the samples)")
    from chunkviz.ui import serve  # noqa: PLC0415 - imports Streamlit; only when serving

    print(where(args), flush=True)
    warm = ["--no-warm"] if args.no_warm else []
    try:
        serve.main([str(APP_SCRIPT), *warm, "--", *streamlit_arguments(args)])
    except SystemExit as exc:  # Streamlit's CLI exits when the server stops
        return exc.code if isinstance(exc.code, int) else 0
    return 0


__all__ = ["APP_SCRIPT", "SERVER_OPTIONS", "add_app_parser", "cmd_app", "streamlit_arguments"]
