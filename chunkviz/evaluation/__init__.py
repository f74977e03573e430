"""Retrieval evaluation: which chunking retrieves best on a corpus and its questions.

``metrics`` holds the character-level scores (Chroma's recall, precision, IoU and precision_Ω,
and the guide's recall@k and MRR); ``retrieval`` ranks chunks for a query by exact cosine
similarity and maps child chunks to the parents a multi-level strategy returns; ``retrievers``
ranks them by dense, BM25 or hybrid retrieval (optionally reranked); ``questions``
reads and writes question files. No Streamlit here.
"""
