"""The strategy registry: self-validating params, declared overlap and presets, (un)registering."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import pytest

import chunkviz  # noqa: F401 - registers the built-in strategies
from chunkviz.core.errors import InvalidParamError, UnknownStrategyError
from chunkviz.splitting import PRESETS
from chunkviz.strategies.base import (
    ParamInfo,
    get_strategy,
    param,
    register,
    registered,
    temporary_strategy,
    unregister,
)
from chunkviz.strategies.fixed import FixedCharsParams, FixedTokensParams
from chunkviz.strategies.recursive import RecursiveParams


def _no_chunks(document, params, tokenizer):  # noqa: ANN001, ANN202
    return []


# ----------------------------------------------------------------------------- validation on construction


def test_params_validate_themselves_on_construction() -> None:
    with pytest.raises(InvalidParamError, match="chunk_size"):
        FixedTokensParams(chunk_size=-5, overlap=-10)
    with pytest.raises(InvalidParamError, match="overlap"):
        FixedCharsParams(chunk_size=100, overlap=-1)


def test_declared_checks_run_before_the_class_own_cross_field_checks() -> None:
    # chunk_size=0 is out of range: that is reported, not "overlap must be smaller than chunk_size"
    with pytest.raises(InvalidParamError, match=r"'chunk_size' must be in 1\.\.100,000, got 0"):
        FixedTokensParams(chunk_size=0, overlap=50)
    with pytest.raises(InvalidParamError, match="must be smaller than chunk_size"):
        FixedTokensParams(chunk_size=10, overlap=50)


def test_types_are_checked_on_construction() -> None:
    with pytest.raises(InvalidParamError, match="must be of type int"):
        FixedTokensParams(chunk_size="400")  # type: ignore[arg-type]
    with pytest.raises(InvalidParamError, match="must be of type int"):
        FixedTokensParams(chunk_size=True)
    with pytest.raises(InvalidParamError, match="separators"):
        RecursiveParams(separators=["\n", 3])  # type: ignore[list-item]
    assert RecursiveParams(separators=["\n", " "]).separators == ["\n", " "]
    assert RecursiveParams(separators="markdown").separators == "markdown"


def test_replace_validates_too() -> None:
    params = FixedTokensParams()
    with pytest.raises(InvalidParamError):
        dataclasses.replace(params, chunk_size=-1)


def test_make_params_still_converts_cli_strings() -> None:
    params = get_strategy("fixed_tokens").make_params({"chunk_size": "200", "overlap": " 20 "})
    assert (params.chunk_size, params.overlap) == (200, 20)
    with pytest.raises(InvalidParamError, match="must be an integer"):
        get_strategy("fixed_tokens").make_params({"chunk_size": "many"})
    with pytest.raises(InvalidParamError, match="must be in"):
        get_strategy("fixed_tokens").make_params({"chunk_size": "0"})
    with pytest.raises(InvalidParamError, match="is unknown; valid parameters: chunk_size, overlap"):
        get_strategy("fixed_tokens").make_params({"size": 3})


@dataclass(frozen=True)
class _NoHookParams:
    mode: str = param("a", "a mode", choices=("a", "b"))
    ratio: float = param(0.5, "a ratio", minimum=0.0, maximum=1.0)


@dataclass(frozen=True)
class _TempParams:
    """Registered by the unregister test only: a class's validation names the first strategy that
    registered it, so sharing _NoHookParams made the message above depend on the tests' order."""

    mode: str = param("a", "a mode", choices=("a", "b"))


@dataclass(frozen=True)
class _HookParams:
    low: int = param(1, "low", minimum=0, maximum=10)
    high: int = param(5, "high", minimum=0, maximum=10)

    def __post_init__(self) -> None:
        if self.low > self.high:
            raise InvalidParamError("_hook", "low", "must be at most high")


def test_a_class_without_post_init_is_validated_too() -> None:
    with temporary_strategy("_no_hook", "test", _NoHookParams, _no_chunks):
        assert _NoHookParams(mode="b", ratio=1).ratio == 1
        with pytest.raises(InvalidParamError, match=r"_no_hook: parameter 'mode' must be one of a, b, got 'c'"):
            _NoHookParams(mode="c")
        with pytest.raises(InvalidParamError, match="ratio"):
            _NoHookParams(ratio=2.0)


def test_cross_field_hook_runs_after_the_declared_checks_and_wrapping_is_idempotent() -> None:
    with temporary_strategy("_hook", "test", _HookParams, _no_chunks):
        with temporary_strategy("_hook_again", "same params class", _HookParams, _no_chunks):
            with pytest.raises(InvalidParamError, match="'high' must be in 0..10"):
                _HookParams(low=3, high=11)
            with pytest.raises(InvalidParamError, match="must be at most high"):
                _HookParams(low=6, high=5)


def test_register_rejects_defaults_outside_their_declared_range() -> None:
    @dataclass(frozen=True)
    class Bad:
        size: int = param(0, "size", minimum=1)

    with pytest.raises(InvalidParamError, match="size"):
        register("_bad_defaults", "bad", Bad)(_no_chunks)
    assert "_bad_defaults" not in {s.name for s in registered()}


# ----------------------------------------------------------------------------- declarations


def test_overlap_parameter_and_unit_come_from_the_declaration() -> None:
    assert get_strategy("fixed_tokens").overlap_param().name == "overlap"
    assert get_strategy("fixed_tokens").overlap_param().overlap_unit == "tokens"
    assert get_strategy("fixed_chars").overlap_param().overlap_unit == "chars"
    assert get_strategy("sentences").overlap_param().overlap_unit == "sentences"
    assert get_strategy("paragraphs").overlap_param() is None


def test_presets_and_list_type_are_declared() -> None:
    (info,) = [p for p in get_strategy("recursive").params_info() if p.name == "separators"]
    assert info.presets == PRESETS
    assert info.is_list and info.type == "str | list[str]"
    described = get_strategy("recursive").describe()
    (separators,) = [p for p in described["params"] if p["name"] == "separators"]
    assert separators["presets"] == dict(PRESETS)
    (overlap,) = [p for p in described["params"] if p["name"] == "overlap"]
    assert overlap["overlap_unit"] == "tokens"


# ----------------------------------------------------------------------------- (un)registering


def test_unregister_and_temporary_strategy() -> None:
    with temporary_strategy("_temp", "temporary", _TempParams, _no_chunks) as spec:
        assert get_strategy("_temp") is spec
    with pytest.raises(UnknownStrategyError):
        get_strategy("_temp")
    register("_temp2", "temporary", _TempParams)(_no_chunks)
    assert unregister("_temp2").name == "_temp2"
    with pytest.raises(UnknownStrategyError, match="choose one of"):
        unregister("_temp2")


def test_registering_a_name_twice_is_an_error() -> None:
    with pytest.raises(ValueError, match="registered twice"):
        register("fixed_tokens", "again", FixedTokensParams)(_no_chunks)


def test_params_info_is_read_once_but_each_call_gets_its_own_list_defaults() -> None:
    """The declarations are cached per params class (the app asks on every run); a list default is
    still a fresh copy per call, as the field's factory gives, so a caller's change cannot leak."""
    strategy = get_strategy("langchain_markdown_headers")  # a peer whose default is a list

    def headers(infos: list[ParamInfo]) -> ParamInfo:
        return next(p for p in infos if p.name == "headers_to_split_on")

    first = strategy.params_info()
    original = list(headers(first).default)
    assert isinstance(headers(first).default, list) and original
    headers(first).default.append("changed")
    assert headers(strategy.params_info()).default == original
    assert strategy.params_info() is not strategy.params_info()
    recursive = get_strategy("recursive")
    assert recursive.params_info()[0] is recursive.params_info()[0]  # the same (frozen) declaration
