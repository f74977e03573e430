"""What pytest must find here: the loopback LLM endpoint of every test session and the registration
of the fixture modules in ``tests/support/`` (test modules import the helpers they call from there,
e.g. ``from support.chunking import assert_valid_chunking``).
"""

from __future__ import annotations

from typing import Any

import pytest

# Assertion messages of the helpers (assert_valid_chunking & co) show the compared values, as in a test.
pytest.register_assert_rewrite("support")

#: Modules whose fixtures every test module sees, without importing them.
pytest_plugins = [
    "support.browser_fixtures",  # sync_api, browser, server, page
    "support.chunking",  # valid_chunking
    "support.llm",  # llm_server, llm_settings, llm_endpoint_env, loopback_llm_env
    "support.paths",  # realdocs_dir
    "support.semantic",  # semantic_cache_dir, topic, fake_model
]


@pytest.fixture(scope="session", autouse=True)
def _llm_endpoint(loopback_llm_env: Any) -> None:
    """Every test session (every xdist worker) talks to a loopback chat-completions server, never a
    remote one: the generic tests that run every registered strategy run ``llm`` against it."""
