#!/usr/bin/env bash
# An app's quick start, in Python and in TypeScript, through clients generated from the document
# the service serves (`/api/openapi.json`): starts a throwaway service with the demo club, reads
# its document, then
# - makes a Python client with openapi-python-client (PyPI, in a virtual environment of its own)
#   and runs examples/client/quickstart.py (discover the public league, standings, every game
#   page by page, the event stream while a game is recorded);
# - makes TypeScript types with openapi-typescript (npm, at the versions examples/client-ts's
#   lock file pins), type-checks examples/client-ts/quickstart.ts with `tsc --strict` and runs
#   it with Node.js (discovery, standings and their ETag, games page by page, changes since, an
#   edited cursor refused).
# Also checks that the served document is the committed openapi/openapi.json. Exits non-zero if
# any step fails.
set -euo pipefail
cd "$(dirname "$0")/.."
GENERATOR_VERSION="0.29.1"

scripts/ensure-postgres.sh
# The binary `make test` built (MAHJONG_TEST_BIN), or a build of its own.
if [ -z "${MAHJONG_TEST_BIN:-}" ]; then
  cargo build --locked --quiet
fi
BIN="${MAHJONG_TEST_BIN:-target/debug/mahjong-league}"

source scripts/throwaway-service.sh
SERVE_FLAGS="--demo" start_throwaway_service "$BIN" client
OUT=target/client
rm -rf "$OUT"
mkdir -p "$OUT"
curl -fs "$BASE/api/openapi.json" -o "$OUT/openapi.json"
python3 - "$OUT/openapi.json" openapi/openapi.json <<'PY'
import json, sys
served, committed = (json.load(open(p)) for p in sys.argv[1:3])
if served != committed:
    sys.exit("the served document differs from openapi/openapi.json: run `make openapi`")
PY

# Python.
VENV=target/client-venv
if ! "$VENV/bin/openapi-python-client" --version 2>/dev/null | grep -q "$GENERATOR_VERSION"; then
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet "openapi-python-client==$GENERATOR_VERSION"
fi
"$VENV/bin/openapi-python-client" generate --path "$OUT/openapi.json" --meta none \
  --output-path "$OUT/mlclient" > "$OUT/generate.log" 2>&1 || { cat "$OUT/generate.log"; exit 1; }

# The demo owner's login, printed once when the demo club is made.
LOGIN="$(sed -n 's/.*log in as \([^ ]*\) \/ \([^ ]*\) .*/\1 \2/p' "$DIR/serve.log" | head -n 1)"
if [ -z "$LOGIN" ]; then
  echo "the demo's login was not printed; the service log:" >&2
  tail -n 20 "$DIR/serve.log" >&2
  exit 1
fi
export SCORER_EMAIL="${LOGIN% *}" SCORER_PASSWORD="${LOGIN#* }"
echo "== Python quick start"
PYTHONPATH="$OUT" "$VENV/bin/python" examples/client/quickstart.py "$BASE"

# TypeScript: the packages the lock file pins, installed in target/ (not in examples/).
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "the TypeScript quick start needs Node.js and npm (Debian: apt-get install nodejs npm)" >&2
  exit 1
fi
TS=target/client-ts
mkdir -p "$TS"
cp examples/client-ts/package.json examples/client-ts/package-lock.json examples/client-ts/tsconfig.json \
  examples/client-ts/quickstart.ts "$TS/"
if ! cmp -s examples/client-ts/package-lock.json "$TS/node_modules/.installed-lock" 2>/dev/null; then
  (cd "$TS" && npm ci --no-audit --no-fund --loglevel=error)
  cp examples/client-ts/package-lock.json "$TS/node_modules/.installed-lock"
fi
(cd "$TS" && npx --no-install openapi-typescript "../client/openapi.json" -o api.d.ts --silent \
  && rm -rf build && npx --no-install tsc -p .)
echo "== TypeScript quick start"
node "$TS/build/quickstart.js" "$BASE"

# The app a club website built last month: the same quick start typed from /api/v1 as released
# (openapi/released/v1.json), compiled with `tsc --strict` and run against today's service with
# a club token, made as an owner makes one (log in, then the tokens API).
REL=target/client-ts-released
rm -rf "$REL"
mkdir -p "$REL"
cp examples/client-ts/package.json examples/client-ts/tsconfig.json examples/client-ts/quickstart.ts "$REL/"
ln -s "$(pwd)/$TS/node_modules" "$REL/node_modules"
(cd "$REL" && npx --no-install openapi-typescript "../../openapi/released/v1.json" -o api.d.ts --silent \
  && npx --no-install tsc -p .)
JAR="$REL/cookies"
curl -fs -c "$JAR" -H 'Content-Type: application/json' -H "Origin: $BASE" \
  -d "{\"email\": \"$SCORER_EMAIL\", \"password\": \"$SCORER_PASSWORD\"}" "$BASE/api/v1/session" > /dev/null
TOKEN="$(curl -fs -b "$JAR" -H 'Content-Type: application/json' -H "Origin: $BASE" \
  -d '{"name": "club website", "scopes": ["read"]}' "$BASE/api/v1/clubs/demo/tokens" \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')"
echo "== The released client (openapi/released/v1.json) against today's service"
MAHJONG_TOKEN="$TOKEN" node "$REL/build/quickstart.js" "$BASE"
