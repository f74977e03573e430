"""The lint, format and type checks, as tests: ``./dev test`` (and so CI) runs them.

ruff (lint and format) and mypy come with the test extra, so those tests never skip; their
configuration is in pyproject.toml. TypeScript checks the components' JavaScript
(``chunkviz/ui/*.js`` against the payload types in ``chunkviz/ui/payload.d.ts``, through
tsconfig.json); it is installed by ``./dev`` with ``npm ci`` and the test skips, saying why, on a
machine without Node. A failing check shows the tool's whole output.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from chunkviz.ui.docview import ColumnView, Hit, view_payload
from chunkviz.ui.tuning import panel_payload

ROOT = Path(__file__).resolve().parents[1]
TSC = ROOT / "node_modules" / ".bin" / "tsc"
PAYLOAD_TYPES = ROOT / "chunkviz" / "ui" / "payload.d.ts"


def run_check(*command: str | Path, timeout: float = 600) -> None:
    """Run a check from the repository root; fail with its full output unless it exits 0."""
    done = subprocess.run(
        [str(part) for part in command], cwd=ROOT, capture_output=True, text=True, timeout=timeout, check=False
    )
    if done.returncode != 0:
        shown = " ".join(str(part) for part in command)
        pytest.fail(f"`{shown}` exited {done.returncode}:\n{done.stdout}{done.stderr}", pytrace=False)


def test_ruff_finds_nothing_to_fix() -> None:
    run_check(sys.executable, "-m", "ruff", "check", ".")


def test_the_code_is_formatted_by_ruff() -> None:
    run_check(sys.executable, "-m", "ruff", "format", "--check", ".")


@pytest.mark.slow
@pytest.mark.timeout(1200)  # a cold run (no .mypy_cache) checks every module: minutes on 2 busy cores
def test_mypy_passes_on_chunkviz() -> None:
    run_check(sys.executable, "-m", "mypy", timeout=1200)  # files and options: [tool.mypy] in pyproject.toml


@pytest.mark.timeout(600)
def test_typescript_checks_the_components_javascript() -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed: the components' JavaScript is not type-checked (install Node.js)")
    if not TSC.exists():
        pytest.skip(f"{TSC.relative_to(ROOT)} is missing: `npm ci` (./dev setup runs it) installs TypeScript")
    run_check(TSC, "--noEmit", "-p", "tsconfig.json")


#: ``# type: ignore[code]  # why``: the error code silenced and the reason it cannot be fixed.
EXPLAINED_IGNORE = re.compile(r"# type: ignore\[[a-z-]+(?:, ?[a-z-]+)*\]  # \S")


def test_every_type_ignore_names_its_error_code_and_why() -> None:
    unexplained = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in [ROOT / "app.py", *sorted((ROOT / "chunkviz").rglob("*.py"))]
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "type: ignore" in line and not EXPLAINED_IGNORE.search(line)
    ]
    assert not unexplained, "write `# type: ignore[<code>]  # <why>` on:\n" + "\n".join(unexplained)


def declared_fields(interface: str) -> set[str]:
    """The field names of ``interface`` in payload.d.ts (one ``name: type;`` per line)."""
    text = PAYLOAD_TYPES.read_text(encoding="utf-8")
    body = re.search(r"export interface " + interface + r"\b[^{]*\{(.*?)\n\}", text, re.DOTALL)
    assert body is not None, f"payload.d.ts declares no interface {interface}"
    return set(re.findall(r"^\s{2}(\w+)\??:", body.group(1), re.MULTILINE))


def test_the_payload_types_name_every_field_python_sends() -> None:
    html = '<span data-chunk-index="0"></span><span data-chunk-index="1"></span>'
    column = ColumnView("recursive", html, 210, "2 chunks", [(4, "size_limit")], hits=(Hit(1, 1, 0.5, 0),))
    payload = view_payload([column], length=9, references=[(0, 4)])
    assert set(payload) == declared_fields("DocViewPayload")
    assert set(payload["columns"][0]) == declared_fields("DocViewColumn")
    assert set(payload["columns"][0]["hits"][0]) == declared_fields("DocViewHit")
    assert set(payload["labels"]) == declared_fields("DocViewLabels")
    assert set(panel_payload({}, "")) == declared_fields("TuningPayload")
