#!/usr/bin/env bash
# Installs the host measurement tools that capture adapters use and tests exercise when
# present (hyperfine, perf, bubblewrap), and the independent readers tests check flameox's
# output against (go tool pprof for pprof exports, headless Chromium for pictures), from
# Debian's packages, only when missing and
# only where apt-get can run as root. Where they cannot be installed, flameox reports
# the capability as absent; nothing here is required to build or to run the CLI.
set -uo pipefail
missing=()
command -v hyperfine >/dev/null 2>&1 || missing+=(hyperfine)
command -v perf >/dev/null 2>&1 || missing+=(linux-perf)
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v go >/dev/null 2>&1 || missing+=(golang-go)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "host tools not installed (${missing[*]}): capture adapters that need them will report 'absent'" >&2
  exit 0
fi
echo "installing host tools from apt: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
if ! { apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }; then
  echo "apt-get could not install ${missing[*]}: capture adapters that need them will report 'absent'" >&2
fi
exit 0
