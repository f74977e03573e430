"""chunkviz.llm.sections: reading and repairing the model's answer, windows and their merge."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkviz.llm.sections import (
    MAX_LINE_CHARS,
    SECTION_PROMPT,
    Proposal,
    Window,
    merged_starts,
    plan_windows,
    read_section_starts,
    sentence_line,
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ('{"section_starts": [4, 9]}', Proposal((4, 9))),
        ('{"section_starts": []}', Proposal(())),
        ("[1, 3]", Proposal((3,))),  # 1 is the window's first sentence: no cut, no repair
        ('```json\n{"section_starts": [3]}\n```', Proposal((3,), ("removed a Markdown code fence around the JSON",))),
        (
            'Sure! Here you go: {"section_starts": [2, 5]} Hope it helps.',
            Proposal((2, 5), ("ignored text around the JSON",)),
        ),
        ('{"section_starts": [2, 5,', Proposal((2, 5), ("not valid JSON: read the numbers from the text",))),
        (
            "New sections begin at sentences 3 and 7.",
            Proposal((3, 7), ("not valid JSON: read the numbers from the text",)),
        ),
        (
            '{"section_starts": [12, 5, 5, 0, 3]}',
            Proposal(
                (3, 5),
                ("dropped numbers out of range 1..10: 12, 0", "sorted the numbers", "removed repeated number: 5"),
            ),
        ),
        (
            '{"sections": [2, "4"]}',
            Proposal((2, 4), ("read the list under 'sections' (not 'section_starts')", "read 1 number given as text")),
        ),
        (
            '{"section_starts": [2, "x", null, 4.0]}',
            Proposal((2, 4), ("dropped 2 items that are not a sentence number",)),
        ),
        ("7", Proposal((7,))),
    ],
)
def test_answers_are_read_and_every_repair_is_named(answer: str, expected: Proposal) -> None:
    assert read_section_starts(answer, 10) == expected


@pytest.mark.parametrize(
    "answer", ["", "   ", "I cannot do that.", '{"answer": "none"}', "true", '{"section_starts": "soon"}', "null"]
)
def test_answers_without_sentence_numbers_are_unusable(answer: str) -> None:
    assert read_section_starts(answer, 10) is None


@pytest.mark.parametrize(
    "answer",
    [
        "[" * 100_000 + "]" * 100_000,
        '{"a": ' * 50_000 + "1" + "}" * 50_000,
        "Here you are: " + "[" * 5_000 + "2" + "]" * 5_000,
        "```json\n" + "[" * 3_000 + "]" * 3_000 + "\n```",
    ],
    ids=["list", "object", "in_prose", "fenced"],
)
def test_an_answer_nested_deeper_than_any_answer_needs_is_unusable(answer: str) -> None:
    """Issue 36 item 17: the parser recursed once per level (RecursionError, "this is a bug");
    the side files' depth bound makes it an unusable answer, asked for again."""
    assert read_section_starts(answer, 10) is None


def test_a_whole_number_too_long_to_be_a_sentence_number_is_dropped() -> None:
    """5,000 digits: Python refuses to convert them (ValueError about int-digit limits) and no
    sentence has such a number; the others are still read."""
    huge = "9" * 5_000
    assert read_section_starts(f'{{"section_starts": ["{huge}", 3]}}', 10) == Proposal(
        (3,), ("dropped 1 item that is not a sentence number",)
    )
    assert read_section_starts(f"Sections start at {huge} and 4.", 10) == Proposal(
        (4,), ("not valid JSON: read the numbers from the text",)
    )


def test_sentence_lines_are_one_line_and_long_sentences_shortened() -> None:
    assert sentence_line("  A  first\nsentence.  \n", 3) == "[3] A first sentence."
    assert (
        sentence_line("bad \ud800 half 😀", 2) == "[2] bad \ufffd half 😀"
    )  # a request cannot encode a lone surrogate
    long = sentence_line("word " * 1000, 1)
    assert long.endswith(" …") and len(long) <= len("[1] ") + MAX_LINE_CHARS + 2


def test_the_prompt_asks_for_strict_json() -> None:
    messages = SECTION_PROMPT.messages({"what": "a document", "sentences": "[1] A.\n[2] B."})
    assert SECTION_PROMPT.json and SECTION_PROMPT.name == "llm_chunking"
    assert messages[1]["content"].endswith("Sentences:\n[1] A.\n[2] B.")
    assert '{"section_starts": [4, 9, 15]}' in messages[1]["content"]


def test_windows_overlap_and_their_cores_tile_the_sentences() -> None:
    windows = plan_windows([10] * 10, budget=35, overlap=2)
    # 3 sentences fit; the overlap is capped at half a window so each window advances
    assert [(w.first, w.end) for w in windows] == [(0, 3), (2, 5), (4, 7), (6, 9), (8, 10)]
    assert [(w.core_start, w.core_end) for w in windows] == [(0, 3), (3, 5), (5, 7), (7, 9), (9, 10)]
    assert [(w.first, w.end) for w in plan_windows([10] * 10, budget=1000, overlap=2)] == [(0, 10)]
    # no overlap: windows touch, each decides from its own start
    assert [(w.first, w.end, w.core_start) for w in plan_windows([10] * 6, budget=20, overlap=0)] == [
        (0, 2, 0),
        (2, 4, 2),
        (4, 6, 4),
    ]
    # a sentence over the budget still gets a window of its own
    assert [(w.first, w.end) for w in plan_windows([5, 50, 5], budget=20, overlap=1)] == [(0, 1), (1, 2), (2, 3)]


def test_merge_keeps_each_windows_proposals_inside_its_core_only() -> None:
    windows = plan_windows([10] * 10, budget=35, overlap=2)
    proposals = [Proposal((2, 3)), Proposal((2, 3)), Proposal((2, 3)), Proposal((2, 3)), Proposal((2,))]
    # window (2,5) core [3,5): local 2, 3 -> sentences 3, 4; window (4,7) core [5,7): 5, 6; ...
    assert merged_starts(windows, proposals) == {1: 0, 2: 0, 3: 1, 4: 1, 5: 2, 6: 2, 7: 3, 8: 3, 9: 4}
    # a window never decides its own first sentence (it saw nothing before it)
    touching = plan_windows([10] * 6, budget=20, overlap=0)
    assert merged_starts(touching, [Proposal((2,)), Proposal((2,)), Proposal((2,))]) == {1: 0, 3: 1, 5: 2}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 60), min_size=1, max_size=80), st.integers(20, 200), st.integers(0, 20))
def test_windows_fit_the_budget_advance_and_cores_tile(tokens: list[int], budget: int, overlap: int) -> None:
    windows = plan_windows(tokens, budget, overlap)
    n = len(tokens)
    assert windows[0].first == 0 and windows[-1].end == n
    assert windows[0].core_start == 0 and windows[-1].core_end == n
    for w in windows:
        assert w.size == 1 or sum(tokens[w.first : w.end]) <= budget
        assert w.first <= w.core_start <= w.core_end <= w.end
    for a, b in zip(windows, windows[1:]):
        assert a.core_end == b.core_start and a.first < b.first and a.end <= b.end
        assert (
            b.core_start > b.first or b.first == a.end
        )  # overlapping windows: the later one never decides its first sentence
        assert b.first >= a.end - overlap


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.one_of(st.integers(-5, 40), st.text(alphabet="0123456789 -x", max_size=3), st.none()), max_size=30),
    st.integers(1, 30),
)
def test_any_list_is_read_into_sorted_unique_in_range_starts(items: list, n: int) -> None:
    proposal = read_section_starts(json.dumps({"section_starts": items}), n)
    assert proposal is not None
    assert list(proposal.starts) == sorted(set(proposal.starts)) and all(2 <= k <= n for k in proposal.starts)
    wanted = {int(i) for i in items if isinstance(i, int) or (isinstance(i, str) and re.fullmatch(r"\s*-?\d+\s*", i))}
    assert set(proposal.starts) == {k for k in wanted if 2 <= k <= n}
    assert bool(proposal.repairs) == (
        any(not isinstance(i, int) for i in items)
        or any(not 1 <= i <= n for i in items if isinstance(i, int))
        or [i for i in items if isinstance(i, int)] != sorted(i for i in items if isinstance(i, int))
        or any(items.count(i) > 1 for i in items if isinstance(i, int) and 1 <= i <= n)
    )


def test_window_dataclass_size() -> None:
    assert Window(0, 3, 8, 3, 8).size == 5
