"""``run_batch``: a configuration over many documents, resumable, with one output file."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from chunkviz.cli.batch.engines import ENGINES, EngineUnavailable, run_local, run_ray
from chunkviz.cli.batch.inputs import check_output, expand_inputs
from chunkviz.cli.batch.progress import ProgressLine
from chunkviz.cli.batch.state import (
    Layout,
    Manifest,
    ManifestEntry,
    OutputLock,
    is_earlier_output,
    make_layout,
    output_format,
    part_path,
    record_output,
)
from chunkviz.cli.batch.worker import DocResult, Plan, shown_source
from chunkviz.core.errors import missing_extra
from chunkviz.core.files import replacing
from chunkviz.document.language import normalize_language
from chunkviz.evaluation.config import ChunkvizConfig, column_hash, load_config, normalized
from chunkviz.formats.export import RECORD_FIELDS
from chunkviz.formats.external.formats import get_format, joined_lines

#: Parquet columns (the JSONL record's keys; ``metadata`` as a JSON string).
PARQUET_COLUMNS = ("source", *RECORD_FIELDS)
_PARQUET_ROWS_PER_GROUP = 50_000


@dataclass
class BatchSummary:
    """What a batch run did."""

    output: Path
    documents: int = 0
    chunked: int = 0
    kept: int = 0
    failed: int = 0
    chunks: int = 0
    bytes: int = 0
    seconds: float = 0.0
    failures: list[tuple[str, str]] = field(default_factory=list)
    #: worker process id -> chunkers built in it (1 everywhere: each loaded its models once)
    workers: dict[int, int] = field(default_factory=dict)

    def line(self) -> str:
        rate = self.chunked / self.seconds if self.seconds > 0 else 0.0
        mb = self.bytes / 1e6 / self.seconds if self.seconds > 0 else 0.0
        done_before = f", {self.kept:,} done before" if self.kept else ""
        failed = f", {self.failed:,} skipped (failed)" if self.failed else ""
        return (
            f"batch: {self.documents:,} documents ({self.chunked:,} chunked{done_before}{failed}) -> "
            f"{self.chunks:,} records in {self.output} ({self.seconds:.1f} s, {rate:,.1f} documents/s, {mb:,.2f} MB/s)"
        )


def run_batch(
    inputs: Sequence[str],
    config: ChunkvizConfig | str | Path,
    out: str | Path,
    *,
    fmt: str | None = None,
    column: int | None = None,
    workers: int = 1,
    engine: str = "local",
    ray_address: str | None = None,
    progress: TextIO | None = sys.stderr,
    language: str | None = None,
) -> BatchSummary:
    """Chunk every file ``inputs`` names (files, folders, globs) with one column of ``config``
    and write the records to ``out`` (a file, or a folder that gets ``chunks.<ext>``).

    Documents an earlier run finished with the same configuration and content are not chunked
    again (see :mod:`chunkviz.cli.batch.state`); a document that fails is reported on ``progress``
    and left out. ``language`` is every document's language (default: each one's detected). The output lists documents in sorted path order, each one's chunks in order,
    so it is the same bytes however the run was split or interrupted, and whichever engine ran it.

    An output that is an input file, would replace one, is the configuration file, or lies where a
    glob input reads is refused before anything is written (:class:`~chunkviz.cli.batch.inputs.BatchInputError`); while the
    run lasts it holds the output's lock, and a second run to the same output is refused
    (:class:`~chunkviz.cli.batch.state.OutputLocked`).
    """
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; choose one of: {', '.join(ENGINES)}")
    if workers < 1:
        raise ValueError(f"--workers must be at least 1, got {workers}")
    config_path = None if isinstance(config, ChunkvizConfig) else config
    if not isinstance(config, ChunkvizConfig):
        config = load_config(config)
    config = normalized(config)
    chosen = config.column(column)
    out_text = str(out)
    fmt = output_format(fmt, out_text)
    from chunkviz import __version__

    language = normalize_language(language)
    given = (f"language={language}",) if language is not None else ()  # a run without it keeps its key
    run_key = column_hash(config, chosen, f"format={fmt}", f"chunkviz={__version__}", *given)
    layout = make_layout(out_text, fmt, run_key)
    protected = [("--config file", config_path)] if config_path is not None else []
    found = expand_inputs(inputs, exclude=[layout.state_root])
    # before anything is created: the output may be no input (nor the configuration), no device or pipe
    check_output(inputs, found, layout.output, earlier_output=is_earlier_output(layout), protected=protected)
    with OutputLock(layout):
        # again under the lock: the run that held it may have written the output meanwhile
        sources = check_output(inputs, found, layout.output, earlier_output=is_earlier_output(layout))
        return _run_locked(
            sources, config, column, fmt, run_key, layout, workers, engine, ray_address, progress, language
        )


def _run_locked(
    sources: Sequence[str],
    config: ChunkvizConfig,
    column: int | None,
    fmt: str,
    run_key: str,
    layout: Layout,
    workers: int,
    engine: str,
    ray_address: str | None,
    progress: TextIO | None,
    language: str | None = None,
) -> BatchSummary:
    manifest = Manifest(layout.manifest, {"run": run_key, "format": fmt, "column": column, "config": config.to_dict()})
    done = manifest.done_parts(layout.parts)
    plan = Plan(config.to_dict(), column, fmt, str(layout.parts), language)
    layout.parts.mkdir(parents=True, exist_ok=True)

    meter = ProgressLine(len(sources), progress)
    summary = BatchSummary(layout.output, documents=len(sources))
    results: dict[str, DocResult] = {}

    def on_result(result: DocResult) -> None:
        results[result.source] = result
        if result.status != "kept":
            manifest.append(
                ManifestEntry(
                    result.source,
                    result.content_sha256,
                    result.status,
                    result.part,
                    result.chunks,
                    result.bytes,
                    result.error,
                )
            )
        if result.status == "failed":
            shown = shown_source(result.source)
            summary.failures.append((shown, result.error or "failed"))
            meter.note(f"skipped {shown}: {result.error}")
        if result.worker:
            summary.workers[result.worker] = max(result.setups, summary.workers.get(result.worker, 0))
        meter.update(result)

    if engine == "ray":
        run_ray(sources, plan, done, workers, on_result, address=ray_address)
    else:
        run_local(sources, plan, done, workers, on_result)
    meter.finish()

    assemble(layout, [results[s] for s in sources if s in results], fmt)
    summary.chunked, summary.kept, summary.failed = meter.chunked, meter.kept, meter.failed
    summary.chunks, summary.bytes, summary.seconds = meter.chunks, meter.bytes, meter.elapsed()
    return summary


def assemble(layout: Layout, ordered: Sequence[DocResult], fmt: str) -> None:
    """The output file from the parts of ``ordered`` (failed documents have none), written to a
    temporary file renamed over the output."""
    parts = [part_path(layout.parts, r.part) for r in ordered if r.status != "failed" and r.part]
    with replacing(layout.output) as tmp:  # a link is followed; a failure leaves the old output
        join = get_format(fmt).batch
        if join == "parquet":
            _write_parquet(tmp, parts)
        elif join == "list":  # one JSON list of every document's records
            with open(tmp, "w", encoding="utf-8", newline="") as out:
                out.writelines(joined_lines(_lines(parts)))
        else:
            with open(tmp, "wb") as out:
                for part in parts:
                    with part.open("rb") as handle:
                        shutil.copyfileobj(handle, out)
    record_output(layout)


def _lines(parts: Sequence[Path]) -> Iterator[str]:
    for part in parts:
        with part.open("r", encoding="utf-8", newline="") as handle:
            yield from handle


def _records(parts: Sequence[Path]) -> Iterator[dict[str, Any]]:
    for part in parts:
        with part.open("r", encoding="utf-8") as handle:
            for line in handle:
                yield json.loads(line)


def _write_parquet(path: Path, parts: Sequence[Path]) -> None:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise EngineUnavailable(missing_extra("--format parquet", "scale", "pyarrow")) from None
    schema = pa.schema(
        [
            ("source", pa.string()),
            ("index", pa.int64()),
            ("start", pa.int64()),
            ("end", pa.int64()),
            ("text", pa.string()),
            ("reason", pa.string()),
            ("boundary", pa.string()),
            ("parent", pa.int64()),
            ("level", pa.int64()),
            ("added_text", pa.string()),
            ("token_count", pa.int64()),
            ("metadata", pa.string()),
        ]
    )
    with pq.ParquetWriter(path, schema) as writer:
        batch: list[dict[str, Any]] = []
        for record in _records(parts):
            record = dict(record)
            record["metadata"] = json.dumps(record.get("metadata", {}), ensure_ascii=False, sort_keys=True, default=str)
            batch.append({name: record.get(name) for name in PARQUET_COLUMNS})
            if len(batch) >= _PARQUET_ROWS_PER_GROUP:
                writer.write_table(pa.Table.from_pylist(batch, schema=schema))
                batch = []
        if batch:
            writer.write_table(pa.Table.from_pylist(batch, schema=schema))


__all__ = ["PARQUET_COLUMNS", "BatchSummary", "assemble", "run_batch"]
