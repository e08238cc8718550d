-- Seasons: a league made as the next season of another is linked both ways (each league has at
-- most one next season). Nullable columns, so the previous version keeps running.
ALTER TABLE leagues ADD COLUMN previous_id BIGINT UNIQUE REFERENCES leagues (id) ON DELETE SET NULL;
ALTER TABLE leagues ADD COLUMN next_id BIGINT UNIQUE REFERENCES leagues (id) ON DELETE SET NULL;
