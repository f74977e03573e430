"""text/: tokenizers (tokens as character offsets), exact span counts, a chunk's token counts, the
embedding models' input limits, many-query text search, credential-shaped strings (secrets), text
and names safe to print on a terminal (printable).

May import: chunkviz.core (the layers below it).
The order of the layers: LAYERS in tests/test_architecture.py.
"""
