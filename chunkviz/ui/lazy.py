"""Parts of the page drawn only when the user opens them: below the document view, tables, charts,
downloads and code cost the browser seconds to draw on a new visitor's first screen, so each sits
in an expander whose content runs (and is sent) only while it is open."""

from __future__ import annotations

from typing import Any

import streamlit as st


def opened_section(label: str, key: str, *, parent: Any = None) -> Any | None:
    """An expander that tracks its state (``st.session_state[key]``; set it to ``True`` to open it
    from code): the container to draw into while it is open, ``None`` while it is closed (its
    content is then neither run nor sent). ``parent``: where it goes (default: here)."""
    section = (parent or st).expander(label, key=key, on_change="rerun")
    return section if section.open else None
