#!/usr/bin/env bash
# Set up what is missing, build the release app, and serve it on
# http://127.0.0.1:8080/ from a plain static file server (as any host would).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
. scripts/setup.sh web
TRUNK_SKIP_VERSION_CHECK=true trunk build --release
echo "Serving dist/ on http://127.0.0.1:8080/ (Ctrl-C to stop)"
exec python3 -m http.server 8080 --bind 127.0.0.1 --directory dist
