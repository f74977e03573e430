"""What the ``streamlit.testing.v1.AppTest`` runs of the app share: the scan for installed
Streamlit components (v2) is done once per test session, not once per AppTest, and each run is
waited for by joining its thread instead of polling.

Each new AppTest builds a component registry that reads the metadata of every installed
distribution (about 0.4 s of CPU with this virtual environment's ~180 packages, several
hundred AppTests in the suite) to find component manifests; the installed packages do not
change during a session, so the first scan's answer is the answer of every later one.
chunkviz declares its components in code (chunkviz/ui), so the scan finds none of them either way.
"""

from __future__ import annotations

import functools
from typing import Any, Iterator

import pytest


@pytest.fixture(scope="session", autouse=True)
def _components_scanned_once() -> Iterator[None]:
    """Memoize ``streamlit.components.v2.manifest_scanner.scan_component_manifests`` for the
    session (AppTest calls it through the module, at each first run). Without that function
    (another Streamlit version), nothing is changed."""
    try:
        from streamlit.components.v2 import manifest_scanner
    except ImportError:
        yield
        return
    scan = getattr(manifest_scanner, "scan_component_manifests", None)
    if scan is None:
        yield
        return
    once = functools.cache(scan)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(manifest_scanner, "scan_component_manifests", lambda max_workers=None: list(once(max_workers)))
        yield


@pytest.fixture(scope="session", autouse=True)
def _runs_waited_for_without_polling() -> Iterator[None]:
    """AppTest waits for each script run by polling every millisecond (``require_widgets_deltas``):
    the polling thread takes the GIL a thousand times a second from the script it waits for
    (6 % of the CPU time of the AppTest modules went to the loop itself). The run is over when its
    thread ends (SHUTDOWN is its last event), so this joins the thread, with the same timeout and
    the same error after it. Without those internals (another Streamlit version), nothing is changed."""
    try:
        from streamlit.testing.v1 import local_script_runner
    except ImportError:
        yield
        return
    polling = getattr(local_script_runner, "require_widgets_deltas", None)
    if polling is None or not hasattr(local_script_runner.LocalScriptRunner, "script_stopped"):
        yield
        return

    def joined(runner: Any, timeout: float = 3) -> None:
        thread = getattr(runner, "_script_thread", None)
        if thread is not None:
            thread.join(timeout)
        if not runner.script_stopped():
            polling(runner, 0)  # stops the run and raises AppTest's own timeout error

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(local_script_runner, "require_widgets_deltas", joined)
        yield


def app_test(script: Any, timeout_s: float) -> Any:
    """An ``AppTest`` of the app ``script`` past a new visitor's first screen: its first run draws the
    whole page, as a browser's second run does (the first screen draws no control and its document
    view asks for the whole page once drawn: ``chunkviz.ui.firstpaint``, tested in test_firstpaint.py)."""
    from streamlit.testing.v1 import AppTest

    from chunkviz.ui.firstpaint import FIRST_RUN_DONE

    at = AppTest.from_file(str(script), default_timeout=timeout_s)
    at.session_state[FIRST_RUN_DONE] = True
    return at
