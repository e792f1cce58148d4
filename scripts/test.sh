#!/usr/bin/env bash
# Every check the project has, in the order CI runs them. `.ci/run` calls this.
# Installs what is missing first (scripts/setup.sh web), so it works on a fresh machine.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
. scripts/setup.sh web
export TRUNK_SKIP_VERSION_CHECK=true

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
start=$(date +%s)

step "format"
cargo fmt --all -- --check
step "clippy, native (-D warnings)"
cargo clippy --workspace --all-targets --locked -- -D warnings
step "clippy, the page and worker crates for wasm32 (-D warnings)"
cargo clippy -p web -p worker --target wasm32-unknown-unknown --locked -- -D warnings
step "native tests"
cargo test --workspace --locked
step "no_std build of sim-core"
cargo build -p sim-core --no-default-features --target thumbv7em-none-eabihf --locked
step "release CLI (the browser tests compare against it) and its benchmark"
cargo build --release -p lblab --locked
target/release/lblab bench --quick
step "release web build (trunk)"
trunk build --release
step "browser tests (headless Chromium, release dist/), two files at a time"
# Two at a time: most of a browser test is waiting on a page or the worker,
# so two Chromiums share the two cores well (about 410 s against 540 s).
(cd tests/browser && node --test --test-concurrency=2)
step "all checks passed in $(( $(date +%s) - start )) s"
