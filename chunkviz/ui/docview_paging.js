// @ts-check
// The document view's drawing: an update's columns, their HTML, and the pages of a long column
// (the page store, the windows asked for, the pages drawn in and around each box's visible part).

class DocViewPaging extends DocViewBase {
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
}
