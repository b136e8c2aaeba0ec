// One level (/levels/<id>): description, the preview of several pool instances (drawn by the
// domain's renderer), success-rate history, parents and children, the attempt that made it
// (prompts and responses when an LLM wrote it) and its code.
import { lineChart } from "./chart.js";
import { codeBlock } from "./highlight.js";
import { el, fixed, getJSON, header, markReady, showError, statusBadge } from "./lib.js";

const INSTANCES = 4;
const main = document.getElementById("main");
const levelId = Number(window.location.pathname.split("/")[2]);

const links = (ids) => (ids.length
  ? ids.map((id) => [el("a", { href: `/levels/${id}` }, `#${id}`), " "])
  : [el("span", { class: "muted" }, "none")]);

function facts(level) {
  return el("p", {},
    statusBadge(level.status), ` success rate ${fixed(level.success_rate)} · learnability `,
    `${fixed(level.score, 3)} · sampled ${level.times_sampled} times · teacher ${level.teacher}`,
    level.skill ? ` · skill ${level.skill}` : "", level.active ? " · in the active set" : "",
    level.meta.instruction ? ` · instruction ${level.meta.instruction}` : "");
}

function preview(level) {
  if (!level.bundle || level.bundle.error) {
    return el("p", { class: "muted" }, level.bundle ? `no preview: ${level.bundle.error}` : "no stored bundle");
  }
  const count = Math.min(INSTANCES, level.bundle.pool_size);
  const text = el("pre", { tabindex: 0, id: "preview-text", "aria-label": "text preview" }, "loading…");
  getJSON(`/api/levels/${level.id}/preview?instances=${count}`)
    .then((p) => { text.textContent = p.text; })
    .catch((error) => { text.textContent = `no text preview (${error.message})`; });
  return el("div", {},
    el("img", { id: "preview-image", src: `/api/levels/${level.id}/preview.png?instances=${count}`,
      style: "max-width:100%; image-rendering:pixelated",
      alt: `The first ${count} of ${level.bundle.pool_size} pool instances of level ${level.id} ` +
        `(${level.domain}), drawn by the ${level.domain} renderer; the text below says the same.` }),
    el("details", {}, el("summary", {}, "as text"), text));
}

function history(level) {
  return lineChart({
    title: "Success rate per evaluation", xLabel: "student iteration", yLabel: "success rate", yFloor: 0,
    series: [{ key: "history", name: "success rate", colour: "#2450b2", dots: true,
      points: level.history.map((h) => ({ x: h.student_iteration, y: h.success_rate,
        tip: `iteration ${h.student_iteration}: ${fixed(h.success_rate)} over ${h.episodes} episodes` })) }],
  });
}

function message(item) {
  if (item && typeof item === "object" && "content" in item) {
    return [el("h3", {}, String(item.role || "message")),
      el("pre", { tabindex: 0 }, String(item.content))];
  }
  return [el("pre", { tabindex: 0 }, typeof item === "string" ? item : JSON.stringify(item, null, 1))];
}

function origin(attempts) {
  if (!attempts.items.length) return el("p", { class: "muted" }, "no recorded attempt made this level");
  const a = attempts.items[0];
  return el("div", { id: "origin" },
    el("p", {}, `Attempt #${a.id} by ${a.teacher}: ${a.verdict} (stage ${a.stage_reached}), `,
      `${fixed(a.latency_s)} s`, a.tokens_in ? `, ${a.tokens_in} tokens in, ${a.tokens_out} out` : "",
      attempts.total > 1 ? ` (${attempts.total - 1} later attempts wrote the same level)` : ""),
    a.prompts.length ? el("details", {}, el("summary", {}, `prompt (${a.prompts.length} messages)`),
      a.prompts.flatMap(message)) : el("p", { class: "muted" }, "no prompt (not written by an LLM)"),
    a.responses.length ? el("details", {}, el("summary", {}, `response (${a.responses.length})`),
      a.responses.flatMap(message)) : null);
}

async function load() {
  try {
    const level = await getJSON(`/api/levels/${levelId}`);
    document.title = `Level #${level.id} · dicode archive`;
    const [run, attempts] = await Promise.all([
      getJSON(`/api/runs/${level.run_id}`),
      getJSON(`/api/runs/${level.run_id}/attempts?level_id=${level.id}&full=true&limit=1`),
    ]);
    header(run.name, null);
    const section = (title, ...content) => el("section", { class: "card" }, el("h2", {}, title), content);
    main.replaceChildren(
      el("h2", { id: "level-title" }, `Level #${level.id}${level.name ? ` · ${level.name}` : ""} (${level.domain})`),
      facts(level),
      el("p", {}, "Parents: ", links(level.parents), " · children: ", links(level.children)),
      el("div", { class: "grid" },
        section("Description", el("pre", { tabindex: 0, style: "white-space:pre-wrap" }, level.description)),
        section("Preview", preview(level)),
        section("History", history(level)),
        section("The attempt that made it", origin(attempts))),
      section("Code", codeBlock(level.code, `code of level ${level.id}`)));
  } catch (error) {
    header(null, null);
    showError(main, error);
  }
  markReady();
}

load();
