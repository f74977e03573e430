"""Module paths before the layer folders (issue 38) and where each module lives now.

``chunkviz/__init__.py`` installs :class:`MovedModules` first thing, so ``import chunkviz.types``
and ``from chunkviz.tokenizers import get_tokenizer`` still work and give the very objects of
``chunkviz.core.types`` and ``chunkviz.text.tokenizers`` (one module under two names, never a
copy). New code uses the new names; README.md lists the moves.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import ModuleType

#: Old dotted name -> new dotted name.
MOVED: dict[str, str] = {
    "chunkviz.argtypes": "chunkviz.core.argtypes",
    "chunkviz.batch": "chunkviz.cli.batch",
    "chunkviz.batch.cli": "chunkviz.cli.batch.command",
    "chunkviz.batch.engines": "chunkviz.cli.batch.engines",
    "chunkviz.batch.inputs": "chunkviz.cli.batch.inputs",
    "chunkviz.batch.progress": "chunkviz.cli.batch.progress",
    "chunkviz.batch.run": "chunkviz.cli.batch.run",
    "chunkviz.batch.state": "chunkviz.cli.batch.state",
    "chunkviz.batch.worker": "chunkviz.cli.batch.worker",
    "chunkviz.cache": "chunkviz.core.cache",
    "chunkviz.charts": "chunkviz.drawing.charts",
    "chunkviz.cliparams": "chunkviz.cli.params",
    "chunkviz.compare": "chunkviz.diagnostics.compare",
    "chunkviz.config": "chunkviz.evaluation.config",
    "chunkviz.counts": "chunkviz.text.counts",
    "chunkviz.deadline": "chunkviz.core.deadline",
    "chunkviz.diagnostics.hygiene.secrets": "chunkviz.text.secrets",
    "chunkviz.document.sizes": "chunkviz.core.sizes",
    "chunkviz.enrich": "chunkviz.document.enrich",
    "chunkviz.errors": "chunkviz.core.errors",
    "chunkviz.evaluation.tunecli": "chunkviz.cli.tune",
    "chunkviz.explain": "chunkviz.core.explain",
    "chunkviz.export": "chunkviz.formats.export",
    "chunkviz.external": "chunkviz.formats.external",
    "chunkviz.external.cli": "chunkviz.cli.audit",
    "chunkviz.external.formats": "chunkviz.formats.external.formats",
    "chunkviz.external.load": "chunkviz.formats.external.load",
    "chunkviz.external.records": "chunkviz.formats.external.records",
    "chunkviz.files": "chunkviz.core.files",
    "chunkviz.interop": "chunkviz.formats.interop",
    "chunkviz.jsonl": "chunkviz.core.jsonl",
    "chunkviz.launch": "chunkviz.cli.launch",
    "chunkviz.limits": "chunkviz.core.limits",
    "chunkviz.llm.cli": "chunkviz.cli.llm",
    "chunkviz.llm.questiongen": "chunkviz.evaluation.questiongen",
    "chunkviz.llm.summaries": "chunkviz.evaluation.summaries",
    "chunkviz.models": "chunkviz.text.models",
    "chunkviz.notebook": "chunkviz.views.notebook",
    "chunkviz.paging": "chunkviz.drawing.paging",
    "chunkviz.palette": "chunkviz.drawing.palette",
    "chunkviz.parallel": "chunkviz.core.parallel",
    "chunkviz.peers": "chunkviz.strategies.peers",
    "chunkviz.peers.adapters": "chunkviz.strategies.peers.adapters",
    "chunkviz.peers.audit": "chunkviz.strategies.peers.audit",
    "chunkviz.peers.catalogue": "chunkviz.strategies.peers.catalogue",
    "chunkviz.peers.flags": "chunkviz.strategies.peers.flags",
    "chunkviz.peers.params": "chunkviz.strategies.peers.params",
    "chunkviz.peers.runners": "chunkviz.strategies.peers.runners",
    "chunkviz.questions": "chunkviz.evaluation.questions",
    "chunkviz.render": "chunkviz.drawing.render",
    "chunkviz.sidefile": "chunkviz.core.sidefile",
    "chunkviz.spancount": "chunkviz.text.spancount",
    "chunkviz.terminal": "chunkviz.views.terminal",
    "chunkviz.textsearch": "chunkviz.text.textsearch",
    "chunkviz.tokenizers": "chunkviz.text.tokenizers",
    "chunkviz.types": "chunkviz.core.types",
    "chunkviz.views.cli": "chunkviz.cli.report",
    "chunkviz.vocabulary": "chunkviz.core.vocabulary",
}


class MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old name of :data:`MOVED` and loads it as the module under its new name."""

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def __init__(self) -> None:
        self._specs: dict[str, importlib.machinery.ModuleSpec | None] = {}

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = importlib.import_module(MOVED[spec.name])
        self._specs[module.__name__] = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module ran under its new name. Its own spec is put back (the
        import system set the old name's on it)."""
        old = module.__spec__.name if module.__spec__ is not None else module.__name__
        module.__spec__ = self._specs.pop(module.__name__, module.__spec__)
        _register_shadowed(old, module)


def _register_shadowed(old_package: str, package: ModuleType) -> None:
    """Old submodules of ``old_package`` whose name its module also binds to something else
    (``chunkviz.enrich``, the public function; ``chunkviz.peers.audit``, a re-exported function):
    registered now, so importing one never sets the package's attribute to the module."""
    for old, new in MOVED.items():
        parent, _, leaf = old.rpartition(".")
        bound = getattr(package, leaf, None) if parent == old_package else None
        if bound is not None and not isinstance(bound, ModuleType):
            sys.modules.setdefault(old, importlib.import_module(new))


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once). An old module whose name the package
    also binds to something else (``chunkviz.enrich``, the function) is registered now: imported
    through the finder, Python would set the package's attribute to the module."""
    if not any(isinstance(finder, MovedModules) for finder in sys.meta_path):
        sys.meta_path.insert(0, MovedModules())
    _register_shadowed("chunkviz", sys.modules["chunkviz"])


__all__ = ["MOVED", "MovedModules", "install"]
