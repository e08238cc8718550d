-- Table codes: a short code per table of a night lets whoever holds it enter and correct games
-- at that table only, until the night closes or the code is revoked. Only a keyed hash of each
-- code is stored.
CREATE TABLE table_codes (
    id          BIGSERIAL PRIMARY KEY,
    night_id    BIGINT NOT NULL REFERENCES nights(id) ON DELETE CASCADE,
    -- A table re-seated away keeps its codes' rows (as revoked), so a tablet still holding one
    -- is told "not open" rather than counted as guessing.
    table_id    BIGINT REFERENCES night_tables(id) ON DELETE SET NULL,
    code_hash   TEXT NOT NULL UNIQUE,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    revoked_at  TIMESTAMPTZ
);
CREATE INDEX table_codes_night ON table_codes (night_id);
