-- Issue 62: budgets that hold against loops. Mail is counted where it lands (by the address it
-- reaches, whatever was withdrawn in between), what a member's actions mail to others is
-- counted against that member, an email undo undoes, and claims cannot be squatted.

-- Each message someone asked the service to send to an address that is not their own (an
-- invitation, an email change's link or notice): kept by a keyed digest of the address, not the
-- address, with the club it came from and who asked. Rows stay when an invitation is withdrawn:
-- the mail went out.
CREATE TABLE address_mail (
    id       BIGSERIAL PRIMARY KEY,
    digest   TEXT NOT NULL,
    kind     TEXT NOT NULL,
    club_id  BIGINT REFERENCES clubs (id) ON DELETE SET NULL,
    asked_by BIGINT REFERENCES users (id) ON DELETE SET NULL,
    at       TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX address_mail_digest_at ON address_mail (digest, at);

-- Addresses that asked, with one click from such a mail, never to be mailed at anyone else's
-- asking again (every club, every account). Signing up with the address lifts it.
CREATE TABLE address_optouts (
    digest TEXT PRIMARY KEY,
    at     TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- The account whose action made a message that reaches someone else (a proposal, a dispute, a
-- claim, an emergency leave): a member's own daily budget, and at most half a club's day.
ALTER TABLE mail_outbox ADD COLUMN caused_by BIGINT;
CREATE INDEX mail_outbox_caused ON mail_outbox (caused_by, created_at) WHERE caused_by IS NOT NULL;
CREATE INDEX mail_outbox_club_at ON mail_outbox (club_id, created_at);

-- Claims: when each was made and whether its organizers were mailed yet (they get claims in one
-- mail a day), and when a club's organizers were last mailed claims.
ALTER TABLE players ADD COLUMN claimed_at TIMESTAMPTZ;
ALTER TABLE players ADD COLUMN claim_mailed_at TIMESTAMPTZ;
UPDATE players SET claimed_at = now(), claim_mailed_at = now() WHERE claimed_by IS NOT NULL;
ALTER TABLE clubs ADD COLUMN claims_mailed_at TIMESTAMPTZ;

-- An email undo brings the account back to how it was before the change was asked: what the
-- account made since then is undone with it (webhooks now say who made them).
ALTER TABLE email_undos ADD COLUMN asked_at TIMESTAMPTZ;
UPDATE email_undos SET asked_at = created_at;
ALTER TABLE email_undos ALTER COLUMN asked_at SET NOT NULL;
ALTER TABLE webhooks ADD COLUMN created_by BIGINT REFERENCES users (id) ON DELETE SET NULL;

-- Wrong passwords and table-code guesses are counted across a crash of PostgreSQL: a locked
-- account stays locked (rate allowances stay unlogged: they refill within minutes anyway).
ALTER TABLE failure_counts SET LOGGED;
