"""Documents: reading bytes into text, and the structure built once per document.

Layer document: reading (readers/ per format) and the structure built once per document: lines,
blocks, sections, sentences, language; the document context enrichment adds to a chunk. May import:
chunkviz.core, chunkviz.text (the layers below it).
"""

from chunkviz.document.blocks import Block, LeafSection, Section
from chunkviz.document.model import FORMATS, Document, as_document, is_blank
from chunkviz.document.read import read_bytes, read_path
from chunkviz.document.structure import Structure

__all__ = [
    "Block",
    "Document",
    "FORMATS",
    "LeafSection",
    "Section",
    "Structure",
    "as_document",
    "is_blank",
    "read_bytes",
    "read_path",
]
