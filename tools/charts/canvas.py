"""SVG drawing for projected charts: the canvas, its type sizes and colours,
titles, a log axis, and placing labels so that they do not overlap."""

import math


# 16:9, sized for a projector: text sizes are in SVG pixels of a 1600x900 canvas.
WIDTH, HEIGHT = 1600, 900
FONT = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"
TITLE_PX, SUBTITLE_PX, AXIS_PX, TICK_PX, LABEL_PX = 34, 21, 26, 22, 20
INK, GRID, MINOR_GRID, FAIL, SKIP = "#000000", "#b0b0b0", "#e4e4e4", "#c00000", "#606060"
# Okabe-Ito, colour-blind safe, one colour per lab (lab 10 has no stages of its own).
# Okabe-Ito's yellow is too light for text on white: lab 9 gets a dark gold instead.
LAB_COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#332288",
               "#8C564B", "#A07800", "#777777"]


def esc(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def text_width(s, px):
    """Rough width of s in DejaVu Sans at px (for layout: labels that fit, no overlaps)."""
    return len(str(s)) * px * 0.60


class Svg:
    def __init__(self):
        self.parts = []

    def add(self, s):
        self.parts.append(s)

    def text(self, x, y, s, px, anchor="start", weight="normal", fill=INK, rotate=None, baseline=None, halo=False):
        extra = f' transform="rotate({rotate} {x:.1f} {y:.1f})"' if rotate is not None else ""
        if halo:  # a white outline under the glyphs keeps a label readable over grid and lines
            extra += ' stroke="#ffffff" stroke-width="5" stroke-linejoin="round" paint-order="stroke"'
        base = f' dominant-baseline="{baseline}"' if baseline else ""
        self.add(f'<text x="{x:.1f}" y="{y:.1f}" font-size="{px}" text-anchor="{anchor}" '
                 f'font-weight="{weight}" fill="{fill}"{base}{extra}>{esc(s)}</text>')

    def line(self, x1, y1, x2, y2, stroke=INK, width=2, dash=None):
        d = f' stroke-dasharray="{dash}"' if dash else ""
        self.add(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{stroke}" '
                 f'stroke-width="{width}"{d}/>')

    def rect(self, x, y, w, h, fill, stroke="none", width=0, extra=""):
        self.add(f'<rect x="{x:.1f}" y="{y:.1f}" width="{max(w, 0):.1f}" height="{max(h, 0):.1f}" fill="{fill}" '
                 f'stroke="{stroke}" stroke-width="{width}"{extra}/>')

    def polyline(self, pts, stroke, width=3, dash=None):
        d = f' stroke-dasharray="{dash}"' if dash else ""
        p = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
        self.add(f'<polyline points="{p}" fill="none" stroke="{stroke}" stroke-width="{width}"{d}/>')

    def circle(self, x, y, r, fill, stroke=INK, width=2):
        self.add(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="{fill}" stroke="{stroke}" stroke-width="{width}"/>')

    def finish(self, title):
        head = (f'<?xml version="1.0" encoding="UTF-8"?>\n'
                f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
                f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="{FONT}">\n<title>{esc(title)}</title>\n'
                f'<defs><pattern id="hatch" width="12" height="12" patternUnits="userSpaceOnUse" '
                f'patternTransform="rotate(45)"><rect width="12" height="12" fill="#ffe5e5"/>'
                f'<line x1="0" y1="0" x2="0" y2="12" stroke="{FAIL}" stroke-width="4"/></pattern></defs>\n'
                f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>\n')
        return head + "\n".join(self.parts) + "\n</svg>\n"


def titles(svg, title, subtitles):
    svg.text(WIDTH / 2, 46, title, TITLE_PX, anchor="middle", weight="bold")
    for i, s in enumerate(subtitles):  # smaller type for a line that would not fit
        px = min(SUBTITLE_PX, int((WIDTH - 40) / (0.6 * max(len(s), 1))))
        svg.text(WIDTH / 2, 80 + i * 28, s, px, anchor="middle")


class LogAxis:
    """A log10 axis mapping [lo, hi] (values) to [p0, p1] (pixels). The ends are the data's range
    with a margin, not whole decades: a projected chart has no room to waste."""

    def __init__(self, lo, hi, p0, p1):
        if hi / lo < 3:  # at least a factor of 3, so that some ticks fall inside
            mid = math.sqrt(lo * hi)
            lo, hi = mid / math.sqrt(3), mid * math.sqrt(3)
        self.lo, self.hi = lo, hi
        self.p0, self.p1 = p0, p1

    def __call__(self, v):
        v = min(max(v, self.lo), self.hi)
        f = (math.log10(v) - math.log10(self.lo)) / (math.log10(self.hi) - math.log10(self.lo))
        return self.p0 + f * (self.p1 - self.p0)

    def ticks(self):
        """(value, labelled) pairs inside the axis: 1-2-...-9 per decade; the decades labelled,
        and 2 and 5 too when the axis spans less than three decades."""
        few = math.log10(self.hi / self.lo) < 3
        out = []
        for e in range(math.floor(math.log10(self.lo)), math.ceil(math.log10(self.hi)) + 1):
            for m in range(1, 10):
                v = m * 10.0 ** e
                if self.lo <= v <= self.hi:
                    out.append((v, m == 1 or (few and m in (2, 5))))
        return out


def tick_text(v):
    if v >= 1:
        return f"{v:,.0f}"
    return f"{v:g}"


def spread(items, gap):
    """items: [key, desired position]; returns {key: position} with neighbours at least gap apart,
    as close to the desired positions as a simple push-apart gets."""
    items = sorted(items, key=lambda t: t[1])
    pos = [p for _, p in items]
    for _ in range(50):
        moved = False
        for i in range(1, len(pos)):
            if pos[i] - pos[i - 1] < gap:
                push = (gap - (pos[i] - pos[i - 1])) / 2
                pos[i - 1] -= push
                pos[i] += push
                moved = True
        if not moved:
            break
    return {k: p for (k, _), p in zip(items, pos)}


def place_labels(svg, labels, left, right, top, bottom, px=LABEL_PX - 2):
    """Point labels [(x, y, text, colour)] placed greedily, top to bottom: beside
    the point (right, else left), else moved up or down by whole lines, at the
    first place where the label's box overlaps no label placed before it and
    no point; a moved label gets a thin leader line to its point."""
    h = px + 4
    points = [(x - 10, y - 10, x + 10, y + 10) for x, y, _, _ in labels]
    placed = []

    def free(box):
        if box[0] < left or box[2] > right or box[1] < top or box[3] > bottom:
            return False
        return not any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3]
                       for b in placed + points)

    for x, y, text, colour in sorted(labels, key=lambda t: t[1]):
        w = text_width(text, px)
        choice = None
        for step in range(0, 12):
            for dy in ([0] if step == 0 else [-step * h, step * h]):
                for side in (1, -1):
                    x0 = x + 16 if side > 0 else x - 16 - w
                    box = (x0, y + dy - h / 2, x0 + w, y + dy + h / 2)
                    if free(box):
                        choice = (side, dy, box)
                        break
                if choice:
                    break
            if choice:
                break
        if not choice:  # nowhere free: beside the point, on top of whatever is there
            x0 = x + 16 if x + 16 + w < right else x - 16 - w
            choice = (1 if x0 > x else -1, 0, (x0, y - h / 2, x0 + w, y + h / 2))
        side, dy, box = choice
        placed.append(box)
        if dy:
            svg.line(x, y, box[0] if side > 0 else box[2], y + dy, colour, 1)
        if side > 0:
            svg.text(box[0], y + dy, text, px, baseline="central", weight="bold", fill=colour, halo=True)
        else:
            svg.text(box[2], y + dy, text, px, anchor="end", baseline="central", weight="bold", fill=colour,
                     halo=True)
