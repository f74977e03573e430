"""Helpers shared by the test modules, one module per idea.

``chunking`` (the span contract), ``texts`` (hypothesis settings, generators, fixed documents),
``hierarchy`` (section and hierarchy oracles), ``semantic`` (the topic document, a fake embedder),
``llm`` (the loopback chat-completions server), ``browser`` and ``browser_fixtures`` (Streamlit
server and Chromium), ``files`` (ZIP, DOCX and hostile files), ``paths`` (the shared data folder),
``network`` (recording network attempts). ``tests/conftest.py`` registers the modules that define
fixtures as plugins, so test modules import only the helpers they call.
"""
