"""Drawing a worksheet as a PNG: operands, work rows, results, carries small, the cells of the
current view highlighted.  The whole sheet is drawn when the picture fits MAX_PIXELS; a longer
one keeps every block's title, first rows (the operands) and last rows (the results) and as many
of the last work rows as fit, marks each gap in the picture, and says so (render_png's answer)."""

from __future__ import annotations

from PIL import Image, ImageDraw, ImageFont

from .symbols import BLANK, MINUS

CELL_W, CELL_H, LABEL_W = 14, 20, 70
MAX_PIXELS = 60_000_000  # about 180 MB while drawing; a 1,000 x 1,000 product's sheet fits
MAX_COLS = 1100  # only a sheet wider than this and too long to draw whole is cut at the left
HEAD, TAIL = 5, 3  # rows of every block always drawn: its operands and its results


def _plan(worksheet):
    """(lines, cols, left out rows, left out columns): what to draw.  A line is ("title", sheet),
    ("row", row) or ("gap", rows not drawn there)."""
    blocks = [[("title", sh)] + [("row", r) for r in sh.rows] for sh in worksheet.sheets]
    total = sum(len(b) for b in blocks)
    widest = max([r.width() + r.offset + 1 for sh in worksheet.sheets for r in sh.rows] + [4])

    def fits(n_lines, cols):
        return (LABEL_W + CELL_W * (cols + 1) + 10) * CELL_H * (n_lines + 2) <= MAX_PIXELS

    if fits(total, widest):
        return [line for b in blocks for line in b], widest, 0, 0
    cols = widest if fits(len(blocks) * (HEAD + TAIL + 3), widest) else min(widest, MAX_COLS)
    budget = max(len(blocks) * (HEAD + TAIL + 3), MAX_PIXELS // ((LABEL_W + CELL_W * (cols + 1) + 10) * CELL_H) - 2)
    keep = [set(range(min(len(b), 1 + HEAD))) | set(range(max(0, len(b) - TAIL), len(b))) for b in blocks]
    room = budget - sum(len(k) for k in keep) - len(blocks)  # a gap marker per block at most
    for b, k in zip(reversed(blocks), reversed(keep)):  # then the last work rows, from the end
        for i in range(len(b) - 1, -1, -1):
            if room <= 0:
                break
            if i not in k:
                k.add(i)
                room -= 1
    lines, left = [], 0
    for b, k in zip(blocks, keep):
        gap = 0
        for i, line in enumerate(b):
            if i in k:
                if gap:
                    lines.append(("gap", gap))
                    gap = 0
                lines.append(line)
            else:
                gap += 1
                left += 1
        if gap:
            lines.append(("gap", gap))
    return lines, cols, left, widest - cols


def _font(size: int):
    for name in ("DejaVuSansMono.ttf", "LiberationMono-Regular.ttf"):
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            pass
    return ImageFont.load_default()


def render_png(worksheet, path, highlight=None) -> str | None:
    """Draw `worksheet` to the PNG `path`.  None when the whole sheet is in the picture, else
    one line that says what was left out (the command prints it)."""
    lines, cols, left_rows, left_cols = _plan(worksheet)
    img = Image.new("RGB", (LABEL_W + CELL_W * (cols + 1) + 10, CELL_H * (len(lines) + 2)), "white")
    d = ImageDraw.Draw(img)
    font, small = _font(14), _font(10)
    hl = set()
    if highlight:
        hl = {(id(pos[0]), pos[1]) for pos in highlight if pos is not None and pos[0] is not None}
    y = CELL_H // 2
    right = LABEL_W + CELL_W * cols
    for kind, obj in lines:
        y += CELL_H
        if kind == "title":
            d.text((4, y + 2), obj.title, fill="navy", font=font)
            continue
        if kind == "gap":
            d.text((4, y + 4), f"... {obj:,} rows not drawn ...", fill="gray", font=small)
            continue
        r = obj
        is_flag_row = r.name in ("carry", "borrow")
        d.text((4, y + 3), r.name[:9], fill="gray", font=small)
        for rid, i in hl:
            if rid == id(r) and isinstance(i, int) and i + r.offset < cols:
                x = right - CELL_W * (i + r.offset)
                d.rectangle([x, y, x + CELL_W - 1, y + CELL_H - 2], fill="#ffe08a", outline="#d08000")
        for i in range(min(r.width(), cols)):
            x = right - CELL_W * (i + r.offset)
            sym = r.sym(i)
            if sym != BLANK:
                d.text(
                    (x + 3, y + (1 if not is_flag_row else 6)),
                    sym,
                    fill="#c03030" if is_flag_row else "black",
                    font=small if is_flag_row else font,
                )
        if r.sign is not None and r.sign.sym == MINUS:
            x = right - CELL_W * (r.width() + r.offset)
            if (id(r), "sign") in hl:
                d.rectangle([x, y, x + CELL_W - 1, y + CELL_H - 2], fill="#ffe08a")
            d.text((x + 3, y + 1), MINUS, fill="black", font=font)
        elif (id(r), "sign") in hl:
            x = right - CELL_W * (r.width() + r.offset)
            d.rectangle([x, y, x + CELL_W - 1, y + CELL_H - 2], outline="#d08000")
    img.save(path)
    if not (left_rows or left_cols):
        return None
    total = sum(1 + len(sh.rows) for sh in worksheet.sheets)
    said = []
    if left_rows:
        said.append(
            f"{left_rows:,} of its {total:,} rows are not drawn (marked '... rows not drawn ...'; every block's "
            f"operands and results are)"
        )
    if left_cols:
        said.append(f"the leftmost {left_cols:,} of {left_cols + cols:,} columns are not drawn")
    return f"the sheet is over the picture's size limit ({MAX_PIXELS:,} pixels): " + "; ".join(said)
