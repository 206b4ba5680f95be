"""Charts of the decisions in the audit trail: by outcome and by rule, over a window of time.

The counting is done by the database (records grouped by time bucket and outcome or rule) and
drawn here as plain SVG stacked bars, each chart with a title and a description for screen
readers, a legend in text and the numbers in a table beside it: nothing is fetched from
anywhere, no script draws anything. Answers to approval requests are not decisions and are not
counted.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from html import escape

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from clawgate.serve.db import audit

# window name -> (seconds covered, buckets, what a bucket's label shows)
WINDOWS = {"1h": (3600, 12, "%H:%M"), "24h": (86400, 24, "%H:%M"),
           "7d": (7 * 86400, 7, "%m-%d")}
WINDOW_WORDS = {"1h": "the last hour", "24h": "the last 24 hours", "7d": "the last 7 days"}
OUTCOMES = ("allow", "ask", "deny")
TOP_RULES = 5
W, H, LEFT, BOTTOM, TOP = 640, 260, 44, 36, 12


@dataclass(frozen=True, slots=True)
class Series:
    name: str
    css: str  # the class that colours it (console.css)
    counts: tuple[int, ...]

    @property
    def total(self) -> int:
        return sum(self.counts)


@dataclass(frozen=True, slots=True)
class Buckets:
    starts: tuple[int, ...]  # epoch second each bucket begins
    width: int
    label: str  # strftime of a bucket's start

    def name(self, index: int) -> str:
        return time.strftime(self.label, time.gmtime(self.starts[index]))


def buckets(window: str, now: float) -> Buckets:
    span, count, label = WINDOWS[window]
    width = span // count
    end = (int(now) // width + 1) * width
    return Buckets(tuple(end - span + i * width for i in range(count)), width, label)


def counted(engine: Engine, frame: Buckets, column: sa.Column[str],
            agent: str | None = None) -> dict[str, list[int]]:
    """Decisions per value of ``column`` per bucket of ``frame``."""
    start = frame.starts[0]
    # whole seconds, rounded down: SQLite's CAST truncates, PostgreSQL's rounds
    seconds = audit.c.time if engine.dialect.name == "sqlite" else sa.func.floor(audit.c.time)
    index = (sa.cast(seconds, sa.BigInteger) - start) // frame.width
    query = (sa.select(index.label("i"), column.label("v"), sa.func.count().label("n"))
             .where((audit.c.time >= start) & (audit.c.tool != "approval"))
             .group_by(index, column))
    if agent is not None:
        query = query.where(audit.c.agent == agent)
    found: dict[str, list[int]] = {}
    with engine.connect() as conn:
        for row in conn.execute(query):
            counts = found.setdefault(str(row.v), [0] * len(frame.starts))
            counts[min(max(int(row.i), 0), len(frame.starts) - 1)] += int(row.n)
    return found


def by_outcome(engine: Engine, frame: Buckets) -> list[Series]:
    found = counted(engine, frame, audit.c.outcome)
    zero = (0,) * len(frame.starts)
    return [Series(o, f"o-{o}", tuple(found.get(o, zero))) for o in OUTCOMES]


def by_rule(engine: Engine, frame: Buckets) -> list[Series]:
    """The rules that decided most, each a series; the rest together as ``other rules``."""
    found = counted(engine, frame, audit.c.rule)
    ranked = sorted(found.items(), key=lambda kv: (-sum(kv[1]), kv[0]))
    series = [Series(rule or "(no rule)", f"s{i}", tuple(counts))
              for i, (rule, counts) in enumerate(ranked[:TOP_RULES])]
    rest = ranked[TOP_RULES:]
    if rest:
        summed = tuple(sum(c[i] for _, c in rest) for i in range(len(frame.starts)))
        series.append(Series("other rules", f"s{TOP_RULES}", summed))
    return series


def svg(chart_id: str, title: str, frame: Buckets, series: list[Series]) -> str:
    """Stacked bars, one per bucket; a ``<title>`` on each bar for a pointer's hover."""
    n = len(frame.starts)
    totals = [sum(s.counts[i] for s in series) for i in range(n)]
    peak = max(max(totals, default=0), 1)
    plot_h, plot_w = H - BOTTOM - TOP, W - LEFT - 8
    slot = plot_w / n
    parts = []
    for i in range(n):
        y = float(TOP + plot_h)
        for s in series:
            if not s.counts[i]:
                continue
            high = plot_h * s.counts[i] / peak
            y -= high
            parts.append(f'<rect class="{s.css}" x="{LEFT + i * slot + slot * 0.15:.1f}" '
                         f'y="{y:.1f}" width="{slot * 0.7:.1f}" height="{high:.1f}"><title>'
                         f'{escape(s.name)}: {s.counts[i]} from {frame.name(i)} UTC</title>'
                         '</rect>')
    every = max(n // 6, 1)
    ticks = "".join(f'<text class="tick" x="{LEFT + i * slot + slot / 2:.1f}" y="{H - 14}" '
                    f'text-anchor="middle">{frame.name(i)}</text>' for i in range(0, n, every))
    axis = (f'<line class="axis" x1="{LEFT}" y1="{TOP + plot_h}" x2="{W - 8}" '
            f'y2="{TOP + plot_h}"/><text class="tick" x="{LEFT - 6}" y="{TOP + 10}" '
            f'text-anchor="end">{peak}</text><text class="tick" x="{LEFT - 6}" '
            f'y="{TOP + plot_h}" text-anchor="end">0</text>')
    said = ", ".join(f"{s.name} {s.total}" for s in series) or "no decisions"
    return (f'<svg class="chart" viewBox="0 0 {W} {H}" role="img" '
            f'aria-labelledby="{chart_id}-t {chart_id}-d">'
            f'<title id="{chart_id}-t">{escape(title)}</title>'
            f'<desc id="{chart_id}-d">{escape(said)}; the tallest bar is {peak}.</desc>'
            f'{axis}{ticks}{"".join(parts)}</svg>')


def figure(chart_id: str, title: str, frame: Buckets, series: list[Series]) -> str:
    """The chart, its legend and its numbers."""
    legend = "".join(f'<li><span class="swatch {s.css}" aria-hidden="true"></span>'
                     f'{escape(s.name)}: {s.total}</li>' for s in series)
    head = "".join(f'<th scope="col">{escape(s.name)}</th>' for s in series)
    rows = "".join(f'<tr><th scope="row">{frame.name(i)}</th>'
                   + "".join(f"<td>{s.counts[i]}</td>" for s in series) + "</tr>"
                   for i in range(len(frame.starts)))
    return (f'<figure id="{chart_id}" aria-labelledby="{chart_id}-c">'
            f'<figcaption id="{chart_id}-c">{escape(title)}</figcaption>'
            f'{svg(chart_id, title, frame, series)}<ul class="legend">{legend}</ul>'
            f'<details><summary>The numbers</summary><div class="scroll" role="region" '
            f'aria-label="{escape(title)}: the numbers" tabindex="0"><table><thead><tr>'
            f'<th scope="col">From (UTC)</th>{head}</tr></thead><tbody>{rows}</tbody></table>'
            '</div></details></figure>')


def charts_html(engine: Engine, window: str, now: float) -> str:
    frame = buckets(window, now)
    words = WINDOW_WORDS[window]
    current = ' aria-current="page"'
    choices = "".join(f'<a href="/charts?window={w}"{current if w == window else ""}>'
                      f'{escape(WINDOW_WORDS[w])}</a> ' for w in WINDOWS)
    return ('<h2>Decisions over time</h2>'
            f'<nav aria-label="Time window" class="pages">{choices}</nav>'
            + figure("by-outcome", f"Decisions by outcome, {words}", frame,
                     by_outcome(engine, frame))
            + figure("by-rule", f"Decisions by rule, {words}", frame, by_rule(engine, frame)))
