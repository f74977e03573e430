#!/usr/bin/env python
"""Side files benchmark (issue 23): locating excerpts, and reading hostile side files.

    .venv/bin/python bench/bench_sidefiles.py [--questions 1000,4000,16000] [--mb 4.6]

1. Excerpt lookup: ``parse_questions`` on N excerpt questions (sentences of the document, each
   occurring once) over a generated document of ``--mb`` MB; CPU seconds per 1,000 questions at
   each N and the ratio to the previous N (one scan per excerpt made this grow with N x the
   document: 4,000 on 4.6 MB took 3.3 s here before, 16,000 12.9 s).
2. Hostile side files through the CLI in a child process: ``--config /dev/zero``,
   ``--questions /dev/zero``, a question line nested 100,000 deep, a 5,000-digit offset; the
   message, the exit status and the child's peak memory (``ru_maxrss``).
CPU time, not wall time, so other work on a shared machine does not enter the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from chunkviz.evaluation.questions import parse_questions  # noqa: E402


def corpus(size: int, seed: int = 1) -> tuple[str, list[str]]:
    rng = random.Random(seed)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9))) for _ in range(5000)]
    sentences, total = [], 0
    while total < size:
        sentence = " ".join(rng.choice(words) for _ in range(12)).capitalize() + f" {len(sentences)}. "
        sentences.append(sentence)
        total += len(sentence)
    return "".join(sentences), sentences


def excerpt_lookup(counts: list[int], mb: float) -> None:
    text, sentences = corpus(int(mb * 1e6))
    print(f"excerpt lookup on {len(text) / 1e6:.1f} MB ({len(sentences):,} sentences)")
    previous = None
    for n in counts:
        picks = random.Random(n).sample(range(len(sentences)), min(n, len(sentences)))
        jsonl = "".join(
            json.dumps({"question": f"q{i}", "references": [{"excerpt": sentences[i].strip()}]}) + "\n" for i in picks
        )
        start = time.process_time()
        parse_questions(jsonl, {"doc.md": text}, format="jsonl")
        per_1000 = (time.process_time() - start) / len(picks) * 1000
        ratio = f"  x{per_1000 / previous:.2f} per question" if previous else ""
        print(f"  {len(picks):>7,} questions: {per_1000:.3f} s CPU per 1,000{ratio}")
        previous = per_1000


def hostile_files() -> None:
    print("hostile side files (chunkviz in a child process)")
    with tempfile.TemporaryDirectory() as folder:
        doc = Path(folder) / "doc.md"
        doc.write_text("Some text here.\n")
        deep = Path(folder) / "deep.jsonl"
        deep.write_text(
            '{"question": "q", "references": [{"excerpt": "text"}], "x": ' + "[" * 100_000 + "]" * 100_000 + "}\n"
        )
        digits = Path(folder) / "digits.jsonl"
        digits.write_text('{"question": "q", "references": [{"start": ' + "9" * 5_000 + ', "end": 3}]}\n')
        cases = {
            "--config /dev/zero": ["chunk", str(doc), "--config", "/dev/zero"],
            "--questions /dev/zero": ["eval", str(doc), "--questions", "/dev/zero"],
            "questions nested 100,000 deep": ["eval", str(doc), "--questions", str(deep)],
            "a 5,000-digit offset": ["eval", str(doc), "--questions", str(digits)],
        }
        env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
        for name, argv in cases.items():
            if "/dev/zero" in argv and not os.path.exists("/dev/zero"):
                continue
            child = subprocess.Popen(
                [sys.executable, "-m", "chunkviz", *argv],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
            )
            assert child.stderr is not None
            stderr = child.stderr.read()
            _, status, usage = os.wait4(child.pid, 0)  # this child's own peak, not the largest so far
            child.returncode = os.waitstatus_to_exitcode(status)
            peak = usage.ru_maxrss
            message = stderr.strip().splitlines()[-1][:150] if stderr.strip() else ""
            print(f"  {name}: exit {child.returncode}, peak {peak / 1024:,.0f} MB: {message}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", default="1000,4000,16000")
    parser.add_argument("--mb", type=float, default=4.6)
    args = parser.parse_args()
    excerpt_lookup([int(n) for n in args.questions.split(",")], args.mb)
    hostile_files()


if __name__ == "__main__":
    main()
