// A run's generation attempts (/runs/<run>/attempts?verdict=&stage=&offset=): filtered by
// verdict and failing stage in SQL, paged; a row opens to the error and the code that failed.
import { codeBlock } from "./highlight.js";
import { el, fixed, getJSON, header, markReady, runFromPath, showError } from "./lib.js";

const PAGE = 50;
const run = runFromPath();
const main = document.getElementById("main");
const query = new URLSearchParams(window.location.search);
const state = {
  verdict: query.get("verdict") || "",
  stage: query.get("stage") || "",
  offset: Number(query.get("offset")) || 0,
};
const rows = el("tbody", { id: "attempt-rows" });
const status = el("p", { id: "attempt-count", class: "muted", "aria-live": "polite" });
const pager = el("div", { class: "filters" });

function select(label, id, options, value, onchange) {
  return el("label", { for: id }, label, el("select", { id, onchange },
    options.map(([v, text]) => el("option", { value: v, selected: v === value }, text))));
}

async function openRow(button, attempt) {
  const open = button.getAttribute("aria-expanded") === "true";
  const row = button.closest("tr");
  if (open) {
    row.nextElementSibling.remove();
    button.setAttribute("aria-expanded", "false");
    return;
  }
  button.setAttribute("aria-expanded", "true");
  const cell = el("td", { colspan: 8 }, "loading…");
  row.after(el("tr", { class: "detail" }, cell));
  try {
    const full = await getJSON(`/api/attempts/${attempt.id}`);
    cell.replaceChildren(
      full.error ? el("pre", { tabindex: 0, class: "error", style: "white-space:pre-wrap" }, full.error)
        : el("p", { class: "muted" }, "no error"),
      full.code ? codeBlock(full.code, `code of attempt ${full.id}`) : el("p", { class: "muted" }, "no code"));
  } catch (error) {
    showError(cell, error);
  }
}

function row(a) {
  const toggle = el("button", { type: "button", class: "linkish", "aria-expanded": "false",
    "aria-label": `attempt ${a.id}: show error and code` }, `#${a.id}`);
  toggle.addEventListener("click", () => openRow(toggle, a));
  const level = (id) => (id ? el("a", { href: `/levels/${id}` }, `#${id}`) : "–");
  return el("tr", { "data-attempt": a.id, "data-verdict": a.verdict },
    el("td", {}, toggle), el("td", {}, a.teacher), el("td", {}, a.verdict),
    el("td", {}, a.failing_stage || a.stage_reached),
    el("td", {}, a.error ? a.error.split("\n")[0].slice(0, 120) : ""),
    el("td", {}, level(a.parent_id)), el("td", {}, level(a.level_id)),
    el("td", { class: "num" }, fixed(a.latency_s)));
}

async function loadRows() {
  const params = new URLSearchParams({ limit: PAGE, offset: state.offset });
  if (state.verdict) params.set("verdict", state.verdict);
  if (state.stage) params.set("failing_stage", state.stage);
  const shown = new URLSearchParams();
  for (const [key, value] of Object.entries(state)) if (value) shown.set(key, value);
  window.history.replaceState(null, "", `?${shown}`);
  try {
    const page = await getJSON(`/api/runs/${encodeURIComponent(run)}/attempts?${params}`);
    rows.replaceChildren(...page.items.map(row));
    const last = Math.min(page.total, state.offset + page.items.length);
    status.textContent = page.total
      ? `attempts ${state.offset + 1}–${last} of ${page.total}` : "no attempt matches";
    pager.replaceChildren(
      el("button", { type: "button", disabled: state.offset === 0,
        onclick: () => { state.offset = Math.max(0, state.offset - PAGE); loadRows(); } }, "Previous"),
      el("button", { type: "button", disabled: last >= page.total,
        onclick: () => { state.offset += PAGE; loadRows(); } }, "Next"));
  } catch (error) {
    showError(status, error);
  }
  document.body.dataset.rows = String(rows.children.length);
}

async function load() {
  header(run, "attempts");
  try {
    const dashboard = await getJSON(`/api/runs/${encodeURIComponent(run)}/dashboard`);
    const stages = [...new Set(dashboard.stages.filter((s) => s.verdict === "rejected").map((s) => s.stage))];
    const change = (key) => (event) => { state[key] = event.target.value; state.offset = 0; loadRows(); };
    main.replaceChildren(
      el("h2", {}, "Generation attempts"),
      el("div", { class: "filters", role: "search" },
        select("Verdict", "verdict", [["", "any"], ["accepted", "accepted"], ["rejected", "rejected"]],
          state.verdict, change("verdict")),
        select("Failing stage", "stage", [["", "any"], ...stages.map((s) => [s, s])], state.stage,
          change("stage"))),
      status,
      el("table", {},
        el("caption", { class: "muted" }, "Open an attempt (its number) to see the error and the code."),
        el("thead", {}, el("tr", {}, ["attempt", "teacher", "verdict", "stage", "error", "parent",
          "level", "seconds"].map((h) => el("th", { scope: "col" }, h)))),
        rows),
      pager);
    await loadRows();
  } catch (error) {
    showError(main, error);
  }
  markReady();
}

load();
