#!/usr/bin/env bash
# Platform benchmark: CLUBS clubs (default 2,000), each with one public league of 32 players,
# NIGHTS closed nights (default 157) of 8 tables x 4 games (5,024 games a league: 10,048,000 in
# all) in one PostgreSQL (durable settings: fsync on), served by INSTANCES release instances
# (default 3) on it. Then:
#   1. every league's first read after a restart, on every instance (6,000 reads);
#   2. standings of random leagues alone, READERS clients over all instances (warm);
#   3. the mixed load: PLAYING leagues (default 100) enter games at RATE a second (default 100)
#      over all instances, with STREAMS event streams (default 5,000) open on those leagues over
#      all instances, while READERS clients read the standings of random leagues;
#   4. one instance: 500 streams, games at 400 a second;
#   5. each instance's peak memory (VmHWM), and one more instance with --cache-mb 16 read
#      through every league, for the bound.
# The seeded data directory is kept in PLATFORM_DIR when that is set (seeding takes a while:
# a second run reuses it, removing the games an earlier run entered); otherwise everything it
# starts and makes it stops and removes.
# The instances keep their default caps on event streams (64 an address): the load comes from
# many loopback addresses, 32 streams an address and each reader and scorer from its own. The
# apps' rate limits are off (the reads would measure the limits). A request refused in any phase
# stops the run, naming the phase, with a non-zero exit. PROFILE=debug uses the debug build
# (`make bench-smoke`: a small run that shows the benchmark still runs).
set -euo pipefail
cd "$(dirname "$0")/.."
CLUBS="${CLUBS:-2000}"
NIGHTS="${NIGHTS:-157}"
INSTANCES="${INSTANCES:-3}"
PLAYING="${PLAYING:-100}"
RATE="${RATE:-100}"
STREAMS="${STREAMS:-5000}"
READERS="${READERS:-16}"
SECONDS_WARM="${SECONDS_WARM:-30}"
# Streams and their connections: the client and each instance need a descriptor apiece.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"

scripts/ensure-postgres.sh
PROFILE="${PROFILE:-release}"
if [ "$PROFILE" = release ]; then
  cargo build --release --quiet --bins --examples
else
  cargo build --quiet --bins --examples
fi
BIN="$(realpath "target/$PROFILE/mahjong-league")"
LOAD="target/$PROFILE/examples/platform"
KEEP="${PLATFORM_DIR:+1}"
DIR="${PLATFORM_DIR:-$(mktemp -d /tmp/mahjong-platform.XXXXXX)}"
mkdir -p "$DIR"
PIDS=()
stop_all() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null || true; done
  PIDS=()
}
cleanup() {
  stop_all
  "$BIN" db stop --data-dir "$DIR/pg" >/dev/null 2>&1 || true
  [ -n "$KEEP" ] || rm -rf "$DIR"
}
trap cleanup EXIT

ADMIN_URL="$("$BIN" db start --data-dir "$DIR/pg")"
DB_URL="${ADMIN_URL/\/postgres\?/\/platform?}"
# One session key for every instance (tokens are kept as an HMAC under it), as the README says.
[ -s "$DIR/session-key" ] || python3 -c 'import secrets; print(secrets.token_hex(40))' > "$DIR/session-key"
export MAHJONG_SESSION_KEY="$(cat "$DIR/session-key")"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
URLS=()
# start_instances N [flags]: N instances on the database; URLS lists them.
start_instances() {
  local n="$1"; shift
  URLS=()
  for i in $(seq "$n"); do
    local port; port="$(free_port)"
    mkdir -p "$DIR/instance$i"
    "$BIN" serve --database-url "$DB_URL" --bind "127.0.0.1:$port" --data-dir "$DIR/instance$i" \
      --api-rate-limit 0 --token-rate-limit 0 "$@" > "$DIR/instance$i.log" 2>&1 &
    PIDS+=($!)
    URLS+=("http://127.0.0.1:$port")
  done
  for u in "${URLS[@]}"; do
    for _ in $(seq 240); do curl -fs "$u/readyz" >/dev/null && continue 2; sleep 0.5; done
    echo "an instance did not become ready" >&2; tail -n 20 "$DIR"/instance*.log >&2; return 1
  done
}
peak_memory() {
  for p in "${PIDS[@]}"; do
    awk -v pid="$p" '/VmHWM|VmRSS/ {printf "%s %s %d MB  ", pid, $1, $2/1024} END {print ""}' "/proc/$p/status"
  done
}
joined() { local IFS=,; echo "${URLS[*]}"; }

start_instances 1
J='Content-Type: application/json'
if [ "$(psql -At "$DB_URL" -c "SELECT count(*) FROM games")" -lt 1000 ]; then
  echo "seeding $CLUBS clubs, $CLUBS leagues of 32 players, $NIGHTS nights x 8 tables x 4 games each ..."
  START=$(date +%s)
  BASE="${URLS[0]}"
  curl -fs -c "$DIR/jar" -H "$J" -d '{"email":"bench@example.org","display_name":"Bench","password":"bench password 1"}' "$BASE/api/v1/users" >/dev/null
  # The sign-up's link, from the mail the instance wrote to its data directory (no SMTP server).
  TOKEN="$(python3 scripts/signup_token.py "$(ls -d "$DIR"/instance*/ | head -n 1)mail" bench@example.org)"
  curl -fs -b "$DIR/jar" -c "$DIR/jar" -H "$J" -d '{"password":"bench password 1"}' "$BASE/api/v1/sign-ups/$TOKEN" >/dev/null
  curl -fs -b "$DIR/jar" -H "$J" -d '{"slug":"p0001","name":"Club 1"}' "$BASE/api/v1/clubs" >/dev/null
  curl -fs -b "$DIR/jar" -H "$J" -d '{"name":"League of Club 1","card":"demo-2026","ruleset":"nmjl-money","visibility":"public"}' "$BASE/api/v1/clubs/p0001/leagues" >/dev/null
  psql -q -v ON_ERROR_STOP=1 "$DB_URL" <<SQL
INSERT INTO clubs (slug, name) SELECT format('p%s', lpad(g::text, 4, '0')), 'Club ' || g FROM generate_series(2, $CLUBS) g;
INSERT INTO memberships (club_id, user_id, role)
SELECT c.id, u.id, 'owner' FROM clubs c, users u WHERE c.slug LIKE 'p%' AND c.slug <> 'p0001' AND u.email = 'bench@example.org';
INSERT INTO leagues (club_id, name, builtin_card, ruleset, visibility, board, games_per_table)
SELECT c.id, 'League of ' || c.name, l.builtin_card, l.ruleset, 'public', l.board, 4
FROM clubs c, leagues l JOIN clubs c1 ON c1.id = l.club_id AND c1.slug = 'p0001'
WHERE c.slug LIKE 'p%' AND c.slug <> 'p0001';
INSERT INTO players (club_id, name) SELECT c.id, 'Player ' || g FROM clubs c, generate_series(1, 32) g WHERE c.slug LIKE 'p%';
-- Nights 1-NIGHTS are history; 6 more are seated and empty, for the games entered under load.
INSERT INTO nights (league_id, number, night_date, status)
SELECT l.id, n, date '2023-01-03' + 7 * n, CASE WHEN n <= $NIGHTS THEN 'closed' ELSE 'seated' END
FROM leagues l JOIN clubs c ON c.id = l.club_id AND c.slug LIKE 'p%', generate_series(1, $NIGHTS + 6) n;
INSERT INTO night_tables (night_id, number) SELECT n.id, t FROM nights n, generate_series(1, 8) t;
CREATE UNLOGGED TABLE bench_roster AS
SELECT l.id AS league_id, array_agg(p.id ORDER BY p.id) AS ids FROM leagues l JOIN players p ON p.club_id = l.club_id GROUP BY l.id;
INSERT INTO table_seats (table_id, seat, player_id)
SELECT nt.id, s, r.ids[((nt.number - 1) * 4 + s + n.number * 13) % 32 + 1]
FROM night_tables nt JOIN nights n ON n.id = nt.night_id JOIN bench_roster r ON r.league_id = n.league_id
CROSS JOIN generate_series(0, 3) s;
DROP TABLE bench_roster;
SQL
  echo "  clubs, leagues, players, nights and seats in $(( $(date +%s) - START )) s"
  # Games a batch of leagues at a time: as a league plays them (about one in ten a wall game,
  # a third of the wins self-picked, hands worth 25 to 75, one win in seven jokerless), paid as
  # under nmjl-money.
  read -r FIRST LAST <<< "$(psql -At -F ' ' "$DB_URL" -c "SELECT min(id), max(id) FROM leagues")"
  BATCH=100
  for ((from = FIRST; from <= LAST; from += BATCH)); do
    to=$((from + BATCH - 1))
    psql -q -v ON_ERROR_STOP=1 "$DB_URL" <<SQL
BEGIN;
SELECT coalesce(max(id), 0) AS before FROM games \gset
INSERT INTO games (table_id, number, east_player, outcome, submitted, engine, line_id, line_value, winner, discarder, won_by, jokerless)
SELECT nt.id, g, e.player_id, CASE WHEN wall THEN 'wall' ELSE 'mahjong' END, '{"seeded": true}', '{}',
       CASE WHEN wall THEN NULL ELSE 'seeded' END, CASE WHEN wall THEN NULL ELSE value END,
       CASE WHEN wall THEN NULL ELSE w.player_id END, CASE WHEN wall OR self THEN NULL ELSE d.player_id END,
       CASE WHEN wall THEN NULL WHEN self THEN 'self_pick' ELSE 'discard' END, NOT wall AND jokerless
FROM night_tables nt JOIN nights n ON n.id = nt.night_id CROSS JOIN generate_series(1, 4) g
CROSS JOIN LATERAL (SELECT (hashint8(nt.id * 4 + g) & 2147483647) AS h) x
CROSS JOIN LATERAL (SELECT x.h % 10 = 0 AS wall, x.h % 3 = 0 AS self, x.h % 7 = 0 AS jokerless,
                           (ARRAY[25, 30, 35, 40, 45, 50, 55, 60, 75])[x.h % 9 + 1] AS value) k
JOIN table_seats e ON e.table_id = nt.id AND e.seat = (g - 1) % 4
JOIN table_seats w ON w.table_id = nt.id AND w.seat = (x.h / 11) % 4
JOIN table_seats d ON d.table_id = nt.id AND d.seat = ((x.h / 11) % 4 + 1 + (x.h / 7) % 3) % 4
WHERE n.league_id BETWEEN $from AND $to AND n.number <= $NIGHTS
ORDER BY n.league_id, n.number, nt.number, g;
INSERT INTO game_scores (game_id, player_id, seat, score, breakdown)
SELECT g.id, ts.player_id, (ARRAY['E','S','W','N'])[((ts.seat - (g.number - 1)) % 4 + 4) % 4 + 1],
       CASE WHEN g.outcome = 'wall' THEN 0
            WHEN g.winner = ts.player_id THEN CASE WHEN g.won_by = 'self_pick' THEN 6 ELSE 4 END * g.line_value * m
            WHEN g.won_by = 'self_pick' OR g.discarder = ts.player_id THEN -2 * g.line_value * m
            ELSE -g.line_value * m END, 'seeded'
FROM games g JOIN table_seats ts ON ts.table_id = g.table_id
CROSS JOIN LATERAL (SELECT CASE WHEN g.jokerless THEN 2 ELSE 1 END AS m) j
WHERE g.id > :before;
-- The history's events, as a database that recorded these games holds them (one game.recorded a
-- game, its body short): without them the event table is empty and its queries plan for that.
INSERT INTO league_events (league_id, kind, data, created_at)
SELECT n.league_id, 'game.recorded', jsonb_build_object('id', g.id, 'seeded', true), n.night_date
FROM games g JOIN night_tables nt ON nt.id = g.table_id JOIN nights n ON n.id = nt.night_id
WHERE g.id > :before ORDER BY g.id;
-- Games written by hand: the service rebuilds these leagues' totals and ratings on the next read.
UPDATE leagues SET revision = revision + 1, standings_stale = true WHERE id BETWEEN $from AND $to;
COMMIT;
SQL
    echo "  leagues $from-$to: $(( $(date +%s) - START )) s"
  done
  psql -q -v ON_ERROR_STOP=1 "$DB_URL" -c "VACUUM ANALYZE"
  echo "seeded in $(( $(date +%s) - START )) s: $(psql -At "$DB_URL" -c 'SELECT count(*) FROM games') games, database $(psql -At "$DB_URL" -c "SELECT pg_size_pretty(pg_database_size('platform'))")"
  # Every league's totals and ratings rebuilt from its games once (as the first read after an
  # import does), so the measured reads start from a kept database.
  psql -At "$DB_URL" -c "SELECT id FROM leagues ORDER BY id" > "$DIR/leagues"
  T0=$(date +%s)
  "$LOAD" --phase "seeding: every league's first read" --urls "${URLS[0]}" --leagues "$DIR/leagues" --cold --readers 2
  echo "  (every league's totals and ratings rebuilt from its games in $(( $(date +%s) - T0 )) s)"
fi
# A kept database is played again: the seated nights' games from an earlier run go, and those
# leagues are read once so that their totals are rebuilt before anything is measured.
psql -q -At "$DB_URL" > "$DIR/replayed" <<SQL
WITH gone AS (
  DELETE FROM games g USING night_tables nt, nights n
  WHERE g.table_id = nt.id AND nt.night_id = n.id AND n.number > $NIGHTS RETURNING n.league_id)
UPDATE leagues SET revision = revision + 1, standings_stale = true
WHERE id IN (SELECT league_id FROM gone) RETURNING id;
SQL
if [ -s "$DIR/replayed" ]; then
  echo "an earlier run's games on $(wc -l < "$DIR/replayed") leagues' seated nights removed"
  "$LOAD" --phase "replaying: the leagues played before" --urls "${URLS[0]}" --leagues "$DIR/replayed" --cold --readers 2 > /dev/null
fi
stop_all
psql -At "$DB_URL" -c "SELECT id FROM leagues ORDER BY id" > "$DIR/leagues"
echo "database: $(psql -At "$DB_URL" -c 'SELECT count(*) FROM games') games in $(psql -At "$DB_URL" -c 'SELECT count(*) FROM leagues') leagues, $(psql -At "$DB_URL" -c "SELECT pg_size_pretty(pg_database_size('platform'))")"

# 1. After a restart: each league read once on each instance (nothing in their memory).
start_instances "$INSTANCES"
awk -v n="$INSTANCES" '{for (i = 0; i < n; i++) print}' "$DIR/leagues" > "$DIR/leagues.each"
echo "1. every league's first read after a restart, on each of $INSTANCES instances, 4 at a time:"
"$LOAD" --phase "1. first reads" --urls "$(joined)" --leagues "$DIR/leagues.each" --cold --readers 4
echo "2. standings of random leagues, $READERS clients over $INSTANCES instances, ${SECONDS_WARM} s:"
"$LOAD" --phase "2. warm reads" --urls "$(joined)" --leagues "$DIR/leagues" --readers "$READERS" --seconds "$SECONDS_WARM"

# Games for the seated nights of the PLAYING leagues: "table winner league token" in each table's
# order; a token per club (as its scorers' app would hold).
psql -At -F ' ' "$DB_URL" -c "SELECT l.id, c.slug FROM leagues l JOIN clubs c ON c.id = l.club_id ORDER BY l.id LIMIT $PLAYING" > "$DIR/playing"
if [ ! -s "$DIR/tokens" ]; then
  curl -fs -c "$DIR/jar" -H "$J" -d '{"email":"bench@example.org","password":"bench password 1"}' "${URLS[0]}/api/v1/session" >/dev/null
  while read -r league slug; do
    tok="$(curl -fs -b "$DIR/jar" -H "$J" -d '{"name":"bench","scopes":["admin"]}' "${URLS[0]}/api/v1/clubs/$slug/tokens" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')"
    echo "$league $tok"
  done < "$DIR/playing" > "$DIR/tokens"
fi
# games_for FIRST_NIGHT LAST_NIGHT: every table's 4 games of those seated nights, the leagues'
# tables interleaved as a busy evening enters them.
games_for() {
  local values
  values="$(awk -v q="'" '{printf "%s(%s,%s%s%s)", (NR > 1 ? "," : ""), $1, q, $2, q}' "$DIR/tokens")"
  psql -At -F ' ' "$DB_URL" -c "
    SELECT t.id, s.player_id, n.league_id, k.token
    FROM nights n JOIN night_tables t ON t.night_id = n.id JOIN table_seats s ON s.table_id = t.id AND s.seat = 1
    JOIN (VALUES $values) AS k(league, token) ON k.league = n.league_id
    CROSS JOIN generate_series(1, 4) g
    WHERE n.number BETWEEN $((NIGHTS + $1)) AND $((NIGHTS + $2))
      AND NOT EXISTS (SELECT 1 FROM games x WHERE x.table_id = t.id)
    ORDER BY n.number, g, t.number, n.league_id"
}
games_for 1 2 > "$DIR/games.mixed"
echo "3. mixed: $(wc -l < "$DIR/games.mixed") games from $PLAYING leagues at $RATE/s over $INSTANCES instances, $STREAMS streams on those leagues, $READERS clients reading random leagues:"
"$LOAD" --phase "3. mixed" --urls "$(joined)" --leagues "$DIR/leagues" --games "$DIR/games.mixed" --rate "$RATE" --streams "$STREAMS" --readers "$READERS"
echo "   memory after 1-3 (each instance):"
peak_memory
stop_all

start_instances 1
games_for 3 6 > "$DIR/games.rest"
head -n "${GAMES_ONE:-8000}" "$DIR/games.rest" > "$DIR/games.one"
echo "4. one instance: $(wc -l < "$DIR/games.one") games at ${RATE_ONE:-400}/s, ${STREAMS_ONE:-500} streams, no readers:"
"$LOAD" --phase "4. one instance" --urls "$(joined)" --leagues "$DIR/leagues" --games "$DIR/games.one" --rate "${RATE_ONE:-400}" --streams "${STREAMS_ONE:-500}" --readers 0
stop_all

for mb in 256 16; do
  start_instances 1 --cache-mb "$mb"
  "$LOAD" --phase "5. cache $mb MB, first reads" --urls "$(joined)" --leagues "$DIR/leagues" --cold --readers 4 > /dev/null
  "$LOAD" --phase "5. cache $mb MB, reads" --urls "$(joined)" --leagues "$DIR/leagues" --readers 8 --seconds "${SECONDS_CACHE:-10}" | sed "s/^/   /"
  echo "5. --cache-mb $mb, every league read: $(peak_memory); caches: $(curl -fs "${URLS[0]}/metrics" | grep '^mahjong_cache_bytes' | awk '{printf "%s=%.1f MB ", $1, $2/1048576}')"
  stop_all
done
