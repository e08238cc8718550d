-- Sign-up by mail (issue 38): a sign-up is written down at once, whatever the address (the same
-- work and the same answer for every address); the mail worker then mails a link to finish it
-- (24 hours, once) to an address without an account, or tells an address with one that it has an
-- account. The account is made when the link's page is confirmed. Password hashes only; a taken
-- request is deleted, and so is a used or day-old link.
CREATE TABLE signup_requests (
    id            BIGSERIAL PRIMARY KEY,
    email         TEXT NOT NULL,
    display_name  TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE signups (
    token_hash    TEXT PRIMARY KEY,
    email         TEXT NOT NULL,
    display_name  TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    expires_at    TIMESTAMPTZ NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX signups_expires ON signups (expires_at);
