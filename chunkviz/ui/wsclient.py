"""A Streamlit client that is not a browser: it speaks the app's own websocket protocol.

A browser tab on a Streamlit app is a websocket on ``/_stcore/stream`` (subprotocol ``streamlit``)
that carries protobufs: the tab sends ``BackMsg``s (``rerun_script`` with a ``ClientState``: the
URL's query string, every widget's value, the page, the fragment to rerun) and the server answers
with ``ForwardMsg``s (``new_session`` when a run starts, one ``delta`` per element or block at its
``delta_path``, ``script_finished`` when it ends). :class:`Session` does what the tab does,
without drawing anything: it opens the stream, runs the script as a new visitor, keeps the element
tree the server sent (widgets with their ids, labels, user keys and current values, component
payloads, exception and error boxes), sets a widget by its key or label and reruns (only its
fragment when the widget lives in one, as the frontend does), and times each run from the request
to its ``script_finished``. N sessions then cost the machine what N students cost the server.

Loopback only (127.0.0.1, localhost, ::1), no proxy, and every wait is bounded by a timeout.
What it does not do: run the components' JavaScript (a component that reports a value on mount
never does here), upload files, or follow ``st.switch_page``.

    async with Session.open("http://127.0.0.1:8501/?doc=api_guide.md") as session:
        first = await session.run()
        changed = await session.set("col0.fixed_tokens.chunk_size", 200)
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import threading
import time
import urllib.parse
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, AsyncIterator

from streamlit.proto.Alert_pb2 import Alert
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.proto.Element_pb2 import Element as ElementProto
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from streamlit.runtime.state.common import user_key_from_element_id
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.typing import Subprotocol

from chunkviz.views.docview import PAINTED_KEY

#: A document view's data that asks to be answered as a first screen (``"first_paint": true``).
FIRST_PAINT_ON = re.compile(r'"first_paint"\s*:\s*true\b')
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
STREAM_PATH = "_stcore/stream"
#: The websocket subprotocol the frontend asks for (Streamlit reads tokens from the entries after it).
SUBPROTOCOL = Subprotocol("streamlit")
DEFAULT_TIMEOUT_S = 120.0
#: Largest ForwardMsg accepted: a long document's view is one message of several megabytes.
MAX_MESSAGE_BYTES = 256 * 1024 * 1024
#: Cacheable messages kept by hash, so that reruns are answered with references (as the frontend does).
MAX_CACHED_MESSAGES = 2000
#: Element kinds that hold a value the client sends back on every rerun.
VALUE_WIDGETS = frozenset(
    {
        "number_input",
        "selectbox",
        "radio",
        "slider",
        "text_input",
        "text_area",
        "checkbox",
        "button_group",
        "multiselect",
        "expander",  # an expander with state (``st.expander(key=..., on_change=...)``): open or closed
    }
)
#: Element kinds whose value is a one-shot trigger (sent once, on the click).
TRIGGER_WIDGETS = frozenset({"button"})
FINISHED: dict[int, str] = {
    ForwardMsg.FINISHED_SUCCESSFULLY: "finished",
    ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY: "fragment finished",
    ForwardMsg.FINISHED_WITH_COMPILE_ERROR: "compile error",
}


class WsClientError(RuntimeError):
    """The server refused, closed or did not answer in time, or a widget was not found or given a
    value it cannot take (the message says which and what to do)."""


# ----------------------------------------------------------------------------- addresses
def stream_url(url: str) -> str:
    """The websocket address of the app at ``url`` (``http://host:port/base/?query``), refusing any
    host that is not loopback: this client is for benchmarks and tests on the same machine."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https", "ws", "wss"):
        raise WsClientError(f"{url!r}: give the app's http:// address, e.g. http://127.0.0.1:8501")
    if parts.hostname not in LOOPBACK_HOSTS:
        raise WsClientError(
            f"{url!r}: this client only connects to loopback ({', '.join(sorted(LOOPBACK_HOSTS))}); "
            "run the load where the server runs"
        )
    scheme = "wss" if parts.scheme in ("https", "wss") else "ws"
    base = parts.path.rstrip("/")
    return urllib.parse.urlunsplit((scheme, parts.netloc, f"{base}/{STREAM_PATH}", "", ""))


def query_string(url: str) -> str:
    """The query string of ``url`` without the ``?`` (what the frontend sends as the page's)."""
    return urllib.parse.urlsplit(url).query


# ----------------------------------------------------------------------------- the element tree
@dataclass
class Element:
    """One element the server sent: its kind (the ``Element`` proto's field name: ``markdown``,
    ``number_input``, ``bidi_component`` ...), that field's proto, where it sits (``delta_path``)
    and in which run and fragment it was sent."""

    kind: str
    proto: Any
    path: tuple[int, ...]
    run_id: str
    fragment_id: str = ""

    @property
    def id(self) -> str:
        """The widget id (``$$ID-<hash>-<key>``), empty for elements that are not widgets."""
        return str(getattr(self.proto, "id", ""))

    @property
    def key(self) -> str | None:
        """The widget's user key (``key=`` in the script), None without one."""
        return user_key_from_element_id(self.id) if self.id else None

    @property
    def label(self) -> str:
        return str(getattr(self.proto, "label", ""))

    @property
    def is_widget(self) -> bool:
        return self.kind in VALUE_WIDGETS or self.kind in TRIGGER_WIDGETS

    @property
    def in_sidebar(self) -> bool:
        return self.path[:1] == (1,)

    @property
    def text(self) -> str:
        """What it shows as text: a markdown, heading or alert body, an exception's type and message."""
        if self.kind == "exception":
            return f"{self.proto.type}: {self.proto.message}"
        return str(getattr(self.proto, "body", ""))

    @property
    def payload(self) -> str:
        """A custom component's JSON data (components v2: ``json`` or ``mixed.json``), else empty."""
        if self.kind != "bidi_component":
            return ""
        return str(self.proto.json or self.proto.mixed.json)

    @property
    def is_error(self) -> bool:
        """An exception box or an ``st.error`` box."""
        return self.kind == "exception" or (self.kind == "alert" and self.proto.format == Alert.ERROR)


@dataclass(frozen=True)
class RunResult:
    """One script run as the client saw it: seconds from the request to ``script_finished``, how
    it finished, the exception and error boxes sent during it, and the traffic."""

    seconds: float
    status: str
    exceptions: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    messages: int = 0
    received_bytes: int = 0

    @property
    def raised(self) -> bool:
        """Whether the run sent an exception box (or failed to compile)."""
        return bool(self.exceptions) or self.status == "compile error"

    def then(self, after: RunResult) -> RunResult:
        """This run and the one it made the client ask for right after (a first screen's whole
        page), as one: the seconds of both, how the second finished, everything both sent."""
        return RunResult(
            seconds=self.seconds + after.seconds,
            status=after.status,
            exceptions=self.exceptions + after.exceptions,
            errors=self.errors + after.errors,
            messages=self.messages + after.messages,
            received_bytes=self.received_bytes + after.received_bytes,
        )


@dataclass
class _Run:
    """What is being received for the run in progress."""

    began: float
    run_id: str = ""
    fragment_ids: tuple[str, ...] = ()
    exceptions: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    messages: int = 0
    received_bytes: int = 0


def _is_under(path: tuple[int, ...], parent: tuple[int, ...]) -> bool:
    return len(path) > len(parent) and path[: len(parent)] == parent


# ----------------------------------------------------------------------------- widget values
def _options(element: Element) -> list[str]:
    if element.kind == "button_group":
        return [option.content for option in element.proto.options]
    return list(element.proto.options)


def initial_value(element: Element) -> Any:
    """A widget's value as the server sent it: the value it set (``set_value``) or its default."""
    proto, kind = element.proto, element.kind
    if kind in ("selectbox", "radio"):
        if proto.set_value:
            return proto.raw_value or None
        return proto.options[proto.default] if proto.HasField("default") and proto.options else None
    if kind == "button_group":
        chosen = list(proto.raw_values) if proto.set_value else [_options(element)[i] for i in proto.default]
        return chosen
    if kind == "multiselect":
        return list(proto.raw_values) if proto.set_value else [proto.options[i] for i in proto.default]
    if kind == "slider":
        values = list(proto.value) if proto.set_value else list(proto.default)
        return values[0] if len(values) == 1 else values
    if kind == "number_input":
        number = proto.value if proto.set_value else proto.default
        return int(number) if proto.data_type == proto.INT else float(number)
    if kind in ("text_input", "text_area"):
        return proto.value if proto.set_value else proto.default
    if kind == "checkbox":
        return bool(proto.value if proto.set_value else proto.default)
    if kind == "expander":
        return bool(proto.expanded)
    return None


def checked_value(element: Element, value: Any) -> Any:
    """``value`` in the form the widget holds it, or :class:`WsClientError` saying what it accepts."""
    kind, proto, name = element.kind, element.proto, element.key or element.label
    if kind in ("selectbox", "radio"):
        if (
            value is not None
            and str(value) not in _options(element)
            and not getattr(proto, "accept_new_options", False)
        ):
            raise WsClientError(f"{kind} {name!r} has no option {value!r}; its options: {_options(element)}")
        return None if value is None else str(value)
    if kind in ("button_group", "multiselect"):
        chosen = [value] if isinstance(value, str) else list(value or [])
        unknown = [v for v in chosen if v not in _options(element)]
        if unknown:
            raise WsClientError(f"{kind} {name!r} has no option {unknown}; its options: {_options(element)}")
        return chosen
    if kind in ("number_input", "slider"):
        numbers = list(value) if isinstance(value, (list, tuple)) else [value]
        for number in numbers:
            _check_number(element, number)
        return numbers if isinstance(value, (list, tuple)) else numbers[0]
    if kind in ("text_input", "text_area"):
        return str(value)
    if kind in ("checkbox", "expander"):
        return bool(value)
    raise WsClientError(f"{name!r} is a {kind}, whose value this client cannot set")


def _bounds(element: Element) -> tuple[float | None, float | None]:
    """A number input's or slider's (min, max); None on an open side."""
    proto = element.proto
    if element.kind == "slider":
        return proto.min, proto.max
    return (proto.min if proto.has_min else None), (proto.max if proto.has_max else None)


def _check_number(element: Element, number: Any) -> None:
    name = element.key or element.label
    if not isinstance(number, (int, float)) or isinstance(number, bool):
        raise WsClientError(f"{element.kind} {name!r} takes numbers, not {number!r}")
    if element.kind == "number_input" and element.proto.data_type == element.proto.INT and number != int(number):
        raise WsClientError(f"number_input {name!r} takes whole numbers, not {number!r}")
    low, high = _bounds(element)
    if (low is not None and number < low) or (high is not None and number > high):
        shown = f"{'-inf' if low is None else f'{low:g}'} to {'inf' if high is None else f'{high:g}'}"
        raise WsClientError(f"{element.kind} {name!r} takes {shown}, not {number!r}")


def widget_state(element: Element, value: Any) -> WidgetState:
    """The ``WidgetState`` the frontend sends for ``element`` holding ``value``."""
    state = WidgetState(id=element.id)
    kind, proto = element.kind, element.proto
    if kind in TRIGGER_WIDGETS:
        state.trigger_value = bool(value)
    elif kind in ("selectbox", "radio", "text_input", "text_area"):
        if value is not None:
            state.string_value = value
    elif kind in ("button_group", "multiselect"):
        state.string_array_value.data[:] = value
    elif kind == "slider":
        state.double_array_value.data[:] = [float(v) for v in (value if isinstance(value, list) else [value])]
    elif kind == "number_input":
        if proto.data_type == proto.INT:
            state.int_value = int(value)
        else:
            state.double_value = float(value)
    elif kind in ("checkbox", "expander"):
        state.bool_value = bool(value)
    return state


# ----------------------------------------------------------------------------- the session
class Session:
    """One visitor of a Streamlit app over its websocket (see the module's docstring).

    Open it with :meth:`open` (an async context manager), then :meth:`run` once as a new visitor,
    then :meth:`set` or :meth:`click` widgets; each returns a :class:`RunResult`. The tree the
    server sent so far: :attr:`elements`, :meth:`widget`, :meth:`value`, :meth:`components`,
    :meth:`error_boxes`."""

    def __init__(self, connection: ClientConnection, url: str, timeout_s: float) -> None:
        self._connection = connection
        self.url = url
        self.timeout_s = timeout_s
        self.query_string = query_string(url)
        self.page_script_hash = ""
        self._tree: dict[tuple[int, ...], Element] = {}
        self._blocks: dict[tuple[int, ...], tuple[str, str]] = {}  # path -> (run id, fragment id)
        self._values: dict[str, Any] = {}  # widget id -> value
        self._states: dict[str, dict[str, Any]] = {}  # custom component id -> the state its script set
        self._cache: OrderedDict[str, ForwardMsg] = OrderedDict()
        self._run: _Run | None = None
        self._script_running = False

    # --- opening and closing
    @classmethod
    @contextlib.asynccontextmanager
    async def open(cls, url: str, *, timeout_s: float = DEFAULT_TIMEOUT_S) -> AsyncIterator[Session]:
        """``async with Session.open(url) as session``: connected to the app at ``url`` (loopback
        only) inside the block, closed after it."""
        session = await cls.connect(url, timeout_s=timeout_s)
        try:
            yield session
        finally:
            await session.close()

    @classmethod
    async def connect(cls, url: str, *, timeout_s: float = DEFAULT_TIMEOUT_S) -> Session:
        """Connect to the app at ``url`` (loopback only); :meth:`close` it when done."""
        address = stream_url(url)
        try:
            connection = await connect(
                address,
                subprotocols=[SUBPROTOCOL],
                proxy=None,
                open_timeout=timeout_s,
                close_timeout=5,
                max_size=MAX_MESSAGE_BYTES,
                max_queue=None,
            )
        except (OSError, TimeoutError) as exc:
            raise WsClientError(f"could not open {address}: {exc}; is the app running there?") from exc
        return cls(connection, url, timeout_s)

    async def close(self) -> None:
        await self._connection.close()

    # --- what the server sent
    @property
    def elements(self) -> list[Element]:
        """The elements on the page, in page order (main area first, then the sidebar)."""
        return [self._tree[path] for path in sorted(self._tree)]

    def widgets(self) -> list[Element]:
        return [e for e in self.elements if e.is_widget]

    def widget(self, name: str) -> Element:
        """The widget whose user key is ``name`` or, when no key matches, whose label is ``name``
        (that label must be unique on the page)."""
        widgets = self.widgets()
        by_key = [w for w in widgets if w.key == name]
        if by_key:
            return by_key[0]
        by_label = [w for w in widgets if w.label == name]
        if len(by_label) == 1:
            return by_label[0]
        if by_label:
            raise WsClientError(f"{len(by_label)} widgets are labelled {name!r}: name one by its key")
        known = sorted({w.key or w.label for w in widgets})
        raise WsClientError(f"no widget with key or label {name!r} on the page; there are: {known}")

    def value(self, name: str) -> Any:
        """The value the client holds (and sends) for the widget ``name``."""
        return self._values.get(self.widget(name).id)

    def components(self, name: str | None = None) -> list[Element]:
        """Custom components (components v2) on the page, those named ``name`` when given."""
        found = [e for e in self.elements if e.kind == "bidi_component"]
        return [e for e in found if name is None or e.proto.component_name == name]

    def texts(self, kind: str = "markdown") -> list[str]:
        return [e.text for e in self.elements if e.kind == kind]

    def error_boxes(self) -> list[str]:
        """The exception and ``st.error`` boxes on the page now."""
        return [e.text for e in self.elements if e.is_error]

    # --- runs
    async def run(
        self, *, fragment_id: str = "", triggers: dict[str, bool] | None = None, answer_first_paint: bool = True
    ) -> RunResult:
        """Ask for a run with the values the client holds (the first call: a new visitor's run)
        and wait for its end; ``fragment_id`` reruns only that fragment. A first screen's document
        view is answered as the browser's is (state ``painted``: the whole page follows, and the
        result covers both runs) unless ``answer_first_paint`` is False."""
        await self._drain()
        self._run = _Run(began=time.monotonic())
        await self._send_rerun(fragment_id, triggers or {})
        result = await self._until_finished()
        first_screen = self._first_paint() if answer_first_paint else None
        if first_screen is None:
            return result
        return result.then(await self.set_state(first_screen, {PAINTED_KEY: True}))

    def _first_paint(self) -> str | None:
        """The key of a document view drawn as a new visitor's first screen (``first_paint`` in its
        data), which the browser answers with state ``painted`` once it is drawn, so the whole page
        follows (:mod:`chunkviz.ui.firstpaint`); None when there is none."""
        for element in self.components():
            if FIRST_PAINT_ON.search(element.payload):  # a scan, not a parse: every run's payloads pass here
                return element.key or element.proto.component_name
        return None

    async def set(self, name: str, value: Any) -> RunResult:
        """Give the widget ``name`` (key or label) ``value`` and rerun what the frontend would:
        the widget's fragment when it lives in one, else the whole script."""
        element = self.widget(name)
        self._values[element.id] = checked_value(element, value)
        return await self.run(fragment_id=element.fragment_id)

    async def set_state(self, name: str, state: Mapping[str, Any], *, answer_first_paint: bool = True) -> RunResult:
        """Set keys of the state of the custom component ``name`` (its key, else its component
        name; components v2) as its script's ``setStateValue`` does, merged into what it held, and
        rerun what the frontend would: the component's fragment when it lives in one, else the
        whole script (its ``on_<key>_change`` callbacks then run)."""
        element = self.component(name)
        held = self._states.setdefault(element.id, {})
        held.update(json.loads(json.dumps(dict(state))))  # what JSON can carry, as the browser sends it
        return await self.run(fragment_id=element.fragment_id, answer_first_paint=answer_first_paint)

    def component(self, name: str) -> Element:
        """The custom component whose key (else whose component name) is ``name``, one on the page."""
        found = [e for e in self.components() if e.key == name] or self.components(name)
        if len(found) != 1:
            shown = sorted({e.key or e.proto.component_name for e in self.components()})
            raise WsClientError(f"{len(found)} components named {name!r} on the page (need 1); there are: {shown}")
        return found[0]

    async def click(self, name: str) -> RunResult:
        """Click the button ``name`` (key or label) and wait for the run it triggers."""
        element = self.widget(name)
        if element.kind not in TRIGGER_WIDGETS:
            raise WsClientError(f"{name!r} is a {element.kind}, not a button: use set()")
        return await self.run(fragment_id=element.fragment_id, triggers={element.id: True})

    async def _send_rerun(self, fragment_id: str, triggers: dict[str, bool]) -> None:
        state = ClientState(
            query_string=self.query_string, page_script_hash=self.page_script_hash, fragment_id=fragment_id
        )
        state.context_info.timezone = "UTC"
        state.context_info.locale = "en-US"
        state.context_info.url = self.url
        state.widget_states.widgets.extend(self._widget_states(triggers))
        state.cached_message_hashes.extend(self._cache)
        message = BackMsg()
        message.rerun_script.CopyFrom(state)
        await self._connection.send(message.SerializeToString())

    def _widget_states(self, triggers: dict[str, bool]) -> list[WidgetState]:
        """Every widget's value on the page, then the triggers of this run (as the frontend sends)."""
        states = []
        for element in self.widgets():
            if element.id in triggers:
                states.append(widget_state(element, True))
            elif element.kind in VALUE_WIDGETS and element.id in self._values:
                states.append(widget_state(element, self._values[element.id]))
        for element in self.components():
            if element.id in self._states:
                states.append(WidgetState(id=element.id, json_value=json.dumps(self._states[element.id])))
        return states

    async def _drain(self) -> None:
        """Handle what arrived since the last run ended (and, should a run be going on, its end)."""
        while True:
            try:
                data = await asyncio.wait_for(self._connection.recv(), 0.001)
            except TimeoutError:
                break
            except ConnectionClosed as exc:
                raise WsClientError(f"the server closed the session: {exc}") from exc
            self._receive(data)
        if self._script_running:
            self._run = _Run(began=time.monotonic())
            await self._until_finished()

    async def _until_finished(self) -> RunResult:
        """Receive until the run ends (``script_finished``, not for a rerun); bounded by the timeout."""
        deadline = time.monotonic() + self.timeout_s
        while True:
            remaining = deadline - time.monotonic()
            try:
                data = await asyncio.wait_for(self._connection.recv(), max(remaining, 0.0))
            except TimeoutError:
                raise WsClientError(f"no script_finished within {self.timeout_s:g} s from {self.url}") from None
            except ConnectionClosed as exc:
                raise WsClientError(f"the server closed the session during a run: {exc}") from exc
            result = self._receive(data)
            if result is not None:
                return result

    # --- receiving
    def _receive(self, data: str | bytes) -> RunResult | None:
        """Apply one ForwardMsg; a :class:`RunResult` when it ended the run in progress."""
        if isinstance(data, str):
            raise WsClientError("the server sent a text frame; Streamlit sends binary protobufs")
        message = ForwardMsg()
        message.ParseFromString(data)
        if self._run is not None:
            self._run.messages += 1
            self._run.received_bytes += len(data)
        if message.WhichOneof("type") == "ref_hash":
            message = self._dereference(message)
        elif message.metadata.cacheable:
            self._remember(message)
        kind = message.WhichOneof("type")
        if kind == "new_session":
            self._started(message)
        elif kind == "delta":
            self._delta(message)
        elif kind == "session_status_changed":
            self._script_running = message.session_status_changed.script_is_running
        elif kind == "page_info_changed":
            self.query_string = message.page_info_changed.query_string
        elif kind == "session_event" and message.session_event.HasField("script_compilation_exception"):
            error = message.session_event.script_compilation_exception
            if self._run is not None:
                self._run.exceptions.append(f"{error.type}: {error.message}")
        elif kind == "script_finished":
            return self._finished(message.script_finished)
        return None

    def _remember(self, message: ForwardMsg) -> None:
        self._cache[message.hash] = message
        self._cache.move_to_end(message.hash)
        while len(self._cache) > MAX_CACHED_MESSAGES:
            self._cache.popitem(last=False)

    def _dereference(self, reference: ForwardMsg) -> ForwardMsg:
        """The cached message a ``ref_hash`` names, with the reference's metadata (its place)."""
        cached = self._cache.get(reference.ref_hash)
        if cached is None:
            raise WsClientError(f"the server referred to message {reference.ref_hash} that this client never got")
        message = ForwardMsg()
        message.CopyFrom(cached)
        message.metadata.CopyFrom(reference.metadata)
        return message

    def _started(self, message: ForwardMsg) -> None:
        if self._run is None:
            self._run = _Run(began=time.monotonic())
        self._script_running = True
        self._run.run_id = message.metadata.run.script_run_id
        self._run.fragment_ids = tuple(message.metadata.run.fragment_ids)
        self.page_script_hash = message.new_session.page_script_hash

    def _delta(self, message: ForwardMsg) -> None:
        path = tuple(message.metadata.delta_path)
        delta = message.delta
        run_id = self._run.run_id if self._run is not None else ""
        kind = delta.WhichOneof("type")
        if kind == "add_block":
            self._tree.pop(path, None)
            block = delta.add_block
            if block.WhichOneof("type") == "expandable" and block.expandable.id:  # one with state: a widget
                self._element(Element("expander", block.expandable, path, run_id, delta.fragment_id))
            self._blocks[path] = (run_id, delta.fragment_id)
        elif kind == "new_element":
            self._element(Element(*_element_proto(delta.new_element), path, run_id, delta.fragment_id))

    def _element(self, element: Element) -> None:
        """Place ``element`` (replacing whatever was at its path and under it) and note its value."""
        for path in [p for p in self._tree if _is_under(p, element.path)]:
            del self._tree[path]
        for path in [p for p in self._blocks if p == element.path or _is_under(p, element.path)]:
            del self._blocks[path]
        self._tree[element.path] = element
        if element.kind in VALUE_WIDGETS and (_server_set(element) or element.id not in self._values):
            self._values[element.id] = initial_value(element)
        if self._run is not None and element.kind == "exception":
            self._run.exceptions.append(element.text)
        elif self._run is not None and element.is_error:
            self._run.errors.append(element.text)

    def _finished(self, status: int) -> RunResult | None:
        """The run's end: stale elements go (as the frontend clears them); None when it only
        stopped for a rerun that follows."""
        run = self._run
        if status == ForwardMsg.FINISHED_EARLY_FOR_RERUN or run is None:
            return None
        self._prune(run)
        self._script_running = False
        self._run = None
        shown = {e.id for e in self._tree.values()}
        self._values = {k: v for k, v in self._values.items() if k in shown}
        self._states = {k: v for k, v in self._states.items() if k in shown}
        return RunResult(
            seconds=time.monotonic() - run.began,
            status=FINISHED.get(status, str(status)),
            exceptions=tuple(run.exceptions),
            errors=tuple(run.errors),
            messages=run.messages,
            received_bytes=run.received_bytes,
        )

    def _prune(self, run: _Run) -> None:
        """Drop what the finished run did not send again: everything, after a full run; the
        fragment's own elements, after a fragment run."""

        def stale(run_id: str, fragment_id: str) -> bool:
            return run_id != run.run_id and (not run.fragment_ids or fragment_id in run.fragment_ids)

        self._tree = {p: e for p, e in self._tree.items() if not stale(e.run_id, e.fragment_id)}
        self._blocks = {p: b for p, b in self._blocks.items() if not stale(*b)}


def _server_set(element: Element) -> bool:
    """Whether the value in a widget's message is the one to hold: one the script set, or an
    expander's state (sent with every run)."""
    return element.kind == "expander" or bool(element.proto.set_value)


def _element_proto(element: ElementProto) -> tuple[str, Any]:
    """(kind, proto) of an ``Element`` message: which of its ``type`` fields is set."""
    kind = element.WhichOneof("type") or "empty"
    return kind, getattr(element, kind)


# ----------------------------------------------------------------------------- warming a server up
async def visit(url: str, timeout_s: float = DEFAULT_TIMEOUT_S) -> RunResult:
    """One new visitor: open a session on ``url``, run the page once, close."""
    async with Session.open(url, timeout_s=timeout_s) as session:
        return await session.run()


def warm_up(url: str, timeout_s: float = DEFAULT_TIMEOUT_S) -> RunResult:
    """Run the page at ``url`` once as a visitor would, so that the models and the default page's
    runs are cached before the first real visitor; returns how that run went. Callable from any
    thread, also one whose event loop is running (it then runs in a thread of its own)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(visit(url, timeout_s))
    outcome: list[RunResult | BaseException] = []

    def in_thread() -> None:
        try:
            outcome.append(asyncio.run(visit(url, timeout_s)))
        except BaseException as exc:  # noqa: BLE001 - handed back to the caller
            outcome.append(exc)

    thread = threading.Thread(target=in_thread, name="chunkviz-warm-up", daemon=True)
    thread.start()
    thread.join(timeout_s + 15)
    if not outcome:
        raise WsClientError(f"warming up {url} did not end within {timeout_s:g} s")
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return outcome[0]
