-- Nights ahead (issue 38): an organizer schedules a league's nights (date, local time, place,
-- tables); members reply coming / not coming / maybe; the first tables × 4 who say coming have a
-- seat, the rest wait in the order they said it; a reminder goes out `remind_hours` before; check-in
-- starts from the replies, which makes the league's night (`night_id`).
CREATE TABLE scheduled_nights (
    id            BIGSERIAL PRIMARY KEY,
    league_id     BIGINT NOT NULL REFERENCES leagues (id) ON DELETE CASCADE,
    night_date    DATE NOT NULL,
    local_time    TIME NOT NULL,
    -- The same moment in UTC, from the club's time zone when it was scheduled.
    starts_at     TIMESTAMPTZ NOT NULL,
    place         TEXT NOT NULL CHECK (char_length(place) BETWEEN 1 AND 200),
    tables        INTEGER NOT NULL CHECK (tables BETWEEN 1 AND 100),
    remind_hours  INTEGER NOT NULL CHECK (remind_hours BETWEEN 0 AND 168),
    created_by    BIGINT REFERENCES users (id) ON DELETE SET NULL,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    reminded_at   TIMESTAMPTZ,
    night_id      BIGINT UNIQUE REFERENCES nights (id) ON DELETE SET NULL,
    cancelled_at  TIMESTAMPTZ
);
CREATE INDEX scheduled_nights_league ON scheduled_nights (league_id, starts_at);
CREATE INDEX scheduled_nights_remind ON scheduled_nights (starts_at)
    WHERE reminded_at IS NULL AND night_id IS NULL AND cancelled_at IS NULL;

CREATE TABLE night_replies (
    scheduled_id  BIGINT NOT NULL REFERENCES scheduled_nights (id) ON DELETE CASCADE,
    user_id       BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    answer        TEXT NOT NULL CHECK (answer IN ('coming', 'not_coming', 'maybe')),
    -- When they last said coming (the waiting list's order); NULL for any other answer.
    coming_since  TIMESTAMPTZ,
    replied_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (scheduled_id, user_id)
);
