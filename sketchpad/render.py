"""Drawing a worksheet as a PNG: operands, work rows, results, carries small, the cells of the
current view highlighted.  Long sheets are cut to the last rows that fit, with a note."""

from __future__ import annotations

from PIL import Image, ImageDraw, ImageFont

from .symbols import BLANK, MINUS

CELL_W, CELL_H, LABEL_W = 14, 20, 70
MAX_ROWS, MAX_COLS = 400, 1100


def _font(size: int):
    for name in ("DejaVuSansMono.ttf", "LiberationMono-Regular.ttf"):
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            pass
    return ImageFont.load_default()


def render_png(worksheet, path, highlight=None) -> None:
    lines = []  # (kind, sheet or row)
    for sheet in worksheet.sheets:
        lines.append(("title", sheet))
        lines.extend(("row", r) for r in sheet.rows)
    cut = max(0, len(lines) - MAX_ROWS)
    lines = lines[cut:]
    cols = min(MAX_COLS, max([r.width() + r.offset + 1 for k, r in lines if k == "row"] + [4]))
    img = Image.new("RGB", (LABEL_W + CELL_W * (cols + 1) + 10, CELL_H * (len(lines) + 2)), "white")
    d = ImageDraw.Draw(img)
    font, small = _font(14), _font(10)
    hl = set()
    if highlight:
        hl = {(id(pos[0]), pos[1]) for pos in highlight if pos is not None and pos[0] is not None}
    y = CELL_H // 2
    if cut:
        d.text((4, y - 8), f"... {cut} earlier rows not drawn", fill="gray", font=small)
    right = LABEL_W + CELL_W * cols
    for kind, obj in lines:
        y += CELL_H
        if kind == "title":
            d.text((4, y + 2), obj.title, fill="navy", font=font)
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
