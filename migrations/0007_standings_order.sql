-- The order in which games count for ratings: taken under the league's lock when a game is
-- added to the standings, so it matches the order the kept totals saw, while the game's rows
-- themselves are written before the lock (their ids may interleave between concurrent writes).
CREATE SEQUENCE game_standings_order;
ALTER TABLE games ADD COLUMN standings_order BIGINT;
UPDATE games SET standings_order = id;
SELECT setval('game_standings_order', greatest((SELECT max(id) FROM games), 1));
ALTER TABLE games
    ALTER COLUMN standings_order SET DEFAULT nextval('game_standings_order'),
    ALTER COLUMN standings_order SET NOT NULL;
