// @ts-check
// Semantic tuning panel (Streamlit components v2). Called on every render with new data; the DOM
// (and this module) persist, so per-panel state lives in a WeakMap keyed by parentElement.
// Document text only reaches the DOM as the server-escaped HTML of chunkviz.drawing.render (innerHTML)
// or through textContent; everything else is built with createElement / setAttribute.

/** @typedef {import("./payload").TuningPayload} TuningPayload */
/** @typedef {import("./payload").TuningData} TuningData */
/**
 * What the panel draws: Python's truth, or a preview from the step table while the control moves.
 * @typedef {{ amount: number | null, threshold: number | null, breakpoints: number[], ties: number[],
 *   sizeCuts: number[], preview: boolean, caption: string }} View
 */
/**
 * @typedef {{ w: number, h: number, x: (off: number) => number, y: (v: number) => number,
 *   lo: number, hi: number, L: number }} Scales
 */
/**
 * One panel's state and DOM (kept per parentElement across renders).
 * @typedef {object} Panel
 * @property {ShadowRoot} root
 * @property {TuningPayload | null} data the payload of the last render
 * @property {string | null} text the document text read back from the DOM (cached)
 * @property {ReturnType<typeof setTimeout> | null} timer the debounce before sending the amount
 * @property {number | null} sent the amount sent and not yet answered
 * @property {number} sentAt
 * @property {number} [sentPerf]
 * @property {number | null} local the control's value in the browser
 * @property {number} [pendingPreview]
 * @property {number} [raf]
 * @property {number} sends
 * @property {number} renders
 * @property {number} [height] the plot's height in pixels
 * @property {(string | null)[] | null} [shades] the chunk shades read from the text's CSS
 * @property {TuningPayload | null} [drawnFor] the payload the static layer was drawn for
 * @property {number} [drawnWidth]
 * @property {Scales} [scale]
 * @property {SVGElement} [dyn] the layer redrawn on every move
 * @property {(name: string, value: unknown) => void} [setStateValue]
 * @property {HTMLElement} panel
 * @property {HTMLElement} label
 * @property {HTMLInputElement} range
 * @property {HTMLInputElement} number
 * @property {HTMLElement} meaning
 * @property {HTMLElement} caption
 * @property {SVGElement} plot
 * @property {HTMLElement} legend
 * @property {SVGElement} curve
 * @property {HTMLElement} tip
 * @property {HTMLElement} box
 * @property {HTMLElement} content
 */

const SVG = "http://www.w3.org/2000/svg";
const DEBOUNCE_MS = 150;
const STALE_MS = 10000;
/** @type {WeakMap<ShadowRoot, Panel>} */
const panels = new WeakMap();

/**
 * @param {string} tag
 * @param {string | null} [cls]
 * @param {Node} [parent]
 * @returns {HTMLElement}
 */
function el(tag, cls, parent) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (parent) parent.appendChild(node);
  return node;
}

/**
 * @param {string} tag
 * @param {Record<string, unknown>} [attrs]
 * @param {Node} [parent]
 * @returns {SVGElement}
 */
function svg(tag, attrs, parent) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
  if (parent) parent.appendChild(node);
  return node;
}

/** @param {number | null | undefined} v */
function fmt(v, digits = 3) {
  return v === null || v === undefined ? "–" : Number(v).toFixed(digits);
}

/** @param {number} v */
function ordinal(v) {
  const r = Math.round(v * 1e6) / 1e6;
  if (r !== Math.trunc(r)) return `${r}th`;
  const n = Math.trunc(r), t = n % 100, d = n % 10;
  return `${n}${t >= 10 && t <= 20 ? "th" : d === 1 ? "st" : d === 2 ? "nd" : d === 3 ? "rd" : "th"}`;
}

/**
 * @param {TuningData["kind"]} kind
 * @param {number | null} amount
 */
function meaning(kind, amount) {
  if (amount === null || Number.isNaN(amount)) return "";
  if (kind === "percentile") return `cuts pairs less similar than the ${ordinal(100 - amount)} percentile of similarity (about the ${fmt(100 - amount, 0)} % least similar)`;
  if (kind === "gradient") return `cuts pairs whose rise in distance is above its ${ordinal(amount)} percentile`;
  if (kind === "standard_deviation") return `cuts pairs less similar than mean - ${amount} × standard deviation`;
  if (kind === "interquartile") return `cuts pairs less similar than mean - ${amount} × interquartile range`;
  return `cuts pairs less similar than ${amount}`;
}

/**
 * @param {ShadowRoot} root
 * @returns {Panel}
 */
function build(root) {
  const st = /** @type {Panel} */ ({ root, timer: null, sent: null, sentAt: 0, local: null, sends: 0, renders: 0, data: null, text: null });
  const panel = el("div", "cvt", root);
  panel.setAttribute("data-testid", "cvt-panel");
  st.panel = panel;
  const controls = el("div", "cvt-controls", panel);
  st.label = el("label", "cvt-label", controls);
  st.range = /** @type {HTMLInputElement} */ (el("input", "cvt-range", controls));
  st.range.type = "range";
  st.number = /** @type {HTMLInputElement} */ (el("input", "cvt-number", controls));
  st.number.type = "number";
  st.meaning = el("div", "cvt-meaning", controls);
  st.caption = el("div", "cvt-caption", panel);
  const plots = el("div", "cvt-plots", panel);
  const main = el("div", "cvt-main", plots);
  st.plot = svg("svg", { class: "cvt-sim", role: "img" }, main);
  st.legend = el("div", "cvt-legend", main);
  const side = el("div", "cvt-side", plots);
  el("div", "cvt-side-title", side).textContent = "chunks for every percentile";
  st.curve = svg("svg", { class: "cvt-curve", role: "img" }, side);
  st.tip = el("div", "cvt-tip", panel);
  st.box = el("div", "cvt-text", panel);
  st.box.setAttribute("data-testid", "cvt-text");
  st.content = el("div", "cvt-content", st.box);

  /** @param {string} raw */
  const onInput = (raw) => {
    const v = Number(raw);
    const c = st.data && st.data.tuning.control;
    if (!c || raw === "" || Number.isNaN(v) || v < c.min || v > c.max) {
      st.number.classList.toggle("cvt-invalid", raw !== "" && st.data !== null);
      return;
    }
    st.number.classList.remove("cvt-invalid");
    st.local = v;
    if (st.range.value !== String(v)) st.range.value = String(v);
    if (document.activeElement !== st.number && st.root.activeElement !== st.number) st.number.value = String(v);
    st.pendingPreview = v;
    if (!st.raf) st.raf = requestAnimationFrame(() => { st.raf = 0; preview(st, st.pendingPreview); });
    clearTimeout(st.timer);
    st.timer = setTimeout(() => send(st, v), DEBOUNCE_MS);
    st.panel.setAttribute("data-pending", "1"); // a send is scheduled (tests wait for "0": nothing more to come)
  };
  st.range.addEventListener("input", () => onInput(st.range.value));
  st.number.addEventListener("input", () => onInput(st.number.value));
  st.number.addEventListener("change", () => {
    if (st.number.classList.contains("cvt-invalid") && st.local !== null) {
      st.number.value = String(st.local);
      st.number.classList.remove("cvt-invalid");
    }
  });
  st.plot.addEventListener("mousemove", (e) => hover(st, e));
  st.plot.addEventListener("mouseleave", () => { st.tip.style.display = "none"; });
  st.plot.addEventListener("click", (e) => clickPoint(st, e));
  if (typeof ResizeObserver !== "undefined") {
    let last = 0;
    new ResizeObserver(() => {
      const w = st.plot.clientWidth;
      if (st.data && Math.abs(w - last) > 2) { last = w; st.drawnFor = null; draw(st, currentView(st)); }
    }).observe(main);
  }
  return st;
}

/**
 * @param {Panel} st
 * @param {number} v
 */
function send(st, v) {
  st.timer = null;
  st.panel.setAttribute("data-pending", "0");
  if (st.data && v === st.data.tuning.amount && st.sent === null) { settle(st); return; }
  st.sent = v;
  st.sentAt = Date.now();
  st.sentPerf = performance.now();
  st.sends += 1;
  st.panel.setAttribute("data-sends", String(st.sends));
  st.panel.setAttribute("data-state", "waiting");
  st.setStateValue("amount", v);
}

/** @param {Panel} st */
function settle(st) {
  if (st.sentPerf) {
    st.panel.setAttribute("data-roundtrip-ms", String(Math.round(performance.now() - st.sentPerf)));
    st.sentPerf = 0;
  }
  st.panel.setAttribute("data-state", "settled");
  // stamped after the next frame is painted: "settled" as the user sees it
  requestAnimationFrame(() => setTimeout(() => st.panel.setAttribute("data-settled-at", String(performance.now())), 0));
  st.box.classList.remove("cvt-stale");
}

// ---- the view: truth from Python, or a preview from the step table -------------------------
/**
 * @param {TuningData} t
 * @returns {View}
 */
function truthView(t) {
  return {
    amount: t.amount, threshold: t.threshold, breakpoints: t.breakpoints, ties: t.at_threshold,
    sizeCuts: t.size_cuts, preview: false, caption: t.caption,
  };
}

/**
 * @param {TuningData} t
 * @param {number} v
 * @returns {View}
 */
function previewView(t, v) {
  const c = t.control, table = t.table;
  if (!table) return truthView(t);
  const k = Math.max(0, Math.min(table.values.length - 1, Math.round((v - c.min) / c.step)));
  const cuts = table.cuts[k], ties = table.ties[k];
  const what = t.metric === "similarity" ? "similarity" : "distance-gradient";
  return {
    amount: v, threshold: table.values[k], breakpoints: t.order.slice(0, cuts), ties: t.order.slice(cuts, cuts + ties),
    sizeCuts: [], preview: true,
    caption: `${what} threshold ${fmt(table.values[k])} · ${cuts} breakpoint${cuts === 1 ? "" : "s"} (preview; chunks and cuts forced by max_tokens update when you stop)`,
  };
}

/**
 * @param {Panel} st
 * @returns {View}
 */
function currentView(st) {
  const t = st.data.tuning;
  return st.local !== null && st.local !== t.amount ? previewView(t, st.local) : truthView(t);
}

/**
 * @param {Panel} st
 * @param {number} v
 */
function preview(st, v) {
  if (!st.data) return;
  st.panel.setAttribute("data-state", "preview");
  st.meaning.textContent = meaning(st.data.tuning.kind, v);
  st.box.classList.add("cvt-stale");
  draw(st, previewView(st.data.tuning, v));
}

// ---- drawing ------------------------------------------------------------------------------
const M = { l: 46, r: 12, t: 10, b: 30 };

/**
 * @param {Panel} st
 * @returns {Scales}
 */
function scales(st) {
  const t = st.data.tuning, w = Math.max(200, st.plot.clientWidth || 800), h = st.height;
  const ys = t.pairs.y.concat(t.table ? [Math.min(...t.table.values), Math.max(...t.table.values)] : []);
  let lo = ys.length ? Math.min(...ys) : 0, hi = ys.length ? Math.max(...ys) : 1;
  if (t.threshold !== null) { lo = Math.min(lo, t.threshold); hi = Math.max(hi, t.threshold); }
  const pad = (hi - lo) * 0.06 || 0.05;
  lo -= pad; hi += pad;
  const L = Math.max(1, t.length);
  return {
    w, h,
    x: (off) => M.l + (off / L) * (w - M.l - M.r),
    y: (v) => M.t + (1 - (v - lo) / (hi - lo)) * (h - M.t - M.b),
    lo, hi, L,
  };
}

/**
 * @param {Panel} st
 * @param {View} view
 */
function draw(st, view) {
  // the static layer (bands, axes, curve, dots) only when the truth or the width changed
  const w = Math.max(200, st.plot.clientWidth || 800);
  if (st.drawnFor !== st.data || st.drawnWidth !== w) drawStatic(st);
  drawDynamic(st, view);
}

/** @param {Panel} st */
function drawStatic(st) {
  const t = st.data.tuning, p = st.plot;
  while (p.firstChild) p.removeChild(p.firstChild);
  const s = scales(st);
  st.scale = s;
  st.drawnFor = st.data;
  st.drawnWidth = s.w;
  p.setAttribute("width", String(s.w));
  p.setAttribute("height", String(s.h));
  p.setAttribute("viewBox", `0 0 ${s.w} ${s.h}`);
  const shades = st.shades || ["#eef2f6", "#f8f9fa", "#e7edf3"];
  const bands = svg("g", { class: "cvt-bands" }, p);
  t.chunks.forEach(([a, b], i) => {
    svg("rect", { class: "cvt-band", x: s.x(a), y: M.t, width: Math.max(0.5, s.x(b) - s.x(a)), height: s.h - M.t - M.b, fill: shades[i % 3], "data-chunk": i }, bands);
  });
  svg("line", { class: "cvt-axis", x1: M.l, x2: s.w - M.r, y1: s.h - M.b, y2: s.h - M.b }, p);
  svg("line", { class: "cvt-axis", x1: M.l, x2: M.l, y1: M.t, y2: s.h - M.b }, p);
  for (let k = 0; k <= 4; k++) {
    const v = s.lo + ((s.hi - s.lo) * k) / 4, y = s.y(v);
    svg("line", { class: "cvt-grid", x1: M.l, x2: s.w - M.r, y1: y, y2: y }, p);
    svg("text", { class: "cvt-tick", x: M.l - 4, y: y + 3, "text-anchor": "end" }, p).textContent = v.toFixed(2);
  }
  for (let k = 0; k <= 5; k++) {
    const off = Math.round((s.L * k) / 5);
    svg("text", { class: "cvt-tick", x: s.x(off), y: s.h - M.b + 14, "text-anchor": k === 0 ? "start" : k === 5 ? "end" : "middle" }, p).textContent = off.toLocaleString();
  }
  svg("text", { class: "cvt-axis-title", x: s.w - M.r, y: s.h - 3, "text-anchor": "end" }, p).textContent = "character offset (pair drawn at the end of its first sentence)";
  const mid = M.t + (s.h - M.t - M.b) / 2;
  svg("text", { class: "cvt-axis-title", x: 10, y: mid, transform: `rotate(-90 10 ${mid})`, "text-anchor": "middle" }, p)
    .textContent = t.metric === "similarity" ? "similarity of neighbours" : "rise of distance";
  const xs = t.pairs.x, ys = t.pairs.y;
  if (xs.length) {
    const d = xs.map((x, i) => `${i ? "L" : "M"}${s.x(x).toFixed(1)},${s.y(ys[i]).toFixed(1)}`).join("");
    svg("path", { class: "cvt-line", d }, p);
    if (xs.length <= 600) {
      const dots = svg("g", { class: "cvt-dots" }, p);
      xs.forEach((x, i) => svg("circle", { class: "cvt-dot", cx: s.x(x).toFixed(1), cy: s.y(ys[i]).toFixed(1), r: 3, "data-pair": i }, dots));
    }
  }
  st.dyn = svg("g", { class: "cvt-dynamic" }, p);
}

/**
 * @param {Panel} st
 * @param {View} view
 */
function drawDynamic(st, view) {
  const t = st.data.tuning, s = st.scale, g = st.dyn;
  while (g.firstChild) g.removeChild(g.firstChild);
  st.plot.setAttribute("data-preview", view.preview ? "1" : "0");
  const xs = t.pairs.x, ys = t.pairs.y;
  if (view.threshold !== null && view.threshold !== undefined) {
    const y = s.y(view.threshold);
    svg("line", { class: "cvt-threshold", x1: M.l, x2: s.w - M.r, y1: y, y2: y, "data-value": view.threshold, "data-testid": "cvt-threshold" }, g);
    svg("text", { class: "cvt-threshold-label", x: s.w - M.r - 4, y: y - 4, "text-anchor": "end" }, g).textContent = `threshold ${fmt(view.threshold)}`;
  }
  const marks = svg("g", { class: "cvt-marks" }, g);
  for (const i of view.ties) {
    svg("circle", { class: "cvt-tie", cx: s.x(xs[i]), cy: s.y(ys[i]), r: 6, "data-pair": i }, marks);
  }
  for (const i of view.sizeCuts) {
    const cx = s.x(xs[i]), cy = s.y(ys[i]);
    svg("path", { class: "cvt-size", d: `M${cx},${cy - 6}L${cx + 6},${cy}L${cx},${cy + 6}L${cx - 6},${cy}Z`, "data-pair": i }, marks);
  }
  let d = "";
  for (const i of view.breakpoints) {
    const cx = s.x(xs[i]), cy = s.y(ys[i]);
    d += `M${cx - 5},${cy - 5}L${cx + 5},${cy + 5}M${cx + 5},${cy - 5}L${cx - 5},${cy + 5}`;
  }
  if (d) svg("path", { class: "cvt-break", d, "data-pairs": view.breakpoints.join(" ") }, marks);
  st.plot.setAttribute("data-breakpoints", String(view.breakpoints.length));
  st.caption.textContent = view.caption;
  st.caption.classList.toggle("cvt-preview", view.preview);
  drawLegend(st, view);
  drawCurve(st, view.amount);
}

/**
 * @param {Panel} st
 * @param {View} view
 */
function drawLegend(st, view) {
  const lg = st.legend;
  while (lg.firstChild) lg.removeChild(lg.firstChild);
  /** @type {(cls: string, text: string) => void} */
  const item = (cls, text) => {
    const span = el("span", "cvt-li", lg);
    el("i", cls, span);
    span.appendChild(document.createTextNode(text));
  };
  item("cvt-k-line", st.data.tuning.metric === "similarity" ? "similarity of a sentence pair" : "rise of distance");
  item("cvt-k-thr", "threshold");
  item("cvt-k-break", `breakpoint (${view.breakpoints.length})`);
  if (view.ties.length) item("cvt-k-tie", `exactly at the threshold: not cut (${view.ties.length})`);
  if (view.sizeCuts.length) item("cvt-k-size", `cut to fit max_tokens (${view.sizeCuts.length})`);
  item("cvt-k-band", "chunks (shaded as in the text)");
}

/**
 * @param {Panel} st
 * @param {number | null} amount
 */
function drawCurve(st, amount) {
  const t = st.data.tuning, c = st.curve;
  while (c.firstChild) c.removeChild(c.firstChild);
  const side = c.parentElement;
  if (!t.curve) { side.style.display = "none"; return; }
  side.style.display = "";
  const w = 250, h = st.height - 22, m = { l: 34, r: 8, t: 8, b: 26 };
  c.setAttribute("width", String(w));
  c.setAttribute("height", String(h));
  const n = t.curve.length - 1, max = Math.max(...t.curve, 1);
  /** @param {number} pc */
  const x = (pc) => m.l + (pc / n) * (w - m.l - m.r);
  /** @param {number} v */
  const y = (v) => m.t + (1 - v / max) * (h - m.t - m.b);
  svg("line", { class: "cvt-axis", x1: m.l, x2: w - m.r, y1: h - m.b, y2: h - m.b }, c);
  svg("line", { class: "cvt-axis", x1: m.l, x2: m.l, y1: m.t, y2: h - m.b }, c);
  let d = `M${x(0)},${y(t.curve[0])}`;
  t.curve.forEach((v, pc) => { if (pc) d += `H${x(pc)}V${y(v)}`; });
  svg("path", { class: "cvt-step", d }, c);
  for (const pc of [0, 50, 100]) svg("text", { class: "cvt-tick", x: x(pc), y: h - m.b + 12, "text-anchor": "middle" }, c).textContent = String(pc);
  svg("text", { class: "cvt-tick", x: m.l - 4, y: y(max) + 3, "text-anchor": "end" }, c).textContent = String(max);
  svg("text", { class: "cvt-tick", x: m.l - 4, y: y(0) + 3, "text-anchor": "end" }, c).textContent = "0";
  svg("text", { class: "cvt-axis-title", x: w - m.r, y: h - 2, "text-anchor": "end" }, c).textContent = "percentile p";
  if (amount !== null && amount >= 0 && amount <= n) {
    const count = t.curve[Math.round(amount)];
    svg("circle", { class: "cvt-current", cx: x(amount), cy: y(count), r: 5, "data-count": count }, c);
    svg("text", { class: "cvt-tick cvt-current-label", x: w - m.r, y: m.t + 10, "text-anchor": "end" }, c)
      .textContent = `p = ${amount}: ${count} chunk${count === 1 ? "" : "s"}`;
  }
}

// ---- hover and click ----------------------------------------------------------------------
/**
 * @param {Panel} st
 * @param {MouseEvent} e
 */
function nearestPair(st, e) {
  const t = st.data && st.data.tuning;
  if (!t || !t.pairs.x.length || !st.scale) return -1;
  const r = st.plot.getBoundingClientRect(), px = e.clientX - r.left, py = e.clientY - r.top;
  let best = -1, bd = Infinity;
  t.pairs.x.forEach((x, i) => {
    const dx = st.scale.x(x) - px, dy = (st.scale.y(t.pairs.y[i]) - py) * 0.25, dd = dx * dx + dy * dy;
    if (dd < bd) { bd = dd; best = i; }
  });
  return bd < 400 ? best : -1;
}

/** @param {Panel} st */
function docText(st) {
  if (st.text !== null) return st.text;
  const doc = st.content.querySelector(".cv-doc");
  if (!doc) return (st.text = "");
  const walker = document.createTreeWalker(doc, NodeFilter.SHOW_TEXT);
  let out = "";
  for (let n = /** @type {Text | null} */ (walker.nextNode()); n; n = /** @type {Text | null} */ (walker.nextNode())) {
    if (n.parentElement && n.parentElement.closest("ins.cv-add, .cv-legend")) continue;
    out += n.data;
  }
  st.text = out.length === st.data.tuning.length ? out : "";
  return st.text;
}

/**
 * @param {string} text
 * @param {number} a
 * @param {number} b
 * @param {boolean} fromEnd
 */
function snippet(text, a, b, fromEnd) {
  const s = text.slice(a, b).replace(/\s+/g, " ").trim();
  if (s.length <= 120) return s;
  return fromEnd ? `…${s.slice(s.length - 119)}` : `${s.slice(0, 119)}…`;
}

/**
 * @param {Panel} st
 * @param {MouseEvent} e
 */
function hover(st, e) {
  const i = nearestPair(st, e);
  const tip = st.tip;
  if (i < 0) { tip.style.display = "none"; return; }
  const t = st.data.tuning, view = currentView(st);
  while (tip.firstChild) tip.removeChild(tip.firstChild);
  const head = el("div", "cvt-tip-head", tip);
  const state = view.breakpoints.includes(i) ? "breakpoint" : view.ties.includes(i) ? "exactly at the threshold: not cut"
    : view.sizeCuts.includes(i) ? "cut to fit max_tokens" : "no cut";
  head.textContent = `pair ${i} (sentences ${i} and ${i + 1}) · ${t.metric === "similarity" ? "similarity" : "rise"} ${fmt(t.pairs.y[i], 4)} · ${state}`;
  const text = docText(st), starts = t.sentence_starts, ends = t.pairs.x.concat([t.last_end]);
  if (text) {
    const a = el("div", "cvt-tip-s", tip);
    el("b", null, a).textContent = `${i}: `;
    a.appendChild(document.createTextNode(snippet(text, starts[i], ends[i], true)));
    const b = el("div", "cvt-tip-s", tip);
    el("b", null, b).textContent = `${i + 1}: `;
    b.appendChild(document.createTextNode(snippet(text, starts[i + 1], ends[i + 1], false)));
  }
  tip.style.display = "block";
  const pr = st.panel.getBoundingClientRect();
  const left = Math.min(e.clientX - pr.left + 14, pr.width - 440);
  tip.style.left = `${Math.max(0, left)}px`;
  tip.style.top = `${e.clientY - pr.top + 14}px`;
}

/**
 * @param {Panel} st
 * @param {MouseEvent} e
 */
function clickPoint(st, e) {
  const i = nearestPair(st, e);
  if (i < 0) return;
  const off = st.data.tuning.pairs.x[i];
  const k = st.data.tuning.chunks.findIndex(([a, b]) => a < off && off <= b);
  if (k < 0) return;
  const target = st.content.querySelector(`[data-chunk-index="${k}"]`);
  if (target) scrollInto(st.box, target);
  st.setStateValue("selected", k);
}

/**
 * @param {Element} box
 * @param {Element} target
 */
function scrollInto(box, target) {
  const br = box.getBoundingClientRect(), tr = target.getBoundingClientRect();
  box.scrollTop += tr.top - br.top - 12;
}

/** @param {Panel} st */
function readShades(st) {
  const out = [];
  for (let k = 0; k < 3; k++) {
    const node = st.content.querySelector(`.cv-k${k}`);
    const bg = node ? getComputedStyle(node).backgroundColor : "";
    out.push(bg && bg !== "rgba(0, 0, 0, 0)" ? bg : null);
  }
  return out.every(Boolean) ? out : null;
}

// ---- entry point ----------------------------------------------------------------------------
/** @param {import("./payload").ComponentArgs<import("./payload").TuningPayload>} component */
export default function (component) {
  const { data, parentElement, setStateValue } = component;
  if (!data || !data.tuning) return;
  let st = panels.get(parentElement);
  if (!st) { st = build(parentElement); panels.set(parentElement, st); }
  st.setStateValue = setStateValue;
  const t = data.tuning;
  const stale = st.sent !== null && t.amount !== st.sent && Date.now() - st.sentAt < STALE_MS;
  st.height = data.plot_height || 240;
  if (!st.data || st.data.html !== data.html) {
    const keep = st.box.scrollTop;
    st.content.innerHTML = data.html; // server-escaped HTML from chunkviz.drawing.render
    st.box.scrollTop = keep;
    st.text = null;
    st.shades = readShades(st);
  }
  st.box.style.height = `${data.text_height || 460}px`;
  st.data = data;
  st.renders += 1;
  st.panel.setAttribute("data-renders", String(st.renders));
  st.panel.setAttribute("data-amount", String(t.amount));
  st.panel.setAttribute("data-kind", t.kind);
  const c = t.control;
  for (const input of [st.range, st.number]) {
    input.min = String(c.min); input.max = String(c.max); input.step = String(c.step);
  }
  st.label.textContent = c.label;
  st.range.setAttribute("aria-label", c.label);
  st.number.setAttribute("aria-label", c.label);
  const moving = st.timer !== null || stale;
  if (!moving) {
    st.local = t.amount;
    st.sent = null;
    if (t.amount !== null) { st.range.value = String(t.amount); st.number.value = String(t.amount); }
    st.meaning.textContent = meaning(t.kind, t.amount);
    draw(st, truthView(t));
    settle(st);
  } else {
    st.meaning.textContent = meaning(t.kind, st.local);
    draw(st, previewView(t, st.local));
  }
}
