#!/usr/bin/env bash
# Paint benchmark of the season pages: a league where one player has 1,000 games (250 nights, one
# table of four from eight players, she always at it), on a throwaway PostgreSQL and the release
# server; then her season page and the league's season page opened in Debian's Chromium as a
# phone over a throttled link (4x CPU, 150 ms RTT, 1.6 Mbps: scripts/paint.mjs, with
# puppeteer-core from npm, pinned, in target/paint-node). Prints first contentful paint and load,
# three runs each. Everything it starts it stops.
set -euo pipefail
cd "$(dirname "$0")/.."
NIGHTS="${NIGHTS:-250}"
VERSION=24.43.1
DEST=target/paint-node
scripts/ensure-chromium.sh
if ! grep -qs "\"version\": \"$VERSION\"" "$DEST/node_modules/puppeteer-core/package.json"; then
  mkdir -p "$DEST"
  PUPPETEER_SKIP_DOWNLOAD=1 npm install --prefix "$DEST" --no-audit --no-fund --silent "puppeteer-core@$VERSION" >&2
fi
cp scripts/paint.mjs "$DEST/paint.mjs"

scripts/ensure-postgres.sh
cargo build --release --quiet --bins --examples
BIN=target/release/mahjong-league
source scripts/throwaway-service.sh
SERVE_FLAGS="--api-rate-limit 0" start_throwaway_service "$BIN" paint
J='Content-Type: application/json'
sign_up_throwaway "$DIR/jar" paint@example.org Paint "paint password 1"
curl -fs -b "$DIR/jar" -H "$J" -d '{"slug":"paint","name":"Paint club"}' "$BASE/api/v1/clubs" >/dev/null
LEAGUE="$(curl -fs -b "$DIR/jar" -H "$J" -d '{"name":"Long league","card":"demo-2026","ruleset":"nmjl-money","visibility":"public"}' "$BASE/api/v1/clubs/paint/leagues" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')"
psql -q -v ON_ERROR_STOP=1 "$DB_URL" <<SQL
INSERT INTO players (club_id, name) SELECT c.id, 'Player ' || g FROM clubs c, generate_series(1, 8) g WHERE c.slug = 'paint';
INSERT INTO nights (league_id, number, night_date, status)
SELECT $LEAGUE, n, date '2021-01-05' + 7 * n, 'closed' FROM generate_series(1, $NIGHTS) n;
INSERT INTO night_tables (night_id, number) SELECT n.id, 1 FROM nights n WHERE n.league_id = $LEAGUE;
WITH roster AS (SELECT array_agg(p.id ORDER BY p.id) AS ids FROM players p JOIN clubs c ON c.id = p.club_id WHERE c.slug = 'paint')
INSERT INTO table_seats (table_id, seat, player_id)
SELECT nt.id, s, CASE WHEN s = 0 THEN roster.ids[1] ELSE roster.ids[(s + n.number * 3) % 7 + 2] END
FROM night_tables nt JOIN nights n ON n.id = nt.night_id CROSS JOIN generate_series(0, 3) s CROSS JOIN roster
WHERE n.league_id = $LEAGUE;
INSERT INTO games (table_id, number, east_player, outcome, submitted, engine, line_id, line_value, winner, discarder, won_by, jokerless)
SELECT nt.id, g, e.player_id, CASE WHEN wall THEN 'wall' ELSE 'mahjong' END, '{"seeded": true}', '{}',
       CASE WHEN wall THEN NULL ELSE (ARRAY['2026#1','2468#1','2468#2','2468#3','Like Numbers#1','Quints#1','Quints#2','Consecutive Run#1','13579#1','369#1'])[x.h % 10 + 1] END,
       CASE WHEN wall THEN NULL ELSE value END,
       CASE WHEN wall THEN NULL ELSE w.player_id END, CASE WHEN wall OR self THEN NULL ELSE d.player_id END,
       CASE WHEN wall THEN NULL WHEN self THEN 'self_pick' ELSE 'discard' END, NOT wall AND jokerless
FROM night_tables nt JOIN nights n ON n.id = nt.night_id CROSS JOIN generate_series(1, 4) g
CROSS JOIN LATERAL (SELECT (hashint8(nt.id * 4 + g) & 2147483647) AS h) x
CROSS JOIN LATERAL (SELECT x.h % 10 = 0 AS wall, x.h % 3 = 0 AS self, x.h % 7 = 0 AS jokerless,
                           (ARRAY[25, 30, 35, 40, 45, 50, 55, 60, 75])[x.h % 9 + 1] AS value) k
JOIN table_seats e ON e.table_id = nt.id AND e.seat = (g - 1) % 4
JOIN table_seats w ON w.table_id = nt.id AND w.seat = (x.h / 11) % 4
JOIN table_seats d ON d.table_id = nt.id AND d.seat = ((x.h / 11) % 4 + 1 + (x.h / 7) % 3) % 4
WHERE n.league_id = $LEAGUE;
INSERT INTO game_scores (game_id, player_id, seat, score, breakdown)
SELECT g.id, ts.player_id, (ARRAY['E','S','W','N'])[((ts.seat - (g.number - 1)) % 4 + 4) % 4 + 1],
       CASE WHEN g.outcome = 'wall' THEN 0
            WHEN g.winner = ts.player_id THEN CASE WHEN g.won_by = 'self_pick' THEN 6 ELSE 4 END * g.line_value * m
            WHEN g.won_by = 'self_pick' OR g.discarder = ts.player_id THEN -2 * g.line_value * m
            ELSE -g.line_value * m END, 'seeded'
FROM games g JOIN table_seats ts ON ts.table_id = g.table_id
CROSS JOIN LATERAL (SELECT CASE WHEN g.jokerless THEN 2 ELSE 1 END AS m) j;
UPDATE leagues SET revision = revision + 1, standings_stale = true WHERE id = $LEAGUE;
VACUUM (ANALYZE);
SQL
PLAYER="$(psql -At "$DB_URL" -c "SELECT min(p.id) FROM players p JOIN clubs c ON c.id = p.club_id WHERE c.slug = 'paint'")"
echo "her games: $(psql -At "$DB_URL" -c "SELECT count(*) FROM game_scores WHERE player_id = $PLAYER")"
# The standings and the season worked out once, as after any game (a first read pays for it).
curl -fs "$BASE/api/v1/leagues/$LEAGUE/standings" -o /dev/null
curl -fs "$BASE/api/v1/leagues/$LEAGUE/season" -o /dev/null
node "$DEST/paint.mjs" "$BASE/leagues/$LEAGUE/players/$PLAYER" "$BASE/leagues/$LEAGUE/season"
