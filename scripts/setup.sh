#!/usr/bin/env bash
# Install whatever this project needs and is missing; safe to run again.
# Everything comes from crates.io, the npm registry or Debian's packages: nothing
# is downloaded from anywhere else (the comments below say why each pin).
#   scripts/setup.sh         native tools only (Rust targets)
#   scripts/setup.sh web     also Trunk, wasm-bindgen-cli, wasm-opt, playwright-core, Chromium
# Source it (`. scripts/setup.sh web`) to get the PATH it sets up.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
want="${1:-native}"
export PATH="$root/tests/browser/node_modules/.bin:$HOME/.cargo/bin:$PATH"

say() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

installed_targets="$(rustup target list --installed)"
for t in wasm32-unknown-unknown thumbv7em-none-eabihf; do
  if ! grep -qx "$t" <<<"$installed_targets"; then
    say "adding Rust target $t"
    rustup target add "$t"
  fi
done

if [ "$want" = "web" ]; then
  # Trunk 0.22 needs a newer rustc than this machine's; 0.21.14 is the pin.
  if ! trunk --version 2>/dev/null | grep -q '0\.21\.14'; then
    say "installing trunk 0.21.14 from crates.io (takes ~6 minutes once)"
    cargo install trunk --version 0.21.14 --locked
  fi
  # wasm-bindgen-cli must match the wasm-bindgen crate in Cargo.lock exactly,
  # or Trunk tries to download one from GitHub and fails.
  wbg="$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/version = |"/, ""); print; exit}' "$root/Cargo.lock")"
  if ! wasm-bindgen --version 2>/dev/null | grep -q " $wbg\$"; then
    say "installing wasm-bindgen-cli $wbg from crates.io (~2 minutes once)"
    cargo install wasm-bindgen-cli --version "$wbg" --locked || cargo install wasm-bindgen-cli --version "$wbg"
  fi
  # npm's binaryen 132 provides wasm-opt (Debian's v108 breaks the bundle);
  # terser minifies the JS glue (Trunk hook scripts/post-build.mjs);
  # playwright-core drives Debian's Chromium (it never downloads a browser).
  if [ ! -x "$root/tests/browser/node_modules/.bin/wasm-opt" ] || [ ! -d "$root/tests/browser/node_modules/playwright-core" ] || [ ! -d "$root/tests/browser/node_modules/terser" ]; then
    say "installing npm packages in tests/browser"
    (cd "$root/tests/browser" && npm ci --no-audit --no-fund)
  fi
  if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
    say "installing Debian chromium and chromium-driver"
    if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium chromium-driver
    else sudo apt-get update -qq && sudo apt-get install -y -qq chromium chromium-driver; fi
  fi
fi
