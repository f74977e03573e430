"""chunkviz.llm.client against a real loopback chat-completions server (tests/support/llm.py).

Every case counts requests at the server; none measures time. Retries and timeouts are small
(``fast_settings``) so the failing cases stay quick.
"""

from __future__ import annotations

import builtins
import contextlib
import json
import re
import socket
import sqlite3
from pathlib import Path

import pytest
from support.llm import LoopbackLLM, Reply, empty, fast_settings, rate_limited, sections_reply, server_error, slow

from chunkviz.core.errors import ChunkvizError
from chunkviz.llm import (
    CallEstimate,
    LLMClient,
    LLMError,
    LLMNotConfigured,
    LLMPackageMissing,
    LLMSettings,
    LLMSettingsError,
    Prompt,
)
from chunkviz.llm.cache import clear_memory
from chunkviz.llm.client import ANSWER_ATTEMPTS, count_tokens, display_url

SECRET = "sk-test-SECRET-0123456789"
ECHO = Prompt("echo", 1, "You repeat.", "Say {word}.")
JSONISH = Prompt("jsonish", 1, "JSON only.", "Numbers for {word}.", json=True)


@pytest.fixture(autouse=True)
def _fresh_memory() -> None:
    clear_memory()


def client_for(server: LoopbackLLM, tmp_path: Path, **overrides) -> LLMClient:
    return LLMClient(fast_settings(server, **overrides), cache_dir=tmp_path / "llm")


# ---- settings ------------------------------------------------------------------------------------
def test_settings_from_env_and_overrides() -> None:
    env = {"OPENAI_BASE_URL": "http://localhost:11434/v1", "OPENAI_API_KEY": SECRET, "CHUNKVIZ_LLM_MODEL": "llama3.1"}
    settings = LLMSettings.from_env(env)
    assert (settings.base_url, settings.api_key, settings.model) == ("http://localhost:11434/v1", SECRET, "llama3.1")
    assert settings.configured
    # None keeps the environment's value (an unset flag), a value replaces it, "" clears it
    changed = LLMSettings.from_env(env, base_url=None, model="qwen2.5", timeout=5.0, api_key="")
    assert (changed.base_url, changed.model, changed.timeout, changed.api_key) == (
        "http://localhost:11434/v1",
        "qwen2.5",
        5.0,
        None,
    )
    assert LLMSettings.from_env({}).missing() == [
        "OPENAI_BASE_URL (or OPENAI_API_KEY for OpenAI)",
        "CHUNKVIZ_LLM_MODEL",
    ]
    # OpenAI itself: a key and a model, no base URL
    openai = LLMSettings.from_env({"OPENAI_API_KEY": SECRET, "CHUNKVIZ_LLM_MODEL": "gpt-4o-mini"})
    assert openai.configured and openai.endpoint == "https://api.openai.com/v1"
    with pytest.raises(LLMSettingsError, match="unknown LLM setting"):
        LLMSettings.from_env(env, modle="x")


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [("timeout", 0.0, "> 0 seconds"), ("concurrency", 0, "1..64"), ("max_retries", -1, "0..20")],
)
def test_settings_out_of_range_say_the_range(field: str, value: float, says: str) -> None:
    with pytest.raises(LLMSettingsError, match=f"{field} must be {re.escape(says)}"):
        LLMSettings(**{field: value})


def test_the_key_is_never_shown() -> None:
    settings = LLMSettings("http://user:pw@localhost:8000/v1", SECRET, "m")
    shown = [repr(settings), str(settings), json.dumps(settings.public()), repr(LLMClient(settings)), settings.endpoint]
    assert not any(SECRET in s or ":pw@" in s for s in shown)
    assert settings.public() == {
        "base_url": "http://localhost:8000/v1",
        "model": "m",
        "api_key_set": True,
        "timeout": 60.0,
        "max_retries": 4,
        "concurrency": 4,
    }
    assert display_url("http://localhost:11434/v1") == "http://localhost:11434/v1"


def test_not_configured_says_what_to_set_with_ollama_and_openai_examples() -> None:
    with pytest.raises(LLMNotConfigured) as caught:
        LLMClient(LLMSettings.from_env({}))
    message = str(caught.value)
    assert isinstance(caught.value, ChunkvizError)
    for needed in ("OPENAI_BASE_URL", "CHUNKVIZ_LLM_MODEL", "OPENAI_API_KEY", "--llm-base-url", "--llm-model"):
        assert needed in message
    assert "OPENAI_BASE_URL=http://localhost:11434/v1 CHUNKVIZ_LLM_MODEL=llama3.1" in message  # Ollama
    assert "OPENAI_API_KEY=sk-... CHUNKVIZ_LLM_MODEL=gpt-4o-mini" in message  # OpenAI
    with pytest.raises(LLMNotConfigured, match=r"missing: CHUNKVIZ_LLM_MODEL\)"):
        LLMClient(LLMSettings(base_url="http://localhost:11434/v1"))


def test_missing_openai_package_names_the_llm_extra(monkeypatch, llm_server: LoopbackLLM, tmp_path: Path) -> None:
    real_import = builtins.__import__

    def no_openai(name, *args, **kwargs):
        if name == "openai" or name.startswith("openai."):
            raise ImportError("No module named 'openai'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_openai)
    client = client_for(llm_server, tmp_path)
    with pytest.raises(LLMPackageMissing, match=r"pip install 'chunkviz\[llm\]'"):
        client.complete(ECHO, {"word": "hi"})
    assert llm_server.calls == 0


# ---- answers and the cache ---------------------------------------------------------------------------
def test_an_answer_is_cached_on_disk_and_a_second_run_makes_no_call(llm_server: LoopbackLLM, tmp_path: Path) -> None:
    llm_server.play(Reply("hello"))
    first = client_for(llm_server, tmp_path)
    assert first.complete(ECHO, {"word": "hello"}) == "hello"
    assert llm_server.calls == 1
    assert (first.stats.made, first.stats.cached) == (1, 0)
    request = llm_server.requests[0]
    assert request["model"] == "loopback-model" and request["temperature"] == 0
    assert request["messages"] == [
        {"role": "system", "content": "You repeat."},
        {"role": "user", "content": "Say hello."},
    ]
    assert "response_format" not in request
    assert llm_server.headers[0]["authorization"] == f"Bearer {SECRET}"
    clear_memory()  # a new process: only the disk remains
    second = client_for(llm_server, tmp_path)
    assert second.complete(ECHO, {"word": "hello"}) == "hello"
    assert llm_server.calls == 1
    assert (second.stats.made, second.stats.cached) == (0, 1)
    # the key is not stored with the answer
    assert SECRET.encode() not in (tmp_path / "llm" / "answers.sqlite").read_bytes()


def test_the_cache_key_holds_prompt_version_model_and_inputs(llm_server: LoopbackLLM, tmp_path: Path) -> None:
    client = client_for(llm_server, tmp_path)
    llm_server.play(*(Reply(f"a{i}") for i in range(4)))
    client.complete(ECHO, {"word": "x"})
    client.complete(Prompt("echo", 2, ECHO.system, ECHO.template), {"word": "x"})  # new version
    client.complete(ECHO, {"word": "y"})  # new input
    client_for(llm_server, tmp_path, model="other").complete(ECHO, {"word": "x"})  # new model
    assert llm_server.calls == 4
    client.complete(ECHO, {"word": "x"})
    assert llm_server.calls == 4


def test_json_prompts_ask_for_json_mode_and_fall_back_when_the_server_refuses(
    llm_server: LoopbackLLM, tmp_path: Path
) -> None:
    refused = Reply(status=400, body='{"error": {"message": "response_format json_object is not supported"}}')
    llm_server.play(refused, sections_reply([2]))
    client = client_for(llm_server, tmp_path)
    assert client.complete(JSONISH, {"word": "a"}) == '{"section_starts": [2]}'
    assert [("response_format" in r) for r in llm_server.requests] == [True, False]
    llm_server.play(sections_reply([3]))
    client.complete(JSONISH, {"word": "b"})  # remembered: no second refusal
    assert "response_format" not in llm_server.requests[-1]


def test_estimate_counts_calls_cached_answers_and_input_tokens(llm_server: LoopbackLLM, tmp_path: Path) -> None:
    client = client_for(llm_server, tmp_path)
    inputs = [{"word": "a"}, {"word": "b"}, {"word": "a"}]
    one = count_tokens(ECHO.messages({"word": "a"}))
    assert one == count_tokens(ECHO.messages({"word": "b"})) > 0
    assert client.estimate(ECHO, inputs) == CallEstimate(calls=2, cached=0, input_tokens=2 * one)
    llm_server.play(Reply("A"))
    client.complete(ECHO, {"word": "a"})
    assert client.estimate(ECHO, inputs) == CallEstimate(calls=1, cached=1, input_tokens=one)
    assert llm_server.calls == 1  # estimating calls nothing
    assert client.estimate(ECHO, inputs).summary() == f"1 call, about {one:,} input tokens (1 answer cached)"


def test_complete_many_keeps_order_asks_once_per_distinct_input_and_limits_concurrency(
    llm_server: LoopbackLLM, tmp_path: Path
) -> None:
    llm_server.play(fallback=lambda request: Reply(request["messages"][1]["content"].upper(), delay=0.05))
    client = client_for(llm_server, tmp_path, concurrency=2)
    seen: list[tuple[int, int]] = []
    words = ["a", "b", "c", "a", "d", "e", "f"]
    answers = client.complete_many(ECHO, [{"word": w} for w in words], lambda d, t: seen.append((d, t)))
    assert answers == [f"SAY {w.upper()}." for w in words]
    assert llm_server.calls == 6  # "a" once
    assert llm_server.max_in_flight == 2
    assert seen[0] == (0, 7) and seen[-1] == (7, 7) and [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert (client.stats.made, client.stats.cached) == (6, 0)


# ---- failures: nothing partial is cached ---------------------------------------------------------------
def test_an_empty_answer_is_asked_again_never_cached_then_a_clear_error(
    llm_server: LoopbackLLM, tmp_path: Path
) -> None:
    llm_server.play(empty(ANSWER_ATTEMPTS), fallback=lambda r: Reply("late but good"))
    client = client_for(llm_server, tmp_path)
    with pytest.raises(LLMError, match=r"gave no usable answer .* in 2 attempts: the last answer was empty"):
        client.complete(ECHO, {"word": "x"})
    assert llm_server.calls == ANSWER_ATTEMPTS
    assert client.stats.failed == 1
    assert client.complete(ECHO, {"word": "x"}) == "late but good"  # asked again: nothing was cached
    assert llm_server.calls == ANSWER_ATTEMPTS + 1


def test_a_cut_off_or_rejected_answer_is_not_cached(llm_server: LoopbackLLM, tmp_path: Path) -> None:
    has_digit = lambda a: any(ch.isdigit() for ch in a)  # noqa: E731
    llm_server.play(
        Reply('{"section_starts": [1, 2', finish_reason="length"), Reply("[3]"), Reply("no numbers here"), Reply("[4]")
    )
    client = client_for(llm_server, tmp_path)
    assert client.complete(JSONISH, {"word": "x"}, accept=has_digit) == "[3]"
    assert client.complete(JSONISH, {"word": "y"}, accept=has_digit) == "[4]"
    assert llm_server.calls == 4
    clear_memory()
    again = client_for(llm_server, tmp_path)
    assert [again.complete(JSONISH, {"word": w}) for w in "xy"] == ["[3]", "[4]"]
    assert llm_server.calls == 4


def test_a_slow_answer_times_out_after_the_retries_and_is_not_cached(llm_server: LoopbackLLM, tmp_path: Path) -> None:
    llm_server.play(slow(1.0, times=2), fallback=lambda r: Reply("fast"))
    client = client_for(llm_server, tmp_path, timeout=0.2, max_retries=1)
    with pytest.raises(LLMError) as caught:
        client.complete(ECHO, {"word": "x"})
    message = str(caught.value)
    assert "did not answer within 0.2 s after 2 attempts" in message and "--llm-timeout" in message
    assert llm_server.base_url in message and "loopback-model" in message
    assert llm_server.calls == 2
    assert (client.stats.failed, client.stats.retries) == (1, 1)
    assert client.complete(ECHO, {"word": "x"}) == "fast"


def test_429_then_success_waits_and_succeeds(llm_server: LoopbackLLM, tmp_path: Path) -> None:
    llm_server.play(rate_limited(Reply("ok"), retry_after=0.01))
    client = client_for(llm_server, tmp_path)
    assert client.complete(ECHO, {"word": "x"}) == "ok"
    assert llm_server.calls == 2
    assert (client.stats.made, client.stats.retries, client.stats.failed) == (1, 1, 0)


def test_a_long_retry_after_is_not_waited_for(llm_server: LoopbackLLM, tmp_path: Path) -> None:
    llm_server.play(rate_limited(Reply("ok"), retry_after=3600))
    client = client_for(llm_server, tmp_path, max_retry_after=5.0)
    with pytest.raises(
        LLMError,
        match=r"rate limited \(429: slow down\) after 1 attempt \(it asked to wait 3600 s\); .*--llm-concurrency",
    ):
        client.complete(ECHO, {"word": "x"})
    assert llm_server.calls == 1


def test_500_forever_gives_up_after_the_retries_with_the_server_message(
    llm_server: LoopbackLLM, tmp_path: Path
) -> None:
    llm_server.play(fallback=server_error)
    client = client_for(llm_server, tmp_path, max_retries=3)
    with pytest.raises(LLMError, match=r"failed with HTTP 500: model crashed after 4 attempts; check the server's log"):
        client.complete(ECHO, {"word": "x"})
    assert llm_server.calls == 4
    assert client.estimate(ECHO, [{"word": "x"}]).cached == 0


def test_401_is_not_retried_and_never_echoes_the_key(llm_server: LoopbackLLM, tmp_path: Path) -> None:
    llm_server.play(Reply(status=401, body=json.dumps({"error": {"message": f"Incorrect API key provided: {SECRET}"}})))
    client = client_for(llm_server, tmp_path)
    with pytest.raises(LLMError) as caught:
        client.complete(ECHO, {"word": "x"})
    message = str(caught.value)
    assert "HTTP 401: Incorrect API key provided: ***" in message and "set OPENAI_API_KEY" in message
    assert SECRET not in message
    assert llm_server.calls == 1 and client.stats.failed == 1


def test_an_unreachable_server_says_so(tmp_path: Path) -> None:
    with _closed_port() as url:
        client = LLMClient(LLMSettings(url, None, "m", timeout=1.0, max_retries=1, backoff=0.01), cache_dir=tmp_path)
        with pytest.raises(LLMError, match=r"could not be reached after 2 attempts; check that the server is running"):
            client.complete(ECHO, {"word": "x"})


def test_complete_many_stops_at_the_first_failure_and_keeps_the_answers_before_it(
    llm_server: LoopbackLLM, tmp_path: Path
) -> None:
    def answer(request):
        word = request["messages"][1]["content"]
        return server_error(request) if "bad" in word else Reply(word)

    llm_server.play(fallback=answer)
    client = client_for(llm_server, tmp_path, concurrency=1, max_retries=0)
    with pytest.raises(LLMError, match="HTTP 500"):
        client.complete_many(ECHO, [{"word": "one"}, {"word": "bad"}, {"word": "three"}])
    # "one" was answered and kept; "bad" was not cached ("three" may or may not have started)
    assert client.estimate(ECHO, [{"word": "one"}, {"word": "bad"}]) == CallEstimate(
        1, 1, count_tokens(ECHO.messages({"word": "bad"}))
    )


@contextlib.contextmanager
def _closed_port():
    """A loopback URL nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    yield f"http://127.0.0.1:{port}/v1"


def test_sqlite_holds_only_complete_answers(llm_server: LoopbackLLM, tmp_path: Path) -> None:
    llm_server.play(Reply(""), Reply(""), Reply("fine"))
    client = client_for(llm_server, tmp_path)
    with pytest.raises(LLMError):
        client.complete(ECHO, {"word": "a"})
    assert client.complete(ECHO, {"word": "b"}) == "fine"
    with sqlite3.connect(tmp_path / "llm" / "answers.sqlite") as db:
        rows = db.execute("SELECT prompt, version, model, answer FROM answers").fetchall()
    assert rows == [("echo", 1, "loopback-model", "fine")]


def test_a_503_with_retry_after_is_retried(llm_server: LoopbackLLM, tmp_path: Path) -> None:
    llm_server.play(
        Reply(status=503, headers={"Retry-After": "0.01"}, body='{"error": {"message": "loading model"}}'), Reply("ok")
    )
    client = client_for(llm_server, tmp_path)
    assert client.complete(ECHO, {"word": "x"}) == "ok"
    assert llm_server.calls == 2 and client.stats.retries == 1
    client.close()
    llm_server.play(Reply("again"))
    assert client.complete(ECHO, {"word": "y"}) == "again"  # a closed client reconnects when used again
    assert llm_server.calls == 3


def test_answers_in_memory_are_bounded_and_the_disk_still_has_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from chunkviz.llm import cache as answer_cache

    clear_memory()
    monkeypatch.setattr(answer_cache.ANSWERS, "max_entries", 2)
    store = answer_cache.AnswerCache(tmp_path)
    for key in ("a", "b", "c"):
        store.put(key, f"answer {key}", "prompt", 1, "model")
    assert answer_cache.ANSWERS.keys() == ["b", "c"]
    assert store.get("a") == "answer a"  # read from disk again, and now the newest in memory
    assert answer_cache.ANSWERS.keys() == ["c", "a"]
    clear_memory()
