"""Text and names made safe to print on a terminal: control characters and bidirectional
controls drawn as visible symbols, never written as they are (an ESC would start an escape
sequence). The one escaping of every terminal output: the terminal view, the commands' messages
and file names.
"""

from __future__ import annotations

import re

#: Control characters (but tab and line feed), DEL, C1 controls and the bidirectional
#: embeddings, overrides and isolates: what the terminal view never writes as it is.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_BIDI_NAMES = {
    "\u202a": "LRE",
    "\u202b": "RLE",
    "\u202c": "PDF",
    "\u202d": "LRO",
    "\u202e": "RLO",
    "\u2066": "LRI",
    "\u2067": "RLI",
    "\u2068": "FSI",
    "\u2069": "PDI",
}
#: What a name (of a file, a document) never shows as it is: the above, tab and line feed too,
#: and lone surrogates (the undecodable bytes of a file name).
_UNSAFE_IN_NAME = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def visible(text: str, following: str = "") -> str:
    """``text`` safe to write to a terminal: a CR before a LF dropped (CRLF shows as a line
    break; ``following`` is the character after ``text`` in the document), every other control
    character as its Unicode control picture (ESC as ``␛``), a C1 control as ``<U+009B>``, a
    bidirectional control as ``<RLO>``."""
    text = text.replace("\r\n", "\n")
    if following == "\n" and text.endswith("\r"):
        text = text[:-1]
    return _UNSAFE.sub(_picture, text) if _UNSAFE.search(text) else text


def visible_name(name: str) -> str:
    """A file or document name (or a message naming one) safe to print on one line: every
    control character shown as :func:`visible` shows it (ESC as ``␛``, a line feed as ``␊``),
    a lone surrogate as ``<U+DCxx>``."""
    return _UNSAFE_IN_NAME.sub(_picture, name) if _UNSAFE_IN_NAME.search(name) else name


def _picture(match: re.Match[str]) -> str:
    ch = match.group()
    code = ord(ch)
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    if ch in _BIDI_NAMES:
        return f"<{_BIDI_NAMES[ch]}>"
    return f"<U+{code:04X}>"


__all__ = ["visible", "visible_name"]
