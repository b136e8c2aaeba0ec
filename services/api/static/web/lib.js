// Shared helpers of the archive browser's pages: fetching JSON, building DOM and SVG nodes,
// the page header. No framework: every page is a small ES module over these.

const SVG_NS = "http://www.w3.org/2000/svg";
export const STATUS_LETTERS = ["A", "B", "C", "D"];
export const STATUS_COLOURS = { A: "#1f7a4d", B: "#6b8e23", C: "#b8650a", D: "#b3261e" };

export async function getJSON(path) {
  const answer = await fetch(path);
  if (!answer.ok) {
    let reason = `${answer.status}`;
    try { reason += `: ${(await answer.json()).detail}`; } catch { /* not JSON */ }
    throw new Error(`${path} → ${reason}`);
  }
  return answer.json();
}

// el("a", {href: "/x", class: "y"}, "text", otherNode): children may be strings or nodes.
export function el(tag, attributes = {}, ...children) {
  return build(document.createElement(tag), attributes, children);
}

export function svg(tag, attributes = {}, ...children) {
  return build(document.createElementNS(SVG_NS, tag), attributes, children);
}

function build(node, attributes, children) {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function statusBadge(letter) {
  return el("span", { class: `st ${letter}`, title: `status ${letter}` }, letter);
}

export function fixed(value, digits = 2) {
  return value === null || value === undefined ? "–" : Number(value).toFixed(digits);
}

// The run named in the path: /runs/<run>[/…].
export function runFromPath() {
  return decodeURIComponent(window.location.pathname.split("/")[2] || "");
}

// The header every page shares: the run's pages, the current one marked for screen readers.
export function header(run, current) {
  const links = [["Runs", "/", "runs"], ["Experiments", "/experiments", "experiments"]];
  if (run !== null) {
    const base = `/runs/${encodeURIComponent(run)}`;
    links.push(["Dashboard", base, "dashboard"], ["Lineage", `${base}/lineage`, "lineage"],
      ["Attempts", `${base}/attempts`, "attempts"]);
  }
  const nav = el("nav", { "aria-label": "pages" }, links.map(([text, href, key]) =>
    el("a", { href, "aria-current": key === current ? "page" : null }, text)));
  const title = el("h1", {}, run === null ? "dicode archive" : `dicode archive · ${run}`);
  document.querySelector("header").replaceChildren(title, nav);
}

export function showError(where, error) {
  where.replaceChildren(el("p", { class: "error", role: "alert" }, String(error.message || error)));
}

// Pages say when their first render is complete (tests and the benchmark wait for it).
export function markReady() {
  if (!document.body.dataset.ready) {
    document.body.dataset.ready = String(Math.round(performance.now()));
  }
}

// Calls ``update`` now and every ``everyMs`` while the tab is visible; a background tab does
// not poll, and catches up the moment it is shown again.
export function pollWhileVisible(update, everyMs) {
  const tick = () => {
    if (document.visibilityState !== "hidden") update();
    setTimeout(tick, everyMs);
  };
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") update();
  });
  tick();
}
