-- League nights (or tournament rounds), check-ins, and the night's tables in seat order.

CREATE TABLE nights (
    id         BIGSERIAL PRIMARY KEY,
    league_id  BIGINT NOT NULL REFERENCES leagues (id) ON DELETE CASCADE,
    number     INTEGER NOT NULL CHECK (number > 0),
    night_date DATE NOT NULL,
    status     TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'seated', 'closed')),
    -- The last seating proposal: {"seed": n, "tables": [[player ids in seat order], ...]}.
    proposal   JSONB,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (league_id, number)
);

CREATE TABLE checkins (
    night_id      BIGINT NOT NULL REFERENCES nights (id) ON DELETE CASCADE,
    player_id     BIGINT NOT NULL REFERENCES players (id),
    checked_in_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (night_id, player_id)
);

CREATE TABLE night_tables (
    id       BIGSERIAL PRIMARY KEY,
    night_id BIGINT NOT NULL REFERENCES nights (id) ON DELETE CASCADE,
    number   INTEGER NOT NULL CHECK (number > 0),
    UNIQUE (night_id, number)
);

-- Seat 0 is East at the first game, then South, West, North.
CREATE TABLE table_seats (
    table_id  BIGINT NOT NULL REFERENCES night_tables (id) ON DELETE CASCADE,
    seat      INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
    player_id BIGINT NOT NULL REFERENCES players (id),
    PRIMARY KEY (table_id, seat),
    UNIQUE (table_id, player_id)
);
