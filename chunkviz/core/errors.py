"""Errors with messages that tell the user what to do."""

from __future__ import annotations


class ChunkvizError(Exception):
    """Base class of every error chunkviz raises on purpose."""


class UnknownStrategyError(ChunkvizError, ValueError):
    """A strategy name that is not registered; the message lists the valid names."""

    def __init__(self, name: str, valid: list[str]) -> None:
        self.name = name
        self.valid = valid
        super().__init__(f"unknown strategy {name!r}; choose one of: {', '.join(valid)}")


class InvalidParamError(ChunkvizError, ValueError):
    """A strategy parameter that is unknown, of the wrong type or out of range."""

    def __init__(self, strategy: str, param: str, message: str) -> None:
        self.strategy = strategy
        self.param = param
        super().__init__(f"{strategy}: parameter {param!r} {message}")


class DocumentError(ChunkvizError, ValueError):
    """Input that cannot be read as text (binary, undecodable, too large ...)."""


def install_command(extra: str) -> str:
    """The command that installs one of chunkviz's extras: ``pip install 'chunkviz[formats]'``."""
    return f"pip install 'chunkviz[{extra}]'"


class FileLineError(ChunkvizError, ValueError):
    """A side file (chunk file, question file) that cannot be read: ``FILE, line N: what to fix``
    (``line`` None: the file as a whole)."""

    def __init__(self, source: str, line: int | None, problem: str) -> None:
        self.source = source
        self.line = line
        self.problem = problem
        where = f"{source}, line {line}" if line is not None else source
        super().__init__(f"{where}: {problem}")


def missing_extra(what: str, extra: str, packages: str = "") -> str:
    """The one message for a feature whose extra is not installed, naming the extra and the
    command. ``missing_extra("reading PDF", "formats")``: ``"reading PDF needs the formats extra:
    pip install 'chunkviz[formats]'"``; with ``packages="pyarrow"``: ``"... needs pyarrow (the
    scale extra): ..."``. Each caller raises it in the exception class its callers catch."""
    needs = f"{packages} (the {extra} extra)" if packages else f"the {extra} extra"
    return f"{what} needs {needs}: {install_command(extra)}"
