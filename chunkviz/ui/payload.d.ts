// What Python sends each component of chunkviz/ui (the `data` of a Streamlit components v2 mount)
// and what the component sends back. The one description of that shape: docview.js and tuning.js
// import these types in JSDoc (checked by `tsc --noEmit -p tsconfig.json`); the Python side that
// builds them is named above each interface. Types only: nothing here runs in the browser.
//
// Offsets are character offsets into the document text (Python code points), [start, end) spans.

// ---- the components v2 runtime --------------------------------------------------------------

/** The argument of a component's `export default function` (Streamlit's ComponentArgs, reduced to
 * what chunkviz uses). `parentElement` is a ShadowRoot: chunkviz/ui/component.py declares every
 * component with `isolate_styles=True`. */
export interface ComponentArgs<Data> {
  /** The payload; null or undefined before Python has sent one. */
  data: Data | null | undefined;
  parentElement: ShadowRoot;
  /** Set a state value kept across reruns (Python: the mount's result and `st.session_state[key]`;
   * only keys with an `on_<key>_change` callback are kept). */
  setStateValue: (name: string, value: unknown) => void;
}

/** What a component's render function may return: a cleanup called when the render is superseded. */
export type Cleanup = void | (() => void);

// ---- the document view: chunkviz/ui/docview.py view_payload() ---------------------------------

export interface DocViewPayload {
  /** the document's length in characters */
  length: number;
  /** linked scrolling on at first (the user's checkbox wins until this value changes) */
  sync: boolean;
  /** height of the column boxes in pixels (>= 80) */
  height: number;
  /** trusted HTML from chunkviz.drawing.render.legend_html ("" for none) */
  legend: string;
  /** docview.labels(): plain-word labels keyed by enum value */
  labels: DocViewLabels;
  /** CSS colour per Reason value (chunkviz.drawing.palette.REASON_COLOURS) */
  reason_colours: Record<string, string>;
  columns: DocViewColumn[];
  /** expected-answer spans [start, end), sorted, each inside the document */
  references: Array<[number, number]>;
  /** send a mouse selection back as state "answer" */
  answer_selection: boolean;
  /** a new visitor's first screen: set state "painted" (true) once it is drawn, so the rest of the
   * page follows (chunkviz/ui/firstpaint.py) */
  first_paint: boolean;
}

export interface DocViewLabels {
  reasons: Record<string, string>;
  boundaries: Record<string, string>;
  flags: Record<string, string>;
}

/** docview._column_payload(ColumnView): the column's page table and only the pages it needs */
export interface DocViewColumn {
  /** the strategy's render label (the HTML's data-strategy), shown as text */
  label: string;
  /** content id: a short hash of the column's whole HTML (pages of another id are never reused) */
  id: string;
  /** the root's opening tag of chunkviz.drawing.render.render_html output (<div class="cv-doc" ...>) */
  root: string;
  /** the page table (chunkviz.drawing.paging.cut_pages): [start, end, line ends] of every page, in order;
   * the pages are contiguous from 0 to the document's length */
  pages: Array<[number, number, number]>;
  /** [page number, HTML] of the pages sent: those around the window asked for (state "window"),
   * the selected chunk's and the hits' pages. Each page is render.py output, escaped
   * server-side and well-formed (elements a cut runs through are closed and continued, a chunk's
   * own element continued as data-continues): set as innerHTML. A one-page column is drawn whole
   * as root + page + "</div>" (its HTML exactly) */
  page_html: Array<[number, string]>;
  /** [chunk index, its own element's opening tag] of chunks the browser may need the facts of
   * without their page: the selected chunk, the hits (and matched children), the chunks the pages
   * sent continue, and their ancestors */
  tags: Array<[number, string]>;
  /** CSS colour of the column (palette.strategy_colour(hue)) */
  colour: string;
  hue: number;
  /** one line under the label, shown as text */
  summary: string;
  /** ribbon_cuts(): [end offset, Reason value] of every leaf chunk, by end */
  cuts: Array<[number, string]>;
  /** chunk index selected by Python (scrolled into view when it changes), or null */
  selected: number | null;
  /** the chunks a query retrieved, by rank */
  hits: DocViewHit[];
}

/** docview._hits_payload(): one chunk a query retrieved in a column */
export interface DocViewHit {
  /** the returned chunk's index (a parent for parent_child / small_to_big) */
  index: number;
  /** 1 = best; distinct within a column */
  rank: number;
  /** cosine similarity of the query and the matched chunk (finite) */
  score: number;
  /** the child chunk that matched when the returned chunk is its parent, else null */
  matched: number | null;
}

/** State the document view sends back (read by docview.event_from_state / answer_from_state). */
export interface DocViewState {
  /** the chunk clicked: column = position in `columns`; nonce differs for every click */
  selection: { column: number; index: number; nonce: number } | null;
  /** text selected with the mouse as the document span [start, end) */
  answer: { start: number; end: number; nonce: number } | null;
  /** the pages each column's box wants, as document spans [start, end) by column (docview.windows_from_state);
   * sent when pages near them have not arrived, once the scrolling has settled */
  window: { spans: Array<[number, number]>; nonce: number } | null;
}

// ---- the semantic tuning panel: chunkviz/ui/tuning.py panel_payload() -------------------------

export interface TuningPayload {
  /** chunkviz.semantic.tuning.tuning_data() */
  tuning: TuningData;
  /** chunkviz.drawing.render.render_html of the same chunks, escaped server-side: set as innerHTML */
  html: string;
  /** pixels */
  plot_height: number;
  /** pixels */
  text_height: number;
}

/** chunkviz.semantic.tuning.tuning_data(explanation) */
export interface TuningData {
  /** the threshold type (a key of chunkviz.semantic.tuning.CONTROLS) */
  kind: "percentile" | "gradient" | "standard_deviation" | "interquartile" | "absolute";
  metric: "similarity" | "distance_gradient";
  /** the control's setting (p, k or s); null when not finite */
  amount: number | null;
  /** the threshold value (rounded for drawing); null without sentence pairs */
  threshold: number | null;
  caption: string;
  rule: string;
  control: TuningControl;
  /** the document's length in characters */
  length: number;
  /** where each sentence starts */
  sentence_starts: number[];
  /** where the last sentence ends (0 without sentences) */
  last_end: number;
  /** x: offset of the end of sentence i (pair i = sentences i and i + 1); y: its metric value, rounded */
  pairs: { x: number[]; y: number[] };
  /** pair indices in the order they start to cut (least similar first) */
  order: number[];
  /** per control step k (amount min + k * step): threshold value, pairs that cut, pairs at the
   * threshold (order[:cuts[k]] cut); null without sentence pairs */
  table: { values: number[]; cuts: number[]; ties: number[] } | null;
  /** pair indices that cut */
  breakpoints: number[];
  /** pair indices exactly at the threshold (not cut) */
  at_threshold: number[];
  /** pair indices cut to fit max_tokens */
  size_cuts: number[];
  /** [start, end] of every leaf chunk */
  chunks: Array<[number, number]>;
  /** chunk count for percentiles 0..100 (percentile only), else null */
  curve: number[] | null;
}

/** chunkviz.semantic.tuning.Control of the threshold type */
export interface TuningControl {
  /** the strategy parameter the control sets */
  param: string;
  label: string;
  min: number;
  max: number;
  step: number;
}

/** State the tuning panel sends back (read by tuning.pending_amount / tuning_panel / selected_chunk). */
export interface TuningState {
  /** the control's value after the user stopped moving it */
  amount: number;
  /** the chunk index of a clicked plot point */
  selected: number;
}
