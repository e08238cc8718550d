-- Issue 51: what one account can make the service do for it is budgeted here, in PostgreSQL,
-- so every instance of the service counts against one budget; names stay names.

-- Each message an account made the service send to an address outside (not yet the club's
-- member, or not the account's own): invitations, email changes. The account's budget counts the
-- distinct addresses of the last 24 hours.
CREATE TABLE outside_mail (
    id      BIGSERIAL PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    address TEXT NOT NULL,
    kind    TEXT NOT NULL,
    at      TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX outside_mail_user_at ON outside_mail (user_id, at);

-- Who made a club (clubs made a day per account), and a club's own mail budget when an
-- operator raised it (`mahjong-league club mail-budget`; NULL: the service's default).
ALTER TABLE clubs ADD COLUMN created_by BIGINT REFERENCES users (id) ON DELETE SET NULL;
ALTER TABLE clubs ADD COLUMN mail_per_day INT CHECK (mail_per_day BETWEEN 0 AND 10000000);
CREATE INDEX clubs_created_by ON clubs (created_by, created_at);
UPDATE clubs c SET created_by = m.user_id
    FROM (SELECT DISTINCT ON (club_id) club_id, user_id FROM memberships
          WHERE role = 'owner' ORDER BY club_id, user_id) m
    WHERE m.club_id = c.id;

-- An invitation is mailed once; *Send again* mails it again, at most once a day.
ALTER TABLE invitations ADD COLUMN sent_at TIMESTAMPTZ NOT NULL DEFAULT now();

-- Email changes: the address the account had (told once the change is confirmed, with a link
-- that undoes it for 7 days), and a newer request ends every older link.
ALTER TABLE email_changes ADD COLUMN old_email TEXT;
CREATE TABLE email_undos (
    token_hash TEXT PRIMARY KEY,
    user_id    BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    old_email  TEXT NOT NULL,
    new_email  TEXT NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    used_at    TIMESTAMPTZ,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX email_undos_user ON email_undos (user_id);

-- A sign-up's password is chosen on the page of its link, by whoever holds the address: what
-- the requester typed is dropped.
ALTER TABLE signup_requests ALTER COLUMN password_hash DROP NOT NULL;
ALTER TABLE signups ALTER COLUMN password_hash DROP NOT NULL;
UPDATE signup_requests SET password_hash = NULL;
UPDATE signups SET password_hash = NULL;

-- Names stay names: control characters (line breaks and tabs among them) and direction marks
-- (bidi controls) in stored single-line text become a space, runs of spaces one, and each
-- changed row is written down here and in the migration's notices.
CREATE TABLE cleaned_text (
    id         BIGSERIAL PRIMARY KEY,
    table_name TEXT NOT NULL,
    row_id     BIGINT NOT NULL,
    column_name TEXT NOT NULL,
    before     TEXT NOT NULL,
    after      TEXT NOT NULL,
    cleaned_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE FUNCTION pg_temp.clean_line(t TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE AS $$
    SELECT nullif(btrim(regexp_replace(
        regexp_replace(t, '[\u0001-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]', ' ', 'g'),
        ' {2,}', ' ', 'g')), '')
$$;

DO $$
DECLARE
    target RECORD;
    changed RECORD;
BEGIN
    FOR target IN SELECT * FROM (VALUES
        ('users', 'display_name', false), ('clubs', 'name', false), ('leagues', 'name', false),
        ('api_tokens', 'name', false), ('cards', 'name', false), ('scheduled_nights', 'place', false),
        ('matches', 'place', false), ('matches', 'note', true), ('matches', 'cancel_reason', true)
    ) AS t(tbl, col, nullable)
    LOOP
        FOR changed IN EXECUTE format(
            'UPDATE %1$I SET %2$I = coalesce(pg_temp.clean_line(%2$I), CASE WHEN %3$L THEN NULL ELSE ''?'' END) '
            'FROM (SELECT id AS old_id, %2$I AS old_value FROM %1$I '
            '      WHERE %2$I ~ ''[\u0001-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]'' FOR UPDATE) o '
            'WHERE %1$I.id = o.old_id RETURNING id, o.old_value AS before, %2$I AS after',
            target.tbl, target.col, target.nullable)
        LOOP
            INSERT INTO cleaned_text (table_name, row_id, column_name, before, after)
                VALUES (target.tbl, changed.id, target.col, changed.before, coalesce(changed.after, ''));
            RAISE NOTICE 'cleaned %.% of row %: % -> %', target.tbl, target.col, changed.id,
                quote_literal(changed.before), quote_literal(coalesce(changed.after, ''));
        END LOOP;
    END LOOP;
END $$;

-- Words on games (disputes): a reason is one line too.
INSERT INTO cleaned_text (table_name, row_id, column_name, before, after)
    SELECT 'game_checks', game_id, 'reason', reason, coalesce(pg_temp.clean_line(reason), '')
    FROM game_checks
    WHERE reason ~ '[\u0001-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]';
UPDATE game_checks SET reason = pg_temp.clean_line(reason)
    WHERE reason ~ '[\u0001-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]';
