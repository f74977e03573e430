"""The splitting engine: pieces, the recursive splitter, the one packer, token windows.

Layer splitting: the engine outside the strategies: pieces and to_chunks, the recursive splitter,
the one packer, token windows, units. May import: chunkviz.core, chunkviz.text, chunkviz.document,
chunkviz.drawing (the layers below it).
"""

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
