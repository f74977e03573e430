#!/usr/bin/env python
"""Engine benchmark: chunkviz vs LangChain text splitters vs semchunk on one tokenizer.

Generates two deterministic English-like documents (~50k and ~500k words; fixed seed, no
network, no outside files), then times, side by side on cl100k_base:

  ours       chunkviz.chunk(text, "recursive"|"fixed_tokens", chunk_size=400, overlap=50)
  LangChain  RecursiveCharacterTextSplitter (token length function) and TokenTextSplitter
  semchunk   semchunk.chunkerify(enc, 400) without and with overlap=50
  reference  enc.encode_ordinary(text) of the whole text

For each: best-of-N wall time, MB/s (UTF-8 bytes), chunk count and tracemalloc peak (one
separate run). Then the target ratios and an exactness / honesty comparison.

    .venv/bin/python bench/bench_engine.py [--quick] [--json PATH]

Notes on fairness:
- chunkviz's token-count memo (``get_tokenizer("cl100k_base").count``) is cleared before each
  of our runs; semchunk's memo is fresh on every run (``chunkerify`` is called inside the timed
  function); LangChain splitters are constructed inside the timed function too (cheap).
- chunkviz encodes documents of >= 100k characters in parts on several threads
  (``encode_ordinary_batch``); the bare-encode reference is one ``encode_ordinary`` call on one
  thread. Informational "[1 thread]" rows rerun ours with that parallelism switched off
  (in-process, by raising ``chunkviz.tokenizers._PARALLEL_MIN_CHARS``) so the effect is visible.
- tracemalloc sees Python (and numpy) allocations only, not memory allocated inside tiktoken's
  Rust code, so the bare-encode peak mostly reflects the returned list of token ids.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import random
import sys
import time
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import Any, Callable

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import chunkviz  # noqa: E402
import chunkviz.tokenizers as cz_tokenizers  # noqa: E402
from chunkviz.tokenizers import get_tokenizer  # noqa: E402

CHUNK_SIZE = 400
OVERLAP = 50
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

ONSETS = ["b", "br", "c", "ch", "cl", "d", "dr", "f", "fl", "g", "gr", "h", "j", "k", "l", "m",
          "n", "p", "pl", "pr", "qu", "r", "s", "sh", "sl", "st", "str", "t", "th", "tr", "v", "w", "z", ""]
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
    """Start every timed run of ours cold: no memoized counts, no kept document tokenization."""
    from chunkviz.spancount import clear_shared_counters

    get_tokenizer("cl100k_base").count.cache_clear()
    clear_shared_counters()


def time_once(fn: Callable[[], Any], before: Callable[[], None] | None = None) -> tuple[float, Any]:
    if before:
        before()
    gc.collect()
    t0 = time.perf_counter()
    result = fn()
    return time.perf_counter() - t0, result


def peak_mb(fn: Callable[[], Any], before: Callable[[], None] | None = None) -> float:
    if before:
        before()
    gc.collect()
    tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        out = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del out
    return peak / 1e6


def single_thread(fn: Callable[[], Any]) -> Callable[[], Any]:
    """``fn`` with chunkviz's parallel whole-document encoding switched off (informational rows)."""

    def run() -> Any:
        saved = cz_tokenizers._PARALLEL_MIN_CHARS
        cz_tokenizers._PARALLEL_MIN_CHARS = 1 << 62
        try:
            return fn()
        finally:
            cz_tokenizers._PARALLEL_MIN_CHARS = saved

    return run


def load_peers(enc) -> tuple[dict[str, Callable[[str], Any]], list[str]]:
    """Peer chunkers as text -> list[str]; plus messages about skipped peers."""
    peers: dict[str, Callable[[str], Any]] = {}
    notes: list[str] = []
    try:
        from langchain_text_splitters import RecursiveCharacterTextSplitter, TokenTextSplitter

        def lc_len(s: str) -> int:
            return len(enc.encode(s))

        def lc_recursive(text: str) -> list[str]:
            splitter = RecursiveCharacterTextSplitter(
                chunk_size=CHUNK_SIZE, chunk_overlap=OVERLAP, length_function=lc_len
            )
            return splitter.split_text(text)

        def lc_token(text: str) -> list[str]:
            splitter = TokenTextSplitter(encoding_name="cl100k_base", chunk_size=CHUNK_SIZE, chunk_overlap=OVERLAP)
            return splitter.split_text(text)

        peers["langchain recursive"] = lc_recursive
        peers["langchain token"] = lc_token
    except ImportError as exc:
        notes.append(f"SKIP LangChain: langchain-text-splitters is not installed ({exc})")
    try:
        import semchunk

        def sc_plain(text: str) -> list[str]:
            return semchunk.chunkerify(enc, CHUNK_SIZE)(text)  # fresh memo every run

        peers["semchunk"] = sc_plain
        try:
            import inspect

            if "overlap" in inspect.signature(semchunk.chunkerify(enc, CHUNK_SIZE).__call__).parameters:

                def sc_overlap(text: str) -> list[str]:
                    return semchunk.chunkerify(enc, CHUNK_SIZE)(text, overlap=OVERLAP)

                peers["semchunk overlap=50"] = sc_overlap
            else:
                notes.append("semchunk: this version's chunker has no overlap parameter; overlap row skipped")
        except (TypeError, ValueError):
            notes.append("semchunk: could not inspect the chunker signature; overlap row skipped")
    except ImportError as exc:
        notes.append(f"SKIP semchunk: semchunk is not installed ({exc})")
    return peers, notes


def run_document(label: str, text: str, repeats: int, enc, peers: dict[str, Callable[[str], Any]]) -> dict[str, Any]:
    """Best-of-``repeats`` per chunker, repeats interleaved round-robin so that load from other
    processes hits all chunkers alike; then one tracemalloc run per chunker."""
    n_bytes = len(text.encode("utf-8"))

    def ours(strategy: str) -> Callable[[], Any]:
        return lambda: chunkviz.chunk(text, strategy, chunk_size=CHUNK_SIZE, overlap=OVERLAP)

    # (name, kind, fn, before, informational)
    specs: list[tuple[str, str, Callable[[], Any], Callable[[], None] | None, bool]] = [
        ("reference encode_ordinary", "reference", lambda: enc.encode_ordinary(text), None, False),
        ("ours recursive", "ours", ours("recursive"), _clear_ours, False),
        ("ours fixed_tokens", "ours", ours("fixed_tokens"), _clear_ours, False),
    ]
    if len(text) >= cz_tokenizers._PARALLEL_MIN_CHARS:
        specs += [
            ("ours recursive [1 thread]", "ours", single_thread(ours("recursive")), _clear_ours, True),
            ("ours fixed_tokens [1 thread]", "ours", single_thread(ours("fixed_tokens")), _clear_ours, True),
        ]
    for name, fn in peers.items():
        specs.append((name, "peer", (lambda f=fn: f(text)), None, False))

    print(f"\n== {label}: measuring (best of {repeats}, rounds interleaved) ==", flush=True)
    print("  per-round ms, in order: " + " / ".join(name for name, *_ in specs), flush=True)
    best = {name: float("inf") for name, *_ in specs}
    outputs: dict[str, Any] = {}
    for rnd in range(repeats):
        line = []
        for name, _kind, fn, before, _info in specs:
            dt, out = time_once(fn, before)
            best[name] = min(best[name], dt)
            outputs[name] = out
            line.append(f"{dt * 1000:.0f}")
        print(f"  round {rnd + 1}: " + " / ".join(line) + " ms", flush=True)
        del out
    rows: list[dict[str, Any]] = []
    for name, kind, fn, before, info in specs:
        rows.append({
            "name": name,
            "kind": kind,
            "seconds": best[name],
            "mb_per_s": n_bytes / 1e6 / best[name],
            "chunks": 0 if kind == "reference" else len(outputs[name]),
            "peak_mb": peak_mb(fn, before),
            "informational": info,
        })
    return {"label": label, "bytes": n_bytes, "chars": len(text), "repeats": repeats, "rows": rows,
            "_outputs": outputs}


def print_table(result: dict[str, Any]) -> None:
    label = result["label"]
    print(f"\n{label}  ({result['chars']:,} chars, {result['bytes']:,} bytes, best of {result['repeats']})")
    header = f"  {'chunker':<32} {'best time':>11} {'MB/s':>8} {'chunks':>7} {'peak MB':>9}"
    print(header)
    print("  " + "-" * (len(header) - 2))
    for row in result["rows"]:
        chunks = "-" if row["kind"] == "reference" else f"{row['chunks']:,}"
        print(f"  {row['name']:<32} {row['seconds'] * 1000:9.1f}ms {row['mb_per_s']:8.2f} {chunks:>7} "
              f"{row['peak_mb']:9.1f}")


def ratios(result: dict[str, Any]) -> dict[str, Any]:
    by = {r["name"]: r for r in result["rows"]}
    out: dict[str, Any] = {}
    if "langchain recursive" in by:
        out["recursive_throughput_vs_langchain"] = by["ours recursive"]["mb_per_s"] / by["langchain recursive"]["mb_per_s"]
    out["fixed_tokens_time_vs_bare_encode"] = by["ours fixed_tokens"]["seconds"] / by["reference encode_ordinary"]["seconds"]
    if "ours fixed_tokens [1 thread]" in by:
        out["fixed_tokens_1thread_time_vs_bare_encode"] = (
            by["ours fixed_tokens [1 thread]"]["seconds"] / by["reference encode_ordinary"]["seconds"]
        )
    if "ours recursive [1 thread]" in by and "langchain recursive" in by:
        out["recursive_1thread_throughput_vs_langchain"] = (
            by["ours recursive [1 thread]"]["mb_per_s"] / by["langchain recursive"]["mb_per_s"]
        )
    if "semchunk" in by:
        out["recursive_throughput_vs_semchunk"] = by["ours recursive"]["mb_per_s"] / by["semchunk"]["mb_per_s"]
    return out


def print_ratios(r: dict[str, Any]) -> dict[str, Any]:
    verdicts: dict[str, str] = {}
    print("  key ratios:")
    if "recursive_throughput_vs_langchain" in r:
        v = r["recursive_throughput_vs_langchain"]
        verdicts["recursive_throughput_vs_langchain"] = "PASS" if v >= 2.5 else "MISS"
        print(f"    ours recursive MB/s / LangChain recursive MB/s = {v:6.2f}x   (target >= 2.5)  "
              f"{verdicts['recursive_throughput_vs_langchain']}")
    else:
        print("    ours recursive vs LangChain recursive: n/a (LangChain not installed)")
    v = r["fixed_tokens_time_vs_bare_encode"]
    verdicts["fixed_tokens_time_vs_bare_encode"] = "PASS" if v <= 1.3 else "MISS"
    print(f"    ours fixed_tokens time / bare encode time      = {v:6.2f}x   (target <= 1.3)  "
          f"{verdicts['fixed_tokens_time_vs_bare_encode']}")
    if "recursive_1thread_throughput_vs_langchain" in r:
        print(f"    [info] same, ours with 1-thread encoding: recursive {r['recursive_1thread_throughput_vs_langchain']:.2f}x,"
              f" fixed_tokens/encode {r['fixed_tokens_1thread_time_vs_bare_encode']:.2f}x")
    if "recursive_throughput_vs_semchunk" in r:
        print(f"    [info] ours recursive MB/s / semchunk MB/s     = {r['recursive_throughput_vs_semchunk']:6.2f}x")
    return verdicts


def exactness(result: dict[str, Any], text: str, enc) -> dict[str, Any]:
    outs = result["_outputs"]
    report: dict[str, Any] = {}
    print("  exactness / honesty:")
    for name in ("ours recursive", "ours fixed_tokens"):
        chunks = outs[name]
        exact = sum(1 for c in chunks if c.text == text[c.start:c.end])
        counts = [len(enc.encode_ordinary(c.text)) for c in chunks]
        max_tok = max(counts) if counts else 0
        over = sum(1 for n in counts if n > CHUNK_SIZE)
        flagged = sum(1 for c in chunks if c.metadata.get("over_limit"))
        covered = (chunks[0].start == 0 and chunks[-1].end == len(text)
                   and all(b.start <= a.end for a, b in zip(chunks, chunks[1:]))) if chunks else False
        report[name] = {"chunks": len(chunks), "exact": exact, "max_tokens": max_tok, "over_chunk_size": over,
                        "flagged_over_limit": flagged, "gapless": covered}
        print(f"    {name:<22} {exact}/{len(chunks)} chunks == doc[start:end]; max tokens {max_tok} "
              f"(chunk_size {CHUNK_SIZE}; {over} over, {flagged} flagged over_limit); "
              f"spans cover doc without gaps: {covered}")
    for name, chunks in outs.items():
        if name.startswith("ours") or name.startswith("reference"):
            continue
        not_sub = sum(1 for c in chunks if text.find(c) < 0)
        ambiguous = 0
        for c in chunks:
            first = text.find(c)
            if first >= 0 and text.find(c, first + 1) >= 0:
                ambiguous += 1
        max_tok = max((len(enc.encode_ordinary(c)) for c in chunks), default=0)
        report[name] = {"chunks": len(chunks), "not_substrings": not_sub, "ambiguous_offsets": ambiguous,
                        "max_tokens": max_tok}
        print(f"    {name:<22} {not_sub}/{len(chunks)} chunks NOT substrings of the text; "
              f"{ambiguous} occur more than once (ambiguous offsets); max tokens {max_tok}")
    return report


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="only the ~50k-word document, fewer repeats")
    ap.add_argument("--json", metavar="PATH", help="also write the numbers as JSON")
    ap.add_argument("--repeats", type=int, metavar="N", help="override best-of-N for every document")
    args = ap.parse_args(argv)

    tok = get_tokenizer("cl100k_base")
    enc = tok.encoding
    # warm up: vocabulary loading, byte-length table, regex compilation, thread pool
    tok.boundaries("warm up é")
    tok.boundaries(("warm up paragraph. " * 200 + "\n\n") * 40)
    enc.encode_ordinary("warm up é " * 100)
    enc.encode("warm up")
    chunkviz.chunk("Warm up. " * 500, "recursive", chunk_size=CHUNK_SIZE, overlap=OVERLAP)
    chunkviz.chunk("Warm up. " * 500, "fixed_tokens", chunk_size=CHUNK_SIZE, overlap=OVERLAP)

    peers, notes = load_peers(enc)
    versions = {"python": platform.python_version()}
    for mod in ("tiktoken", "langchain_text_splitters", "semchunk"):
        try:
            from importlib.metadata import version

            versions[mod] = version(mod.replace("_", "-"))
        except Exception:
            pass
    print(f"chunkviz engine benchmark — cl100k_base, chunk_size={CHUNK_SIZE}, overlap={OVERLAP}, seed={SEED}")
    print(f"  {', '.join(f'{k} {v}' for k, v in versions.items())}; cpu_count={os.cpu_count()}; "
          f"loadavg={' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for note in notes:
        print("  " + note)
    if "semchunk overlap=50" in peers:
        print("  semchunk: chunker supports overlap=; measured both without overlap and with overlap=50 tokens")

    docs = [("50k-word doc", 50_000, 3 if args.quick else 5)]
    if not args.quick:
        docs.append(("500k-word doc", 500_000, 3))
    if args.repeats:
        docs = [(label, words, max(1, args.repeats)) for label, words, _ in docs]

    all_results = []
    for label, words, repeats in docs:
        t0 = time.perf_counter()
        text, stats = make_document(words)
        gen = time.perf_counter() - t0
        print(f"\n{label}: generated in {gen:.2f}s: {stats}")
        result = run_document(label, text, repeats, enc, peers)
        result["doc_stats"] = stats
        print_table(result)
        r = ratios(result)
        result["ratios"] = r
        result["verdicts"] = print_ratios(r)
        result["exactness"] = exactness(result, text, enc)
        all_results.append(result)

    print(f"\nloadavg at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.json:
        payload = {
            "chunk_size": CHUNK_SIZE,
            "overlap": OVERLAP,
            "seed": SEED,
            "versions": versions,
            "cpu_count": os.cpu_count(),
            "notes": notes,
            "documents": [{k: v for k, v in r.items() if not k.startswith("_")} for r in all_results],
        }
        Path(args.json).write_text(json.dumps(payload, indent=2))
        print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
