-- A round's timer, set by its officials and shown on the projector views. Stopped: neither
-- ends_at nor left_secs. Running: ends_at. Paused: left_secs (what was left at the pause).
ALTER TABLE nights ADD COLUMN timer_minutes INTEGER CHECK (timer_minutes BETWEEN 1 AND 600);
ALTER TABLE nights ADD COLUMN timer_ends_at TIMESTAMPTZ;
ALTER TABLE nights ADD COLUMN timer_left_secs INTEGER CHECK (timer_left_secs >= 0);
