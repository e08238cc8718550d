-- Your account (issue 38): sessions a person can see and end one by one, and a new email
-- confirmed by a link mailed to it.
ALTER TABLE sessions
    ADD COLUMN id BIGSERIAL UNIQUE,
    ADD COLUMN user_agent TEXT;

CREATE TABLE email_changes (
    token_hash TEXT PRIMARY KEY,
    user_id    BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    new_email  TEXT NOT NULL CHECK (position('@' IN new_email) > 1),
    expires_at TIMESTAMPTZ NOT NULL,
    used_at    TIMESTAMPTZ,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX email_changes_user ON email_changes (user_id);
