-- Open play: once a match's games are in and nothing has been entered or corrected there for a
-- while, each player whose word they wait for is mailed, with a signed link to confirm or
-- dispute them without logging in. `asked_through` is the newest change to a waiting game the
-- last such mail covered, so a batch is asked about once and a correction asks again.
ALTER TABLE matches ADD COLUMN asked_through TIMESTAMPTZ;
-- An organizer calls a match off, saying why (its players are mailed the reason).
ALTER TABLE matches ADD COLUMN cancel_reason TEXT CHECK (char_length(cancel_reason) <= 500);
