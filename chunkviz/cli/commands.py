"""``chunkviz`` on the command line: the same engine as the app, without a browser.

Commands::

    chunkviz strategies [--json]
    chunkviz chunk FILE -s NAME [-p key=value ...] [--tokenizer NAME] [--format jsonl|json|csv|text]
    chunkviz diagnose FILE -s NAME [-p key=value ...] [--tokenizer NAME] [--json]
    chunkviz explain FILE -s NAME [-p key=value ...] [--tokenizer NAME] [--json]
    chunkviz similarities FILE [-p key=value ...] [--tokenizer NAME] [--json]

``explain`` shows the analysis of a strategy with an ``explain`` hook (an
:class:`~chunkviz.core.explain.Explanation`: its summary, or its data as JSON) and the chunk count;
``similarities`` is ``explain -s semantic`` (sentences, similarities, threshold, breakpoints).

``FILE`` may be ``-`` for standard input. Bad input exits with status 2 and one line on stderr
starting ``chunkviz: error:``; remarks about reading the document go to stderr as ``note: ...``.
"""

from __future__ import annotations

import argparse
import dataclasses
import errno
import json
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from chunkviz.api import strategies
from chunkviz.cli.audit import add_audit_parser, cmd_audit
from chunkviz.cli.batch.command import add_batch_parser, cmd_batch
from chunkviz.cli.launch import add_app_parser, cmd_app
from chunkviz.cli.llm import add_llm_arguments, add_questions_parser, cli_llm_session, cmd_questions
from chunkviz.cli.params import (
    UsageError,
    add_config_argument,
    add_hygiene_argument,
    add_language_argument,
    add_slide_notes_argument,
    apply_config,
    convert_param_values,
    enrich_chunks,
    hygiene_of_args,
    language_of_args,
    merged_params,
    parse_param_args,
    slide_notes_of_args,
)
from chunkviz.cli.report import add_report_parser, cmd_report
from chunkviz.cli.show import add_show_parser, cmd_show
from chunkviz.cli.tune import add_tune_parser, cmd_tune
from chunkviz.core.errors import ChunkvizError
from chunkviz.core.files import OutputError, check_output, write_text_atomic
from chunkviz.diagnostics import diagnose
from chunkviz.formats.export import chunk_records
from chunkviz.formats.external.formats import cli_formats, get_format, text_footer
from chunkviz.llm.answers import (
    add_answer_arguments,
    check_answer_endpoint,
    results_with_answers_json,
    run_answers,
    with_answer_columns,
)
from chunkviz.llm.client import LLMError
from chunkviz.semantic.embeddings import MODEL_HELP
from chunkviz.semantic.providers.base import announce_with
from chunkviz.strategies import get_strategy, registered
from chunkviz.strategies.guarded import guarded_run, prepare
from chunkviz.strategies.peers.catalogue import peer_notes
from chunkviz.text.printable import visible_name
from chunkviz.text.tokenizers import DEFAULT_TOKENIZER, TokenizerUnavailable, get_tokenizer, tokenizer_names

PROG = "chunkviz"
#: The commands that read documents: each takes ``--language``.
READS_DOCUMENTS = (
    "chunk",
    "diagnose",
    "explain",
    "similarities",
    "eval",
    "questions",
    "batch",
    "audit",
    "show",
    "report",
    "tune",
)
#: The commands that read one document with :func:`_run_chunking` or into a report: each takes ``--slide-notes``.
READS_ONE_DOCUMENT = ("chunk", "diagnose", "explain", "similarities", "show", "report")

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2


class _GuardedOutput:
    """Standard output whose write failures become :class:`OutputError` (one clear line, not a
    traceback or "a bug in chunkviz"); a broken pipe stays a BrokenPipeError (``| head``)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _output_error(exc) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _output_error(exc) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _output_error(exc: OSError) -> OutputError:
    reason = exc.strerror or str(exc) or type(exc).__name__
    hint = " (free some space or write to another disk)" if exc.errno == errno.ENOSPC else ""
    return OutputError(f"cannot write the output: {reason}{hint}")


def _discard_pending_output() -> None:
    """Point standard output at the null device, so that the interpreter's final flush of what is
    still buffered neither fails again nor prints "Exception ignored"."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # pragma: no cover - no real descriptor
        pass


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one ``chunkviz: error: ...`` line, not usage + error."""

    def error(self, message: str) -> NoReturn:
        hint = f" (see '{self.prog} --help')"
        _print_error(message + hint)
        raise SystemExit(EXIT_USAGE)


def _print_error(message: str) -> None:
    one_line = visible_name(" ".join(str(message).split()))  # a path in it may hold terminal escapes
    print(f"{PROG}: error: {one_line}", file=sys.stderr)


def _print_note(line: str) -> None:
    """A line about the run on stderr (e.g. what an embedding endpoint will be sent)."""
    print(line, file=sys.stderr, flush=True)


def _use_utf8(stream: Any) -> None:
    encoding = (getattr(stream, "encoding", None) or "").lower().replace("_", "-")
    if encoding in ("utf-8", "utf8"):
        return
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None:
        try:
            reconfigure(encoding="utf-8")
        except (ValueError, OSError, AttributeError, TypeError):  # pragma: no cover - odd streams
            pass


# --------------------------------------------------------------------------- commands


def _add_chunking_args(sub: argparse.ArgumentParser, with_strategy: bool = True) -> None:
    sub.add_argument("file", metavar="FILE", help="document to read ('-' reads standard input)")
    if with_strategy:
        sub.add_argument(
            "-s", "--strategy", metavar="NAME", help="strategy name (see 'chunkviz strategies'); or --config"
        )
    sub.add_argument(
        "-p",
        "--param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help='strategy parameter; repeat for several. List values as JSON, e.g. -p \'separators=["\\n\\n", " "]\'',
    )
    sub.add_argument(
        "--tokenizer",
        default=None,
        metavar="NAME",
        help=f"tokenizer for sizes and token counts: {', '.join(tokenizer_names())} (default {DEFAULT_TOKENIZER})",
    )
    add_config_argument(sub)
    add_llm_arguments(sub)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="See exactly how RAG chunking strategies cut a document: exact spans, boundary reasons, diagnostics.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    p_strategies = commands.add_parser("strategies", help="list strategies with their parameters")
    p_strategies.add_argument("--json", action="store_true", help="machine-readable output")

    p_chunk = commands.add_parser("chunk", help="chunk a document; one record per chunk")
    _add_chunking_args(p_chunk)
    p_chunk.add_argument("--format", choices=cli_formats(), default="jsonl", help="output format (default jsonl)")

    p_diagnose = commands.add_parser("diagnose", help="chunk a document and report coverage, overlaps and flags")
    _add_chunking_args(p_diagnose)
    p_diagnose.add_argument("--json", action="store_true", help="machine-readable output")
    add_hygiene_argument(p_diagnose)

    p_explain = commands.add_parser("explain", help="a strategy's own analysis (e.g. semantic's similarities)")
    _add_chunking_args(p_explain)
    p_explain.add_argument("--json", action="store_true", help="machine-readable output (one JSON object)")

    p_similar = commands.add_parser("similarities", help="semantic chunking analysis (same as 'explain -s semantic')")
    _add_chunking_args(p_similar, with_strategy=False)
    p_similar.add_argument("--json", action="store_true", help="machine-readable output (one JSON object)")
    _add_eval_parser(commands)
    add_questions_parser(commands)
    add_batch_parser(commands)
    add_app_parser(commands)
    add_audit_parser(commands)
    add_show_parser(commands, _add_chunking_args, _run_chunking)
    add_report_parser(commands)
    add_tune_parser(commands)
    for name in READS_DOCUMENTS:
        add_language_argument(commands.choices[name])
    for name in READS_ONE_DOCUMENT:
        add_slide_notes_argument(commands.choices[name])
    return parser


def _add_eval_parser(commands: Any) -> None:
    p_eval = commands.add_parser(
        "eval", help="retrieval evaluation: recall, precision, IoU, recall@k and MRR of strategies on questions"
    )
    p_eval.add_argument("corpus", nargs="+", metavar="CORPUS", help="the documents the questions are about")
    p_eval.add_argument(
        "--questions", required=True, metavar="FILE", help="question file: JSONL (spans or excerpts) or Chroma's CSV"
    )
    p_eval.add_argument(
        "-s",
        "--strategy",
        action="append",
        default=[],
        metavar="NAME",
        help="strategy; repeat for several (default recursive)",
    )
    p_eval.add_argument(
        "-p", "--param", action="append", default=[], metavar="KEY=VALUE", help="parameter for every strategy; repeat"
    )
    p_eval.add_argument(
        "--sweep", metavar="NAME=V1,V2,...", help="one configuration per value, e.g. chunk_size=128,256,512"
    )
    p_eval.add_argument(
        "--config",
        metavar="FILE",
        help="run exactly the configuration(s) of a chunkviz.json (from 'chunkviz tune' or the app): strategy, "
        "parameters, tokenizer, enrichment, retrieval and embedding model; no -s, -p, --sweep or retrieval flags with it",
    )
    p_eval.add_argument("--k", type=int, default=5, help="chunks retrieved per question (default 5)")
    p_eval.add_argument(
        "--tokenizer",
        default=DEFAULT_TOKENIZER,
        metavar="NAME",
        help=f"tokenizer for sizes (default {DEFAULT_TOKENIZER})",
    )
    p_eval.add_argument("--model", default=None, metavar="NAME", help=MODEL_HELP)
    p_eval.add_argument(
        "--placement",
        choices=("exact", "first_find"),
        default="exact",
        help="score chunks at their exact spans (default), or where Chroma's study placed them: the first find of their text",
    )
    p_eval.add_argument(
        "--json",
        metavar="PATH",
        help="also write every score and retrieved span as JSON ('-': print it instead of the table)",
    )
    techniques = p_eval.add_argument_group(
        "retrieval techniques",
        "each adds rows next to the plain configuration (the same chunks), so the table compares them",
    )
    techniques.add_argument(
        "--enrich",
        metavar="KIND[,KIND]",
        help="enrich what is embedded: metadata (a Document/Section prefix) or contextual (the LLM writes a 2-3 sentence "
        "context per chunk: one call per chunk, cached)",
    )
    techniques.add_argument(
        "--query",
        metavar="MODE[,MODE]",
        help="embed questions differently: rewrite (the LLM rewrites each question in the documents' terms) or hyde "
        "(the LLM writes a hypothetical answer passage): one call per question and mode, cached",
    )
    techniques.add_argument(
        "--summaries",
        metavar="KIND",
        help="search a summary per chunk and return the chunk (use section-sized chunks, e.g. -s headings): extractive "
        "(its most central sentences by embedding; no endpoint needed) or llm (one call per chunk, cached)",
    )
    techniques.add_argument(
        "--summary-sentences", type=int, default=2, metavar="N", help="sentences per extractive summary (default 2)"
    )
    techniques.add_argument(
        "--llm-context",
        type=int,
        default=4096,
        metavar="TOKENS",
        help="the model's context: contextual retrieval shows a longer document as its opening and a window around the chunk (default 4096)",
    )
    retrieval = p_eval.add_argument_group(
        "retrieval", "how chunks are ranked for a question; several retrievers add rows on the same chunks"
    )
    retrieval.add_argument(
        "--retriever",
        metavar="NAME[,NAME]",
        help="dense (exact cosine of embeddings, the default), bm25 (keywords: lowercase, Lucene's English stop words, "
        "Snowball stems; over the text that is embedded, added text included) or hybrid (both, fused); e.g. dense,bm25,hybrid",
    )
    retrieval.add_argument(
        "--fusion",
        metavar="KIND[,KIND]",
        help="how hybrid fuses its two top-100 lists: rrf (reciprocal rank fusion, constant 60; the default) or "
        "weighted (min-max normalised scores, alpha * dense + (1 - alpha) * bm25); both for a row each",
    )
    retrieval.add_argument(
        "--alpha",
        type=float,
        default=0.5,
        metavar="A",
        help="the dense weight of --fusion weighted, 0..1 (default 0.5)",
    )
    retrieval.add_argument(
        "--rerank",
        metavar="FOLDER",
        help="re-score each retriever's best candidates with a cross-encoder read from this local folder "
        "(sentence-transformers CrossEncoder; chunkviz ships none and downloads nothing)",
    )
    retrieval.add_argument(
        "--rerank-candidates",
        type=int,
        default=20,
        metavar="N",
        help="candidates the cross-encoder re-scores (default 20)",
    )
    add_llm_arguments(p_eval)
    add_answer_arguments(p_eval)


def _cmd_eval(args: argparse.Namespace) -> int:
    from chunkviz.cli.progress import Progress
    from chunkviz.document.read import read_path
    from chunkviz.evaluation.evaluate import evaluate, results_json, with_variants
    from chunkviz.evaluation.questions import load_questions
    from chunkviz.evaluation.report import (
        configurations,
        parse_sweep,
        retrieval_options,
        saved_configurations,
        table,
        variant_options,
    )  # fmt: skip

    if args.k < 1:
        raise ValueError(f"--k must be at least 1, got {args.k}")
    if args.summary_sentences < 1:
        raise ValueError(f"--summary-sentences must be at least 1, got {args.summary_sentences}")
    variants = variant_options(args.enrich, args.query, args.summaries, args.retriever, args.fusion)  # fail early
    retrieval = retrieval_options(args.alpha, args.rerank, args.rerank_candidates)
    check_answer_endpoint(args)  # --answers without an endpoint fails now, not after the embedding
    if args.json != "-":  # the output is no input, and can be written: known before any work
        inputs = [("the question file", args.questions), *(("the document", path) for path in args.corpus)]
        check_output(args.json, "--json", inputs)
    documents = [read_path(path, language=language_of_args(args)) for path in args.corpus]
    corpus = {doc.name: doc for doc in documents}
    questions = load_questions(args.questions, {name: doc.text for name, doc in corpus.items()})
    if args.config:  # exactly the saved configuration(s): nothing from the command line changes them
        configs, model = saved_configurations(args)
        configs = [dataclasses.replace(c, placement=args.placement) for c in configs]
    else:
        names = args.strategy or ["recursive"]
        for name in names:
            get_strategy(name)  # an unknown name fails here, listing the known ones
        raw = parse_param_args(args.param)
        params = convert_param_values(get_strategy(names[0]), raw) if raw else {}
        configs = configurations(names, params, args.tokenizer, parse_sweep(args.sweep) if args.sweep else None)
        configs = with_variants([dataclasses.replace(c, placement=args.placement) for c in configs], **variants)
        configs = [dataclasses.replace(c, **retrieval) for c in configs]  # alpha counts for weighted rows only
        model = args.model

    display = Progress(sys.stderr)  # a bar on a terminal, whole lines in a log (chunkviz.cli.progress)

    def progress(what: str, done: int, total: int) -> None:
        if total:
            display.update(f"embedding {what}", done, total, unit="texts")

    try:
        results = evaluate(
            corpus,
            questions,
            configs,
            k=args.k,
            model=model,
            progress=progress,
            context_tokens=args.llm_context,
            summary_sentences=args.summary_sentences,
        )
    finally:
        display.close()
    qualities = run_answers(args, corpus, questions, results)  # None unless --answers / --judge
    as_json = results_with_answers_json(results, qualities) if qualities else results_json(results)
    if args.json == "-":
        print(as_json)
        return EXIT_OK
    print(f"{len(questions)} questions on {len(corpus)} document(s), top {args.k} chunks each; mean ± std in %")
    print(with_answer_columns(table(results), qualities) if qualities else table(results))
    print_question_set(questions, corpus)
    if args.json:
        write_text_atomic(args.json, as_json)  # a failure leaves the old file: one line, exit 1
    return EXIT_OK


def print_question_set(questions: Any, corpus: Any) -> None:
    """What the question file itself says about these scores (overlaps, duplicates, word reuse)."""
    from chunkviz.evaluation.questionset import question_set_report

    print()
    print("\n".join(question_set_report(questions, {name: doc.text for name, doc in corpus.items()}).lines()))


def _cmd_strategies(args: argparse.Namespace) -> int:
    described = strategies()
    if args.json:
        print(json.dumps(described, indent=2, ensure_ascii=False, default=str))
        return EXIT_OK
    for i, spec in enumerate(described):
        if i:
            print()
        print(f"{spec['name']}: {spec['description']}")
        params = spec["params"]
        if not params:
            print("  (no parameters)")
            continue
        rows = [
            (p["name"], p["type"], json.dumps(p["default"], ensure_ascii=False, default=str), p["range"], p["help"])
            for p in params
        ]
        header = ("param", "type", "default", "range", "description")
        widths = [max(len(r[c]) for r in (*rows, header)) for c in range(4)]
        for row in (header, *rows):
            cells = [row[c].ljust(widths[c]) for c in range(4)]
            print("  " + "  ".join(cells) + "  " + row[4])
    for note in peer_notes():
        print(f"\n{note}")
    return EXIT_OK


@dataclasses.dataclass
class _Run:
    document: Any
    strategy: str
    params: dict[str, Any]
    tokenizer: Any
    chunks: list[Any]


def _run_chunking(args: argparse.Namespace, strategy: str | None = None) -> _Run:
    """Validate the command line first, then read the document (with its format), then chunk."""
    from chunkviz.document.read import read_path, read_stdin

    apply_config(args, strategy)
    spec = get_strategy(strategy or args.strategy)
    raw = parse_param_args(args.param)
    prepared = prepare(spec, merged_params(args, convert_param_values(spec, raw)))  # the one validation
    tokenizer = get_tokenizer(args.tokenizer)
    language, slide_notes = language_of_args(args), slide_notes_of_args(args)
    document = (
        read_stdin(language=language, slide_notes=slide_notes)
        if args.file == "-"
        else read_path(args.file, language=language, slide_notes=slide_notes)
    )
    for note in document.notes:
        print(f"note: {visible_name(note)}", file=sys.stderr)

    def enrich(document: Any, chunks: Sequence[Any]) -> list[Any]:
        return enrich_chunks(args, document, chunks, tokenizer)

    chunks = guarded_run(document, prepared, tokenizer, enrich=enrich).chunks  # its format decides the structure
    for note in (*document.structure.notes, *document.language_notes()):  # markup a parser failed on; sentences
        print(f"note: {visible_name(note)}", file=sys.stderr)
    params = prepared.complete()
    return _Run(document, spec.name, params, tokenizer, chunks)


def _cmd_chunk(args: argparse.Namespace) -> int:
    run = _run_chunking(args)
    output = get_format(args.format)
    sys.stdout.write(output.text(run.document, run.chunks, run.tokenizer, run.document.name))
    if output.name == "text":
        document = run.document
        sys.stdout.write(
            text_footer(len(run.chunks), document.name, len(document.text), run.strategy, run.tokenizer.name)
        )
    return EXIT_OK


def _cmd_diagnose(args: argparse.Namespace) -> int:
    run = _run_chunking(args)
    report = diagnose(
        run.document,
        run.chunks,
        tokenizer=run.tokenizer,
        strategy=run.strategy,
        params=run.params,
        hygiene_rules=hygiene_of_args(args),
    )
    if args.json:
        print(json.dumps(report.to_dict(), indent=2, ensure_ascii=False, default=str))
    else:
        for line in report.summary_lines():
            print(line)
    return EXIT_OK


def _cmd_explain(args: argparse.Namespace) -> int:
    """A strategy's own analysis (its ``explain`` hook): ``summary()`` as text, ``to_dict()`` as JSON."""
    strategy = getattr(args, "strategy", None) or "semantic"
    spec = get_strategy(strategy)
    if spec.explain is None:
        explaining = ", ".join(s.name for s in registered() if s.explain is not None) or "none"
        raise UsageError(
            f"strategy {strategy!r} has no analysis to show; strategies that explain themselves: {explaining}"
        )
    run = _run_chunking(args, strategy)
    params = spec.make_params(merged_params(args, convert_param_values(spec, parse_param_args(args.param))))
    explanation = spec.explain(run.document, params, run.tokenizer)
    if args.json:
        report = {
            "document": run.document.name,
            "characters": len(run.document.text),
            "strategy": strategy,
            "tokenizer": run.tokenizer.name,
            **explanation.to_dict(),
            "chunks": chunk_records(run.chunks, run.tokenizer, run.document.text),
        }
        print(json.dumps(report, indent=2, ensure_ascii=False, default=str))
        return EXIT_OK
    print(f"document: {visible_name(run.document.name)} ({len(run.document.text)} characters)")
    print(explanation.summary())
    print(f"chunks: {len(run.chunks)}")
    return EXIT_OK


_COMMANDS = {
    "strategies": _cmd_strategies,
    "chunk": _cmd_chunk,
    "diagnose": _cmd_diagnose,
    "similarities": _cmd_explain,
    "explain": _cmd_explain,
    "eval": _cmd_eval,
    "batch": cmd_batch,
    "questions": cmd_questions,
    "app": cmd_app,
    "audit": cmd_audit,
    "show": cmd_show,
    "report": cmd_report,
    "tune": cmd_tune,
}


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 ok, 2 bad input, 1 other failure)."""
    _use_utf8(sys.stdout)
    _use_utf8(sys.stderr)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2, already reported)
        return exc.code if isinstance(exc.code, int) else (EXIT_OK if exc.code is None else EXIT_USAGE)
    if args.command is None:
        _print_error(f"choose a command: {', '.join(_COMMANDS)} (see '{PROG} --help')")
        return EXIT_USAGE
    if sys.stdout is None:  # started with standard output closed (`>&-`)
        _print_error("standard output is closed; redirect it to a file instead (e.g. > out.jsonl)")
        return EXIT_FAILURE
    stdout = sys.stdout
    sys.stdout = _GuardedOutput(stdout)
    try:
        with cli_llm_session(args), announce_with(_print_note):  # what an embedding endpoint will be sent
            code = _COMMANDS[args.command](args)
        sys.stdout.flush()  # a full disk shows here, not in the interpreter's exit
        return code
    except OutputError as exc:
        _discard_pending_output()
        _print_error(str(exc))
        return EXIT_FAILURE
    except LLMError as exc:  # the endpoint failed (after its retries): not the user's input
        _print_error(str(exc))
        return EXIT_FAILURE
    except (ChunkvizError, ValueError, TokenizerUnavailable) as exc:
        _print_error(str(exc))
        return EXIT_USAGE
    except BrokenPipeError:  # e.g. `chunkviz chunk doc.txt | head`
        _discard_pending_output()
        return EXIT_FAILURE
    except KeyboardInterrupt:  # pragma: no cover - interactive
        return 130
    except Exception as exc:  # noqa: BLE001 - the CLI never shows a traceback
        _print_error(
            f"unexpected {type(exc).__name__}: {exc} (this is a bug in chunkviz; please report it "
            "with the command line that caused it)"
        )
        return EXIT_FAILURE
    finally:
        sys.stdout = stdout
