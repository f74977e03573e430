"""Every registered strategy at its parameters' documented bounds (issue 36 item 8), run in a child
process under a memory limit.

:func:`bound_cases` lists the cases from what the strategies declare (``chunkviz.strategies()``):
each numeric parameter alone at its minimum and at its maximum (the others at their defaults), and
every corner of a strategy's size parameters (those in tokens or characters, and overlaps), e.g.
``cluster`` at ``max_tokens=100000, min_tokens=1``. :func:`run_cases` runs them in a child Python
whose data segment is limited (``RLIMIT_DATA``), and returns one :class:`Outcome` per case: valid
chunks (the span contract, ``support.chunking``), the project's own clear error (what the command
line shows as a one-line message with exit 2), or anything else (a MemoryError under the limit, a
crash: what the test refuses). The child embeds with the stand-in model (``support.semantic``)
where a strategy takes a ``model`` (the point is the algorithm's memory, not the model's); the
peers' semantic chunkers load the offline model themselves. ``llm`` talks to the loopback server
the test session runs (the child inherits its environment).
"""

from __future__ import annotations

import itertools
import json
import os
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The child's data segment: the embedding model and the libraries take about 0.75 GB of it.
MEMORY_LIMIT_BYTES = 2 * 1024**3
#: The units of the parameters whose corners are tried together (sizes; overlaps declare an ``overlap_unit``).
SIZE_UNITS = ("tokens", "chars")
#: A case's outcome ``kind``: chunks that keep the span contract, or a clear refusal.
GOOD = ("chunks", "refused")


@dataclass(frozen=True)
class Outcome:
    strategy: str
    params: dict[str, Any]
    kind: str  # "chunks", "refused", or "failed"
    detail: str  # the chunk count, the refusal's message, or what went wrong
    seconds: float = 0.0  # how long the case ran (shown, never asserted)

    def __str__(self) -> str:
        return f"{self.strategy} {self.params}: {self.kind}: {self.detail}"


def _bounds(param: dict[str, Any]) -> list[Any]:
    return [v for v in (param["minimum"], param["maximum"]) if v is not None]


def bound_cases(strategies: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """``(strategy, params)``: each bounded parameter alone at each bound, and the corners of the
    strategy's size parameters (two or more parameters in tokens or characters), without repeats."""
    cases: list[tuple[str, dict[str, Any]]] = []
    for strategy in strategies:
        name, params = strategy["name"], strategy["params"]
        mine = [{p["name"]: bound} for p in params for bound in _bounds(p)]
        sized = [p for p in params if (p.get("unit") in SIZE_UNITS or p.get("overlap_unit")) and _bounds(p)]
        if len(sized) > 1:
            corners = itertools.product(*[[(p["name"], bound) for bound in _bounds(p)] for p in sized])
            mine += [dict(corner) for corner in corners]
        for values in mine:
            if (name, values) not in cases:
                cases.append((name, values))
    return cases


def run_cases(cases: list[tuple[str, dict[str, Any], Path]], timeout: float) -> list[Outcome]:
    """Run ``cases`` (strategy, params, document) in a child process under :data:`MEMORY_LIMIT_BYTES`;
    a case the child did not finish (it died, or ran out of ``timeout`` seconds, which only a blowup
    reaches) is a failure naming what happened."""
    import chunkviz

    tests = Path(__file__).resolve().parents[1]
    root = Path(chunkviz.__file__).resolve().parents[1]
    path = os.pathsep.join([str(root), str(tests), os.environ.get("PYTHONPATH", "")])
    request = json.dumps([[name, params, str(document)] for name, params, document in cases])
    try:
        run = subprocess.run(
            [sys.executable, "-c", "from support.bounds import child; child()"],
            input=request,
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, "PYTHONPATH": path},
        )
        stdout, stderr, ended = run.stdout, run.stderr, f"exit status {run.returncode}"
    except subprocess.TimeoutExpired as exc:
        stdout = exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout or ""
        stderr = exc.stderr.decode() if isinstance(exc.stderr, bytes) else exc.stderr or ""
        ended = f"still running after {timeout:g} s"
    done = [Outcome(**json.loads(line)) for line in stdout.splitlines() if line.startswith("{")]
    if len(done) < len(cases):
        name, params, _ = cases[len(done)]
        tail = stderr.strip().splitlines()[-3:]
        done.append(Outcome(name, params, "failed", f"the child process ended ({ended}) in this case: {tail}"))
    return done


def check_spans(text: str, chunks: list[Any]) -> None:
    """A peer's chunks as chunkviz draws them: exact spans in order (the peer's own text, and what it
    left out or changed, are the audit's flags, not a failure here)."""
    for k, c in enumerate(chunks):
        assert c.index == k and 0 <= c.start < c.end <= len(text) and c.text == text[c.start : c.end], (k, c)


def child() -> None:  # pragma: no cover - runs in the child process
    """Limit this process's data segment to :data:`MEMORY_LIMIT_BYTES`, read the cases ``[strategy,
    params, document]`` from standard input and print one Outcome as JSON per case."""
    resource.setrlimit(resource.RLIMIT_DATA, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))  # before anything is loaded
    import chunkviz.semantic.embeddings as embeddings
    from chunkviz import chunk
    from chunkviz.core.errors import ChunkvizError
    from chunkviz.strategies.peers import adapters, is_peer, runners
    from chunkviz.text.tokenizers import get_tokenizer
    from support.chunking import assert_valid_chunking
    from support.paths import read_realdoc
    from support.semantic import (
        FAKE_MODEL,
        MINILM_LIMIT,
        HashedBagOfWords,
        embedding_strategies,
        hashed_chonkie_embeddings,
    )

    request = json.loads(sys.stdin.read())
    fake = HashedBagOfWords(FAKE_MODEL, None, get_tokenizer("minilm"), MINILM_LIMIT)
    real = embeddings.load_model
    embeddings.load_model = lambda name=embeddings.DEFAULT_MODEL: fake if name == FAKE_MODEL else real(name)
    # the peers' semantic chunkers too: their algorithm's memory at the bounds is the point, not the vectors
    runners.langchain_embeddings = lambda: adapters.langchain_embeddings(FAKE_MODEL)  # type: ignore[assignment]  # a stand-in in the child only
    runners.chonkie_embeddings = hashed_chonkie_embeddings  # type: ignore[assignment]  # a stand-in in the child only
    stand_in = embedding_strategies()
    for name, params, document in request:
        started = time.perf_counter()
        text = read_realdoc(Path(document))
        model = {"model": FAKE_MODEL} if name in stand_in and "model" not in params else {}
        try:
            chunks = chunk(text, name, **params, **model)
            if is_peer(name):
                check_spans(text, chunks)
            else:
                assert_valid_chunking(text, chunks, allow_added_text=True)
            kind, detail = "chunks", f"{len(chunks):,} chunks"
        except (ChunkvizError, ValueError) as exc:  # what the command line shows in one line, exit 2
            kind, detail = "refused", str(exc)
        except BaseException as exc:  # noqa: BLE001 - every other outcome is what the test reports
            kind, detail = "failed", f"{type(exc).__name__}: {exc}"[:500]
        seconds = round(time.perf_counter() - started, 2)
        outcome = {"strategy": name, "params": params, "kind": kind, "detail": detail, "seconds": seconds}
        print(json.dumps(outcome), flush=True)


__all__ = ["GOOD", "MEMORY_LIMIT_BYTES", "Outcome", "bound_cases", "check_spans", "child", "run_cases"]
