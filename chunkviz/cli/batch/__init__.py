"""``chunkviz batch``: a saved configuration over a corpus, locally or on Ray, resumable.

:func:`run_batch` is the entry point; :mod:`~chunkviz.cli.batch.worker` holds the per-document
function every engine runs, :mod:`~chunkviz.cli.batch.state` the parts, manifest and atomic writes.
"""

from chunkviz.cli.batch.run import BatchSummary, run_batch

__all__ = ["BatchSummary", "run_batch"]
