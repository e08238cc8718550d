-- Who left a club, or was taken out of it, and when (issue 63): a removed member who opens the
-- club is told so in words, logged in, instead of a page that reads as if the club were gone.
-- One row a person and club, the latest departure; a member who comes back keeps it until she
-- leaves again (her membership, not this row, decides what she sees).
CREATE TABLE club_departures (
    club_id   BIGINT NOT NULL REFERENCES clubs(id) ON DELETE CASCADE,
    user_id   BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    left_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    -- The member who took her out; NULL when she left herself.
    removed_by BIGINT REFERENCES users(id) ON DELETE SET NULL,
    PRIMARY KEY (club_id, user_id)
);
