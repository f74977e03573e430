"""chunkviz in the browser, from a clone: ``./dev app [FILE]`` or ``streamlit run app.py [FILE]``.

The page lives in the package (:mod:`chunkviz.ui.app`, what ``chunkviz app`` serves after
``pip install "chunkviz[app]"``); this file only runs it.
"""

from pathlib import Path

from chunkviz.ui.app import main

main(Path(__file__))
