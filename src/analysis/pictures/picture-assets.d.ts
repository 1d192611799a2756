/**
 * The viewer scripts a flamegraph page inlines, imported as text so `bun build --compile`
 * embeds them and a page never loads anything from the network.
 */
declare module "d3-flame-graph/dist/d3-flamegraph.min.js" {
  const text: string;
  export default text;
}
declare module "d3-flame-graph/dist/d3-flamegraph.css" {
  const text: string;
  export default text;
}
declare module "*/vendor/d3-selection.min.js" {
  const text: string;
  export default text;
}
