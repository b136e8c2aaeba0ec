// A run's lineage graph (/runs/<run>/lineage): nodes coloured by status letter and sized by
// times sampled, edges parent → child coloured and labelled by instruction; pan (drag, arrow
// keys), zoom (wheel, +/−), open a level by clicking its node or pressing Enter on it; polled
// every 10 s, redrawn when the graph changed.
import {
  STATUS_COLOURS, STATUS_LETTERS, el, getJSON, header, markReady, pollWhileVisible, runFromPath,
  showError, svg,
} from "./lib.js";
import { layout } from "./tree.js";

const COLUMN = 110;   // px between generations
const ROW = 18;       // px between leaves
const POLL_MS = 10000;
const LABELS_UP_TO = 600;  // edges (and nodes) labelled in text; beyond, colour and tooltip only
const INSTRUCTION_COLOURS = {
  harder: "#b3261e", easier: "#1f7a4d", vary: "#2450b2", skill: "#7a1fa2",
};
const run = runFromPath();
const main = document.getElementById("main");

function radius(node) {
  return 4 + Math.min(10, 2 * Math.sqrt(node.times_sampled));
}

function edgeColour(instruction) {
  return INSTRUCTION_COLOURS[instruction] || "#8a8f9c";
}

function legend() {
  const item = (colour, text) => el("span", {}, el("span", { class: "swatch", style: `background:${colour}` }), text);
  return el("div", { class: "legend" },
    STATUS_LETTERS.map((l) => item(STATUS_COLOURS[l], `status ${l}`)),
    Object.entries(INSTRUCTION_COLOURS).map(([name, colour]) => item(colour, `edge: ${name}`)),
    el("span", {}, "node size: times sampled"));
}

function drawGraph(view) {
  const place = layout(view.nodes, view.edges);
  const at = (id) => {
    const p = place.get(id);
    return [20 + p.depth * COLUMN, 20 + p.row * ROW];
  };
  const rows = Math.max(1, ...[...place.values()].map((p) => p.row + 1));
  const depth = Math.max(1, ...[...place.values()].map((p) => p.depth + 1));
  // Fitting magnifies a small family at most about twice (labels stay legible, not huge).
  const bounds = { x: 0, y: 0, w: Math.max(depth * COLUMN + 40, 620), h: Math.max(rows * ROW + 40, 310) };
  const labelled = view.edges.length <= LABELS_UP_TO;
  const edges = view.edges.map((e) => {
    const [x1, y1] = at(e.parent);
    const [x2, y2] = at(e.child);
    const mid = (x1 + x2) / 2;
    return svg("g", { class: "edge" },
      svg("path", { d: `M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2},${y2}`, fill: "none",
        stroke: edgeColour(e.instruction), "stroke-width": 1.5, opacity: 0.8 },
        svg("title", {}, `#${e.parent} → #${e.child}: ${e.instruction || "no instruction"}`)),
      labelled && e.instruction
        ? svg("text", { x: mid, y: (y1 + y2) / 2 - 3, "text-anchor": "middle", class: "edge-label" }, e.instruction)
        : null);
  });
  const nodes = view.nodes.map((n) => {
    const [x, y] = at(n.id);
    const text = `level ${n.id}, status ${n.status}, sampled ${n.times_sampled} times` +
      (n.instruction ? `, made by ${n.instruction}` : "") + (n.hidden ? `, ${n.hidden} folded descendants` : "");
    return svg("a", { href: `/levels/${n.id}`, class: "node", "data-level": n.id, "aria-label": text },
      svg("circle", { cx: x, cy: y, r: radius(n), fill: STATUS_COLOURS[n.status],
        stroke: n.active ? "#111" : "#fff", "stroke-width": n.active ? 2 : 1 }),
      svg("title", {}, text),
      labelled ? svg("text", { x, y: y + radius(n) + 11, "text-anchor": "middle" }, `#${n.id}`) : null,
      n.hidden ? svg("text", { x: x + radius(n) + 2, y: y + 4 }, `+${n.hidden}`) : null);
  });
  return { layers: [svg("g", {}, edges), svg("g", {}, nodes)], bounds };
}

// viewBox-based pan and zoom on an SVG. The view follows the graph as it grows (``fit``)
// until the user pans or zooms; "0" or Fit returns to following it.
function panZoom(canvas) {
  let bounds = { x: 0, y: 0, w: 620, h: 310 };
  let box = { ...bounds };
  let following = true;
  const apply = () => canvas.setAttribute("viewBox", `${box.x} ${box.y} ${box.w} ${box.h}`);
  const fit = () => { box = { ...bounds }; following = true; apply(); };
  const zoom = (factor, cx = box.x + box.w / 2, cy = box.y + box.h / 2) => {
    box = { x: cx - (cx - box.x) * factor, y: cy - (cy - box.y) * factor, w: box.w * factor, h: box.h * factor };
    following = false;
    apply();
  };
  const pan = (dx, dy) => { box.x += dx * box.w; box.y += dy * box.h; following = false; apply(); };
  canvas.addEventListener("wheel", (event) => {
    event.preventDefault();
    const r = canvas.getBoundingClientRect();
    const cx = box.x + ((event.clientX - r.left) / r.width) * box.w;
    const cy = box.y + ((event.clientY - r.top) / r.height) * box.h;
    zoom(event.deltaY > 0 ? 1.2 : 1 / 1.2, cx, cy);
  }, { passive: false });
  let drag = null;
  canvas.addEventListener("pointerdown", (event) => {
    if (event.target.closest("a")) return;  // a click on a node opens it
    drag = { x: event.clientX, y: event.clientY };
    canvas.setPointerCapture(event.pointerId);
  });
  canvas.addEventListener("pointermove", (event) => {
    if (!drag) return;
    const r = canvas.getBoundingClientRect();
    box.x -= ((event.clientX - drag.x) / r.width) * box.w;
    box.y -= ((event.clientY - drag.y) / r.height) * box.h;
    drag = { x: event.clientX, y: event.clientY };
    following = false;
    apply();
  });
  canvas.addEventListener("pointerup", () => { drag = null; });
  canvas.addEventListener("keydown", (event) => {
    const moves = { ArrowLeft: [-0.1, 0], ArrowRight: [0.1, 0], ArrowUp: [0, -0.1], ArrowDown: [0, 0.1] };
    if (event.target !== canvas) return;  // Enter on a node follows its link
    if (moves[event.key]) pan(...moves[event.key]);
    else if (event.key === "+" || event.key === "=") zoom(1 / 1.25);
    else if (event.key === "-") zoom(1.25);
    else if (event.key === "0") fit();
    else return;
    event.preventDefault();
  });
  return {
    zoomIn: () => zoom(1 / 1.25),
    zoomOut: () => zoom(1.25),
    fit,
    setBounds: (next) => { bounds = next; if (following) fit(); },
  };
}

const canvas = svg("svg", {
  id: "graph", role: "group", tabindex: 0, width: "100%", height: 620,
  "aria-label": "Lineage graph; arrow keys pan, + and − zoom",
  style: "border:1px solid #d5d8e0; touch-action:none; background:#fff",
});
const control = panZoom(canvas);
const title = el("h2", {}, "Lineage");
const rule = el("p", { id: "rule", class: "muted" });
const updated = el("p", { class: "muted", id: "updated" });
let shown = "";

// What a redraw would change: the levels, their statuses, samples, activity and edges.
function signature(view) {
  return JSON.stringify([view.total, view.nodes.map((n) => [n.id, n.status, n.times_sampled, n.active, n.hidden]),
    view.edges.length]);
}

function show(view) {
  const { layers, bounds } = drawGraph(view);
  canvas.replaceChildren(...layers);
  canvas.setAttribute("aria-label",
    `Lineage graph of ${view.nodes.length} levels; arrow keys pan, + and − zoom`);
  control.setBounds(bounds);
  title.textContent = `Lineage: ${view.nodes.length} of ${view.total} levels, ${view.edges.length} edges`;
  rule.textContent = `${view.rule}.` + (view.edges.length > LABELS_UP_TO ? " Edge labels are left out beyond " +
    `${LABELS_UP_TO} edges: the colour names the instruction, hover an edge for it.` : "");
}

async function update() {
  try {
    const view = await getJSON(`/api/runs/${encodeURIComponent(run)}/graph/view`);
    const next = signature(view);
    // A redraw replaces the nodes: wait while one of them has the keyboard focus.
    const focusInGraph = canvas.contains(document.activeElement) && document.activeElement !== canvas;
    if (next !== shown && !focusInGraph) {
      show(view);
      shown = next;
    }
    updated.textContent = `Updated ${new Date().toLocaleTimeString()}; refreshes every ${POLL_MS / 1000} s.`;
    if (!main.contains(canvas)) main.replaceChildren(title, rule, legend(), controls(), canvas, help());
  } catch (error) {
    if (main.contains(canvas)) updated.textContent = String(error.message || error);
    else showError(main, error);
  }
  markReady();
}

function controls() {
  return el("div", { class: "filters" },
    el("button", { type: "button", onclick: control.zoomIn }, "Zoom in"),
    el("button", { type: "button", onclick: control.zoomOut }, "Zoom out"),
    el("button", { type: "button", onclick: control.fit }, "Fit"));
}

function help() {
  return el("div", {}, el("p", { class: "muted" }, "Drag or use the arrow keys to pan, the wheel or + / − to zoom, " +
    "0 to fit (and follow the graph as it grows). Tab moves between levels; Enter or a click opens one. " +
    "A +n beside a node counts its folded descendants."), updated);
}

header(run, "lineage");
pollWhileVisible(update, POLL_MS);
