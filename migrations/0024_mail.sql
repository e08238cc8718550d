-- Club mail (issue 38). Every message goes through this outbox: written in the transaction of
-- what it is about, sent by a worker (any instance; a lease keeps two from sending one message),
-- retried with backoff while the SMTP server is away, and kept: an organizer sees what failed.
CREATE TABLE mail_outbox (
    id             BIGSERIAL PRIMARY KEY,
    -- What the message is (password_reset, invitation, ...), and the club it is sent for.
    kind           TEXT NOT NULL,
    club_id        BIGINT REFERENCES clubs (id) ON DELETE CASCADE,
    to_address     TEXT NOT NULL CHECK (position('@' IN to_address) > 1),
    to_name        TEXT,
    subject        TEXT NOT NULL,
    text_body      TEXT NOT NULL,
    html_body      TEXT NOT NULL,
    -- For a message sent to many: the one-click unsubscribe URL (RFC 8058).
    unsubscribe    TEXT,
    status         TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
    attempts       INTEGER NOT NULL DEFAULT 0,
    retry_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    leased_until   TIMESTAMPTZ,
    lease_token    UUID,
    last_error     TEXT,
    sent_at        TIMESTAMPTZ,
    created_at     TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX mail_outbox_due ON mail_outbox (retry_at) WHERE status = 'pending';
CREATE INDEX mail_outbox_club ON mail_outbox (club_id, id DESC);

-- Password resets: a single-use link valid for an hour; only the token's keyed hash is kept.
CREATE TABLE password_resets (
    token_hash TEXT PRIMARY KEY,
    user_id    BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    expires_at TIMESTAMPTZ NOT NULL,
    used_at    TIMESTAMPTZ,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX password_resets_user ON password_resets (user_id);
