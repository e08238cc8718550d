#!/usr/bin/env bash
# Installs what is missing, builds, and starts the service on the embedded PostgreSQL with a
# demo club. Extra arguments go to `mahjong-league serve` (e.g. --bind 0.0.0.0:8080).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/ensure-postgres.sh
if ! command -v cargo >/dev/null 2>&1; then
  echo "Rust is missing: install it from your system packages or rustup, then run this again." >&2
  exit 1
fi
cargo build --release --locked
exec target/release/mahjong-league serve --demo "$@"
