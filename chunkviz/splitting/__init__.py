"""The splitting engine: pieces, the recursive splitter, the one packer, token windows."""

from chunkviz.splitting.packing import PackPolicy, cuts_between, pack_units, unit_cuts
from chunkviz.splitting.pieces import Piece, to_chunks
from chunkviz.splitting.recursive import PRESETS, RecursiveSplitter, resolve_separators

__all__ = [
    "PRESETS",
    "PackPolicy",
    "Piece",
    "RecursiveSplitter",
    "cuts_between",
    "pack_units",
    "resolve_separators",
    "to_chunks",
    "unit_cuts",
]
