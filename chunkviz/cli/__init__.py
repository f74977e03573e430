"""cli/: every command: the `chunkviz` parser (commands), -p and --config glue (params), `chunkviz app`
(launch), report, show, audit, tune, the LLM commands, batch/.

May import: chunkviz.core, chunkviz.text, chunkviz.document, chunkviz.drawing, chunkviz.splitting,
chunkviz.llm, chunkviz.semantic, chunkviz.strategies, chunkviz.api, chunkviz.diagnostics,
chunkviz.evaluation, chunkviz.formats, chunkviz.views, chunkviz.ui (the layers below it).
The order of the layers: LAYERS in tests/test_architecture.py.
"""


def main(argv: list[str] | None = None) -> int:
    """``chunkviz`` on the command line (:func:`chunkviz.cli.commands.main`), also under the name it
    had before the layer folders (``chunkviz.cli:main``)."""
    from chunkviz.cli.commands import main as run

    return run(argv)


__all__ = ["main"]
