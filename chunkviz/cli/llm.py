"""Command-line flags for the LLM endpoint, and the session a command runs in.

``add_llm_arguments(parser)`` adds ``--llm-base-url``, ``--llm-model``, ``--llm-timeout``,
``--llm-concurrency`` and ``--llm-retries`` (the API key is read only from ``OPENAI_API_KEY``:
a key on the command line would end up in shell history and process lists).
``settings_from_args(args)`` turns them into :class:`LLMSettings` over the environment, and
``cli_llm_session(args)`` opens the session a command runs in: the estimate before the calls,
progress while they run and the calls made vs cached afterwards go to stderr.
``chunkviz questions`` (``add_questions_parser``, ``cmd_questions``) writes a question set with
the model (the generation is :mod:`chunkviz.evaluation.questiongen`).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections import Counter
from typing import Any, Iterator, TextIO

from chunkviz.cli.progress import Progress
from chunkviz.core.argtypes import whole_number
from chunkviz.evaluation.questiongen import MIN_WINDOW_CHARS, ROUNDS, WINDOW_CHARS, Generated, generate_questions
from chunkviz.evaluation.questions import questions_to_jsonl, save_questions
from chunkviz.llm.client import (
    ENV_API_KEY,
    ENV_BASE_URL,
    ENV_MODEL,
    CallEstimate,
    LLMError,
    LLMSettings,
    LLMSettingsError,
    check_base_url,
)
from chunkviz.llm.session import LLMSession, use_llm
from chunkviz.text.printable import visible_name


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds, got {text!r}")
    return value


def _base_url(text: str) -> str:
    """``--llm-base-url``: checked when the command line is read, before anything is loaded
    (an empty value clears the environment's)."""
    if text.strip():
        try:
            check_base_url(text.strip())
        except LLMSettingsError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def add_llm_arguments(parser: argparse.ArgumentParser) -> None:
    """The LLM endpoint flags, in their own help group."""
    defaults = LLMSettings()
    group = parser.add_argument_group(
        "LLM endpoint", f"any OpenAI-compatible chat-completions server; the API key is read only from {ENV_API_KEY}"
    )
    group.add_argument(
        "--llm-base-url",
        type=_base_url,
        metavar="URL",
        help=f"e.g. http://localhost:11434/v1 for Ollama (default: ${ENV_BASE_URL}, else OpenAI)",
    )
    group.add_argument(
        "--llm-model", metavar="NAME", help=f"model name at that endpoint, e.g. llama3.1 (default: ${ENV_MODEL})"
    )
    group.add_argument(
        "--llm-timeout",
        type=_positive_float,
        metavar="SECONDS",
        help=f"seconds to wait for one answer (default {defaults.timeout:g})",
    )
    group.add_argument(
        "--llm-concurrency",
        type=whole_number(1, 64, "an integer"),
        metavar="N",
        help=f"requests in flight at once (default {defaults.concurrency})",
    )
    group.add_argument(
        "--llm-retries",
        type=whole_number(0, 20, "an integer"),
        metavar="N",
        help=f"retries after a rate limit, server error or timeout, with backoff (default {defaults.max_retries})",
    )


def settings_from_args(args: argparse.Namespace) -> LLMSettings:
    """Settings from the environment, with the flags that were given on top."""
    return LLMSettings.from_env(
        base_url=getattr(args, "llm_base_url", None),
        model=getattr(args, "llm_model", None),
        timeout=getattr(args, "llm_timeout", None),
        concurrency=getattr(args, "llm_concurrency", None),
        max_retries=getattr(args, "llm_retries", None),
    )


@contextlib.contextmanager
def cli_llm_session(args: argparse.Namespace, stream: TextIO | None = None) -> Iterator[LLMSession]:
    """The session of one command: ``llm: ...`` lines on stderr before, during and after the
    calls (nothing at all when the command calls no model)."""
    out = stream if stream is not None else sys.stderr

    def on_estimate(what: str, estimate: CallEstimate) -> None:
        print(
            f"llm: {what}: {estimate.summary()} (model {session.settings.model} at {session.settings.endpoint})",
            file=out,
            flush=True,
        )

    display = Progress(out)  # a bar on a terminal, whole lines in a log (chunkviz.cli.progress)

    def progress(done: int, total: int) -> None:
        if total:
            display.update("llm", done, total, unit="answers")

    with use_llm(settings_from_args(args), progress=progress, on_estimate=on_estimate) as session:
        try:
            yield session
        finally:
            display.close()
            if session.used and (session.stats.made or session.stats.cached or session.stats.failed):
                print(f"llm: {session.stats.summary()}", file=out, flush=True)


__all__ = ["add_llm_arguments", "cli_llm_session", "settings_from_args"]


# ---- chunkviz questions ---------------------------------------------------------------------------------
def add_questions_parser(commands: Any) -> argparse.ArgumentParser:
    """The ``questions`` subcommand on ``commands`` (the parser's subparsers), with the LLM flags."""
    p = commands.add_parser(
        "questions",
        help="write an evaluation question set for your documents with an LLM (question + exact excerpts, as Chroma's study did)",
        description=(
            "The model reads each document in windows and writes questions with the excerpts that answer them; excerpts "
            "not found verbatim or found more than once, and duplicates, are dropped and counted. The file is what "
            "'chunkviz eval --questions' reads. Needs an LLM endpoint; calls are cached."
        ),
    )
    p.add_argument("documents", nargs="+", metavar="DOC", help="the documents to write questions about")
    p.add_argument(
        "--out", required=True, metavar="FILE", help="the question file to write (JSONL; '-' for standard output)"
    )
    p.add_argument(
        "-n", "--count", type=whole_number(1), default=10, metavar="N", help="questions per document (default 10)"
    )
    p.add_argument(
        "--window-chars",
        type=whole_number(MIN_WINDOW_CHARS),
        default=WINDOW_CHARS,
        metavar="N",
        help=f"characters the model reads per call (default {WINDOW_CHARS}, as in the study)",
    )
    p.add_argument(
        "--rounds",
        type=whole_number(1),
        default=ROUNDS,
        metavar="N",
        help=f"ask again while questions are missing, at most N rounds in all (default {ROUNDS})",
    )
    add_llm_arguments(p)
    return p


def cmd_questions(args: argparse.Namespace, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``chunkviz questions``: generate, check, save; one summary line per document on stderr.
    Raises LLMNotConfigured without an endpoint, LLMError when the endpoint fails or no question
    survives, ChunkvizError for unreadable documents."""
    from chunkviz.cli.params import language_of_args
    from chunkviz.core.errors import ChunkvizError
    from chunkviz.core.files import check_output
    from chunkviz.document.read import read_path

    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    if args.out != "-":  # the question file is no document, and can be written: known before any call
        check_output(args.out, "--out", [("the document", path) for path in args.documents])
    documents = [read_path(path, language=language_of_args(args)) for path in args.documents]
    names = Counter(doc.name for doc in documents)
    twice = [name for name, count in names.items() if count > 1]
    if twice:
        raise ChunkvizError(f"document {twice[0]!r} is given more than once; give each document once")
    corpus = {doc.name: doc.text for doc in documents}
    generated: list[Generated] = []
    with cli_llm_session(args, err) as session:
        for doc in documents:
            result = generate_questions(
                doc, args.count, window_chars=args.window_chars, rounds=args.rounds, session=session
            )
            print(result.summary(), file=err, flush=True)
            generated.append(result)
    questions = [q for g in generated for q in g.questions]
    if not questions:
        proposed = sum(g.proposed for g in generated)
        raise LLMError(
            f"no question survived the checks ({proposed} proposed, none kept): nothing written to {visible_name(args.out)}. Try a more "
            "capable model (one that copies excerpts exactly), or other documents"
        )
    if args.out == "-":
        out.write(questions_to_jsonl(questions, corpus))
    else:
        save_questions(questions, args.out, corpus)
        print(
            f"wrote {len(questions)} question{'' if len(questions) == 1 else 's'} to {visible_name(args.out)}",
            file=err,
            flush=True,
        )
    return 0
