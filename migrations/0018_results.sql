-- Results for a ranking body: an event's place and sanctioning number (league settings) and each
-- player's id at the ranking body. All optional, added with no default work for old rows.
ALTER TABLE leagues ADD COLUMN place TEXT CHECK (char_length(place) BETWEEN 1 AND 200);
ALTER TABLE leagues ADD COLUMN sanctioning_number TEXT
    CHECK (char_length(sanctioning_number) BETWEEN 1 AND 100);
ALTER TABLE players ADD COLUMN ranking_id TEXT CHECK (char_length(ranking_id) BETWEEN 1 AND 100);
