"""Source code in many languages: the language table and the syntax outline of a source file.

:mod:`~chunkviz.document.code.languages` is the table (one entry per language: its file
extensions, its tree-sitter grammar package and the node kinds of its functions, classes and
comments); :mod:`~chunkviz.document.code.outline` parses a source with that grammar into an
outline of definitions and statements as exact character spans. Python is read by the standard
library's :mod:`ast` instead (:mod:`chunkviz.document.pysource`). The grammars are the ``code``
extra; without it nothing here is imported but the table. Imports only the document layer.
"""
