#!/usr/bin/env bash
# Installs what flameox needs on a machine that has Node and npm but maybe no Bun:
# Bun from npm (into .tools/bun, no global change) when `bun` is absent,
# then the locked dependencies with `bun install --frozen-lockfile`.
set -euo pipefail
version="${1:-1.4.4}"
cd "$(dirname "$0")/.."
if ! command -v bun >/dev/null 2>&1; then
  runtime=".tools/bun"
  if [ ! -x "$runtime/bin/bun" ]; then
    echo "installing bun@$version from npm into $runtime" >&2
    tmp=$(mktemp -d)
    # --ignore-scripts: the platform binary ships in @oven/bun-linux-*; no postinstall download is needed.
    npm install --no-save --ignore-scripts --prefix "$tmp" "bun@$version" >/dev/null
    bin=$(find "$tmp/node_modules/@oven" -path '*/bin/bun' -type f | head -n 1)
    [ -n "$bin" ] || { echo "no bun binary found in the npm package" >&2; exit 1; }
    mkdir -p "$runtime/bin"
    cp "$bin" "$runtime/bin/bun"
    chmod +x "$runtime/bin/bun"
    ln -sf bun "$runtime/bin/bunx"
    rm -rf "$tmp"
  fi
  export PATH="$PWD/$runtime/bin:$PATH"
fi
bun install --frozen-lockfile >/dev/null
# The WASM parsers are committed; rebuilding them with the pinned AssemblyScript must
# reproduce the same bytes, which --check verifies without a download.
bun parsers-wasm/build.ts --check >/dev/null
bash scripts/install-host-tools.sh
echo "bun $(bun --version) ready; dependencies installed; WASM parsers verified" >&2
