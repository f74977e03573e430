"""chunkviz.json: building it from the app's columns, validating it, applying it to a command."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.texts import SETTINGS, examples

from chunkviz.api import chunk
from chunkviz.cli.params import add_config_argument, apply_config, enrich_chunks, merged_params
from chunkviz.diagnostics.compare import ColumnConfig, full_params
from chunkviz.document.enrich import enrich
from chunkviz.document.model import Document
from chunkviz.evaluation.config import (
    ChunkvizConfig,
    ConfigError,
    Enrichment,
    column_hash,
    config_from_columns,
    config_from_dict,
    config_hash,
    config_json,
    eval_configurations,
    load_config,
    save_config,
)
from chunkviz.strategies.base import registered

RECURSIVE_DEFAULTS = {"chunk_size": 128, "overlap": 16, "separators": "default"}


def write(tmp_path: Path, data: Any, name: str = "chunkviz.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


# --------------------------------------------------------------------------- the app's download


def test_config_from_columns_pins_every_parameter_and_drops_the_per_document_source() -> None:
    columns = [ColumnConfig("recursive", {"chunk_size": 200}), ColumnConfig("fixed_chars", {}, "chars")]
    enrich_json = json.dumps({"source": "handbook.md", "title": "Handbook", "date": None})
    data = config_from_columns(columns, enrich_json, tokenizer="cl100k_base")
    assert data == {
        "version": 1,
        "tokenizer": "cl100k_base",
        "enrichment": {"kind": "metadata", "title": "Handbook", "date": None, "include": ["title", "section", "date"]},
        "columns": [
            {"strategy": "recursive", "params": {**RECURSIVE_DEFAULTS, "chunk_size": 200}},
            {"strategy": "fixed_chars", "params": {"chunk_size": 512, "overlap": 64}, "tokenizer": "chars"},
        ],
    }
    assert config_from_columns(columns, None)["enrichment"] is None
    assert config_from_columns(columns, "null")["enrichment"] is None


def test_config_from_columns_refuses_a_column_that_does_not_validate() -> None:
    with pytest.raises(ConfigError, match=r"columns\[0\]\.params: recursive: parameter 'chunk_size'"):
        config_from_columns([ColumnConfig("recursive", {"chunk_size": -3})], None)


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    data = config_from_columns([ColumnConfig("sentences", {"max_tokens": 64})], {"title": None, "date": "2024-05-01"})
    path = save_config(data, tmp_path / "chunkviz.json")
    assert path.read_text(encoding="utf-8") == config_json(data)
    assert config_json(data).endswith("}\n")
    loaded = load_config(path)
    assert loaded.to_dict() == data
    assert loaded.enrichment == Enrichment(date="2024-05-01")
    assert [p.name for p in tmp_path.iterdir()] == ["chunkviz.json"]  # no temporary file left


@settings(**{**SETTINGS, "max_examples": examples(25)})
@given(
    strategy=st.sampled_from([s.name for s in registered()]),
    tokenizer=st.sampled_from(["cl100k_base", "chars", "words"]),
    own_tokenizer=st.booleans(),
    enrichment=st.booleans(),
)
def test_every_strategy_round_trips_with_the_same_hash(
    strategy: str, tokenizer: str, own_tokenizer: bool, enrichment: bool
) -> None:
    column = ColumnConfig(strategy, {}, "chars" if own_tokenizer else None)
    data = config_from_columns([column], {"title": "T"} if enrichment else None, tokenizer=tokenizer)
    again = config_from_dict(json.loads(config_json(data)))
    assert again.to_dict() == data
    bare = ChunkvizConfig((column,), tokenizer, Enrichment(title="T") if enrichment else None)
    assert config_hash(again) == config_hash(bare)  # defaults filled in or not: the same configuration
    assert column_hash(again, again.columns[0]) == column_hash(bare, column)


def test_hash_changes_with_what_changes_the_chunks() -> None:
    base = config_from_dict({"strategy": "recursive", "params": {"chunk_size": 100}})
    same = config_from_dict({"columns": [{"strategy": "recursive", "params": {"chunk_size": 100, "overlap": 16}}]})
    assert config_hash(base) == config_hash(same)
    others = [
        {"strategy": "recursive", "params": {"chunk_size": 101}},
        {"strategy": "recursive", "params": {"chunk_size": 100}, "tokenizer": "chars"},
        {"strategy": "recursive", "params": {"chunk_size": 100}, "enrichment": {"kind": "metadata"}},
        {"strategy": "fixed_tokens", "params": {"chunk_size": 100}},
    ]
    hashes = {config_hash(config_from_dict(o)) for o in others}
    assert len(hashes) == len(others) and config_hash(base) not in hashes
    col = base.columns[0]
    assert column_hash(base, col, "format=jsonl") != column_hash(base, col, "format=parquet")


# --------------------------------------------------------------------------- errors name the field


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([1, 2], r"chunkviz.json: expected a JSON object with \"columns\", got a list"),
        (
            {"version": 2, "strategy": "recursive"},
            r"chunkviz.json: version: this chunkviz reads version 1, the file says 2",
        ),
        ({"version": True, "strategy": "recursive"}, r"version: this chunkviz reads version 1"),
        ({"strategy": "recursive", "colour": "red"}, r"unknown key\(s\) 'colour'; allowed: version, tokenizer"),
        (
            {"tokenizer": "gpt9", "strategy": "recursive"},
            r"chunkviz.json: tokenizer: unknown tokenizer 'gpt9'; choose one of: .*cl100k_base",
        ),
        ({"embedding_model": "nope", "strategy": "recursive"}, r"embedding_model: unknown model 'nope'; choose one of"),
        ({}, r"no \"columns\" \(or top-level \"strategy\"\)"),
        ({"columns": []}, r"columns: expected a non-empty list"),
        (
            {"columns": [{"strategy": "recursive"}], "strategy": "recursive"},
            r"give either \"columns\" or a top-level \"strategy\"",
        ),
        (
            {"columns": [{"strategy": "recursive"}, {"strategy": "recursiv"}]},
            r"columns\[1\]\.strategy: unknown strategy 'recursiv'; choose one of",
        ),
        ({"columns": [{"strategy": 3}]}, r"columns\[0\]\.strategy: expected a strategy name"),
        (
            {"columns": [{"strategy": "recursive", "params": [1]}]},
            r"columns\[0\]\.params: expected an object of parameter values, got a list",
        ),
        (
            {"columns": [{"strategy": "recursive", "params": {"size": 3}}]},
            r"columns\[0\]\.params: recursive: parameter 'size' is unknown; valid parameters: chunk_size",
        ),
        (
            {"columns": [{"strategy": "recursive", "params": {"chunk_size": 10, "overlap": 20}}]},
            r"columns\[0\]\.params: recursive:",
        ),
        ({"columns": [{"strategy": "recursive", "tokenizer": "x"}]}, r"columns\[0\]\.tokenizer: unknown tokenizer 'x'"),
        (
            {"columns": [{"strategy": "recursive", "param": {}}]},
            r"columns\[0\]: unknown key\(s\) 'param'; allowed: strategy, params, tokenizer",
        ),
        ({"strategy": "recursive", "enrichment": "yes"}, r"enrichment: expected null or an object"),
        (
            {"strategy": "recursive", "enrichment": {"kind": "contextual"}},
            r"enrichment.kind: unknown kind 'contextual'; choose one of: metadata",
        ),
        (
            {"strategy": "recursive", "enrichment": {"include": ["title", "author"]}},
            r"enrichment.include: unknown part\(s\) 'author'; choose from: title, section, date",
        ),
        (
            {"strategy": "recursive", "enrichment": {"date": 2024}},
            r"enrichment.date: expected a string or null, got a number",
        ),
        ({"strategy": "recursive", "enrichment": {"when": 1}}, r"enrichment: unknown key\(s\) 'when'"),
    ],
)
def test_a_bad_file_names_the_field(tmp_path: Path, data: Any, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(write(tmp_path, data))


def test_unreadable_files_say_what_is_wrong(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"configuration file not found: .*missing.json"):
        load_config(tmp_path / "missing.json")
    with pytest.raises(ConfigError, match=r"is not valid JSON: line 2 column 1"):
        load_config(write(tmp_path, '{"strategy": "recursive",\n}'))
    with pytest.raises(ConfigError, match="is a directory"):
        load_config(tmp_path)
    bad = tmp_path / "latin1.json"
    bad.write_bytes(b'{"strategy": "r\xe9cursive"}')
    with pytest.raises(ConfigError, match="is not UTF-8 text"):
        load_config(bad)


def test_column_choice() -> None:
    config = config_from_dict({"columns": [{"strategy": "recursive"}, {"strategy": "sentences"}]}, source="c.json")
    assert config.column(2).strategy == "sentences"
    with pytest.raises(
        ConfigError, match=r"c.json has 2 columns \(1 = recursive, 2 = sentences\); choose one with --column 1..2"
    ):
        config.column(None)
    with pytest.raises(ConfigError, match=r"--column 3: c.json has 2 columns; choose 1..2"):
        config.column(3)


# --------------------------------------------------------------------------- the command line


def parser() -> argparse.ArgumentParser:
    """A chunking command as the CLI builds it once --config is wired: -s optional, --tokenizer None."""
    p = argparse.ArgumentParser()
    p.add_argument("file")
    p.add_argument("-s", "--strategy", default=None)
    p.add_argument("-p", "--param", action="append", default=[])
    p.add_argument("--tokenizer", default=None)
    add_config_argument(p)
    return p


def test_apply_config_fills_the_command_from_the_file(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        {
            "tokenizer": "words",
            "strategy": "recursive",
            "params": {"chunk_size": 40},
            "enrichment": {"kind": "metadata", "date": "2024"},
        },
    )
    args = parser().parse_args(["doc.md", "--config", str(path)])
    apply_config(args)
    assert (args.strategy, args.tokenizer, args.config_params) == ("recursive", "words", {"chunk_size": 40})
    assert args.enrichment == Enrichment(date="2024")
    assert merged_params(args, {"overlap": 0, "chunk_size": 30}) == {"chunk_size": 30, "overlap": 0}

    args = parser().parse_args(["doc.md", "--config", str(path), "--tokenizer", "chars", "-s", "recursive"])
    apply_config(args)
    assert args.tokenizer == "chars"  # the command line wins


def test_apply_config_column_tokenizer_and_conflicts(tmp_path: Path) -> None:
    path = write(tmp_path, {"columns": [{"strategy": "recursive"}, {"strategy": "fixed_chars", "tokenizer": "chars"}]})
    args = parser().parse_args(["d", "--config", str(path), "--column", "2"])
    apply_config(args)
    assert (args.strategy, args.tokenizer) == ("fixed_chars", "chars")
    with pytest.raises(ConfigError, match="choose one with --column 1..2"):
        apply_config(parser().parse_args(["d", "--config", str(path)]))
    with pytest.raises(ConfigError, match=r"the column runs 'recursive', the command 'sentences'; drop -s"):
        apply_config(parser().parse_args(["d", "--config", str(path), "--column", "1", "-s", "sentences"]))
    with pytest.raises(ConfigError, match="the command 'semantic'"):  # e.g. 'similarities' always runs semantic
        apply_config(parser().parse_args(["d", "--config", str(path), "--column", "1"]), strategy="semantic")
    with pytest.raises(SystemExit):
        parser().parse_args(["d", "--config", str(path), "--column", "0"])


def test_apply_config_without_a_file(tmp_path: Path) -> None:
    args = parser().parse_args(["d", "-s", "sentences"])
    apply_config(args)
    assert (args.strategy, args.tokenizer, args.config_params, args.enrichment) == (
        "sentences",
        "cl100k_base",
        {},
        None,
    )
    with pytest.raises(ConfigError, match=r"choose a strategy with -s NAME .* or give --config chunkviz.json"):
        apply_config(parser().parse_args(["d"]))
    with pytest.raises(ConfigError, match="--column chooses a column of --config FILE"):
        apply_config(parser().parse_args(["d", "-s", "sentences", "--column", "1"]))


def test_enrich_chunks_is_the_enrichment_the_file_names(tmp_path: Path) -> None:
    text = "# Guide\n\n## Setup\n\nInstall it. Then run it.\n"
    document = Document(text, name="docs/guide.md", format="markdown")
    chunks = chunk(document, "recursive", chunk_size=8, overlap=0)
    args = parser().parse_args(
        ["d", "--config", str(write(tmp_path, {"strategy": "recursive", "enrichment": {"date": "2024"}}))]
    )
    apply_config(args)
    enriched = enrich_chunks(args, document, chunks, "cl100k_base")
    assert enriched == enrich(document, chunks, source="docs/guide.md", date="2024", tokenizer="cl100k_base")
    assert enriched[-1].added_text == "Document: Guide\nSection: Guide > Setup\nDate: 2024\n\n"
    plain = parser().parse_args(["d", "-s", "recursive"])
    apply_config(plain)
    assert enrich_chunks(plain, document, chunks, "cl100k_base") == list(chunks)


def test_eval_configurations_one_per_column() -> None:
    config = config_from_dict(
        {
            "tokenizer": "words",
            "enrichment": {"kind": "metadata"},
            "columns": [
                {"strategy": "recursive", "params": {"chunk_size": 50}},
                {"strategy": "fixed_chars", "tokenizer": "chars"},
            ],
        }
    )
    found = [(c.strategy, dict(c.params), c.tokenizer, c.enrich) for c in eval_configurations(config)]
    assert found == [("recursive", {"chunk_size": 50}, "words", "metadata"), ("fixed_chars", {}, "chars", "metadata")]
    assert full_params("recursive", found[0][1])["chunk_size"] == 50


def test_one_enrichment_type_for_chunkviz_json_the_app_and_the_evaluation() -> None:
    from chunkviz.document.enrich import Enrichment
    from chunkviz.evaluation import config as config_module
    from chunkviz.ui import keys

    assert config_module.Enrichment is keys.Enrichment is Enrichment
    loaded = config_module.config_from_dict(
        {"strategy": "recursive", "enrichment": {"kind": "metadata", "title": "T", "include": ["title"]}}
    )
    assert loaded.enrichment == Enrichment(title="T", include=("title",))
    assert loaded.enrichment.to_dict() == {"kind": "metadata", "title": "T", "date": None, "include": ["title"]}
    (evaluated,) = config_module.eval_configurations(loaded)
    assert evaluated.enrich == loaded.enrichment.kind == "metadata"
    sidebar = Enrichment(True, True, "guide.md", "T", None)  # the app's: the prefix and an LLM-written context
    assert (sidebar.kind, sidebar.prefix()) == ("contextual", {"source": "guide.md", "title": "T", "date": None})
    assert Enrichment(metadata=False).options() == {"metadata": False, "contextual": False}
