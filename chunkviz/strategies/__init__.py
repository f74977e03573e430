"""Built-in strategies: every module in this package registers its strategies on import.

Layer strategies: the registry (base) and one file per strategy; peers/: the peer splitters run,
placed and audited (peer_splitters registers them). May import: chunkviz.core, chunkviz.text,
chunkviz.document, chunkviz.drawing, chunkviz.splitting, chunkviz.llm, chunkviz.semantic (the layers
below it).
"""

import importlib
import pkgutil

from chunkviz.strategies.base import Strategy, get_strategy, register, registered

_INFRASTRUCTURE = {"base", "guarded"}
#: Registration (and display) order: simple to structured; any other module follows.
_ORDER = (
    "fixed",
    "sentences",
    "paragraphs",
    "recursive",
    "recursive_langchain",
    "semantic",
    "llm",
    "headings",
    "hierarchical",
    "tables",
    "code",
    "parent_child",
    "small_to_big",
)
_found = {m.name for m in pkgutil.iter_modules(__path__)} - _INFRASTRUCTURE
for _module in [*(m for m in _ORDER if m in _found), *sorted(_found - set(_ORDER))]:
    importlib.import_module(f"{__name__}.{_module}")

__all__ = ["Strategy", "get_strategy", "register", "registered"]
