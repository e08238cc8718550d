#!/usr/bin/env bash
# Apps keep working: the OpenAPI document the service serves is compared with the one released
# for /api/v1 (openapi/released/v1.json) by api-smart-diff (from npm, pinned, in a folder of its
# own), which classifies every change as breaking or not. `scripts/api-breaks.mjs` first shows
# the check seeing each kind of break apps meet (a broken copy of the released document per
# kind must be refused, a few harmless changes must pass), then fails on any breaking change in
# the served document. Needs node and npm (installed from the system packages when missing).
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=1.0.6
DEST=target/api-compat-node
if ! grep -qs "\"version\": \"$VERSION\"" "$DEST/node_modules/api-smart-diff/package.json"; then
  if ! command -v npm >/dev/null 2>&1; then
    SUDO=""
    if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
    echo "Installing npm from the system packages..." >&2
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null
  fi
  rm -rf "$DEST"
  mkdir -p "$DEST"
  npm install --prefix "$DEST" --no-audit --no-fund --silent "api-smart-diff@$VERSION" >&2
fi
# The script runs beside the tool, so node finds it.
cp scripts/api-breaks.mjs "$DEST/api-breaks.mjs"

RELEASED=openapi/released/v1.json
BIN="${MAHJONG_TEST_BIN:-target/debug/mahjong-league}"
[ -x "$BIN" ] || cargo build --locked --quiet
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
"$BIN" openapi > "$WORK/served.json"

if ! node "$DEST/api-breaks.mjs" "$RELEASED" "$WORK/served.json" > "$WORK/out" 2> "$WORK/err"; then
  cat "$WORK/out" "$WORK/err" >&2
  echo "api-compat: keep what apps use: add beside it, mark what is to go deprecated (docs/api.md)." >&2
  exit 1
fi
cat "$WORK/out"
