#!/usr/bin/env bash
# An app's quick start, through a client generated from the committed OpenAPI document: makes the
# client with openapi-python-client (PyPI, in a virtual environment of its own) from
# openapi/openapi.json, starts a throwaway service with the demo club, and runs
# examples/client/quickstart.py against it (discover the public league, standings, every game
# page by page, the event stream while a game is recorded). Exits non-zero if any step fails.
set -euo pipefail
cd "$(dirname "$0")/.."
GENERATOR_VERSION="0.29.1"

scripts/ensure-postgres.sh
cargo build --locked --quiet
BIN=target/debug/mahjong-league

VENV=target/client-venv
if ! "$VENV/bin/openapi-python-client" --version 2>/dev/null | grep -q "$GENERATOR_VERSION"; then
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet "openapi-python-client==$GENERATOR_VERSION"
fi
OUT=target/client
rm -rf "$OUT"
mkdir -p "$OUT"
"$VENV/bin/openapi-python-client" generate --path openapi/openapi.json --meta none \
  --output-path "$OUT/mlclient" > "$OUT/generate.log" 2>&1 || { cat "$OUT/generate.log"; exit 1; }

source scripts/throwaway-service.sh
SERVE_FLAGS="--demo" start_throwaway_service "$BIN" client
# The demo owner's login, printed once when the demo club is made.
LOGIN="$(sed -n 's/.*log in as \([^ ]*\) \/ \([^ ]*\) .*/\1 \2/p' "$DIR/serve.log" | head -n 1)"
if [ -z "$LOGIN" ]; then
  echo "the demo's login was not printed; the service log:" >&2
  tail -n 20 "$DIR/serve.log" >&2
  exit 1
fi
export SCORER_EMAIL="${LOGIN% *}" SCORER_PASSWORD="${LOGIN#* }"
PYTHONPATH="$OUT" "$VENV/bin/python" examples/client/quickstart.py "$BASE"
