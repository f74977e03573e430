#!/usr/bin/env python
"""Engine benchmark: chunkviz vs Chonkie and LangChain on cl100k_base, 512-token chunks.

    .venv/bin/python bench/bench_engine.py --one-core [--rounds N] [--words N] [--json PATH]
    taskset -c 0 .venv/bin/python bench/bench_engine.py [--words N] [--repeats N] [--json PATH]

``--one-core`` is the check of the engine's speed targets (issue 20): it re-executes itself
under ``taskset -c 0`` (one core), builds one ~500,000-word Markdown document (a fixed seed,
``--seed``), and runs ``--rounds`` interleaved rounds (default 5). In each round every row is
timed once on its own variant of the document (a unique last line, so no cache helps) between
two bare ``encode_ordinary`` calls of that variant by the same encoder object (their mean is its
paired reference). Times are this process's CPU time (``--clock cpu``, the default: what other
processes on the shared core take is not counted) or wall time (``--clock wall``). It prints
each row's median time and spread (min-max), each round's ratios and their median, and
PASS/MISS per target from the medians:

  recursive, overlap 0 and 50   <= 1.3x its paired bare encode
  fixed_tokens, overlap 50      <= 1.1x its paired bare encode
  recursive, overlap 0          >= 1.2x the speed of Chonkie's RecursiveChunker in the same round
                                (Chonkie's time / ours; same document, tokenizer and size)

Without ``--one-core`` (below): best-of times on this process's cores, then on two.

Runs every measurement on one core (the cores this process may use; ``taskset -c 0`` gives
one), then again in a child process allowed two cores (``--cores 0,1``). Per repeat a fresh
document of ~500,000 words is generated (a new random seed each run), and every timed call gets
its own variant of it (a unique last line), so no cache of any chunker helps; chunkviz's shared
span counters and documents and its token-count memo are cleared before each of its calls.

Timed, best of ``--repeats``:

  encode        enc.encode_ordinary(text), one call, one thread (the reference)
  recursive     chunkviz.chunk(text, "recursive", chunk_size=512, overlap=0 | 50): end to end
                as a user calls it (Document creation, splitting, Chunk objects with their
                boundary from the document structure)
  engine        the same pieces without Document/Chunks: SpanCounter + RecursiveSplitter.split_span
  boundaries    document.structure.boundary_at(end) for the same cuts on a fresh Document
  fixed_tokens  chunkviz.chunk(text, "fixed_tokens", chunk_size=512, overlap=50)
  Chonkie       RecursiveChunker(tokenizer=enc, chunk_size=512) with levels "\\n\\n", "\\n",
                whitespace, characters (chunkviz's default separators); overlap 50 adds
                OverlapRefinery(context_size=50, method="prefix") (Chonkie has no overlap in
                the chunker itself)
  LangChain     RecursiveCharacterTextSplitter(chunk_size=512, chunk_overlap=0 | 50,
                length_function=len(enc.encode(s))), default separators (the same four)

Ratios: time / encode time (targets: recursive <= 1.3x, fixed_tokens <= 1.1x) and our time /
the peer's time (below 1 = faster). The first call in a fresh process (imports: spaCy for
sentence boundaries, markdown-it) is reported separately and not in the best-of times.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import chunkviz  # noqa: E402
from chunkviz.document.model import Document  # noqa: E402
from chunkviz.spancount import SpanCounter, clear_shared_counters  # noqa: E402
from chunkviz.splitting import PRESETS, RecursiveSplitter  # noqa: E402
from chunkviz.tokenizers import WORKERS_ENV, encode_workers, get_tokenizer  # noqa: E402

CHUNK_SIZE = 512
OVERLAP = 50
#: The seed of ``make_document``'s default (bench_app.py uses it); this benchmark draws a new one per run.
SEED = 20240611

# --------------------------------------------------------------------------------------------
# Deterministic English-like document
# --------------------------------------------------------------------------------------------

FUNCTION_WORDS = (
    "the of and to a in is that for it as was with be by on not he this are or his from at which "
    "but have an they you were their one all we can her has there been if more when will would who "
    "so no its into than them only other new some could these then two may first any like now my "
    "such make over our even most after also made many before must through back years where much "
    "your way well down should because each just those people how too little state good very world "
    "still own see men work long here between both life being under never day same another know "
    "while last might great old year off come since against go came right used take three"
).split()

CONTENT_WORDS = (
    "system model data process result value method group level point number table section figure "
    "report analysis design structure function signal pattern network market policy region history "
    "language memory surface energy pressure current window record record sample measure factor "
    "element border river garden letter engine harbor village council budget contract channel "
    "profile version request response document chapter context archive library station quarter "
    "evidence argument question answer balance pattern feature material surface shadow thread "
    "migration boundary interval segment fragment sequence parameter estimate threshold baseline "
    "retrieval embedding tokenizer paragraph heading summary index offset overlap window chunk "
    "time house school family water room mother area money story fact month lot study book eye job "
    "word business issue side kind head service friend father power hour game line end member law "
    "car city community name president team minute idea kid body information nothing ago lead "
    "social understand whether watch together follow around parent stop face anything create public "
    "already speak others read class office level allow spend door health person art sure such war "
    "party within child few open walk case week company system program government night change "
    "problem hand part place thing student country provide include continue set learn real "
    "leave feel put mean keep let begin seem help talk turn start show hear play run move live "
    "believe hold bring happen write sit stand lose pay meet include change lead understand "
    "consider appear buy wait serve die send expect build stay fall cut reach kill remain suggest "
    "raise pass sell require report decide pull return explain hope develop carry break receive "
    "agree support hit produce eat cover catch draw choose cause point listen realize place close "
    "early late hard major better economic strong possible whole free military true federal "
    "international full special easy clear recent certain personal open red difficult available "
    "likely short single medical current wrong private past foreign fine common poor natural "
    "significant similar hot dead central happy serious ready simple left physical general "
    "environmental financial blue democratic dark various entire close legal religious cold final "
    "main green nice huge popular traditional cultural quickly simply finally recently directly "
    "usually probably certainly nearly generally clearly exactly actually really always often"
).split()

ONSETS = [
    "b",
    "br",
    "c",
    "ch",
    "cl",
    "d",
    "dr",
    "f",
    "fl",
    "g",
    "gr",
    "h",
    "j",
    "k",
    "l",
    "m",
    "n",
    "p",
    "pl",
    "pr",
    "qu",
    "r",
    "s",
    "sh",
    "sl",
    "st",
    "str",
    "t",
    "th",
    "tr",
    "v",
    "w",
    "z",
    "",
]
NUCLEI = ["a", "e", "i", "o", "u", "a", "e", "i", "o", "ai", "ea", "ee", "oo", "ou", "y"]
CODAS = ["", "", "", "", "n", "r", "s", "t", "l", "m", "nd", "nt", "st", "ck", "ng"]
SUFFIXES = ["", "", "", "", "", "", "", "s", "s", "ed", "ing", "ly", "er", "tion", "ment"]
ACCENTED = ["café", "naïve", "résumé", "façade", "déjà", "coöperate", "über", "señor", "jalapeño", "Zürich"]


def _pseudo_word(rng: random.Random) -> str:
    n = rng.choice((1, 1, 1, 2, 2, 2, 3))
    word = "".join(rng.choice(ONSETS) + rng.choice(NUCLEI) + rng.choice(CODAS) for _ in range(n))
    return word + rng.choice(SUFFIXES)


class Vocabulary:
    """Zipf-like mixture of function words, content words and generated pseudo-words."""

    def __init__(self, rng: random.Random, n_pseudo: int = 5000) -> None:
        pseudo = sorted({_pseudo_word(rng) for _ in range(n_pseudo)})
        rng.shuffle(pseudo)
        self.words = FUNCTION_WORDS + CONTENT_WORDS + pseudo
        # Zipf weights by rank: 1 / (rank + 2.7)
        self.cum_weights: list[float] = []
        total = 0.0
        for rank in range(len(self.words)):
            total += 1.0 / (rank + 2.7)
            self.cum_weights.append(total)

    def sample(self, rng: random.Random, k: int) -> list[str]:
        return rng.choices(self.words, cum_weights=self.cum_weights, k=k)


def _sentence(rng: random.Random, vocab: Vocabulary, n_words: int) -> str:
    words = vocab.sample(rng, n_words)
    out: list[str] = []
    for i, w in enumerate(words):
        r = rng.random()
        if r < 0.004:
            w = rng.choice(ACCENTED)
        elif r < 0.012:
            w = str(rng.randint(2, 2025))
        elif r < 0.02:
            w = w.capitalize()
        out.append(w)
        if i < len(words) - 1:
            r = rng.random()
            if r < 0.07:
                out[-1] += ","
            elif r < 0.075:
                out[-1] += ";"
            elif r < 0.079:
                out.append("—")  # an em dash between words
    if rng.random() < 0.04:  # a parenthetical aside
        j = rng.randrange(len(out))
        out[j] = "(" + out[j]
        k = min(len(out) - 1, j + rng.randint(1, 4))
        out[k] = out[k].rstrip(",;") + ")"
    text = " ".join(out)
    text = text[0].upper() + text[1:]
    end = rng.choices([".", "?", "!", ":", "..."], weights=[86, 6, 3, 3, 2])[0]
    text = text.rstrip(",;") + end
    if rng.random() < 0.03:
        text = "\u201c" + text + "\u201d"  # curly quotes
    return text


def _paragraph(rng: random.Random, vocab: Vocabulary, n_words: int) -> tuple[str, int]:
    sentences: list[str] = []
    used = 0
    while used < n_words:
        n = min(max(3, int(rng.gauss(17, 7))), max(3, n_words - used))
        sentences.append(_sentence(rng, vocab, n))
        used += n
    return " ".join(sentences), used


def _list_block(rng: random.Random, vocab: Vocabulary) -> tuple[str, int]:
    items: list[str] = []
    used = 0
    numbered = rng.random() < 0.4
    for i in range(rng.randint(3, 9)):
        n = rng.randint(3, 16)
        item = _sentence(rng, vocab, n)
        if rng.random() < 0.5:
            item = item.rstrip(".?!:")
        items.append((f"{i + 1}. " if numbered else "- ") + item)
        used += n
    intro, n_intro = _paragraph(rng, vocab, rng.randint(8, 20))
    return intro.rstrip(".?!") + ":\n\n" + "\n".join(items), used + n_intro


def make_document(target_words: int, seed: int = SEED) -> tuple[str, dict[str, int]]:
    """A Markdown-ish document of about ``target_words`` words; identical for the same seed."""
    rng = random.Random(seed)
    vocab = Vocabulary(rng)
    blocks: list[str] = [f"# Report {seed % 1000}"]
    stats = Counter()
    words = 0
    section = 0
    next_heading = 0
    while words < target_words:
        if words >= next_heading:
            section += 1
            blocks.append(f"## Section {section}")
            stats["headings"] += 1
            if rng.random() < 0.3:
                title, _ = _paragraph(rng, vocab, rng.randint(2, 5))
                blocks.append("### " + title.rstrip(".?!:"))
                stats["headings"] += 1
            next_heading = words + rng.randint(600, 2500)
        r = rng.random()
        if r < 0.04:  # occasional long paragraph (well over 600 tokens)
            block, n = _paragraph(rng, vocab, rng.randint(550, 1100))
            stats["long_paragraphs"] += 1
        elif r < 0.13:
            block, n = _list_block(rng, vocab)
            stats["lists"] += 1
        else:
            n_target = min(200, max(20, int(rng.lognormvariate(4.2, 0.55))))
            block, n = _paragraph(rng, vocab, n_target)
            stats["paragraphs"] += 1
        blocks.append(block)
        words += n
    text = "\n\n".join(blocks) + "\n"
    stats["words"] = len(text.split())
    stats["chars"] = len(text)
    stats["bytes"] = len(text.encode("utf-8"))
    return text, dict(stats)


# --------------------------------------------------------------------------------------------
# Measurement
# --------------------------------------------------------------------------------------------


def _clear_ours() -> None:
    """Start a run of ours cold: no memoized counts, no kept tokenization or Document."""
    get_tokenizer("cl100k_base").count.cache_clear()  # type: ignore[attr-defined]
    clear_shared_counters()
    from chunkviz.document.model import SHARED_DOCUMENTS

    SHARED_DOCUMENTS.clear()


def _variant(text: str, label: str) -> str:
    """A copy of ``text`` that no cache has seen (a unique last line)."""
    return f"{text}\nRun {label} {random.random():.12f}.\n"


def _timed(fn: Callable[[str], Any], text: str) -> tuple[float, Any]:
    _clear_ours()
    gc.collect()
    t0 = time.perf_counter()
    out = fn(text)
    return time.perf_counter() - t0, out


def ours_engine(overlap: int) -> Callable[[str], Any]:
    tok = get_tokenizer("cl100k_base")

    def run(text: str) -> Any:
        splitter = RecursiveSplitter(
            text, tok, CHUNK_SIZE, overlap, list(PRESETS["default"]), counter=SpanCounter(text, tok)
        )
        return splitter.split_span(0, len(text))

    return run


def peers(enc) -> tuple[dict[str, Callable[[str], Any]], list[str]]:  # noqa: ANN001
    """Peer chunkers as text -> chunks, by row name; plus notes on peers that are missing."""
    out: dict[str, Callable[[str], Any]] = {}
    notes: list[str] = []
    try:
        from chonkie import OverlapRefinery, RecursiveChunker
        from chonkie.types.recursive import RecursiveLevel, RecursiveRules

        rules = RecursiveRules(
            levels=[
                RecursiveLevel(delimiters=["\n\n"]),
                RecursiveLevel(delimiters=["\n"]),
                RecursiveLevel(whitespace=True),
                RecursiveLevel(),
            ]
        )

        def chonkie_plain(text: str) -> Any:
            return RecursiveChunker(tokenizer=enc, chunk_size=CHUNK_SIZE, rules=rules).chunk(text)

        def chonkie_overlap(text: str) -> Any:
            chunks = RecursiveChunker(tokenizer=enc, chunk_size=CHUNK_SIZE, rules=rules).chunk(text)
            return OverlapRefinery(tokenizer=enc, context_size=OVERLAP, method="prefix").refine(chunks)

        out["chonkie 0"] = chonkie_plain
        out[f"chonkie {OVERLAP}"] = chonkie_overlap
    except ImportError as exc:
        notes.append(f"SKIP Chonkie: pip install -e '.[bench]' ({exc})")
    try:
        from langchain_text_splitters import RecursiveCharacterTextSplitter

        def lc_len(s: str) -> int:
            return len(enc.encode(s))

        def langchain(overlap: int) -> Callable[[str], Any]:
            return lambda text: RecursiveCharacterTextSplitter(
                chunk_size=CHUNK_SIZE, chunk_overlap=overlap, length_function=lc_len
            ).split_text(text)

        out["langchain 0"] = langchain(0)
        out[f"langchain {OVERLAP}"] = langchain(OVERLAP)
    except ImportError as exc:
        notes.append(f"SKIP LangChain: pip install -e '.[bench]' ({exc})")
    return out, notes


def _boundary_time(text: str, ends: list[int]) -> float:
    """Seconds to read ``structure.boundary_at`` for ``ends`` on a fresh Document of ``text``
    (what ``to_chunks`` does for every chunk; includes the lazy parsing it triggers)."""
    _clear_ours()
    gc.collect()
    t0 = time.perf_counter()
    boundary_at = Document(text).structure.boundary_at
    for end in ends:
        boundary_at(end)
    return time.perf_counter() - t0


def run_repeat(text: str, enc, others: dict[str, Callable[[str], Any]]) -> tuple[dict[str, float], dict[str, float]]:  # noqa: ANN001
    """One round: every row timed once on its own variant of ``text``, each right after a bare
    encode of that variant (the paired reference, so load changes hit both alike). Returns the
    times and each row's time over its paired encode time."""
    rows: dict[str, tuple[Callable[[str], Any], Callable[[str, Any], float] | None]] = {}
    for overlap in (0, OVERLAP):
        rows[f"recursive {overlap}"] = (
            lambda t, o=overlap: chunkviz.chunk(t, "recursive", chunk_size=CHUNK_SIZE, overlap=o),
            None,
        )
        rows[f"engine {overlap}"] = (ours_engine(overlap), lambda t, pieces: _boundary_time(t, [p.end for p in pieces]))
    rows["fixed_tokens"] = (
        lambda t: chunkviz.chunk(t, "fixed_tokens", chunk_size=CHUNK_SIZE, overlap=OVERLAP),
        lambda t, chunks: _boundary_time(t, [c.end for c in chunks]),
    )
    for name, fn in others.items():
        rows[name] = (fn, None)
    times: dict[str, float] = {}
    paired: dict[str, float] = {}
    for name, (fn, then) in rows.items():
        variant = _variant(text, name)
        gc.collect()
        t0 = time.perf_counter()
        enc.encode_ordinary(variant)
        encode_time = time.perf_counter() - t0
        times[name], out = _timed(fn, variant)
        paired[name] = times[name] / encode_time
        times["encode"] = min(times.get("encode", encode_time), encode_time)
        if then is not None:  # the structure's boundaries of these cuts, on a fresh Document
            row = "boundaries fixed" if name == "fixed_tokens" else name.replace("engine", "boundaries")
            times[row] = then(variant, out)
            paired[row] = times[row] / encode_time
        del out
    return times, paired


def warm_up(enc) -> float:  # noqa: ANN001
    """Load everything a first call loads (tokenizer tables, spaCy, markdown-it); its time."""
    t0 = time.perf_counter()
    sample = "# Title\n\n" + ("Some words here, and more words. Another sentence follows here. " * 300 + "\n\n") * 4
    for strategy, overlap in (("recursive", 0), ("recursive", OVERLAP), ("fixed_tokens", OVERLAP)):
        chunkviz.chunk(sample, strategy, chunk_size=64, overlap=overlap)
    enc.encode_ordinary(sample)
    return time.perf_counter() - t0


ROWS = [
    ("encode", "bare encode_ordinary (reference)"),
    ("recursive 0", "ours recursive, overlap 0"),
    ("engine 0", "  engine only (no Document/Chunks)"),
    ("boundaries 0", "  structure.boundary_at of its cuts"),
    ("recursive 50", "ours recursive, overlap 50"),
    ("engine 50", "  engine only (no Document/Chunks)"),
    ("boundaries 50", "  structure.boundary_at of its cuts"),
    ("fixed_tokens", "ours fixed_tokens, overlap 50"),
    ("boundaries fixed", "  structure.boundary_at of its cuts"),
    ("chonkie 0", "Chonkie RecursiveChunker"),
    ("chonkie 50", "Chonkie RecursiveChunker + OverlapRefinery(50)"),
    ("langchain 0", "LangChain RecursiveCharacterTextSplitter, overlap 0"),
    ("langchain 50", "LangChain RecursiveCharacterTextSplitter, overlap 50"),
]


def report(best: dict[str, float], to_encode: dict[str, float], cores: str) -> dict[str, float]:
    """Print the table and the ratios; return the ratios. ``to_encode``: each row's median
    ratio to the encode timed just before it (robust on a busy machine); ``best``: best times."""
    enc_t = best["encode"]
    print(f"\n  {'row':<52} {'best':>9} {'/ encode':>9}  (median of time / paired encode)")
    print(f"  {'bare encode_ordinary (reference)':<52} {enc_t * 1000:7.0f}ms {1:8.2f}x")
    for row, label in ROWS[1:]:
        if row in best:
            print(f"  {label:<52} {best[row] * 1000:7.0f}ms {to_encode[row]:8.2f}x")
    ratios: dict[str, float] = {}
    print(f"\n  ratios on {cores} (to encode: median of paired ratios; to peers: best time / best time):")
    for overlap in (0, OVERLAP):
        ours = best[f"recursive {overlap}"]
        ratio = to_encode[f"recursive {overlap}"]
        ratios[f"recursive_{overlap}_vs_encode"] = ratio
        line = f"    recursive overlap {overlap:>2}: {ratio:5.2f}x encode (target <= 1.3x, {'PASS' if ratio <= 1.3 else 'MISS'})"
        line += f"; engine only {to_encode[f'engine {overlap}']:5.2f}x encode"
        for peer in ("chonkie", "langchain"):
            if f"{peer} {overlap}" in best:
                ratios[f"recursive_{overlap}_vs_{peer}"] = ours / best[f"{peer} {overlap}"]
                line += f"; {ours / best[f'{peer} {overlap}']:5.2f}x {peer.capitalize()}"
        print(line)
    fixed = to_encode["fixed_tokens"]
    ratios["fixed_tokens_vs_encode"] = fixed
    print(
        f"    fixed_tokens overlap {OVERLAP}: {fixed:5.2f}x encode (target <= 1.1x, {'PASS' if fixed <= 1.1 else 'MISS'})"
        f"; without its boundaries ~{fixed - to_encode['boundaries fixed']:5.2f}x encode"
    )
    return ratios


# --------------------------------------------------------------------------------------------
# --one-core: the speed targets, in interleaved rounds
# --------------------------------------------------------------------------------------------

#: (row, target kind, limit): "encode" rows pass at a median ratio to their paired encode <= limit;
#: "speed" rows at a median speed over the peer's (the peer's time / ours, same round) >= limit.
TARGETS: list[tuple[str, str, float]] = [
    ("recursive 0", "encode", 1.3),
    (f"recursive {OVERLAP}", "encode", 1.3),
    ("fixed_tokens", "encode", 1.1),
    ("recursive 0", "speed chonkie 0", 1.2),
]
ONE_CORE_LABELS = {
    "encode": "bare enc.encode_ordinary (reference)",
    "recursive 0": "chunkviz.chunk recursive, overlap 0",
    f"recursive {OVERLAP}": f"chunkviz.chunk recursive, overlap {OVERLAP}",
    "fixed_tokens": f"chunkviz.chunk fixed_tokens, overlap {OVERLAP}",
    "  engine 0": "  engine only: SpanCounter + RecursiveSplitter",
    f"  engine {OVERLAP}": "  engine only: SpanCounter + RecursiveSplitter",
    "  boundaries 0": "  structure.boundaries_at of its cuts, fresh Document",
    f"  boundaries {OVERLAP}": "  structure.boundaries_at of its cuts, fresh Document",
    "  fixed windows": "  tokens, windows, counts (no Document/Chunks)",
    "  boundaries fixed": "  structure.boundaries_at of its cuts, fresh Document",
    "chonkie 0": "Chonkie RecursiveChunker",
    f"chonkie {OVERLAP}": f"Chonkie RecursiveChunker + OverlapRefinery({OVERLAP})",
    "langchain 0": "LangChain RecursiveCharacterTextSplitter, overlap 0",
    f"langchain {OVERLAP}": f"LangChain RecursiveCharacterTextSplitter, overlap {OVERLAP}",
}


def pin_to_one_core(argv: list[str]) -> None:
    """Re-execute this script under ``taskset -c 0`` unless it already runs on core 0 alone
    (without taskset: pin this process with ``sched_setaffinity``, which taskset does too)."""
    if os.sched_getaffinity(0) == {0}:
        return
    if shutil.which("taskset"):
        os.execvp("taskset", ["taskset", "-c", "0", sys.executable, os.path.abspath(__file__), *argv])
    os.sched_setaffinity(0, {0})


def fixed_windows_only(text: str) -> Any:
    """fixed_tokens without Document and Chunks: tokenization, windows and each window's count."""
    from chunkviz.splitting.windows import document_tokens, overlapping_windows, windows_metadata

    tok = get_tokenizer("cl100k_base")
    counter = SpanCounter(text, tok)
    tokens = document_tokens(text, counter)
    return windows_metadata(overlapping_windows(tokens, CHUNK_SIZE, OVERLAP), counter, CHUNK_SIZE, token_range=True)


def boundaries_only(ends: list[int]) -> Callable[[str], Any]:
    """The structure's boundaries at ``ends`` on a fresh Document (what to_chunks asks for, with
    the lazy parsing it triggers)."""
    return lambda text: Document(text).structure.boundaries_at(ends)


def one_core_rows(
    text: str,
    enc,  # noqa: ANN001
    with_langchain: bool,
) -> tuple[dict[str, Callable[[str], Any]], list[str]]:
    """The rows of a round, as text -> result, and notes on peers that are missing. Rows named
    ``  ...`` are parts of the row above them (for where the time goes; no target)."""
    tok = get_tokenizer("cl100k_base")
    rows: dict[str, Callable[[str], Any]] = {}
    for overlap in (0, OVERLAP):
        rows[f"recursive {overlap}"] = lambda t, o=overlap: chunkviz.chunk(
            t, "recursive", chunk_size=CHUNK_SIZE, overlap=o
        )
        rows[f"  engine {overlap}"] = ours_engine(overlap)
        # the cuts of this document (a variant only adds a last line of the same length)
        ends = [p.end for p in ours_engine(overlap)(text)]
        rows[f"  boundaries {overlap}"] = boundaries_only(ends)
    rows["fixed_tokens"] = lambda t: chunkviz.chunk(t, "fixed_tokens", chunk_size=CHUNK_SIZE, overlap=OVERLAP)
    rows["  fixed windows"] = fixed_windows_only
    rows["  boundaries fixed"] = boundaries_only(
        [c.end for c in chunkviz.chunk(text, "fixed_tokens", tokenizer=tok, chunk_size=CHUNK_SIZE, overlap=OVERLAP)]
    )
    others, notes = peers(enc)
    for name, fn in others.items():
        if with_langchain or not name.startswith("langchain"):
            rows[name] = fn
    return rows, notes


#: ``--clock``: what a time is. ``cpu`` (this process's CPU time, every thread) does not count the
#: time other processes on the same core take from it; ``wall`` does.
CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}


def one_core_round(
    text: str,
    enc,  # noqa: ANN001
    rows: dict[str, Callable[[str], Any]],
    clock: Callable[[], float],
) -> dict[str, tuple[float, float]]:
    """One round: per row, (its time, its paired encode time: the mean of a bare encode of its
    variant just before it and one just after, so a change of load during the row hits both)."""

    def encode(variant: str) -> float:
        gc.collect()
        t0 = clock()
        enc.encode_ordinary(variant)
        return clock() - t0

    out: dict[str, tuple[float, float]] = {}
    for name, fn in rows.items():
        variant = _variant(text, name)
        before = encode(variant)
        _clear_ours()
        gc.collect()
        t0 = clock()
        result = fn(variant)
        seconds = clock() - t0
        del result
        out[name] = (seconds, (before + encode(variant)) / 2)
    return out


def _spread(values: list[float], scale: float = 1.0, fmt: str = "{:.0f}") -> str:
    return f"{fmt.format(statistics.median(values) * scale)} ({fmt.format(min(values) * scale)}-{fmt.format(max(values) * scale)})"


def one_core_report(rounds: list[dict[str, tuple[float, float]]]) -> dict[str, Any]:
    """Print medians, spreads, per-round ratios and PASS/MISS per target; return the numbers."""
    names = list(rounds[0])
    times = {name: [r[name][0] for r in rounds] for name in names}
    times["encode"] = [e for r in rounds for _, e in r.values()]
    to_encode = {name: [r[name][0] / r[name][1] for r in rounds] for name in names}
    print(f"\n  {'row':<54} {'median (min-max) ms':>22}  {'/ paired encode, median (min-max)':>34}")
    for name in ["encode", *names]:
        ratio = _spread(to_encode[name], fmt="{:.2f}") if name in to_encode else "1"
        print(f"  {ONE_CORE_LABELS.get(name, name):<54} {_spread(times[name], 1000):>22}  {ratio:>34}")
    print("\n  per round (time / paired encode; speed = peer's time / ours):")
    for k, r in enumerate(rounds):
        parts = [f"{name} {r[name][0] / r[name][1]:.2f}x" for name in names if not name.startswith(" ")]
        for overlap in (0, OVERLAP):
            if f"chonkie {overlap}" in r:
                speed = r[f"chonkie {overlap}"][0] / r[f"recursive {overlap}"][0]
                parts.append(f"speed {overlap} vs chonkie {overlap} {speed:.2f}x")
        print(f"    round {k + 1}: " + ", ".join(parts))
    best_encode = min(times["encode"])
    print(
        "\n  best of the rounds / best encode (load only adds time): "
        + ", ".join(f"{name.strip()} {min(times[name]) / best_encode:.2f}x" for name in names)
    )
    print("\n  targets (median over rounds):")
    verdicts: dict[str, Any] = {}
    for row, kind, limit in TARGETS:
        if kind == "encode":
            values = to_encode[row]
            ok = statistics.median(values) <= limit
            what = f"{row} / encode <= {limit}x"
        else:
            peer = kind.removeprefix("speed ")
            if peer not in times:
                print(f"    SKIP {row} vs {peer}: not installed")
                continue
            values = [r[peer][0] / r[row][0] for r in rounds]
            ok = statistics.median(values) >= limit
            what = f"{row} speed / {peer} >= {limit}x"
        verdicts[what] = {"median": statistics.median(values), "min": min(values), "max": max(values), "pass": ok}
        print(f"    {'PASS' if ok else 'MISS'}  {what:<40} median {_spread(values, fmt='{:.2f}')}")
    return {"times": times, "ratio_to_encode": to_encode, "targets": verdicts}


def one_core(args: argparse.Namespace) -> dict[str, Any]:
    """The ``--one-core`` measurement (module docstring)."""
    tok = get_tokenizer("cl100k_base")
    enc = tok.encoding
    first_call = warm_up(enc)
    text, stats = make_document(args.words, args.seed)
    rows, notes = one_core_rows(text, enc, args.langchain)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"chunkviz engine, one core (affinity {sorted(os.sched_getaffinity(0))}): cl100k_base, chunk_size {CHUNK_SIZE}, "
        f"seed {args.seed}: {stats['words']:,} words, {stats['chars']:,} chars; {args.rounds} rounds, {args.clock} time; "
        f"loadavg {load}; first call in this process {first_call:.2f}s",
        flush=True,
    )
    for note in notes:
        print("  " + note)
    rounds = []
    for k in range(args.rounds):
        rounds.append(one_core_round(text, enc, rows, CLOCKS[args.clock]))
        print(
            f"  round {k + 1}: "
            + ", ".join(f"{name} {s * 1000:.0f} (encode {e * 1000:.0f})" for name, (s, e) in rounds[-1].items())
            + " ms",
            flush=True,
        )
    result = one_core_report(rounds)
    print(f"  loadavg at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return {"document": stats, "seed": args.seed, "clock": args.clock, "loadavg_before": load, **result}


def measure(words: int, repeats: int) -> dict[str, Any]:
    cores = sorted(os.sched_getaffinity(0))
    label = f"{len(cores)} core{'s' if len(cores) > 1 else ''} ({','.join(map(str, cores))})"
    tok = get_tokenizer("cl100k_base")
    enc = tok.encoding
    first_call = warm_up(enc)
    others, notes = peers(enc)
    print(
        f"\n=== {label}: chunkviz encodes a 500k-word text on {encode_workers(3_000_000)} thread(s) "
        f"({WORKERS_ENV}={os.environ.get(WORKERS_ENV, 'unset: automatic')}); "
        f"loadavg {' '.join(f'{x:.2f}' for x in os.getloadavg())}; first call in this process {first_call:.2f}s"
    )
    for note in notes:
        print("  " + note)
    best: dict[str, float] = {}
    ratios: dict[str, list[float]] = {}
    for k in range(repeats):
        seed = random.SystemRandom().randrange(1 << 30)
        text, stats = make_document(words, seed)
        times, paired = run_repeat(text, enc, others)
        for row, seconds in times.items():
            best[row] = min(best.get(row, seconds), seconds)
        for row, ratio in paired.items():
            ratios.setdefault(row, []).append(ratio)
        print(
            f"  repeat {k + 1}: seed {seed}, {stats['words']:,} words, {stats['chars']:,} chars; "
            + ", ".join(f"{row} {s * 1000:.0f}" for row, s in times.items())
            + " (ms)",
            flush=True,
        )
    median = {row: statistics.median(values) for row, values in ratios.items()}
    return {
        "cores": cores,
        "best_seconds": best,
        "median_ratio_to_encode": median,
        "ratios": report(best, median, label),
        "first_call_seconds": first_call,
        "notes": notes,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--words", type=int, default=500_000, help="words per generated document (default 500,000)")
    ap.add_argument("--repeats", type=int, default=3, help="best of N fresh documents (default 3)")
    ap.add_argument("--cores", help="run only on these cores (e.g. 0,1); default: this process's cores, then two")
    ap.add_argument("--json", metavar="PATH", help="also write the numbers as JSON")
    ap.add_argument("--one-core", action="store_true", help="check the speed targets on core 0 (module docstring)")
    ap.add_argument("--rounds", type=int, default=5, help="--one-core: interleaved rounds (default 5)")
    ap.add_argument("--seed", type=int, default=SEED, help=f"--one-core: the document's seed (default {SEED})")
    ap.add_argument("--langchain", action="store_true", help="--one-core: time LangChain too (slow)")
    ap.add_argument(
        "--clock",
        choices=sorted(CLOCKS),
        default="cpu",
        help="--one-core: CPU time of this process (default) or wall time",
    )
    args = ap.parse_args(argv)
    if args.one_core:
        pin_to_one_core(sys.argv[1:] if argv is None else argv)
        result = one_core(args)
        if args.json:
            Path(args.json).write_text(json.dumps(result, indent=2))
        return 0
    versions = {"python": platform.python_version()}
    from importlib.metadata import PackageNotFoundError, version

    for dist in ("tiktoken", "chonkie", "langchain-text-splitters"):
        try:
            versions[dist] = version(dist)
        except PackageNotFoundError:
            pass
    results = []
    if args.cores:
        os.sched_setaffinity(0, {int(c) for c in args.cores.split(",")})
        results.append(measure(args.words, args.repeats))
    else:
        print(
            f"chunkviz engine benchmark: cl100k_base, chunk_size {CHUNK_SIZE}, ~{args.words:,} words, "
            f"best of {args.repeats}; {', '.join(f'{k} {v}' for k, v in versions.items())}; cpu_count {os.cpu_count()}"
        )
        results.append(measure(args.words, args.repeats))
        if len(os.sched_getaffinity(0)) == 1 and (os.cpu_count() or 1) >= 2:
            child = [
                sys.executable,
                __file__,
                "--cores",
                "0,1",
                "--words",
                str(args.words),
                "--repeats",
                str(args.repeats),
            ]
            if args.json:
                child += ["--json", args.json + ".2cores"]
            # two cores: encode on two threads, as the automatic choice does on an idle machine
            subprocess.run(child, check=True, env={**os.environ, WORKERS_ENV: "2"})
    if args.json:
        Path(args.json).write_text(
            json.dumps({"versions": versions, "chunk_size": CHUNK_SIZE, "results": results}, indent=2)
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
