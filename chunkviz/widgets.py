"""Streamlit controls generated from a strategy's parameter descriptions.

Every registered strategy gets its controls from ``Strategy.params_info()``: integers and
floats become number inputs bounded by the declared range, choices a select box, booleans a
checkbox, and a list parameter (type ``list[...]``) a preset picker over its declared
``presets`` plus a custom JSON list text input. Nothing here names a strategy or a parameter:
a new strategy gets its controls from its declaration alone. Widget keys are
``{prefix}.{strategy}.{param}`` (the JSON list: ``....custom``) so tests (and query
parameters) can address them.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

import streamlit as st

from chunkviz.strategies.base import ParamInfo, Strategy

CUSTOM = "custom…"


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


def param_controls(prefix: str, strategy: Strategy, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Draw the controls of ``strategy``; return the values that differ from the defaults."""
    seed_state(prefix, strategy, given or {})
    values: dict[str, Any] = {}
    current: dict[str, Any] = {}
    for info in strategy.params_info():
        key = widget_key(prefix, strategy.name, info.name)
        current[info.name] = st.session_state.get(key, info.default)
        if not info.applies(current):
            continue
        label = info.name.replace("_", " ")
        help_text = f"{info.help} (range {info.range_text()}, default {info.default!r})"
        if info.is_list:
            chosen = list_control(key, label, info, help_text)
            if chosen != info.default:
                values[info.name] = chosen
            continue
        if info.choices:
            value = st.selectbox(label, list(info.choices), key=key, help=help_text)
        elif info.type == "bool":
            value = st.checkbox(label, key=key, help=help_text)
        elif info.type == "float" and _slider_range(info):
            value = st.slider(label, float(info.minimum), float(info.maximum), step=_float_step(info), key=key, help=help_text)
        elif info.type == "int" and _slider_range(info) and info.maximum - info.minimum <= 20:
            value = st.slider(label, int(info.minimum), int(info.maximum), step=1, key=key, help=help_text)
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
        current[info.name] = value
        if value != info.default:
            values[info.name] = value
    return values


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
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


def _slider_range(info: ParamInfo) -> bool:
    return info.minimum is not None and info.maximum is not None and info.maximum - info.minimum <= 100


def _float_step(info: ParamInfo) -> float:
    span = float(info.maximum) - float(info.minimum)
    return 0.5 if span >= 50 else 0.05 if span <= 5 else 0.1
