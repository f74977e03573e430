"""The strategy registry: names, self-validating parameter dataclasses, chunking functions.

A strategy is one definition: a frozen params dataclass whose fields are declared with
:func:`param` (help, range, choices, overlap unit, presets) and a function registered with
:func:`register`. Everything else (CLI, app controls, diagnostics) reads that declaration.

Validation happens once, centrally: :func:`register` installs :func:`validate_fields` into the
params class, so *every* construction (``Params(...)``, ``dataclasses.replace``, ``make_params``)
checks the declared types, ranges and choices first, then every ``min_X`` / ``max_X`` pair
(``min_X <= max_X``; a ``max_X`` of 0, which means "the default limit", is the strategy's own
check), and then runs the class's own ``__post_init__`` (its other cross-field checks). We wrap rather than require a base class so that a
strategy's params stay a plain dataclass and no strategy file has to change.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import functools
import math
import types
import typing
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Generic, Iterator, Mapping, Sequence, TypeVar

from chunkviz.core.errors import InvalidParamError, UnknownStrategyError
from chunkviz.core.types import Chunk
from chunkviz.document.model import Document
from chunkviz.text.tokenizers import Tokenizer

if (
    TYPE_CHECKING
):  # chunkviz.core.explain imports plotly, chunkviz.llm the client: the registry needs neither at run time
    from chunkviz.core.explain import Explanation
    from chunkviz.llm.client import CallEstimate

P = TypeVar("P")
ChunkFunction = Callable[[Document, Any, Tokenizer], list[Chunk]]
ExplainFunction = Callable[[Document, Any, Tokenizer], "Explanation"]
PrepareFunction = Callable[[Document, Any, Tokenizer, Callable[[int, int], None]], None]
EstimateFunction = Callable[[Document, Any, Tokenizer], "CallEstimate"]


@dataclass(frozen=True)
class TuningAnalysis:
    """A strategy's tuning panel (the app's Tune view): one parameter set by a control beside a
    plot of what it decides, with the chunks right below.

    ``data(explanation, chunks)`` is the panel's payload, made from the strategy's own
    :class:`~chunkviz.core.explain.Explanation` (so a strategy with a tuning analysis also has an
    ``explain`` hook): the shape :func:`chunkviz.semantic.tuning.tuning_data` returns (a metric per
    position, the control's range and step, the threshold at every step). ``parameter(params)``
    names the parameter the panel's control sets for these params (it may depend on the others,
    e.g. semantic's threshold type). ``what`` names the tuned quantity in the page's words.
    """

    data: Callable[[Any, Sequence[Chunk]], Mapping[str, Any]]
    parameter: Callable[[Any], str]
    what: str = "threshold"


def param(
    default: Any,
    help: str,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    choices: tuple[str, ...] | None = None,
    applies_when: Mapping[str, tuple[Any, ...]] | None = None,
    overlap_unit: str | None = None,
    presets: Mapping[str, list[str]] | None = None,
    unit: str | None = None,
    size_target: bool = False,
    tunable: bool = False,
) -> Any:
    """A dataclass field that carries its description and allowed range.

    ``applies_when`` names other parameters' values under which this one matters (e.g. a
    multiplier that only a given threshold type uses); user interfaces may hide it otherwise.
    ``overlap_unit`` (``tokens``, ``chars``, ``sentences``) marks the strategy's overlap
    parameter: diagnostics compare it with the overlap the chunks actually have.
    ``presets`` marks a list-of-strings parameter that also accepts a preset name.
    ``unit`` is what a size is counted in: ``tokens`` (the tokenizer the strategy is given, so a
    user interface may offer characters instead) or ``chars``. ``size_target=True`` marks the
    size the strategy is asked for (at most one per strategy): "tiny" is relative to it.
    ``tunable=True`` lets ``chunkviz tune`` search the parameter's values (its choices or preset
    names) as an axis next to the size.
    """
    meta = {
        "help": help,
        "minimum": minimum,
        "maximum": maximum,
        "choices": choices,
        "applies_when": applies_when,
        "overlap_unit": overlap_unit,
        "presets": presets,
        "unit": unit,
        "size_target": size_target,
        "tunable": tunable,
    }
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
    #: ``tokens``, ``chars`` or ``sentences`` when this is the strategy's overlap parameter.
    overlap_unit: str | None = None
    #: Named values of a list parameter (e.g. separator hierarchies); the list may also be a preset name.
    presets: Mapping[str, list[str]] | None = None
    #: ``tokens`` (the strategy's tokenizer) or ``chars`` for a size parameter.
    unit: str | None = None
    #: Whether this is the size the strategy is asked for (the reference of "tiny").
    size_target: bool = False
    #: Whether ``chunkviz tune`` may search this parameter's values as an axis.
    tunable: bool = False

    @property
    def token_sized(self) -> bool:
        """Whether the value counts units of the tokenizer the strategy is given."""
        return self.unit == "tokens" or self.overlap_unit == "tokens"

    @property
    def is_list(self) -> bool:
        """Whether the parameter takes a list (possibly also a preset name)."""
        return any(part.strip().startswith("list") for part in self.type.split("|"))

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
    #: Optional: ``explain(document, params, tokenizer)`` returns an
    #: :class:`~chunkviz.core.explain.Explanation` (a caption, figures, JSON data) that interfaces
    #: show without knowing the strategy.
    explain: ExplainFunction | None = None
    #: Optional: ``prepare(document, params, tokenizer, progress)`` does the expensive, cacheable
    #: precomputation (e.g. embeddings) up front, calling ``progress(done, total)``.
    prepare: PrepareFunction | None = None
    #: Retrieval returns the parent of a matched chunk (parent_child, small_to_big: children are
    #: embedded and searched, their parents are what the model reads); otherwise the chunk itself.
    returns_parents: bool = False
    #: Optional, for a strategy that calls a language model when it runs:
    #: ``estimate(document, params, tokenizer)`` returns the
    #: :class:`~chunkviz.llm.client.CallEstimate` of that run (calls not cached yet, input
    #: tokens) before any call, so an interface can ask the user first.
    estimate: EstimateFunction | None = None
    #: Optional: the strategy's tuning panel (:class:`TuningAnalysis`; needs ``explain``).
    tuning: TuningAnalysis | None = None

    @property
    def calls_model(self) -> bool:
        """Whether running the strategy calls a language model (it declares an ``estimate``)."""
        return self.estimate is not None

    def params_info(self) -> list[ParamInfo]:
        return params_info(self.params_type)

    def overlap_param(self) -> ParamInfo | None:
        """The parameter declared with ``overlap_unit`` (None when the strategy has no overlap)."""
        return next((p for p in self.params_info() if p.overlap_unit), None)

    def size_param(self) -> ParamInfo | None:
        """The parameter declared with ``size_target=True`` (None when sizes are only caps)."""
        return next((p for p in self.params_info() if p.size_target), None)

    def token_sized(self) -> bool:
        """Whether some parameter counts the tokens of the tokenizer the strategy is given."""
        return any(p.token_sized for p in self.params_info())

    def describe(self) -> dict[str, Any]:
        """A JSON-ready description: name, description, what it declares (calls a model? has a
        tuning analysis?) and params with ranges."""
        return {
            "name": self.name,
            "description": self.description,
            "calls_model": self.calls_model,
            "tuning": self.tuning is not None,
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
                    "overlap_unit": p.overlap_unit,
                    "presets": dict(p.presets) if p.presets else None,
                    "unit": p.unit,
                    "size_target": p.size_target,
                    "tunable": p.tunable,
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
        try:
            return self.params_type(**values)  # validates itself (see validate_fields)
        except InvalidParamError:
            raise
        except (TypeError, ValueError) as exc:  # pragma: no cover - defensive
            raise InvalidParamError(self.name, "?", str(exc)) from exc


def params_info(params_type: type) -> list[ParamInfo]:
    """The declared parameters of a params dataclass, in field order (a new list each call, with a
    fresh copy of each list or dict default, as the field's factory gives)."""
    return [
        dataclasses.replace(p, default=copy.copy(p.default)) if isinstance(p.default, (list, dict)) else p
        for p in _declared_params(params_type)
    ]


@functools.cache
def _declared_params(params_type: type) -> tuple[ParamInfo, ...]:
    """:func:`params_info`, read once per params dataclass (resolving its type hints is the cost: every
    widget, validation and cache key of the app asks again on each run)."""
    hints = typing.get_type_hints(params_type)
    infos = []
    for f in dataclasses.fields(params_type):
        default = _field_default(f)
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
                overlap_unit=f.metadata.get("overlap_unit"),
                presets=f.metadata.get("presets"),
                unit=f.metadata.get("unit"),
                size_target=bool(f.metadata.get("size_target", False)),
                tunable=bool(f.metadata.get("tunable", False)),
            )
        )
    return tuple(infos)


def _field_default(f: dataclasses.Field[Any]) -> Any:
    """A field's default value (a fresh one from its factory: list parameters)."""
    if f.default is not dataclasses.MISSING:
        return f.default
    factory = f.default_factory
    return factory() if callable(factory) else None


def _number(value: float) -> str:
    return f"{int(value):,}" if float(value).is_integer() else f"{value:g}"


def check_overlap_below_size(strategy: str, chunk_size: int, overlap: int, default_overlap: int) -> None:
    """Raise a clear error when overlap >= chunk_size (mentioning a default the user did not set)."""
    if overlap < chunk_size:
        return
    hint = (
        f" (the default overlap is {default_overlap}; set overlap below {chunk_size})"
        if overlap == default_overlap
        else ""
    )
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
            whole = integral_number(value)
            if whole is not None:
                return whole
        raise InvalidParamError(strategy, info.name, f"must be an integer ({allowed}), got {shown(value)}")
    if kind == "float":
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            try:
                return float(value)
            except OverflowError:  # a whole number past the largest float
                raise InvalidParamError(strategy, info.name, f"must be in {allowed}, got {shown(value)}") from None
        if isinstance(value, str):
            try:
                return float(value.strip())
            except ValueError:
                pass
        raise InvalidParamError(strategy, info.name, f"must be a number ({allowed}), got {shown(value)}")
    if kind == "bool":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in {"true", "1", "yes", "on", "false", "0", "no", "off"}:
            return value.strip().lower() in {"true", "1", "yes", "on"}
        raise InvalidParamError(strategy, info.name, f"must be true or false, got {shown(value)}")
    return value


def integral_number(text: str) -> int | None:
    """``"2"``, ``"2.0"`` and ``"2e3"`` as integers (the API accepts ``2.0`` for an int
    parameter, so the CLI does too); None for anything else (``"2.5"``, ``"nan"``, ``"x"``)."""
    try:
        return int(text.strip())
    except ValueError:
        pass
    try:
        number = float(text.strip())
    except ValueError:
        return None
    return int(number) if number.is_integer() else None


def _check_type(strategy: str, info: ParamInfo, value: Any) -> None:
    """The declared type: int, float, bool, str and list[str] (a union accepts any of its parts)."""
    if not any(_matches(part.strip(), value, info) for part in info.type.split("|")):
        raise InvalidParamError(
            strategy, info.name, f"must be of type {info.type} ({info.range_text()}), got {shown(value)}"
        )


def _matches(kind: str, value: Any, info: ParamInfo) -> bool:
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "float":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "str":
        return isinstance(value, str)
    if kind == "None":
        return value is None
    if kind == "list[str]":
        return isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)
    if kind.startswith("list"):
        return isinstance(value, (list, tuple))
    return True  # other declared types are the strategy's own business


def _check_range(strategy: str, info: ParamInfo, value: Any) -> None:
    """Declared minimum, maximum and choices; NaN and infinities are refused (every comparison
    with NaN is false, so it would pass any range)."""
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidParamError(strategy, info.name, f"must be a finite number ({info.range_text()}), got {value!r}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if (info.minimum is not None and value < info.minimum) or (info.maximum is not None and value > info.maximum):
            raise InvalidParamError(strategy, info.name, f"must be in {info.range_text()}, got {shown(value)}")
    if info.choices and isinstance(value, str) and value not in info.choices:
        raise InvalidParamError(strategy, info.name, f"must be {info.range_text()}, got {shown(value)}")


def validate_fields(strategy: str, params: Any) -> None:
    """Check every declared field of ``params``: type, then range and choices, then the
    ``min_X <= max_X`` pairs (:func:`min_max_pairs`)."""
    params_type: type = type(params)
    for info in _declared(params_type):
        value = getattr(params, info.name)
        _check_type(strategy, info, value)
        _check_range(strategy, info, value)
    for low, high in min_max_pairs(params_type):
        lowest, highest = getattr(params, low), getattr(params, high)
        if _is_number(lowest) and _is_number(highest) and highest > 0 and lowest > highest:
            raise InvalidParamError(strategy, low, f"must be at most {high} ({shown(highest)}), got {shown(lowest)}")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@functools.lru_cache(maxsize=None)
def min_max_pairs(params_type: type) -> tuple[tuple[str, str], ...]:
    """The ``(min_X, max_X)`` parameter pairs of a params class: a lower and an upper bound of
    the same quantity, so the lower may not exceed the upper."""
    names = {info.name for info in _declared(params_type)}
    return tuple(
        (name, "max_" + name[4:]) for name in sorted(names) if name.startswith("min_") and "max_" + name[4:] in names
    )


#: The most characters of a value a message quotes (a 1e308 chunk_size has 309 digits).
_SHOWN_CHARS = 40


def shown(value: Any) -> str:
    """A value as a message quotes it: its ``repr``, a whole number of more than 15 digits in
    scientific notation and anything longer than 40 characters cut short with its length."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**15:
        try:
            return f"{float(value):.3g}"
        except OverflowError:  # past the largest float: say how long it is (its digits are no help)
            return (
                f"a number of {len(str(abs(value))):,} digits"
                if abs(value) < 10**4000
                else "a number of over 4,000 digits"
            )
    text = repr(value)
    if len(text) <= _SHOWN_CHARS:
        return text
    return f"{text[: _SHOWN_CHARS - 10]}…{text[-6:]} ({len(text):,} characters)"


@functools.lru_cache(maxsize=None)
def _declared(params_type: type) -> tuple[ParamInfo, ...]:
    """The declarations, read once per class (validation runs on every construction)."""
    return tuple(params_info(params_type))


_VALIDATING = "__chunkviz_validating__"


def make_self_validating(params_type: type, strategy: str) -> None:
    """Make every construction of ``params_type`` run :func:`validate_fields` first.

    A dataclass's generated ``__init__`` calls ``__post_init__`` only if the class had one when
    it was decorated: such a hook is wrapped (declared checks, then the class's cross-field
    checks); otherwise ``__init__`` itself is wrapped. Idempotent: a class shared by several
    strategies is wrapped once (errors name the first strategy).
    """
    if not dataclasses.is_dataclass(params_type):
        raise TypeError(f"strategy {strategy!r}: params_type must be a dataclass, got {params_type!r}")
    if params_type.__dict__.get(_VALIDATING):
        return
    own_post_init = getattr(params_type, "__post_init__", None)
    if own_post_init is not None:

        def __post_init__(self: Any) -> None:
            validate_fields(strategy, self)
            own_post_init(self)

        params_type.__post_init__ = __post_init__  # type: ignore[attr-defined]  # the validation hook is installed on the class itself
    else:
        own_init = params_type.__init__

        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
            own_init(self, *args, **kwargs)
            validate_fields(strategy, self)

        params_type.__init__ = __init__  # type: ignore[method-assign]  # wraps the dataclass-generated __init__ with validation
    setattr(params_type, _VALIDATING, strategy)


_REGISTRY: dict[str, Strategy[Any]] = {}


def register(
    name: str,
    description: str,
    params_type: type,
    explain: ExplainFunction | None = None,
    prepare: PrepareFunction | None = None,
    returns_parents: bool = False,
    estimate: EstimateFunction | None = None,
    tuning: TuningAnalysis | None = None,
) -> Callable[[ChunkFunction], ChunkFunction]:
    """Decorator: register ``function(document, params, tokenizer) -> list[Chunk]`` under ``name``.

    The params class becomes self-validating (:func:`make_self_validating`); its defaults must
    satisfy their own declared ranges (checked here, so a wrong declaration fails at import).
    ``returns_parents``: retrieval searches the chunks without children and returns their parents.
    ``estimate``: the strategy calls a language model, and this counts the calls of a run
    (:attr:`Strategy.estimate`). ``tuning``: its tuning panel (:class:`TuningAnalysis`).
    """

    def decorate(function: ChunkFunction) -> ChunkFunction:
        if name in _REGISTRY:
            raise ValueError(f"strategy {name!r} is registered twice")
        if tuning is not None and explain is None:
            raise ValueError(f"strategy {name!r}: a tuning analysis is drawn from its explanation; give explain= too")
        make_self_validating(params_type, name)
        params_type()  # the defaults must be valid
        _REGISTRY[name] = Strategy(
            name, description, params_type, function, explain, prepare, returns_parents, estimate, tuning
        )
        return function

    return decorate


def unregister(name: str) -> Strategy[Any]:
    """Remove a registered strategy (for tests and plugins that register temporarily)."""
    try:
        return _REGISTRY.pop(name)
    except KeyError:
        raise UnknownStrategyError(name, sorted(_REGISTRY)) from None


@contextlib.contextmanager
def temporary_strategy(
    name: str,
    description: str,
    params_type: type,
    function: ChunkFunction,
    explain: ExplainFunction | None = None,
    prepare: PrepareFunction | None = None,
    *,
    returns_parents: bool = False,
    estimate: EstimateFunction | None = None,
    tuning: TuningAnalysis | None = None,
) -> Iterator[Strategy[Any]]:
    """Register a strategy for the duration of a ``with`` block (tests, notebooks); the
    declarations are :func:`register`'s."""
    register(name, description, params_type, explain, prepare, returns_parents, estimate, tuning)(function)
    try:
        yield _REGISTRY[name]
    finally:
        _REGISTRY.pop(name, None)


def get_strategy(name: str) -> Strategy[Any]:
    """The registered strategy ``name``; an unknown name (or not a string) lists the valid ones."""
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):  # TypeError: an unhashable value such as a list
        raise UnknownStrategyError(name, sorted(_REGISTRY)) from None


def registered() -> list[Strategy[Any]]:
    return list(_REGISTRY.values())
