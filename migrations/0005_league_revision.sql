-- Bumped by every change that can move a league's standings; caches key on it.
ALTER TABLE leagues ADD COLUMN revision BIGINT NOT NULL DEFAULT 0;
