// A run's dashboard (/runs/<run>): the target curve over env steps or wall time, levels per
// status letter, attempts per stage, learnability, the teacher's latency; polled every 5 s.
import { barChart, lineChart } from "./chart.js";
import {
  STATUS_COLOURS, STATUS_LETTERS, el, fixed, getJSON, header, markReady, pollWhileVisible,
  runFromPath, showError,
} from "./lib.js";

const POLL_MS = 5000;
const ACCEPTED = "#1f7a4d";
const REJECTED = "#b3261e";
const run = runFromPath();
const main = document.getElementById("main");
const charts = el("div", { class: "grid", id: "charts" });
const summary = el("section", { class: "card", "aria-labelledby": "summary-title" });
let axis = "env_steps";
let latest = null;

function axisChooser() {
  const choice = (value, text) => el("label", {},
    el("input", { type: "radio", name: "axis", value, checked: value === axis,
      onchange: () => { axis = value; draw(); } }), ` ${text}`);
  return el("fieldset", {}, el("legend", {}, "Target curve against"),
    choice("env_steps", "env steps"), " ", choice("time", "wall time"));
}

function drawSummary(data) {
  const s = data.stats;
  summary.replaceChildren(
    el("h2", { id: "summary-title" }, `${data.run.name} · ${data.run.domain} · ${data.run.status}`),
    el("p", {}, `${s.levels} levels (`, STATUS_LETTERS.map((l) => `${l} ${s.by_status[l]} `),
      `), ${s.edges} lineage edges, ${s.active} active; attempts ${s.accepted} accepted, `,
      `${s.rejected} rejected. Latest ${data.headline_label}: `,
      el("strong", { id: "latest-target" },
        data.target.length ? fixed(data.target[data.target.length - 1].value) : "–"),
      "."),
    el("p", { class: "muted" }, `Updated ${new Date().toLocaleTimeString()}; refreshes every 5 s.`));
}

function targetChart(data) {
  const byTime = axis === "time";
  return lineChart({
    title: `Target curve: ${data.headline_label}`,
    xLabel: byTime ? "wall time" : "env steps",
    yLabel: data.headline_label,
    time: byTime,
    series: [{
      key: "target", name: data.headline_label, colour: "#2450b2", dots: true,
      points: data.target
        .filter((p) => byTime || p.env_steps !== null)
        .map((p) => ({
          x: byTime ? Date.parse(p.time) : p.env_steps, y: p.value,
          tip: `iteration ${p.iteration}: ${fixed(p.value)}`,
        })),
    }],
  });
}

function statusChart(data) {
  return lineChart({
    title: "Levels per status letter", xLabel: "wall time", yLabel: "levels", time: true, yFloor: 0,
    series: STATUS_LETTERS.map((letter) => ({
      key: `status-${letter}`, name: `status ${letter}`, colour: STATUS_COLOURS[letter],
      points: data.status.map((p) => ({ x: Date.parse(p.time), y: p.counts[letter] })),
    })),
  });
}

function stageChart(data) {
  const stages = [...new Set(data.stages.map((s) => s.stage))];
  const count = (stage, verdict) =>
    data.stages.find((s) => s.stage === stage && s.verdict === verdict)?.attempts ?? 0;
  return barChart({
    title: "Attempts by the stage they ended at",
    unit: "attempts",
    bars: stages.map((stage) => ({
      label: stage,
      parts: [
        { name: "accepted", colour: ACCEPTED, value: count(stage, "accepted") },
        { name: "rejected", colour: REJECTED, value: count(stage, "rejected") },
      ].filter((p) => p.value > 0),
    })),
  });
}

function learnabilityCharts(data) {
  const bins = 5;  // p(1-p) lies in [0, 0.25]
  const counts = new Array(bins).fill(0);
  for (const score of data.active_scores) counts[Math.min(bins - 1, Math.floor(score / 0.25 * bins))] += 1;
  const mean = data.active_scores.reduce((a, b) => a + b, 0) / (data.active_scores.length || 1);
  return [
    lineChart({
      title: "Learnability of the levels trained on", xLabel: "student iteration",
      yLabel: "mean p(1−p)", yFloor: 0,
      series: [{ key: "learnability", name: "mean p(1−p)", colour: "#7a1fa2",
        points: data.learnability.map((p) => ({ x: p.iteration, y: p.mean,
          tip: `iterations ${p.iteration}–${p.last_iteration}: ${fixed(p.mean, 3)} over ${p.evaluations}` })) }],
    }),
    barChart({
      title: `Active set: ${data.active_scores.length} levels, mean learnability ${fixed(mean, 3)}`,
      unit: "levels",
      bars: data.active_scores.length ? counts.map((value, i) => ({
        label: `p(1−p) ${(i * 0.05).toFixed(2)}–${((i + 1) * 0.05).toFixed(2)}`,
        parts: [{ name: "active levels", colour: "#7a1fa2", value }],
      })) : [],
    }),
  ];
}

function latencyChart(data) {
  const points = (key) => data.latency.map((b) => ({ x: b.first_attempt, y: b[key],
    tip: `attempts from #${b.first_attempt} (${b.attempts}): ${fixed(b[key])} s` }));
  return lineChart({
    title: "Teacher latency per attempt", xLabel: "attempt id", yLabel: "seconds", yFloor: 0,
    series: [
      { key: "latency-mean", name: "mean", colour: "#2450b2", points: points("mean_s") },
      { key: "latency-max", name: "max", colour: "#b8650a", points: points("max_s") },
    ],
  });
}

function draw() {
  const data = latest;
  drawSummary(data);
  const card = (id, ...content) => el("section", { class: "card", id }, content);
  charts.replaceChildren(
    card("target-card", targetChart(data)),
    card("status-card", statusChart(data)),
    card("stages-card", stageChart(data)),
    card("latency-card", latencyChart(data)),
    ...learnabilityCharts(data).map((chart, i) => card(`learnability-card-${i}`, chart)),
  );
}

async function update() {
  try {
    latest = await getJSON(`/api/runs/${encodeURIComponent(run)}/dashboard`);
    draw();
  } catch (error) {
    showError(summary, error);
  }
  markReady();
}

header(run, "dashboard");
main.replaceChildren(summary, axisChooser(), charts);
pollWhileVisible(update, POLL_MS);
