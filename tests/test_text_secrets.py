"""chunkviz/text/secrets.py: the literal prefilter finds exactly what the full scan finds."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkviz.text import secrets
from chunkviz.text.secrets import find_secrets

#: Pieces that make, break or border the provider patterns (the prefixes and their neighbours).
PIECES = [
    "sk-", "sk-ant-", "proj-", "rk_live_", "sk_live_", "AKIA", "ASIA", "ghp_", "github_pat_", "glpat-",
    "xoxb-", "AIza", "eyJ", ".", "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----",
    "A1b2C3d4E5f6G7h8", "ABCDEFGHIJKLMNOP", "q9Z_x-", " ", "\n", "https://", "/",
]  # fmt: skip


def full_scan(text: str, monkeypatch: pytest.MonkeyPatch) -> list[secrets.Secret]:
    """What find_secrets gives when every pattern scans every text (the empty literal is in any text)."""
    with monkeypatch.context() as patch:
        patch.setattr(secrets, "_PROVIDER_KEYS", tuple((k, p, s, ("",)) for k, p, s, _ in secrets._PROVIDER_KEYS))
        return find_secrets(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40).map("".join))
def test_the_prefilter_finds_what_the_full_scan_finds(text: str) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        assert find_secrets(text) == full_scan(text, monkeypatch)


def test_each_kind_is_still_found_behind_its_literal() -> None:
    text = (
        "a sk-ant-" + "x" * 24 + " b sk-proj-" + "y" * 24 + " c rk_live_" + "Z" * 16 + " d AKIA" + "A" * 16
        + " e ghp_" + "a" * 30 + " f glpat-" + "b" * 20 + " g xoxp-" + "1" * 10 + " h AIza" + "c" * 35
        + " i eyJ" + "d" * 10 + ".eyJ" + "e" * 10 + "." + "f" * 10
        + " j -----BEGIN EC PRIVATE KEY-----\nabc\n-----END EC PRIVATE KEY-----"
    )  # fmt: skip
    kinds = [s.kind for s in find_secrets(text)]
    assert kinds == [
        "Anthropic API key",
        "OpenAI-style API key (sk-)",
        "Stripe secret key",
        "AWS access key ID",
        "GitHub token",
        "GitLab token",
        "Slack token",
        "Google API key",
        "JSON web token",
        "private key block",
    ]
