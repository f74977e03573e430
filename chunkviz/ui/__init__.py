"""Streamlit custom components (components v2) of the app; each module registers one on import.

Importing this package imports no Streamlit; import the component module you need
(e.g. :mod:`chunkviz.ui.docview`).
"""
