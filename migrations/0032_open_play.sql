-- Open play (issue 40): a third kind of league whose members arrange their own matches (a table
-- of four, any day of the week); any of the four enters the games, which wait for the others to
-- confirm before they count; a board of each player's best N match scores per calendar week.
-- New columns with defaults and wider checks, so the previous version keeps running during an
-- upgrade.
ALTER TABLE leagues DROP CONSTRAINT IF EXISTS leagues_kind_check;
ALTER TABLE leagues ADD CONSTRAINT leagues_kind_check CHECK (kind IN ('league', 'tournament', 'open'));
ALTER TABLE leagues DROP CONSTRAINT leagues_board_check;
ALTER TABLE leagues ADD CONSTRAINT leagues_board_check
    CHECK (board IN ('total', 'average', 'best_per_night', 'best_per_week'));
ALTER TABLE leagues ADD COLUMN best_per_week INT NOT NULL DEFAULT 2 CHECK (best_per_week BETWEEN 1 AND 20);
-- How long an open-play game waits for the other players before it counts unconfirmed.
ALTER TABLE leagues ADD COLUMN confirm_hours INT NOT NULL DEFAULT 48 CHECK (confirm_hours BETWEEN 1 AND 336);
-- At most this many counted matches a week with the same three opponents (NULL: no limit).
ALTER TABLE leagues ADD COLUMN same_table_per_week INT CHECK (same_table_per_week BETWEEN 1 AND 20);

-- A game of an open-play league waits (`awaiting`) until the other players confirm it or its time
-- runs out; a waiting game is stored and shown but not counted. `disputed_at` is set while a
-- player's dispute waits for an organizer.
ALTER TABLE games ADD COLUMN awaiting BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE games ADD COLUMN disputed_at TIMESTAMPTZ;
CREATE INDEX games_awaiting ON games (updated_at) WHERE awaiting;

-- Each player's word on a waiting game: confirmed, or disputed with a reason. The player who
-- entered it has confirmed it.
CREATE TABLE game_checks (
    game_id   BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    player_id BIGINT NOT NULL REFERENCES players (id),
    answer    TEXT NOT NULL CHECK (answer IN ('confirmed', 'disputed')),
    reason    TEXT CHECK (char_length(reason) <= 500),
    by_user   BIGINT REFERENCES users (id) ON DELETE SET NULL,
    at        TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, player_id)
);

-- A match: a table of four that members arrange themselves. Open (anyone in the league joins
-- until four have) or named (the proposer and three named players). It locks when the fourth
-- joins, which makes a night of one table (`night_id`) where the games are entered.
CREATE TABLE matches (
    id          BIGSERIAL PRIMARY KEY,
    league_id   BIGINT NOT NULL REFERENCES leagues (id) ON DELETE CASCADE,
    match_date  DATE NOT NULL,
    local_time  TIME NOT NULL,
    starts_at   TIMESTAMPTZ NOT NULL,
    place       TEXT NOT NULL CHECK (char_length(place) BETWEEN 1 AND 200),
    note        TEXT CHECK (char_length(note) <= 500),
    open        BOOLEAN NOT NULL,
    status      TEXT NOT NULL DEFAULT 'forming' CHECK (status IN ('forming', 'locked', 'cancelled')),
    created_by  BIGINT REFERENCES users (id) ON DELETE SET NULL,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    locked_at   TIMESTAMPTZ,
    night_id    BIGINT UNIQUE REFERENCES nights (id) ON DELETE SET NULL
);
CREATE INDEX matches_league ON matches (league_id, starts_at);

-- Who is in a match, in the order they joined (the first is East at the first game). A named
-- match's players are in it from the start.
CREATE TABLE match_players (
    match_id  BIGINT NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    player_id BIGINT NOT NULL REFERENCES players (id),
    joined_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (match_id, player_id)
);

ALTER TABLE league_events DROP CONSTRAINT IF EXISTS league_events_kind_check;
ALTER TABLE league_events ADD CONSTRAINT league_events_kind_check
    CHECK (kind IN ('game.recorded', 'game.amended', 'game.voided',
                    'night.closed', 'night.reopened', 'standings.changed',
                    'match.opened', 'match.locked', 'match.changed',
                    'game.confirmed', 'game.disputed')) NOT VALID;
