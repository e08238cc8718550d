-- Games at a table, their scores, dead-hand calls, idempotency keys, and the audit log.

CREATE TABLE games (
    id           BIGSERIAL PRIMARY KEY,
    table_id     BIGINT NOT NULL REFERENCES night_tables (id) ON DELETE CASCADE,
    -- Game number at the table; a redeal carries the number of the game it replaced.
    number       INTEGER NOT NULL CHECK (number > 0),
    east_player  BIGINT NOT NULL REFERENCES players (id),
    outcome      TEXT NOT NULL CHECK (outcome IN ('mahjong', 'wall', 'redeal')),
    -- The result as submitted (players by id) and as the engine saw it (players by wind).
    submitted    JSONB NOT NULL,
    engine       JSONB NOT NULL,
    line_id      TEXT,
    line_value   INTEGER,
    winner       BIGINT REFERENCES players (id),
    discarder    BIGINT REFERENCES players (id),
    won_by       TEXT,
    jokerless    BOOLEAN NOT NULL DEFAULT false,
    status       TEXT NOT NULL DEFAULT 'recorded' CHECK (status IN ('recorded', 'voided')),
    version      INTEGER NOT NULL DEFAULT 1,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);
-- One recorded game per number and table; redeals and voided games do not hold the number.
CREATE UNIQUE INDEX games_table_number ON games (table_id, number) WHERE status = 'recorded' AND outcome <> 'redeal';
CREATE INDEX games_table ON games (table_id);

CREATE TABLE game_scores (
    game_id   BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    player_id BIGINT NOT NULL REFERENCES players (id),
    seat      TEXT NOT NULL CHECK (seat IN ('E', 'S', 'W', 'N')),
    score     BIGINT NOT NULL,
    breakdown TEXT NOT NULL,
    dead      BOOLEAN NOT NULL DEFAULT false,
    PRIMARY KEY (game_id, player_id)
);
CREATE INDEX game_scores_player ON game_scores (player_id);

CREATE TABLE idempotency_keys (
    club_id       BIGINT NOT NULL REFERENCES clubs (id) ON DELETE CASCADE,
    key           TEXT NOT NULL,
    request_hash  TEXT NOT NULL,
    response_code INTEGER,
    response_body JSONB,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (club_id, key)
);

CREATE TABLE game_audit (
    id      BIGSERIAL PRIMARY KEY,
    game_id BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    actor   TEXT NOT NULL,
    action  TEXT NOT NULL CHECK (action IN ('recorded', 'amended', 'voided')),
    before  JSONB,
    after   JSONB
);
CREATE INDEX game_audit_game ON game_audit (game_id);
