"""What the ``streamlit.testing.v1.AppTest`` runs of the app share: the scan for installed
Streamlit components (v2) is done once per test session, not once per AppTest.

Each new AppTest builds a component registry that reads the metadata of every installed
distribution (about 0.4 s of CPU with this virtual environment's ~180 packages, several
hundred AppTests in the suite) to find component manifests; the installed packages do not
change during a session, so the first scan's answer is the answer of every later one.
chunkviz declares its components in code (chunkviz/ui), so the scan finds none of them either way.
"""

from __future__ import annotations

import functools
from typing import Iterator

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
