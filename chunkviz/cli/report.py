"""``chunkviz report DOC -s A -s B [-p k=v ...] [--config chunkviz.json] -o report.html``: the Compare
view as one self-contained HTML file (:func:`chunkviz.views.page.report_html`)."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from chunkviz.cli.params import (
    add_config_argument,
    add_hygiene_argument,
    convert_param_values,
    hygiene_of_args,
    language_of_args,
    parse_param_args,
    slide_notes_of_args,
)
from chunkviz.core.files import check_output, write_text_atomic
from chunkviz.diagnostics.compare import ColumnConfig
from chunkviz.evaluation.config import ConfigError, Enrichment, load_config
from chunkviz.strategies.base import get_strategy
from chunkviz.text.models import DEFAULT_EMBEDDING_MODEL
from chunkviz.text.printable import visible_name
from chunkviz.text.tokenizers import DEFAULT_TOKENIZER, tokenizer_names
from chunkviz.views.build import MAX_COLUMNS


def add_report_parser(commands: Any) -> None:
    p = commands.add_parser(
        "report", help="write the Compare view of a document as one self-contained HTML file (no server, no network)"
    )
    p.add_argument("file", metavar="DOC", help="document to read")
    p.add_argument(
        "-s",
        "--strategy",
        action="append",
        default=[],
        metavar="NAME",
        help=f"a column's strategy; repeat for several (at most {MAX_COLUMNS}); or --config",
    )
    p.add_argument(
        "-p",
        "--param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="parameter for every column whose strategy has it; repeat. List values as JSON",
    )
    p.add_argument(
        "--tokenizer",
        default=None,
        metavar="NAME",
        help=f"tokenizer for token counts: {', '.join(tokenizer_names())} (default {DEFAULT_TOKENIZER})",
    )
    add_config_argument(p)
    p.add_argument(
        "-o", "--output", required=True, metavar="FILE", help="the HTML file to write ('-': standard output)"
    )
    add_hygiene_argument(p)


def report_columns(args: argparse.Namespace) -> tuple[list[ColumnConfig], str, str, Enrichment | None]:
    """The columns, tokenizer, embedding model and enrichment the command line (and ``--config``) ask for."""
    params = parse_param_args(args.param)
    tokenizer = args.tokenizer
    model = DEFAULT_EMBEDDING_MODEL
    enrichment = None
    if args.config:
        config = load_config(args.config)
        chosen = [config.column(args.column)] if args.column is not None else list(config.columns)
        if args.strategy and [c.strategy for c in chosen] != args.strategy:
            raise ConfigError(
                f"{config.source}: its columns run {', '.join(c.strategy for c in chosen)}; drop -s to use the file"
            )
        columns = [ColumnConfig(c.strategy, dict(c.params), c.tokenizer) for c in chosen]
        tokenizer = tokenizer or config.tokenizer
        model = config.embedding_model or model
        enrichment = config.enrichment
    else:
        if args.column is not None:
            raise ConfigError("--column chooses a column of --config FILE; give the file too")
        if not args.strategy:
            raise ConfigError("choose strategies with -s NAME (repeat for columns), or give --config chunkviz.json")
        columns = [ColumnConfig(name, {}) for name in args.strategy]
    if len(columns) > MAX_COLUMNS:
        raise ConfigError(f"a report shows at most {MAX_COLUMNS} columns, got {len(columns)}")
    used: set[str] = set()
    out = []
    for c in columns:
        strategy = get_strategy(c.strategy)  # an unknown strategy fails here
        names = {p.name for p in strategy.params_info()}
        mine = convert_param_values(strategy, {k: v for k, v in params.items() if k in names})
        used |= set(mine)
        out.append(ColumnConfig(c.strategy, {**dict(c.params), **mine}, c.tokenizer))
    unknown = sorted(set(params) - used)
    if unknown:
        raise ConfigError(
            f"-p {unknown[0]}: no column's strategy has this parameter ({', '.join(c.strategy for c in columns)}; "
            "see 'chunkviz strategies')"
        )
    return out, tokenizer or DEFAULT_TOKENIZER, model, enrichment


def cmd_report(args: argparse.Namespace) -> int:
    from chunkviz.document.read import read_path  # noqa: PLC0415 - the readers only when a report is made
    from chunkviz.views.build import build_view  # noqa: PLC0415
    from chunkviz.views.page import fixed_bytes, report_html  # noqa: PLC0415

    if args.output != "-":  # the report is no input, and can be written: known before any work
        check_output(args.output, "-o", [("the document", args.file), ("the --config file", args.config)])
    columns, tokenizer, model, enrichment = report_columns(args)
    began = time.perf_counter()
    document = read_path(args.file, language=language_of_args(args), slide_notes=slide_notes_of_args(args))
    options = None
    if enrichment is not None:  # the configuration's "Document / Section / Date" prefix, drawn as added text
        options = {
            "source": args.file,
            "title": enrichment.title,
            "date": enrichment.date,
            "include": enrichment.include,
        }
    view = build_view(
        document,
        columns,
        tokenizer=tokenizer,
        doc_name=args.file,
        embedding_model=model,
        enrichment=options,
        hygiene=hygiene_of_args(args),
    )
    page = report_html(view)
    if args.output == "-":
        sys.stdout.write(page)
        return 0
    write_text_atomic(args.output, page)
    size = len(page.encode("utf-8"))
    fixed = fixed_bytes()
    per = (size - fixed) / max(1, len(document.text)) / len(view.columns)
    print(
        f"wrote {visible_name(args.output)}: {size:,} bytes for {len(view.columns)} column(s) of {len(document.text):,} characters "
        f"({fixed:,} bytes of script and styles, then {per:.2f} bytes per character per column) "
        f"in {time.perf_counter() - began:.1f} s",
        file=sys.stderr,
    )
    return 0
