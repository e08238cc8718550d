#!/usr/bin/env bash
# Season benchmark: a league of 200 players and 10,000 games (50 nights x 50 tables x 4 games,
# NIGHTS changes the 50) on a throwaway PostgreSQL, the release server on loopback, then the
# server time of the season documents and pages: (1) the first read, worked out from every game;
# (2) reads while nothing changes (kept per league and revision), 8 clients; (3) reads while
# games are entered (each new game moves the revision: the next read carries the season on from
# its last night); (4) the first read right after each new game, alone. Everything it starts it
# stops.
set -euo pipefail
cd "$(dirname "$0")/.."
CONCURRENCY="${CONCURRENCY:-8}"
SECONDS_PER_RUN="${SECONDS_PER_RUN:-10}"
NIGHTS="${NIGHTS:-50}"
AFTER_NIGHTS="${AFTER_NIGHTS:-8}"
[ "$AFTER_NIGHTS" -ge 1 ] && [ "$AFTER_NIGHTS" -le 11 ] || { echo "AFTER_NIGHTS: 1 to 11 (the nights seated ahead)" >&2; exit 2; }

scripts/ensure-postgres.sh
cargo build --release --quiet --bins --examples
BIN=target/release/mahjong-league
source scripts/throwaway-service.sh
source scripts/seeded-games.sh
SERVE_FLAGS="--api-rate-limit 0 --token-rate-limit 0" start_throwaway_service "$BIN" bench

J='Content-Type: application/json'
sign_up_throwaway "$DIR/jar" bench@example.org Bench "bench password 1"
curl -fs -b "$DIR/jar" -H "$J" -d '{"slug":"bench","name":"Bench club"}' "$BASE/api/v1/clubs" >/dev/null
TOKEN="$(curl -fs -b "$DIR/jar" -H "$J" -d '{"name":"bench","scopes":["admin"]}' "$BASE/api/v1/clubs/bench/tokens" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')"
LEAGUE="$(curl -fs -b "$DIR/jar" -H "$J" -d '{"name":"Bench league","card":"demo-2026","ruleset":"nmjl-money","visibility":"public"}' "$BASE/api/v1/clubs/bench/leagues" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')"

echo "seeding 200 players, $NIGHTS nights x 50 tables x 4 games ..."
LAST=$((NIGHTS + 12))
psql -q -v ON_ERROR_STOP=1 "$DB_URL" <<SQL
INSERT INTO players (club_id, name) SELECT c.id, 'Player ' || g FROM clubs c, generate_series(1, 200) g WHERE c.slug = 'bench';
INSERT INTO nights (league_id, number, night_date, status)
SELECT $LEAGUE, n, date '2026-01-06' + 7 * n, CASE WHEN n <= $NIGHTS THEN 'closed' ELSE 'seated' END FROM generate_series(1, $LAST) n;
INSERT INTO night_tables (night_id, number) SELECT n.id, t FROM nights n, generate_series(1, 50) t WHERE n.league_id = $LEAGUE;
WITH roster AS (SELECT array_agg(p.id ORDER BY p.id) AS ids FROM players p JOIN clubs c ON c.id = p.club_id WHERE c.slug = 'bench')
INSERT INTO table_seats (table_id, seat, player_id)
SELECT nt.id, s, roster.ids[((nt.number - 1) * 4 + s + n.number * 13) % 200 + 1]
FROM night_tables nt JOIN nights n ON n.id = nt.night_id CROSS JOIN generate_series(0, 3) s CROSS JOIN roster
WHERE n.league_id = $LEAGUE;
SQL
# Games as a league plays them, won with lines of the demo card (scripts/seeded-games.sh).
seeded_games_sql "$LEAGUE" "n.number <= $NIGHTS" "$DEMO_LINES" | psql -q -v ON_ERROR_STOP=1 "$DB_URL"
psql -q -v ON_ERROR_STOP=1 "$DB_URL" <<SQL
UPDATE leagues SET revision = revision + 1, standings_stale = true WHERE id = $LEAGUE;
VACUUM (ANALYZE);
SQL
echo "seeded: $(psql -At "$DB_URL" -c 'SELECT count(*) FROM games') games"
PLAYER="$(psql -At "$DB_URL" -c "SELECT min(id) FROM players")"
curl -fs "$BASE/api/v1/leagues/$LEAGUE/standings" -o /dev/null
timed() {
  local T0 T1
  T0=$(date +%s.%N); curl -fs "$BASE$1" -o /dev/null; T1=$(date +%s.%N)
  python3 -c "print(f'$2: {($T1-$T0)*1000:.1f} ms')"
}
timed "/api/v1/leagues/$LEAGUE/season" "league season, first read (worked out from every game)"
timed "/api/v1/leagues/$LEAGUE/players/$PLAYER/season" "one player season, the next read"
for path in "/api/v1/leagues/$LEAGUE/players/$PLAYER/season" "/api/v1/leagues/$LEAGUE/season" \
            "/leagues/$LEAGUE/players/$PLAYER" "/leagues/$LEAGUE/season"; do
  echo "$path, reads alone ($CONCURRENCY clients):"
  target/release/examples/load --url "$BASE" --token "$TOKEN" --get "$path" --seconds "$SECONDS_PER_RUN" --concurrency "$CONCURRENCY"
done
# Games of the seated nights, "table winner" a line, each table's four in turn.
for n in $((NIGHTS + 1)); do
  psql -At -F ' ' "$DB_URL" -c "SELECT t.id, s.player_id FROM night_tables t JOIN nights n ON n.id = t.night_id JOIN table_seats s ON s.table_id = t.id AND s.seat = 1 WHERE n.league_id = $LEAGUE AND n.number = $n ORDER BY t.id" > "$DIR/slots"
  for _ in 1 2 3 4; do cat "$DIR/slots"; done
done > "$DIR/jobs"
echo "a player's season read ($CONCURRENCY clients) while games are entered at 10/s (each a new revision):"
target/release/examples/load --url "$BASE" --token "$TOKEN" --games "$DIR/jobs" --rate 10 \
  --get "/api/v1/leagues/$LEAGUE/players/$PLAYER/season" --concurrency "$CONCURRENCY"
# The read right after a new game, alone: a game entered, then at once one of the four reads
# (in turn), timed by the client on a kept-alive connection; the games of the next AFTER_NIGHTS
# seated nights, 200 a night (each night's first game opens a night: the season is taken up
# there). 1,600 games by default: 400 reads of each kind, so p99 is not the slowest read alone.
psql -At -F ' ' "$DB_URL" -c "SELECT t.id, s.player_id FROM night_tables t JOIN nights n ON n.id = t.night_id JOIN table_seats s ON s.table_id = t.id AND s.seat = 1 WHERE n.league_id = $LEAGUE AND n.number BETWEEN $((NIGHTS + 2)) AND $((NIGHTS + 1 + AFTER_NIGHTS)) ORDER BY n.number, t.id" > "$DIR/slots2"
echo "the first read after each new game ($((AFTER_NIGHTS * 200)) games, the four reads in turn, one client):"
python3 - "$BASE" "$TOKEN" "$LEAGUE" "$PLAYER" "$DIR/slots2" <<'PY'
import http.client, json, sys, time, urllib.parse
base, token, league, player, slots = sys.argv[1:]
u = urllib.parse.urlparse(base)
conn = http.client.HTTPConnection(u.hostname, u.port)
paths = [f"/api/v1/leagues/{league}/players/{player}/season", f"/api/v1/leagues/{league}/season",
         f"/leagues/{league}/players/{player}", f"/leagues/{league}/season"]
tables = [l.split() for l in open(slots) if l.strip()]
took = {p: [] for p in paths}
i = 0
jobs = [(t, w, n) for night in range(0, len(tables), 50)
        for n in range(1, 5) for t, w in tables[night:night + 50]]
for table, winner, number in jobs:
    if True:
        body = json.dumps({"outcome": "mahjong", "number": number, "winner": int(winner), "won_by": "self_pick",
                           "hand": "F F 2B 2B J 2B 4C 4C 6C 6C 8B 8B J 8B"})
        conn.request("POST", f"/api/v1/tables/{table}/games", body,
                     {"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
        r = conn.getresponse(); r.read()
        assert r.status == 201, (r.status, table, number)
        path = paths[i % 4]; i += 1
        t = time.perf_counter()
        conn.request("GET", path)
        r = conn.getresponse(); r.read()
        assert r.status == 200, (r.status, path)
        took[path].append((time.perf_counter() - t) * 1000)
for p, ms in took.items():
    ms.sort()
    pick = lambda q: ms[min(len(ms) - 1, int(q * len(ms)))]
    print(f"{p}: {len(ms)} reads, p50 {pick(0.5):.2f} ms, p99 {pick(0.99):.2f} ms, max {ms[-1]:.2f} ms")
PY
