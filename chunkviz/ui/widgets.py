"""Streamlit controls generated from a strategy's parameter descriptions.

Every registered strategy gets its controls from ``Strategy.params_info()``: integers and
floats become number inputs bounded by the declared range, choices a select box, booleans a
checkbox, and a list parameter (type ``list[...]``) a preset picker over its declared
``presets`` plus a custom JSON list text input. Nothing here names a strategy or a parameter:
a new strategy gets its controls from its declaration alone. Widget keys are
``{prefix}.{strategy}.{param}`` (the JSON list: ``....custom``) so tests (and query
parameters) can address them.

Controls are forgiving: a combination the strategy rejects (``make_params`` raises, e.g. an
overlap typed above the size) shows its message right under the offending control, and the
column keeps the last valid values (:func:`column_controls`, :func:`param_controls`). A strategy
with sizes in the page tokenizer's units gets a per-column "size in" choice: tokens or
characters (``{prefix}.{strategy}.size_in``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import streamlit as st

from chunkviz.core.errors import ChunkvizError
from chunkviz.strategies.base import ParamInfo, Strategy

CUSTOM = "custom…"
#: The per-column size units: the page tokenizer's tokens, or characters (tokenizer ``chars``).
TOKENS, CHARS = "tokens", "chars"
#: Switching a column between tokens and characters scales its sizes by this (English prose has
#: about 4 characters per cl100k token), so the chunks stay about as large.
CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class ColumnChoice:
    """What a column's controls chose.

    ``params`` are the valid values that differ from the defaults: while the controls hold a
    combination the strategy rejects, the last valid ones (``problem`` then says why, and the
    message is shown under the offending control). ``tokenizer`` is the column's own size unit
    (``chars``), None for the page's tokenizer.
    """

    params: dict[str, Any] = field(default_factory=dict)
    tokenizer: str | None = None
    problem: str | None = None


def widget_key(prefix: str, strategy: str, param: str) -> str:
    return f"{prefix}.{strategy}.{param}"


def _initial_value(info: ParamInfo, given: Any) -> Any:
    value = info.default if given is None else given
    if info.is_list:
        if isinstance(value, str) and value in (info.presets or {}):
            return value
        return CUSTOM
    return value


def _default_list(info: ParamInfo) -> list[Any]:
    """The list the custom input starts from: the default, or the default preset's list."""
    if isinstance(info.default, list):
        return list(info.default)
    presets = info.presets or {}
    return list(presets.get(str(info.default), next(iter(presets.values()), [])))


def seed_state(prefix: str, strategy: Strategy, given: Mapping[str, Any]) -> None:
    """Put initial values (defaults or values from a shared URL) into session state once."""
    for info in strategy.params_info():
        key = widget_key(prefix, strategy.name, info.name)
        if key in st.session_state:
            continue
        value = _initial_value(info, given.get(info.name))
        if info.type == "int":
            try:
                value = int(value)
            except (TypeError, ValueError):
                value = int(info.default)
            if info.minimum is not None:
                value = max(int(info.minimum), value)
            if info.maximum is not None:
                value = min(int(info.maximum), value)
        elif info.type == "float":
            try:
                value = float(value)
            except (TypeError, ValueError):
                value = float(info.default)
        st.session_state[key] = value
        if info.is_list and value == CUSTOM:
            custom = given.get(info.name)
            st.session_state[key + ".custom"] = json.dumps(custom if isinstance(custom, list) else _default_list(info))


def column_controls(
    prefix: str,
    strategy: Strategy,
    given: Mapping[str, Any] | None = None,
    *,
    tokenizer: str,
    given_tokenizer: str | None = None,
    drawn: bool = True,
) -> ColumnChoice:
    """A column's controls: the size unit (when the strategy counts ``tokenizer`` tokens and that
    is not already characters), then the parameters, checked by the strategy. ``given`` and
    ``given_tokenizer`` seed them once (a shared URL). ``drawn=False`` (a closed column): no
    control is drawn, the same choice is read from the values they hold, and those are kept for
    when they are drawn again."""
    unit = size_unit_control(prefix, strategy, tokenizer, given_tokenizer, drawn=drawn)
    params, problem = _checked_controls(prefix, strategy, given, drawn=drawn)
    return ColumnChoice(params, unit, problem)


def kept(key: str) -> Any:
    """The value of the widget ``key`` while it is not drawn, kept for when it is drawn again
    (Streamlit forgets the state of a widget that a run does not draw, unless the run sets it)."""
    if key in st.session_state:
        st.session_state[key] = st.session_state[key]
    return st.session_state.get(key)


def size_unit_control(
    prefix: str, strategy: Strategy, tokenizer: str, given: str | None = None, *, drawn: bool = True
) -> str | None:
    """ "Size in: tokens / characters" for a strategy with sizes in the page tokenizer's units;
    returns ``chars`` or None (the page's tokenizer). Switching scales the sizes (see
    :data:`CHARS_PER_TOKEN`)."""
    if not strategy.token_sized() or tokenizer == CHARS:
        return None
    key = widget_key(prefix, strategy.name, "size_in")
    if key not in st.session_state:
        st.session_state[key] = CHARS if given == CHARS else TOKENS
    if not drawn:
        return CHARS if kept(key) == CHARS else None
    unit = st.radio(
        "size in",
        [TOKENS, CHARS],
        key=key,
        horizontal=True,
        format_func=lambda v: f"tokens ({tokenizer})" if v == TOKENS else "characters",
        on_change=_rescale_sizes,
        args=(prefix, strategy, key),
        help="Count this column's sizes and overlap in the page's tokenizer's tokens or in characters. "
        "Token counts in the table stay in the page's tokenizer, so columns remain comparable.",
    )
    return CHARS if unit == CHARS else None


def _rescale_sizes(prefix: str, strategy: Strategy, unit_key: str) -> None:
    """After a unit switch: token-sized integers times (or divided by) CHARS_PER_TOKEN, in range."""
    to_chars = st.session_state.get(unit_key) == CHARS
    for info in strategy.params_info():
        key = widget_key(prefix, strategy.name, info.name)
        value = st.session_state.get(key)
        if not info.token_sized or info.type != "int" or not isinstance(value, int) or isinstance(value, bool):
            continue
        scaled = value * CHARS_PER_TOKEN if to_chars else round(value / CHARS_PER_TOKEN)
        if info.minimum is not None:
            scaled = max(int(info.minimum), scaled)
        if info.maximum is not None:
            scaled = min(int(info.maximum), scaled)
        st.session_state[key] = scaled


def param_controls(prefix: str, strategy: Strategy, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Draw the controls of ``strategy``; return the values that differ from the defaults (the
    last valid ones while the controls hold a combination the strategy rejects, whose message is
    shown under the offending control)."""
    return _checked_controls(prefix, strategy, given)[0]


def _checked_controls(
    prefix: str, strategy: Strategy, given: Mapping[str, Any] | None, *, drawn: bool = True
) -> tuple[dict[str, Any], str | None]:
    values, notes = _draw_controls(prefix, strategy, given) if drawn else (_held_values(prefix, strategy, given), {})
    good_key = widget_key(prefix, strategy.name, "_last_good")
    try:
        strategy.make_params(values)
    except ChunkvizError as exc:
        param = getattr(exc, "param", None)
        message = _inline_message(str(exc), param)
        show = notes.get(param) if param in notes else notes.get(None)
        if show is not None:
            show(message)
        return dict(st.session_state.get(good_key, {})), message
    st.session_state[good_key] = dict(values)
    return values, None


def _inline_message(error: str, param: str | None) -> str:
    """The error without its ``strategy: parameter 'x'`` prefix, plus what the column shows."""
    short = error.split(f"parameter {param!r} ", 1)[-1] if param else error
    name = (param or "").replace("_", " ")
    return f"{name} {short}".strip() + " — the column keeps its last valid settings."


def _draw_controls(
    prefix: str, strategy: Strategy, given: Mapping[str, Any] | None
) -> tuple[dict[str, Any], dict[str | None, Callable[[str], Any]]]:
    """Draw the controls; return the values that differ from the defaults and, per parameter
    (None: after all of them), a function that shows a warning right under its control."""
    seed_state(prefix, strategy, given or {})
    values: dict[str, Any] = {}
    current: dict[str, Any] = {}
    notes: dict[str | None, Callable[[str], Any]] = {}
    value: Any  # what the parameter's control returns (its type depends on the parameter)
    for info in strategy.params_info():
        key = widget_key(prefix, strategy.name, info.name)
        current[info.name] = st.session_state.get(key, info.default)
        if not info.applies(current):
            continue
        label = info.name.replace("_", " ")
        help_text = f"{info.help} (range {info.range_text()}, default {info.default!r})"
        if info.is_list:
            chosen = list_control(key, label, info, help_text)
            notes[info.name] = st.empty().warning
            if chosen != info.default:
                values[info.name] = chosen
            continue
        if info.choices:
            value = st.selectbox(label, list(info.choices), key=key, help=help_text)
        elif info.type == "bool":
            value = st.checkbox(label, key=key, help=help_text)
        elif info.type == "float" and (bounds := _slider_range(info)):
            low, high = bounds
            value = st.slider(label, float(low), float(high), step=_float_step(low, high), key=key, help=help_text)
        elif info.type == "int" and (bounds := _slider_range(info)) and bounds[1] - bounds[0] <= 20:
            value = st.slider(label, int(bounds[0]), int(bounds[1]), step=1, key=key, help=help_text)
        elif info.type == "int":
            step = 10 if int(info.default) >= 100 else 1
            value = st.number_input(
                label,
                min_value=int(info.minimum) if info.minimum is not None else None,
                max_value=int(info.maximum) if info.maximum is not None else None,
                step=step,
                key=key,
                help=help_text,
            )
        elif info.type == "float":
            value = st.number_input(
                label,
                min_value=float(info.minimum) if info.minimum is not None else None,
                max_value=float(info.maximum) if info.maximum is not None else None,
                key=key,
                help=help_text,
            )
        else:
            value = st.text_input(label, key=key, help=help_text)
        notes[info.name] = st.empty().warning
        current[info.name] = value
        if value != info.default:
            values[info.name] = value
    notes[None] = st.empty().warning
    return values, notes


def _held_values(prefix: str, strategy: Strategy, given: Mapping[str, Any] | None) -> dict[str, Any]:
    """What :func:`_draw_controls` returns, read from the values its controls hold (none drawn)."""
    seed_state(prefix, strategy, given or {})
    values: dict[str, Any] = {}
    current: dict[str, Any] = {}
    for info in strategy.params_info():
        key = widget_key(prefix, strategy.name, info.name)
        current[info.name] = value = kept(key)
        if not info.applies(current):
            continue
        if info.is_list:
            value = _list_value(info, value, kept(key + ".custom"))
        if value != info.default:
            values[info.name] = value
    return values


def _list_value(info: ParamInfo, choice: Any, raw: Any) -> Any:
    """A list parameter's value from its select (a preset name or ``custom…``) and its JSON text."""
    if choice != CUSTOM:
        return choice
    try:
        return json.loads(raw or json.dumps(_default_list(info)))
    except json.JSONDecodeError:
        return raw


def list_control(key: str, label: str, info: ParamInfo, help_text: str) -> Any:
    """A list parameter: a select over its presets (if any) and ``custom…``, which shows a text
    input for a JSON list. Returns the preset name or the parsed list (or the raw text when it
    is not JSON: the engine then reports the error)."""
    choice = st.selectbox(label, [*(info.presets or {}), CUSTOM], key=key, help=help_text)
    if choice != CUSTOM:
        return choice
    if not st.session_state.get(key + ".custom"):
        st.session_state[key + ".custom"] = json.dumps(_default_list(info))
    example = json.dumps(_default_list(info)) or "[]"
    raw = st.text_input(f"{label} (JSON list)", key=key + ".custom", help=f"e.g. {example}")
    return _list_value(info, choice, raw)


def _slider_range(info: ParamInfo) -> tuple[float, float] | None:
    """The parameter's (minimum, maximum) when a slider fits it (both set, at most 100 apart), else None."""
    if info.minimum is None or info.maximum is None or info.maximum - info.minimum > 100:
        return None
    return info.minimum, info.maximum


def _float_step(low: float, high: float) -> float:
    span = float(high) - float(low)
    return 0.5 if span >= 50 else 0.05 if span <= 5 else 0.1
