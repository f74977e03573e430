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
