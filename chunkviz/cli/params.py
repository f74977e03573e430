"""``-p key=value`` on the command line: read into a strategy's parameter values, for every command
that takes them (``chunkviz chunk``, ``diagnose``, ``eval``, ``report`` ...); and ``--language``,
for every command that reads documents; and ``--config chunkviz.json`` / ``--column N``, the
configuration's command-line glue (the file's model is :mod:`chunkviz.evaluation.config`).

Scalars stay strings (the registry converts and range-checks them, naming the parameter); a list
parameter's value is JSON, read within the bounds of a side file (:func:`chunkviz.core.sidefile.parse_json`).
"""

from __future__ import annotations

import argparse
import functools
import json
from typing import Any, Mapping, Sequence

from chunkviz.core.argtypes import whole_number
from chunkviz.core.errors import ChunkvizError, InvalidParamError
from chunkviz.core.sidefile import parse_json
from chunkviz.core.types import Chunk
from chunkviz.document.language import AUTO, normalize_language
from chunkviz.evaluation.config import ConfigError, Enrichment, load_config
from chunkviz.strategies.base import integral_number, shown
from chunkviz.text.tokenizers import DEFAULT_TOKENIZER, Tokenizer


class UsageError(ChunkvizError, ValueError):
    """A malformed command line (reported as one line, exit status 2)."""


def parse_param_args(pairs: Sequence[str]) -> dict[str, str]:
    """``["chunk_size=200", "separators=markdown"]`` -> ``{"chunk_size": "200", ...}``.

    The value is everything after the first ``=``; ``-`` in a key is read as ``_``.
    """
    raw: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key:
            raise UsageError(f"-p expects key=value, got {pair!r} (e.g. -p chunk_size=200)")
        raw[key] = value
    return raw


def language_argument(value: str) -> str | None:
    """``--language``'s value as a language code (None: detect); a bad one is a usage error."""
    try:
        return normalize_language(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_language_argument(parser: argparse.ArgumentParser) -> None:
    """``--language CODE``: the language of the documents a command reads (default: detected)."""
    parser.add_argument(
        "--language",
        type=language_argument,
        default=None,
        metavar="CODE",
        help=f"the document's language, an ISO 639-1 code such as de, ja or ar: it chooses the sentence "
        f"segmenter (default {AUTO}: detected from the text)",
    )


def language_of_args(args: argparse.Namespace) -> str | None:
    """The ``--language`` a command was given (None: detect; also for a parser made without it)."""
    language: str | None = getattr(args, "language", None)
    return language


def add_slide_notes_argument(parser: argparse.ArgumentParser) -> None:
    """``--slide-notes``: a presentation's (PPTX) speaker notes are read with its slides."""
    parser.add_argument(
        "--slide-notes",
        action="store_true",
        help="read a presentation's (PPTX) speaker notes too, after each slide's content",
    )


def slide_notes_of_args(args: argparse.Namespace) -> bool:
    """Whether ``--slide-notes`` was given (False for a parser made without it)."""
    return bool(getattr(args, "slide_notes", False))


def _type_parts(type_name: str) -> list[str]:
    return [part.strip() for part in type_name.split("|")]


def convert_param_values(strategy: Any, raw: dict[str, str]) -> dict[str, Any]:
    """Turn CLI strings into values ``Strategy.make_params`` accepts.

    Scalars stay strings (the registry converts and range-checks them, naming the parameter);
    for list-typed parameters a value starting with ``[`` is read as JSON; ``none``/``null`` is
    None for optional parameters, and numbers are converted for union types.
    """
    infos = {p.name: p for p in strategy.params_info()}
    values: dict[str, Any] = {}
    for key, text in raw.items():
        info = infos.get(key)
        if info is None:  # make_params reports the unknown key with the valid ones
            values[key] = text
            continue
        parts = _type_parts(info.type)
        has_list = any(p.startswith("list") for p in parts)
        stripped = text.strip()
        if has_list and (stripped.startswith("[") or parts == [p for p in parts if p.startswith("list")]):
            try:  # nesting and number lengths bounded, as in a side file
                value = parse_json(stripped, functools.partial(_param_error, strategy.name, key))
            except json.JSONDecodeError as exc:
                raise InvalidParamError(
                    strategy.name, key, f'must be a JSON list, e.g. \'["\\n\\n", " "]\' ({exc.msg}); got {shown(text)}'
                ) from None
            if not isinstance(value, list):
                raise InvalidParamError(strategy.name, key, f"must be a JSON list, got {shown(text)}")
            if any(p == "list[str]" for p in parts) and not all(isinstance(v, str) for v in value):
                raise InvalidParamError(strategy.name, key, f"must be a JSON list of strings, got {text!r}")
            values[key] = value
            continue
        if "None" in parts and stripped.lower() in ("none", "null"):
            values[key] = None
            continue
        if len(parts) > 1:  # e.g. int | None: the registry converts single types only
            values[key] = _convert_union(parts, stripped, text)
            continue
        values[key] = text
    return values


def _param_error(strategy: str, key: str, line: int | None, problem: str) -> InvalidParamError:
    return InvalidParamError(strategy, key, problem)


def _convert_union(parts: list[str], stripped: str, text: str) -> Any:
    if "int" in parts:
        whole = integral_number(stripped)  # "2" and "2.0", as make_params reads an int
        if whole is not None:
            return whole
    if "float" in parts:
        try:
            return float(stripped)
        except ValueError:
            pass
    if "bool" in parts and stripped.lower() in ("true", "false"):
        return stripped.lower() == "true"
    return text


def _hygiene_pair(value: str) -> str:
    """One ``--hygiene KEY=VALUE``, checked now (a bad one is a usage error naming the keys)."""
    from chunkviz.diagnostics.hygiene import HygieneRules  # noqa: PLC0415 - the diagnostics only when asked

    try:
        HygieneRules.parse([value])
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return value


def add_hygiene_argument(parser: argparse.ArgumentParser) -> None:
    """``--hygiene KEY=VALUE`` (repeatable): the thresholds of the hygiene flags."""
    parser.add_argument(
        "--hygiene",
        action="append",
        default=[],
        type=_hygiene_pair,
        metavar="KEY=VALUE",
        help="a hygiene flag's threshold; repeat for several: near_duplicate=0.8 (share of word triples), "
        "boilerplate=4 (places a line recurs at), low_information=3 (content words), duplicate=, secret=, "
        "instruction= on/off; any of them =off",
    )


def hygiene_of_args(args: argparse.Namespace) -> Any:
    """The :class:`~chunkviz.diagnostics.hygiene.HygieneRules` of ``--hygiene`` (the defaults without it)."""
    from chunkviz.diagnostics.hygiene import HygieneRules  # noqa: PLC0415

    return HygieneRules.parse(getattr(args, "hygiene", None) or [])


# --------------------------------------------------------------------------- --config chunkviz.json


def add_config_argument(parser: argparse.ArgumentParser) -> None:
    """``--config FILE`` and ``--column N`` for a command that chunks."""
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="a chunkviz.json (downloaded from the app): strategy, parameters, tokenizer and enrichment; "
        "-p and --tokenizer given on the command line win",
    )
    parser.add_argument(
        "--column",
        type=whole_number(1, what="a column number (1, 2, ...)"),
        metavar="N",
        help="which column of a configuration with several (1 = the first)",
    )


def apply_config(args: argparse.Namespace, strategy: str | None = None) -> None:
    """Fill ``args`` from ``args.config`` (when given), in place, before the command chunks.

    Sets ``args.strategy`` (the column's; a different ``-s`` is an error), ``args.tokenizer``
    (the command line's when given, else the column's, else the file's, else the default),
    ``args.config_params`` (the column's parameters: merge the ``-p`` values over them, see
    :func:`merged_params`) and ``args.enrichment`` (an :class:`Enrichment` or None, see
    :func:`enrich_chunks`). ``strategy`` is the strategy a command always runs (e.g.
    ``similarities``: ``semantic``). Without ``--config`` only the defaults are filled in, and a
    missing ``-s`` is reported.
    """
    path = getattr(args, "config", None)
    given = getattr(args, "strategy", None)
    args.config_params = {}
    args.enrichment = None
    if path is None:
        if getattr(args, "column", None) is not None:
            raise ConfigError("--column chooses a column of --config FILE; give the file too")
        if getattr(args, "tokenizer", None) is None:
            args.tokenizer = DEFAULT_TOKENIZER
        if strategy is None and hasattr(args, "strategy") and not given:
            raise ConfigError(
                "choose a strategy with -s NAME (see 'chunkviz strategies'), or give --config chunkviz.json"
            )
        return
    config = load_config(path)
    column = config.column(getattr(args, "column", None))
    wanted = strategy or given
    if wanted and wanted != column.strategy:
        raise ConfigError(
            f"{config.source}: the column runs {column.strategy!r}, the command {wanted!r}; "
            "drop -s to use the file, or choose another --column"
        )
    if hasattr(args, "strategy") or strategy is None:
        args.strategy = column.strategy
    if getattr(args, "tokenizer", None) is None:
        args.tokenizer = config.tokenizer_of(column)
    args.config_params = dict(column.params)
    args.enrichment = config.enrichment


def merged_params(args: argparse.Namespace, command_line: Mapping[str, Any]) -> dict[str, Any]:
    """The configuration's parameters with the command line's ``-p`` values on top."""
    return {**getattr(args, "config_params", {}), **dict(command_line)}


def enrich_chunks(
    args: argparse.Namespace, document: Any, chunks: Sequence[Chunk], tokenizer: str | Tokenizer
) -> list[Chunk]:
    """``chunks`` enriched as the configuration says (unchanged without enrichment)."""
    enrichment: Enrichment | None = getattr(args, "enrichment", None)
    if enrichment is None:
        return list(chunks)
    return enrichment.apply(document, chunks, source=getattr(document, "name", "") or "", tokenizer=tokenizer)
