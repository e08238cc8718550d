-- One roster and the club's clock (issue 53).
--
-- An invitation sent from a player's row names that player: whoever joins with it is that player.
ALTER TABLE invitations ADD COLUMN player_id BIGINT REFERENCES players (id) ON DELETE SET NULL;

-- Every member is on the club's player list, linked to their account. Members who joined before
-- (role `member`, no player linked to them or claimed by them) get one now: where an unlinked
-- player of the club has their name, they are taken to say they are that player (an organizer
-- confirms, as for any claim); otherwise a player is made under their name and linked. The
-- service fills the new players' name keys when it starts (`players::ensure_keys`).
UPDATE players p SET claimed_by = m.user_id
FROM memberships m JOIN users u ON u.id = m.user_id
WHERE m.role = 'member' AND p.club_id = m.club_id
  AND lower(p.name) = lower(left(trim(u.display_name), 100))
  AND p.user_id IS NULL AND p.claimed_by IS NULL
  AND NOT EXISTS (SELECT 1 FROM players o
                  WHERE o.club_id = m.club_id AND (o.user_id = m.user_id OR o.claimed_by = m.user_id));

INSERT INTO players (club_id, name, user_id)
SELECT m.club_id,
       CASE WHEN EXISTS (SELECT 1 FROM players s
                         WHERE s.club_id = m.club_id AND lower(s.name) = lower(left(trim(u.display_name), 100)))
            THEN left(trim(u.display_name), 90) || ' (' || m.user_id || ')'
            ELSE left(trim(u.display_name), 100) END,
       m.user_id
FROM memberships m JOIN users u ON u.id = m.user_id
WHERE m.role = 'member'
  AND NOT EXISTS (SELECT 1 FROM players o
                  WHERE o.club_id = m.club_id AND (o.user_id = m.user_id OR o.claimed_by = m.user_id))
ORDER BY m.club_id, m.user_id;

-- The club's clock is an IANA name. A name in another case is spelled as the database spells
-- it; the words people use for the United States' zones (the same list as `domain::clock`)
-- become the zone they mean. Anything else cannot be read with certainty: the club keeps UTC,
-- as its times were already shown, and `time_zone_was` keeps what was stored so the club's
-- organizers are asked to pick the zone.
ALTER TABLE clubs ADD COLUMN time_zone_was TEXT;

UPDATE clubs c SET time_zone = z.name
FROM pg_timezone_names z
WHERE lower(c.time_zone) = lower(z.name) AND c.time_zone <> z.name
  AND z.name ~ '^(Africa|America|Antarctica|Asia|Atlantic|Australia|Europe|Indian|Pacific)/';

WITH spoken (word, zone) AS (VALUES
    ('eastern', 'America/New_York'), ('et', 'America/New_York'), ('est', 'America/New_York'),
    ('edt', 'America/New_York'), ('est5edt', 'America/New_York'),
    ('central', 'America/Chicago'), ('ct', 'America/Chicago'), ('cst', 'America/Chicago'),
    ('cdt', 'America/Chicago'), ('cst6cdt', 'America/Chicago'),
    ('mountain', 'America/Denver'), ('mt', 'America/Denver'), ('mst', 'America/Denver'),
    ('mdt', 'America/Denver'), ('mst7mdt', 'America/Denver'),
    ('arizona', 'America/Phoenix'),
    ('pacific', 'America/Los_Angeles'), ('pt', 'America/Los_Angeles'), ('pst', 'America/Los_Angeles'),
    ('pdt', 'America/Los_Angeles'), ('pst8pdt', 'America/Los_Angeles'),
    ('alaska', 'America/Anchorage'), ('akst', 'America/Anchorage'), ('akdt', 'America/Anchorage'),
    ('hawaii', 'Pacific/Honolulu'), ('hst', 'Pacific/Honolulu'),
    ('gmt', 'UTC'), ('z', 'UTC'), ('zulu', 'UTC'), ('utc', 'UTC'), ('universal', 'UTC'))
UPDATE clubs c SET time_zone = s.zone
FROM spoken s
WHERE trim(replace(replace(replace(replace(replace(replace(lower(c.time_zone),
        '.', ''), ',', ''), ' standard time', ''), ' daylight time', ''), ' time', ''), 'us/', '')) = s.word;

UPDATE clubs SET time_zone_was = time_zone, time_zone = 'UTC'
WHERE time_zone <> 'UTC'
  AND NOT (time_zone ~ '^(Africa|America|Antarctica|Asia|Atlantic|Australia|Europe|Indian|Pacific)/'
           AND time_zone IN (SELECT name FROM pg_timezone_names));
