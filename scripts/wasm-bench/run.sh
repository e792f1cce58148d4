#!/usr/bin/env bash
# Build the Routing Lab's run for wasm as the bundle builds sim-core and time
# it in Node: ticks mode with the player's rules recorded (the page's
# figure), milliseconds mode, the worker's whole call (simulation, encoding,
# drop) and the page's decoding of its bytes. Profile it with
#   node --cpu-prof scripts/wasm-bench/run.mjs target/wasm-bench/.../wasm_bench.wasm 1 300
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$here"
cargo build --release --target wasm32-unknown-unknown --target-dir "$root/target/wasm-bench"
wasm="$root/target/wasm-bench/wasm32-unknown-unknown/release/wasm_bench.wasm"
node run.mjs "$wasm" 1
node run.mjs "$wasm" 2
node run.mjs "$wasm" 3
node run.mjs "$wasm" 4
