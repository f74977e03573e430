"""Retrieval evaluation: which chunking retrieves best on a corpus and its questions.

``metrics`` holds the character-level scores (Chroma's recall, precision, IoU and precision_Ω,
and the guide's recall@k and MRR); ``retrieval`` ranks chunks for a query by exact cosine
similarity and maps child chunks to the parents a multi-level strategy returns; ``retrievers``
ranks them by dense, BM25 or hybrid retrieval (optionally reranked); ``questions``
reads and writes question files. No Streamlit here.

Layer evaluation: retrieval evaluation: metrics, retrievers, question files (questions) and their
generation (questiongen), summary embeddings, the playground, tuning, config (chunkviz.json). May
import: chunkviz.core, chunkviz.text, chunkviz.document, chunkviz.drawing, chunkviz.splitting,
chunkviz.llm, chunkviz.semantic, chunkviz.strategies, chunkviz.api, chunkviz.diagnostics (the layers
below it).
"""
