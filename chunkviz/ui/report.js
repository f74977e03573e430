// @ts-check
// chunkviz's document view outside Streamlit: a static report (chunkviz report) or a notebook cell
// (chunkviz.show). chunkviz/views/page.py puts this file after docview.js (whose `export default`
// becomes `const cvdMount = ...`, the one copy of the view's behaviour) in one inline script and
// calls cvStart(root id, cvdMount). This file is the host Streamlit would be: it gives the view a
// shadow root with the view's stylesheet and the payload Python built (every page of every column:
// there is no server to page from), answers the view's state (a click shows the chunk's details
// below; a window request hands it the pages it asks for), and, for a semantic column, draws the
// similarity plot (inline SVG) with a percentile slider that re-cuts the column from the numbers
// stored in the page (cvRecut: the arithmetic of chunkviz/semantic/assembly.py; no model runs here).
// Document text reaches the DOM only as render.py's escaped HTML, as HTML this file escapes the same
// way (cvEscape, the re-cut column), or through textContent.

/**
 * The re-cut tables of a semantic column (chunkviz/views/semantic.py _recut_tables).
 * @typedef {object} Recut
 * @property {number[]} cuts sentence cuts: cuts[k] starts sentence k, cuts[n] is the document's length
 * @property {Array<number | number[]>} edges per cut: [clean start, head tokens, tokens before, clean end, tail tokens,
 *   tokens before], or, for a clean cut, the tokens before it alone
 * @property {Record<string, number>} direct "a,b": tokens of the short spans counted whole
 * @property {number} budget tokens a chunk's own text may have
 * @property {number} specials the model's special tokens
 * @property {number} limit max_tokens, special tokens included
 * @property {number} min_tokens
 * @property {number[]} rank dense rank of each pair's similarity
 * @property {number[]} order pairs, least similar first (stable)
 * @property {number[]} steps the slider's percentiles
 * @property {number[]} step_cuts pairs that cut at each step
 * @property {number[]} step_ties pairs exactly at the threshold at each step
 * @property {string[]} step_values the threshold at each step, 3 decimals
 * @property {Record<string, number[][]>} long word-split pieces [start, end, model tokens, boundary] of sentences over the budget
 * @property {string[]} boundary_names
 * @property {number[]} cut_boundary per sentence cut, the boundary (index into boundary_names) of a chunk ending there
 */
/**
 * A semantic column's plot and caption (chunkviz/views/semantic.py semantic_view_data).
 * @typedef {object} SemanticData
 * @property {number} column the column's position in the view
 * @property {string} caption
 * @property {string} summary
 * @property {string} metric
 * @property {string} kind
 * @property {number | null} amount
 * @property {number | null} threshold
 * @property {number[]} x
 * @property {number[]} y
 * @property {number[]} breakpoints
 * @property {number[]} ties
 * @property {number[]} size_cuts
 * @property {Recut | null} recut
 * @property {string} why_not
 */
/** @typedef {{ start: number, end: number, reason: string, boundary: string, mtokens: number }} CutChunk */
/** @typedef {{ chunks: CutChunk[], breakpoints: number[], ties: number[], sizeCuts: number[], caption: string, threshold: number }} RecutResult */
/**
 * What Python puts in the page (chunkviz/views/page.py view_data).
 * @typedef {object} ViewData
 * @property {import("./payload").DocViewPayload} view the document view's payload, every page included
 * @property {string} css the view's stylesheet (render.py's rules, then docview.css)
 * @property {Array<[number, number]>} marks where the HTML parser changes the text (page.py text_marks)
 * @property {string} tokenizer
 * @property {SemanticData[]} semantic
 */

/** @param {string} s */
function cvEscape(s) {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#x27;");
}

/** Python's str.isspace characters (render.py's rstrip), at the end of a string. */
const CV_TRAILING_SPACE = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/;

/**
 * Code point offsets (Python's) to string slices (UTF-16).
 * @param {string} text
 * @returns {(a: number, b: number) => string}
 */
function cvSlicer(text) {
  if (!/[\uD800-\uDFFF]/.test(text)) return (a, b) => text.slice(a, b);
  const at = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    at.push(i + 1);
  }
  return (a, b) => text.slice(at[a], at[b]);
}

/**
 * The document's text from what the HTML parser made of it (CRLF and CR became LF, NUL was dropped)
 * and the marks of those places ([code point offset, 0: CR of a CRLF, 1: lone CR, 2: NUL]).
 * @param {string} parsed
 * @param {Array<[number, number]>} marks
 */
function cvRestore(parsed, marks) {
  if (!marks.length) return parsed;
  const cps = Array.from(parsed);
  const out = [];
  let i = 0, pos = 0;
  for (const [at, kind] of marks) {
    while (pos < at && i < cps.length) {
      out.push(cps[i++]);
      pos++;
    }
    out.push(kind === 2 ? "\0" : "\r");
    if (kind === 1) i++; // the LF the parser made of a lone CR
    pos++;
  }
  while (i < cps.length) out.push(cps[i++]);
  return out.join("");
}

/**
 * The document's text read back from a column's pages (render.py's escaped text, added text left out).
 * @param {import("./payload").DocViewColumn} column
 * @param {Array<[number, number]>} marks
 */
function cvDocumentText(column, marks) {
  const t = document.createElement("template");
  t.innerHTML = column.root + column.page_html.map(([, h]) => h).join("") + "</div>"; // render.py output: escaped
  t.content.querySelectorAll("ins").forEach((n) => n.remove());
  return cvRestore(t.content.textContent || "", marks);
}

/**
 * Tokens of sentences [a, b) as one chunk, special tokens left out (SpanCounter.count).
 * @param {Recut} R
 * @param {number} a
 * @param {number} b
 */
function cvSize(R, a, b) {
  const direct = R.direct[`${a},${b}`];
  if (direct !== undefined) return direct;
  const s = R.cuts[a], e = R.cuts[b];
  if (e <= s) return 0;
  const ea = R.edges[a], eb = R.edges[b];
  const [start, head, beforeStart] = typeof ea === "number" ? [s, 0, ea] : ea;
  const [end, tail, beforeEnd] = typeof eb === "number" ? [e, 0, eb] : eb.slice(3);
  if (start < 0 || end < 0) throw new Error(`no size for sentences ${a}..${b}`);
  return head + beforeEnd - beforeStart + (end === e ? 0 : tail);
}

/**
 * The chunks of the semantic column at slider step `step` (chunkviz/semantic/assembly.py:
 * group_sentences, _fit_group, _merge_small, group_pieces, then to_chunks' end of document).
 * @param {Recut} R
 * @param {number} step
 * @param {number} length the document's length in characters
 * @returns {RecutResult}
 */
function cvRecut(R, step, length) {
  const n = R.cuts.length - 1;
  const size = (/** @type {number} */ a, /** @type {number} */ b) => cvSize(R, a, b);
  const breakpoints = R.order.slice(0, R.step_cuts[step]).sort((p, q) => p - q);
  const ties = R.order.slice(R.step_cuts[step], R.step_cuts[step] + R.step_ties[step]).sort((p, q) => p - q);
  const bounds = [0, ...breakpoints.map((i) => i + 1), n];
  /** @type {Array<[number, number, string]>} */
  let groups = [];
  /** @type {number[]} */
  const forced = [];
  for (let j = 0; j + 1 < bounds.length; j++) {
    if (bounds[j] >= bounds[j + 1]) continue;
    /** @type {Array<[number, number, string]>} */
    const stack = [[bounds[j], bounds[j + 1], "semantic_breakpoint"]];
    while (stack.length) {
      const [a, b, reason] = /** @type {[number, number, string]} */ (stack.pop());
      if (b - a === 1 || size(a, b) <= R.budget) {
        groups.push([a, b, reason]);
        continue;
      }
      let weakest = a; // np.argmin over similarities a .. b-2: the first of the least similar
      for (let i = a + 1; i < b - 1; i++) if (R.rank[i] < R.rank[weakest]) weakest = i;
      forced.push(weakest);
      stack.push([weakest + 1, b, reason]);
      stack.push([a, weakest + 1, "size_limit"]);
    }
  }
  if (R.min_tokens > 0) groups = cvMergeSmall(R, groups, size, R.min_tokens - R.specials);
  const ends = new Set(groups.slice(0, -1).map((g) => g[1] - 1));
  const sizeCuts = [...new Set(forced)].filter((i) => ends.has(i)).sort((p, q) => p - q);
  /** @type {CutChunk[]} */
  const chunks = [];
  /** @type {(start: number, end: number, reason: string, mtokens: number, boundary: number) => void} */
  const add = (start, end, reason, mtokens, boundary) =>
    chunks.push({ start, end, reason: end >= length ? "end_of_document" : reason, boundary: R.boundary_names[boundary] || "", mtokens });
  for (const [a, b, reason] of groups) {
    const pieces = b - a === 1 ? R.long[String(a)] : undefined;
    if (pieces && size(a, b) > R.budget) {
      pieces.forEach(([s, e, t, at], k) => add(s, e, k === pieces.length - 1 ? reason : "size_limit", t, at));
    } else {
      add(R.cuts[a], R.cuts[b], reason, size(a, b) + R.specials, R.cut_boundary[b]);
    }
  }
  const threshold = Number(R.step_values[step]);
  return { chunks, breakpoints, ties, sizeCuts, caption: cvCaption(R, step, breakpoints.length, ties.length, sizeCuts.length), threshold };
}

/**
 * _merge_small: merge groups under min_tokens into the more similar neighbour while the result fits.
 * @param {Recut} R
 * @param {Array<[number, number, string]>} groups
 * @param {(a: number, b: number) => number} size
 * @param {number} minTokens
 */
function cvMergeSmall(R, groups, size, minTokens) {
  const merge = () => {
    for (let k = 0; k < groups.length; k++) {
      const [a, b, reason] = groups[k];
      if (size(a, b) >= minTokens) continue;
      const left = k > 0 ? R.rank[a - 1] : -1;
      const right = k + 1 < groups.length ? R.rank[b - 1] : -1;
      const sides = right > left ? ["right", "left"] : ["left", "right"]; // sorted by -similarity, stable
      for (const side of sides) {
        if (side === "left" && k > 0) {
          const pa = groups[k - 1][0];
          if (size(pa, b) <= R.budget) return [...groups.slice(0, k - 1), /** @type {[number, number, string]} */ ([pa, b, reason]), ...groups.slice(k + 1)];
        }
        if (side === "right" && k + 1 < groups.length) {
          const [, nb, nreason] = groups[k + 1];
          if (size(a, nb) <= R.budget) return [...groups.slice(0, k), /** @type {[number, number, string]} */ ([a, nb, nreason]), ...groups.slice(k + 2)];
        }
      }
    }
    return null;
  };
  while (groups.length > 1) {
    const merged = merge();
    if (merged === null) break;
    groups = merged;
  }
  return groups;
}

/** @param {number} n */
const cvFmt = (n) => Number(n).toLocaleString("en-US");
/** @param {number} n chunkviz.semantic.thresholds.ordinal of a whole number */
function cvOrdinal(n) {
  const suffix = n % 100 >= 10 && n % 100 <= 20 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" })[n % 10] || "th";
  return `${n}${suffix}`;
}

/**
 * SemanticExplanation.threshold_caption at a slider step.
 * @param {Recut} R
 * @param {number} step
 * @param {number} breakpoints
 * @param {number} ties
 * @param {number} sizeCuts
 */
function cvCaption(R, step, breakpoints, ties, sizeCuts) {
  const pairs = R.rank.length;
  const parts = [
    `similarity threshold ${R.step_values[step]} = ${cvOrdinal(Math.round(100 - R.steps[step]))} percentile of ${cvFmt(pairs)} pair${pairs === 1 ? "" : "s"}`,
    `${cvFmt(breakpoints)} breakpoint${breakpoints === 1 ? "" : "s"}`,
  ];
  if (ties) parts.push(`${cvFmt(ties)} pair${ties === 1 ? " is" : "s are"} exactly at the threshold (not cut)`);
  parts.push(`${cvFmt(sizeCuts)} cut${sizeCuts === 1 ? "" : "s"} forced by max_tokens (${R.limit} model tokens)`);
  return parts.join(" · ");
}

/** Characters of document text per page of a re-cut column (chunkviz.drawing.paging.PAGE_CHARS). */
const CV_PAGE_CHARS = 20000;

/**
 * A re-cut column as render.py draws a chunking that tiles the text (bands in three alternating
 * shades, an end marker after each chunk's last non-space character), cut into pages of whole chunks.
 * @param {(a: number, b: number) => string} slice
 * @param {CutChunk[]} chunks
 * @param {string} label the render label (data-strategy)
 * @returns {{ pages: Array<[number, number, number]>, html: string[] }}
 */
function cvColumnPages(slice, chunks, label) {
  const strategy = cvEscape(label);
  /** @type {Array<[number, number, number]>} */
  const pages = [];
  /** @type {string[]} */
  const html = [];
  /** @type {string[]} */
  let out = [];
  let start = 0, chars = 0, lines = 0;
  chunks.forEach((c, i) => {
    const text = slice(c.start, c.end);
    const kept = text.replace(CV_TRAILING_SPACE, "");
    const marker = `<i class="cv-e" data-end-of="${i}"></i>`;
    const open = `<span id="cv-${strategy}-${i}" class="cv-c cv-k${i % 3}" data-chunk-index="${i}" data-start="${c.start}" data-end="${c.end}" data-reason="${cvEscape(c.reason)}" data-boundary="${cvEscape(c.boundary)}" data-mtokens="${c.mtokens}">`;
    const inside = kept && kept.length < text.length;
    out.push(open + (inside ? cvEscape(kept) + marker + cvEscape(text.slice(kept.length)) : cvEscape(text)) + "</span>" + (inside ? "" : marker));
    chars += c.end - c.start;
    lines += (text.match(/\n/g) || []).length;
    if (chars >= CV_PAGE_CHARS || i === chunks.length - 1) {
      pages.push([start, c.end, lines]);
      html.push(out.join(""));
      out = [];
      start = c.end;
      chars = 0;
      lines = 0;
    }
  });
  if (!pages.length) {
    pages.push([0, 0, 0]);
    html.push("");
  }
  return { pages, html };
}

const CV_SVG = "http://www.w3.org/2000/svg";
/** @type {(tag: string, attrs: Record<string, string | number>, parent?: Element) => Element} */
const cvSvg = (tag, attrs, parent) => {
  const node = document.createElementNS(CV_SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (parent) parent.appendChild(node);
  return node;
};

/**
 * The similarity plot: every adjacent pair at the end of its first sentence, the threshold line,
 * breakpoints (red), pairs at the threshold (not cut, hollow), cuts forced by max_tokens (violet).
 * @param {Element} svg
 * @param {SemanticData} S
 * @param {number} length
 * @param {{ threshold: number | null, breakpoints: number[], ties: number[], sizeCuts: number[] }} at
 */
function cvPlot(svg, S, length, at) {
  svg.replaceChildren();
  const W = Math.max(320, Math.round(svg.parentElement ? svg.parentElement.clientWidth || 800 : 800));
  const H = 190, L = 44, R = 10, T = 10, B = 24;
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("width", String(W));
  svg.setAttribute("height", String(H));
  const values = [...S.y, ...(at.threshold === null ? [] : [at.threshold])];
  let lo = Math.min(...values), hi = Math.max(...values);
  if (!(hi > lo)) { lo -= 0.05; hi += 0.05; }
  const pad = 0.06 * (hi - lo);
  lo -= pad; hi += pad;
  const x = (/** @type {number} */ off) => L + ((W - L - R) * off) / Math.max(1, length);
  const y = (/** @type {number} */ v) => T + ((H - T - B) * (hi - v)) / (hi - lo);
  cvSvg("rect", { x: L, y: T, width: W - L - R, height: H - T - B, fill: "#fff", stroke: "#ced4da" }, svg);
  for (const v of [lo + pad, (lo + hi) / 2, hi - pad]) {
    const label = cvSvg("text", { x: L - 4, y: y(v) + 3, "text-anchor": "end", "font-size": 10, fill: "#495057" }, svg);
    label.textContent = v.toFixed(2);
  }
  const axis = cvSvg("text", { x: L, y: H - 6, "font-size": 10, fill: "#495057" }, svg);
  axis.textContent = `${S.metric === "similarity" ? "similarity of adjacent sentences" : "rise in distance"} · x: character offset (0 to ${cvFmt(length)})`;
  cvSvg("polyline", { points: S.x.map((off, i) => `${x(off).toFixed(1)},${y(S.y[i]).toFixed(1)}`).join(" "), fill: "none", stroke: "#868e96", "stroke-width": 1 }, svg);
  if (at.threshold !== null) {
    cvSvg("line", { x1: L, x2: W - R, y1: y(at.threshold), y2: y(at.threshold), stroke: "#e03131", "stroke-dasharray": "5 3", "stroke-width": 1.5, class: "cvr-threshold", "data-value": at.threshold }, svg);
    const label = cvSvg("text", { x: W - R - 4, y: y(at.threshold) - 4, "text-anchor": "end", "font-size": 10, fill: "#c92a2a" }, svg);
    label.textContent = `threshold ${at.threshold.toFixed(3)}`;
  }
  const cut = new Set(at.breakpoints), tie = new Set(at.ties), forced = new Set(at.sizeCuts);
  S.x.forEach((off, i) => {
    const kind = cut.has(i) ? "cut" : forced.has(i) ? "size" : tie.has(i) ? "tie" : "pair";
    const style = {
      cut: { r: 4, fill: "#e03131", stroke: "#c92a2a" },
      size: { r: 4, fill: "#7048e8", stroke: "#5f3dc4" },
      tie: { r: 4.5, fill: "none", stroke: "#f08c00" },
      pair: { r: 2, fill: "#495057", stroke: "none" },
    }[kind];
    const dot = cvSvg("circle", { cx: x(off).toFixed(1), cy: y(S.y[i]).toFixed(1), ...style, class: `cvr-pt cvr-${kind}`, "data-pair": i }, svg);
    const title = cvSvg("title", {}, dot);
    const what = { cut: "breakpoint", size: "cut forced by max_tokens", tie: "at the threshold (not cut)", pair: "no cut" }[kind];
    title.textContent = `pair ${i} (after character ${cvFmt(off)}): ${S.metric === "similarity" ? "similarity" : "rise"} ${S.y[i].toFixed(4)} · ${what}`;
  });
}

/** @type {(tag: string, cls?: string, text?: string) => HTMLElement} */
const cvEl = (tag, cls, text) => {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
};

/**
 * Start the view in the element with id `id` (a report's page or a notebook cell's output).
 * @param {string} id
 * @param {(component: import("./payload").ComponentArgs<import("./payload").DocViewPayload>) => import("./payload").Cleanup} mount
 */
function cvStart(id, mount) {
  const root = document.getElementById(id);
  if (!root || root.dataset.cvStarted) return;
  root.dataset.cvStarted = "1";
  const source = root.querySelector(`script[type="application/json"]`);
  /** @type {ViewData} */
  const data = JSON.parse(source ? source.textContent || "{}" : "{}");
  const host = /** @type {HTMLElement} */ (root.querySelector(".cvr-view"));
  const shadow = host.shadowRoot || host.attachShadow({ mode: "open" });
  const style = document.createElement("style");
  style.textContent = data.css;
  shadow.replaceChildren(style, cvEl("div", "cvd-root"));
  const full = data.view;
  const text = cvDocumentText(full.columns[0], data.marks || []);
  /** @type {HTMLElement & { __cvr?: object }} */ (root).__cvr = { text }; // for tests
  const slice = cvSlicer(text);
  // every page of every column, by content id (what a window request is answered from)
  /** @type {Map<string, Array<[number, string]>>} */
  const pagesById = new Map(full.columns.map((c) => [c.id, c.page_html]));
  /** @type {import("./payload").DocViewPayload} */
  let current = full;
  /** @type {Map<string, Array<[number, number, number]>>} the page tables of the re-cut columns, by content id */
  const recuts = new Map();
  const focus = /** @type {HTMLElement} */ (root.querySelector(".cvr-focus"));
  /** @param {string} name @param {unknown} value */
  const setStateValue = (name, value) => {
    const v = /** @type {any} */ (value);
    if (name === "selection" && v) showFocus(Number(v.column), Number(v.index));
    if (name === "window" && v && Array.isArray(v.spans)) {
      // the view's page store let pages go (a long document): hand it the pages of the windows it asks for
      const columns = current.columns.map((c, i) => {
        const [a, b] = v.spans[i] || [0, 1];
        const near = c.pages.map((p, k) => (p[1] >= a && p[0] <= b ? k : -1)).filter((k) => k >= 0);
        const lo = Math.max(0, Math.min(...near) - 1), hi = Math.max(...near) + 1;
        return { ...c, page_html: (pagesById.get(c.id) || []).filter(([k]) => k >= lo && k <= hi) };
      });
      draw({ ...current, columns });
    }
  };
  /** @param {import("./payload").DocViewPayload} payload */
  const draw = (payload) => mount({ data: payload, parentElement: shadow, setStateValue });
  /**
   * @param {number} column
   * @param {number} index
   */
  const showFocus = (column, index) => {
    if (!focus) return;
    const node = /** @type {HTMLElement | null} */ (shadow.querySelector(`.cvd-box[data-column="${column}"] [data-chunk-index="${index}"]`));
    focus.replaceChildren();
    if (!node) return;
    const d = node.dataset;
    const labels = full.labels;
    const start = Number(d.start), end = Number(d.end);
    const col = current.columns[column];
    focus.appendChild(cvEl("h3", "", `Selected: ${col ? col.label : ""} · chunk ${index}`));
    const reason = labels.reasons[d.reason || ""] || d.reason || "";
    const boundary = labels.boundaries[d.boundary || ""] || d.boundary || "";
    const facts = [`characters ${cvFmt(start)}–${cvFmt(end)}`];
    if (d.tokens) facts.push(`${cvFmt(Number(d.tokens))} ${data.tokenizer} tokens`);
    if (d.mtokens) facts.push(`${cvFmt(Number(d.mtokens))} model tokens`);
    facts.push(`ends: ${reason}; cut at: ${boundary}`);
    focus.appendChild(cvEl("p", "cvr-facts", facts.join(" · ")));
    if (d.flags) focus.appendChild(cvEl("p", "cvr-flags", `flags: ${d.flags.split(" ").map((f) => labels.flags[f] || f).join(", ")}`));
    const added = shadow.querySelector(`.cvd-box[data-column="${column}"] [data-added-to="${index}"]`);
    if (added) {
      focus.appendChild(cvEl("p", "cvr-note", "Added by the strategy (not in the source):"));
      focus.appendChild(cvEl("pre", "cvr-added", added.textContent || ""));
    }
    focus.appendChild(cvEl("pre", "cvr-text", slice(start, end)));
  };
  draw(full);
  for (const S of data.semantic || []) startSemantic(S);

  /** @param {SemanticData} S */
  function startSemantic(S) {
    const panel = root.querySelector(`.cvr-semantic[data-column="${S.column}"]`);
    if (!panel) return;
    const svg = cvSvg("svg", { class: "cvr-plot", role: "img" });
    /** @type {HTMLElement} */ (panel.querySelector(".cvr-plot-box")).appendChild(svg);
    const caption = /** @type {HTMLElement} */ (panel.querySelector(".cvr-caption"));
    const initial = { threshold: S.threshold, breakpoints: S.breakpoints, ties: S.ties, sizeCuts: S.size_cuts };
    caption.textContent = S.caption;
    const redraw = (/** @type {typeof initial} */ at) => cvPlot(svg, S, full.length, at);
    redraw(initial);
    let shown = initial;
    new ResizeObserver(() => redraw(shown)).observe(/** @type {Element} */ (svg.parentElement));
    // a point selects the chunk that ends after its first sentence (as the app's plot does)
    svg.addEventListener("click", (e) => {
      const pair = /** @type {Element} */ (e.target).getAttribute("data-pair");
      if (pair === null) return;
      const at = S.x[Number(pair)];
      const index = current.columns[S.column].cuts.findIndex(([end]) => end >= at);
      if (index < 0) return;
      current = { ...current, columns: current.columns.map((c, i) => (i === S.column ? { ...c, selected: index } : c)) };
      draw(current);
      requestAnimationFrame(() => showFocus(S.column, index));
    });
    const R = S.recut;
    const control = /** @type {HTMLElement} */ (panel.querySelector(".cvr-control"));
    if (!R) {
      control.replaceChildren(cvEl("span", "cvr-note", `No slider: ${S.why_not}.`));
      return;
    }
    const range = /** @type {HTMLInputElement} */ (panel.querySelector("input.cvr-range"));
    const value = /** @type {HTMLElement} */ (panel.querySelector(".cvr-value"));
    const original = full.columns[S.column];
    const start = S.amount === null ? 95 : S.amount;
    range.value = String(Math.round(start));
    value.textContent = String(start);
    range.addEventListener("input", () => {
      const step = R.steps.indexOf(Number(range.value));
      if (step < 0) return;
      value.textContent = range.value;
      /** @type {import("./payload").DocViewColumn} */
      let column = original;
      if (R.steps[step] === start) {
        shown = initial;
        caption.textContent = S.caption;
      } else {
        const got = cvRecut(R, step, full.length);
        shown = { threshold: got.threshold, breakpoints: got.breakpoints, ties: got.ties, sizeCuts: got.sizeCuts };
        caption.textContent = got.caption;
        const id = `${original.id}-p${R.steps[step]}`;
        if (!pagesById.has(id)) {
          const { pages, html } = cvColumnPages(slice, got.chunks, decodeAttr(original.root));
          pagesById.set(id, html.map((h, k) => /** @type {[number, string]} */ ([k, h])));
          recuts.set(id, pages);
        }
        const n = got.chunks.length;
        column = {
          ...original,
          id,
          pages: /** @type {Array<[number, number, number]>} */ (recuts.get(id)),
          page_html: pagesById.get(id) || [],
          tags: [],
          cuts: got.chunks.map((c) => /** @type {[number, string]} */ ([c.end, c.reason])),
          selected: null,
          hits: [],
          summary: `${cvFmt(n)} chunk${n === 1 ? "" : "s"} · re-cut in this page at percentile ${R.steps[step]} (flags and ${data.tokenizer} counts are chunkviz's own audit, not redone here)`,
        };
      }
      current = { ...current, columns: current.columns.map((c, i) => (i === S.column ? column : c)) };
      redraw(shown);
      draw(current);
    });
  }
  /** @param {string} tag the root's opening tag: its data-strategy, unescaped */
  function decodeAttr(tag) {
    const t = document.createElement("template");
    t.innerHTML = tag + "</div>";
    const first = /** @type {HTMLElement | null} */ (t.content.firstElementChild);
    return first ? first.dataset.strategy || "" : "";
  }
}
