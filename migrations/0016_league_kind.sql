-- A league is a weekly league (its sessions are nights) or a tournament (its sessions are rounds):
-- the pages and messages call a session by the word the league uses. Added with a default, so
-- the previous version keeps running during an upgrade.
ALTER TABLE leagues ADD COLUMN kind text NOT NULL DEFAULT 'league'
    CHECK (kind IN ('league', 'tournament'));
