// @ts-check
// The document view's ribbon and linked scrolling: the tracks, offsets <-> pixels, scrolling every
// column to the same document offset, and the ribbon's clicks and tooltips.

class DocViewScroll extends DocViewPaging {
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
}
