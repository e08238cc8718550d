-- A password reset asked for is written down at once, whatever the address (so every request
-- costs the same and a database outage is a 503, not a mail silently lost); the mail worker then
-- looks up the account and writes the link's mail, or nothing for an address without one.
CREATE TABLE reset_requests (
    id         BIGSERIAL PRIMARY KEY,
    email      TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    done_at    TIMESTAMPTZ
);
CREATE INDEX reset_requests_pending ON reset_requests (id) WHERE done_at IS NULL;
