// Drawing the worksheet in the page: every block's rows, right-aligned by column as on
// paper, carries small and red, the current batch's view cells highlighted.
//
// Sheets get long (a 1,000-digit sum, hundreds of division rows), so the drawing is a canvas
// the size of the visible box, redrawn from the scroll position: a spacer element gives the
// box its full scroll size, and only the visible cells are drawn.  toBlob() draws the whole
// sheet once more, off screen, for "download sheet as PNG".  #sheet's data-lines attribute
// says how many lines (titles and rows) are drawn: 0 when the sheet is clear.

import { positions, rowIndex } from './solve.js';
import { BLANK, MINUS } from './symbols.js';

const CW = 15, CH = 22, LABEL_W = 78, PAD = 8;
const PNG_MAX_SIDE = 32000, PNG_MAX_AREA = 120e6;      // what browsers' canvases allow, with room
const FLAG_ROWS = new Set(['carry', 'borrow']);

export class SheetView {
  constructor(box) {
    this.box = box;
    this.box.textContent = '';
    this.spacer = document.createElement('div');
    this.spacer.className = 'sheet-spacer';
    this.canvas = document.createElement('canvas');
    this.canvas.className = 'sheet-canvas';
    this.box.append(this.spacer, this.canvas);
    this.ws = null;
    this.lines = [];           // [{kind: 'title', sheet} | {kind: 'row', row, block, index}]
    this.light = new Set();    // "block row col" keys of the batch's cells
    this.strong = new Set();   // the cells of the batch's last view
    this.cols = 4;
    this.box.addEventListener('scroll', () => this.draw());
    new ResizeObserver(() => this.draw()).observe(this.box);
  }

  /** Show a worksheet (the runtime's, live: call update() after it changes). */
  show(ws) {
    this.ws = ws;
    this.light.clear();
    this.strong.clear();
    this.update();
  }

  /** Draw nothing (a new problem, or one that failed before it made a sheet). */
  clear() { this.show(null); }

  /** Re-read the worksheet's shape (rows appear as the work proceeds) and redraw. */
  update() {
    const lines = [];
    let cols = 4;
    (this.ws ? this.ws.sheets : []).forEach((sheet, block) => {
      lines.push({ kind: 'title', sheet });
      sheet.rows.forEach((row, index) => {
        lines.push({ kind: 'row', row, block, index });
        cols = Math.max(cols, row.width() + row.offset + 2);
      });
    });
    this.lines = lines;
    this.cols = cols;
    this.spacer.style.width = `${LABEL_W + cols * CW + PAD}px`;
    this.spacer.style.height = `${lines.length * CH + PAD}px`;
    this.box.dataset.lines = String(lines.length);
    this.draw();
  }

  /** Highlight a batch: every cell its views read lightly, its last view strongly, and
   *  scroll so that the last view is in sight.  Returns the last view's positions. */
  highlight(probes) {
    this.light.clear();
    this.strong.clear();
    this.update();
    if (!probes.length) return null;
    const index = rowIndex(this.ws);
    const key = (p) => `${p.block} ${p.row} ${p.col}`;
    const step = Math.max(1, Math.floor(probes.length / 4000));     // a huge batch: a sample suffices
    for (let i = 0; i < probes.length; i += step) {
      for (const p of positions(this.ws, probes[i].where, index)) if (p) this.light.add(key(p));
    }
    const last = positions(this.ws, probes[probes.length - 1].where, index);
    for (const p of last) if (p) this.strong.add(key(p));
    const active = last.filter(Boolean).pop();      // the carry/out side: where the work is going
    if (active) this.follow(active);
    this.draw();
    return last;
  }

  /** Highlight cells given as {block, row, col}: `light` lightly, `strong` (the last view's)
   *  strongly, and scroll so that the last one is in sight (a solve in a worker). */
  highlightCells(light, strong) {
    this.light.clear();
    this.strong.clear();
    this.update();
    const key = (p) => `${p.block} ${p.row} ${p.col}`;
    for (const p of light) this.light.add(key(p));
    for (const p of strong) this.strong.add(key(p));
    if (strong.length) this.follow(strong[strong.length - 1]);
    this.draw();
  }

  clearHighlight() {
    this.light.clear();
    this.strong.clear();
    this.draw();
  }

  /** Scroll the box so that a cell is visible, with some context around it. */
  follow(pos) {
    const line = this.lines.findIndex((l) => l.kind === 'row' && l.block === pos.block && l.index === pos.row);
    if (line < 0) return;
    const row = this.lines[line].row;
    const x = this.cellX(row, pos.col === 'sign' ? row.width() : pos.col ?? 0);
    const y = line * CH;
    const w = this.box.clientWidth, h = this.box.clientHeight;
    if (y < this.box.scrollTop + CH || y > this.box.scrollTop + h - 3 * CH) this.box.scrollTop = Math.max(0, y - h / 2);
    if (x < this.box.scrollLeft + LABEL_W + CW || x > this.box.scrollLeft + w - 3 * CW) this.box.scrollLeft = Math.max(0, x - w / 2);
  }

  scrollToEnd() {
    this.box.scrollTop = this.box.scrollHeight;
    this.box.scrollLeft = this.box.scrollWidth;
  }

  cellX(row, i) { return LABEL_W + (this.cols - 1 - (i + row.offset)) * CW; }

  draw() {
    const { canvas, box } = this;
    const w = box.clientWidth, h = box.clientHeight;
    const dpr = window.devicePixelRatio || 1;
    if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
      canvas.width = Math.round(w * dpr);
      canvas.height = Math.round(h * dpr);
      canvas.style.width = `${w}px`;
      canvas.style.height = `${h}px`;
    }
    const sx = box.scrollLeft, sy = box.scrollTop;
    canvas.style.transform = `translate(${sx}px, ${sy}px)`;      // keep the canvas over the visible part
    const g = canvas.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    this.paint(g, sx, sy, w, h);
  }

  /** Draw the part of the sheet at scroll position (sx, sy), w x h pixels, into g. */
  paint(g, sx, sy, w, h) {
    g.fillStyle = '#fffdf7';
    g.fillRect(0, 0, w, h);
    g.textBaseline = 'middle';
    const first = Math.max(0, Math.floor(sy / CH)), last = Math.min(this.lines.length, Math.ceil((sy + h) / CH));
    const colLo = Math.floor((sx - LABEL_W) / CW) - 1, colHi = Math.ceil((sx + w - LABEL_W) / CW) + 1;
    for (let n = first; n < last; n++) {
      const line = this.lines[n];
      const y = n * CH - sy;
      if (line.kind === 'title') {
        g.fillStyle = '#eef2fb';
        g.fillRect(0, y + 2, w, CH - 3);
        g.fillStyle = '#1d3f8a';
        g.font = '600 13px system-ui, sans-serif';
        g.fillText(line.sheet.title, 8, y + CH / 2 + 1);
        continue;
      }
      this.drawRow(g, line, y, sx, colLo, colHi, w);
    }
    // Row labels stay at the left edge while the sheet scrolls sideways.
    g.fillStyle = '#fffdf7';
    for (let n = first; n < last; n++) {
      const line = this.lines[n];
      if (line.kind !== 'row') continue;
      const y = n * CH - sy;
      g.fillRect(0, y, LABEL_W - 4, CH);
      if (this.strong.has(`${line.block} ${line.index} null`)) {     // a view read this whole row
        g.fillStyle = '#ffd24d';
        g.fillRect(2, y + 2, LABEL_W - 8, CH - 4);
      }
      g.fillStyle = '#7a7f8c';
      g.font = '11px system-ui, sans-serif';
      g.fillText(line.row.name.slice(0, 11), 6, y + CH / 2);
      g.fillStyle = '#fffdf7';
    }
  }

  /** The whole sheet as a PNG Blob (scaled down if it is larger than a canvas may be), or
   *  null when nothing is drawn. */
  async toBlob() {
    if (!this.lines.length) return null;
    const fullW = LABEL_W + this.cols * CW + PAD, fullH = this.lines.length * CH + PAD;
    const scale = Math.min(1, PNG_MAX_SIDE / fullW, PNG_MAX_SIDE / fullH, Math.sqrt(PNG_MAX_AREA / (fullW * fullH)));
    const canvas = document.createElement('canvas');
    canvas.width = Math.max(1, Math.floor(fullW * scale));
    canvas.height = Math.max(1, Math.floor(fullH * scale));
    const g = canvas.getContext('2d');
    g.setTransform(scale, 0, 0, scale, 0, 0);
    this.paint(g, 0, 0, fullW, fullH);
    return new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
  }

  drawRow(g, line, y, sx, colLo, colHi, w) {
    const { row, block, index } = line;
    const flagRow = FLAG_ROWS.has(row.name);
    const visible = (x) => x - sx > LABEL_W - CW && x - sx < w + CW;
    const box = (x, key) => {
      if (this.strong.has(key)) {
        g.fillStyle = '#ffd24d';
        g.fillRect(x - sx, y + 1, CW - 1, CH - 2);
        g.strokeStyle = '#c77800';
        g.lineWidth = 2;
        g.strokeRect(x - sx + 1, y + 2, CW - 3, CH - 4);
      } else if (this.light.has(key)) {
        g.fillStyle = '#fff0bf';
        g.fillRect(x - sx, y + 1, CW - 1, CH - 2);
      }
    };
    // Only the columns in sight: a 20,000-digit row costs no more than a short one.
    // Views also read blank columns past a row's top digit (where a scan ends): box those too.
    const lo = Math.max(0, this.cols - 1 - colHi - row.offset), hi = this.cols - 1 - colLo - row.offset;
    for (let i = lo; i <= hi; i++) {
      const x = this.cellX(row, i);
      if (!visible(x)) continue;
      box(x, `${block} ${index} ${i}`);
      if (i >= row.width()) continue;
      const sym = row.sym(i);
      if (sym === BLANK) continue;
      const cell = row.cell(i);
      g.fillStyle = flagRow ? '#c0392b' : cell && cell.origin === 'input' ? '#1f2430' : '#0b6e4f';
      g.font = flagRow ? '11px ui-monospace, monospace' : '16px ui-monospace, monospace';
      g.fillText(sym, x - sx + (flagRow ? 4 : 3), y + (flagRow ? CH / 2 - 4 : CH / 2 + 1));
    }
    const signKey = `${block} ${index} sign`;
    const xs = this.cellX(row, row.width());
    if ((row.sign || this.light.has(signKey)) && visible(xs)) {
      box(xs, signKey);
      if (row.sign && row.sign.sym !== BLANK && (row.sign.sym === MINUS || this.strong.has(signKey) || row.sign.origin !== 'input')) {
        g.fillStyle = row.sign.origin === 'input' ? '#1f2430' : '#0b6e4f';
        g.font = '16px ui-monospace, monospace';
        g.fillText(row.sign.sym, xs - sx + 3, y + CH / 2 + 1);
      }
    }
  }
}
