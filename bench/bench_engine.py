#!/usr/bin/env python
"""The engine's speed on real text: chunkviz's strategies, its peers and the tokenizer's floor.

    .venv/bin/python bench/bench_engine.py [--quick] [--rounds N] [--corpora once,twice,copies,generated]
                                           [--rows recursive,chonkie,...] [--json PATH]

Everything runs on one core (the script pins itself to the lowest core it may use with
``sched_setaffinity``: core 0, or the one ``taskset -c N`` gave it). Times are this process's CPU time (what the other processes of a shared
machine take is not counted) and wall time; both are printed, CPU time is the one the ratios use.

Corpora (each a list of texts; a row's time on a corpus is the sum over its texts, one call each):

  once       the real documents of ``../shared/realdocs/`` and Chroma's five corpora
             (``../shared/eval/chroma/corpora/``), each document once: 1.7 MB of distinct text
  twice      each of those documents followed by itself (crawls hold duplicates): 3.4 MB
  copies     the real documents of ``realdocs/`` concatenated and repeated to ~3.5 MB (13 copies):
             one text in which every piece repeats
  generated  ``make_document`` (pseudo-words, random sentences; the old benchmark's document)

Every call gets a text no cache has seen (a unique last line), chunkviz's caches are cleared
before each of its calls (memoized counts, shared span counters and documents), and every peer
chunker is built afresh inside the timed call (its own memo starts empty). The rounds are
interleaved: each round times every row on every corpus once, so a change of load hits all rows.

Rows, in tokens (cl100k_base, 512 tokens):

  floor               tiktoken's bare ``encode_ordinary`` of each text (the reference)
  recursive 0 / 50    chunkviz.chunk(text, "recursive", chunk_size=512, overlap=0 | 50)
  recursive 0 +boundary  the same with every chunk's ``boundary`` read (the structure's analysis of
                      the cuts runs on the first read, for all of them; chunk() alone defers it)
  fixed_tokens        chunkviz.chunk(text, "fixed_tokens", chunk_size=512, overlap=50)
  sentences           chunkviz.chunk(text, "sentences", max_tokens=512)
  paragraphs          chunkviz.chunk(text, "paragraphs", max_tokens=512)
  headings            chunkviz.chunk(text, "headings", max_tokens=512)
  chonkie recursive   Chonkie's RecursiveChunker(tiktoken cl100k, 512), chunkviz's separators
                      ("\\n\\n", "\\n", whitespace, characters)
  chonkie token       Chonkie's TokenChunker(tiktoken cl100k, 512, overlap 50)
  semchunk            semchunk.chunkerify(cl100k, 512)(text, offsets=True)
  langchain           LangChain's RecursiveCharacterTextSplitter(512, length = cl100k tokens)
  text-splitter       semantic-text-splitter's TextSplitter.from_tiktoken_model(gpt-3.5-turbo, 512)

in characters (2,000):

  recursive chars     chunkviz.chunk(text, "recursive", tokenizer="chars", chunk_size=2000, overlap=0)
  fixed_chars         chunkviz.chunk(text, "fixed_chars", chunk_size=2000, overlap=0)
  chonkie recursive c RecursiveChunker("character", 2000), the same separators
  chonkie token c     TokenChunker("character", 2000)
  semchunk c          semchunk.chunkerify(len, 2000)
  langchain c         RecursiveCharacterTextSplitter(2000, length = len)
  text-splitter c     TextSplitter(2000, trim=False)
  memchunk c          memchunk.chunk_offsets(utf-8 bytes, size=2000): byte offsets, not exact
  chonkie-core c      chonkie_core.chunk_offsets(utf-8 bytes, size=2000): byte offsets, not exact

For every row and corpus it prints MB/s (UTF-8 bytes per CPU second, and per wall second), the
row's time over the floor's (median and min-max over the rounds, each round's ratio taken with
the floor of the same round and corpus) and, for chunkviz's rows, its speed over each peer's of
the same unit (the peer's time / ours, per round). Then PASS/MISS for issue 39's targets.
A peer that is not installed is skipped with a note (``pip install -e '.[bench]'``).
``--quick``: two rounds, ``copies`` cut to ~1 MB and a 50,000-word generated document.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import random
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import chunkviz  # noqa: E402
from chunkviz.text.tokenizers import get_tokenizer  # noqa: E402

CHUNK_SIZE = 512
OVERLAP = 50
CHARS = 2000
#: The seed of ``make_document``'s default (bench_app.py and the digest tests use it).
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
# Corpora
# --------------------------------------------------------------------------------------------


def shared_dir() -> Path:
    """The shared data folder: ``$CHUNKVIZ_SHARED`` if set, else the first ``shared`` folder
    beside the repository or beside its parent (a worktree's)."""
    env = os.environ.get("CHUNKVIZ_SHARED")
    if env:
        return Path(env).expanduser()
    candidates = [REPO_ROOT.parent / "shared", REPO_ROOT.parent.parent / "shared"]
    return next((c for c in candidates if c.is_dir()), candidates[0])


#: Notes in the realdocs folder, not documents.
NOT_DOCUMENTS = {"SOURCES.md", "README.md"}


def _read(path: Path) -> str:
    with open(path, encoding="utf-8", newline="") as handle:  # CRLF kept as it is
        return handle.read()


def real_documents(shared: Path) -> list[tuple[str, str]]:
    """(name, text) of the real documents and Chroma's five corpora (empty when absent)."""
    folders = [shared / "realdocs", shared / "eval" / "chroma" / "corpora"]
    docs = []
    for folder in folders:
        if folder.is_dir():
            for path in sorted(folder.iterdir()):
                if path.is_file() and not path.name.startswith(".") and path.name not in NOT_DOCUMENTS:
                    docs.append((path.name, _read(path)))
    return docs


def corpora(names: list[str], quick: bool, words: int) -> dict[str, list[str]]:
    """The corpora by name (module docstring): each a list of texts, one call each."""
    shared = shared_dir()
    docs = real_documents(shared)
    realdocs = [text for name, text in docs if (shared / "realdocs" / name).is_file()]
    out: dict[str, list[str]] = {}
    if docs:
        if "once" in names:
            out["once"] = [text for _, text in docs]
        if "twice" in names:
            out["twice"] = [text + "\n\n" + text for _, text in docs]
        if "copies" in names:
            one = "\n\n".join(realdocs)
            target = 1_000_000 if quick else 3_500_000
            copies = max(1, round(target / len(one.encode())))
            out["copies"] = ["\n\n".join([one] * copies)]
    else:
        print(f"  SKIP the real corpora: {shared / 'realdocs'} not found (set CHUNKVIZ_SHARED)")
    if "generated" in names:
        out["generated"] = [make_document(50_000 if quick else words)[0]]
    return out


# --------------------------------------------------------------------------------------------
# Rows
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    name: str
    unit: str  # "tokens", "chars" or "floor"
    ours: bool
    run: Callable[[str], Any]


def clear_ours() -> None:
    """chunkviz starts cold: no memoized counts, shared span counters, documents or search caches."""
    from chunkviz.document.model import SHARED_DOCUMENTS
    from chunkviz.splitting import recursive
    from chunkviz.text.spancount import clear_shared_counters
    from chunkviz.text.tokenizers import _cached_tokenizer

    for name in ("cl100k_base", "chars"):
        tokenizer = _cached_tokenizer(name)
        tokenizer.count.cache_clear()  # type: ignore[attr-defined]
        clear_pieces = getattr(tokenizer, "clear_caches", None)
        if clear_pieces is not None:
            clear_pieces()
    clear_shared_counters()
    SHARED_DOCUMENTS.clear()
    recursive._present.cache_clear()


def our_rows() -> list[Row]:
    def chunk(strategy: str, **params: Any) -> Callable[[str], Any]:
        return lambda text: chunkviz.chunk(text, strategy, **params)

    return [
        Row("recursive 0", "tokens", True, chunk("recursive", chunk_size=CHUNK_SIZE, overlap=0)),
        Row(
            "recursive 0 +boundary",
            "tokens",
            True,
            lambda text: [c.boundary for c in chunkviz.chunk(text, "recursive", chunk_size=CHUNK_SIZE, overlap=0)],
        ),
        Row(f"recursive {OVERLAP}", "tokens", True, chunk("recursive", chunk_size=CHUNK_SIZE, overlap=OVERLAP)),
        Row("fixed_tokens", "tokens", True, chunk("fixed_tokens", chunk_size=CHUNK_SIZE, overlap=OVERLAP)),
        Row("sentences", "tokens", True, chunk("sentences", max_tokens=CHUNK_SIZE)),
        Row("paragraphs", "tokens", True, chunk("paragraphs", max_tokens=CHUNK_SIZE)),
        Row("headings", "tokens", True, chunk("headings", max_tokens=CHUNK_SIZE)),
        Row("recursive chars", "chars", True, chunk("recursive", tokenizer="chars", chunk_size=CHARS, overlap=0)),
        Row("fixed_chars", "chars", True, chunk("fixed_chars", chunk_size=CHARS, overlap=0)),
    ]


def peer_rows(enc: Any) -> tuple[list[Row], list[str]]:  # noqa: C901 - one block per peer
    """The peers that are installed, as rows; and a note per missing one."""
    rows: list[Row] = []
    notes: list[str] = []
    try:
        from chonkie import RecursiveChunker, TokenChunker
        from chonkie.types.recursive import RecursiveLevel, RecursiveRules

        def rules() -> RecursiveRules:
            return RecursiveRules(
                levels=[
                    RecursiveLevel(delimiters=["\n\n"]),
                    RecursiveLevel(delimiters=["\n"]),
                    RecursiveLevel(whitespace=True),
                    RecursiveLevel(),
                ]
            )

        rows += [
            Row(
                "chonkie recursive",
                "tokens",
                False,
                lambda t: RecursiveChunker(tokenizer=enc, chunk_size=CHUNK_SIZE, rules=rules()).chunk(t),
            ),
            Row(
                "chonkie token",
                "tokens",
                False,
                lambda t: TokenChunker(tokenizer=enc, chunk_size=CHUNK_SIZE, chunk_overlap=OVERLAP).chunk(t),
            ),
            Row(
                "chonkie recursive c",
                "chars",
                False,
                lambda t: RecursiveChunker(tokenizer="character", chunk_size=CHARS, rules=rules()).chunk(t),
            ),
            Row(
                "chonkie token c",
                "chars",
                False,
                lambda t: TokenChunker(tokenizer="character", chunk_size=CHARS).chunk(t),
            ),
        ]
    except ImportError as exc:
        notes.append(f"SKIP Chonkie: pip install -e '.[bench]' ({exc})")
    try:
        import semchunk

        rows += [
            Row("semchunk", "tokens", False, lambda t: semchunk.chunkerify(enc, CHUNK_SIZE)(t, offsets=True)),
            Row("semchunk c", "chars", False, lambda t: semchunk.chunkerify(len, CHARS)(t, offsets=True)),
        ]
    except ImportError as exc:
        notes.append(f"SKIP semchunk: pip install -e '.[bench]' ({exc})")
    try:
        from langchain_text_splitters import RecursiveCharacterTextSplitter

        def tokens_of(s: str) -> int:
            return len(enc.encode_ordinary(s))

        rows += [
            Row(
                "langchain",
                "tokens",
                False,
                lambda t: RecursiveCharacterTextSplitter(
                    chunk_size=CHUNK_SIZE, chunk_overlap=0, length_function=tokens_of, add_start_index=True
                ).create_documents([t]),
            ),
            Row(
                "langchain c",
                "chars",
                False,
                lambda t: RecursiveCharacterTextSplitter(
                    chunk_size=CHARS, chunk_overlap=0, add_start_index=True
                ).create_documents([t]),
            ),
        ]
    except ImportError as exc:
        notes.append(f"SKIP LangChain: pip install -e '.[bench]' ({exc})")
    try:
        from semantic_text_splitter import TextSplitter

        rows += [
            Row(
                "text-splitter",
                "tokens",
                False,
                lambda t: TextSplitter.from_tiktoken_model("gpt-3.5-turbo", CHUNK_SIZE, trim=False).chunk_indices(t),
            ),
            Row("text-splitter c", "chars", False, lambda t: TextSplitter(CHARS, trim=False).chunk_indices(t)),
        ]
    except ImportError as exc:
        notes.append(f"SKIP semantic-text-splitter: pip install -e '.[bench]' ({exc})")
    try:
        import memchunk

        rows.append(Row("memchunk c", "chars", False, lambda t: memchunk.chunk_offsets(t.encode(), size=CHARS)))
    except ImportError as exc:
        notes.append(f"SKIP memchunk: pip install -e '.[bench]' ({exc})")
    try:
        import chonkie_core

        rows.append(Row("chonkie-core c", "chars", False, lambda t: chonkie_core.chunk_offsets(t.encode(), size=CHARS)))
    except ImportError as exc:
        notes.append(f"SKIP chonkie-core: pip install -e '.[bench]' ({exc})")
    return rows, notes


# --------------------------------------------------------------------------------------------
# Measurement
# --------------------------------------------------------------------------------------------


def pin_to_one_core() -> None:
    """Run on one core alone: the lowest of the cores this process may use (so ``taskset -c 1``
    keeps core 1; without it, core 0), when the machine lets us."""
    try:
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    except (AttributeError, OSError) as exc:  # pragma: no cover - not on every platform
        print(f"  (could not pin to one core: {exc}; times include other cores' work)")


def warm_up(rows: list[Row]) -> float:
    """Load what a first call loads (tokenizer tables, spaCy, markdown-it, the peers' modules)."""
    t0 = time.perf_counter()
    sample = "# Title\n\n" + ("Some words here, and more words. Another sentence follows here. " * 200 + "\n\n") * 4
    for row in rows:
        row.run(sample)
    len(chunkviz.Document(sample).structure.sentence_starts)  # loads the language detector and spaCy, whatever the rows
    return time.perf_counter() - t0


def time_row(row: Row, texts: list[str], label: str) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of ``row`` over ``texts``, one call each, each on a variant
    of its text that no cache has seen, with chunkviz's caches cleared before each call."""
    cpu = wall = 0.0
    for k, text in enumerate(texts):
        variant = f"{text}\nRun {label} {k} {random.random():.12f}.\n"
        clear_ours()
        gc.collect()
        c0, w0 = time.process_time(), time.perf_counter()
        result = row.run(variant)
        cpu += time.process_time() - c0
        wall += time.perf_counter() - w0
        del result
    return cpu, wall


def measure(
    rows: list[Row], data: dict[str, list[str]], rounds: int
) -> dict[str, dict[str, list[tuple[float, float]]]]:
    """times[corpus][row] = [(cpu, wall) per round]; the floor is timed before and after the
    other rows of each corpus and round (its time there is the mean of the two)."""
    times: dict[str, dict[str, list[tuple[float, float]]]] = {c: {} for c in data}
    for r in range(rounds):
        for corpus, texts in data.items():
            before = time_row(rows[0], texts, f"floor {r}")
            for row in rows[1:]:
                times[corpus].setdefault(row.name, []).append(time_row(row, texts, f"{row.name} {r}"))
            after = time_row(rows[0], texts, f"floor' {r}")
            times[corpus].setdefault("floor", []).append(((before[0] + after[0]) / 2, (before[1] + after[1]) / 2))
            print(
                f"  round {r + 1} {corpus}: "
                + ", ".join(f"{name} {ts[-1][0]:.2f}" for name, ts in times[corpus].items())
                + " s CPU",
                flush=True,
            )
    return times


# --------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------


def _spread(values: list[float], fmt: str = "{:.2f}") -> str:
    return f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}-{fmt.format(max(values))})"


def report(
    rows: list[Row], data: dict[str, list[str]], times: dict[str, dict[str, list[tuple[float, float]]]]
) -> dict[str, Any]:
    """Print each corpus's table and the speed ratios; return the numbers."""
    out: dict[str, Any] = {}
    for corpus, texts in data.items():
        mb = sum(len(t.encode()) for t in texts) / 1e6
        floor = [cpu for cpu, _ in times[corpus]["floor"]]
        print(f"\n== {corpus}: {len(texts)} text(s), {mb:.2f} MB; median (min-max) over {len(floor)} rounds")
        print(f"  {'row':<22} {'MB/s CPU':>20} {'MB/s wall':>20} {'x floor (CPU)':>20}")
        table: dict[str, Any] = {}
        for row in rows:
            cpu = [c for c, _ in times[corpus][row.name]]
            wall = [w for _, w in times[corpus][row.name]]
            to_floor = [c / f for c, f in zip(cpu, floor)]
            table[row.name] = {"cpu_s": cpu, "wall_s": wall, "to_floor": to_floor, "mb": mb}
            print(
                f"  {row.name:<22} {_spread([mb / c for c in cpu], '{:.1f}'):>20} "
                f"{_spread([mb / w for w in wall], '{:.1f}'):>20} {_spread(to_floor):>20}"
            )
        print("  speed over each peer (the peer's CPU time / ours, per round):")
        for ours in (row for row in rows if row.ours):
            peers = [row for row in rows if not row.ours and row.unit == ours.unit]
            parts = []
            for peer in peers:
                speed = [p / o for (p, _), (o, _) in zip(times[corpus][peer.name], times[corpus][ours.name])]
                table[ours.name].setdefault("speed", {})[peer.name] = speed
                parts.append(f"{peer.name} {_spread(speed)}")
            print(f"    {ours.name:<18} " + "; ".join(parts))
        out[corpus] = table
    return out


#: Issue 39's targets: (corpora, row, what, limit); "floor" is a median ratio to the floor at most
#: ``limit``, a peer's name a median speed over that peer at least ``limit``.
TARGETS: list[tuple[tuple[str, ...], str, str, float]] = [
    (("once", "twice"), "recursive 0", "floor", 1.2),
    (("once", "twice"), "fixed_tokens", "floor", 1.1),
    (("once", "twice"), "sentences", "floor", 2.0),
    (("once", "twice"), "headings", "floor", 2.0),
    (("once", "twice"), "recursive 0", "chonkie recursive", 1.5),
    (("once", "twice"), "recursive chars", "chonkie recursive c", 1.5),
    (("copies",), "recursive 0", "chonkie recursive", 1.0),
    (("once", "twice"), "recursive 0", "semchunk", 1.5),
    (("once", "twice"), "recursive 0", "langchain", 3.0),
]


def verdicts(table: dict[str, Any]) -> list[dict[str, Any]]:
    print("\n== targets (issue 39; medians over the rounds)")
    found = []
    for corpora_, row, what, limit in TARGETS:
        for corpus in corpora_:
            numbers = table.get(corpus, {}).get(row)
            if numbers is None:
                continue
            values = numbers["to_floor"] if what == "floor" else numbers.get("speed", {}).get(what)
            if values is None:
                print(f"  SKIP  {corpus}: {row} vs {what} (not measured: not installed or not in --rows)")
                continue
            median = statistics.median(values)
            ok = median <= limit if what == "floor" else median >= limit
            sense = f"<= {limit}x the floor" if what == "floor" else f">= {limit}x {what}'s speed"
            print(f"  {'PASS' if ok else 'MISS'}  {corpus:<9} {row:<16} {sense:<38} {_spread(values)}")
            found.append({"corpus": corpus, "row": row, "target": sense, "median": median, "pass": ok})
    return found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="two rounds, smaller copies and generated corpora")
    ap.add_argument("--rounds", type=int, help="interleaved rounds (default 5, --quick 2)")
    ap.add_argument("--corpora", default="once,twice,copies,generated", help="comma-separated corpus names")
    ap.add_argument("--rows", help="comma-separated row names (default every row; the floor always)")
    ap.add_argument("--words", type=int, default=500_000, help="words of the generated document (default 500,000)")
    ap.add_argument("--json", metavar="PATH", help="also write the numbers as JSON")
    args = ap.parse_args(argv)
    rounds = args.rounds or (2 if args.quick else 5)
    pin_to_one_core()
    enc = get_tokenizer("cl100k_base").encoding
    rows = [Row("floor", "floor", False, enc.encode_ordinary), *our_rows()]
    peers, notes = peer_rows(enc)
    rows += peers
    if args.rows:
        wanted = set(args.rows.split(","))
        rows = [row for row in rows if row.name == "floor" or row.name in wanted]
    data = corpora(args.corpora.split(","), args.quick, args.words)
    first_call = warm_up(rows)
    versions = {}
    from importlib.metadata import PackageNotFoundError, version

    for dist in (
        "tiktoken",
        "chonkie",
        "chonkie-core",
        "semchunk",
        "langchain-text-splitters",
        "semantic-text-splitter",
        "memchunk",
    ):
        try:
            versions[dist] = version(dist)
        except PackageNotFoundError:
            pass
    print(
        f"chunkviz engine benchmark: one core (affinity {sorted(os.sched_getaffinity(0))}), {rounds} rounds, "
        f"cl100k_base {CHUNK_SIZE} tokens / {CHARS} characters; python {platform.python_version()}, "
        + ", ".join(f"{k} {v}" for k, v in versions.items())
        + f"; loadavg {' '.join(f'{x:.2f}' for x in os.getloadavg())}; first calls (imports, warm-up) {first_call:.1f}s",
        flush=True,
    )
    for note in notes:
        print("  " + note)
    times = measure(rows, data, rounds)
    table = report(rows, data, times)
    found = verdicts(table)
    print(f"  loadavg at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.json:
        Path(args.json).write_text(json.dumps({"versions": versions, "tables": table, "targets": found}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
