// @ts-check
// The document view's shared part (docview.js says what the view does): the types, the helpers, and the
// base class: its DOM, its state and the tooltip. chunkviz/views/page.py joins the view's files in one
// script, this one first; each next file's class extends the one before.

/** @typedef {import("./payload").DocViewPayload} DocViewPayload */
/** @typedef {import("./payload").DocViewColumn} DocViewColumn */
/** @typedef {import("./payload").DocViewHit} DocViewHit */
/** @typedef {{ tops: Float64Array, pos: Float64Array, height: number, maxTop: number }} Anchors */
/** @typedef {{ nodes: Text[], starts: Float64Array, complex: Uint8Array, crlfs: Uint8Array, crlf: boolean, position: Map<Node, number> }} TextIndex */
/**
 * One page of a long column: the document span [start, end) (its HTML, whole elements, is in the
 * view's page store under the column's content id and the page's number k).
 * @typedef {object} Page
 * @property {number} k the page's number in the column
 * @property {number} start
 * @property {number} end
 * @property {number} lines line ends in the page's text
 * @property {HTMLElement} node the page's element: its HTML when drawn, else an empty spacer
 * @property {boolean} drawn
 * @property {number | null} height measured height in pixels (null: never drawn)
 * @property {number} top offsetTop of the node at the last anchors build
 */
/** @typedef {Record<string, string | undefined>} ChunkData a chunk element's data-* attributes, as a dataset */
/** @typedef {{ hit: DocViewHit, start: number, end: number, first: HTMLElement | null }} HitSpan */
/**
 * One column of the view: its payload, its DOM and what is cached from them.
 * @typedef {object} Column
 * @property {number} i position in the payload's columns
 * @property {DocViewColumn} [data] the column's payload of the last update
 * @property {string | null} id the content id of the column drawn in the box (null: none yet)
 * @property {Map<number, string>} tags opening tags of chunks (their facts) sent for this content id
 * @property {{ offset: number, dy: number } | null} pending where a programmatic scroll went while its pages were missing
 * @property {string | null} cutsKey
 * @property {string | null} hitsKey
 * @property {string | null} [marksKey]
 * @property {Anchors | null} anchors scroll anchors: box tops and document offsets
 * @property {TextIndex | null} textIndex the box's text nodes and their document offsets
 * @property {number | null} shown the chunk index marked selected
 * @property {number | null} expectTop the scrollTop of our own programmatic scroll
 * @property {number} lastTop
 * @property {HitSpan[]} hitSpans
 * @property {Map<number, { hit: DocViewHit, role: "returned" | "matched" }>} hitOf
 * @property {HTMLElement} trackLabel
 * @property {HTMLElement} track
 * @property {HTMLElement} cell
 * @property {HTMLElement} head
 * @property {HTMLElement} label
 * @property {HTMLElement} summaryEl
 * @property {HTMLElement} box
 * @property {HTMLElement} [window] the ribbon's marker of the visible part
 * @property {number[]} [cutEnds]
 * @property {string[]} [cutReasons]
 * @property {Page[] | null} pages the pages of a long column (null: a one-page column, drawn whole)
 * @property {Map<number, ChunkData | null>} infoCache chunk facts found in pages not drawn
 * @property {DocViewHit[]} hits the column's hits of the last update
 */

const HIT = "[data-chunk-index],[data-continues],[data-overlap],[data-end-of],[data-added-to],.cv-gap";
/** @type {(tag: string, cls?: string, text?: string) => HTMLElement} */
const el = (tag, cls, text) => {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
};
/** @param {number | string} n */
const fmt = (n) => Number(n).toLocaleString("en-US");
/** @type {(v: number, lo: number, hi: number) => number} */
const clamp = (v, lo, hi) => Math.max(lo, Math.min(hi, v));
/** @param {DocViewHit} hit */
const badge = (hit) => `#${hit.rank} \u00b7 ${Number(hit.score).toFixed(2)}`;
/** @param {DocViewHit} hit */
const isParentHit = (hit) => hit.matched !== null && hit.matched !== undefined;
const HIGHLIGHT = "cvd-ref";
/** Characters of page HTML the page store keeps (least recently used pages go first). */
const STORE_CHARS = 12000000;
/** Milliseconds a window request waits for the scrolling to settle. */
const REQUEST_MS = 120;

class DocViewBase {
  /** @param {ShadowRoot} parentElement */
  constructor(parentElement) {
    /** @type {(name: string, value: unknown) => void} the entry point sets Streamlit's on every render */
    this.setStateValue = () => {};
    /** whether this view has answered a first paint (state "painted"; see docview.py) */
    this.paintAnswered = false;
    this.parent = parentElement;
    /** @type {HTMLElement & { __cvd?: DocViewBase }} */
    this.root = parentElement.querySelector(".cvd-root") || parentElement.appendChild(el("div", "cvd-root"));
    this.root.__cvd = this; // for tests and benchmarks
    /** @type {Map<string, string>} page HTML received, by "content id|page number", least recent first */
    this.store = new Map();
    this.storeChars = 0;
    this.requestTimer = 0;
    /** the windows of the last request sent (a request is not repeated until the wanted pages change) */
    this.lastRequest = "";
    /** @type {Column[]} */
    this.columns = [];
    /** @type {Partial<DocViewPayload> | null} */
    this.data = null;
    this.sync = true;
    /** @type {boolean | null | undefined} the payload's sync of the last update */
    this.syncFromData = null;
    this.nonce = 0;
    this.frame = 0;
    this.driver = -1;
    /** @type {{ node: HTMLElement, elements: Element[] } | null} the chunk under the mouse and its elements lit */
    this.hover = null;
    this.stats = { syncMs: [], anchorMs: [], updateMs: [], windowMs: [], pagesDrawn: 0, requests: 0 };
    this.windowFrame = 0;
    this.build();
    this.resize = new ResizeObserver(() => {
      this.columns.forEach((c) => (c.anchors = null));
      if (this.columns.some((c) => c.pages)) this.scheduleWindows();
    });
  }

  build() {
    const root = this.root;
    root.replaceChildren();
    this.bar = root.appendChild(el("div", "cvd-bar"));
    const label = this.bar.appendChild(el("label", "cvd-sync"));
    this.syncBox = label.appendChild(document.createElement("input"));
    this.syncBox.type = "checkbox";
    this.syncBox.checked = this.sync;
    label.appendChild(document.createTextNode("linked scrolling"));
    this.syncBox.addEventListener("change", () => {
      this.sync = this.syncBox.checked;
      if (this.sync && this.driver >= 0) this.schedule(this.driver);
    });
    this.reasons = this.bar.appendChild(el("span", "cvd-reasons"));
    this.overlayKeyEl = this.bar.appendChild(el("span", "cvd-overlay-key"));
    this.ribbon = root.appendChild(el("div", "cvd-ribbon"));
    this.legend = root.appendChild(el("div", "cvd-legend"));
    this.grid = root.appendChild(el("div", "cvd-grid"));
    this.tip = root.appendChild(el("div", "cvd-tip"));
    this.tip.setAttribute("role", "tooltip");
    this.tip.hidden = true;
    this.grid.addEventListener("mouseover", (e) => this.onHover(e));
    this.grid.addEventListener("mousemove", (e) => this.placeTip(e));
    this.grid.addEventListener("mouseleave", () => this.clearHover());
    this.grid.addEventListener("click", (e) => this.onClick(e));
    this.grid.addEventListener("mouseup", () => setTimeout(() => this.readSelection(), 0));
    this.ribbon.addEventListener("click", (e) => this.onRibbonClick(e));
    this.ribbon.addEventListener("mousemove", (e) => this.onRibbonHover(e));
    this.ribbon.addEventListener("mouseleave", () => this.hideTip());
  }

  destroy() {
    this.resize.disconnect();
    if (this.frame) cancelAnimationFrame(this.frame);
    if (this.requestTimer) clearTimeout(this.requestTimer);
    this.setRefRanges([]);
  }

  /**
   * @param {string[][]} rows [kind, text, value] per line of the tooltip
   * @param {MouseEvent} e
   */
  showTip(rows, e) {
    const tip = this.tip;
    tip.replaceChildren();
    for (const [kind, a, b] of rows) {
      if (kind === "b") tip.appendChild(el("b", "", a));
      else if (kind === "kv") {
        const row = tip.appendChild(el("span", "cvd-tip-row"));
        row.appendChild(el("span", "cvd-tip-key", `${a}: `));
        row.appendChild(document.createTextNode(b));
      } else if (kind === "flags") tip.appendChild(el("span", "cvd-tip-row cvd-tip-flags", a));
      else if (kind === "hint") tip.appendChild(el("span", "cvd-tip-row cvd-tip-hint", a));
      else if (kind === "hit") tip.appendChild(el("span", "cvd-tip-row cvd-tip-hit", a));
      else tip.appendChild(el("span", "cvd-tip-row", a));
    }
    tip.hidden = false;
    this.placeTip(e);
  }

  /** @param {MouseEvent} e */
  placeTip(e) {
    if (this.tip.hidden) return;
    const root = this.root.getBoundingClientRect();
    const tip = this.tip;
    let x = e.clientX - root.left + 14;
    let y = e.clientY - root.top + 18;
    if (x + tip.offsetWidth > root.width) x = Math.max(0, e.clientX - root.left - tip.offsetWidth - 14);
    if (y + tip.offsetHeight > root.height) y = Math.max(0, e.clientY - root.top - tip.offsetHeight - 14);
    tip.style.left = `${x}px`;
    tip.style.top = `${y}px`;
  }

  hideTip() {
    this.tip.hidden = true;
  }
}

/** Most tick elements a ribbon track draws: more cuts share ticks (a track is ~1,000 pixels wide). */
const MAX_TICKS = 1500;

// a track's ticks: one per cut; past MAX_TICKS cuts, one per reason in each of MAX_TICKS equal
// stretches of the document (at the first cut there, with the number of cuts it stands for)
/**
 * @param {Array<[number, string]>} cuts
 * @param {number} length
 * @returns {Array<[number, string, number]>}
 */
function ribbonTicks(cuts, length) {
  if (cuts.length <= MAX_TICKS) return cuts.map(([end, reason]) => [end, reason, 1]);
  /** @type {Map<string, [number, string, number]>} */
  const ticks = new Map();
  for (const [end, reason] of cuts) {
    const key = `${Math.floor((MAX_TICKS * end) / length)}|${reason}`;
    const tick = ticks.get(key);
    if (tick) tick[2]++;
    else ticks.set(key, [end, reason, 1]);
  }
  return [...ticks.values()];
}

/** @param {number} i */
function extentSelector(i) {
  const n = Number(i);
  return `[data-chunk-index="${n}"],[data-continues="${n}"],[data-overlap~="${n}"]`;
}

/**
 * @param {HTMLElement} node
 * @returns {number[]}
 */
function chunksOf(node) {
  const ds = node.dataset;
  if (ds.overlap !== undefined) return ds.overlap.split(/\s+/).filter(Boolean).map(Number);
  const raw = ds.chunkIndex ?? ds.continues ?? ds.endOf ?? ds.addedTo;
  return raw === undefined ? [] : [Number(raw)];
}

// index of the last element <= x in a non-decreasing array (0 when x is before the first)
/**
 * @param {ArrayLike<number>} arr
 * @param {number} x
 */
function lastAtMost(arr, x) {
  let lo = 0, hi = arr.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (arr[mid] <= x) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * @param {number[]} ends
 * @param {number} offset
 * @param {number} tolerance
 */
function nearestCut(ends, offset, tolerance) {
  if (!ends.length) return -1;
  let lo = 0, hi = ends.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ends[mid] < offset) lo = mid + 1;
    else hi = mid;
  }
  let best = lo;
  if (lo > 0 && Math.abs(ends[lo - 1] - offset) <= Math.abs(ends[lo] - offset)) best = lo - 1;
  return Math.abs(ends[best] - offset) <= tolerance ? best : -1;
}

/** @param {string} label */
function shortReason(label) {
  return String(label).replace(/\s*\(.*\)\s*$/, "");
}

/**
 * @param {ArrayLike<number>} arr
 * @param {number} x
 */
function firstAtLeast(arr, x) {
  let lo = 0, hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (arr[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** @param {string} s */
function codePoints(s) {
  if (!/[\uD800-\uDFFF]/.test(s)) return s.length;
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** @param {string} s */
function countLf(s) {
  let n = 0;
  for (let i = s.indexOf("\n"); i >= 0; i = s.indexOf("\n", i + 1)) n++;
  return n;
}

// document characters in s.slice(0, units): code points, plus the CR dropped before each LF
/**
 * @param {string} s
 * @param {number} units
 * @param {boolean} crlf
 */
function docUnits(s, units, crlf) {
  let n = 0;
  for (let i = 0; i < units && i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff && i > 0) {
      const p = s.charCodeAt(i - 1);
      if (p >= 0xd800 && p <= 0xdbff) continue;
    }
    n += crlf && c === 10 ? 2 : 1;
  }
  return n;
}

// the UTF-16 offset in s where `doc` document characters have been passed
/**
 * @param {string} s
 * @param {number} doc
 * @param {boolean} crlf
 */
function unitsFor(s, doc, crlf) {
  let n = 0, i = 0;
  while (i < s.length && n < doc) {
    const c = s.charCodeAt(i);
    const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < s.length;
    n += crlf && c === 10 ? 2 : 1;
    i += pair ? 2 : 1;
  }
  return i;
}

// the page-wide highlight of the expected answers (CSS Custom Highlight API; null without it)
function highlightRegistry() {
  if (typeof CSS === "undefined" || !CSS.highlights || typeof Highlight === "undefined") return null;
  let highlight = CSS.highlights.get(HIGHLIGHT);
  if (!highlight) {
    highlight = new Highlight();
    CSS.highlights.set(HIGHLIGHT, highlight);
  }
  return highlight;
}

// ---------------------------------------------------------------------- facts of a chunk
// render.py's HTML: no attribute value holds "<" or ">" (html.escape), so a tag is "<" to the next ">".
const ENTITY = /&(?:amp|lt|gt|quot|#x27);/g;

// the data-* attributes of an opening tag of render.py, as a dataset (camelCase keys, unescaped)
/**
 * @param {string} tag
 * @returns {ChunkData}
 */
function tagData(tag) {
  /** @type {ChunkData} */
  const out = {};
  const unescape = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#x27;": "'" };
  for (const m of tag.matchAll(/\sdata-([\w-]+)="([^"]*)"/g)) {
    const key = m[1].replace(/-(\w)/g, (_, c) => c.toUpperCase());
    out[key] = m[2].replace(ENTITY, (e) => unescape[/** @type {keyof typeof unescape} */ (e)]);
  }
  return out;
}
