// Plain-SVG charts: a line chart (numeric or time x axis) and a horizontal bar chart. Each is a
// <figure> whose SVG has role="img" and a label that says what it shows.
import { el, svg } from "./lib.js";

const WIDTH = 520;
const HEIGHT = 230;
const MARGIN = { left: 58, right: 14, top: 12, bottom: 40 };

// About `count` round tick values covering [low, high].
export function ticks(low, high, count = 5) {
  if (!(high > low)) return [low];
  const raw = (high - low) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw);
  const first = Math.ceil(low / step) * step;
  const values = [];
  for (let v = first; v <= high + step * 1e-9; v += step) values.push(Number(v.toPrecision(12)));
  return values;
}

function compact(value) {
  const size = Math.abs(value);
  if (size >= 1e6) return `${+(value / 1e6).toFixed(2)}M`;
  if (size >= 1e4) return `${+(value / 1e3).toFixed(1)}k`;
  return `${+value.toFixed(3)}`;
}

function timeLabel(ms, span) {
  const d = new Date(ms);
  const pad = (n) => String(n).padStart(2, "0");
  const minutes = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  const clock = span < 600e3 ? `${minutes}:${pad(d.getSeconds())}` : minutes;
  return span > 86400e3 ? `${d.getMonth() + 1}/${d.getDate()} ${clock}` : clock;
}

function extent(values, floor) {
  let low = Math.min(...values);
  let high = Math.max(...values);
  if (floor !== undefined) low = Math.min(low, floor);
  if (low === high) { low -= 1; high += 1; }
  return [low, high];
}

function empty(title, message) {
  return el("figure", { class: "chart" }, el("figcaption", {}, title),
    el("p", { class: "muted" }, message));
}

// A band's stretches without a gap (a point with no low/high breaks it).
function bandStretches(band) {
  const stretches = [[]];
  for (const b of band) {
    if (b.low === null || b.high === null) stretches.push([]);
    else stretches[stretches.length - 1].push(b);
  }
  return stretches.filter((s) => s.length > 1);
}

// series: [{key, name, colour, dots, points: [{x, y, tip}], band: [{x, low, high}]}]; x in ms
// when `time`; a series' optional band is shaded under its line.
export function lineChart({ title, xLabel, yLabel, series, time = false, yFloor }) {
  const all = series.flatMap((s) => s.points).filter((p) => p.y !== null && p.y !== undefined);
  if (!all.length) return empty(title, "no data yet");
  const bounds = series.flatMap((s) => s.band || []).flatMap((b) => [b.low, b.high])
    .filter((y) => y !== null);
  const [x0, x1] = extent(all.map((p) => p.x));
  const [y0, y1] = extent([...all.map((p) => p.y), ...bounds], yFloor);
  const innerW = WIDTH - MARGIN.left - MARGIN.right;
  const innerH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const sx = (x) => MARGIN.left + ((x - x0) / (x1 - x0)) * innerW;
  const sy = (y) => MARGIN.top + innerH - ((y - y0) / (y1 - y0)) * innerH;
  const xTicks = time ? ticks(x0, x1, 4).filter((t) => t >= x0) : ticks(x0, x1, 5);
  const xText = (v) => (time ? timeLabel(v, x1 - x0) : compact(v));
  const summary = series.map((s) => `${s.name}: ${s.points.length} points`).join(", ");
  const chart = svg("svg", {
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`, width: "100%", role: "img",
    "aria-label": `${title}. ${yLabel} against ${xLabel}; ${summary}.`,
  },
  ticks(y0, y1, 5).map((t) => svg("g", {},
    svg("line", { class: "grid-line", x1: MARGIN.left, x2: WIDTH - MARGIN.right, y1: sy(t), y2: sy(t) }),
    svg("text", { x: MARGIN.left - 6, y: sy(t) + 4, "text-anchor": "end" }, compact(t)))),
  xTicks.map((t) => svg("text", { x: sx(t), y: HEIGHT - MARGIN.bottom + 15, "text-anchor": "middle" }, xText(t))),
  svg("g", { class: "axis" },
    svg("line", { x1: MARGIN.left, x2: WIDTH - MARGIN.right, y1: MARGIN.top + innerH, y2: MARGIN.top + innerH }),
    svg("line", { x1: MARGIN.left, x2: MARGIN.left, y1: MARGIN.top, y2: MARGIN.top + innerH })),
  svg("text", { x: MARGIN.left + innerW / 2, y: HEIGHT - 6, "text-anchor": "middle" }, xLabel),
  svg("text", { x: 12, y: MARGIN.top + innerH / 2, "text-anchor": "middle",
    transform: `rotate(-90 12 ${MARGIN.top + innerH / 2})` }, yLabel),
  series.map((s) => {
    const shown = s.points.filter((p) => p.y !== null && p.y !== undefined);
    return svg("g", { "data-series": s.key },
      bandStretches(s.band || []).map((stretch) => svg("polygon", {
        class: "band", fill: s.colour, "fill-opacity": 0.18,
        points: [...stretch.map((b) => `${sx(b.x).toFixed(1)},${sy(b.high).toFixed(1)}`),
          ...[...stretch].reverse().map((b) => `${sx(b.x).toFixed(1)},${sy(b.low).toFixed(1)}`)].join(" "),
      })),
      svg("polyline", { fill: "none", stroke: s.colour, "stroke-width": 2,
        points: shown.map((p) => `${sx(p.x).toFixed(1)},${sy(p.y).toFixed(1)}`).join(" ") }),
      s.dots ? shown.map((p) => svg("circle", { class: "point", cx: sx(p.x), cy: sy(p.y), r: 3.5,
        fill: s.colour }, svg("title", {}, p.tip || `${xText(p.x)}: ${compact(p.y)}`))) : null);
  }));
  const legend = series.length > 1
    ? el("div", { class: "legend" }, series.map((s) => el("span", {},
      el("span", { class: "swatch", style: `background:${s.colour}` }), s.name)))
    : null;
  return el("figure", { class: "chart" }, el("figcaption", {}, title), chart, legend);
}

// bars: [{label, parts: [{value, colour, name}]}], stacked left to right.
export function barChart({ title, bars, unit }) {
  if (!bars.length) return empty(title, "no data yet");
  const rowH = 22;
  const labelW = 150;
  const height = bars.length * rowH + 24;
  const most = Math.max(1, ...bars.map((b) => b.parts.reduce((a, p) => a + p.value, 0)));
  const scale = (WIDTH - labelW - 100) / most;  // room for the total after the bar
  const names = [...new Set(bars.flatMap((b) => b.parts.map((p) => `${p.name}|${p.colour}`)))];
  const chart = svg("svg", {
    viewBox: `0 0 ${WIDTH} ${height}`, width: "100%", role: "img",
    "aria-label": `${title}: ` + bars.map((b) =>
      `${b.label} ${b.parts.map((p) => `${p.value} ${p.name}`).join(", ")}`).join("; "),
  }, bars.map((bar, row) => {
    let x = labelW;
    const y = row * rowH + 4;
    const total = bar.parts.reduce((a, p) => a + p.value, 0);
    return svg("g", { class: "bar" },
      svg("text", { x: labelW - 6, y: y + 14, "text-anchor": "end" }, bar.label),
      bar.parts.map((part) => {
        const rect = svg("rect", { x, y, width: part.value * scale, height: rowH - 6, fill: part.colour },
          svg("title", {}, `${bar.label}: ${part.value} ${part.name}`));
        x += part.value * scale;
        return rect;
      }),
      svg("text", { x: x + 4, y: y + 14 }, `${total}${unit ? ` ${unit}` : ""}`));
  }));
  const legend = el("div", { class: "legend" }, names.map((n) => {
    const [name, colour] = n.split("|");
    return el("span", {}, el("span", { class: "swatch", style: `background:${colour}` }), name);
  }));
  return el("figure", { class: "chart" }, el("figcaption", {}, title), chart, legend);
}
