// @ts-check
// chunkviz document view (components v2). Called on every render with new `data`; one view per
// parentElement is kept in VIEWS and updated in place (columns whose HTML is unchanged keep their
// DOM and scroll position). Only render.py's escaped HTML (a column's pages, legend) is set as innerHTML;
// everything built from other data uses textContent / setAttribute / style.
// Retrieval overlay: hits (rank badges, outlines, quiet other chunks), reference spans drawn with
// the CSS Custom Highlight API over DOM Ranges mapped from document offsets, ribbon marks, and a
// mouse selection sent back as document offsets (state "answer").
// Draw only what is seen: Python cuts each column's HTML into pages at line ends
// (chunkviz/drawing/paging.py) and sends the page table plus the HTML of the pages near the window this
// view asked for (state "window"). Pages received are kept in a bounded store keyed by the column's
// content id; only the pages in and around each box's visible window are in the DOM, every other
// page is an empty spacer of its measured (or estimated) height, "loading…" while its HTML is on its
// way. Offsets, selection, hits and highlights are re-applied to each page drawn.

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

/** @type {WeakMap<ShadowRoot, DocView>} */
const VIEWS = new WeakMap();
const HIT = "[data-chunk-index],[data-continues],[data-overlap],[data-end-of],[data-added-to],.cv-gap";

/**
 * @param {import("./payload").ComponentArgs<DocViewPayload>} component
 * @returns {import("./payload").Cleanup}
 */
export default function (component) {
  const { data, parentElement, setStateValue } = component;
  let view = VIEWS.get(parentElement);
  if (!view) {
    view = new DocView(parentElement);
    VIEWS.set(parentElement, view);
  }
  view.setStateValue = setStateValue;
  try {
    view.update(data || {});
  } finally {
    // a new visitor's first screen (the view alone) asks for the rest of the page once it is on
    // screen: after the next frame is painted, and even if drawing failed (the controls must come)
    if (data && data.first_paint && !view.paintAnswered) {
      view.paintAnswered = true;
      requestAnimationFrame(() => setTimeout(() => setStateValue("painted", true), 0));
    }
  }
  // Streamlit may call a render's cleanup while the element stays mounted (a newer render
  // superseded it): tear down only when the host has really left the page.
  return () => setTimeout(() => {
    if (!parentElement.isConnected && VIEWS.get(parentElement) === view) {
      view.destroy();
      VIEWS.delete(parentElement);
    }
  }, 0);
}

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

class DocView {
  /** @param {ShadowRoot} parentElement */
  constructor(parentElement) {
    /** @type {(name: string, value: unknown) => void} the entry point sets Streamlit's on every render */
    this.setStateValue = () => {};
    /** whether this view has answered a first paint (state "painted"; see docview.py) */
    this.paintAnswered = false;
    this.parent = parentElement;
    /** @type {HTMLElement & { __cvd?: DocView }} */
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
    this.hover = null; // {col, elements}
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

  // ------------------------------------------------------------------ rendering
  /** @param {Partial<DocViewPayload>} data */
  update(data) {
    const t0 = performance.now();
    const previous = this.data;
    this.data = data;
    this.labels = data.labels || { reasons: {}, boundaries: {}, flags: {} };
    if (data.sync !== this.syncFromData) {
      this.syncFromData = data.sync;
      this.sync = data.sync !== false;
      this.syncBox.checked = this.sync;
    }
    this.root.style.setProperty("--cvd-h", `${Number(data.height) || 560}px`);
    if (!previous || previous.legend !== data.legend) this.legend.innerHTML = data.legend || "";
    const cols = data.columns || [];
    if (cols.length !== this.columns.length) this.buildColumns(cols.length);
    const lengthChanged = !previous || previous.length !== data.length;
    const changed = cols.map((c, i) => this.updateColumn(this.columns[i], c, lengthChanged));
    this.updateReasons(cols);
    this.updateOverlay(changed);
    this.columns.forEach((c) => this.updateWindow(c));
    this.requestWindows();
    this.stats.updateMs.push(performance.now() - t0);
  }

  /** @param {number} n */
  buildColumns(n) {
    this.columns.forEach((c) => this.resize.unobserve(c.box));
    this.grid.replaceChildren();
    this.ribbon.replaceChildren();
    this.grid.style.gridTemplateColumns = `repeat(${n}, minmax(0, 1fr))`;
    this.columns = [];
    for (let i = 0; i < n; i++) {
      /** @type {Column} */
      const col = /** @type {Column} */ ({ i, id: null, tags: new Map(), pending: null, cutsKey: null, hitsKey: null, anchors: null, textIndex: null, shown: null, expectTop: null, lastTop: 0, hitSpans: [], hitOf: new Map(), pages: null, infoCache: new Map(), hits: [] });
      col.trackLabel = this.ribbon.appendChild(el("div", "cvd-track-label"));
      col.track = this.ribbon.appendChild(el("div", "cvd-track"));
      col.track.dataset.column = String(i);
      col.cell = this.grid.appendChild(el("div", "cvd-col"));
      col.head = col.cell.appendChild(el("div", "cvd-head"));
      col.head.appendChild(el("span", "cvd-swatch"));
      col.label = col.head.appendChild(el("span", "cvd-label"));
      col.summaryEl = col.head.appendChild(el("div", "cvd-summary"));
      col.box = col.cell.appendChild(el("div", "cvd-box"));
      col.box.dataset.column = String(i);
      col.box.addEventListener("scroll", () => this.onScroll(col), { passive: true });
      this.resize.observe(col.box);
      this.columns.push(col);
    }
    this.axis = this.ribbon.appendChild(el("div", "cvd-axis"));
    this.axisStart = this.axis.appendChild(el("span", "", "0"));
    this.axisEnd = this.axis.appendChild(el("span", "", ""));
  }

  // returns what changed: {html, hits, track}
  /**
   * @param {Column} col
   * @param {DocViewColumn} c
   * @param {boolean} lengthChanged
   */
  updateColumn(col, c, lengthChanged) {
    col.data = c;
    col.label.textContent = c.label;
    col.trackLabel.textContent = c.label;
    col.summaryEl.textContent = c.summary || "";
    for (const node of [col.cell, col.track, col.trackLabel]) node.style.setProperty("--cvd-colour", c.colour);
    this.storePages(c);
    const changed = { html: c.id !== col.id, hits: false, track: false };
    if (changed.html) this.replaceHtml(col, c);
    else this.fillIn(col, c);
    const cutsKey = JSON.stringify(c.cuts);
    if (lengthChanged || cutsKey !== col.cutsKey) {
      col.cutsKey = cutsKey;
      this.drawTrack(col, c.cuts || []);
      changed.track = true;
    }
    const hitsKey = JSON.stringify(c.hits || []);
    if (changed.html || hitsKey !== col.hitsKey) {
      changed.hits = hitsKey !== col.hitsKey && (c.hits || []).length > 0;
      col.hitsKey = hitsKey;
      this.applyHits(col, c.hits || []);
      changed.track = true;
    }
    this.axisEnd.textContent = `${fmt(this.data.length)} characters`;
    const wanted = c.selected === undefined ? null : c.selected;
    if (wanted !== col.shown) {
      this.markSelected(col, wanted);
      if (wanted !== null) this.reveal(col, wanted);
    }
    return changed;
  }

  // a new column (content id): one page is drawn whole, a longer column as pages and spacers
  /**
   * @param {Column} col
   * @param {DocViewColumn} c
   */
  replaceHtml(col, c) {
    const keep = col.id !== null && col.lastTop > 0 ? this.offsetAt(col, col.lastTop) : null;
    const table = c.pages || [];
    col.id = c.id;
    const whole = table.length <= 1 ? this.pageHtml(col, 0) : null;
    this.setBoxHtml(col, c.root + (whole ?? "") + "</div>");
    col.tags = new Map(c.tags || []);
    col.anchors = null;
    col.textIndex = null;
    col.infoCache = new Map();
    col.pages = null;
    col.pending = null;
    col.box.classList.toggle("cvd-paged", whole === null);
    if (whole === null) {
      const doc = /** @type {HTMLElement} */ (col.box.firstElementChild);
      col.pages = table.map(([start, end, lines], k) => {
        const node = doc.appendChild(el("div", "cvd-page"));
        /** @type {Page} */
        const page = { k, start, end, lines, node, drawn: false, height: null, top: 0 };
        return page;
      });
      this.estimateHeights(col);
    }
    col.lastTop = col.box.scrollTop;
    if (col.pages) this.ensureWindow(col);
    if (col.shown !== null) this.markSelected(col, col.shown);
    if (keep !== null) this.alignTo(col, keep, 0);
  }

  // the same column again: its new facts, and the pages that arrived drawn where they are wanted
  // (at the offset a programmatic scroll went to while they were missing, if the user has not scrolled since)
  /**
   * @param {Column} col
   * @param {DocViewColumn} c
   */
  fillIn(col, c) {
    for (const [index, tag] of c.tags || []) col.tags.set(index, tag);
    if (!col.pages || !(c.page_html || []).length) return;
    const pending = col.pending;
    if (pending) this.ensureWindow(col, pending.offset, pending.dy);
    else this.ensureWindow(col);
    this.estimateHeights(col);
    if (!this.missingPages(col).length) col.pending = null;
  }

  // ------------------------------------------------------------------ the page store
  /** @param {DocViewColumn} c */
  storePages(c) {
    for (const [k, html] of c.page_html || []) {
      const key = `${c.id}|${k}`;
      const old = this.store.get(key);
      if (old !== undefined) {
        this.store.delete(key);
        this.storeChars -= old.length;
      }
      this.store.set(key, html);
      this.storeChars += html.length;
    }
    for (const [key, html] of this.store) { // least recently used first; the pages just received are last
      if (this.storeChars <= STORE_CHARS) break;
      this.store.delete(key);
      this.storeChars -= html.length;
    }
  }

  // a page's HTML from the store (now its most recent entry), or null when it has not arrived
  /**
   * @param {Column} col
   * @param {number} k
   */
  pageHtml(col, k) {
    const key = `${col.id}|${k}`;
    const html = this.store.get(key);
    if (html === undefined) return null;
    this.store.delete(key);
    this.store.set(key, html);
    return html;
  }

  /**
   * @param {Column} col
   * @param {number} k
   */
  hasPage(col, k) {
    return this.store.has(`${col.id}|${k}`);
  }

  // the pages the column's window needs (with one page either side: asked ahead) that have not arrived
  /** @param {Column} col */
  missingPages(col) {
    if (!col.pages) return [];
    const want = [...this.wantedPages(col)];
    const lo = Math.max(0, Math.min(...want) - 1), hi = Math.min(col.pages.length - 1, Math.max(...want) + 1);
    const out = [];
    for (let k = lo; k <= hi; k++) if (!col.pages[k].drawn && !this.hasPage(col, k)) out.push(k);
    return out;
  }

  // ask Python for the windows of the columns missing pages, once the scrolling has settled
  requestWindows() {
    if (this.requestTimer || !this.columns.some((c) => this.missingPages(c).length)) return;
    this.requestTimer = setTimeout(() => {
      this.requestTimer = 0;
      this.sendWindows();
    }, REQUEST_MS);
  }

  // state "window": per column the document span of the pages its box wants (Python adds a page
  // either side); not sent again for the same pages (a rerun that brings nothing new asks nothing)
  sendWindows() {
    /** @type {Array<[number, number]>} */
    const spans = [];
    const keys = [];
    let missing = false;
    for (const col of this.columns) {
      if (!col.pages) {
        spans.push([0, 1]);
        keys.push(String(col.id));
        continue;
      }
      const want = [...this.wantedPages(col)];
      const lo = Math.min(...want), hi = Math.max(...want);
      spans.push([col.pages[lo].start, col.pages[hi].end]);
      keys.push(`${col.id}:${lo}-${hi}`);
      missing = missing || this.missingPages(col).length > 0;
    }
    const key = keys.join(" ");
    if (!missing || key === this.lastRequest) return;
    this.lastRequest = key;
    this.nonce = Math.max(this.nonce + 1, Date.now());
    this.stats.requests++;
    this.setStateValue("window", { spans, nonce: this.nonce });
  }

  /**
   * @param {Column} col
   * @param {string} html render.py output (a one-page column's whole HTML, or the root of a paged one)
   */
  setBoxHtml(col, html) {
    col.box.innerHTML = html; // render.py output: escaped server-side
  }

  // ------------------------------------------------------------------ pages of a long column
  // Spacer heights: a page drawn once keeps its measured height; the others get a guess from its
  // lines and characters (rows: half a row of slack per line plus its characters over the characters
  // per row of the box), scaled by how the guess did on the pages measured so far. A spacer whose
  // HTML has not arrived says "loading…" (CSS, not text: the document text stays the document's).
  /** @param {Column} col */
  estimateHeights(col) {
    if (!col.pages) return;
    const perRow = Math.max(20, (col.box.clientWidth || 300) / 6.6);
    /** @param {Page} p */
    const guess = (p) => (0.5 * p.lines + (p.end - p.start) / perRow) * 17.5;
    let guessed = 0, px = 0;
    for (const p of col.pages) {
      if (p.height !== null) {
        guessed += guess(p);
        px += p.height;
      }
    }
    const scale = guessed > 0 ? px / guessed : 1;
    for (const p of col.pages) {
      if (p.drawn) continue;
      p.node.style.height = `${Math.round(Math.max(20, p.height ?? guess(p) * scale))}px`;
      p.node.classList.toggle("cvd-missing", !this.hasPage(col, p.k));
    }
  }

  // the pages that meet the visible window with one box height of margin on each side
  /** @param {Column} col */
  wantedPages(col) {
    const pages = /** @type {Page[]} */ (col.pages);
    const { height } = this.anchorsOf(col);
    const h = height || 600;
    const lo = col.lastTop - h, hi = col.lastTop + 2 * h;
    /** @type {Set<number>} */
    const want = new Set();
    let k = 0, a = 0, b = pages.length - 1;
    while (a < b) { // the last page whose top is at or above lo
      const mid = (a + b + 1) >> 1;
      if (pages[mid].top <= lo) a = mid;
      else b = mid - 1;
    }
    for (k = a; k < pages.length && (k === a || pages[k].top < hi); k++) want.add(k);
    return want;
  }

  // draw the pages the window needs (spacers for the rest), keeping the document offset at the
  // box's top edge (or `keep`) where it was; true when pages changed
  /**
   * @param {Column} col
   * @param {number} [keep] a document offset to keep at the top edge (plus dy pixels)
   * @param {number} [dy]
   */
  ensureWindow(col, keep, dy = 0) {
    const pages = col.pages;
    if (!pages) return false;
    const t0 = performance.now();
    this.catchUp(col);
    let changed = false;
    for (let round = 0; round < 4; round++) {
      const want = this.wantedPages(col);
      // settled: the pages drawn are the wanted ones that have arrived
      if (pages.every((p, k) => p.drawn === (want.has(k) && (p.drawn || this.hasPage(col, k))))) break;
      const before = this.anchorsOf(col);
      const atEnd = keep === undefined && col.lastTop > 0 && col.lastTop >= before.maxTop - 1;
      const offset = keep ?? this.offsetAt(col, col.lastTop);
      for (const p of pages) if (p.drawn && p.height !== null) p.height = p.node.offsetHeight || p.height;
      pages.forEach((p, k) => {
        if (p.drawn && !want.has(k)) {
          p.node.replaceChildren();
          p.drawn = false;
        } else if (!p.drawn && want.has(k)) {
          this.drawPage(col, p);
        }
      });
      for (const p of pages) if (p.drawn) p.height = p.node.offsetHeight;
      this.estimateHeights(col);
      col.anchors = null;
      col.textIndex = null;
      changed = true;
      const after = this.anchorsOf(col);
      this.setScroll(col, atEnd ? after.maxTop : this.topFor(col, offset) + (keep === undefined ? 0 : dy));
    }
    if (changed) this.repaint(col);
    if (this.missingPages(col).length) this.requestWindows();
    this.stats.windowMs.push(performance.now() - t0);
    if (this.stats.windowMs.length > 500) this.stats.windowMs.splice(0, 250);
    return changed;
  }

  // a scroll the browser has done but not reported yet (scroll events come with the next frame,
  // late on a busy machine) is where the column is: a window drawn before that event (pages that
  // arrived, a resize) is drawn there, and never scrolls the column back to where it was. (A
  // programmatic scroll to where the box already was fires no event: its expectTop is stale.)
  /** @param {Column} col */
  catchUp(col) {
    const top = col.box.scrollTop;
    if (Math.abs(top - col.lastTop) <= 1) return; // nothing new
    if (col.expectTop !== null && Math.abs(top - col.expectTop) <= 1) return; // ours, its event to come
    col.expectTop = null;
    col.lastTop = top;
    col.pending = null; // the user scrolled: pages arriving later are drawn where the user is
    this.schedule(col.i); // the others follow (its event may merge with ours and look programmatic)
  }

  /**
   * @param {Column} col
   * @param {Page} page
   */
  drawPage(col, page) {
    const html = this.pageHtml(col, page.k);
    if (html === null) return false;
    page.node.innerHTML = html; // a page of render.py output (chunkviz/drawing/paging.py, whole elements): escaped server-side
    page.node.style.height = "";
    page.node.classList.remove("cvd-missing");
    page.drawn = true;
    this.stats.pagesDrawn++;
    return true;
  }

  // a page drawn anew gets what the whole column shows: the selection, hits, highlights
  /** @param {Column} col */
  repaint(col) {
    if (col.shown !== null) this.markSelected(col, col.shown);
    this.paintHits(col);
    this.setRefRanges(this.referenceRanges(this.data.references || []));
    if (this.hover && !this.hover.node.isConnected) this.clearHover();
  }

  // scroll a column so that `offset` is at its top edge (plus dy pixels), drawing its pages there
  /**
   * @param {Column} col
   * @param {number} offset
   * @param {number} dy
   */
  alignTo(col, offset, dy) {
    this.setScroll(col, this.topFor(col, offset) + dy);
    this.ensureWindow(col, offset, dy);
    col.pending = this.missingPages(col).length ? { offset, dy } : null;
  }

  // the data-* facts of chunk `index` in a column: its element's dataset when drawn, else its
  // opening tag sent by Python (tags) or found in a page received (null until one of them has it)
  /**
   * @param {Column} col
   * @param {number} index
   * @returns {ChunkData | null}
   */
  infoOf(col, index) {
    const node = /** @type {HTMLElement | null} */ (col.box.querySelector(`[data-chunk-index="${Number(index)}"]`));
    if (node) return node.dataset;
    if (!col.pages) return null;
    const cached = col.infoCache.get(Number(index));
    if (cached) return cached;
    const tag = col.tags.get(Number(index));
    if (tag) return tagData(tag);
    const needle = ` data-chunk-index="${Number(index)}"`;
    for (const page of col.pages) {
      const html = this.store.get(`${col.id}|${page.k}`);
      const at = html === undefined ? -1 : html.indexOf(needle);
      if (html === undefined || at < 0) continue;
      const found = tagData(html.slice(html.lastIndexOf("<", at), html.indexOf(">", at) + 1));
      col.infoCache.set(Number(index), found);
      return found;
    }
    return null;
  }

  /**
   * @param {Column} col
   * @param {DocViewColumn["cuts"]} cuts
   */
  drawTrack(col, cuts) {
    const length = Math.max(1, Number(this.data.length) || 1);
    const frag = document.createDocumentFragment();
    frag.appendChild(el("div", "cvd-track-line"));
    for (const [end, reason, count] of ribbonTicks(cuts, length)) {
      const tick = el("div", "cvd-tick");
      tick.dataset.offset = String(end);
      tick.dataset.reason = reason;
      if (count > 1) tick.dataset.count = String(count); // cuts that fall on one tick of a long document
      tick.style.left = `${(100 * end) / length}%`;
      tick.style.background = (this.data.reason_colours || {})[reason] || "#495057";
      frag.appendChild(tick);
    }
    col.window = frag.appendChild(el("div", "cvd-window"));
    col.track.replaceChildren(frag);
    col.cutEnds = cuts.map((x) => x[0]);
    col.cutReasons = cuts.map((x) => x[1]);
  }

  /** @param {DocViewColumn[]} cols */
  updateReasons(cols) {
    const present = new Set();
    cols.forEach((c) => (c.cuts || []).forEach((x) => present.add(x[1])));
    const length = Number(this.data.length) || 0;
    const key = [...present].sort().join(" ") + "|" + length;
    if (key === this.reasonsKey) return;
    /** @type {string} */
    this.reasonsKey = key;
    this.reasons.replaceChildren(el("span", "", "ticks: why a chunk ends —"));
    for (const reason of Object.keys(this.labels.reasons)) {
      if (!present.has(reason)) continue;
      const item = this.reasons.appendChild(el("span"));
      const mark = item.appendChild(el("i"));
      mark.style.background = (this.data.reason_colours || {})[reason] || "#495057";
      item.appendChild(document.createTextNode(shortReason(this.labels.reasons[reason])));
    }
  }

  // ------------------------------------------------------------------ offsets <-> pixels
  /**
   * @param {Column} col
   * @returns {Anchors}
   */
  anchorsOf(col) {
    if (col.anchors) return col.anchors;
    const t0 = performance.now();
    /** @type {number[]} */
    const topList = [0];
    /** @type {number[]} */
    const posList = [0];
    let lastTop = 0, lastPos = 0, overlapEnd = 0;
    /** @type {(top: number, p: number) => void} */
    const push = (top, p) => {
      lastPos = Math.max(lastPos, p || 0);
      lastTop = Math.max(lastTop, top);
      topList.push(lastTop);
      posList.push(lastPos);
    };
    /** @param {ParentNode} within */
    const scan = (within) => {
      for (const node of /** @type {NodeListOf<HTMLElement>} */ (within.querySelectorAll(".cv-c[data-start],.cv-o[data-start],.cv-gap"))) {
        let p;
        if (node.classList.contains("cv-o")) {
          p = Number(node.dataset.start);
          overlapEnd = Number(node.dataset.end);
        } else if (node.classList.contains("cv-gap")) {
          p = Number(node.dataset.gapStart);
        } else {
          p = Math.max(Number(node.dataset.start), overlapEnd); // a band is drawn after its leading overlap
        }
        push(node.offsetTop, p);
      }
    };
    if (!col.pages) scan(col.box);
    else {
      for (const page of col.pages) { // a spacer maps its height linearly onto its characters
        page.top = page.node.offsetTop;
        push(page.top, page.start);
        if (page.drawn) scan(page.node);
      }
    }
    const box = col.box;
    const k = topList.length;
    const tops = Float64Array.from(topList.concat([0]));
    const pos = Float64Array.from(posList.concat([0]));
    tops[k] = Math.max(lastTop + 1, box.scrollHeight);
    pos[k] = Math.max(lastPos, Number(this.data.length) || 0);
    col.lastTop = box.scrollTop;
    col.anchors = { tops, pos, height: box.clientHeight, maxTop: Math.max(0, box.scrollHeight - box.clientHeight) };
    this.stats.anchorMs.push(performance.now() - t0);
    return col.anchors;
  }

  /**
   * @param {Column} col
   * @param {number} y
   */
  offsetAt(col, y) {
    const { tops, pos } = this.anchorsOf(col);
    const k = lastAtMost(tops, y);
    if (k >= tops.length - 1) return pos[tops.length - 1];
    const span = tops[k + 1] - tops[k];
    return pos[k] + (span > 0 ? ((y - tops[k]) / span) * (pos[k + 1] - pos[k]) : 0);
  }

  /**
   * @param {Column} col
   * @param {number} offset
   */
  topFor(col, offset) {
    const { tops, pos } = this.anchorsOf(col);
    const k = lastAtMost(pos, offset);
    if (k >= pos.length - 1) return tops[pos.length - 1];
    const span = pos[k + 1] - pos[k];
    return tops[k] + (span > 0 ? ((offset - pos[k]) / span) * (tops[k + 1] - tops[k]) : 0);
  }

  // Geometry is read once per anchors build (invalidated on resize and new HTML) and the scroll
  // positions are tracked from scroll events, so a sync frame only writes (no forced layout).
  /**
   * @param {Column} col
   * @param {number} top
   */
  setScroll(col, top) {
    const { maxTop } = this.anchorsOf(col);
    const target = Math.round(clamp(top, 0, maxTop));
    if (Math.abs(col.lastTop - target) < 1) return;
    col.expectTop = target;
    col.lastTop = target;
    col.box.scrollTop = target;
  }

  // ------------------------------------------------------------------ scrolling
  /** @param {Column} col */
  onScroll(col) {
    col.lastTop = col.box.scrollTop;
    if (col.expectTop !== null && Math.abs(col.lastTop - col.expectTop) <= 1) {
      col.expectTop = null; // our own programmatic scroll
      this.scheduleWindows();
      return;
    }
    col.expectTop = null;
    col.pending = null; // the user scrolled: pages arriving later are drawn where the user is
    this.schedule(col.i);
  }

  /** @param {number} i */
  schedule(i) {
    this.driver = i;
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.syncFrom(this.driver);
    });
  }

  scheduleWindows() {
    if (this.frame || this.windowFrame) return;
    this.windowFrame = requestAnimationFrame(() => {
      this.windowFrame = 0;
      this.columns.forEach((c) => this.ensureWindow(c));
      this.columns.forEach((c) => this.updateWindow(c));
    });
  }

  /** @param {number} i */
  syncFrom(i) {
    const t0 = performance.now();
    const source = this.columns[i];
    if (!source) return;
    this.ensureWindow(source);
    const offset = this.offsetAt(source, source.lastTop);
    if (this.sync) {
      for (const col of this.columns) if (col !== source) this.alignTo(col, offset, 0);
    }
    this.columns.forEach((c) => this.updateWindow(c));
    this.stats.syncMs.push(performance.now() - t0);
    if (this.stats.syncMs.length > 500) this.stats.syncMs.splice(0, 250);
  }

  /** @param {number} offset */
  scrollAllTo(offset) {
    for (const col of this.columns) this.alignTo(col, offset, -6);
    this.columns.forEach((c) => this.updateWindow(c));
  }

  /** @param {Column} col */
  updateWindow(col) {
    if (!col.window || col.id === null) return;
    const length = Math.max(1, Number(this.data.length) || 1);
    const { height } = this.anchorsOf(col);
    if (!height) return;
    const a = this.offsetAt(col, col.lastTop);
    const b = this.offsetAt(col, col.lastTop + height);
    col.window.style.left = `${(100 * a) / length}%`;
    col.window.style.width = `${(100 * Math.max(0, b - a)) / length}%`;
  }

  /**
   * @param {Column} col
   * @param {number} index
   */
  reveal(col, index) {
    let first = col.box.querySelector(extentSelector(index));
    if (!first && col.pages) { // on a page not drawn: draw it there, then scroll like a user (syncs)
      const info = this.infoOf(col, index);
      if (!info) return;
      this.alignTo(col, Number(info.start), -col.box.clientHeight * 0.2);
      this.schedule(col.i);
      first = col.box.querySelector(extentSelector(index));
    }
    if (!first) return;
    const box = col.box;
    const boxRect = box.getBoundingClientRect();
    const rect = first.getBoundingClientRect();
    const visible = rect.top >= boxRect.top && rect.top <= boxRect.bottom - 24;
    if (visible) return;
    const top = box.scrollTop + rect.top - boxRect.top - box.clientHeight * 0.2;
    box.scrollTop = clamp(Math.round(top), 0, box.scrollHeight - box.clientHeight); // a user-like scroll: syncs
  }

  // ------------------------------------------------------------------ ribbon
  /** @param {MouseEvent} e */
  ribbonOffset(e) {
    const track = /** @type {HTMLElement | null} */ (/** @type {Element} */ (e.target).closest(".cvd-track"));
    if (!track) return null;
    const rect = track.getBoundingClientRect();
    const frac = clamp((e.clientX - rect.left) / Math.max(1, rect.width), 0, 1);
    return { track, rect, offset: frac * (Number(this.data.length) || 0) };
  }

  /** @param {MouseEvent} e */
  onRibbonClick(e) {
    const hit = this.ribbonOffset(e);
    if (hit) this.scrollAllTo(hit.offset);
  }

  /** @param {MouseEvent} e */
  onRibbonHover(e) {
    const hit = this.ribbonOffset(e);
    if (!hit) return this.hideTip();
    const col = this.columns[Number(hit.track.dataset.column)];
    const length = Math.max(1, Number(this.data.length) || 1);
    const perPx = length / Math.max(1, hit.rect.width);
    const near = nearestCut(col.cutEnds || [], hit.offset, 4 * perPx);
    const rows = this.ribbonOverlayRows(col, hit.offset, perPx); // retrieved chunks, expected answer
    if (!rows.length && near >= 0) {
      const reason = col.cutReasons[near];
      rows.push(["b", `${col.data.label}: a chunk ends at character ${fmt(col.cutEnds[near])}`]);
      rows.push(["row", this.labels.reasons[reason] || reason]);
    } else if (!rows.length) {
      rows.push(["b", `character ${fmt(Math.round(hit.offset))}`]);
    }
    rows.push(["hint", "click to scroll every column here"]);
    this.showTip(rows, e);
  }

  // ------------------------------------------------------------------ hover, tooltip, click
  /** @param {MouseEvent} e */
  hitOf(e) {
    const target = /** @type {Element} */ (e.target); // an element of the grid
    const box = /** @type {HTMLElement | null} */ (target.closest && target.closest(".cvd-box"));
    if (!box) return null;
    const node = /** @type {HTMLElement | null} */ (target.closest(HIT));
    if (!node || !box.contains(node)) return null;
    return { col: this.columns[Number(box.dataset.column)], node };
  }

  /** @param {MouseEvent} e */
  onHover(e) {
    const hit = this.hitOf(e);
    if (!hit) return this.clearHover();
    if (this.hover && this.hover.node === hit.node) return;
    this.clearHover();
    const indexes = chunksOf(hit.node);
    const elements = [];
    for (const i of indexes) elements.push(...hit.col.box.querySelectorAll(extentSelector(i)));
    elements.forEach((n) => n.classList.add("cvd-hl"));
    this.hover = { node: hit.node, elements };
    this.showTip(this.describe(hit.col, hit.node, indexes), e);
  }

  clearHover() {
    if (this.hover) this.hover.elements.forEach((n) => n.classList.remove("cvd-hl"));
    this.hover = null;
    this.hideTip();
  }

  /** @param {MouseEvent} e */
  onClick(e) {
    const hit = this.hitOf(e);
    if (!hit) return;
    const range = this.selectionRange();
    if (range && !range.collapsed) return; // the end of a text selection, not a click on a chunk
    const indexes = chunksOf(hit.node);
    if (!indexes.length) return;
    const index = indexes[indexes.length - 1]; // in an overlap: the chunk that starts there
    this.markSelected(hit.col, index);
    this.nonce = Math.max(this.nonce + 1, Date.now());
    this.setStateValue("selection", { column: hit.col.i, index, nonce: this.nonce });
  }

  /**
   * @param {Column} col
   * @param {number | null} index
   */
  markSelected(col, index) {
    col.box.querySelectorAll(".cvd-sel").forEach((n) => n.classList.remove("cvd-sel"));
    col.box.querySelectorAll(".cv-psel").forEach((n) => n.classList.remove("cv-psel"));
    col.shown = index;
    if (index === null) return;
    col.box.querySelectorAll(extentSelector(index)).forEach((n) => n.classList.add("cvd-sel"));
    // its parent, grandparent ... are marked too: retrieval would return them with it
    const seen = new Set();
    let info = this.infoOf(col, index);
    while (info && info.parent !== undefined && !seen.has(info.parent)) {
      const parent = Number(info.parent);
      seen.add(info.parent);
      col.box.querySelectorAll(`[data-parent-index="${parent}"],.cv-p[data-continues="${parent}"]`)
        .forEach((n) => n.classList.add("cv-psel"));
      info = this.infoOf(col, parent);
    }
  }

  /**
   * @param {Column} col
   * @param {HTMLElement} node
   * @param {number[]} indexes
   */
  describe(col, node, indexes) {
    const ds = node.dataset;
    if (ds.overlap !== undefined) {
      const a = Number(ds.start), b = Number(ds.end);
      return [
        ["b", `Overlap of chunks ${indexes.join(" and ")}`],
        ["kv", "characters", `${fmt(a)}\u2013${fmt(b)} (${fmt(b - a)} chars, in both chunks)`],
        ...indexes.flatMap((i) => this.hitRows(col, i, true)),
        ["hint", "click to select chunk " + indexes[indexes.length - 1]],
      ];
    }
    if (node.classList.contains("cv-gap")) {
      const a = Number(ds.gapStart), b = Number(ds.gapEnd);
      return [["b", "Text in no chunk"], ["kv", "characters", `${fmt(a)}\u2013${fmt(b)} (${fmt(b - a)} chars)`]];
    }
    const index = indexes[0];
    const d = this.infoOf(col, index);
    if (!d) return [["b", `Chunk ${index}`]];
    const start = Number(d.start), end = Number(d.end);
    const rows = [["b", `Chunk ${index}` + (d.parentIndex !== undefined ? " (parent of smaller chunks)" : "")]];
    rows.push(...this.hitRows(col, index, false));
    if (ds.addedTo !== undefined) rows.push(["row", "text added by the strategy (not in the document)"]);
    rows.push(["kv", "span", `${fmt(start)}\u2013${fmt(end)}`]);
    rows.push(["kv", "characters", fmt(end - start)]);
    if (d.tokens !== undefined) rows.push(["kv", "tokens", fmt(d.tokens)]);
    if (d.mtokens !== undefined) rows.push(["kv", "embedding-model tokens", fmt(d.mtokens)]);
    if (d.parent !== undefined) rows.push(["kv", "inside parent chunk", d.parent + (d.level ? `, level ${d.level}` : "")]);
    if (d.reason) rows.push(["kv", "ends because", this.labels.reasons[d.reason] || d.reason]);
    if (d.boundary) rows.push(["kv", "cut falls at", this.labels.boundaries[d.boundary] || d.boundary]);
    if (d.flags) {
      const words = d.flags.split(/\s+/).filter(Boolean).map((f) => this.labels.flags[f] || f);
      rows.push(["flags", "flags: " + words.join("; ")]);
    }
    if (d.hygiene) rows.push(["flags", d.hygiene]); // why: the copy, the repeated text, a secret's kind and place
    rows.push(["hint", "click to select"]);
    return rows;
  }

  // ------------------------------------------------------------------ retrieval overlay
  // Hits: every element of a hit chunk's extent gets .cvd-hit (a returned parent: .cvd-hitp, its
  // matched child .cvd-hit); the first one carries the badge (data-cvd-badge, drawn by CSS
  // ::before so the text and its offsets are untouched); the box turns the other chunks quiet.
  /**
   * @param {Column} col
   * @param {DocViewHit[]} hits
   */
  applyHits(col, hits) {
    col.box.classList.toggle("cvd-quiet", hits.length > 0);
    col.hits = hits;
    col.hitOf = new Map();
    col.hitSpans = [];
    for (const hit of hits) {
      col.hitOf.set(hit.index, { hit, role: "returned" });
      if (isParentHit(hit)) col.hitOf.set(/** @type {number} */ (hit.matched), { hit, role: "matched" });
      const info = this.infoOf(col, hit.index);
      if (info) col.hitSpans.push({ hit, start: Number(info.start), end: Number(info.end), first: null });
    }
    this.paintHits(col);
  }

  // the hits' outlines and badges on the elements drawn (again after a page is drawn)
  /** @param {Column} col */
  paintHits(col) {
    const box = col.box;
    box.querySelectorAll(".cvd-hit,.cvd-hitp").forEach((n) => n.classList.remove("cvd-hit", "cvd-hitp"));
    box.querySelectorAll("[data-cvd-badge]").forEach((n) => n.removeAttribute("data-cvd-badge"));
    /** @type {Map<number, HTMLElement | null>} */
    const firsts = new Map();
    for (const hit of col.hits) {
      const parent = isParentHit(hit);
      box.querySelectorAll(extentSelector(hit.index)).forEach((n) => n.classList.add(parent ? "cvd-hitp" : "cvd-hit"));
      if (parent) box.querySelectorAll(extentSelector(/** @type {number} */ (hit.matched))).forEach((n) => n.classList.add("cvd-hit"));
      const first = /** @type {HTMLElement | null} */ (box.querySelector(extentSelector(hit.index)));
      if (first) {
        const before = first.getAttribute("data-cvd-badge");
        first.setAttribute("data-cvd-badge", (before ? before + "   " : "") + badge(hit));
      }
      firsts.set(hit.index, first);
    }
    for (const span of col.hitSpans) span.first = firsts.get(span.hit.index) || null;
  }

  /**
   * @param {Column} col
   * @param {number} index
   * @param {boolean} short
   */
  hitRows(col, index, short) {
    const entry = col.hitOf && col.hitOf.get(index);
    if (!entry) return [];
    const { hit } = entry;
    const score = Number(hit.score).toFixed(2);
    if (entry.role === "matched") {
      return [["hit", `chunk ${index} matched the query (score ${score}); its parent chunk ${hit.index} is returned at rank #${hit.rank}`]];
    }
    const what = short ? `chunk ${index} retrieved` : "retrieved";
    const rows = [["hit", `${what}: rank #${hit.rank} \u00b7 score ${score}`]];
    if (isParentHit(hit) && !short) rows.push(["hit", `returned as the parent of chunk ${hit.matched}, which matched`]);
    return rows;
  }

  /** @param {{ html: boolean, hits: boolean, track: boolean }[]} changed */
  updateOverlay(changed) {
    const refs = this.data.references || [];
    const refsKey = JSON.stringify(refs);
    const anyHtml = changed.some((c) => c.html);
    if (refsKey !== this.refsKey || anyHtml) {
      /** @type {string} */
      this.refsKey = refsKey;
      this.setRefRanges(this.referenceRanges(refs));
      this.columns.forEach((c) => (c.marksKey = null));
    }
    this.columns.forEach((col, i) => {
      const key = refsKey + "|" + col.hitsKey;
      if (changed[i] && changed[i].track) col.marksKey = null;
      if (key !== col.marksKey) {
        col.marksKey = key;
        this.drawMarks(col, refs);
      }
    });
    this.updateOverlayKey(refs);
    changed.forEach((c, i) => {
      if (c.hits) this.showTopHit(this.columns[i]);
    });
  }

  // a new query: each column scrolls its own best hit into view (programmatic: does not sync)
  /** @param {Column} col */
  showTopHit(col) {
    const top = col.hitSpans.find((h) => h.hit.rank === Math.min(...col.hitSpans.map((x) => x.hit.rank)));
    if (!top) return;
    col.anchors = null; // badges change line breaks
    if (!top.first) return col.pages ? this.alignTo(col, top.start, -24) : undefined;
    this.setScroll(col, top.first.offsetTop - 24);
    this.ensureWindow(col);
  }

  /**
   * @param {DocViewPayload["references"]} refs
   * @returns {Range[]}
   */
  referenceRanges(refs) {
    const ranges = [];
    for (const col of this.columns) {
      if (col.id === null) continue;
      for (const [a, b] of refs) {
        ranges.push(...this.rangesOf(col, a, b));
      }
    }
    return ranges;
  }

  /** @param {Range[]} ranges */
  setRefRanges(ranges) {
    const registry = highlightRegistry();
    if (registry) {
      (this.refRanges || []).forEach((r) => registry.delete(r));
      ranges.forEach((r) => registry.add(r));
    }
    this.refRanges = ranges;
  }

  /**
   * @param {Column} col
   * @param {DocViewPayload["references"]} refs
   */
  drawMarks(col, refs) {
    if (!col.track) return;
    col.track.querySelectorAll(".cvd-refmark,.cvd-hitmark").forEach((n) => n.remove());
    const length = Math.max(1, Number(this.data.length) || 1);
    const line = col.track.querySelector(".cvd-track-line");
    for (const [a, b] of refs) {
      const mark = el("div", "cvd-refmark");
      mark.style.left = `${(100 * a) / length}%`;
      mark.style.width = `max(4px, ${(100 * (b - a)) / length}%)`;
      col.track.appendChild(mark); // drawn over the hit marks (z-index), along the bottom edge
    }
    for (const { hit, start, end } of [...col.hitSpans].sort((x, y) => x.hit.rank - y.hit.rank)) { // rank 1 ends up on top
      const mark = col.track.insertBefore(el("div", "cvd-hitmark", String(hit.rank)), line ? line.nextSibling : null);
      mark.dataset.rank = String(hit.rank);
      mark.style.left = `${(100 * start) / length}%`;
      mark.style.width = `max(11px, ${(100 * (end - start)) / length}%)`;
    }
  }

  /** @param {DocViewPayload["references"]} refs */
  updateOverlayKey(refs) {
    const hits = this.columns.some((c) => c.hitSpans.length);
    const key = `${hits}|${refs.length > 0}|${!!this.data.answer_selection}`;
    if (key === this.overlayKey) return;
    /** @type {string} */
    this.overlayKey = key;
    const bar = this.overlayKeyEl;
    bar.replaceChildren();
    if (hits) {
      const item = bar.appendChild(el("span"));
      item.appendChild(el("i", "cvd-key-hit", "#1 \u00b7 0.62"));
      item.appendChild(document.createTextNode("retrieved: rank \u00b7 score"));
    }
    if (refs.length) {
      const item = bar.appendChild(el("span"));
      item.appendChild(el("i", "cvd-key-ref", "answer"));
      item.appendChild(document.createTextNode("expected answer"));
    }
    if (this.data.answer_selection) bar.appendChild(el("span", "cvd-key-hint", "select text to set the expected answer"));
  }

  /**
   * @param {Column} col
   * @param {number} offset
   * @param {number} perPx
   */
  ribbonOverlayRows(col, offset, perPx) {
    const rows = [];
    const slack = 11 * perPx;
    const hits = col.hitSpans.filter((h) => h.start - perPx <= offset && offset <= Math.max(h.end, h.start + slack));
    for (const { hit, start, end } of hits.sort((x, y) => x.hit.rank - y.hit.rank)) {
      rows.push(["b", `${col.data.label}: rank #${hit.rank} \u00b7 score ${Number(hit.score).toFixed(2)}`]);
      rows.push(["kv", `chunk ${hit.index}`, `characters ${fmt(start)}\u2013${fmt(end)}`]);
    }
    for (const [a, b] of this.data.references || []) {
      if (a - 2 * perPx <= offset && offset <= Math.max(b, a + 4 * perPx)) rows.push(["hit", `expected answer: characters ${fmt(a)}\u2013${fmt(b)}`]);
    }
    return rows;
  }

  // ------------------------------------------------------------------ document offsets <-> DOM
  // The column's text nodes in order, outside added text (<ins class="cv-add">), are the document
  // text, except what the HTML parser changes: CR LF becomes LF (and offsets count code points,
  // JS strings UTF-16 units). Each node's document start is kept; "crlf" when every LF was CR LF.
  /**
   * @param {Column} col
   * @returns {TextIndex}
   */
  textIndexOf(col) {
    if (col.textIndex) return col.textIndex;
    const length = Number(this.data.length) || 0;
    // the parts drawn: the whole box, or each page drawn (from its own document start)
    const parts = col.pages
      ? col.pages.filter((p) => p.drawn).map((p) => ({ within: p.node, start: p.start, length: p.end - p.start }))
      : [{ within: col.box, start: 0, length }];
    /** @type {Text[]} */
    const nodes = [];
    /** @type {number[]} */
    const startList = [], complexList = [], crlfList = [];
    let at = 0, anyCrlf = false;
    for (const part of parts) {
      const walker = document.createTreeWalker(part.within, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {
        acceptNode: (n) => n.nodeType === 1 ? (/** @type {Element} */ (n).classList.contains("cv-add") ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_SKIP) : NodeFilter.FILTER_ACCEPT,
      });
      /** @type {Text[]} */
      const own = [];
      let points = 0, lfs = 0;
      for (let n = /** @type {Text | null} */ (walker.nextNode()); n; n = /** @type {Text | null} */ (walker.nextNode())) {
        own.push(n);
        points += codePoints(n.data);
        lfs += countLf(n.data);
      }
      const crlf = points !== part.length && points + lfs === part.length;
      anyCrlf = anyCrlf || crlf;
      at = part.start;
      for (const n of own) {
        nodes.push(n);
        startList.push(at);
        complexList.push(/[\uD800-\uDFFF]/.test(n.data) || (crlf && n.data.includes("\n")) ? 1 : 0);
        crlfList.push(crlf ? 1 : 0);
        at += codePoints(n.data) + (crlf ? countLf(n.data) : 0);
      }
    }
    const starts = Float64Array.from(startList.concat([at]));
    const complex = Uint8Array.from(complexList);
    const crlfs = Uint8Array.from(crlfList);
    col.textIndex = { nodes, starts, complex, crlfs, crlf: anyCrlf, position: new Map(nodes.map((n, k) => [n, k])) };
    return col.textIndex;
  }

  // a DOM Range over the document span [a, b) in a column where it is drawn (null when none of it is)
  /**
   * @param {Column} col
   * @param {number} a
   * @param {number} b
   */
  rangeOf(col, a, b) {
    const ranges = this.rangesOf(col, a, b);
    if (!ranges.length) return null;
    const range = ranges[0];
    const last = ranges[ranges.length - 1];
    range.setEnd(last.endContainer, last.endOffset);
    return range;
  }

  // DOM Ranges over the document span [a, b) in a column: one per run of drawn text it meets
  // (none where its pages are not drawn)
  /**
   * @param {Column} col
   * @param {number} a
   * @param {number} b
   */
  rangesOf(col, a, b) {
    const ix = this.textIndexOf(col);
    if (!ix.nodes.length) return [];
    /** @type {Array<[number, number]>} the document spans drawn: the whole column, or each run of pages drawn */
    const drawn = [];
    if (!col.pages) drawn.push([0, Number(this.data.length) || 0]);
    else {
      for (const p of col.pages) {
        if (!p.drawn) continue;
        const last = drawn[drawn.length - 1];
        if (last && last[1] === p.start) last[1] = p.end;
        else drawn.push([p.start, p.end]);
      }
    }
    const out = [];
    for (const [lo, hi] of drawn) {
      const from = Math.max(a, lo), to = Math.min(b, hi);
      if (from >= to) continue;
      const start = this.domPoint(ix, from, true), end = this.domPoint(ix, to, false);
      const range = document.createRange();
      range.setStart(start[0], start[1]);
      range.setEnd(end[0], end[1]);
      if (!range.collapsed) out.push(range);
    }
    return out;
  }

  /**
   * @param {TextIndex} ix
   * @param {number} offset
   * @param {boolean} forward
   * @returns {[Node, number]}
   */
  domPoint(ix, offset, forward) {
    const k = clamp(forward ? lastAtMost(ix.starts, offset) : firstAtLeast(ix.starts, offset) - 1, 0, ix.nodes.length - 1);
    const node = ix.nodes[k];
    const within = offset - ix.starts[k];
    return [node, ix.complex[k] ? unitsFor(node.data, within, !!ix.crlfs[k]) : clamp(within, 0, node.data.length)];
  }

  // the document offset of a DOM boundary point (container, offset) in a column
  /**
   * @param {Column} col
   * @param {Node} container
   * @param {number} offset
   */
  docOffset(col, container, offset) {
    const ix = this.textIndexOf(col);
    const k = ix.position.get(container);
    if (k !== undefined) return ix.starts[k] + (ix.complex[k] ? docUnits(/** @type {Text} */ (container).data, offset, !!ix.crlfs[k]) : offset);
    const probe = document.createRange();
    probe.setStart(container, offset);
    let lo = 0, hi = ix.nodes.length; // the first text node at or after the point
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (probe.comparePoint(ix.nodes[mid], 0) < 0) lo = mid + 1;
      else hi = mid;
    }
    return ix.starts[lo];
  }

  selectionRange() {
    const selection = document.getSelection();
    if (!selection || !selection.rangeCount) return null;
    // a ShadowRoot (isolate_styles); Chrome's older shadowRoot.getSelection() is not in the DOM types
    const shadow = /** @type {ShadowRoot & { getSelection?: () => Selection | null }} */ (this.root.getRootNode());
    if (selection.getComposedRanges) {
      try {
        return selection.getComposedRanges({ shadowRoots: [shadow] })[0] || null;
      } catch (err) {
        const older = /** @type {Selection & { getComposedRanges(...roots: ShadowRoot[]): StaticRange[] }} */ (selection);
        return older.getComposedRanges(shadow)[0] || null;
      }
    }
    const inner = shadow.getSelection ? shadow.getSelection() : selection;
    return inner && inner.rangeCount ? inner.getRangeAt(0) : null;
  }

  readSelection() {
    if (!this.data || !this.data.answer_selection) return;
    const range = this.selectionRange();
    if (!range || range.collapsed) return;
    /** @type {(n: Node) => HTMLElement | null | undefined} */
    const boxOf = (n) => (n.nodeType === 1 ? /** @type {Element} */ (n) : n.parentElement)?.closest(".cvd-box");
    const box = boxOf(range.startContainer);
    if (!box || box !== boxOf(range.endContainer)) return;
    const col = this.columns[Number(box.dataset.column)];
    const start = this.docOffset(col, range.startContainer, range.startOffset);
    const end = this.docOffset(col, range.endContainer, range.endOffset);
    if (!(end > start)) return;
    this.nonce = Math.max(this.nonce + 1, Date.now());
    this.lastAnswer = { start, end, nonce: this.nonce };
    this.setStateValue("answer", this.lastAnswer);
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
