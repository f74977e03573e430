"""Portable views of a comparison, without Streamlit: the same renderer (render.py's HTML,
docview.css, the docview*.js scripts joined by views/page.py) in a static report file and in a notebook cell.

- :mod:`~chunkviz.views.docview`: the document view's payload (pure; the app's component sends the same);
- :mod:`~chunkviz.views.build`: columns run and drawn as the app's Compare view draws them;
- :mod:`~chunkviz.views.semantic`: a semantic column's plot and the tables its slider re-cuts from;
- :mod:`~chunkviz.views.page`: the self-contained HTML (report page, notebook fragment);
- :mod:`~chunkviz.cli.report`: ``chunkviz report``.

Layer views: the views outside Streamlit: the report and notebook (build, page, docview payload,
semantic), the terminal view. May import: chunkviz.core, chunkviz.text, chunkviz.document,
chunkviz.drawing, chunkviz.splitting, chunkviz.llm, chunkviz.semantic, chunkviz.strategies,
chunkviz.api, chunkviz.diagnostics, chunkviz.evaluation, chunkviz.formats (the layers below it).
"""
