"""ZIP-based formats (DOCX, PPTX, XLSX, EPUB): the sizes an archive declares, checked before
anything is inflated.

A ZIP's XML can inflate a thousandfold (2.4 MB of ZIP to 1 GB of XML), and an archive may hold
hundreds of thousands of empty entries that a reader would list and open one by one. Before a
reader opens an archive, :func:`check_archive` counts its entries and adds up the sizes the
archive declares for the parts the reader will inflate; Python's ``zipfile`` never inflates a
member past its declared size (a member that lies fails its CRC check), so the declared sizes
bound the work.
"""

from __future__ import annotations

import io
import zipfile
from typing import Callable

from chunkviz.core.errors import DocumentError
from chunkviz.core.sizes import format_size

#: Most entries an archive may hold (a long EPUB has a few hundred; a workbook a few dozen).
MAX_ENTRIES = 10_000

XML_SUFFIXES = (".xml", ".rels")


def is_xml_part(filename: str) -> bool:
    """Whether an archive member is one of the XML parts an Office reader inflates."""
    return filename.lower().endswith(XML_SUFFIXES)


def check_archive(
    data: bytes,
    name: str,
    limit: int,
    counted: Callable[[str], bool] = is_xml_part,
    parts: str = "its XML",
) -> None:
    """Refuse an archive of more than :data:`MAX_ENTRIES` entries, or whose ``counted`` members
    declare more than ``limit`` bytes in total (``parts`` names them in the message), before
    any of them is inflated. An archive that cannot be listed is left to its reader's message."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return
    if len(members) > MAX_ENTRIES:
        raise DocumentError(
            f"{name} is an archive of {len(members):,} entries; the limit is {MAX_ENTRIES:,}. "
            "Split the document, or save it as plain text or Markdown first"
        )
    inflated = sum(m.file_size for m in members if counted(m.filename))
    if inflated > limit:
        raise DocumentError(
            f"{name} is too large once unpacked: {parts} inflates to {format_size(inflated)} "
            f"({inflated:,} bytes) from {format_size(len(data))}; the limit is {format_size(limit)}. "
            "Split the document, or save it as plain text or Markdown first"
        )
