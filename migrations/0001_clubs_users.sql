-- First schema: clubs (the tenants) and users (logins). Later migrations add the rest.
CREATE TABLE clubs (
    id         BIGSERIAL PRIMARY KEY,
    slug       TEXT NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9][a-z0-9-]{1,62}$'),
    name       TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    time_zone  TEXT NOT NULL DEFAULT 'UTC',
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE users (
    id            BIGSERIAL PRIMARY KEY,
    email         TEXT NOT NULL CHECK (position('@' IN email) > 1),
    display_name  TEXT NOT NULL CHECK (length(display_name) BETWEEN 1 AND 200),
    password_hash TEXT NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX users_email_key ON users (lower(email));
