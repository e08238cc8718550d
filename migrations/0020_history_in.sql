-- History in: points, games and wins a player brings into a league from before it was kept here
-- (a club switching mid-season), counted in the league's totals and shown as carried in.
CREATE TABLE opening_balances (
    league_id BIGINT NOT NULL REFERENCES leagues (id) ON DELETE CASCADE,
    player_id BIGINT NOT NULL REFERENCES players (id),
    points    BIGINT NOT NULL,
    games     BIGINT NOT NULL CHECK (games >= 0),
    wins      BIGINT NOT NULL CHECK (wins >= 0 AND wins <= games),
    PRIMARY KEY (league_id, player_id)
);
-- Whether the league has any (the standings read them only then).
ALTER TABLE leagues ADD COLUMN carried_in BOOLEAN NOT NULL DEFAULT false;
