// The document view's methods that an earlier class of its chain calls and a later one defines
// (docview_base.js → docview_paging.js → docview_scroll.js → docview_hits.js → docview_selection.js):
// declared here, merged into DocViewBase, so tsc checks each call; nothing of this reaches the browser.

interface DocViewBase {
  // docview_scroll.js
  drawTrack(col: Column, cuts: DocViewColumn["cuts"]): void;
  updateReasons(cols: DocViewColumn[]): void;
  anchorsOf(col: Column): Anchors;
  offsetAt(col: Column, y: number): number;
  topFor(col: Column, offset: number): number;
  setScroll(col: Column, top: number): void;
  onScroll(col: Column): void;
  schedule(i: number): void;
  scheduleWindows(): void;
  updateWindow(col: Column): void;
  reveal(col: Column, index: number): void;
  onRibbonClick(e: MouseEvent): void;
  onRibbonHover(e: MouseEvent): void;
  // docview_hits.js
  applyHits(col: Column, hits: DocViewHit[]): void;
  paintHits(col: Column): void;
  updateOverlay(changed: { html: boolean; hits: boolean; track: boolean }[]): void;
  referenceRanges(refs: DocViewPayload["references"]): Range[];
  setRefRanges(ranges: Range[]): void;
  ribbonOverlayRows(col: Column, offset: number, perPx: number): string[][];
  // docview_selection.js
  onHover(e: MouseEvent): void;
  clearHover(): void;
  onClick(e: MouseEvent): void;
  markSelected(col: Column, index: number | null): void;
  rangesOf(col: Column, a: number, b: number): Range[];
  readSelection(): void;
}
