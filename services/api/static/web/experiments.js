// The experiments (/experiments) and one experiment (/experiments/<name>): each arm's learning
// curve — the mean over seeds with its 95 % band — and the table of its run figures against the
// baseline. The numbers come from the API (services/experiment_view.py): drawing only here.
import { lineChart } from "./chart.js";
import { el, getJSON, header, markReady, showError } from "./lib.js";

const COLOURS = ["#2450b2", "#b8650a", "#1f7a4d", "#b3261e", "#7a1fa2", "#5f6470", "#0f7c8a",
  "#9a4a00", "#4d6b12", "#c2185b"];
const main = document.getElementById("main");
const name = decodeURIComponent(window.location.pathname.split("/")[2] || "");

// Three significant digits, as the tables of docs/results.md print them.
const g3 = (value) => String(Number(Number(value).toPrecision(3)));
const signed = (value) => `${value < 0 ? "−" : "+"}${g3(Math.abs(value))}`;

function listing(experiments) {
  if (!experiments.length) return el("p", { id: "no-experiments" }, "No experiment figures file here.");
  return el("table", { id: "experiments" },
    el("caption", { class: "muted" }, "Experiment documents of the figures directory"),
    el("thead", {}, el("tr", {}, ["experiment", "compared on", "baseline", "arms", "runs"]
      .map((text) => el("th", { scope: "col" }, text)))),
    el("tbody", {}, experiments.map((e) => el("tr", {},
      el("td", {}, el("a", { href: `/experiments/${encodeURIComponent(e.name)}` }, e.name)),
      el("td", {}, e.headline), el("td", {}, e.baseline), el("td", {}, e.arms.join(", ")),
      el("td", { class: "num" }, e.runs)))));
}

function curves(data, colours) {
  return lineChart({
    title: `Learning curves: ${data.headline}, mean over seeds with its 95 % band`,
    xLabel: "env steps",
    yLabel: data.headline,
    series: data.arms.filter((arm) => arm.curve.length).map((arm) => ({
      key: arm.name, name: arm.name, colour: colours[arm.name],
      points: arm.curve.map((p) => ({ x: p.env_steps, y: p.mean })),
      band: arm.curve.map((p) => ({ x: p.env_steps, low: p.low, high: p.high })),
    })),
  });
}

function armTable(data) {
  const versus = (arm) => (arm.vs_baseline
    ? `${signed(arm.vs_baseline.diff)} [${signed(arm.vs_baseline.low)}, ${signed(arm.vs_baseline.high)}]`
    : "—");
  const moved = (arm) => (arm.vs_baseline ? (arm.vs_baseline.moved ? "moved" : "no (spans 0)") : "—");
  const heads = ["arm", "n", `${data.headline}: mean ± sample std`,
    `Δ vs ${data.baseline} (95 % CI)`, "moved?", "per seed"];
  return el("table", { id: "arms" },
    el("caption", { class: "muted" }, "A run's figure is the mean of its last three "
      + "evaluations; an arm moved only where the 95 % interval of its difference excludes zero."),
    el("thead", {}, el("tr", {}, heads.map((text) => el("th", { scope: "col" }, text)))),
    el("tbody", {}, data.arms.map((arm) => el("tr", { "data-arm": arm.name },
      el("th", { scope: "row", title: arm.note }, arm.name),
      el("td", { class: "num" }, arm.n),
      el("td", { class: "num" }, arm.n > 1 ? `${g3(arm.mean)} ± ${g3(arm.std)}` : `${g3(arm.mean)} (one seed)`),
      el("td", { class: "num" }, versus(arm)),
      el("td", {}, moved(arm)),
      el("td", { class: "num" }, arm.seeds.map((s) => g3(s.figure)).join(", "))))));
}

function experiment(data) {
  const colours = Object.fromEntries(data.arms.map((arm, i) => [arm.name, COLOURS[i % COLOURS.length]]));
  const missing = data.arms.filter((arm) => arm.without_curve)
    .map((arm) => `${arm.name} (${arm.without_curve} run${arm.without_curve === 1 ? "" : "s"})`);
  document.title = `${data.name} · dicode archive`;
  return [
    el("h2", {}, `${data.name}: ${data.headline} against ${data.baseline}`),
    el("p", { class: "muted" }, data.protocol),
    el("section", { class: "card", id: "curves-card" }, curves(data, colours),
      missing.length ? el("p", { id: "no-curve", class: "muted" },
        `No curve recorded: ${missing.join(", ")}.`) : null),
    el("section", { class: "card", id: "arms-card" }, armTable(data)),
  ];
}

async function show() {
  header(null, "experiments");
  try {
    if (name) main.replaceChildren(...experiment(await getJSON(`/api/experiments/${encodeURIComponent(name)}`)));
    else main.replaceChildren(el("h2", {}, "Experiments"), listing(await getJSON("/api/experiments")));
  } catch (error) {
    showError(main, error);
  }
  markReady();
}

show();
