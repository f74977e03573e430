"""``chunkviz batch``: the subcommand's parser and handler (wired into :mod:`chunkviz.cli.commands`)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from chunkviz.cli.batch.engines import ENGINES
from chunkviz.cli.params import add_hygiene_argument
from chunkviz.core.argtypes import whole_number
from chunkviz.formats.external.formats import batch_formats
from chunkviz.text.printable import visible_name

EXIT_OK = 0
EXIT_FAILURE = 1


def add_batch_arguments(parser: argparse.ArgumentParser) -> None:
    """The batch command's arguments (on any parser: the CLI's subparser, or a test's)."""
    parser.add_argument(
        "inputs",
        nargs="+",
        metavar="INPUT",
        help="files, folders (read recursively) and glob patterns ('docs/**/*.md')",
    )
    parser.add_argument(
        "--config", required=True, metavar="FILE", help="the chunkviz.json to run (downloaded from the app)"
    )
    parser.add_argument(
        "--column",
        type=int,
        default=None,
        metavar="N",
        help="which column of a configuration with several (1 = the first)",
    )
    parser.add_argument(
        "--out",
        required=True,
        metavar="DIR_OR_FILE",
        help="output file, or a folder that gets chunks.jsonl / chunks.parquet; a rerun to the same place resumes",
    )
    parser.add_argument(
        "--format",
        choices=batch_formats(),
        default=None,
        help="jsonl (chunk records with their source), parquet, langchain (Document JSONL) or llamaindex "
        "(a JSON list of TextNodes); default: parquet for an --out ending in .parquet, else jsonl",
    )
    parser.add_argument(
        "--workers",
        type=whole_number(1, 1024, "a number of processes"),
        default=max(1, min(4, os.cpu_count() or 1)),
        metavar="N",
        help="processes (local) or actors (ray) chunking at once; each loads its models once (default: CPUs, at most 4)",
    )
    parser.add_argument(
        "--engine", choices=ENGINES, default="local", help="local processes (default) or Ray Data (extra 'scale')"
    )
    parser.add_argument(
        "--ray-address",
        metavar="ADDRESS",
        help="a Ray cluster to run on (e.g. ray://head:10001 or auto); default: a local Ray for this run",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress line (skipped documents are still reported)")
    add_hygiene_argument(parser)


def add_batch_parser(commands: Any) -> argparse.ArgumentParser:
    """Add ``batch`` to the CLI's subparsers; returns its parser."""
    parser = commands.add_parser(
        "batch",
        help="run a chunkviz.json over many documents (resumable; local processes or Ray)",
        description="Chunk every document with a saved configuration into one output file. Documents that "
        "fail are reported and skipped; rerunning the same command resumes where a killed run stopped.",
    )
    add_batch_arguments(parser)
    return parser


def cmd_batch(args: argparse.Namespace) -> int:
    """Run the batch; the summary goes to stderr. Exit 0, or 1 when no document could be read."""
    from chunkviz.cli.batch.run import run_batch
    from chunkviz.cli.params import language_of_args

    if args.ray_address and args.engine != "ray":
        raise ValueError("--ray-address is for --engine ray")
    summary = run_batch(
        args.inputs,
        args.config,
        args.out,
        fmt=args.format,
        column=args.column,
        workers=args.workers,
        engine=args.engine,
        ray_address=args.ray_address,
        progress=None if args.quiet else sys.stderr,
        language=language_of_args(args),
    )
    if args.quiet:
        for source, error in summary.failures:
            print(visible_name(f"skipped {source}: {error}"), file=sys.stderr)
    print(summary.line(), file=sys.stderr)
    _print_hygiene(args, summary.output)
    if summary.documents and summary.failed == summary.documents:
        return EXIT_FAILURE
    return EXIT_OK


def _print_hygiene(args: argparse.Namespace, output: Any) -> None:
    """The corpus's hygiene (counts per flag, the text repeated most), read back from the output."""
    from chunkviz.cli.batch.state import output_format  # noqa: PLC0415
    from chunkviz.cli.params import hygiene_of_args  # noqa: PLC0415
    from chunkviz.diagnostics.hygiene.corpus import corpus_hygiene  # noqa: PLC0415

    rules = hygiene_of_args(args)
    if not output.exists() or rules == type(rules).off():
        return
    corpus = corpus_hygiene(output, output_format(args.format, str(output)), rules)
    for line in corpus.lines() if corpus.documents else ():
        print(visible_name(line), file=sys.stderr)


__all__ = ["add_batch_arguments", "add_batch_parser", "cmd_batch"]
