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
source scripts/seeded-games.sh
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
SQL
seeded_games_sql "$LEAGUE" "true" "$DEMO_LINES" | psql -q -v ON_ERROR_STOP=1 "$DB_URL"
psql -q -v ON_ERROR_STOP=1 "$DB_URL" <<SQL
UPDATE leagues SET revision = revision + 1, standings_stale = true WHERE id = $LEAGUE;
VACUUM (ANALYZE);
SQL
PLAYER="$(psql -At "$DB_URL" -c "SELECT min(p.id) FROM players p JOIN clubs c ON c.id = p.club_id WHERE c.slug = 'paint'")"
echo "her games: $(psql -At "$DB_URL" -c "SELECT count(*) FROM game_scores WHERE player_id = $PLAYER")"
# The standings and the season worked out once, as after any game (a first read pays for it).
curl -fs "$BASE/api/v1/leagues/$LEAGUE/standings" -o /dev/null
curl -fs "$BASE/api/v1/leagues/$LEAGUE/season" -o /dev/null
node "$DEST/paint.mjs" "$BASE/leagues/$LEAGUE/players/$PLAYER" "$BASE/leagues/$LEAGUE/season"
