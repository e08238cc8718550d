#!/usr/bin/env bash
# Makes sure Debian's Chromium and ChromeDriver are here for the browser tests (the tests drive
# the system's browser; nothing is downloaded from elsewhere).
set -euo pipefail
if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then exit 0; fi
if command -v apt-get >/dev/null 2>&1; then
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  echo "Installing chromium and chromium-driver from the system packages..." >&2
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
else
  echo "The browser tests need chromium and chromedriver at /usr/bin; install them with your package manager." >&2
  exit 1
fi
