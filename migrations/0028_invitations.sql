-- Invitations (issue 38): an organizer adds a member by any email, and every such add is an
-- invitation mailed with a link valid 14 days (only the token's keyed hash is kept). One pending
-- invitation per club and address: inviting again renews it with a new link.
CREATE TABLE invitations (
    id          BIGSERIAL PRIMARY KEY,
    club_id     BIGINT NOT NULL REFERENCES clubs (id) ON DELETE CASCADE,
    email       TEXT NOT NULL CHECK (position('@' IN email) > 1),
    role        TEXT NOT NULL CHECK (role IN ('owner', 'organizer', 'scorer', 'member')),
    token_hash  TEXT NOT NULL UNIQUE,
    invited_by  BIGINT REFERENCES users (id) ON DELETE SET NULL,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    expires_at  TIMESTAMPTZ NOT NULL,
    accepted_at TIMESTAMPTZ,
    accepted_by BIGINT REFERENCES users (id) ON DELETE SET NULL,
    revoked_at  TIMESTAMPTZ
);
CREATE UNIQUE INDEX invitations_open ON invitations (club_id, lower(email))
    WHERE accepted_at IS NULL AND revoked_at IS NULL;
