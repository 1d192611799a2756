/**
 * `import path from "x.wasm" with { type: "file" }` yields the file's path (on disk when run
 * from source, inside the binary's embedded filesystem after `bun build --compile`).
 * bun-types only declares this for TypeScript >= 7.1; this declaration covers 7.0.
 */
declare module "*.wasm" {
  const path: string;
  export default path;
}
