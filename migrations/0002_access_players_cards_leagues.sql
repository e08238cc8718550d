-- Accounts and access: memberships, sessions, API tokens. Club data: players, cards, leagues.

CREATE TABLE memberships (
    club_id    BIGINT NOT NULL REFERENCES clubs (id) ON DELETE CASCADE,
    user_id    BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role       TEXT NOT NULL CHECK (role IN ('owner', 'organizer', 'scorer', 'member')),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (club_id, user_id)
);
CREATE INDEX memberships_user ON memberships (user_id);

-- Server-side sessions: the cookie holds a random token; only its keyed hash is stored.
CREATE TABLE sessions (
    token_hash TEXT PRIMARY KEY,
    user_id    BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);

CREATE TABLE api_tokens (
    id           BIGSERIAL PRIMARY KEY,
    club_id      BIGINT NOT NULL REFERENCES clubs (id) ON DELETE CASCADE,
    name         TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    token_hash   TEXT NOT NULL UNIQUE,
    scopes       TEXT[] NOT NULL CHECK (scopes <@ ARRAY['read', 'score', 'admin'] AND cardinality(scopes) > 0),
    created_by   BIGINT REFERENCES users (id) ON DELETE SET NULL,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    last_used_at TIMESTAMPTZ,
    revoked_at   TIMESTAMPTZ
);
CREATE INDEX api_tokens_club ON api_tokens (club_id);

CREATE TABLE players (
    id         BIGSERIAL PRIMARY KEY,
    club_id    BIGINT NOT NULL REFERENCES clubs (id) ON DELETE CASCADE,
    name       TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    active     BOOLEAN NOT NULL DEFAULT true,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX players_club_name ON players (club_id, lower(name));

-- Uploaded cards. Built-in cards live in the binary and are referred to by name.
CREATE TABLE cards (
    id         BIGSERIAL PRIMARY KEY,
    club_id    BIGINT NOT NULL REFERENCES clubs (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    year       INTEGER NOT NULL,
    source     TEXT NOT NULL,
    public     BOOLEAN NOT NULL DEFAULT false,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX cards_club ON cards (club_id);

CREATE TABLE leagues (
    id              BIGSERIAL PRIMARY KEY,
    club_id         BIGINT NOT NULL REFERENCES clubs (id) ON DELETE CASCADE,
    name            TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    card_id         BIGINT REFERENCES cards (id),
    builtin_card    TEXT,
    ruleset         JSONB NOT NULL,
    games_per_table INTEGER NOT NULL DEFAULT 4 CHECK (games_per_table BETWEEN 1 AND 32),
    visibility      TEXT NOT NULL DEFAULT 'members' CHECK (visibility IN ('public', 'members')),
    board           TEXT NOT NULL DEFAULT 'total' CHECK (board IN ('total', 'average')),
    min_games       INTEGER NOT NULL DEFAULT 0 CHECK (min_games >= 0),
    starts_on       DATE,
    ends_on         DATE,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    CHECK ((card_id IS NULL) <> (builtin_card IS NULL)),
    CHECK (ends_on IS NULL OR starts_on IS NULL OR ends_on >= starts_on)
);
CREATE INDEX leagues_club ON leagues (club_id);
