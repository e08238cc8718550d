-- Issue 51: consent before a match. A player named in a proposed match is in it only once they
-- accept (`accepted_at`); the match locks when all four have, or at once when an organizer made
-- it. Joining an open match is accepting it. Rows from before were all accepted when they joined.
ALTER TABLE match_players ADD COLUMN accepted_at TIMESTAMPTZ;
UPDATE match_players SET accepted_at = joined_at;
ALTER TABLE match_players ALTER COLUMN accepted_at SET DEFAULT clock_timestamp();
