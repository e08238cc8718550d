#!/usr/bin/env bash
# Makes sure axe-core (the accessibility checker the browser tests run in the page) is in
# target/axe, installed from npm at a pinned version. Needs node and npm; installs them from the
# system packages when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=4.11.0
DEST=target/axe
if [ -f "$DEST/node_modules/axe-core/axe.min.js" ] && grep -q "\"version\": \"$VERSION\"" "$DEST/node_modules/axe-core/package.json"; then exit 0; fi
if ! command -v npm >/dev/null 2>&1; then
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  echo "Installing npm from the system packages..." >&2
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null
fi
mkdir -p "$DEST"
npm install --prefix "$DEST" --no-audit --no-fund --silent "axe-core@$VERSION" >&2
test -f "$DEST/node_modules/axe-core/axe.min.js"
