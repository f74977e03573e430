"""The words chunkviz uses, one name per meaning: boundaries, reasons, flags, metadata keys.

Every cut of every strategy is described twice:

- ``Boundary`` says *where* it falls: the strongest structural boundary of the document at that
  offset (a section start, a paragraph break, a line break, a sentence end, a space between
  words, inside a sentence of a script written without spaces, or inside a word). It is read from the document model, so two strategies that cut at
  the same offset always report the same boundary.
- ``Reason`` says *why* the strategy cut there: its size budget was reached, a structural unit
  ended, a semantic breakpoint, the end of the document, ...

Both are ``StrEnum``s, so they compare equal to (and serialize as) their string values.
"""

from __future__ import annotations

from enum import StrEnum


class Boundary(StrEnum):
    """Where a cut falls: the strongest structural boundary of the document at that offset."""

    DOCUMENT_END = "document_end"
    SECTION = "section"
    PARAGRAPH = "paragraph"
    LINE = "line"
    SENTENCE = "sentence"
    WORD = "word"
    INSIDE_SENTENCE = "inside_sentence"  # between two letters of a script written without spaces
    INSIDE_WORD = "inside_word"


#: Strongest first: a cut that is both a paragraph break and a line break is a paragraph break.
BOUNDARY_STRENGTH: tuple[Boundary, ...] = tuple(Boundary)

BOUNDARY_LABELS: dict[Boundary, str] = {
    Boundary.DOCUMENT_END: "end of the document",
    Boundary.SECTION: "before a heading (section boundary)",
    Boundary.PARAGRAPH: "paragraph break",
    Boundary.LINE: "line break",
    Boundary.SENTENCE: "end of a sentence",
    Boundary.WORD: "between words (at a space or punctuation)",
    Boundary.INSIDE_SENTENCE: "inside a sentence (a script without spaces: no word boundary known here)",
    Boundary.INSIDE_WORD: "inside a word",
}


class Reason(StrEnum):
    """Why a strategy ended a chunk where it did."""

    END_OF_DOCUMENT = "end_of_document"
    SIZE_LIMIT = "size_limit"  # the next piece would not fit the size budget
    MIN_SIZE = "min_size"  # the chunk reached its minimum size at a unit boundary
    UNIT_END = "unit_end"  # a structural unit ended (section, paragraph, sentence, table, AST node)
    PARENT_END = "parent_end"  # a child ends where its parent ends
    SEMANTIC_BREAKPOINT = "semantic_breakpoint"  # adjacent sentences are least similar here
    LLM_BOUNDARY = "llm_boundary"  # the language model said a new section begins here


REASON_LABELS: dict[Reason, str] = {
    Reason.END_OF_DOCUMENT: "end of the document",
    Reason.SIZE_LIMIT: "size limit reached (the next piece would not fit)",
    Reason.MIN_SIZE: "minimum size reached",
    Reason.UNIT_END: "structural unit ended",
    Reason.PARENT_END: "parent chunk ends here",
    Reason.SEMANTIC_BREAKPOINT: "semantic breakpoint (adjacent sentences least similar)",
    Reason.LLM_BOUNDARY: "the language model said a new section begins here",
}


class Flag(StrEnum):
    """Diagnostic flags shown per chunk. The two size limits have different names everywhere."""

    OVER_SIZE_LIMIT = "over_size_limit"  # over the strategy's own size limit (indivisible unit)
    OVER_MODEL_LIMIT = "over_model_limit"  # over the embedding model's input limit
    TINY = "tiny"
    MID_SENTENCE = "mid_sentence"
    MID_WORD = "mid_word"
    STARTS_MID_SENTENCE = "starts_mid_sentence"
    STARTS_MID_WORD = "starts_mid_word"
    SPLIT_TABLE = "split_table"
    SPLIT_CODE = "split_code"
    # the audit of a peer splitter's chunk against the source (chunkviz.strategies.peers)
    MISPLACED = "misplaced"  # its users' placement is not where the peer's own sequence puts it
    AMBIGUOUS_PLACEMENT = "ambiguous_placement"  # placed by text search; its text occurs more than once
    TEXT_NOT_IN_SOURCE = "text_not_in_source"  # its text does not occur in the document
    WHITESPACE_CHANGED = "whitespace_changed"  # the document's text with whitespace dropped or rewritten
    OVER_PEER_LIMIT = "over_peer_limit"  # larger than the limit the peer was given, as the peer measures
    # hygiene: is the chunk worth indexing? (chunkviz.diagnostics.hygiene, for any chunking)
    DUPLICATE = "duplicate"  # the same text as another chunk, whitespace aside
    NEAR_DUPLICATE = "near_duplicate"  # almost the same words as another chunk
    BOILERPLATE = "boilerplate"  # holds a line or sentence repeated at many places
    LOW_INFORMATION = "low_information"  # almost no letters, or only stop words, markup, numbers
    SECRET = "secret"  # a credential-shaped string
    INSTRUCTION = "instruction"  # text addressed to a language model (review it)


FLAG_LABELS: dict[Flag, str] = {
    Flag.OVER_SIZE_LIMIT: "over the strategy's size limit",
    Flag.OVER_MODEL_LIMIT: "over the embedding model's limit",
    Flag.TINY: "tiny",
    Flag.MID_SENTENCE: "cuts a sentence",
    Flag.MID_WORD: "cuts a word",
    Flag.STARTS_MID_SENTENCE: "starts mid-sentence",
    Flag.STARTS_MID_WORD: "starts mid-word",
    Flag.SPLIT_TABLE: "splits a table",
    Flag.SPLIT_CODE: "splits a code block",
    Flag.MISPLACED: "placed at the wrong occurrence",
    Flag.AMBIGUOUS_PLACEMENT: "placement ambiguous (its text occurs more than once)",
    Flag.TEXT_NOT_IN_SOURCE: "text not in the document",
    Flag.WHITESPACE_CHANGED: "whitespace dropped or rewritten",
    Flag.OVER_PEER_LIMIT: "over the limit the splitter was given",
    Flag.DUPLICATE: "duplicate of another chunk",
    Flag.NEAR_DUPLICATE: "near duplicate of another chunk",
    Flag.BOILERPLATE: "repeated boilerplate",
    Flag.LOW_INFORMATION: "low information",
    Flag.SECRET: "secret-like string",
    Flag.INSTRUCTION: "instruction to a model (review)",
}

#: The flags only the audit of a peer splitter sets (from ``chunk.metadata["peer_flags"]``).
PEER_FLAGS: tuple[Flag, ...] = (
    Flag.MISPLACED,
    Flag.AMBIGUOUS_PLACEMENT,
    Flag.TEXT_NOT_IN_SOURCE,
    Flag.WHITESPACE_CHANGED,
    Flag.OVER_PEER_LIMIT,
)


class Meta(StrEnum):
    """Metadata keys that more than one strategy (or a view) writes or reads."""

    SPLIT_UNIT = "split_unit"  # this chunk is a piece of a unit (sentence, paragraph, section, def) that was split
    OVER_SIZE_LIMIT = "over_size_limit"  # over the strategy's limit
    INDIVISIBLE = "indivisible"  # ... because one unit (a character, a row, a table) cannot be cut
    SEPARATOR = "separator"  # the separator string the recursive splitter cut at
    TOKEN_COUNT = "token_count"  # tokens of the chunk's own text
    HEADING_PATH = "heading_path"
    SECTION = "section"
    HEADING_LEVEL = "heading_level"
    UNITS = "units"
    SEGMENTER = "segmenter"
    SNAPPED = "snapped_to_character"
    NOTE = "note"
    KIND = "kind"


__all__ = [
    "BOUNDARY_LABELS",
    "BOUNDARY_STRENGTH",
    "Boundary",
    "FLAG_LABELS",
    "Flag",
    "Meta",
    "REASON_LABELS",
    "Reason",
]
