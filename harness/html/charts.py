"""Charts as inline SVG text: error bars, line charts, heat-map colours.

Pure functions of numbers and labels; the markup needs no script and no network.
SVG inside HTML needs no namespace declaration, so the page holds no URL at all.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

# Distinguishable on white and for the common colour-vision deficiencies (Okabe–Ito + extras).
PALETTE = (
    "#0072b2",
    "#d55e00",
    "#009e73",
    "#cc79a7",
    "#e69f00",
    "#56b4e9",
    "#000000",
    "#f0e442",
    "#8c564b",
    "#7f7f7f",
    "#17becf",
    "#bcbd22",
)
DASHES = ("", "6 3", "2 3", "8 3 2 3")


def colour(index: int) -> tuple[str, str]:
    """Return the stroke colour and dash pattern of the ``index``-th series."""
    return PALETTE[index % len(PALETTE)], DASHES[(index // len(PALETTE)) % len(DASHES)]


def nice_ticks(lo: float, hi: float, count: int = 6) -> list[float]:
    """Return round tick values covering [lo, hi], about ``count`` of them."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return []
    if hi <= lo:
        lo, hi = lo - 1.0, hi + 1.0
    raw = (hi - lo) / max(count - 1, 1)
    magnitude = 10.0 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1.0, 2.0, 2.5, 5.0, 10.0) if m * magnitude >= raw)
    first = math.floor(lo / step) * step
    ticks = []
    value = first
    while value <= hi + step * 1e-9:
        ticks.append(round(value, 10))
        value += step
    if ticks[-1] < hi:
        ticks.append(round(value, 10))
    return ticks


def _fmt_tick(value: float) -> str:
    return f"{value:.0f}" if abs(value - round(value)) < 1e-9 else f"{value:g}"


def heat(p: float | None) -> str:
    """Return a background colour for a probability: red at 0, white at ½, green at 1."""
    if p is None or not math.isfinite(p):
        return "#eeeeee"
    p = min(max(p, 0.0), 1.0)
    low, mid, high = (215, 48, 39), (255, 255, 255), (26, 152, 80)
    a, b, t = (low, mid, p * 2) if p < 0.5 else (mid, high, (p - 0.5) * 2)
    r, g, bl = (round(x + (y - x) * t) for x, y in zip(a, b, strict=True))
    return f"#{r:02x}{g:02x}{bl:02x}"


@dataclass(frozen=True)
class Bar:
    """One row of an error-bar chart: a point with an optional ± half-width."""

    label: str
    value: float | None
    half: float | None
    note: str = ""
    colour: str = "#0072b2"
    # one-sided: "floor" (the interval starts at low and has no upper end), "ceiling"
    # (ends at high, no lower end), "open" (neither end); drawn as such, not as ± half
    bound: str | None = None
    low: float | None = None
    high: float | None = None

    def span(self) -> tuple[float, float] | None:
        """The values the bar covers (its point and the finite ends of its interval)."""
        if self.value is None or not math.isfinite(self.value):
            return None
        if self.bound is not None:
            ends = [x for x in (self.low, self.high, self.value) if x is not None and math.isfinite(x)]
            return min(ends), max(ends)
        half = self.half if self.half is not None and math.isfinite(self.half) else 0.0
        return self.value - half, self.value + half


def error_bars(rows: Sequence[Bar], *, testid: str, unit: str = "Elo", zero: float | None = None) -> str:
    """Return an SVG with one horizontal error bar per row (point ± half-width)."""
    width, left, right, row_h, top, bottom = 720, 150, 120, 26, 10, 30
    height = top + bottom + row_h * max(len(rows), 1)
    spans = [span for r in rows if (span := r.span()) is not None]
    if zero is not None:
        spans.append((zero, zero))
    lo = min((a for a, _ in spans), default=0.0)
    hi = max((b for _, b in spans), default=1.0)
    ticks = nice_ticks(lo, hi)
    if ticks:
        lo, hi = ticks[0], ticks[-1]
    scale = (width - left - right) / (hi - lo if hi > lo else 1.0)

    def x(value: float) -> float:
        return left + (value - lo) * scale

    out = [
        f'<svg class="chart" data-testid="{testid}" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" role="img" aria-label="{html.escape(unit)} with 95% intervals">'
    ]
    axis_y = top + row_h * len(rows)
    for tick in ticks:
        tx = x(tick)
        out.append(f'<line class="grid" x1="{tx:.1f}" x2="{tx:.1f}" y1="{top}" y2="{axis_y}"/>')
        out.append(
            f'<text class="tick" x="{tx:.1f}" y="{axis_y + 16}" text-anchor="middle">{_fmt_tick(tick)}</text>'
        )
    if zero is not None and lo <= zero <= hi:
        out.append(f'<line class="zero" x1="{x(zero):.1f}" x2="{x(zero):.1f}" y1="{top}" y2="{axis_y}"/>')
    for i, row in enumerate(rows):
        cy = top + row_h * i + row_h / 2
        label = html.escape(row.label)
        out.append(f'<text class="label" x="{left - 8}" y="{cy + 4:.1f}" text-anchor="end">{label}</text>')
        if row.value is None or not math.isfinite(row.value):
            out.append(f'<text class="note" x="{left + 4}" y="{cy + 4:.1f}">n/a</text>')
            continue
        cx = x(row.value)
        if row.bound is not None:
            out.append(_one_sided(row, row.value, x, cy, left, width - right))
        else:
            out.append(_two_sided(row, row.value, x, cy))
        out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="5" fill="{row.colour}"/></g>')
        note = html.escape(row.note)
        out.append(f'<text class="note" x="{width - right + 10}" y="{cy + 4:.1f}">{note}</text>')
    out.append(
        f'<text class="axis" x="{(left + width - right) / 2:.0f}" y="{height - 2}" text-anchor="middle">'
    )
    out.append(f"{html.escape(unit)} (dot) with its 95% interval (bar)</text></svg>")
    return "".join(out)


def _two_sided(row: Bar, value: float, x: Callable[[float], float], cy: float) -> str:
    """A point's ± half-width as a whisker with two caps (or nothing without a half-width)."""
    label = html.escape(row.label)
    half = row.half if row.half is not None and math.isfinite(row.half) else None
    title = f"{row.label}: {value:.1f}" + (f" ± {half:.1f}" if half is not None else " (no interval)")
    out = [f'<g class="bar" data-label="{label}"><title>{html.escape(title)}</title>']
    if half is not None:
        x1, x2 = x(value - half), x(value + half)
        out.append(
            f'<line class="whisker" x1="{x1:.1f}" x2="{x2:.1f}" y1="{cy:.1f}" y2="{cy:.1f}" stroke="{row.colour}"/>'
            f'<line class="cap" x1="{x1:.1f}" x2="{x1:.1f}" y1="{cy - 6:.1f}" y2="{cy + 6:.1f}" stroke="{row.colour}"/>'
            f'<line class="cap" x1="{x2:.1f}" x2="{x2:.1f}" y1="{cy - 6:.1f}" y2="{cy + 6:.1f}" stroke="{row.colour}"/>'
        )
    return "".join(out)


def _one_sided(row: Bar, value: float, x: Callable[[float], float], cy: float, start: float, end: float) -> str:
    """A floor (a cap at low, an arrow running off to the right), a ceiling (the mirror) or an open interval."""
    label = html.escape(row.label)
    low = row.low if row.low is not None and math.isfinite(row.low) else None
    high = row.high if row.high is not None and math.isfinite(row.high) else None
    if row.bound == "floor" and low is not None:
        title, x1, x2, cap, tip, sign = f"{row.label}: at least {low:.1f} (a floor, no upper end)", x(low), end, x(low), end, 1
    elif row.bound == "ceiling" and high is not None:
        title, x1, x2, cap, tip, sign = f"{row.label}: at most {high:.1f} (a ceiling, no lower end)", start, x(high), x(high), start, -1
    else:
        title = f"{row.label}: {value:.1f} (no interval: the games bound it on neither side)"
        return f'<g class="bar" data-label="{label}" data-bound="open"><title>{html.escape(title)}</title>'
    bound = html.escape(str(row.bound))
    return (
        f'<g class="bar" data-label="{label}" data-bound="{bound}"><title>{html.escape(title)}</title>'
        f'<line class="whisker one-sided" x1="{x1:.1f}" x2="{x2:.1f}" y1="{cy:.1f}" y2="{cy:.1f}" '
        f'stroke="{row.colour}" stroke-dasharray="4 3"/>'
        f'<line class="cap" x1="{cap:.1f}" x2="{cap:.1f}" y1="{cy - 6:.1f}" y2="{cy + 6:.1f}" stroke="{row.colour}"/>'
        f'<path class="arrow" d="M{tip:.1f},{cy:.1f} L{tip - sign * 8:.1f},{cy - 5:.1f} L{tip - sign * 8:.1f},{cy + 5:.1f} Z" '
        f'fill="{row.colour}"/>'
    )


def line_chart(
    series: Mapping[str, Sequence[tuple[float, float]]],
    *,
    testid: str,
    x_label: str,
    y_label: str,
    y_range: tuple[float, float] | None = None,
    rules: Sequence[tuple[str, float]] = (),
    markers: bool = False,
) -> str:
    """Return an SVG line chart, one polyline per named series, with a legend.

    With ``y_range`` the axis covers that range and lines leaving it are clipped.
    ``rules`` are labelled horizontal reference lines (e.g. a test's bounds), always
    inside the axis; ``markers`` puts a dot on every point (for short series).
    """
    width, left, right, top, bottom = 720, 56, 150, 12, 40
    height = 320
    points = [p for pts in series.values() for p in pts if math.isfinite(p[1])]
    xs = [p[0] for p in points] or [0.0, 1.0]
    ys = list(y_range) if y_range is not None else [p[1] for p in points] or [0.0, 1.0]
    ys += [value for _, value in rules if math.isfinite(value)]
    xt, yt = nice_ticks(min(xs), max(xs)), nice_ticks(min(ys), max(ys), 5)
    x0, x1 = (xt[0], xt[-1]) if xt else (0.0, 1.0)
    y0, y1 = (yt[0], yt[-1]) if yt else (0.0, 1.0)
    plot_w, plot_h = width - left - right, height - top - bottom

    def px(value: float) -> float:
        return left + (value - x0) / ((x1 - x0) or 1.0) * plot_w

    def py(value: float) -> float:
        return top + plot_h - (value - y0) / ((y1 - y0) or 1.0) * plot_h

    out = [
        f'<svg class="chart lines" data-testid="{testid}" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" role="img" aria-label="{html.escape(y_label)} by {html.escape(x_label)}">'
    ]
    for tick in yt:
        out.append(
            f'<line class="grid" x1="{left}" x2="{left + plot_w}" y1="{py(tick):.1f}" y2="{py(tick):.1f}"/>'
        )
        out.append(
            f'<text class="tick" x="{left - 6}" y="{py(tick) + 4:.1f}" text-anchor="end">{_fmt_tick(tick)}</text>'
        )
    for tick in xt:
        out.append(
            f'<text class="tick" x="{px(tick):.1f}" y="{top + plot_h + 16}" text-anchor="middle">{_fmt_tick(tick)}</text>'
        )
    out.append(
        f'<line class="axisline" x1="{left}" x2="{left + plot_w}" y1="{top + plot_h}" y2="{top + plot_h}"/>'
    )
    for name, value in rules:
        if not math.isfinite(value):
            continue
        out.append(
            f'<g class="rule" data-rule="{html.escape(name)}" data-value="{value:g}">'
            f'<line class="rule" x1="{left}" x2="{left + plot_w}" y1="{py(value):.1f}" y2="{py(value):.1f}" '
            f'stroke="#b2182b" stroke-dasharray="6 4"/>'
            f'<text class="rule-label" x="{left + 6}" y="{py(value) - 4:.1f}">{html.escape(name)}</text></g>'
        )
    clip = f"clip-{testid}"
    out.append(
        f'<clipPath id="{clip}"><rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}"/></clipPath>'
    )
    for i, (name, pts) in enumerate(series.items()):
        stroke, dash = colour(i)
        good = [(a, b) for a, b in pts if math.isfinite(b)]
        if not good:
            continue
        path = " ".join(f"{'M' if j == 0 else 'L'}{px(a):.1f},{py(b):.1f}" for j, (a, b) in enumerate(good))
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        label = html.escape(name)
        dots = (
            "".join(f'<circle cx="{px(a):.1f}" cy="{py(b):.1f}" r="2.5" fill="{stroke}"/>' for a, b in good)
            if markers
            else ""
        )
        last = f"{good[-1][1]:.2f}" if markers else f"{good[-1][1]:.0f}"
        out.append(
            f'<g class="series" data-bot="{label}"><title>{label}: {last} after {good[-1][0]:g}</title>'
            f'<path d="{path}" stroke="{stroke}"{dash_attr} clip-path="url(#{clip})"/>{dots}</g>'
        )
        ly = top + 14 + 18 * i
        out.append(
            f'<line x1="{width - right + 12}" x2="{width - right + 34}" y1="{ly - 4}" y2="{ly - 4}" '
            f'stroke="{stroke}" stroke-width="3"{dash_attr}/>'
            f'<text class="legend" x="{width - right + 40}" y="{ly}">{label}</text>'
        )
    out.append(
        f'<text class="axis" x="{left + plot_w / 2:.0f}" y="{height - 4}" text-anchor="middle">{html.escape(x_label)}</text>'
        f'<text class="axis" transform="translate(12 {top + plot_h / 2:.0f}) rotate(-90)" '
        f'text-anchor="middle">{html.escape(y_label)}</text></svg>'
    )
    return "".join(out)
