"""formats/: every reader of chunks and writer of outputs: export (records, CSV), interop (LangChain,
LlamaIndex), external/ (chunk files made elsewhere).

May import: chunkviz.core, chunkviz.text, chunkviz.document, chunkviz.drawing, chunkviz.splitting,
chunkviz.llm, chunkviz.semantic, chunkviz.strategies, chunkviz.api, chunkviz.diagnostics,
chunkviz.evaluation (the layers below it).
The order of the layers: LAYERS in tests/test_architecture.py.
"""
