"""``chunkviz audit DOC --chunks FILE``: your pipeline's chunks placed in the document and audited.

Prints the audit (each flagged chunk with its file line, span and what is wrong), then the
diagnostics every column gets (coverage, overlaps, token statistics); ``--json`` prints both
as one JSON object. ``--fix out.jsonl`` writes the chunks whose exact place is known as
chunkviz JSONL (what ``chunkviz chunk`` writes); it never writes over the document or the chunk
file. Registered in :mod:`chunkviz.cli.commands`.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from chunkviz.cli.params import add_hygiene_argument, hygiene_of_args
from chunkviz.core.argtypes import whole_number
from chunkviz.core.files import check_output, write_text_atomic
from chunkviz.core.vocabulary import Meta
from chunkviz.document.model import Document
from chunkviz.formats.external.load import FILE_LINE_KEY, LoadedChunks, chunk_flags, load_chunks
from chunkviz.formats.external.records import CHUNK_FORMATS, unescape_delimiter
from chunkviz.text.printable import visible_name
from chunkviz.text.tokenizers import DEFAULT_TOKENIZER, tokenizer_names

EXIT_OK = 0
#: Flagged chunks listed in the text report (all of them are in --json).
LISTED = 20


def add_chunks_arguments(parser: argparse.ArgumentParser, *, required: bool) -> None:
    """``--chunks FILE --format ... --delimiter S`` (``audit``; ``show`` takes them too)."""
    parser.add_argument(
        "--chunks",
        required=required,
        metavar="FILE",
        help="your chunks: LangChain Document JSONL, LlamaIndex node JSON, chunkviz JSONL, a JSON list of strings, "
        "or a text file of chunks with --delimiter",
    )
    parser.add_argument(
        "--format",
        dest="chunks_format",
        choices=CHUNK_FORMATS,
        default="auto",
        help="the chunk file's format (default auto: told apart by the records' fields)",
    )
    parser.add_argument(
        "--delimiter",
        metavar="S",
        default=None,
        help=r"the chunk file is text, chunks separated by S (\n, \t, \r and \\ are read as escapes)",
    )


def add_audit_parser(commands: Any) -> None:
    p = commands.add_parser("audit", help="place your own chunks in their document and audit them")
    p.add_argument("file", metavar="DOC", help="the document the chunks were cut from")
    add_chunks_arguments(p, required=True)
    p.add_argument(
        "--max-tokens",
        type=whole_number(1, None, "a number of tokens"),
        default=None,
        metavar="N",
        help="flag chunks over N tokens (counted with --tokenizer)",
    )
    p.add_argument(
        "--tokenizer",
        default=DEFAULT_TOKENIZER,
        metavar="NAME",
        help=f"tokenizer for --max-tokens and the statistics: {', '.join(tokenizer_names())} (default {DEFAULT_TOKENIZER})",
    )
    p.add_argument("--fix", metavar="OUT.jsonl", default=None, help="write the exactly placed spans as chunkviz JSONL")
    p.add_argument("--json", action="store_true", help="machine-readable output (one JSON object)")
    add_hygiene_argument(p)


def loaded_from_args(args: argparse.Namespace, document: Document | None = None) -> LoadedChunks:
    """Read the document (unless given) and the chunk file named on the command line, and audit them."""
    from chunkviz.cli.params import language_of_args
    from chunkviz.document.read import read_path, read_stdin

    if document is None:
        language = language_of_args(args)
        document = read_stdin(language=language) if args.file == "-" else read_path(args.file, language=language)
        for note in document.notes:
            print(f"note: {visible_name(note)}", file=sys.stderr)
    delimiter = unescape_delimiter(args.delimiter) if args.delimiter is not None else None
    return load_chunks(
        document,
        args.chunks,
        format=args.chunks_format,
        delimiter=delimiter,
        max_tokens=getattr(args, "max_tokens", None),
        tokenizer=getattr(args, "tokenizer", None) or DEFAULT_TOKENIZER,
    )


def cmd_audit(args: argparse.Namespace) -> int:
    if args.fix is not None:  # before anything is read: the output is no input, and can be written
        check_output(args.fix, "--fix", [("the document", args.file), ("the chunk file", args.chunks)])
    loaded = loaded_from_args(args)
    report = loaded.diagnostics(args.tokenizer, hygiene_of_args(args))
    if args.json:
        print(
            json.dumps({**loaded.to_dict(), "diagnostics": report.to_dict()}, indent=2, ensure_ascii=False, default=str)
        )
    else:
        for line in audit_lines(loaded):
            print(line)
        for line in report.summary_lines():
            print(line)
    if args.fix is not None:
        written = write_fix(loaded, args.fix, args.tokenizer)
        left = loaded.audit.chunks - written
        why = f"; {left} left out (ambiguous, or text not in the document)" if left else ""
        print(f"wrote {written} exactly placed chunk(s) to {visible_name(args.fix)}{why}", file=sys.stderr)
    return EXIT_OK


def audit_lines(loaded: LoadedChunks) -> list[str]:
    """The text report of the audit: what was read, the counts, the flagged chunks."""
    skipped = f" ({loaded.skipped} empty skipped)" if loaded.skipped else ""
    if loaded.other_documents:
        skipped += f" ({loaded.other_documents} of other documents left out)"
    limit = f"; limit {loaded.limit} {loaded.tokenizer} tokens" if loaded.limit is not None else ""
    lines = [
        f"{loaded.audit.chunks} chunks from {visible_name(loaded.source)}{skipped} ({loaded.format}, "
        f"placed by {loaded.placement}) in {visible_name(loaded.document.name)}{limit}",
        f"audit: {loaded.audit.describe()}",
    ]
    if not loaded.in_document_order:
        lines.append("order: out of document order in the file; each chunk placed by its own text; --fix sorts them")
    flagged = [c for c in loaded.chunks if chunk_flags(c)]
    for c in flagged[:LISTED]:
        line = c.metadata.get(FILE_LINE_KEY)
        where = f" (line {line})" if line is not None else ""
        flags = ", ".join(str(f) for f in chunk_flags(c))
        lines.append(f"  chunk {c.index}{where} [{c.start}:{c.end}] {flags}: {c.metadata.get(str(Meta.NOTE), '')}")
    if len(flagged) > LISTED:
        lines.append(f"  ... and {len(flagged) - LISTED} more flagged chunk(s) (--json lists them all)")
    return lines


def write_fix(loaded: LoadedChunks, path: str, tokenizer: str) -> int:
    """Write :meth:`LoadedChunks.placed` as chunkviz JSONL (atomically); the count written."""
    from chunkviz.formats.export import chunk_records, to_jsonl
    from chunkviz.text.tokenizers import get_tokenizer

    placed = loaded.placed()
    write_text_atomic(path, to_jsonl(chunk_records(placed, get_tokenizer(tokenizer), loaded.document.text)))
    return len(placed)


__all__ = ["add_audit_parser", "add_chunks_arguments", "audit_lines", "cmd_audit", "loaded_from_args", "write_fix"]
