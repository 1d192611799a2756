#!/usr/bin/env bash
# Builds dist/flameox-linux-x64 and dist/flameox-linux-arm64 with `bun build --compile`
# and writes dist/SHA256SUMS over what was built. A target whose Bun runtime cannot be
# obtained (a foreign one comes from the npm registry on first use) is reported as
# skipped; the script fails only when nothing could be built.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p dist
built=()
skipped=()
for target in linux-x64 linux-arm64; do
  out="dist/flameox-$target"
  rm -f "$out"
  if log=$(bun build --compile --target="bun-$target" --outfile "$out" src/cli/main.ts 2>&1); then
    built+=("flameox-$target")
    echo "built $out ($(du -h "$out" | cut -f1))"
  else
    skipped+=("$target")
    echo "skipped $target: $(printf '%s\n' "$log" | tail -n 1)" >&2
  fi
done
if [ ${#built[@]} -eq 0 ]; then
  echo "no binary could be built" >&2
  exit 1
fi
(cd dist && sha256sum "${built[@]}" > SHA256SUMS)
echo "dist/SHA256SUMS:"; cat dist/SHA256SUMS
if [ ${#skipped[@]} -gt 0 ]; then echo "skipped targets: ${skipped[*]}" >&2; fi
