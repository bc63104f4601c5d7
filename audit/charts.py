"""Small server-side SVG charts for the audit dashboard: horizontal bars, optional CI whiskers.

No JavaScript and no CDN: the markup is built here as a string and inlined in the page. Every
piece of text (stratum names come from imported data) goes through xml escaping, so the
result is well-formed XML; the chart functions return it as a SafeString for templates.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from django.utils.safestring import SafeString, mark_safe

SVG_NS = "http://www.w3.org/2000/svg"
ROW_H = 26
TOP, BOTTOM = 34, 26
MAX_LABEL_CHARS = 26

# Landis & Koch (1977) bands, lower bound → colour; κ below 0 is "poor".
BAND_COLOURS = (
    (0.8, "#12725a"),  # almost perfect
    (0.6, "#3a9a6f"),  # substantial
    (0.4, "#c9a227"),  # moderate
    (0.2, "#d9822b"),  # fair
    (0.0, "#c8553d"),  # slight
)
POOR_COLOUR = "#8f2d1f"
COUNT_COLOUR = "#2f5bd3"


@dataclass(frozen=True)
class Bar:
    label: str
    value: float | None  # None: nothing to draw (e.g. too few items for κ)
    low: float | None = None  # confidence interval, drawn as a whisker
    high: float | None = None
    note: str = ""  # text in the right column; defaults to the value
    colour: str = ""


def band_colour(value: float) -> str:
    for lower, colour in BAND_COLOURS:
        if value >= lower:
            return colour
    return POOR_COLOUR


def _num(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".") if x != int(x) else str(int(x))


def _text(x: float, y: float, content: str, **attrs: str) -> str:
    extra = "".join(f" {k.replace('_', '-')}={quoteattr(v)}" for k, v in attrs.items())
    return f'<text x="{_num(x)}" y="{_num(y)}"{extra}>{escape(content)}</text>'


def _short(label: str) -> str:
    label = label or "(none)"
    return label if len(label) <= MAX_LABEL_CHARS else label[: MAX_LABEL_CHARS - 1] + "…"


def _ticks(lo: float, hi: float, step: float) -> list[float]:
    first = math.ceil(lo / step - 1e-9)
    last = math.floor(hi / step + 1e-9)
    return [round(k * step, 6) for k in range(first, last + 1)]


def _nice_step(span: float) -> float:
    """A round tick step giving about five ticks over `span`."""
    if span <= 0:
        return 1.0
    raw = span / 5
    power = 10 ** math.floor(math.log10(raw))
    for mult in (1, 2, 5, 10):
        if raw <= mult * power:
            return float(mult * power)
    return float(10 * power)


def bar_chart(
    bars: Sequence[Bar],
    *,
    title: str,
    chart_id: str,
    domain: tuple[float, float] | None = None,
    tick_step: float | None = None,
    axis_label: str = "",
    width: int = 720,
    label_w: int = 190,
    note_w: int = 150,
) -> SafeString:
    """Horizontal bars from 0 (one row per bar), whiskers where low/high are given.
    `domain` defaults to [min(0, smallest value), largest value]; `label_w` and `note_w` are
    the widths of the name column (left) and the number column (right)."""
    values = [v for b in bars for v in (b.value, b.low, b.high) if v is not None]
    if domain is None:
        domain = (min([0.0, *values]), max([1.0, *values]))
    lo, hi = domain
    if hi <= lo:
        hi = lo + 1
    step = tick_step or _nice_step(hi - lo)
    plot_w = width - label_w - note_w
    height = TOP + BOTTOM + ROW_H * max(1, len(bars))

    def x(v: float) -> float:
        v = min(max(v, lo), hi)
        return label_w + (v - lo) / (hi - lo) * plot_w

    title_id = f"{chart_id}-title"
    parts = [
        f'<svg xmlns="{SVG_NS}" id={quoteattr(chart_id)} class="chart" role="img" '
        f'aria-labelledby={quoteattr(title_id)} viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" font-family="system-ui, sans-serif" font-size="12">',
        f"<title id={quoteattr(title_id)}>{escape(title)}</title>",
        _text(0, 16, title, font_weight="600", font_size="13", fill="#1d2330"),
    ]
    plot_bottom = height - BOTTOM
    for tick in _ticks(lo, hi, step):
        tx = x(tick)
        stroke = "#98a2b3" if tick == 0 else "#e4e7ec"
        parts.append(
            f'<line x1="{_num(tx)}" y1="{TOP - 4}" x2="{_num(tx)}" y2="{plot_bottom}" stroke="{stroke}"/>'
        )
        parts.append(_text(tx, plot_bottom + 15, f"{tick:g}", text_anchor="middle", fill="#667085"))
    if axis_label:
        parts.append(_text(label_w + plot_w, TOP - 10, axis_label, text_anchor="end", fill="#667085"))
    if not bars:
        parts.append(_text(label_w + 8, TOP + 17, "Nothing to show yet.", fill="#667085"))
    zero = x(max(lo, min(0.0, hi)))
    for i, bar in enumerate(bars):
        top = TOP + i * ROW_H
        mid = top + ROW_H / 2
        label = bar.label or "(none)"
        parts.append(
            f"<g><title>{escape(label)}</title>"
            + _text(label_w - 8, mid + 4, _short(label), text_anchor="end", fill="#1d2330")
            + "</g>"
        )
        if bar.value is None:
            parts.append(
                _text(label_w + 8, mid + 4, bar.note or "no data", fill="#667085", font_style="italic")
            )
            continue
        end = x(bar.value)
        left, size = min(zero, end), abs(end - zero)
        colour = bar.colour or COUNT_COLOUR
        parts.append(
            f'<rect x="{_num(left)}" y="{_num(top + 5)}" width="{_num(max(size, 1))}" '
            f'height="{ROW_H - 10}" rx="2" fill="{escape(colour)}"/>'
        )
        if bar.low is not None and bar.high is not None:
            x1, x2 = x(bar.low), x(bar.high)
            parts.append(
                f'<path d="M{_num(x1)} {_num(mid)}H{_num(x2)}'
                f'M{_num(x1)} {_num(mid - 5)}V{_num(mid + 5)}M{_num(x2)} {_num(mid - 5)}V{_num(mid + 5)}" '
                'stroke="#1d2330" stroke-width="1.5" fill="none"/>'
            )
        note = bar.note or f"{bar.value:g}"
        parts.append(_text(label_w + plot_w + 8, mid + 4, note, fill="#1d2330"))
    parts.append("</svg>")
    # Every text and attribute above went through escape()/quoteattr(), numbers are formatted.
    return mark_safe("".join(parts))  # noqa: S308


def kappa_chart(bars: Sequence[Bar], *, title: str, chart_id: str) -> SafeString:
    """κ bars coloured by Landis–Koch band, on a fixed scale so charts compare at a glance."""
    coloured = [
        Bar(
            b.label,
            b.value,
            b.low,
            b.high,
            b.note,
            b.colour or (band_colour(b.value) if b.value is not None else ""),
        )
        for b in bars
    ]
    lows = [v for b in bars for v in (b.value, b.low) if v is not None]
    lo = min([0.0, *lows])
    lo = math.floor(lo / 0.2 - 1e-9) * 0.2 if lo < 0 else 0.0
    return bar_chart(
        coloured,
        title=title,
        chart_id=chart_id,
        domain=(max(lo, -1.0), 1.0),
        tick_step=0.2,
        width=960,
        label_w=210,
        note_w=230,
    )


def count_chart(items: Sequence[tuple[str, int]], *, title: str, chart_id: str) -> SafeString:
    top = max([n for _, n in items] or [0])
    step = _nice_step(top) if top else 1.0
    step = max(step, 1.0)
    hi = max(step, math.ceil(top / step) * step)
    bars = [Bar(label, n, note=str(n)) for label, n in items]
    return bar_chart(
        bars,
        title=title,
        chart_id=chart_id,
        domain=(0.0, hi),
        tick_step=step,
        width=500,
        label_w=120,
        note_w=70,
    )


def accuracy_chart(bars: Sequence[Bar], *, title: str, chart_id: str) -> SafeString:
    """Accuracy (0–1) bars on a fixed 0–1 scale, so judges and buckets compare at a glance."""
    return bar_chart(
        bars,
        title=title,
        chart_id=chart_id,
        domain=(0.0, 1.0),
        tick_step=0.25,
        axis_label="accuracy (0.5 = chance for a pair)",
        width=720,
        label_w=190,
        note_w=130,
    )
