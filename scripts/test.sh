#!/usr/bin/env bash
# Every check the project has, in the order CI runs them. `.ci/run` calls this.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
. scripts/setup.sh native

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "format"
cargo fmt --all -- --check
step "clippy (-D warnings)"
cargo clippy --workspace --all-targets --locked -- -D warnings
step "native tests"
cargo test --workspace --locked
step "no_std build of sim-core"
cargo build -p sim-core --no-default-features --target thumbv7em-none-eabihf --locked
step "all checks passed"
