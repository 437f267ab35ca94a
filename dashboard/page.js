"use strict";
// The dashboard's behaviour: renders every section from the inlined page data (built by dashboard/model.py,
// packed by dashboard/page.py), and opens a vector's detail for the URL fragment #vector=<id>, so a link or a
// click shows one vector. A vector's detail is parsed from its own line of the data when it is first opened.

let DATA, RUNNERS, VECTORS, LINES, UNREAD;

// The inlined data: base64 of gzip of one JSON line (what every section draws) and one line per vector's detail.
async function loadData() {
  const text64 = atob(document.getElementById("report-data").textContent.trim());
  const packed = new Uint8Array(text64.length);
  for (let i = 0; i < text64.length; i++) packed[i] = text64.charCodeAt(i);
  const text = await new Response(new Blob([packed]).stream().pipeThrough(new DecompressionStream("gzip"))).text();
  LINES = text.split("\n");
  DATA = JSON.parse(LINES[0]);
  RUNNERS = DATA.runners.map(r => r.name);
  VECTORS = new Map(DATA.vectors.map(v => [v.id, v]));
  UNREAD = new Map(DATA.vectors.map((v, i) => [v.id, i + 1]));    // vector id -> its detail line, until parsed
}
// A vector whole (its list row and its detail), or undefined; the detail line is parsed on first use.
function vectorDetail(id) {
  const line = UNREAD.get(id);
  if (line !== undefined) {
    Object.assign(VECTORS.get(id), JSON.parse(LINES[line]));
    UNREAD.delete(id);
  }
  return VECTORS.get(id);
}
const STATE_TEXT = {pass: "✓ pass", info: "i info", coarse: "≃ coarse class", xfail: "≈ expected failure", fail: "✗ fail",
                    crash: "‼ crash", unclaimed: "∅ unclaimed", none: "– not run"};
const VERDICT_STATE = {pass: "pass", info: "info", coarse: "coarse", xfail: "xfail", fail: "fail", xpass: "fail", skip: "fail",
                       crash: "crash", timeout: "crash", "protocol-error": "crash", abandoned: "crash", fault: "crash",
                       unclaimed: "unclaimed"};
const SEVERITY = ["crash", "fail", "xfail", "unclaimed", "coarse", "pass", "info"];     // as dashboard/status.py

// el("td", {class: "x", onclick: f}, child, "text", ...): a DOM element; text is never parsed as HTML.
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "class") e.className = v;
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}
const $ = id => document.getElementById(id);
function chip(state, text) { return el("span", {class: "chip " + state}, text || STATE_TEXT[state]); }
function verdictChip(verdict) { return chip(VERDICT_STATE[verdict] || "crash", verdict); }
function vectorLink(id) {
  return el("a", {href: "#vector=" + encodeURIComponent(id), class: "mono"}, id);
}
function countsText(counts) {
  const order = DATA.meta.verdict_names;
  const parts = order.filter(k => counts[k]).map(k => counts[k] + " " + k);
  return parts.length ? parts.join(" · ") : "not run";
}
function worst(states) {
  for (const s of SEVERITY) if (states.includes(s)) return s;
  return "none";
}
// <details> whose content is made when it is first opened (a rule's list of thousands of vector links).
function lazyDetails(summary, content) {
  const d = el("details", {}, el("summary", {}, summary));
  d.addEventListener("toggle", () => { if (d.open && d.children.length === 1) d.append(...[content()].flat(Infinity)); });
  return d;
}
function table(t, head, rows, rowheadFirst) {
  t.replaceChildren(el("thead", {}, el("tr", {}, head.map((h, i) =>
    el("th", {class: (rowheadFirst && i === 0 ? "rowhead " : "") + (h.num ? "num" : "")}, h.text ?? h)))),
    el("tbody", {}, rows));
}

// ---------- header, runners ----------
function renderHeader() {
  const m = DATA.meta, t = m.totals;
  const bad = t.failed > 0, idle = DATA.runners.every(r => r.nothing_checked);
  // Every verdict kind counted apart (pass, info, xfail, unclaimed, ...), over all runners.
  const all = {};
  for (const r of DATA.runners) for (const [k, n] of Object.entries(r.counts)) all[k] = (all[k] || 0) + n;
  $("overall").className = "chip " + (bad ? "fail" : idle ? "unclaimed" : "pass");
  $("overall").textContent = bad ? `✗ ${t.failed} failing` : idle ? "∅ nothing checked (all unclaimed)" :
    `✓ none failing: ${countsText(all)}`;
  const sel = m.selection;
  $("meta").textContent = `Corpus ${m.corpus_version} · registry ${m.registry_version} · harness ${m.harness_version}` +
    ` · report written ${m.timestamp} · ${sel.vectors} vectors, ${sel.ops} operations per runner` +
    (sel.full ? " (whole corpus)" : ` (selection: ${[...sel.cases, ...sel.patterns].join(", ")})`) +
    ` · ${countsText(all)}`;
}

function renderRunners() {
  const cols = ["pass", "coarse", "info", "xfail", "fail", "xpass", "skip", "crash", "timeout", "protocol-error", "abandoned",
                "unclaimed"];
  table($("runner-table"),
    ["runner", "state", "language", "library", ...cols.map(c => ({text: c, num: true})), "restarts", "stale"],
    DATA.runners.map(r => el("tr", {},
      el("th", {class: "rowhead"}, r.name),
      el("td", {}, chip(r.failing ? (r.state === "crash" ? "crash" : "fail") : r.state,
                        r.start_error ? "‼ did not start" : r.failing ? `✗ ${r.failing} failing` :
                        r.nothing_checked ? "∅ nothing checked (all unclaimed)" :
                        r.state === "unclaimed" ? "✓ pass (part unclaimed)" : STATE_TEXT[r.state])),
      el("td", {}, r.language ?? "—"),
      el("td", {}, [r.library, r.library_version].filter(Boolean).join(" ") || "—"),
      cols.map(c => el("td", {class: "num" + (r.counts[c] && c !== "pass" && c !== "info" ? " " +
        (VERDICT_STATE[c]) : "")}, r.counts[c])),
      el("td", {class: "num"}, r.restarts),
      el("td", {class: "num" + (r.expectations.stale.length ? " fail" : "")}, r.expectations.stale.length))));
}

// ---------- families x runners ----------
function renderMatrix() {
  const rows = DATA.families.map(f => el("tr", {},
    el("th", {class: "rowhead"}, f.name, el("div", {class: "hint"}, f.vectors + " vectors")),
    RUNNERS.map(name => {
      const c = f.cells[name];
      return el("td", {class: "cell " + c.state, title: `${f.name} × ${name}: ${countsText(c.counts)}`,
                       "data-family": f.name, "data-runner": name,
                       onclick: () => showVectors({family: f.name, runner: name, state: ""})},
        STATE_TEXT[c.state].split(" ")[0] + " " + countsText(c.counts));
    })));
  table($("matrix-table"), ["family", ...RUNNERS], rows, true);
}

// ---------- vector list ----------
function globToRegExp(text) {
  const esc = text.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*");
  return new RegExp(text.includes("*") ? "^" + esc + "$" : esc, "i");
}
function vectorMatches(v, f) {
  if (f.query && !f.re.test(v.id)) return false;
  if (f.family && v.family !== f.family) return false;
  const states = f.runner ? [v.state[f.runner]] : RUNNERS.map(r => v.state[r]);
  if (!f.state) return true;
  if (f.state === "problem") return states.some(s => s === "fail" || s === "crash" || s === "xfail");
  return states.includes(f.state);
}
function currentFilter() {
  const query = $("search").value.trim();
  return {query, re: query ? globToRegExp(query) : null, family: $("family-filter").value,
          runner: $("runner-filter").value, state: $("state-filter").value};
}
const MAX_ROWS = 1000;
function renderVectorList() {
  const f = currentFilter();
  const shown = DATA.vectors.filter(v => vectorMatches(v, f));
  const rows = shown.slice(0, MAX_ROWS).map(v => el("tr", {class: "vrow", "data-id": v.id,
      onclick: () => openVector(v.id)},
    el("th", {class: "rowhead"}, vectorLink(v.id)),
    el("td", {}, v.family), el("td", {}, v.kind ?? "—"), el("td", {}, v.era ?? "—"), el("td", {}, v.level ?? "—"),
    RUNNERS.map(r => el("td", {}, chip(v.state[r])))));
  table($("vector-table"), ["id", "family", "kind", "era", "level", ...RUNNERS], rows, true);
  $("vector-count").textContent = `showing ${Math.min(shown.length, MAX_ROWS)} of ${shown.length} matching ` +
    `(${DATA.vectors.length} vectors)` + (shown.length > MAX_ROWS ? " - narrow the search to see the rest" : "");
}
function showVectors(filter) {
  $("family-filter").value = filter.family ?? "";
  $("runner-filter").value = filter.runner ?? "";
  $("state-filter").value = filter.state ?? "";
  renderVectorList();
  $("vectors").scrollIntoView();
}

// ---------- typed values and annotated bytes ----------
function scalarText(v) {
  switch (v.type) {
    case "nil": return "nil";
    case "bool": return String(v.value);
    case "int": return v.value;
    case "float32": case "float64": return "bits " + v.bits;
    case "str": return JSON.stringify(v.value) + (v.clipped_chars ? ` … (${v.clipped_chars} chars)` : "");
    case "bin": return "0x" + v.hex + (v.clipped_chars ? ` … (${v.clipped_chars / 2} bytes)` : "");
    case "ext": return `code ${v.code} 0x${v.hex}` + (v.clipped_chars ? " …" : "");
    case "clipped": return `… ${v.count} more ${v.why || "not shown"}`;
    default: {
      const rest = Object.fromEntries(Object.entries(v).filter(([k]) => k !== "type" && k !== "era"));
      return JSON.stringify(rest.value !== undefined && Object.keys(rest).length === 1 ? rest.value : rest);
    }
  }
}
function valueLines(v, indent, label, out) {
  const pad = "  ".repeat(indent) + (label ? label + ": " : "");
  const type = v.type + (v.era ? `(${v.era})` : "");
  if (v.type === "array") {
    out.push(el("div", {}, pad, el("span", {class: "t"}, type), ` ${v.items.length} items`));
    v.items.forEach((item, i) => valueLines(item, indent + 1, item.type === "clipped" ? "" : `[${i}]`, out));
  } else if (v.type === "map") {
    out.push(el("div", {}, pad, el("span", {class: "t"}, type), ` ${v.entries.length + (v.clipped || 0)} entries`));
    v.entries.forEach(([k, val], i) => {
      valueLines(k, indent + 1, `key[${i}]`, out);
      valueLines(val, indent + 1, `value[${i}]`, out);
    });
    if (v.clipped) out.push(el("div", {}, "  ".repeat(indent + 1) + `… ${v.clipped} more entries`));
  } else {
    out.push(el("div", {}, pad, el("span", {class: "t"}, type), " ", scalarText(v)));
  }
}
function valueTree(values) {
  const out = [];
  values.forEach((v, i) => valueLines(v, 0, values.length > 1 ? `top[${i}]` : "", out));
  return el("div", {class: "tree mono", "data-role": "values"}, out.length ? out : "(no values)");
}
// A frame's message (spec 11.1): typed fields as values, structured ones (features, extensions, error) as JSON.
function fieldTree(fields) {
  const out = [];
  for (const [name, v] of Object.entries(fields)) {
    if (v && typeof v === "object" && !Array.isArray(v) && v.type) valueLines(v, 0, name, out);
    else out.push(el("div", {}, name + ": ", JSON.stringify(v)));
  }
  return el("div", {class: "tree mono", "data-role": "fields"}, out.length ? out : "(no fields)");
}
function spaced(hex) { return hex.match(/../g)?.join(" ") ?? ""; }
function hexTable(b, focus) {
  const hit = (start, end) => focus !== undefined && focus !== null && start <= focus && focus < end;
  const rows = b.ranges.map(r => r === null ? el("tr", {class: "gap"}, el("td", {colspan: 4, class: "hint"},
      `… ranges not shown (${b.more} in all) …`)) : hexRow(r));
  function hexRow([start, end, hex, path, note, part]) { return el("tr", {class: "part-" + part +
      (part === "malformed" ? " malformed" : "") + (hit(start, end) ? " focus" : "")},
    el("td", {class: "off mono"}, hit(start, end) ? "▶ " + start : start),
    el("td", {class: "bytes mono"}, spaced(hex) + (end - start > hex.length / 2 ? ` … (${end - start} bytes)` : "")),
    el("td", {class: "mono"}, path), el("td", {}, note)); }
  return el("div", {},
    el("div", {class: "hint"}, `${b.length} bytes` + (b.error ? ` - annotation stopped: ${b.error}` : "") +
      (focus !== undefined && focus !== null ? ` - first difference at offset ${focus} (▶)` : "")),
    el("div", {class: "scroll"}, el("table", {class: "hex", "data-role": "hex"},
      el("thead", {}, el("tr", {}, el("th", {class: "num"}, "offset"), el("th", {}, "bytes"),
                         el("th", {}, "MessagePack path"), el("th", {}, "meaning"))),
      el("tbody", {}, rows))),
    null);
}

// ---------- vector detail ----------
function expectedFor(v, op, focus) {
  if (v.kind === "value" && op === "encode")
    return [el("div", {}, "canonical bytes", (v.variants || []).some(x => x.encoder_may_emit) ?
      " (or a variant marked encoder_may_emit)" : ""), hexTable(v.canonical, focus)];
  if (v.kind === "value" && v.fields) return [el("div", {}, "the fields"), fieldTree(v.fields)];
  if (v.kind === "value") return [el("div", {}, "the typed values"), valueTree(v.values)];
  return [el("div", {}, "an error of class ", el("code", {}, v.error))];
}
function highlight(lines) {
  return el("pre", {"data-role": "diagnosis"}, lines.map(line =>
    /^\s*>/.test(line) ? [el("mark", {}, line), "\n"] : [line, "\n"]));
}
function resultBlock(v, runner, r) {
  const state = VERDICT_STATE[r.verdict] || "crash";
  const cls = {fail: "failing", crash: "crashing", xfail: "xfailing"}[state];
  const head = el("div", {}, el("strong", {}, runner), " ", el("code", {}, r.op), " ", verdictChip(r.verdict), " ",
    r.detail, r.matched && r.matched !== "canonical" ? ` (matched variant ${r.matched})` : "");
  if (!cls) return el("div", {class: "result"}, head);
  const a = r.actual;
  const actual = a ? (a.bytes ? [el("div", {}, "bytes written"), hexTable(a.bytes, a.focus)]
      : a.values ? [el("div", {}, "values decoded"), valueTree(a.values)] : el("div", {}, a.text))
    : el("div", {}, r.answer === null ? "no answer (the runner did not reply)" : `answered: ${r.answer}`,
         el("div", {class: "hint"}, "the harness diagnosis below has the details"));
  const focus = a ? a.focus : undefined;
  return el("div", {class: "result " + cls, "data-role": "failure", "data-runner": runner, "data-op": r.op},
    head,
    r.expectation ? el("div", {}, "expected to fail: ", el("em", {}, r.expectation)) : null,
    el("div", {class: "compare"},
      el("div", {"data-role": "expected"}, el("h4", {}, "Expected"), expectedFor(v, r.op, focus)),
      el("div", {"data-role": "actual"}, el("h4", {}, `Actual (${runner})`), actual)),
    r.diagnosis.length ? el("details", {open: !a}, el("summary", {}, "Harness diagnosis (text)"), highlight(r.diagnosis))
      : null);
}
function openVector(id) {
  const want = "#vector=" + encodeURIComponent(id);
  if (location.hash !== want) location.hash = want; else renderDetail(id);
}
function renderDetail(id) {
  const v = vectorDetail(id);
  const body = $("detail-body");
  $("detail-title").textContent = id;
  $("detail").hidden = false;
  if (!v) { body.replaceChildren(el("p", {class: "notice"}, "No vector with this id in this report or corpus.")); return; }
  const parts = [
    el("p", {}, v.description ?? ""),
    el("dl", {class: "facts"},
      el("dt", {}, "family"), el("dd", {}, v.family), el("dt", {}, "kind"), el("dd", {}, v.kind ?? "—"),
      el("dt", {}, "era"), el("dd", {}, v.era ?? "—"), el("dt", {}, "level"), el("dd", {}, v.level ?? "—"),
      el("dt", {}, "rules"), el("dd", {}, (v.rules || []).map((r, i) => [i ? ", " : "",
        el("a", {href: "#rule=" + encodeURIComponent(r), class: "mono"}, r)])),
      v.since ? [el("dt", {}, "since"), el("dd", {}, v.since)] : null,
      v.error ? [el("dt", {}, "must be rejected with"), el("dd", {}, el("code", {}, v.error))] : null,
      v.nan ? [el("dt", {}, "NaN comparison"), el("dd", {}, v.nan)] : null,
      el("dt", {}, "state"), el("dd", {}, RUNNERS.map(r => [r + " ", chip(v.state[r]), " "]))),
    el("h3", {}, "Results"),
    RUNNERS.map(r => (v.results[r] || []).length ? v.results[r].map(x => resultBlock(v, r, x))
      : el("div", {class: "result"}, el("strong", {}, r), " ", chip("none"))),
  ];
  if (v.values) parts.push(el("h3", {}, "Typed values"), valueTree(v.values));
  if (v.fields) parts.push(el("h3", {}, "Fields"), fieldTree(v.fields));
  if (v.canonical) parts.push(el("h3", {}, "Canonical bytes"), hexTable(v.canonical));
  for (const x of v.variants || []) {
    parts.push(el("h3", {}, `Variant ${x.label}`, x.encoder_may_emit ? " (an encoder may write it)" : " (decoders accept it)"),
               el("div", {class: "hint"}, x.why), hexTable(x.bytes));
  }
  if (v.input) parts.push(el("h3", {}, "Input bytes (must be rejected)"), hexTable(v.input));
  body.replaceChildren(...parts.flat(Infinity));
  $("detail").scrollTop = 0;
}
function closeDetail() {
  $("detail").hidden = true;
  if (location.hash.startsWith("#vector=")) history.replaceState(null, "", location.pathname + location.search);
}

// ---------- spec rules ----------
function renderRules() {
  const only = $("uncovered-only").checked;
  const uncovered = DATA.rules.filter(r => !r.vectors.length);
  $("rule-count").textContent = `${DATA.rules.length} rules; ${uncovered.length} with no vector` +
    (DATA.rules.some(r => !r.registered) ? "; some vectors name rules not in the registry" : "");
  const rows = DATA.rules.filter(r => !only || !r.vectors.length).map(r => el("tr", {
      id: "rule-" + r.id, class: r.vectors.length ? "" : "uncovered"},
    el("th", {class: "rowhead mono"}, r.id),
    el("td", {}, r.level ?? "—"),
    el("td", {}, r.title, r.registered ? null : [" ", chip("fail", "✗ not in registry")]),
    el("td", {}, r.vectors.length ? lazyDetails(`${r.vectors.length} vectors`,
        () => r.vectors.map((id, i) => [i ? ", " : "", vectorLink(id)])) : chip("fail", "✗ NO VECTOR")),
    RUNNERS.map(name => {
      const s = r.state[name];
      return el("td", {title: countsText(s.counts)}, chip(s.state, STATE_TEXT[s.state].split(" ")[0] + " " +
        (s.state === "none" ? "not run" : countsText(s.counts))));
    })));
  table($("rule-table"), ["rule", "level", "title", "vectors", ...RUNNERS], rows, true);
}
function showRule(id) {
  $("uncovered-only").checked = false;
  renderRules();
  const row = $("rule-" + id);
  if (row) { row.scrollIntoView({block: "center"}); row.style.outline = "3px solid #0969da"; }
}

// ---------- expected failures ----------
function renderXfail() {
  const blocks = DATA.expected_failures.map(x => {
    const list = x.entries.map(e => el("div", {},
      el("h4", {}, el("code", {}, e.expectation)),
      el("ul", {}, e.matches.map(m => el("li", {}, vectorLink(m.vector), " ", el("code", {}, m.op), " ",
        verdictChip(m.verdict), " ", m.detail)))));
    const advice = (title, lines, state) => lines.length ? [el("h4", {}, title), el("pre", {class: state},
      lines.join("\n"))] : null;
    return el("div", {}, el("h3", {}, x.runner, " ", el("span", {class: "hint mono"}, x.file)),
      list.length ? list : el("p", {class: "hint"}, "Nothing is listed as expected to fail (or nothing listed matched this run)."),
      advice("Stale entries (match no verdict; each fails the run)", x.stale, "fail"),
      advice("Lines to add so the file matches this run", x.add, ""),
      advice("Lines to remove so the file matches this run", x.remove, ""));
  });
  $("xfail-body").replaceChildren(...blocks);
}

// ---------- producer x consumer ----------
// Shape (model.py _cross, from the report's "matrix"): {"cells": [{"producer", "consumer", "counts": {verdict: n},
//   "failing": [{"vector", "verdict", "detail"}]}]}; producers / consumers lists are optional.
function renderCross() {
  const c = DATA.cross;
  const body = $("cross-body");
  if (!c || !Array.isArray(c.cells)) {
    body.replaceChildren(el("p", {class: "notice", "data-role": "cross-missing"},
      "Not in this report: the harness run that wrote it did not compute the producer × consumer matrix " +
      "(bytes written by one runner, read back by another)."));
    return;
  }
  const producers = c.producers || [...new Set(c.cells.map(x => x.producer))];
  const consumers = c.consumers || [...new Set(c.cells.map(x => x.consumer))];
  const at = new Map(c.cells.map(x => [x.producer + "\u0000" + x.consumer, x]));
  const rows = producers.map(p => el("tr", {}, el("th", {class: "rowhead"}, p + " wrote"),
    consumers.map(q => {
      const x = at.get(p + "\u0000" + q);
      if (!x) return el("td", {class: "cell none"}, "– not run");
      const state = worst(Object.keys(x.counts).filter(k => x.counts[k]).map(k => VERDICT_STATE[k] || "crash"));
      return el("td", {class: "cell " + state, title: (x.failing || []).map(f => f.vector).join(", ")},
        STATE_TEXT[state].split(" ")[0] + " " + countsText(x.counts),
        (x.failing || []).length ? el("details", {}, el("summary", {}, `${x.failing.length} failing`),
          x.failing.map(f => el("div", {}, vectorLink(f.vector), " ", verdictChip(f.verdict), " ", f.detail || ""))) : null);
    })));
  const t = el("table", {class: "matrix", "data-role": "cross-matrix"});
  table(t, ["producer \\ consumer", ...consumers.map(q => q + " read")], rows, true);
  body.replaceChildren(el("p", {class: "hint"}, "Rows: the runner that encoded; columns: the runner that decoded those bytes."),
                       el("div", {class: "scroll"}, t));
}

// ---------- official clients ----------
// Shape (dashboard/official.py build): {"refs", "runners", "rows": [{"runner", "ref", "commit", "run",
//   "library_version", "counts": {pass, coarse, xfail, info, unclaimed, unexpected}}], "causes": {runner: [{"title",
//   "rules", "upstream": [{"text", "url"}], "fixed", "notes", "by_ref": {ref: {"entries", "verdicts"}}}]}, "problems"}.
function renderOfficial() {
  const o = DATA.official, body = $("official-body");
  if (!o) {
    body.replaceChildren(el("p", {class: "notice", "data-role": "official-missing"},
      "Not in this page: it was built without --official (python3 -m dashboard --official out/official, after " +
      "the official runners ran per Ignite ref into out/official/<ref>)."));
    return;
  }
  const keys = ["pass", "coarse", "xfail", "unclaimed", "info", "unexpected"];
  const counts = el("table", {"data-role": "official-counts"});
  table(counts, ["client", "ref", "version", ...["pass", "coarse", "fail (xfail)", "unclaimed", "info", "unexpected"]
    .map(text => ({text, num: true}))], o.rows.map(r => el("tr", {},
      el("th", {class: "rowhead"}, r.runner), el("td", {class: "mono"}, `${r.ref} (${r.commit})`),
      el("td", {}, r.run ? (r.library_version ?? "—") : chip("none", "– not run")),
      keys.map(k => el("td", {class: "num" + (k === "unexpected" && r.counts[k] ? " fail" : "")},
        r.run ? String(r.counts[k]) : "—")))), true);
  const ruleLink = id => el("a", {href: "#rule=" + encodeURIComponent(id), class: "mono",
    title: (DATA.rules.find(x => x.id === id) || {}).title || "not in schema/registry.json"}, id);
  const causes = o.runners.map(name => {
    const list = o.causes[name] || [];
    if (!list.length) return el("div", {}, el("h3", {}, name), el("p", {class: "hint"}, "No deviation listed."));
    const t = el("table", {"data-role": "official-causes"});
    table(t, ["cause", "rule", "upstream", "fixed on main", ...o.refs.map(text => ({text, num: true}))],
      list.map(c => el("tr", {}, el("th", {class: "rowhead", title: (c.notes || []).join("\n")}, c.title),
        el("td", {}, c.rules.length ? c.rules.map((r, i) => [i ? ", " : "", ruleLink(r)]) : "none"),
        el("td", {}, c.upstream.map((u, i) => [i ? ", " : "", el("a", {href: u.url, class: "mono"}, u.text)])),
        el("td", {class: c.fixed.startsWith("yes") ? "pass" : ""}, c.fixed),
        o.refs.map(ref => {
          const x = c.by_ref[ref];
          return el("td", {class: "num"}, !x ? "—" : x.verdicts === null ? `not run (${x.entries} entries)` :
            String(x.verdicts));
        }))), true);
    return el("div", {}, el("h3", {}, name, " ", el("span", {class: "hint"}, "deviations by cause (xfail verdicts per ref)")),
      el("div", {class: "scroll"}, t));
  });
  const problems = (o.problems || []).length ? el("details", {}, el("summary", {class: "fail"},
    `${o.problems.length} problem(s) in the expected-failures files`),
    el("pre", {}, o.problems.join("\n"))) : null;
  body.replaceChildren(el("p", {class: "hint"}, "Each official client's own wire code, wrapped in a thin runner, per " +
    "Ignite ref. fail (xfail): verdicts that differ from the corpus, each listed under its cause; coarse: rejected " +
    "with the error-class family the client's exception names."), el("div", {class: "scroll"}, counts),
    ...causes, problems);
}

// ---------- versions ----------
function renderVersions() {
  const m = DATA.meta;
  const facts = [["corpus version (files run)", m.corpus_version], ["corpus version (registry)", m.registry_version],
    ["spec version (registry given to the dashboard)", m.spec_version ?? "—"], ["harness version", m.harness_version],
    ["report format", m.report_format], ["report written", m.timestamp],
    ["selection", m.selection.full ? "whole corpus" : [...m.selection.cases, ...m.selection.patterns].join(", ")],
    ["corpus strength (mutant catalogue, make mutation)", m.mutation?.total ? `${m.mutation.killed} of ${m.mutation.total} ` +
      `mutants killed, ${m.mutation.survived} survived (triaged), corpus ${m.mutation.corpus_version}, ${m.mutation.date}` : "—"],
    ["corpus strength (StrykerJS, JS runner codec)", m.mutation?.stryker ? `${m.mutation.stryker.score_non_equivalent} %` +
      ` of the non-equivalent mutants killed (score ${m.mutation.stryker.score} % of ${m.mutation.stryker.mutants}),` +
      ` corpus ${m.mutation.stryker.corpus_version}, ${m.mutation.stryker.date}` : "see mutation/README.md"]];
  const files = el("table", {}, el("thead", {}, el("tr", {}, ["family", "vectors", "corpus version", "path"].map(h =>
    el("th", {}, h)))), el("tbody", {}, m.files.map(f => el("tr", {}, el("td", {}, f.family),
      el("td", {class: "num"}, f.vectors), el("td", {}, f.corpus_version), el("td", {class: "mono"}, f.path)))));
  const runners = el("table", {}, el("thead", {}, el("tr", {}, ["runner", "language", "library", "library version",
    "capabilities", "command", "start error"].map(h => el("th", {}, h)))),
    el("tbody", {}, DATA.runners.map(r => el("tr", {}, el("th", {}, r.name), el("td", {}, r.language ?? "—"),
      el("td", {}, r.library ?? "—"), el("td", {}, r.library_version ?? "—"),
      el("td", {class: "mono"}, r.capabilities ? JSON.stringify(r.capabilities) : "—"),
      el("td", {class: "mono"}, r.command.join(" ")), el("td", {}, r.start_error ?? "—")))));
  $("versions-body").replaceChildren(
    el("dl", {class: "facts"}, facts.map(([k, v]) => [el("dt", {}, k), el("dd", {}, String(v))])),
    el("h3", {}, "Runners and libraries"), el("div", {class: "scroll"}, runners),
    el("h3", {}, "Corpus files"), el("div", {class: "scroll"}, files));
}

// ---------- routing ----------
function route() {
  const hash = location.hash;
  if (hash.startsWith("#vector=")) renderDetail(decodeURIComponent(hash.slice(8)));
  else {
    $("detail").hidden = true;
    if (hash.startsWith("#rule=")) showRule(decodeURIComponent(hash.slice(6)));
  }
}

async function init() {
  await loadData();
  renderHeader();
  renderRunners();
  renderMatrix();
  for (const f of DATA.families) $("family-filter").append(el("option", {value: f.name}, f.name));
  for (const r of RUNNERS) $("runner-filter").append(el("option", {value: r}, r));
  for (const id of ["family-filter", "runner-filter", "state-filter"]) $(id).addEventListener("change", renderVectorList);
  $("search").addEventListener("input", () => {
    // The header search finds a vector by id anywhere: it clears the family / runner / state filters.
    for (const id of ["family-filter", "runner-filter", "state-filter"]) $(id).value = "";
    renderVectorList();
    if ($("search").value.trim()) $("vectors").scrollIntoView();
  });
  renderVectorList();
  renderCross();
  $("uncovered-only").addEventListener("change", renderRules);
  renderRules();
  renderXfail();
  renderOfficial();
  renderVersions();
  $("detail-close").addEventListener("click", closeDetail);
  document.addEventListener("keydown", e => { if (e.key === "Escape" && !$("detail").hidden) closeDetail(); });
  window.addEventListener("hashchange", route);
  route();
  document.body.setAttribute("data-ready", "1");
}
init().catch(e => {
  document.getElementById("meta").textContent = "This page could not read its data (" + e + "); it needs a " +
    "browser with DecompressionStream (Chrome 80, Firefox 113, Safari 16.4 or later).";
  throw e;
});
