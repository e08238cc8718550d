-- Limits every instance sees (issue 54): what a stranger may make the service do is counted
-- here, not in each process's memory, so N instances on one database keep one limit, not N.
-- The tables are UNLOGGED: a limit is protection, not data; they cost no WAL, and after a
-- crash or a failover they start empty (every caller starts with a full allowance).

-- Rate limits as a generic cell rate algorithm: a key's `tat` (theoretical arrival time) is
-- when its allowance is whole again; a request costs `step`, and is let through while
-- `tat` stays within `burst` steps of now.
CREATE UNLOGGED TABLE rate_limits (
    key TEXT PRIMARY KEY,
    tat TIMESTAMPTZ NOT NULL
);

-- Takes up to `want` requests' worth of `key`'s allowance (`burst` at once, one more every
-- `step_us` microseconds): how many were granted, how many remain after them, and, when fewer
-- than wanted were granted, the microseconds until the next one is.
CREATE FUNCTION take_allowance(k TEXT, step_us BIGINT, burst INT, want INT,
                               OUT granted INT, OUT remaining INT, OUT wait_us BIGINT)
LANGUAGE plpgsql AS $$
DECLARE
    t TIMESTAMPTZ := clock_timestamp();
    step INTERVAL := make_interval(secs => step_us / 1e6);
    cur TIMESTAMPTZ;
    avail BIGINT;
BEGIN
    -- The row exists (and is locked) before it is read, so two first requests of one key
    -- cannot both find it empty.
    INSERT INTO rate_limits (key, tat) VALUES (k, t) ON CONFLICT (key) DO NOTHING;
    SELECT r.tat INTO cur FROM rate_limits r WHERE r.key = k FOR NO KEY UPDATE;
    cur := greatest(coalesce(cur, t), t);
    avail := floor(extract(epoch FROM (t + burst * step - cur)) * 1e6 / step_us);
    granted := greatest(0, least(want, avail));
    remaining := greatest(0, avail - granted);
    cur := cur + granted * step;
    wait_us := CASE WHEN granted < want
        THEN greatest(0, ceil(extract(epoch FROM (cur + step - (t + burst * step))) * 1e6))::BIGINT
        ELSE 0 END;
    INSERT INTO rate_limits (key, tat) VALUES (k, cur)
        ON CONFLICT (key) DO UPDATE SET tat = excluded.tat;
END
$$;

-- Failures counted in a fixed window (wrong passwords, wrong table codes): `n` since `since`.
CREATE UNLOGGED TABLE failure_counts (
    key TEXT PRIMARY KEY,
    n INT NOT NULL,
    since TIMESTAMPTZ NOT NULL
);

-- The processes serving this database, each seen lately (every few seconds), and the event
-- streams each holds open per client address: a stream cap counts every live process's.
CREATE UNLOGGED TABLE instances (
    id UUID PRIMARY KEY,
    seen_at TIMESTAMPTZ NOT NULL
);

CREATE UNLOGGED TABLE stream_holds (
    instance UUID NOT NULL,
    key TEXT NOT NULL,
    n INT NOT NULL CHECK (n >= 0),
    PRIMARY KEY (instance, key)
);
CREATE INDEX stream_holds_key ON stream_holds (key);

-- Takes one of `key`'s `cap` stream slots for `inst`: the streams now held under the key by
-- every process seen in the last `alive_s` seconds (this one included) before the take, and
-- whether it was taken.
CREATE FUNCTION hold_stream(inst UUID, k TEXT, cap INT, alive_s INT,
                            OUT held INT, OUT taken BOOLEAN)
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('stream:' || k, 54));
    SELECT coalesce(sum(h.n), 0) INTO held FROM stream_holds h
     WHERE h.key = k AND (h.instance = inst OR EXISTS (SELECT 1 FROM instances i WHERE i.id = h.instance
                          AND i.seen_at > clock_timestamp() - make_interval(secs => alive_s)));
    taken := held < cap;
    IF taken THEN
        INSERT INTO stream_holds (instance, key, n) VALUES (inst, k, 1)
            ON CONFLICT (instance, key) DO UPDATE SET n = stream_holds.n + 1;
    END IF;
END
$$;
