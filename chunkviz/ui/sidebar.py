"""The app's sidebar: the document (sample, upload or paste), a shared configuration from the
URL, each column's strategy and generated controls, the flags' settings and the enrichment."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import streamlit as st

from chunkviz.core.errors import DocumentError
from chunkviz.core.limits import MAX_QUERY_VALUE_CHARS
from chunkviz.core.vocabulary import Flag
from chunkviz.diagnostics import DEFAULT_TINY_FRACTION
from chunkviz.diagnostics.compare import (
    ColumnConfig,
    SharedLinkError,
    config_from_query,
    language_from_query,
    model_from_query,
)
from chunkviz.diagnostics.hygiene import HYGIENE_EXPLANATIONS, HygieneRules
from chunkviz.document import Document
from chunkviz.document.language import AUTO, LANGUAGE_NAMES, language_name
from chunkviz.document.read import MAX_BYTES, accepted_formats
from chunkviz.strategies.base import get_strategy, registered
from chunkviz.text.models import (
    DEFAULT_EMBEDDING_MODEL,
    EMBEDDING_MODELS,
    ENDPOINT_PREFIX,
    ENV_MAX_INPUT_TOKENS,
    embedding_model,
    is_embedding_model,
)
from chunkviz.text.tokenizers import tokenizer_names
from chunkviz.ui.cached import cached_pasted, cached_read, cached_with_language
from chunkviz.ui.embedmodel import retrieval_model_control
from chunkviz.ui.keys import ColumnSettings, Enrichment
from chunkviz.ui.widgets import column_controls, kept


@dataclass(frozen=True)
class Page:
    """What the page file (app.py) decides for the sidebar: its own path (``./dev app FILE``
    passes FILE after it), the samples and the default one, the upload limit and the columns."""

    app_file: Path
    samples: Path
    default_sample: str
    max_upload_bytes: int
    max_columns: int
    default_columns: tuple[str, ...]


# --- input ------------------------------------------------------------------------------------
def sample_names(page: Page) -> list[str]:
    return sorted(p.name for p in page.samples.iterdir() if p.is_file() and p.name != "README.md")


def sample_label(name: str) -> str:
    """How the sample list shows ``name``: a file from the command line (an absolute path) by its name."""
    return f"{Path(name).name} (your file)" if Path(name).is_absolute() else name


def command_line_file(page: Page) -> Path | None:
    """``./dev app FILE`` passes FILE after the script: only trust argv when it is this app's."""
    argv = sys.argv
    if len(argv) > 1 and Path(argv[0]).resolve() == page.app_file.resolve() and Path(argv[1]).is_file():
        return Path(sys.argv[1]).resolve()
    return None


def sample_choices(page: Page) -> tuple[list[str], str]:
    """The sample list (the file given on the command line, ``./dev app FILE``, first) and the one a
    new visitor sees: that file, else the page's default sample."""
    names = sample_names(page)
    given = command_line_file(page)
    if given is not None:
        return [str(given), *names], str(given)
    return names, page.default_sample if page.default_sample in names else names[0]


def read_sample(page: Page, name: str) -> tuple[Document, str, bool]:
    """The sample ``name`` (or the command line's file, an absolute path) as :func:`read_input` returns it."""
    path = Path(name) if Path(name).is_absolute() else page.samples / name
    shown = str(path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path)
    return cached_read(path.read_bytes(), path.name, MAX_BYTES), shown, not Path(name).is_absolute()


def first_document(page: Page) -> tuple[Document, str]:
    """What a new visitor's page shows before anything is chosen: the first sample choice, read."""
    document, shown, _ = read_sample(page, sample_choices(page)[1])
    return document, shown


def upload_label(max_upload_bytes: int) -> str:
    """The document uploader's label: the file types the readers take and the app's size limit."""
    return f"A document ({accepted_formats()}; up to {max_upload_bytes // 1_000_000} MB)"


def read_input(page: Page) -> tuple[Document | None, str, bool]:
    """The document chosen in the sidebar, a name usable in commands, and whether that name
    can be shared in a URL (samples only)."""
    sidebar = st.sidebar
    sidebar.header("Document")
    source = sidebar.radio("Source", ["Sample", "Upload", "Paste"], key="source", horizontal=True)
    if source == "Sample":
        names, first = sample_choices(page)
        if st.session_state.get("sample") not in names:
            st.session_state["sample"] = first
        name = sidebar.selectbox("Sample document", names, key="sample", format_func=sample_label)
        return read_sample(page, name)
    if source == "Upload":
        upload = sidebar.file_uploader(
            upload_label(page.max_upload_bytes),
            key="upload",
        )
        if upload is None:
            st.info("Choose a file in the sidebar to see it chunked.")
            return None, "", False
        return cached_read(upload.getvalue(), upload.name, page.max_upload_bytes), upload.name, False
    pasted = sidebar.text_area("Paste text", key="paste", height=200)
    if len(pasted.encode("utf-8", "surrogatepass")) > page.max_upload_bytes:
        raise DocumentError(f"pasted text is over the app's limit of {page.max_upload_bytes // 1_000_000} MB")
    return cached_pasted(pasted), "document.txt", False


#: Session state: the document the language control was last drawn for (another one: detect again).
LANGUAGE_OF = "_language_of"
#: Session state: the language a shared link gives the document it opens (:func:`init_from_url`).
SHARED_LANGUAGE = "_shared_language"


def language_control(document: Document) -> Document:
    """The document's language in the sidebar: detected (with its confidence), or one chosen,
    which the document the views read then has. A new document starts detected again (or in the
    language its shared link gives)."""
    # a run that drew no document drops the widget's key (Streamlit forgets an undrawn widget)
    if st.session_state.get(LANGUAGE_OF) != document.digest or "language" not in st.session_state:
        st.session_state[LANGUAGE_OF] = document.digest
        st.session_state["language"] = st.session_state.pop(SHARED_LANGUAGE, None) or AUTO
    guess = document.language_guess
    detected = f"auto: {language_name(guess.code)}, {guess.brief()}"  # e.g. "auto: Japanese, detected 99%"
    options = [AUTO, *sorted(LANGUAGE_NAMES, key=language_name)]
    for code in (guess.code, st.session_state["language"]):
        if code not in options:
            options.append(code)
    chosen = st.sidebar.selectbox(
        "Language",
        options,
        key="language",
        format_func=lambda code: detected if code == AUTO else f"{language_name(code)} ({code})",
        help="It chooses the sentence segmenter (spaCy for English, sentencex for other languages), which the "
        "sentence-aware strategies, the semantic strategy and the 'cuts a sentence' flag read.",
    )
    return document if chosen == AUTO else cached_with_language(document, chosen)


# --- configuration ------------------------------------------------------------------------------
#: A configuration to apply on the next run as a shared URL is (:func:`load_shared`).
SHARED_QUERY = "_shared_query"


def load_shared(query: dict[str, str]) -> None:
    """Apply ``query`` (URL parameters, as :func:`chunkviz.diagnostics.compare.config_to_query` writes them) on
    the next page run, as a shared URL is applied: its columns' controls are seeded from it again."""
    st.session_state[SHARED_QUERY] = dict(query)


def init_from_url(page: Page) -> None:
    """Apply a shared configuration from the URL once per session (and one :func:`load_shared` gave).
    A link whose settings cannot be read gets a one-line message and the default page."""
    pending = st.session_state.pop(SHARED_QUERY, None)
    if st.session_state.get("_url_applied") and pending is None:
        return
    st.session_state["_url_applied"] = True
    query = pending if pending is not None else st.query_params.to_dict()
    try:
        doc, tokenizer, columns = config_from_query(query, page.max_columns)
        language = language_from_query(query)
    except SharedLinkError as exc:
        st.warning(f"This link's settings could not be read, so the page shows its defaults: {exc}")
        return
    if language is not None:  # given to the document this link opens (or the one open now)
        st.session_state[SHARED_LANGUAGE] = language
        st.session_state.pop(LANGUAGE_OF, None)
    if pending is not None:  # the columns' controls were seeded before: forget them, so they are seeded again
        for key in [k for k in st.session_state if any(str(k).startswith(f"col{i}.") for i in range(len(columns)))]:
            if not str(key).endswith(".open"):
                del st.session_state[key]
    if doc and doc in sample_names(page):
        st.session_state["sample"] = doc
    if tokenizer in tokenizer_names():
        st.session_state["tokenizer"] = tokenizer
    st.session_state["embedding_model"] = model_from_query(query)
    if columns:
        st.session_state["n_columns"] = len(columns)
        st.session_state["_url_params"] = {i: dict(c.params) for i, c in enumerate(columns)}
        st.session_state["_url_tokenizers"] = {i: c.tokenizer for i, c in enumerate(columns)}
        for i, col in enumerate(columns):
            st.session_state[f"col{i}.strategy"] = col.strategy


def choose_columns(page: Page, tokenizer: str) -> list[ColumnConfig]:
    """Strategy and parameter controls for each column, drawn where the caller is (the app: a
    container in the sidebar, from its columns fragment). A combination the
    strategy rejects (typed on the way to a valid one) is explained under its control while the
    column keeps its last good settings."""
    names = [s.name for s in registered()]
    st.header("Strategies")
    st.session_state.setdefault("n_columns", len(page.default_columns))
    n = st.number_input("Columns", min_value=1, max_value=page.max_columns, key="n_columns")
    url_params = st.session_state.get("_url_params", {})
    url_tokenizers = st.session_state.get("_url_tokenizers", {})
    columns = []
    for i in range(int(n)):
        key = f"col{i}.strategy"
        if key not in st.session_state:
            st.session_state[key] = page.default_columns[i] if i < len(page.default_columns) else names[0]
        section = column_section(i)
        with section:
            if section.open:
                name = st.selectbox("Strategy", names, key=key, help=get_strategy(st.session_state[key]).description)
            else:
                name = kept(key)
            choice = column_controls(
                f"col{i}",
                get_strategy(name),
                url_params.get(i, {}),
                tokenizer=tokenizer,
                given_tokenizer=url_tokenizers.get(i),
                drawn=section.open,
            )
        columns.append(ColumnConfig(name, choice.params, choice.tokenizer))
    return columns


def column_key(i: int) -> str:
    """The session-state key of column ``i``'s section: ``True`` while it is open."""
    return f"col{i}.open"


def column_section(i: int) -> Any:
    """Column ``i``'s section in the sidebar, open at first for the first column only. A closed
    one draws no control (a new visitor's page sends and draws a third of them); its column
    keeps its settings, and opening it reruns the columns fragment, which draws them."""
    st.session_state.setdefault(column_key(i), i == 0)
    return st.expander(f"Column {i + 1}", key=column_key(i), on_change="rerun")


#: What :func:`model_settings` gives before anything is changed.
DEFAULT_SETTINGS = ColumnSettings(DEFAULT_EMBEDDING_MODEL, DEFAULT_TINY_FRACTION)


def model_settings() -> ColumnSettings:
    """The embedding model whose input limit the flags check, and the tiny-chunk rule."""
    sidebar = st.sidebar
    sidebar.header("Flags")
    names = list(EMBEDDING_MODELS)
    current = st.session_state.setdefault("embedding_model", DEFAULT_SETTINGS.embedding_model)
    if current not in names:  # an endpoint's model (openai:MODEL), typed below or from a shared link
        names.append(current)
    model = sidebar.selectbox(
        "Embedding model (its input limit)",
        names,
        key="embedding_model",
        format_func=lambda name: embedding_model(name).label(),
        help="Chunks longer than this model reads are flagged 'over model limit'.",
    )
    sidebar.text_input(
        "…or a model on an OpenAI-compatible endpoint",
        key=ENDPOINT_MODEL_KEY,
        placeholder="openai:text-embedding-3-small",
        on_change=_use_endpoint_model,
        help=f"openai:MODEL: OpenAI's models have their limits; any other model's is {ENV_MAX_INPUT_TOKENS} "
        "(512 when unset), counted with cl100k (approximate).",
    )
    if st.session_state.get(ENDPOINT_MODEL_ERROR_KEY):
        sidebar.warning(st.session_state[ENDPOINT_MODEL_ERROR_KEY])
    retrieval_model_control(sidebar, model)
    st.session_state.setdefault("tiny_on", DEFAULT_SETTINGS.tiny_fraction is not None)
    tiny = sidebar.checkbox(
        "Flag tiny chunks (under a quarter of the size asked for)",
        key="tiny_on",
        help="Small chunks carry little context and retrieve worse; the rule is relative to each strategy's size setting.",
    )
    return ColumnSettings(model, DEFAULT_TINY_FRACTION if tiny else None, hygiene=hygiene_controls())


def hygiene_controls() -> HygieneRules:
    """The hygiene flags' thresholds: is each chunk worth indexing?"""
    sidebar = st.sidebar
    base = HygieneRules()
    with sidebar.expander("Hygiene flags (duplicates, boilerplate, secrets …)"):
        near = st.slider(
            "Near duplicate: share of word triples shared",
            0.5,
            1.0,
            float(base.near_duplicate or 0.8),
            0.05,
            key="hygiene.near_duplicate",
            help=HYGIENE_EXPLANATIONS[Flag.NEAR_DUPLICATE],
        )
        places = st.number_input(
            "Boilerplate: a line recurring at this many places",
            2,
            1000,
            int(base.boilerplate or 4),
            key="hygiene.boilerplate",
            help=HYGIENE_EXPLANATIONS[Flag.BOILERPLATE],
        )
        words = st.number_input(
            "Low information: under this many content words (0: off)",
            0,
            50,
            int(base.low_information or 0),
            key="hygiene.low_information",
            help=HYGIENE_EXPLANATIONS[Flag.LOW_INFORMATION],
        )
        duplicate = st.checkbox("Duplicates", True, key="hygiene.duplicate", help=HYGIENE_EXPLANATIONS[Flag.DUPLICATE])
        secret = st.checkbox("Secret-like strings", True, key="hygiene.secret", help=HYGIENE_EXPLANATIONS[Flag.SECRET])
        instruction = st.checkbox(
            "Instructions to a model", True, key="hygiene.instruction", help=HYGIENE_EXPLANATIONS[Flag.INSTRUCTION]
        )
    return HygieneRules(duplicate, float(near), int(places), int(words) or None, secret, instruction)


ENDPOINT_MODEL_KEY = "embedding_model_endpoint"
ENDPOINT_MODEL_ERROR_KEY = "embedding_model_endpoint_error"


def _use_endpoint_model() -> None:
    """The typed ``openai:MODEL`` (the prefix may be left out) becomes the selected model."""
    typed = (st.session_state.get(ENDPOINT_MODEL_KEY) or "").strip()
    st.session_state[ENDPOINT_MODEL_ERROR_KEY] = None
    if not typed:
        return
    name = typed if typed.lower().startswith(ENDPOINT_PREFIX) else ENDPOINT_PREFIX + typed
    if len(name) > MAX_QUERY_VALUE_CHARS or not is_embedding_model(name):
        st.session_state[ENDPOINT_MODEL_ERROR_KEY] = f"{typed!r} is not a model name: type openai:MODEL"
        return
    st.session_state["embedding_model"] = name


def enrichment_controls(doc_name: str) -> Enrichment | None:
    """Sidebar controls for enrichment (the metadata prefix, contextual retrieval); None: off."""
    st.sidebar.header("Enrichment")
    on = st.sidebar.checkbox(
        "Prefix chunks with document, section and date",
        key="enrich",
        help="Adds a 'Document: … / Section: … / Date: …' prefix to each chunk as added text (not part of the span) "
        "and counts what the embedding model then reads.",
    )
    contextual = st.sidebar.checkbox(
        "Contextual retrieval (LLM): the model writes 2–3 sentences placing each chunk in the document",
        key="enrich.contextual",
        help="Added text in front of each chunk (drawn as inserted text, its tokens counted; flagged when it pushes a chunk "
        "over the embedding model's limit). One call per chunk, cached; the page asks before calling.",
    )
    if not on and not contextual:
        return None
    if not on:
        return Enrichment(metadata=False, contextual=contextual)
    title = st.sidebar.text_input("Document title (empty: first heading or file name)", key="enrich.title")
    date = st.sidebar.text_input("Date", key="enrich.date")
    return Enrichment(True, contextual, Path(doc_name).name, title or None, date or None)
