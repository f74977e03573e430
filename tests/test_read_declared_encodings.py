"""A file's own encoding declaration is honoured before the fallbacks (issue 23 item 13): a Python
coding cookie (PEP 263, ``tokenize.detect_encoding``) and an HTML ``<meta charset>`` or
``<meta http-equiv="Content-Type">``; the note says which was used. Before, a ``shift_jis`` or
``koi8-r`` file was decoded as cp1252 into mojibake."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkviz.document.read import read_bytes
from chunkviz.document.readers.text import declared_encoding

#: (codec, text it can encode): other encodings than the issue's shift_jis and koi8-r too
SAMPLES = [
    ("shift_jis", "日本語のテキスト、句読点。"),
    ("koi8-r", "Съешь же ещё этих мягких французских булок"),
    ("euc-kr", "한국어 문장입니다"),
    ("gb2312", "中文文本示例"),
    ("iso-8859-7", "Ελληνικά κείμενα"),
    ("cp1251", "Українська мова: ґ, є, ї"),
    ("big5", "繁體中文"),
    ("iso-8859-2", "Zażółć gęślą jaźń"),
]
COOKIES = [
    "# -*- coding: {} -*-\n",
    "# vim: set fileencoding={} :\n",
    "#!/usr/bin/env python3\n# coding={}\n",
]


@pytest.mark.parametrize(("codec", "sample"), SAMPLES)
@pytest.mark.parametrize("cookie", COOKIES)
def test_python_coding_cookies_are_honoured(codec: str, sample: str, cookie: str) -> None:
    source = cookie.format(codec) + f'TEXT = "{sample}"\n\n\ndef f():\n    return TEXT\n'
    document = read_bytes(source.encode(codec), "module.py")
    assert document.text == source
    assert document.format == "python" and [b.title for b in document.extra_blocks] == ["f"]
    assert "(declared by its PEP 263 coding cookie)" in " ".join(document.notes)


@pytest.mark.parametrize(("codec", "sample"), SAMPLES)
@pytest.mark.parametrize(
    "meta",
    [
        '<meta charset="{}">',
        "<META CHARSET={}>",
        '<meta http-equiv="Content-Type" content="text/html; charset={}">',
        "<meta content='text/html;charset={}' http-equiv='content-type'>",
    ],
)
@pytest.mark.parametrize("name", ["page.html", "page"])  # by name, and sniffed without one
def test_html_meta_charsets_are_honoured(codec: str, sample: str, meta: str, name: str) -> None:
    page = f"<!DOCTYPE html><html><head>{meta.format(codec)}</head><body><h1>{sample}</h1><p>ok</p></body></html>"
    document = read_bytes(page.encode(codec), name)
    assert document.format == "html" and document.text == f"# {sample}\n\nok\n"
    tag = "<meta http-equiv>" if "http-equiv" in meta else "<meta charset>"
    assert f"(declared by its {tag})" in " ".join(document.notes)


def test_an_html_page_that_says_latin_1_is_read_as_windows_1252() -> None:
    """As browsers do (the HTML standard maps the label): curly quotes in 0x80-0x9f survive."""
    page = '<html><head><meta charset="ISO-8859-1"></head><body><p>“quoted” café</p></body></html>'
    document = read_bytes(page.encode("cp1252"), "old.htm")
    assert document.text == "“quoted” café\n" and document.encoding == "cp1252"


def test_a_byte_order_mark_wins_over_a_declaration() -> None:
    page = '<html><head><meta charset="koi8-r"></head><body><p>déjà</p></body></html>'
    document = read_bytes(b"\xef\xbb\xbf" + page.encode("utf-8"), "bom.html")
    assert document.text == "déjà\n" and "removed UTF-8 byte order mark" in document.notes


@pytest.mark.parametrize(
    ("data", "name", "note"),
    [
        (b"# coding: no-such-codec\nx = 1\n", "a.py", None),  # tokenize refuses it: the fallbacks read it
        (b'<html><head><meta charset="klingon"></head><body>x</body></html>', "a.html", "Python does not know it"),
        (b'<html><head><meta charset="utf-8"></head><body>caf\xe9</body></html>', "a.html", "invalid continuation"),
        (b'<html><head><meta charset="utf-16"></head><body>x</body></html>', "a.html", "the bytes are not UTF-16"),
    ],
)
def test_a_declaration_that_cannot_be_used_falls_back_with_a_note(data: bytes, name: str, note: str | None) -> None:
    document = read_bytes(data, name)
    assert document.text
    if note is not None:
        assert any(n.startswith("ignored the encoding") and note in n for n in document.notes), document.notes


def test_declarations_are_looked_for_only_where_they_mean_something() -> None:
    assert declared_encoding(b"# -*- coding: koi8-r -*-\n", "text") is None  # a .txt has no cookie
    assert declared_encoding(b"# -*- coding: koi8-r -*-\n", "python") == ("koi8-r", "its PEP 263 coding cookie")
    assert declared_encoding(b"x = 1\n", "python") is None
    assert declared_encoding(b'A note: <meta charset="koi8-r">', None) is None  # not an HTML page
    assert declared_encoding(b'<meta charset="koi8-r">', "markdown") is None


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(SAMPLES),
    st.text(alphabet=st.characters(codec="koi8-r", blacklist_categories=("Cs", "Cc")), max_size=40),
)
def test_generated_koi8_and_other_text_round_trips_through_its_declaration(sample: tuple[str, str], extra: str) -> None:
    codec, text = sample
    try:
        body = (text + extra).encode(codec)
    except UnicodeEncodeError:
        body = text.encode(codec)
        extra = ""
    source = f"# -*- coding: {codec} -*-\n".encode() + b"# " + body + b"\n"
    document = read_bytes(source, "gen.py")
    assert document.text == f"# -*- coding: {codec} -*-\n# {text}{extra}\n"
