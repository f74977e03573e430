// @ts-check
// The document view's retrieval overlay: hit badges and outlines, expected answers (highlights and
// ribbon marks) and the overlay's key.

class DocViewHits extends DocViewScroll {
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
}
