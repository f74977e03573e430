"""``chunkviz app``: the Streamlit command line it builds, its settings, its refusals
(chunkviz/cli/launch.py). Serving from an installed package: tests/test_browser_installed.py."""

from __future__ import annotations

import argparse
import tomllib
from pathlib import Path

import pytest

from chunkviz.cli import launch
from chunkviz.cli.commands import build_parser, main

REPO = Path(__file__).resolve().parent.parent


def parsed(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["app", *argv])


def test_defaults_serve_loopback_with_the_apps_settings() -> None:
    argv = launch.streamlit_arguments(parsed())
    assert argv == [
        "--server.headless", "true",
        "--server.maxUploadSize", "5",
        "--server.fileWatcherType", "none",
        "--runner.postScriptGC", "false",
        "--browser.gatherUsageStats", "false",
        "--client.toolbarMode", "viewer",
        "--server.address", "127.0.0.1",
        "--server.port", "8501",
    ]  # fmt: skip


def test_a_file_port_address_and_watching(tmp_path: Path) -> None:
    doc = tmp_path / "notes.md"
    doc.write_text("# Notes\n", encoding="utf-8")
    argv = launch.streamlit_arguments(parsed(str(doc), "--port", "9000", "--address", "0.0.0.0", "--watch"))
    options = dict(zip(argv[:-2:2], argv[1:-2:2]))
    assert options["--server.port"] == "9000" and options["--server.address"] == "0.0.0.0"
    assert options["--server.fileWatcherType"] == "auto" and options["--server.runOnSave"] == "true"
    assert argv[-2:] == ["--", str(doc.resolve())]


def test_where_it_says_it_serves() -> None:
    assert "this machine only" in launch.where(parsed())
    assert "reachable from the network" in launch.where(parsed("--address", "0.0.0.0", "--port", "8600"))
    assert "0.0.0.0:8600" in launch.where(parsed("--address", "0.0.0.0", "--port", "8600"))


def test_the_clones_streamlit_config_agrees() -> None:
    """``streamlit run app.py`` in a clone reads .streamlit/config.toml: the same settings as ``chunkviz app``."""
    config = tomllib.loads((REPO / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    flat = {f"{section}.{name}": value for section, values in config.items() for name, value in values.items()}
    for name, value in launch.SERVER_OPTIONS.items():
        if name == "server.headless":  # `streamlit run` in a terminal may open a browser
            continue
        assert str(flat[name]).lower() == value, name


def test_the_page_module_and_its_samples_are_package_files() -> None:
    assert launch.APP_SCRIPT.is_file() and launch.APP_SCRIPT.parent == Path(launch.__file__).parents[1] / "ui"
    from chunkviz.ui import app as page

    assert page.SAMPLES.is_relative_to(Path(launch.__file__).parents[1])
    assert (page.SAMPLES / page.DEFAULT_SAMPLE).is_file() and (page.SAMPLES / page.TUNE_DEMO_SAMPLE).is_file()


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["app", "no-such-file.md"], "no such file"),
        (["app", "--port", "0"], "must be in 1..65535"),
        (["app", "--port", "http"], "expected a port number"),
    ],
)
def test_refusals_exit_2_with_what_to_do(
    argv: list[str], says: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert says in capsys.readouterr().err


def test_without_streamlit_it_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(launch.importlib.util, "find_spec", lambda name: None)
    assert main(["app"]) == 2
    assert "pip install 'chunkviz[app]'" in capsys.readouterr().err


def test_the_command_line_imports_no_streamlit() -> None:
    """``chunkviz app --help`` and every other command work without the app extra."""
    import subprocess
    import sys

    code = "import sys, chunkviz.cli.commands; chunkviz.cli.commands.build_parser(); print(sorted(m for m in sys.modules if m.startswith('streamlit')))"
    assert (
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "[]"
    )
