"""The *tiny* flag's rule: relative to the size the strategy was asked for, or an absolute floor.

A chunk far smaller than the size asked for (a heading alone, a window's short tail) carries
little meaning to embed. "Far smaller" is relative: with 128-token chunks a 30-token chunk is
tiny, with 40-token chunks it is not. The target is the strategy's parameter declared with
``param(..., size_target=True)``, counted in that parameter's unit (the strategy's tokenizer, or
characters). Strategies whose sizes are only caps (sections, sentences, functions) declare no
target: they get no tiny flag unless the caller gives an absolute floor.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from chunkviz.core.errors import UnknownStrategyError
from chunkviz.diagnostics.results import TinyRule
from chunkviz.strategies import get_strategy
from chunkviz.strategies.base import ParamInfo

#: The default rule: a chunk under a quarter of its size target is tiny.
DEFAULT_TINY_FRACTION = 0.25


def tiny_rule(
    strategy: str | None,
    params: Mapping[str, Any],
    *,
    fraction: float | None = DEFAULT_TINY_FRACTION,
    floor: int | None = None,
    tokenizer: str,
    chunk_tokenizer: str | None = None,
) -> TinyRule:
    """The rule for one chunking. ``floor`` (an absolute number of ``tokenizer`` tokens) wins
    when given; else ``fraction`` of the strategy's size target (``params`` or its default, in
    ``chunk_tokenizer``'s units, the tokenizer the strategy chunked with); ``fraction=None`` or
    no target turns the flag off."""
    if floor is not None:
        if floor < 0:
            raise ValueError(f"tiny_tokens must be >= 0 (or None), got {floor}")
        return TinyRule(int(floor), tokenizer)
    if fraction is None:
        return TinyRule(None)
    if not 0 < fraction <= 1:
        raise ValueError(
            f"tiny must be a fraction of the size target in (0, 1], e.g. 0.25, or None for off; got {fraction}"
        )
    info = _size_param(strategy)
    if info is None:
        return TinyRule(None, fraction=fraction)
    try:
        target = int(params.get(info.name, info.default))
    except (TypeError, ValueError):
        return TinyRule(None, fraction=fraction)
    if target <= 0:
        return TinyRule(None, fraction=fraction)
    unit = "chars" if info.unit == "chars" else (chunk_tokenizer or tokenizer)
    below = math.ceil(round(fraction * target, 9))  # size < fraction * target, for integer sizes
    return TinyRule(below, unit, fraction, target, info.name)


def _size_param(strategy: str | None) -> ParamInfo | None:
    if strategy is None:
        return None
    try:
        return get_strategy(strategy).size_param()
    except UnknownStrategyError:
        return None
