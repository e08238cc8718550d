#!/usr/bin/env bash
# The whole test suite: formatting, lints, and every test against a throwaway PostgreSQL that
# this script starts itself (one database per test) and removes afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/ensure-postgres.sh
scripts/ensure-chromium.sh
scripts/ensure-axe.sh
cargo fmt --check
cargo clippy --all-targets --locked -- -D warnings
# Everything the tests run, built once: the service's binary with them, so that its dependencies
# are built with the features the tests' own dependencies add (a plain `cargo build` first made
# the test build compile forty of them again). The fuzz and the quick starts use this binary.
cargo build --locked --quiet --tests
export MAHJONG_TEST_BIN=target/debug/mahjong-league

PGDIR="$(mktemp -d /tmp/mahjong-league-test-pg.XXXXXX)"
cleanup() {
  target/debug/mahjong-league db stop --data-dir "$PGDIR" >/dev/null 2>&1 || true
  rm -rf "$PGDIR"
}
trap cleanup EXIT

TEST_DATABASE_URL="$(target/debug/mahjong-league db start --throwaway --data-dir "$PGDIR")"
export TEST_DATABASE_URL
echo "throwaway PostgreSQL: ${TEST_DATABASE_URL//:[0-9a-f][0-9a-f]*@/:***@}"

# Every process the tests start inherits this mark; once they are over, none may be left running
# (scripts/leftovers.sh names, stops and fails on any).
MAHJONG_TEST_RUN="$(date +%s)-$$"
export MAHJONG_TEST_RUN
status=0
if cargo nextest --version >/dev/null 2>&1; then
  cargo nextest run --locked --no-fail-fast || status=$?
else
  cargo test --locked --no-fail-fast || status=$?
fi

if [ "$status" -eq 0 ]; then
  # The API fuzzed from its own OpenAPI document (schemathesis, every check), a few examples per
  # operation; FUZZ_EXAMPLES=200 scripts/api-fuzz.sh runs a longer budget.
  scripts/api-fuzz.sh || status=$?
fi
if [ "$status" -eq 0 ]; then
  # An app's quick start through a client generated from openapi/openapi.json (openapi-python-client).
  scripts/client-check.sh || status=$?
fi
if [ "$status" -eq 0 ]; then
  # Apps keep working: the served document against /api/v1 as released (api-smart-diff).
  scripts/api-compat.sh || status=$?
fi
if [ "$status" -eq 0 ]; then
  # The platform benchmark still runs, caps on, nothing refused (10 clubs, 100 streams).
  scripts/bench-smoke.sh || status=$?
fi

env -u MAHJONG_TEST_RUN scripts/leftovers.sh "$MAHJONG_TEST_RUN" || status=1
exit "$status"
