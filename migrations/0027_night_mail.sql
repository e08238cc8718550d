-- After the night (issue 38): closing a night asks, in the same transaction, for each player who
-- played it and has an account to get their night and the standings by mail; the mail worker
-- writes those messages. A player stops them for a league with one tap (RFC 8058).
CREATE TABLE night_mail (
    night_id  BIGINT PRIMARY KEY REFERENCES nights (id) ON DELETE CASCADE,
    asked_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    done_at   TIMESTAMPTZ
);
CREATE INDEX night_mail_pending ON night_mail (asked_at) WHERE done_at IS NULL;

CREATE TABLE mail_unsubscribes (
    user_id    BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    league_id  BIGINT NOT NULL REFERENCES leagues (id) ON DELETE CASCADE,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, league_id)
);
