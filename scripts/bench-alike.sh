#!/usr/bin/env bash
# `bash scripts/bench-alike.sh` (N=40 by default): the answers must not tell whether an address has
# an account, in words (tests) or in time (this).
# Times POST /api/v1/users, PUT /api/v1/clubs/{club}/members and POST /api/v1/account/email (N
# accounts, each asking once for an address with an account and once for one without, in
# alternating order) for addresses with and without an account, on a release service on a throwaway PostgreSQL (--trust-proxy: each sign-up comes from its
# own address, so the per-address limit does not interfere).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --quiet
source scripts/throwaway-service.sh
# The outside-mail budget is raised: the owner invites 2N addresses here.
SERVE_FLAGS="--trust-proxy --outside-mail-per-account-day 100000" start_throwaway_service target/release/mahjong-league alike
J='Content-Type: application/json'
N=${N:-40}
# Accounts that exist: made directly (only the worker looks at whether an address has one).
psql -q "$DB_URL" -c "INSERT INTO users (email, display_name, password_hash) SELECT 'known' || g || '@example.org', 'Known', 'x' FROM generate_series(1, $N) g"
sign_up_throwaway "$DIR/jar" owner@example.org Owner "owner password 1"
curl -fs -b "$DIR/jar" -H "$J" -d '{"slug":"alike","name":"Alike"}' "$BASE/api/v1/clubs" >/dev/null
t() { curl -s -o /dev/null -w '%{time_total} %{http_code}\n' "$@"; }
for kind in known unknown; do
  : > "$DIR/signup-$kind"; : > "$DIR/invite-$kind"
done
for i in $(seq $N); do
  for kind in known unknown; do
    t -H "$J" -H "X-Forwarded-For: 10.1.$((i / 250)).$((i % 250 + 1))" \
      -d "{\"email\":\"$kind$i@example.org\",\"display_name\":\"X\",\"password\":\"a long password 1\"}" \
      "$BASE/api/v1/users" >> "$DIR/signup-$kind"
    t -b "$DIR/jar" -X PUT -H "$J" -d "{\"email\":\"$kind$i@example.org\",\"role\":\"member\"}" \
      "$BASE/api/v1/clubs/alike/members" >> "$DIR/invite-$kind"
  done
done
# Email changes: N accounts with the owner's password, each logged in from an address of its own.
HASH="$(psql -At "$DB_URL" -c "SELECT password_hash FROM users WHERE email = 'owner@example.org'")"
psql -q "$DB_URL" -c "INSERT INTO users (email, display_name, password_hash) SELECT 'mover' || g || '@example.org', 'Mover', '$HASH' FROM generate_series(1, $N) g"
: > "$DIR/email-known"; : > "$DIR/email-unknown"
for i in $(seq $N); do
  xff="X-Forwarded-For: 10.2.$((i / 250)).$((i % 250 + 1))"
  curl -fs -c "$DIR/mover$i" -H "$J" -H "$xff" -d "{\"email\":\"mover$i@example.org\",\"password\":\"owner password 1\"}" "$BASE/api/v1/session" >/dev/null
  order="known unknown"; [ $((i % 2)) -eq 0 ] && order="unknown known"
  for kind in $order; do
    t -b "$DIR/mover$i" -H "$J" -H "$xff" -d "{\"email\":\"${kind}$i@example.org\",\"password\":\"owner password 1\"}" \
      "$BASE/api/v1/account/email" >> "$DIR/email-$kind"
  done
done
for f in signup-known signup-unknown invite-known invite-unknown email-known email-unknown; do
  python3 - "$DIR/$f" "$f" <<'PY'
import statistics, sys
import collections
rows = [x.split() for x in open(sys.argv[1]) if x.strip()]
xs = sorted(float(r[0]) * 1000 for r in rows)
codes = dict(collections.Counter(r[1] for r in rows))
print(f"{sys.argv[2]:16} n={len(xs)} median={statistics.median(xs):.2f} ms  mean={statistics.mean(xs):.2f} ms  p90={xs[int(len(xs)*0.9)-1]:.2f} ms  statuses {codes}")
PY
done
