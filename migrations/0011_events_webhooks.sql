-- What a league's screens and apps follow: every recorded, amended and voided game, every closed
-- night and every change to the standings. An event is written in the transaction of the change
-- and under the league's row lock, so one league's events commit in the order of their ids: a
-- reader that has seen id n of a league has seen every earlier one of that league.
CREATE TABLE league_events (
    id         BIGSERIAL PRIMARY KEY,
    league_id  BIGINT NOT NULL REFERENCES leagues (id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK (kind IN ('game.recorded', 'game.amended', 'game.voided',
                                             'night.closed', 'standings.changed')),
    data       JSONB NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX league_events_league ON league_events (league_id, id);

-- A club's webhooks: every event of the club's leagues is POSTed to the URL, signed with the
-- secret (HMAC-SHA256). A URL that has failed for a day is paused until an organizer resumes it.
CREATE TABLE webhooks (
    id            BIGSERIAL PRIMARY KEY,
    club_id       BIGINT NOT NULL REFERENCES clubs (id) ON DELETE CASCADE,
    url           TEXT NOT NULL,
    -- The signing key must be read back to sign, so it is kept as is (like the URL, it is shown
    -- only to the club's organizers).
    secret        TEXT NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    -- Consecutive failed attempts, when the failures began, and when to try next.
    failures      INTEGER NOT NULL DEFAULT 0,
    failing_since TIMESTAMPTZ,
    retry_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    paused_at     TIMESTAMPTZ,
    UNIQUE (club_id, url)
);

-- The outbox: one row per event and webhook, written with the event. A worker leases due rows
-- (several processes may run workers), POSTs them and records the outcome.
CREATE TABLE webhook_deliveries (
    id              BIGSERIAL PRIMARY KEY,
    webhook_id      BIGINT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event_id        BIGINT NOT NULL REFERENCES league_events (id) ON DELETE CASCADE,
    status          TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    leased_until    TIMESTAMPTZ,
    last_attempt_at TIMESTAMPTZ,
    -- The receiver's HTTP status, or why there was none (timeout, refused, ...).
    last_status     INTEGER,
    last_error      TEXT,
    delivered_at    TIMESTAMPTZ,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (webhook_id, event_id)
);
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (webhook_id, id) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (webhook_id, id DESC);
