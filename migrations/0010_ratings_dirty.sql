-- Corrections and voids update a league's totals in their own transaction; the ratings, which
-- follow the games in order, are recomputed afterwards off the request path. A correction bumps
-- ratings_dirty; the recomputation sets ratings_clean to the value it started from. The ratings
-- are being updated while the two differ.
ALTER TABLE leagues ADD COLUMN ratings_dirty BIGINT NOT NULL DEFAULT 0;
ALTER TABLE leagues ADD COLUMN ratings_clean BIGINT NOT NULL DEFAULT 0;
-- Games counted after a given place in the standings order: the ratings' replay and the
-- in-memory game log read only what is new.
CREATE INDEX games_standings_order ON games (standings_order);
-- Games corrected or voided (a game just recorded has updated_at = created_at): the game log
-- in memory replaces only those after a correction.
CREATE INDEX games_corrected ON games (updated_at) WHERE updated_at > created_at;
