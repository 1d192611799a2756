/**
 * A self-contained flamegraph page: d3-flame-graph and d3-selection inlined (no network,
 * no CDN), the tree as JSON, and a small script for search, click-to-zoom (the library's),
 * tooltips, colours by frame kind, and red/blue by change in differential pictures.
 */
import flamegraphScript from "d3-flame-graph/dist/d3-flamegraph.min.js" with { type: "text" };
import flamegraphCss from "d3-flame-graph/dist/d3-flamegraph.css" with { type: "text" };
// d3-selection publishes its UMD build only under an export condition a text import cannot
// name, so the same file is vendored here; tests/pictures checks it equals the locked package.
import selectionScript from "./vendor/d3-selection.min.js" with { type: "text" };
import type { FlameNode } from "./flame-tree.ts";

export interface PictureMeta {
  title: string;
  /** Lines under the title: subject, commit, metric, totals, merges, filters. */
  notes: string[];
  unit: string;
  icicle: boolean;
  differential: boolean;
}

interface JsonNode {
  name: string;
  value: number;
  kind: string;
  delta?: number;
  children?: JsonNode[];
}

export function toJsonTree(node: FlameNode): JsonNode {
  const out: JsonNode = { name: node.name, value: node.self, kind: node.kind };
  if (node.delta !== undefined) out.delta = node.delta;
  if (node.children.size > 0) out.children = [...node.children.values()].map(toJsonTree);
  return out;
}

/** JSON that cannot close the script element it sits in, whatever the frame names hold. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** Inlined scripts must not contain a literal end tag. */
const inlineScript = (s: string) => s.replace(/<\/script/gi, "<\\/script");

const PAGE_CSS = `
body{font:13px system-ui,sans-serif;margin:0;color:#222}
header{padding:10px 16px;border-bottom:1px solid #ddd}
h1{font-size:16px;margin:0 0 4px}
.notes{color:#555;margin:0;padding:0;list-style:none}
#controls{margin-top:8px;display:flex;gap:6px;align-items:center;flex-wrap:wrap}
#legend span{display:inline-block;padding:1px 6px;margin-right:4px;border-radius:3px}
#chart{padding:8px 16px}
#details{padding:4px 16px;min-height:1.4em;color:#333;font-family:ui-monospace,monospace}
`;

const GLUE = `
(function(){
  var data = JSON.parse(document.getElementById("flameox-data").textContent);
  var meta = data.meta, root = data.root, total = root.value;
  (function sum(n){ var t = n.value; (n.children||[]).forEach(function(c){ t += sum(c); }); \
n.total = t; return t; })(root);
  total = root.total || 1;
  function fmt(v){
    if (meta.unit === "ns") { var u=[["s",1e9],["ms",1e6],["µs",1e3]]; for (var \
i=0;i<u.length;i++) if (v>=u[i][1]) return (v/u[i][1]).toFixed(2)+" "+u[i][0]; return v+" ns"; }
    if (meta.unit === "bytes") { var b=[["GiB",1073741824],["MiB",1048576],["KiB",1024]]; for (var \
j=0;j<b.length;j++) if (v>=b[j][1]) return (v/b[j][1]).toFixed(2)+" "+b[j][0]; return v+" B"; }
    return v + " " + meta.unit;
  }
  var HUE = {kernel:28, native:4, javascript:48, python:205, go:180, trace:268, other:0};
  function hash(s){ var h=0; for (var i=0;i<s.length;i++) h=(h*31+s.charCodeAt(i))|0; return \
Math.abs(h); }
  function colour(d){
    if (d.highlight) return "#e600e6";
    var n = d.data;
    if (meta.differential) {
      var s = Math.min(1, Math.abs(n.delta||0) / (data.maxDelta||1));
      var c = Math.round(255 - 200*s);
      return (n.delta||0) > 0 ? "rgb(255,"+c+","+c+")" : (n.delta||0) < 0 ? "rgb("+c+","+c+",255)" \
: "rgb(235,235,235)";
    }
    if (n.kind === "other") return "hsl(0,0%,"+(70+hash(n.name)%15)+"%)";
    return "hsl("+HUE[n.kind]+","+(60+hash(n.name)%25)+"%,"+(55+hash(n.name)%15)+"%)";
  }
  function label(d){
    var n = d.data, pct = (100*d.value/total).toFixed(2);
    var text = n.name + "\\n" + fmt(d.value) + " (" + pct + "%) total, " + fmt(n.value) + " self";
    if (meta.differential) text += "\\nchange " + ((n.delta||0)*100).toFixed(2) + " points of the \
total";
    return text;
  }
  var el = document.getElementById("chart");
  var chart = flamegraph().width(Math.max(200, (el.clientWidth || 1232) - \
32)).cellHeight(18).minFrameSize(1)
    .selfValue(true).inverted(meta.icicle).title("").label(label).transitionDuration(0)
    .setDetailsElement(document.getElementById("details"));
  chart.setColorMapper(function(d){ return colour(d); });
  d3.select("#chart").datum(root).call(chart);
  window.flameoxChart = chart;
  var input = document.getElementById("search");
  document.getElementById("search-form").addEventListener("submit", function(e){ \
e.preventDefault(); chart.search(input.value); });
  document.getElementById("reset").addEventListener("click", function(){ chart.resetZoom(); });
  document.getElementById("clear").addEventListener("click", function(){ input.value=""; \
chart.clear(); });
  // A link can carry a search: page.html#search=sortNumbers opens with the matches highlighted.
  var m = /^#search=(.+)$/.exec(location.hash);
  if (m) { input.value = decodeURIComponent(m[1]); chart.search(input.value); }
})();
`;

function legend(meta: PictureMeta): string {
  if (meta.differential)
    return (
      `<span style="background:rgb(255,80,80)">grew</span><span ` +
      `style="background:rgb(80,80,255);color:#fff">shrank</span><span ` +
      `style="background:#ebebeb">unchanged</span>`
    );
  const kinds: [string, string][] = [
    ["kernel", "hsl(28,70%,60%)"],
    ["native", "hsl(4,70%,60%)"],
    ["javascript", "hsl(48,70%,60%)"],
    ["python", "hsl(205,70%,60%)"],
    ["go", "hsl(180,70%,60%)"],
    ["trace", "hsl(268,70%,60%)"],
  ];
  return kinds.map(([k, c]) => `<span style="background:${c}">${k}</span>`).join("");
}

export function renderFlamegraphHtml(root: FlameNode, meta: PictureMeta): string {
  let maxDelta = 0;
  const visit = (n: FlameNode) => {
    maxDelta = Math.max(maxDelta, Math.abs(n.delta ?? 0));
    for (const c of n.children.values()) visit(c);
  };
  if (meta.differential) visit(root);
  const data = { meta, maxDelta, root: toJsonTree(root) };
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(meta.title)}</title>
<style>${flamegraphCss}${PAGE_CSS}</style></head>
<body>
<header><h1>${escapeHtml(meta.title)}</h1>
<ul class="notes">${meta.notes.map((n) => `<li>${escapeHtml(n)}</li>`).join("")}</ul>
<div id="controls"><form id="search-form"><input id="search" type="search" placeholder="search \
(regex)" aria-label="search"> <button type="submit">Search</button></form>
<button id="reset" type="button">Reset zoom</button><button id="clear" \
type="button">Clear</button><span id="legend">${legend(meta)}</span></div></header>
<div id="chart"></div><div id="details"></div>
<script type="application/json" id="flameox-data">${scriptJson(data)}</script>
<script>${inlineScript(selectionScript)}</script>
<script>${inlineScript(flamegraphScript)}</script>
<script>${GLUE}</script>
</body></html>
`;
}
