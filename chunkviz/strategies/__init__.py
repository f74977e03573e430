"""Built-in strategies; importing this package registers them."""

from chunkviz.strategies import fixed, paragraphs, recursive, semantic, sentences  # noqa: F401
from chunkviz.strategies.base import Strategy, get_strategy, register, registered

__all__ = ["Strategy", "get_strategy", "register", "registered"]
