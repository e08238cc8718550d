-- A member's account linked to a club's player ("this is me", confirmed by an organizer).
ALTER TABLE players
    ADD COLUMN user_id    BIGINT REFERENCES users (id) ON DELETE SET NULL,
    ADD COLUMN claimed_by BIGINT REFERENCES users (id) ON DELETE SET NULL;
CREATE UNIQUE INDEX players_club_user ON players (club_id, user_id) WHERE user_id IS NOT NULL;
