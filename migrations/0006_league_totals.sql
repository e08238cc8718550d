-- Per-player standings totals and Weng-Lin ratings, kept up to date in the transaction that
-- records a game, so reading standings does not scan a league's whole history.
--
-- Recording a game adds to these rows. A correction or a void marks the league stale instead;
-- the next standings read rebuilds the rows from the games (src/storage/totals.rs).

CREATE TABLE league_totals (
    league_id      BIGINT NOT NULL REFERENCES leagues (id) ON DELETE CASCADE,
    player_id      BIGINT NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    games          BIGINT NOT NULL DEFAULT 0,
    wins           BIGINT NOT NULL DEFAULT 0,
    points         BIGINT NOT NULL DEFAULT 0,
    self_picks     BIGINT NOT NULL DEFAULT 0,
    jokerless_wins BIGINT NOT NULL DEFAULT 0,
    deal_ins       BIGINT NOT NULL DEFAULT 0,
    dead_hands     BIGINT NOT NULL DEFAULT 0,
    wall_games     BIGINT NOT NULL DEFAULT 0,
    -- Weng-Lin rating (mu) and uncertainty (sigma); NULL until the player's first rated game.
    mu             DOUBLE PRECISION,
    sigma          DOUBLE PRECISION,
    PRIMARY KEY (league_id, player_id)
);

-- The rows above must be rebuilt before they are read.
ALTER TABLE leagues ADD COLUMN standings_stale BOOLEAN NOT NULL DEFAULT true;
-- Leagues that existed before this migration are rebuilt on their first read; new ones start empty.
ALTER TABLE leagues ALTER COLUMN standings_stale SET DEFAULT false;

-- The games of a player, for head-to-head and player pages.
CREATE INDEX game_scores_player_game ON game_scores (player_id, game_id);
DROP INDEX game_scores_player;

-- Tables with games cannot be dropped by re-seating a night: the games would go with them.
ALTER TABLE games DROP CONSTRAINT games_table_id_fkey,
    ADD CONSTRAINT games_table_id_fkey FOREIGN KEY (table_id) REFERENCES night_tables (id) ON DELETE RESTRICT;
