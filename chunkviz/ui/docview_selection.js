// @ts-check
// The document view's hover, click and mouse selection: a chunk's facts in the tooltip, the chunk
// selected, and a selection sent back as document offsets. DocView, the last class of the chain.

class DocView extends DocViewHits {
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
}
