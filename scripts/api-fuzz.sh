#!/usr/bin/env bash
# Fuzzes the API from its own OpenAPI document with schemathesis (every check), against a
# running instance on a throwaway PostgreSQL with real data: a club, its players, a public and a
# members-only league, a night with a locked table and games, and an admin token for the calls.
# FUZZ_EXAMPLES sets the budget per operation (default 5: `make test`); a longer run is e.g.
# FUZZ_EXAMPLES=200 scripts/api-fuzz.sh. Exits non-zero on any failure of any check.
# The event stream (`…/events`) is fuzzed too: each event is checked against the stream's
# per-event schema (`EventFrame`); tests/api_events.rs drives it with a real SSE client as well.
set -euo pipefail
cd "$(dirname "$0")/.."
EXAMPLES="${FUZZ_EXAMPLES:-5}"
SCHEMATHESIS_VERSION="4.32.5"

scripts/ensure-postgres.sh
# The binary `make test` built (MAHJONG_TEST_BIN), or a build of its own.
if [ -z "${MAHJONG_TEST_BIN:-}" ]; then
  cargo build --locked --quiet
fi
BIN="${MAHJONG_TEST_BIN:-target/debug/mahjong-league}"

# schemathesis from PyPI in a virtual environment of its own, made once.
VENV=target/fuzz-venv
if ! "$VENV/bin/st" --version 2>/dev/null | grep -q "$SCHEMATHESIS_VERSION"; then
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet "schemathesis==$SCHEMATHESIS_VERSION"
fi

source scripts/throwaway-service.sh
# Thousands of requests with one token in seconds: the apps' rate limit (tested on its own in
# tests/api_open.rs) would answer most of them 429.
SERVE_FLAGS="--api-rate-limit 0 --token-rate-limit 0" start_throwaway_service "$BIN" fuzz

# Real data, through the API.
SEED="$(python3 scripts/fuzz-seed.py "$BASE" "$DIR")"
TOKEN="$(echo "$SEED" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')"
export FUZZ_CLUB="$(echo "$SEED" | python3 -c 'import json,sys; print(json.load(sys.stdin)["club"])')"
SESSION="$(echo "$SEED" | python3 -c 'import json,sys; print(json.load(sys.stdin)["session"])')"
for k in league night table game player card token_id user; do
  export "FUZZ_${k^^}=$(echo "$SEED" | python3 -c "import json,sys; print(json.load(sys.stdin)['$k'])")"
done

cd "$DIR"
set +e
"$OLDPWD/$VENV/bin/st" --config-file "$OLDPWD/scripts/schemathesis.toml" run "$BASE/api/openapi.json" \
  --header "Authorization: Bearer $TOKEN" \
  --checks all \
  --max-examples "$EXAMPLES" \
  --phases examples,coverage,fuzzing \
  --generation-deterministic \
  --workers 1 \
  --no-color
STATUS=$?
# What only a logged-in person may do (make a club, issue or revoke tokens, change members, read
# the session) answers a token 403, so it is fuzzed again with the owner's session cookie. Logging
# out is left out: it would end the session the rest of the run uses.
"$OLDPWD/$VENV/bin/st" --config-file "$OLDPWD/scripts/schemathesis.toml" run "$BASE/api/openapi.json" \
  --header "Cookie: ml_session=$SESSION" \
  --include-name "GET /api/v1/session" \
  --include-name "POST /api/v1/clubs" \
  --include-name "POST /api/v1/clubs/{club}/tokens" \
  --include-name "DELETE /api/v1/clubs/{club}/tokens/{id}" \
  --include-name "PUT /api/v1/clubs/{club}/members" \
  --include-name "DELETE /api/v1/clubs/{club}/members/{user}" \
  --checks all \
  --max-examples "$EXAMPLES" \
  --phases examples,coverage,fuzzing \
  --generation-deterministic \
  --workers 1 \
  --no-color || STATUS=$?
set -e
if [ "$STATUS" -ne 0 ]; then
  echo "--- last lines of the server log ---"
  tail -n 20 "$DIR/serve.log"
fi
exit "$STATUS"
