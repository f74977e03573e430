"""Built-in strategies: every module in this package registers its strategies on import."""

import importlib
import pkgutil

from chunkviz.strategies.base import Strategy, get_strategy, register, registered

_INFRASTRUCTURE = {"base", "packing"}
for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if _module not in _INFRASTRUCTURE:
        importlib.import_module(f"{__name__}.{_module}")

__all__ = ["Strategy", "get_strategy", "register", "registered"]
