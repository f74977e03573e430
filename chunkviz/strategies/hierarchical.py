"""Hierarchical chunking (seed 000 §13.5.2): chapters, sections and subsections indexed at once.

"Documents with nested structure (chapters contain sections contain subsections) can be chunked
at multiple levels simultaneously ... Both are indexed; retrieval chooses the appropriate level."

All chunks are returned in ONE list (the project's multi-level convention): ``index`` is the
position in the list, ``level`` 0 is the outermost, ``parent`` is the index of the enclosing
chunk (``None`` at level 0), and the list is ordered by level, then by start.

The rule (what the tests check)
-------------------------------
- A chunk's ``level`` is its **nesting depth in the heading tree** (the document structure's
  ``sections`` and their ``parent`` links), not its markup level: the top-level sections are
  level 0, their subsections level 1, and so on. An H3 directly under an H1 is that H1's
  level-1 child. ``depth`` (default 3: chapter / section / subsection) levels are built; deeper
  headings stay inside their level-``depth - 1`` section.
- Every chunk is a whole section in the §13.5.1 sense: from its heading to the next heading of
  the same or a higher level, subsections included. Its metadata has ``heading_path`` and
  ``section`` (the path joined with `` > ``).
- **Level 0 tiles the document**: the top-level sections, preceded (when it is not blank) by the
  text before the first heading as a level-0 chunk with ``heading_path == []`` and
  ``intro: True``; a blank preamble belongs to the first section instead. A document without
  headings is one level-0 chunk.
- **Children tile their parent, where children exist**: a chunk whose section has subsections
  (within ``depth``) gets, one level deeper, an *intro* child (from its own heading to its first
  subsection's heading; ``intro: True``) followed by one child per subsection.
- A chunk without subsections has **no children** (it is a *leaf*): a child equal to its parent
  would index the same text twice without being any finer. The *leaves* tile the document.

Size
----
``max_tokens`` (default 1000) only *flags*: a chunk over it gets ``over_size_limit: True`` but is
kept whole, because hierarchical chunking exists to keep whole sections so that a query can
match any granularity. With ``split_oversized=True`` the oversized *leaves* are split by the
engine (paragraph, line, word, character) into several chunks at the same level with the same
parent and ``heading_path``, marked ``split_unit``; only a single character over the limit
remains, flagged ``over_size_limit``/``indivisible``.

Reasons: ``unit_end`` where a chunk ends at a heading, ``end_of_document`` at the end,
``size_limit`` between the pieces of a split leaf.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from chunkviz.core.limits import refuse_as_counted
from chunkviz.core.types import Chunk
from chunkviz.core.vocabulary import Meta, Reason
from chunkviz.document.model import Document, is_blank
from chunkviz.splitting import Piece, to_chunks
from chunkviz.splitting.units import SECTION_SEPARATORS, split_unit, unit_splitter
from chunkviz.strategies.base import param, register
from chunkviz.strategies.headings import section_metadata
from chunkviz.text.spancount import shared_counter
from chunkviz.text.tokenizers import Tokenizer


@dataclass(frozen=True)
class HierarchicalParams:
    depth: int = param(
        3, "levels to build: 1 = chapters only, 3 = chapter / section / subsection", minimum=1, maximum=6
    )
    max_tokens: int = param(
        1000,
        "chunks over this many tokens are flagged over_size_limit (kept whole unless split_oversized)",
        minimum=1,
        maximum=100_000,
        unit="tokens",
    )
    split_oversized: bool = param(False, "split oversized leaf chunks (no subsections) at paragraphs, lines, words")


@dataclass
class _Node:
    start: int
    end: int
    level: int
    path: tuple[str, ...]
    heading_level: int
    parent: int | None  # node id
    intro: bool = False
    leaf: bool = True
    metadata: dict[str, object] = field(default_factory=dict)

    def piece(self) -> Piece:
        metadata = {**section_metadata(self.path, self.heading_level), **self.metadata}
        if self.intro:
            metadata["intro"] = True
        return Piece(self.start, self.end, Reason.UNIT_END, level=self.level, metadata=metadata)


def hierarchy_nodes(document: Document, depth: int) -> list[_Node]:
    """The tree of section chunks (node ``parent`` = node id), parents before their children."""
    text = document.text
    sections = document.structure.sections
    nodes: list[_Node] = []
    first = sections[0].start if sections else len(text)
    if text[:first].strip():
        nodes.append(_Node(0, first, 0, (), 0, None, intro=True))
    tree_depth: list[int] = []
    node_of: dict[int, int] = {}  # section index -> node id
    for i, s in enumerate(sections):
        d = 0 if s.parent is None else tree_depth[s.parent] + 1
        tree_depth.append(d)
        if d >= depth:
            continue
        parent_node = None if s.parent is None else node_of[s.parent]
        if parent_node is not None and nodes[parent_node].leaf:
            # the parent's first kept subsection: the parent's intro runs up to this heading
            p = nodes[parent_node]
            p.leaf = False
            nodes.append(_Node(p.start, s.start, p.level + 1, p.path, p.heading_level, parent_node, intro=True))
        node_of[i] = len(nodes)
        start = s.start if nodes else 0  # a blank preamble belongs to the first section
        nodes.append(_Node(start, s.end, d, s.path, s.heading.level, parent_node))
    return nodes


def _refuse_many_nodes(at_least: int, params: HierarchicalParams) -> None:

    refuse_as_counted(
        "hierarchical",
        at_least,
        f"this document's sections (depth {params.depth})",
        "Lower depth to index fewer levels, or chunk a smaller document",
    )


@register(
    "hierarchical",
    "Chapters, sections and subsections indexed at once (levels with parent links); each chunk a whole section with its heading path.",
    HierarchicalParams,
)
def hierarchical(document: Document, params: HierarchicalParams, tokenizer: Tokenizer) -> list[Chunk]:
    text = document.text
    if is_blank(text):
        return []
    counter = shared_counter(text, tokenizer)
    splitter = unit_splitter(text, counter, params.max_tokens, SECTION_SEPARATORS)
    pieces: list[tuple[int | None, Piece]] = []  # (node id of a piece kept whole, piece with node-id parent)
    nodes = hierarchy_nodes(document, params.depth)
    _refuse_many_nodes(len(nodes), params)  # every node is a chunk at least: refused before any is counted
    for nid, node in enumerate(nodes):
        piece = replace(node.piece(), parent=node.parent)
        if counter.count(node.start, node.end) <= params.max_tokens:
            pieces.append((nid, piece))
        elif not (params.split_oversized and node.leaf):
            pieces.append((nid, replace(piece, metadata={**piece.metadata, Meta.OVER_SIZE_LIMIT: True})))
        else:  # a leaf is nobody's parent, so its pieces need no node id
            parts = split_unit(splitter, node.start, node.end, Reason.UNIT_END, piece.metadata)
            pieces.extend((None, replace(part, level=node.level, parent=node.parent)) for part in parts)
        if node.leaf and params.split_oversized:  # as it goes: the pieces so far and a chunk per node to come
            _refuse_many_nodes(len(pieces) + len(nodes) - nid - 1, params)
    order = sorted(range(len(pieces)), key=lambda k: (pieces[k][1].level, pieces[k][1].start))
    index_of = {pieces[k][0]: pos for pos, k in enumerate(order) if pieces[k][0] is not None}
    ordered = [pieces[k][1] for k in order]
    return to_chunks(document, [p if p.parent is None else replace(p, parent=index_of[p.parent]) for p in ordered])


__all__ = ["HierarchicalParams", "hierarchical"]
