# Sourced by the benchmarks that seed games by SQL. `seeded_games_sql LEAGUE NIGHTS LINE` prints
# the statements that give every seated table of league LEAGUE's nights matching NIGHTS (an SQL
# condition on `n`) four games as a league plays them — about one in ten a wall game, a third of
# the wins self-picked, hands worth 25 to 75, one win in seven jokerless (doubled) — won with the
# line LINE (an SQL expression; `x.h` is the game's hash), and their scores as under nmjl-money.
seeded_games_sql() {
  local league="$1" nights="$2" line="$3"
  cat <<SQL
INSERT INTO games (table_id, number, east_player, outcome, submitted, engine, line_id, line_value, winner, discarder, won_by, jokerless)
SELECT nt.id, g, e.player_id, CASE WHEN wall THEN 'wall' ELSE 'mahjong' END, '{"seeded": true}', '{}',
       CASE WHEN wall THEN NULL ELSE $line END, CASE WHEN wall THEN NULL ELSE value END,
       CASE WHEN wall THEN NULL ELSE w.player_id END, CASE WHEN wall OR self THEN NULL ELSE d.player_id END,
       CASE WHEN wall THEN NULL WHEN self THEN 'self_pick' ELSE 'discard' END, NOT wall AND jokerless
FROM night_tables nt JOIN nights n ON n.id = nt.night_id CROSS JOIN generate_series(1, 4) g
CROSS JOIN LATERAL (SELECT (hashint8(nt.id * 4 + g) & 2147483647) AS h) x
CROSS JOIN LATERAL (SELECT x.h % 10 = 0 AS wall, x.h % 3 = 0 AS self, x.h % 7 = 0 AS jokerless,
                           (ARRAY[25, 30, 35, 40, 45, 50, 55, 60, 75])[x.h % 9 + 1] AS value) k
JOIN table_seats e ON e.table_id = nt.id AND e.seat = (g - 1) % 4
JOIN table_seats w ON w.table_id = nt.id AND w.seat = (x.h / 11) % 4
JOIN table_seats d ON d.table_id = nt.id AND d.seat = ((x.h / 11) % 4 + 1 + (x.h / 7) % 3) % 4
WHERE n.league_id = $league AND $nights;
INSERT INTO game_scores (game_id, player_id, seat, score, breakdown)
SELECT g.id, ts.player_id, (ARRAY['E','S','W','N'])[((ts.seat - (g.number - 1)) % 4 + 4) % 4 + 1],
       CASE WHEN g.outcome = 'wall' THEN 0
            WHEN g.winner = ts.player_id THEN CASE WHEN g.won_by = 'self_pick' THEN 6 ELSE 4 END * g.line_value * m
            WHEN g.won_by = 'self_pick' OR g.discarder = ts.player_id THEN -2 * g.line_value * m
            ELSE -g.line_value * m END, 'seeded'
FROM games g JOIN table_seats ts ON ts.table_id = g.table_id
CROSS JOIN LATERAL (SELECT CASE WHEN g.jokerless THEN 2 ELSE 1 END AS m) j;
SQL
}

# The demo card's lines the season benchmarks' games are won with, by the game's hash.
DEMO_LINES="(ARRAY['2026#1','2468#1','2468#2','2468#3','Like Numbers#1','Quints#1','Quints#2','Consecutive Run#1','13579#1','369#1'])[x.h % 10 + 1]"
