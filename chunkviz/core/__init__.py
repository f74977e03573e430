"""core/: the chunk and its words (types, vocabulary), errors, the one cache, time limits (deadline),
the guards of files and side files, the run's limits, JSON lines, argument types, explanations, byte
sizes, the bounded thread runner, the table of moved module names.

May import: nothing of chunkviz (the bottom layer).
The order of the layers: LAYERS in tests/test_architecture.py.
"""
