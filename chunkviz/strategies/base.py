"""The strategy registry: names, validated parameter dataclasses, chunking functions."""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass
from typing import Any, Callable, Generic, Mapping, TypeVar

from chunkviz.errors import InvalidParamError, UnknownStrategyError
from chunkviz.tokenizers import Tokenizer
from chunkviz.types import Chunk

P = TypeVar("P")
ChunkFunction = Callable[[str, Any, Tokenizer], list[Chunk]]


def param(
    default: Any,
    help: str,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    choices: tuple[str, ...] | None = None,
    applies_when: Mapping[str, tuple[Any, ...]] | None = None,
) -> Any:
    """A dataclass field that carries its description and allowed range.

    ``applies_when`` names other parameters' values under which this one matters (e.g. a
    multiplier that only a given threshold type uses); user interfaces may hide it otherwise.
    """
    meta = {"help": help, "minimum": minimum, "maximum": maximum, "choices": choices, "applies_when": applies_when}
    if isinstance(default, list):
        return dataclasses.field(default_factory=lambda: list(default), metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


@dataclass(frozen=True)
class ParamInfo:
    """A parameter as shown to users (CLI, app controls)."""

    name: str
    type: str
    default: Any
    help: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] | None = None
    applies_when: Mapping[str, tuple[Any, ...]] | None = None

    def applies(self, values: Mapping[str, Any]) -> bool:
        """Whether this parameter matters given the other parameters' values."""
        if not self.applies_when:
            return True
        return all(values.get(name) in allowed for name, allowed in self.applies_when.items())

    def range_text(self) -> str:
        if self.choices:
            return "one of " + ", ".join(self.choices)
        if self.minimum is not None and self.maximum is not None:
            return f"{_number(self.minimum)}..{_number(self.maximum)}"
        if self.minimum is not None:
            return f">= {_number(self.minimum)}"
        if self.maximum is not None:
            return f"<= {_number(self.maximum)}"
        return "any"


@dataclass(frozen=True)
class Strategy(Generic[P]):
    """A registered chunking strategy."""

    name: str
    description: str
    params_type: type
    function: ChunkFunction
    #: Optional: ``explain(text, params, tokenizer)`` returns a strategy-specific analysis object
    #: (e.g. the similarity curve of semantic chunking) that interfaces can plot.
    explain: Callable[[str, Any, Tokenizer], Any] | None = None
    #: Optional: ``prepare(text, params, tokenizer, progress)`` does the expensive, cacheable
    #: precomputation (e.g. embeddings) up front, calling ``progress(done, total)``.
    prepare: Callable[[str, Any, Tokenizer, Callable[[int, int], None]], None] | None = None

    def params_info(self) -> list[ParamInfo]:
        hints = typing.get_type_hints(self.params_type)
        infos = []
        for f in dataclasses.fields(self.params_type):
            default = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]
            infos.append(
                ParamInfo(
                    name=f.name,
                    type=_type_name(hints[f.name]),
                    default=default,
                    help=f.metadata.get("help", ""),
                    minimum=f.metadata.get("minimum"),
                    maximum=f.metadata.get("maximum"),
                    choices=f.metadata.get("choices"),
                    applies_when=f.metadata.get("applies_when"),
                )
            )
        return infos

    def describe(self) -> dict[str, Any]:
        """A JSON-ready description: name, description and params with ranges."""
        return {
            "name": self.name,
            "description": self.description,
            "params": [
                {
                    "name": p.name,
                    "type": p.type,
                    "default": p.default,
                    "help": p.help,
                    "minimum": p.minimum,
                    "maximum": p.maximum,
                    "choices": list(p.choices) if p.choices else None,
                    "range": p.range_text(),
                    "applies_when": {k: list(v) for k, v in p.applies_when.items()} if p.applies_when else None,
                }
                for p in self.params_info()
            ],
        }

    def make_params(self, raw: Mapping[str, Any] | None = None) -> Any:
        """Validated params from user values (strings from the CLI are converted)."""
        raw = dict(raw or {})
        infos = {p.name: p for p in self.params_info()}
        for key in raw:
            if key not in infos:
                valid = ", ".join(infos) or "none"
                raise InvalidParamError(self.name, key, f"is unknown; valid parameters: {valid}")
        values = {key: _coerce(self.name, infos[key], value) for key, value in raw.items()}
        for key, value in values.items():
            _check_range(self.name, infos[key], value)
        try:
            return self.params_type(**values)
        except InvalidParamError:
            raise
        except (TypeError, ValueError) as exc:  # pragma: no cover - defensive
            raise InvalidParamError(self.name, "?", str(exc)) from exc


def _number(value: float) -> str:
    return f"{int(value):,}" if float(value).is_integer() else f"{value:g}"


def check_overlap_below_size(strategy: str, chunk_size: int, overlap: int, default_overlap: int) -> None:
    """Raise a clear error when overlap >= chunk_size (mentioning a default the user did not set)."""
    if overlap < chunk_size:
        return
    hint = f" (the default overlap is {default_overlap}; set overlap below {chunk_size})" if overlap == default_overlap else ""
    raise InvalidParamError(strategy, "overlap", f"must be smaller than chunk_size ({chunk_size}), got {overlap}{hint}")


def _type_name(hint: Any) -> str:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return " | ".join(_type_name(a) for a in typing.get_args(hint))
    if origin is list:
        (arg,) = typing.get_args(hint) or (Any,)
        return f"list[{_type_name(arg)}]"
    if origin is typing.Literal:
        return "str"
    return getattr(hint, "__name__", str(hint))


def _coerce(strategy: str, info: ParamInfo, value: Any) -> Any:
    """Convert a user value (possibly a CLI string) to the parameter's type."""
    kind = info.type
    allowed = info.range_text()
    if kind == "int":
        if isinstance(value, bool):
            raise InvalidParamError(strategy, info.name, f"must be an integer ({allowed}), got {value!r}")
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, int):
            return value
        if isinstance(value, str):
            try:
                return int(value.strip())
            except ValueError:
                pass
        raise InvalidParamError(strategy, info.name, f"must be an integer ({allowed}), got {value!r}")
    if kind == "float":
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, str):
            try:
                return float(value.strip())
            except ValueError:
                pass
        raise InvalidParamError(strategy, info.name, f"must be a number ({allowed}), got {value!r}")
    if kind == "bool":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in {"true", "1", "yes", "on", "false", "0", "no", "off"}:
            return value.strip().lower() in {"true", "1", "yes", "on"}
        raise InvalidParamError(strategy, info.name, f"must be true or false, got {value!r}")
    return value


def _check_range(strategy: str, info: ParamInfo, value: Any) -> None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if (info.minimum is not None and value < info.minimum) or (info.maximum is not None and value > info.maximum):
            raise InvalidParamError(strategy, info.name, f"must be in {info.range_text()}, got {value!r}")
    if info.choices and isinstance(value, str) and value not in info.choices:
        raise InvalidParamError(strategy, info.name, f"must be {info.range_text()}, got {value!r}")


_REGISTRY: dict[str, Strategy[Any]] = {}


def register(
    name: str,
    description: str,
    params_type: type,
    explain: Callable[[str, Any, Tokenizer], Any] | None = None,
    prepare: Callable[[str, Any, Tokenizer, Callable[[int, int], None]], None] | None = None,
) -> Callable[[ChunkFunction], ChunkFunction]:
    """Decorator: register ``function(text, params, tokenizer) -> list[Chunk]`` under ``name``."""

    def decorate(function: ChunkFunction) -> ChunkFunction:
        if name in _REGISTRY:
            raise ValueError(f"strategy {name!r} is registered twice")
        _REGISTRY[name] = Strategy(name, description, params_type, function, explain, prepare)
        return function

    return decorate


def get_strategy(name: str) -> Strategy[Any]:
    """The registered strategy ``name``; an unknown name lists the valid ones."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise UnknownStrategyError(name, sorted(_REGISTRY)) from None


def registered() -> list[Strategy[Any]]:
    return list(_REGISTRY.values())
