-- One person, one name: a player's name is the same as another's when their keys are equal (the
-- name case-folded and reduced to its Unicode confusable skeleton, computed by the service, never
-- in SQL). The service fills the key of every existing player when it starts (a key shared by two
-- players already stored gets the later one's id appended, so neither is lost) and creates the
-- unique index on (club_id, name_key) then. It replaces the index on lower(name), whose idea of
-- case (the database's collation) differed from the service's.
ALTER TABLE players ADD COLUMN name_key TEXT;
DROP INDEX players_club_name;
CREATE INDEX players_without_key ON players (club_id) WHERE name_key IS NULL;
