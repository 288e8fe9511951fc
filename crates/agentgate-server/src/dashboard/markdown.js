// A small Markdown renderer for what an agent says, building DOM nodes
// only: every piece of a run's text becomes a text node or an attribute
// value, so no HTML from a run is ever interpreted (`<script>` shows as
// the characters it is). It knows paragraphs, headings, fenced and
// indented code blocks, block quotes, lists (nested by indentation),
// rules, inline code, emphasis and links (http and https only, opened
// with rel=noopener); anything else stays text.
"use strict";

const MARKDOWN_MAX_DEPTH = 12; // quotes and lists nested deeper stay text

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)/;
const HEADING = /^ {0,3}(#{1,6})(?:\s+(.*?))?\s*#*\s*$/;
const RULE = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const QUOTE = /^ {0,3}>\s?/;
const ITEM = /^( *)([-*+]|\d{1,9}[.)])(?:\s+(.*))?$/;

// `text` as a <div class="markdown"> of DOM nodes.
function renderMarkdown(text) {
  const root = document.createElement("div");
  root.className = "markdown";
  markdownBlocks(String(text || "").replace(/\r\n?/g, "\n").split("\n"), root, 0);
  return root;
}

function startsBlock(line) {
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) ||
    ITEM.test(line);
}

function markdownBlocks(lines, parent, depth) {
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    let m;
    if (!line.trim()) {
      i++;
    } else if ((m = FENCE.exec(line))) {
      const close = new RegExp("^ {0,3}" + m[1][0] + "{" + m[1].length + ",}\\s*$");
      const body = [];
      for (i++; i < lines.length && !close.test(lines[i]); i++) body.push(lines[i]);
      i++;
      parent.appendChild(codeBlock(body.join("\n"), m[2]));
    } else if (/^( {4}|\t)/.test(line)) {
      // An indented code block (a paragraph's lines were taken with it).
      const body = [];
      for (; i < lines.length && (/^( {4}|\t)/.test(lines[i]) || !lines[i].trim()); i++) {
        body.push(lines[i].replace(/^( {4}|\t)/, ""));
      }
      parent.appendChild(codeBlock(body.join("\n").replace(/\n+$/, ""), ""));
    } else if ((m = HEADING.exec(line))) {
      const h = document.createElement("h" + Math.min(6, m[1].length + 3));
      markdownInline(m[2] || "", h, depth);
      parent.appendChild(h);
      i++;
    } else if (RULE.test(line)) {
      parent.appendChild(document.createElement("hr"));
      i++;
    } else if (QUOTE.test(line) && depth < MARKDOWN_MAX_DEPTH) {
      const body = [];
      for (; i < lines.length && lines[i].trim() && (QUOTE.test(lines[i]) || !startsBlock(lines[i])); i++) {
        body.push(lines[i].replace(QUOTE, ""));
      }
      const quote = document.createElement("blockquote");
      markdownBlocks(body, quote, depth + 1);
      parent.appendChild(quote);
    } else if ((m = ITEM.exec(line)) && depth < MARKDOWN_MAX_DEPTH) {
      i = markdownList(lines, i, parent, depth);
    } else {
      const body = [line];
      for (i++; i < lines.length && lines[i].trim() && !startsBlock(lines[i]); i++) body.push(lines[i]);
      const p = document.createElement("p");
      markdownInline(body.map((l) => l.trim()).join("\n"), p, depth);
      parent.appendChild(p);
    }
  }
}

// One list from lines[start]: its items, each rendered as blocks of its
// own (so a nested list is a list in an item). Returns the next line.
function markdownList(lines, start, parent, depth) {
  const first = ITEM.exec(lines[start]);
  const indent = first[1].length;
  const ordered = /\d/.test(first[2]);
  const list = document.createElement(ordered ? "ol" : "ul");
  if (ordered && parseInt(first[2], 10) !== 1) list.start = parseInt(first[2], 10);
  let i = start;
  let item = null;
  const flush = () => {
    if (!item) return;
    const li = document.createElement("li");
    markdownBlocks(item, li, depth + 1);
    list.appendChild(li);
  };
  while (i < lines.length) {
    const line = lines[i];
    const m = ITEM.exec(line);
    if (m && m[1].length === indent && /\d/.test(m[2]) === ordered) {
      flush();
      item = [m[3] || ""];
      i++;
      continue;
    }
    const lead = line.length - line.trimStart().length;
    if (!line.trim()) {
      // A blank line goes on the item when an indented line follows.
      const next = lines[i + 1];
      if (next !== undefined && next.trim() && next.length - next.trimStart().length > indent) {
        item.push("");
        i++;
        continue;
      }
      break;
    }
    if (lead > indent) {
      item.push(line.slice(Math.min(lead, indent + 2)));
    } else if (!startsBlock(line)) {
      item.push(line.trim()); // a lazy continuation
    } else {
      break;
    }
    i++;
  }
  flush();
  parent.appendChild(list);
  return i;
}

function codeBlock(text, language) {
  const pre = document.createElement("pre");
  pre.className = "code";
  const code = document.createElement("code");
  code.textContent = text;
  if (language) code.dataset.lang = language;
  pre.appendChild(code);
  return pre;
}

// A link's address, when it is http(s); null otherwise.
function safeHref(href) {
  try {
    const url = new URL(href);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch (e) {
    return null;
  }
}

// Inline spans of `text` into `parent`: code, links, strong, emphasis,
// backslash escapes; the rest as text nodes.
function markdownInline(text, parent, depth) {
  let buffer = "";
  const flush = () => {
    if (buffer) parent.append(buffer);
    buffer = "";
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    const rest = text.slice(i);
    let m;
    if (c === "\\" && /^\\[\\`*_[\]()#+\-.!<>{}|~]/.test(rest)) {
      buffer += rest[1];
      i += 2;
    } else if (c === "`" && (m = /^(`+)([^`][\s\S]*?)\1(?!`)/.exec(rest))) {
      flush();
      const code = document.createElement("code");
      code.textContent = m[2].replace(/^ (.*) $/, "$1");
      parent.appendChild(code);
      i += m[0].length;
    } else if (c === "[" && (m = /^\[([^\]\n]+)\]\(\s*(\S+?)(?:\s+"[^"\n]*")?\s*\)/.exec(rest))) {
      flush();
      const href = safeHref(m[2]);
      if (href) {
        const a = document.createElement("a");
        a.href = href;
        a.rel = "noopener noreferrer";
        a.target = "_blank";
        markdownInline(m[1], a, depth + 1);
        parent.appendChild(a);
      } else {
        parent.append(m[0]); // not a link this page follows: its text
      }
      i += m[0].length;
    } else if ((c === "*" || c === "_") && depth < MARKDOWN_MAX_DEPTH &&
               (c === "*" || !/\w/.test(text[i - 1] || "")) &&
               (m = emphasis(rest, c))) {
      flush();
      const el = document.createElement(m.strong ? "strong" : "em");
      markdownInline(m.inner, el, depth + 1);
      parent.appendChild(el);
      i += m.length;
    } else {
      buffer += c;
      i++;
    }
  }
  flush();
}

// `**x**` / `__x__` (strong) or `*x*` / `_x_` (emphasis) at the start of
// `rest`: the inner text and the length taken; null when it does not close.
function emphasis(rest, mark) {
  const e = mark === "*" ? "\\*" : "_";
  const after = mark === "_" ? "(?!\\w)" : "";
  let m = new RegExp("^" + e + e + "(?=\\S)([\\s\\S]*?\\S)" + e + e + after).exec(rest);
  if (m) return { strong: true, inner: m[1], length: m[0].length };
  m = new RegExp("^" + e + "(?=[^\\s" + e + "])([\\s\\S]*?[^\\s" + e + "])" + e + "(?!" + e + ")" + after).exec(rest);
  if (m) return { strong: false, inner: m[1], length: m[0].length };
  return null;
}
