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
// The view's code is in docview_base.js, docview_paging.js, docview_scroll.js, docview_hits.js and
// docview_selection.js (chunkviz/views/page.py DOCVIEW_FILES: one script, in that order, this file last).

/** @type {WeakMap<ShadowRoot, DocView>} */
const VIEWS = new WeakMap();

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
