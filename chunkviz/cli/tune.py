"""``chunkviz tune``: search strategies × sizes × overlaps × retrievers for the best configuration.

    chunkviz tune CORPUS... --questions FILE [--strategies A,B] [--retrievers dense,hybrid] [--budget N]
        [--sizes 64,128,256,512] [--separators default,chroma] [--keep-separator start,end] [--k 5] [--maximise iou] [--subject-to recall>=0.8] [-o chunkviz.json]
        [--plot frontier.html] [--json study.json]

Progress (what is left, an ETA) goes to stderr; the frontier tables, the chosen configuration
and the ``chunkviz eval`` command that reproduces it to stdout. The chosen configuration is
written as a chunkviz.json (``-o``). When no configuration tried meets the constraints, the
best value each constrained metric reached and the closest configuration are named, nothing is
written and the exit status is 1; a size outside a strategy's range is refused before any work,
and a search where no chunking could be evaluated is one line naming the first failure (exit 2).
The method:
:mod:`chunkviz.evaluation.tune`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from chunkviz.cli.progress import Progress
from chunkviz.core.files import check_outputs, write_text_atomic
from chunkviz.evaluation.retrievers import RETRIEVERS
from chunkviz.evaluation.tune import (
    DEFAULT_BUDGET,
    DEFAULT_SIZES,
    DEFAULT_STRATEGIES,
    FINISHED,
    METHOD,
    TITLES,
    Constraint,
    Point,
    RetrievalGrid,
    Study,
    TuneError,
    TuneProgress,
    best,
    closest,
    eval_command,
    frontier_figure,
    frontier_table,
    is_fraction,
    metric_name,
    parse_constraints,
)
from chunkviz.evaluation.tunespace import DEFAULT_ALPHAS, DEFAULT_FUSIONS
from chunkviz.semantic.embeddings import MODEL_HELP
from chunkviz.splitting import PRESETS
from chunkviz.text.printable import visible_name
from chunkviz.text.tokenizers import DEFAULT_TOKENIZER, tokenizer_names

EXIT_OK, EXIT_NOT_MET = 0, 1


def add_tune_parser(commands: Any) -> None:
    p = commands.add_parser(
        "tune",
        help="search strategies x sizes x overlaps x retrievers: the frontier of recall against IoU and tokens, "
        "and the best configuration under a constraint",
    )
    p.add_argument("corpus", nargs="+", metavar="CORPUS", help="the documents the questions are about")
    p.add_argument(
        "--questions", required=True, metavar="FILE", help="question file: JSONL (spans or excerpts) or Chroma's CSV"
    )
    p.add_argument(
        "--strategies",
        default=",".join(DEFAULT_STRATEGIES),
        metavar="A,B,...",
        help=f"strategies to search, each with a size parameter (default {','.join(DEFAULT_STRATEGIES)})",
    )
    p.add_argument(
        "--retrievers",
        default=",".join(RETRIEVERS),
        metavar="R,R,...",
        help=f"retrievers to evaluate each chunking with: {', '.join(RETRIEVERS)} (default all; they share its embeddings)",
    )
    p.add_argument(
        "--fusions",
        default=",".join(DEFAULT_FUSIONS),
        metavar="F,F",
        help=f"hybrid's fusions to search: rrf, weighted (default {','.join(DEFAULT_FUSIONS)})",
    )
    p.add_argument(
        "--alphas",
        default=",".join(f"{a:g}" for a in DEFAULT_ALPHAS),
        metavar="A,A,...",
        help=f"the dense weights of the weighted fusion to search, 0..1 (default {','.join(f'{a:g}' for a in DEFAULT_ALPHAS)})",
    )
    p.add_argument(
        "--rerank",
        metavar="FOLDER",
        help="also search each retrieval reranked by this local cross-encoder folder (chunkviz downloads none)",
    )
    p.add_argument(
        "--rerank-candidates",
        type=int,
        default=20,
        metavar="N",
        help="candidates the cross-encoder re-scores (default 20)",
    )
    p.add_argument(
        "--budget",
        type=int,
        default=DEFAULT_BUDGET,
        metavar="N",
        help=f"at most N chunkings embedded (each with every retriever; default {DEFAULT_BUDGET})",
    )
    p.add_argument(
        "--sizes",
        default=",".join(map(str, DEFAULT_SIZES)),
        metavar="S,S,...",
        help=f"the coarse grid's sizes, in each strategy's size unit (default {','.join(map(str, DEFAULT_SIZES))})",
    )
    p.add_argument(
        "--separators",
        metavar="P,P,...",
        help=f"also search these separator presets ({', '.join(PRESETS)}) on the strategies that declare separators "
        "tunable (recursive, recursive_langchain; default: each strategy's own)",
    )
    p.add_argument(
        "--keep-separator",
        metavar="start,end",
        help="also search where a split keeps its separator, on the strategies that declare it tunable "
        "(recursive_langchain; default: its own, start)",
    )
    p.add_argument("--k", type=int, default=5, help="chunks retrieved per question (default 5)")
    p.add_argument(
        "--tokenizer",
        default=DEFAULT_TOKENIZER,
        metavar="NAME",
        help=f"tokenizer of the sizes and of tokens per question: {', '.join(tokenizer_names())} (default {DEFAULT_TOKENIZER})",
    )
    p.add_argument("--model", default=None, metavar="NAME", help=MODEL_HELP)
    goal = p.add_mutually_exclusive_group()
    goal.add_argument(
        "--maximise",
        "--maximize",
        metavar="METRIC",
        help="the metric the chosen configuration maximises: recall, iou, precision, precision_omega, recall_at_k, mrr, "
        "ndcg (NDCG@k), map (default iou)",
    )
    goal.add_argument("--minimise", "--minimize", metavar="METRIC", help="or minimises: tokens (per question)")
    p.add_argument(
        "--subject-to",
        action="append",
        default=[],
        metavar="CONSTRAINT",
        help="e.g. recall>=0.8 (or recall>=80%%), tokens<=600; repeat or separate with commas",
    )
    p.add_argument(
        "-o",
        "--output",
        default="chunkviz.json",
        metavar="FILE",
        help="the chosen configuration (default chunkviz.json)",
    )
    p.add_argument("--plot", metavar="FILE", help="write the frontier figure (recall against IoU) as an HTML file")
    p.add_argument("--json", metavar="PATH", help="write every configuration tried and its scores as JSON")


def _list(text: str, flag: str) -> list[str]:
    items = [item.strip() for item in text.split(",") if item.strip()]
    if not items:
        raise TuneError(f"{flag} {text!r}: give one or more values separated by commas")
    return items


def _sizes(text: str) -> list[int]:
    items = _list(text, "--sizes")
    bad = [item for item in items if not item.isdigit() or int(item) < 1]
    if bad:
        raise TuneError(
            f"--sizes {text!r}: {bad[0]!r} is not a whole number of 1 or more; write e.g. --sizes 64,128,256"
        )
    return [int(item) for item in items]


def cmd_tune(args: argparse.Namespace) -> int:
    from chunkviz.cli.params import language_of_args
    from chunkviz.document.read import read_path
    from chunkviz.evaluation.published import MINILM_ROWS, is_chroma
    from chunkviz.evaluation.questions import load_questions
    from chunkviz.evaluation.tune import check_axes, check_sizes, check_strategy, tune
    from chunkviz.text.tokenizers import get_tokenizer

    # every setting is checked before anything is read or embedded
    if args.budget < 1:
        raise TuneError(f"--budget must be at least 1 (chunkings to embed), got {args.budget}")
    if args.k < 1:
        raise TuneError(f"--k must be at least 1, got {args.k}")
    strategies = [check_strategy(s) for s in _list(args.strategies, "--strategies")]
    grid = _retrieval_grid(args)
    sizes = _sizes(args.sizes)
    try:
        check_sizes(strategies, sizes)
    except TuneError as exc:
        raise TuneError(f"--sizes {args.sizes!r}: {exc}") from None
    axes = check_axes(strategies, _axes(args))
    get_tokenizer(args.tokenizer)
    minimise = args.minimise is not None
    objective = metric_name(args.minimise or args.maximise or "iou")
    constraints = parse_constraints(args.subject_to)
    inputs = [("the question file", args.questions), *(("the document", path) for path in args.corpus)]
    check_outputs([("-o", args.output), ("--json", args.json), ("--plot", args.plot)], inputs)
    documents = [read_path(path, language=language_of_args(args)) for path in args.corpus]
    corpus = {doc.name: doc for doc in documents}
    texts = {name: doc.text for name, doc in corpus.items()}
    questions = load_questions(args.questions, texts)

    display = Progress(sys.stderr)  # a bar on a terminal, whole lines in a log

    started: set[tuple[int, str]] = set()

    def progress(step: TuneProgress) -> None:
        if step.label != FINISHED and (step.done, step.label) not in started:  # a line as each chunking starts
            started.add((step.done, step.label))
            display.note(step.line())
        share = step.embedded / step.to_embed if step.to_embed else 0.0
        detail = step.line().split(" · ")[1] if step.label != FINISHED else ""
        done = step.done if step.label == FINISHED else min(step.done + share, step.budget)
        display.update("tune", done, step.budget, unit="chunkings", detail=detail, line=step.line(),
                       final=step.label == FINISHED)  # fmt: skip

    with display:
        study = tune(
            corpus,
            questions,
            strategies=strategies,
            retrieval=grid,
            budget=args.budget,
            k=args.k,
            sizes=sizes,
            axes=axes,
            tokenizer=args.tokenizer,
            constraints=constraints,
            model=args.model,
            progress=progress,
        )
    if not study.points:
        raise TuneError(_nothing_evaluated(study))
    published = MINILM_ROWS if is_chroma(texts) and args.k == 5 else ()
    chosen = best(study.points, objective, constraints, minimise=minimise or None)
    _report(args, study, len(questions), len(corpus), chosen)
    if args.json:
        chosen_at = next((i for i, p in enumerate(study.points) if p is chosen), None)
        write_text_atomic(args.json, json.dumps({**study.to_dict(), "chosen": chosen_at}, indent=2, default=str) + "\n")
    if args.plot:
        figure = frontier_figure(study, "iou", "recall", published, chosen)
        write_text_atomic(args.plot, figure.to_html(include_plotlyjs=True, full_html=True))
        print(f"frontier figure: {visible_name(args.plot)}")
    goal = f"{'minimise' if minimise else 'maximise'} {TITLES[objective]}"
    goal += f" subject to {', '.join(map(str, constraints))}" if constraints else ""
    if chosen is None:
        near = closest(study.points, constraints)
        print(f"\nNo configuration tried meets {', '.join(map(str, constraints))}.")
        print(f"Best reached: {'; '.join(_best_reached(study, c) for c in constraints)}.")
        if near is not None:
            print(f"Closest: {_plain(near)} with {near.retrieval()} retrieval · {_scores(near)}")
            print(f"  {eval_command(near, args.corpus, args.questions, args.k, args.model)}")
        print(
            f"Nothing written to {visible_name(args.output)}; raise --budget, add --sizes or strategies, or relax the constraint."
        )
        return EXIT_NOT_MET
    print(f"\nBest ({goal}): {_plain(chosen)} with {chosen.retrieval()} retrieval · {_scores(chosen)}")
    print("Reproduce it:")
    print(f"  {eval_command(chosen, args.corpus, args.questions, args.k, args.model)}")
    _save(chosen, args.output, args.model)
    print(f"configuration written to {visible_name(args.output)}")
    return EXIT_OK


def _axes(args: argparse.Namespace) -> dict[str, list[str]]:
    """The tunable parameters' values of ``--separators`` and ``--keep-separator`` (those given)."""
    flags = {
        "separators": ("--separators", args.separators),
        "keep_separator": ("--keep-separator", args.keep_separator),
    }
    return {name: _list(text, flag) for name, (flag, text) in flags.items() if text is not None}


def _retrieval_grid(args: argparse.Namespace) -> RetrievalGrid:
    """The retrieval axes of ``--retrievers``, ``--fusions``, ``--alphas`` and ``--rerank``
    (a TuneError naming the flag)."""
    from chunkviz.evaluation.retrievers import check_alpha, check_fusion, check_retriever

    def checked(flag: str, text: str, check: Callable[[Any], Any]) -> tuple[Any, ...]:
        out = []
        for item in _list(text, flag):
            try:
                out.append(check(float(item) if flag == "--alphas" else item))
            except ValueError as exc:
                raise TuneError(f"{flag}: {exc}") from None
        return tuple(out)

    return RetrievalGrid(
        checked("--retrievers", args.retrievers, check_retriever),
        checked("--fusions", args.fusions, check_fusion),
        checked("--alphas", args.alphas, check_alpha),
        args.rerank,
        args.rerank_candidates,
    )


def _nothing_evaluated(study: Study) -> str:
    """Why no configuration has scores: the first chunking's failure (every one was skipped)."""
    if not study.skipped:
        return "no configuration could be made from these strategies and sizes"
    label, why = study.skipped[0]
    more = f" ({len(study.skipped) - 1} more chunkings failed too)" if len(study.skipped) > 1 else ""
    return f"no configuration could be evaluated: {label}: {why}{more}"


def _best_reached(study: Study, constraint: Constraint) -> str:
    """The best value of the constraint's metric any configuration reached, in the constraint's
    direction, and where: ``recall 97.6% (recursive(chunk_size=64, overlap=0) with bm25 retrieval)``."""
    top = best(study.points, constraint.metric, minimise=constraint.op in ("<=", "<"))
    assert top is not None  # the study has points (checked before the report)
    value = top.value(constraint.metric)
    shown = f"{100 * value:.1f}%" if is_fraction(constraint.metric) else f"{value:,.0f}"
    return f"{TITLES[constraint.metric]} {shown} ({_plain(top)} with {top.retrieval()} retrieval)"


def _plain(p: Point) -> str:
    c = p.configuration
    params = ", ".join(f"{k}={v}" for k, v in sorted(c.params.items()))
    return f"{c.strategy}({params})"


def _scores(p: Point) -> str:
    return (
        f"recall {100 * p.value('recall'):.1f}, IoU {100 * p.value('iou'):.1f}, precision {100 * p.value('precision'):.1f}, "
        f"recall@k {100 * p.value('recall_at_k'):.1f}, {p.value('tokens'):,.0f} tokens per question"
    )


def _report(args: argparse.Namespace, study: Study, n_questions: int, n_documents: int, chosen: Point | None) -> None:
    print(
        f"{n_questions} questions on {n_documents} document(s), top {study.k} chunks each; "
        f"{study.chunkings} chunkings (budget {study.budget}) × {len(study.retrievers)} retriever(s) in "
        f"{study.seconds:.0f} s; scores are means in %"
    )
    print(f"method: {METHOD}")
    print(f"retrieval searched: {'; '.join(study.retrieval)}")
    if study.axes:
        print(f"parameters searched: {'; '.join(study.axes)}")
    for label, why in study.skipped:
        print(f"skipped {label}: {why}")
    for retriever in study.retrievers:
        print(f"\nFrontier, recall against IoU ({retriever}):")
        print(frontier_table(study.frontier("iou", "recall", retriever), study.k, chosen))
    if len(study.retrievers) > 1:
        print("\nFrontier, recall against IoU (all retrievers):")
        print(frontier_table(study.frontier("iou", "recall"), study.k, chosen))
    print("\nFrontier, recall against tokens retrieved per question (all retrievers):")
    print(frontier_table(study.frontier("tokens", "recall"), study.k, chosen))


def _save(point: Point, path: str, model: str | None = None) -> None:
    from chunkviz.evaluation.config import save_config
    from chunkviz.evaluation.tunefigure import point_config

    save_config(point_config(point, model), path)  # atomic; a failure is one line naming the file (chunkviz.core.files)
