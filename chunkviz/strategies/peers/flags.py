"""The audit's flags: what is wrong with a peer's chunk as its users place it in the document.

These are candidates for :class:`chunkviz.core.vocabulary.Flag` (the lead's file); until they are
merged there, they live here with their labels and colours, and every audited chunk lists its
flags in ``metadata["peer_flags"]`` (the values below).
"""

from __future__ import annotations

from enum import StrEnum


class PeerFlag(StrEnum):
    """What the audit of a peer's chunk against the source found."""

    MISPLACED = "misplaced"  # its placement (start_index / offsets / find) is not where the peer's sequence puts it
    AMBIGUOUS_PLACEMENT = "ambiguous_placement"  # placed by text search and its text occurs more than once
    TEXT_NOT_IN_SOURCE = "text_not_in_source"  # its text does not occur in the document, even ignoring whitespace
    WHITESPACE_CHANGED = "whitespace_changed"  # its text is the document's only with whitespace dropped or rewritten
    OVER_PEER_LIMIT = "over_peer_limit"  # larger than the limit the peer was given, measured as the peer measures


PEER_FLAG_LABELS: dict[PeerFlag, str] = {
    PeerFlag.MISPLACED: "placed at the wrong occurrence",
    PeerFlag.AMBIGUOUS_PLACEMENT: "placement ambiguous (its text occurs more than once)",
    PeerFlag.TEXT_NOT_IN_SOURCE: "text not in the document",
    PeerFlag.WHITESPACE_CHANGED: "whitespace dropped or rewritten",
    PeerFlag.OVER_PEER_LIMIT: "over the limit the splitter was given",
}

#: Short forms for counts in a statistics row (singular, plural).
PEER_FLAG_COUNT_LABELS: dict[PeerFlag, tuple[str, str]] = {
    PeerFlag.MISPLACED: ("misplaced chunk", "misplaced chunks"),
    PeerFlag.AMBIGUOUS_PLACEMENT: ("ambiguous placement", "ambiguous placements"),
    PeerFlag.TEXT_NOT_IN_SOURCE: ("text not in the document", "texts not in the document"),
    PeerFlag.WHITESPACE_CHANGED: ("whitespace changed", "whitespace changed"),
    PeerFlag.OVER_PEER_LIMIT: ("over its limit", "over their limit"),
}

#: Outline colour of a flagged chunk (readable on white; distinct from the reason colours).
PEER_FLAG_COLOURS: dict[PeerFlag, str] = {
    PeerFlag.MISPLACED: "#c92a2a",  # red: the metadata points at the wrong text
    PeerFlag.AMBIGUOUS_PLACEMENT: "#e67700",  # amber: may be wrong
    PeerFlag.TEXT_NOT_IN_SOURCE: "#862e9c",  # purple: text that is not the source's
    PeerFlag.WHITESPACE_CHANGED: "#5c940d",  # olive: the same words, other whitespace
    PeerFlag.OVER_PEER_LIMIT: "#d9480f",  # orange: as over_size_limit
}

#: Metadata keys the audit writes on each chunk of a peer column.
PEER_FLAGS_KEY = "peer_flags"
PEER_TEXT_KEY = "peer_text"  # the peer's own text, when it differs from the drawn span's text
PEER_START_KEY = "peer_start"  # where the peer's users' placement says the chunk starts (-1: not found)
TRUE_SPAN_KEY = "true_span"  # [start, end) the peer's own sequence implies, when it differs from the drawn span
PEER_INDEX_KEY = "peer_index"
PEER_SIZE_KEY = "peer_size"  # the chunk's size as the peer measures its limit
MISPLACEMENT_KEY = "misplacement"  # not_found, earlier_copy, later_copy or other_text
UNCERTAIN_KEY = "placement_uncertain"  # True when the true position is not certain (several copies, or none)

__all__ = [
    "MISPLACEMENT_KEY",
    "PEER_FLAGS_KEY",
    "PEER_FLAG_COLOURS",
    "PEER_FLAG_COUNT_LABELS",
    "PEER_FLAG_LABELS",
    "PEER_INDEX_KEY",
    "PEER_SIZE_KEY",
    "PEER_START_KEY",
    "PEER_TEXT_KEY",
    "TRUE_SPAN_KEY",
    "UNCERTAIN_KEY",
    "PeerFlag",
]
