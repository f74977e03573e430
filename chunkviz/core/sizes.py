"""Byte sizes as people read them, for the messages of the readers and the batch inputs."""

from __future__ import annotations


def format_size(n_bytes: int) -> str:
    """``20000000`` -> ``'20 MB'``; ``1500`` -> ``'1.5 kB'`` (decimal units)."""
    for unit, scale in (("MB", 1_000_000), ("kB", 1_000)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:.1f}".rstrip("0").rstrip(".") + f" {unit}"
    return f"{n_bytes} bytes"


__all__ = ["format_size"]
