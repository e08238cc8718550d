-- One delivery in flight per webhook, however many instances run workers: a worker holds the
-- webhook itself (its lease, renewed before each attempt) while it delivers that webhook's
-- events one at a time in id order. A lease a dead instance left runs out after 20 s.
ALTER TABLE webhooks
    ADD COLUMN leased_until TIMESTAMPTZ,
    ADD COLUMN lease_token  UUID;
