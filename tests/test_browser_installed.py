"""``chunkviz app FILE`` from an installed package, in a virtual environment of its own, serves a page
that shows chunks (issue: "chunkviz app after pip").

The test builds chunkviz's wheel from a copy of the checkout's files (what ``pip install <checkout>``
builds; tests and benchmarks left out), installs it into a new virtual environment and starts the
app with that environment's ``chunkviz`` command, in a folder outside the checkout and without
PYTHONPATH: so the page module, the samples and the components' scripts must all come from the
wheel. Nothing is downloaded in a test: the wheel is installed without its dependencies, and the
environment finds them in the test's own site-packages (one path line appended to its ``sys.path``),
after checking that each requirement of ``chunkviz[app]`` is met there.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path
from typing import Any, Iterator

import pytest
from support.browser import TIMEOUT_S, _wait_healthy, free_port, open_page, stop, wait_for_whole_page

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parent.parent
#: What `pip install <checkout>` does not need (and the copy leaves out).
NOT_PACKAGED = (".git", ".venv", "node_modules", "tests", "bench", "docs", "test-output", "build", "*.egg-info",
                "__pycache__", ".pytest_cache", ".hypothesis", ".mypy_cache", ".ruff_cache")  # fmt: skip
DOCUMENT = "# Field notes\n\nThe first paragraph says where the station is.\n\nThe second one says when to visit it.\n"
REQUIREMENTS_MET = """
import importlib.metadata as md, sys
from packaging.requirements import Requirement
missing = []
for line in md.requires("chunkviz") or []:
    req = Requirement(line)
    if req.marker is None or req.marker.evaluate({"extra": "app"}):
        try:
            version = md.version(req.name)
        except md.PackageNotFoundError:
            missing.append(str(req))
            continue
        if version not in req.specifier:
            missing.append(f"{req} (found {version})")
print(missing)
sys.exit(1 if missing else 0)
"""


def run(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, **kwargs)
    assert result.returncode == 0, f"{command} exited {result.returncode}:\n{result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """chunkviz's wheel, built offline from a copy of the checkout."""
    folder = tmp_path_factory.mktemp("build")
    source = folder / "chunkviz-src"
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(*NOT_PACKAGED), symlinks=True)
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q",
         "-w", str(folder / "dist"), str(source)])  # fmt: skip
    (built,) = (folder / "dist").glob("chunkviz-*.whl")
    return built


def test_the_wheel_carries_the_app_its_samples_and_scripts(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in ("chunkviz/ui/app.py", "chunkviz/cli/launch.py", "chunkviz/ui/docview.js", "chunkviz/ui/docview.css",
                   "chunkviz/ui/tuning.js", "chunkviz/sample_docs/field_station_handbook.md",
                   "chunkviz/sample_docs/questions/field_station_handbook.jsonl",
                   *(f"chunkviz/ui/{path.name}" for path in (REPO / "chunkviz" / "ui").glob("docview*.js"))):  # fmt: skip
        assert needed in names, needed


@pytest.fixture(scope="module")
def environment(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new virtual environment with the wheel installed; its dependencies from this one's site-packages."""
    venv = tmp_path_factory.mktemp("venv") / "env"
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "-q", str(wheel)])
    purelib = run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip()
    (Path(purelib) / "zz_test_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    return venv


def clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return dict(env, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")


def test_the_environment_imports_the_installed_package(environment: Path, tmp_path: Path) -> None:
    python = str(environment / "bin" / "python")
    where = run([python, "-c", "import chunkviz; print(chunkviz.__file__)"], cwd=tmp_path, env=clean_env())
    assert Path(where.stdout.strip()).is_relative_to(environment)
    run([python, "-c", REQUIREMENTS_MET], cwd=tmp_path, env=clean_env())


@pytest.fixture(scope="module")
def installed_app(environment: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``chunkviz app sample.md`` with the environment's own command, outside the checkout; yields its URL."""
    folder = tmp_path_factory.mktemp("user")
    (folder / "sample.md").write_text(DOCUMENT, encoding="utf-8")
    port = free_port()
    log_path = folder / "server.log"
    command = [str(environment / "bin" / "chunkviz"), "app", "sample.md", "--port", str(port), "--no-warm"]
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            command, cwd=folder, env=clean_env(), stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(process, url, log_path)
        yield url
    finally:
        stop(process)
    assert f"serving on http://localhost:{port}, this machine only" in log_path.read_text(errors="replace")


def test_chunkviz_app_serves_the_file_with_chunks(installed_app: str, sync_api: Any, browser: Any) -> None:
    page = open_page(browser, installed_app)
    try:
        page.wait_for_selector("[data-chunk-index]", timeout=TIMEOUT_S * 1000)
        wait_for_whole_page(page, TIMEOUT_S)
        assert page.get_by_text("sample.md ·", exact=False).count() >= 1
        assert page.locator("[data-chunk-index]").count() >= 3  # three columns, at least one chunk each
        page.screenshot(path=str(REPO / "test-output" / "installed_app.png"))
        assert page.page_errors == []
    finally:
        page.close()
