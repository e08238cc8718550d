#!/usr/bin/env bash
# Makes sure PostgreSQL's server binaries are on this machine; installs them from the system
# packages when they are not. The service runs its own private server from them.
set -euo pipefail

have_binaries() {
  for d in $(echo "$PATH" | tr ':' ' ') /usr/lib/postgresql/*/bin; do
    if [ -x "$d/pg_ctl" ] && [ -x "$d/initdb" ] && [ -x "$d/postgres" ]; then return 0; fi
  done
  return 1
}

if have_binaries; then
  # As root the private server runs as the `postgres` user, which the packages create.
  if [ "$(id -u)" != 0 ] || id -u postgres >/dev/null 2>&1; then exit 0; fi
fi

case "$(uname -s)" in
  Darwin)
    echo "PostgreSQL is missing. Install it with: brew install postgresql@16 (then add its bin/ to PATH)" >&2
    exit 1 ;;
esac

if command -v apt-get >/dev/null 2>&1; then
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  echo "Installing PostgreSQL from the system packages..." >&2
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
elif command -v dnf >/dev/null 2>&1; then
  SUDO=""; if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  $SUDO dnf install -y postgresql-server
else
  echo "PostgreSQL is missing: install its server package (initdb, pg_ctl, postgres) with your system's package manager." >&2
  exit 1
fi
have_binaries || { echo "PostgreSQL was installed but its binaries were not found" >&2; exit 1; }
