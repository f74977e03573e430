"""Issue 36 item 8: every registered strategy at every parameter's documented bounds, on a real
document, under a memory limit: valid chunks or the project's own clear error, never a MemoryError
or a crash.

The cases come from what the strategies declare (tests/support/bounds.py: each bounded parameter
alone at its minimum and at its maximum, and the corners of the size and overlap parameters together,
e.g. ``cluster`` at ``max_tokens=100000 min_tokens=1``, which took 3.5 GB on the 7.5 kB NDA); they run
in a child process whose data segment is limited to 2 GB, with a timeout that only a blowup reaches
(a run of all cases takes seconds). Every strategy that embeds, the peers' semantic chunkers
included, uses the stand-in model (their algorithm's memory is the point, not the vectors), on the NDA.
"""

from __future__ import annotations

import pytest
from support.bounds import GOOD, bound_cases, run_cases
from support.paths import REALDOCS

import chunkviz
from chunkviz.strategies.peers import is_peer

NDA = REALDOCS / "common_paper_mutual_nda_v1.md"
#: Seconds the child may take for all its cases: far above a normal run, reached only by a blowup.
TIMEOUT_S = 600

pytestmark = pytest.mark.skipif(not NDA.is_file(), reason=f"the NDA is not in the shared folder ({REALDOCS})")


def sweep(names: set[str]) -> None:
    strategies = [s for s in chunkviz.strategies() if s["name"] in names]
    cases = [(name, params, NDA) for name, params in bound_cases(strategies)]
    outcomes = run_cases(cases, TIMEOUT_S)
    bad = [str(o) for o in outcomes if o.kind not in GOOD]
    assert not bad, "\n".join(bad)
    assert len(outcomes) == len(cases)
    assert {o.strategy for o in outcomes if o.kind == "chunks"} == names, "every strategy chunks at some bound"


def test_the_cases_are_every_bound_and_the_corners_of_the_sizes() -> None:
    cases = bound_cases([s for s in chunkviz.strategies() if s["name"] == "cluster"])
    assert cases == [
        ("cluster", {"max_tokens": 1}),
        ("cluster", {"max_tokens": 100_000}),
        ("cluster", {"min_tokens": 1}),
        ("cluster", {"min_tokens": 100_000}),
        ("cluster", {"max_tokens": 1, "min_tokens": 1}),
        ("cluster", {"max_tokens": 1, "min_tokens": 100_000}),
        ("cluster", {"max_tokens": 100_000, "min_tokens": 1}),
        ("cluster", {"max_tokens": 100_000, "min_tokens": 100_000}),
    ]
    names = {name for name, _ in bound_cases(chunkviz.strategies())}
    assert names == {s["name"] for s in chunkviz.strategies()} - {"langchain_markdown_headers"}, "it has no bounds"


def test_our_strategies_at_their_bounds() -> None:
    sweep({s["name"] for s in chunkviz.strategies() if not is_peer(s["name"])})


def test_the_peers_at_their_bounds() -> None:
    peers = {s["name"] for s in chunkviz.strategies() if is_peer(s["name"])} - {"langchain_markdown_headers"}
    if not peers:
        pytest.skip("no peer library is installed")
    sweep(peers)
