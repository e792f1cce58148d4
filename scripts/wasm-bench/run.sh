#!/usr/bin/env bash
# Build the Routing Lab's run for wasm as the simulation worker builds
# sim-core and time it in Node: ticks mode with the player's rules recorded
# (the page's figure), milliseconds mode, the worker's whole call
# (simulation, encoding, drop) and the page's decoding of its bytes.
#   OPT=2 scripts/wasm-bench/run.sh     # another opt-level (default 3, the worker's)
# Profile it with
#   node --cpu-prof scripts/wasm-bench/run.mjs target/wasm-bench/.../wasm_bench.wasm 1 300
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$here"
opt="${OPT:-3}"
case "$opt" in s|z) level="\"$opt\"" ;; *) level="$opt" ;; esac
cargo build --release --target wasm32-unknown-unknown --target-dir "$root/target/wasm-bench" \
  --config "profile.release.opt-level=$level"
echo "opt-level $opt"
wasm="$root/target/wasm-bench/wasm32-unknown-unknown/release/wasm_bench.wasm"
node run.mjs "$wasm" 1
node run.mjs "$wasm" 2
node run.mjs "$wasm" 3
node run.mjs "$wasm" 4
