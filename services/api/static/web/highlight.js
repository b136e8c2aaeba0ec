// A small Python highlighter: comments, strings, numbers, keywords, builtins and the names
// after def/class become <span class="tok-…">; everything stays text nodes (no HTML parsing).
import { el } from "./lib.js";

const KEYWORDS = new Set(("False None True and as assert async await break class continue def del " +
  "elif else except finally for from global if import in is lambda nonlocal not or pass raise " +
  "return try while with yield match case").split(" "));
const BUILTINS = new Set(("abs all any bool dict enumerate float int len list max min print range " +
  "reversed round set sorted str sum tuple zip isinstance super self").split(" "));
const TOKEN = new RegExp([
  String.raw`(#[^\n]*)`,
  String.raw`((?:[rRbBuUfF]{1,2})?(?:"""[\s\S]*?(?:"""|$)|'''[\s\S]*?(?:'''|$)|"(?:\\.|[^"\\\n])*"?|'(?:\\.|[^'\\\n])*'?))`,
  String.raw`(\b\d[\d_]*(?:\.\d*)?(?:[eE][+-]?\d+)?j?\b)`,
  String.raw`([A-Za-z_]\w*)`,
].join("|"), "g");

export function highlightPython(source) {
  const code = el("code", { class: "language-python" });
  let last = 0;
  let naming = false;  // the identifier after def/class is a definition
  for (const match of source.matchAll(TOKEN)) {
    if (match.index > last) code.append(source.slice(last, match.index));
    const [text, comment, string, number, word] = match;
    let kind = null;
    if (comment) kind = "com";
    else if (string) kind = "str";
    else if (number) kind = "num";
    else if (word) {
      if (naming) kind = "def";
      else if (KEYWORDS.has(word)) kind = "kw";
      else if (BUILTINS.has(word)) kind = "builtin";
      naming = word === "def" || word === "class";
    }
    code.append(kind ? el("span", { class: `tok-${kind}` }, text) : text);
    last = match.index + text.length;
  }
  code.append(source.slice(last));
  return code;
}

// A focusable (scrollable) block of highlighted code.
export function codeBlock(source, label) {
  return el("pre", { tabindex: 0, "aria-label": label }, highlightPython(source || ""));
}
