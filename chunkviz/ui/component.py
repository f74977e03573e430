"""How the app's custom components are declared: Streamlit components v2, inline (no iframe),
from the ``<stem>.js`` and ``<stem>.css`` files beside this module, with the renderer's
stylesheet first (each component draws chunk HTML from :mod:`chunkviz.drawing.render` inside its shadow
root; its own rules come after and win)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

_HERE = Path(__file__).resolve().parent


def component_css(stem: str) -> str:
    """The renderer's rules, then ``<stem>.css``."""
    from chunkviz.drawing.render import stylesheet_rules

    return stylesheet_rules() + "\n" + (_HERE / f"{stem}.css").read_text(encoding="utf-8")


@lru_cache(maxsize=None)
def inline_component(name: str, stem: str, html: str | None = None) -> Callable[..., Any]:
    """The mounting command of component ``name`` (registered once per process)."""
    import streamlit as st

    return st.components.v2.component(
        name, html=html, css=component_css(stem), js=component_js(stem), isolate_styles=True
    )


def component_js(stem: str) -> str:
    """The component's script: ``<stem>.js``, or the document view's files joined in their order."""
    if stem == "docview":
        from chunkviz.views.page import docview_js

        return docview_js()
    return (_HERE / f"{stem}.js").read_text(encoding="utf-8")
