-- A new game's ratings are worked out before its transaction takes the league's lock, from the
-- ratings its players had when the table was read. Every write of a rating takes a new stamp,
-- so the write under the lock can tell whether anything rated those players in between (and,
-- if something did, rate the game again from what is there now).
CREATE SEQUENCE rating_stamps;
ALTER TABLE league_totals ADD COLUMN rating_stamp BIGINT;
UPDATE league_totals SET rating_stamp = nextval('rating_stamps') WHERE mu IS NOT NULL;

-- The league's standings revision of the write that last changed each row: a service that holds
-- a league's standings in memory reads only the rows changed since the revision it holds.
ALTER TABLE league_totals ADD COLUMN changed_at BIGINT NOT NULL DEFAULT 0;
