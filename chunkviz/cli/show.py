"""``chunkviz show FILE -s NAME [-p ...] [--chunks FILE] [--no-color] [--width N]``.

Prints the document with its chunks (:mod:`chunkviz.views.terminal`): with ``-s`` the strategy's
chunks, with ``--chunks`` your own (placed and audited, :mod:`chunkviz.formats.external`), both one
after the other when both are given. Colours on a terminal (``rich``), plain text when the
output is piped, with ``--no-color`` or ``NO_COLOR`` set. Registered in :mod:`chunkviz.cli.commands`,
which hands over its chunking arguments and runner (so that this module does not import it).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any

from chunkviz.cli.audit import add_chunks_arguments
from chunkviz.core.argtypes import whole_number
from chunkviz.core.errors import missing_extra
from chunkviz.drawing.palette import column_hue
from chunkviz.views.terminal import plain_view, rich_view

EXIT_OK = 0


def add_show_parser(
    commands: Any, add_chunking_args: Callable[[argparse.ArgumentParser], None], run_chunking: Callable[..., Any]
) -> None:
    """The ``show`` subcommand, with the CLI's own chunking arguments (``-s``, ``-p``,
    ``--tokenizer``, ``--config``) and the function that runs them."""
    p = commands.add_parser("show", help="print the document with its chunks in colour (plain text when piped)")
    add_chunking_args(p)
    add_chunks_arguments(p, required=False)
    p.add_argument("--no-color", action="store_true", help="plain text: chunk starts and ends as [n> and <n ...]")
    p.add_argument(
        "--width",
        type=whole_number(20, 10_000, "a number of columns"),
        default=None,
        metavar="N",
        help="line width of the colour output (default: the terminal's; plain text is not wrapped)",
    )
    p.set_defaults(run_chunking=run_chunking)


def cmd_show(args: argparse.Namespace) -> int:
    from chunkviz.cli.audit import loaded_from_args

    views: list[tuple[str, Any, list[Any], str]] = []
    document = None
    if args.strategy or args.config or not args.chunks:
        run = args.run_chunking(args)
        document = run.document
        params = ", ".join(f"{k}={v}" for k, v in run.params.items())
        views.append((run.strategy, document, list(run.chunks), f"{params} · tokenizer {run.tokenizer.name}"))
    if args.chunks:
        loaded = loaded_from_args(args, document)
        views.append(
            (f"your chunks ({args.chunks})", loaded.document, list(loaded.chunks), f"audit: {loaded.audit.describe()}")
        )
    from chunkviz.diagnostics.hygiene import masked  # noqa: PLC0415

    console = _console(args)
    for k, (title, doc, chunks, note) in enumerate(views):
        text = masked(doc.text)  # a credential-shaped string is printed masked (same length: spans stay)
        if console is None:
            sys.stdout.write(plain_view(text, chunks, title, note))
        else:
            console.print(rich_view(text, chunks, title, note, hue=column_hue(k)))
    return EXIT_OK


def _console(args: argparse.Namespace) -> Any:
    """A ``rich`` console for colour output, or None for plain text (piped, --no-color,
    ``NO_COLOR``, ``TERM=dumb``; rich missing, with a note)."""
    stream = sys.stdout
    if args.no_color or os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return None
    is_tty = getattr(stream, "isatty", lambda: False)()
    if not is_tty and not os.environ.get("FORCE_COLOR"):
        return None
    try:
        from rich.console import Console
    except ImportError:
        print(f"note: {missing_extra('colour output', 'terminal', 'rich')}; printing plain text", file=sys.stderr)
        return None
    return Console(file=stream, width=args.width, force_terminal=True, highlight=False, soft_wrap=False)


__all__ = ["add_show_parser", "cmd_show"]
