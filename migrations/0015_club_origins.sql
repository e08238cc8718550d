-- The websites (origins such as https://tuesdaytiles.example) from which a club's API tokens may
-- be used in a browser (CORS). Public reads need no token and answer any origin; a token sent
-- from a page of any other origin is refused.
ALTER TABLE clubs ADD COLUMN allowed_origins TEXT[] NOT NULL DEFAULT '{}';
CREATE INDEX clubs_allowed_origins ON clubs USING gin (allowed_origins);
