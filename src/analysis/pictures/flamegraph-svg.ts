/**
 * A flamegraph as one standalone SVG (for READMEs, issues and pull requests, where a page
 * with scripts is not shown): boxes laid out here, a <title> tooltip per box, and a short
 * embedded script, as flamegraph.pl's SVGs have, for click-to-zoom and search when the
 * file is opened directly in a browser.
 */
import type { FlameNode } from "./flame-tree.ts";
import type { PictureMeta } from "./flamegraph-html.ts";

const ROW = 17;
const FONT_PX = 11;
const CHAR_PX = 6.6;
const PAD = 10;
const HEADER = 24 + ROW;

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const HUE: Record<string, number> = {
  kernel: 28,
  native: 4,
  javascript: 48,
  python: 205,
  go: 180,
  trace: 268,
};

function hash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
  return Math.abs(h);
}

function fill(node: FlameNode, meta: PictureMeta, maxDelta: number): string {
  if (meta.differential) {
    const d = node.delta ?? 0;
    const c = Math.round(255 - 200 * Math.min(1, Math.abs(d) / (maxDelta || 1)));
    return d > 0 ? `rgb(255,${c},${c})` : d < 0 ? `rgb(${c},${c},255)` : "rgb(235,235,235)";
  }
  const hue = HUE[node.kind];
  if (hue === undefined) return `hsl(0,0%,${70 + (hash(node.name) % 15)}%)`;
  return `hsl(${hue},${60 + (hash(node.name) % 25)}%,${55 + (hash(node.name) % 15)}%)`;
}

export function renderFlamegraphSvg(
  root: FlameNode,
  meta: PictureMeta,
  format: (value: number) => string,
  width = 1200,
): string {
  let maxDepth = 0;
  let maxDelta = 0;
  const measure = (n: FlameNode, depth: number) => {
    maxDepth = Math.max(maxDepth, depth);
    maxDelta = Math.max(maxDelta, Math.abs(n.delta ?? 0));
    for (const c of n.children.values()) measure(c, depth + 1);
  };
  measure(root, 0);
  const height = HEADER + (maxDepth + 1) * ROW + PAD * 2 + meta.notes.length * 14;
  const total = root.total || 1;
  const scale = (width - 2 * PAD) / total;
  const top = HEADER + meta.notes.length * 14;
  const boxes: string[] = [];
  const draw = (n: FlameNode, x: number, depth: number) => {
    const w = n.total * scale;
    if (w < 0.1) return;
    const y = meta.icicle ? top + depth * ROW : top + (maxDepth - depth) * ROW;
    const pct = ((100 * n.total) / total).toFixed(2);
    const change = meta.differential ? `, change ${((n.delta ?? 0) * 100).toFixed(2)} points` : "";
    const tip = `${n.name} (${format(n.total)}, ${pct}%${change})`;
    const fits = Math.floor((w - 6) / CHAR_PX);
    const text =
      fits >= 3 ? (n.name.length <= fits ? n.name : `${n.name.slice(0, fits - 2)}..`) : "";
    boxes.push(
      `<g class="f" data-x="${x.toFixed(2)}" data-w="${w.toFixed(2)}" ` +
        `data-d="${depth}"><title>${esc(tip)}</title>` +
        `<rect x="${x.toFixed(2)}" y="${y}" width="${w.toFixed(2)}" height="${ROW - 1}" ` +
        `rx="2" fill="${fill(n, meta, maxDelta)}"/>` +
        `<text x="${(x + 3).toFixed(2)}" y="${y + ROW - 5}">${esc(text)}</text></g>`,
    );
    let cx = x;
    for (const c of [...n.children.values()].sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    )) {
      draw(c, cx, depth + 1);
      cx += c.total * scale;
    }
  };
  draw(root, PAD, 0);
  const notes = meta.notes
    .map((note, i) => `<text x="${PAD}" y="${40 + i * 14}" class="note">${esc(note)}</text>`)
    .join("");
  return `<?xml version="1.0" standalone="no"?>
<svg version="1.1" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" \
xmlns="http://www.w3.org/2000/svg">
<style>text{font:${FONT_PX}px \
ui-monospace,monospace;fill:#000;pointer-events:none}.note{fill:#555}.title{font-size:15px}
.f rect{stroke:#fff;stroke-width:.5;cursor:pointer}.f:hover rect{stroke:#000}.hl \
rect{fill:#e600e6}#search,#reset{cursor:pointer;fill:#36c;pointer-events:all}</style>
<rect width="100%" height="100%" fill="#fff"/>
<text x="${PAD}" y="20" class="title">${esc(meta.title)}</text>
<text id="search" x="${width - 160}" y="20">Search</text><text id="reset" x="${width - 90}" \
y="20">Reset zoom</text>
${notes}
<g id="frames">${boxes.join("\n")}</g>
<script><![CDATA[
(function(){
  var W=${width - 2 * PAD}, P=${PAD}, C=${CHAR_PX};
  var gs=[].slice.call(document.querySelectorAll("g.f"));
  function label(g,x,w){var \
t=g.querySelector("text"),n=g.getAttribute("data-name");\
if(n===null){n=g.querySelector("title").textContent.replace(/ \\([^()]*\\)$/,"");\
g.setAttribute("data-name",n);}var f=Math.floor((w-6)/C);\
t.textContent=f>=3?(n.length<=f?n:n.slice(0,f-2)+".."):"";t.setAttribute("x",x+3);}
  function zoom(sel){var \
x0=+sel.getAttribute("data-x"),w0=+sel.getAttribute("data-w"),d0=+sel.getAttribute("data-d"),k=W/w0;
    gs.forEach(function(g){var \
x=+g.getAttribute("data-x"),w=+g.getAttribute("data-w"),d=+g.getAttribute("data-d"),\
r=g.querySelector("rect");
      var inside=x>=x0-1e-6&&x+w<=x0+w0+1e-6;
      if(d<d0||!inside){g.style.opacity=d<d0&&x<=x0+1e-6&&x+w>=x0+w0-1e-6?"0.5":"0";\
if(g.style.opacity==="0"){g.style.display="none";return;}}
      g.style.display="";var \
nx=d<d0?P:P+(x-x0)*k,nw=d<d0?W:w*k;r.setAttribute("x",nx);r.setAttribute("width",nw);label(g,nx,\
nw);});}
  function reset(){gs.forEach(function(g){var \
x=+g.getAttribute("data-x"),w=+g.getAttribute("data-w"),r=g.querySelector("rect");\
g.style.display="";g.style.opacity="";r.setAttribute("x",x);r.setAttribute("width",w);label(g,x,w);\
});}
  gs.forEach(function(g){g.addEventListener("click",function(){zoom(g);});});
  document.getElementById("reset").addEventListener("click",reset);
  document.getElementById("search").addEventListener("click",function(){var term=prompt("Search \
(regular expression)");if(term===null)return;var re;try{re=new RegExp(term);}catch(e){return;}
    gs.forEach(function(g){var \
n=g.querySelector("title").textContent;g.classList.toggle("hl",term!==""&&re.test(n));});});
})();
]]></script>
</svg>
`;
}
