#!/usr/bin/env bash
# League benchmark: 200 players and 100,000 games in one league on a throwaway PostgreSQL, the
# release server on loopback, then (1) standings latency under concurrent reads, (2) game
# submission throughput over HTTP, (3) both at once. Everything it starts it stops.
# TIES=1 seeds identical hands instead of varied ones (most players tied: head-to-head's worst
# case). BOARD=best_per_night ranks by each night's 2 best games with each player's lowest night
# dropped (the standings are then worked out night by night from every game's score).
# ENCODING=gzip makes the standings reads ask for gzip (and inflate it, as a client does); the
# default takes the body as it is. On loopback, with the client on the same cores, gzip costs
# more than the bytes it saves.
set -euo pipefail
cd "$(dirname "$0")/.."
CONCURRENCY="${CONCURRENCY:-8}"
SECONDS_PER_RUN="${SECONDS_PER_RUN:-10}"
ENCODING="${ENCODING:-identity}"
# TOKEN_LIMIT=n counts every request against the bench token's limit of n a minute (kept in the
# database, where every instance sees it): what a limit costs a read. 0 (the default): none.
TOKEN_LIMIT="${TOKEN_LIMIT:-0}"
# READS_ONLY=1 stops after the standings reads alone.
READS_ONLY="${READS_ONLY:-0}"

scripts/ensure-postgres.sh
cargo build --release --quiet --bins --examples
BIN=target/release/mahjong-league
source scripts/throwaway-service.sh
source scripts/seeded-games.sh
# The load comes from one address and one token: the apps' rate limits (and the per-address cap
# on event streams) would measure themselves.
SERVE_FLAGS="--api-rate-limit 0 --token-rate-limit $TOKEN_LIMIT --streams-per-address 4096" start_throwaway_service "$BIN" bench

J='Content-Type: application/json'
BOARD_FIELDS=""
if [ "${BOARD:-total}" = best_per_night ]; then
  BOARD_FIELDS=',"board":"best_per_night","best_per_night":2,"drop_worst_nights":1'
fi
sign_up_throwaway "$DIR/jar" bench@example.org Bench "bench password 1"
curl -fs -b "$DIR/jar" -H "$J" -d '{"slug":"bench","name":"Bench club"}' "$BASE/api/v1/clubs" >/dev/null
TOKEN="$(curl -fs -b "$DIR/jar" -H "$J" -d '{"name":"bench","scopes":["admin"]}' "$BASE/api/v1/clubs/bench/tokens" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')"
LEAGUE="$(curl -fs -b "$DIR/jar" -H "$J" -d "{\"name\":\"Bench league\",\"card\":\"demo-2026\",\"ruleset\":\"nmjl-money\",\"visibility\":\"public\"$BOARD_FIELDS}" "$BASE/api/v1/clubs/bench/leagues" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')"

echo "seeding 200 players, 500 nights x 50 tables x 4 games = 100,000 games ..."
START=$(date +%s)
psql -q -v ON_ERROR_STOP=1 "$DB_URL" <<SQL
INSERT INTO players (club_id, name) SELECT c.id, 'Player ' || g FROM clubs c, generate_series(1, 200) g WHERE c.slug = 'bench';
-- Nights 1-500 are history; 501-525 are seated and empty, for the submission run.
INSERT INTO nights (league_id, number, night_date, status)
SELECT $LEAGUE, n, date '2020-01-01' + n, CASE WHEN n <= 500 THEN 'closed' ELSE 'seated' END FROM generate_series(1, 537) n;
INSERT INTO night_tables (night_id, number) SELECT n.id, t FROM nights n, generate_series(1, 50) t WHERE n.league_id = $LEAGUE;
WITH roster AS (SELECT array_agg(p.id ORDER BY p.id) AS ids FROM players p JOIN clubs c ON c.id = p.club_id WHERE c.slug = 'bench')
INSERT INTO table_seats (table_id, seat, player_id)
SELECT nt.id, s, roster.ids[((nt.number - 1) * 4 + s + n.number * 13) % 200 + 1]
FROM night_tables nt JOIN nights n ON n.id = nt.night_id CROSS JOIN generate_series(0, 3) s CROSS JOIN roster
WHERE n.league_id = $LEAGUE;
SQL
if [ "${TIES:-0}" = 1 ]; then
# TIES=1: every hand is worth the same and every table plays the same pattern, so most players
# end tied on points, wins and deal-ins: the worst case for head-to-head.
psql -q -v ON_ERROR_STOP=1 "$DB_URL" <<SQL
INSERT INTO games (table_id, number, east_player, outcome, submitted, engine, line_id, line_value, winner, won_by, jokerless)
SELECT nt.id, g, e.player_id, CASE WHEN g = 4 THEN 'wall' ELSE 'mahjong' END, '{"seeded": true}', '{}',
       CASE WHEN g = 4 THEN NULL ELSE '2468#2' END, CASE WHEN g = 4 THEN NULL ELSE 25 END,
       CASE WHEN g = 4 THEN NULL ELSE w.player_id END, CASE WHEN g = 4 THEN NULL ELSE 'self_pick' END, false
FROM night_tables nt JOIN nights n ON n.id = nt.night_id CROSS JOIN generate_series(1, 4) g
JOIN table_seats e ON e.table_id = nt.id AND e.seat = (g - 1) % 4
JOIN table_seats w ON w.table_id = nt.id AND w.seat = (g + n.number) % 4
WHERE n.league_id = $LEAGUE AND n.number <= 500;
INSERT INTO game_scores (game_id, player_id, seat, score, breakdown)
SELECT g.id, ts.player_id, (ARRAY['E','S','W','N'])[((ts.seat - (g.number - 1)) % 4 + 4) % 4 + 1],
       CASE WHEN g.outcome = 'wall' THEN 0 WHEN g.winner = ts.player_id THEN 150 ELSE -50 END, 'seeded'
FROM games g JOIN table_seats ts ON ts.table_id = g.table_id;
SQL
else
# Games as a league plays them (scripts/seeded-games.sh).
seeded_games_sql "$LEAGUE" "n.number <= 500" "'seeded'" | psql -q -v ON_ERROR_STOP=1 "$DB_URL"
fi
psql -q -v ON_ERROR_STOP=1 "$DB_URL" <<SQL
-- Games written by hand: the service rebuilds the league's totals and ratings on the next read.
UPDATE leagues SET revision = revision + 1, standings_stale = true WHERE id = $LEAGUE;
-- Vacuumed now, so autovacuum does not start on these tables in the middle of a measurement.
VACUUM (ANALYZE);
SQL
echo "seeded in $(( $(date +%s) - START )) s: $(psql -At "$DB_URL" -c 'SELECT count(*) FROM games') games"

STANDINGS="/api/v1/leagues/$LEAGUE/standings"
T0=$(date +%s.%N); curl -fs "$BASE$STANDINGS" -o /dev/null; T1=$(date +%s.%N)
python3 -c "print(f'standings, first read after seeding (rebuild from 100,000 games): {($T1-$T0)*1000:.0f} ms')"
echo "standings reads alone ($CONCURRENCY clients, $ENCODING):"
target/release/examples/load --url "$BASE" --token "$TOKEN" --get "$STANDINGS" --seconds "$SECONDS_PER_RUN" --concurrency "$CONCURRENCY" --encoding "$ENCODING"
if [ "$READS_ONLY" = 1 ]; then exit 0; fi

# Job files "table winner", one line per game, a night at a time as a club plays them (each
# table's 4 games, game numbers following): nights 501-512 for submissions alone, 513-525 for
# submissions while standings are read.
jobs() {
  for n in $(seq "$1" "$2"); do
    psql -At -F ' ' "$DB_URL" -c "SELECT t.id, s.player_id FROM night_tables t JOIN nights n ON n.id = t.night_id JOIN table_seats s ON s.table_id = t.id AND s.seat = 1 WHERE n.league_id = $LEAGUE AND n.number = $n ORDER BY t.id" > "$DIR/slots"
    for _ in 1 2 3 4; do cat "$DIR/slots"; done
  done
}
jobs 501 512 > "$DIR/jobs1"; jobs 513 525 > "$DIR/jobs2"; jobs 526 537 > "$DIR/jobs3"
echo "submissions alone:"
target/release/examples/load --url "$BASE" --token "$TOKEN" --games "$DIR/jobs1" --concurrency "$CONCURRENCY"
echo "submissions ($CONCURRENCY clients) and standings reads ($CONCURRENCY clients, $ENCODING) at once:"
target/release/examples/load --url "$BASE" --token "$TOKEN" --games "$DIR/jobs2" --get "$STANDINGS" --concurrency "$CONCURRENCY" --encoding "$ENCODING"
T0=$(date +%s.%N); curl -fs "$BASE$STANDINGS" -o /dev/null; T1=$(date +%s.%N)
python3 -c "print(f'standings after the submissions: {($T1-$T0)*1000:.0f} ms')"
STREAMS="${STREAMS:-500}"
RATE="${RATE:-50}"
head -n 1200 "$DIR/jobs3" > "$DIR/jobs3a"; tail -n +1201 "$DIR/jobs3" > "$DIR/jobs3b"
echo "submissions at $RATE games/s (a 200-table tournament entering at once) with $STREAMS event streams open on the league:"
target/release/examples/load --url "$BASE" --token "$TOKEN" --games "$DIR/jobs3a" --concurrency "$CONCURRENCY" \
  --rate "$RATE" --streams "$STREAMS" --events "/api/v1/leagues/$LEAGUE/events"
echo "submissions as fast as $CONCURRENCY clients go, with $STREAMS event streams open:"
target/release/examples/load --url "$BASE" --token "$TOKEN" --games "$DIR/jobs3b" --concurrency "$CONCURRENCY" \
  --streams "$STREAMS" --events "/api/v1/leagues/$LEAGUE/events"
echo "games now: $(psql -At "$DB_URL" -c 'SELECT count(*) FROM games')"
# A correction rebuilds the league's totals: time the read after a void.
GAME="$(psql -At "$DB_URL" -c "SELECT max(id) FROM games")"
curl -fs -X POST -H "Authorization: Bearer $TOKEN" "$BASE/api/v1/games/$GAME/void" -o /dev/null
T0=$(date +%s.%N); curl -fs "$BASE$STANDINGS" -o /dev/null; T1=$(date +%s.%N)
python3 -c "print(f'standings, first read after a void (rebuild): {($T1-$T0)*1000:.0f} ms')"
