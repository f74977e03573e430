"""drawing/: pure drawing: chunks as escaped HTML over the text (render), its pages (paging), the
colours (palette), plotly figures (charts).

May import: chunkviz.core, chunkviz.text, chunkviz.document (the layers below it).
The order of the layers: LAYERS in tests/test_architecture.py.
"""
