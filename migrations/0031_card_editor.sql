-- The card editor: cards typed on a page are kept as drafts until published, and a card changed
-- after publishing becomes a new version of itself (the leagues playing the old one keep it).

-- A card's family is the id of its first version (NULL on a first version itself).
ALTER TABLE cards
    ADD COLUMN family  BIGINT REFERENCES cards (id),
    ADD COLUMN version INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1);
CREATE UNIQUE INDEX cards_family_version ON cards ((coalesce(family, id)), version);

CREATE TABLE card_drafts (
    id         BIGSERIAL PRIMARY KEY,
    club_id    BIGINT NOT NULL REFERENCES clubs (id) ON DELETE CASCADE,
    -- The card's name, year and publisher as typed.
    head       JSONB NOT NULL,
    -- The hand lines as typed, mistakes included.
    lines      JSONB NOT NULL,
    public     BOOLEAN NOT NULL DEFAULT false,
    -- Publishing makes a new version of this card; NULL makes a new card.
    replaces   BIGINT REFERENCES cards (id) ON DELETE SET NULL,
    -- Counts saves: a save names the revision it changed, so two devices never overwrite each other.
    revision   INTEGER NOT NULL DEFAULT 1,
    created_by BIGINT REFERENCES users (id) ON DELETE SET NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX card_drafts_club ON card_drafts (club_id);
