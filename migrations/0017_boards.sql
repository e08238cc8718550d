-- Boards as American leagues keep them: each night's best N game scores (`best_per_night`), and
-- on any board a player's K lowest nights dropped. New columns with defaults and a wider check,
-- so the previous version keeps running during an upgrade.
ALTER TABLE leagues DROP CONSTRAINT leagues_board_check;
ALTER TABLE leagues ADD CONSTRAINT leagues_board_check
    CHECK (board IN ('total', 'average', 'best_per_night'));
ALTER TABLE leagues ADD COLUMN best_per_night INT NOT NULL DEFAULT 2
    CHECK (best_per_night BETWEEN 1 AND 20);
ALTER TABLE leagues ADD COLUMN drop_worst_nights INT NOT NULL DEFAULT 0
    CHECK (drop_worst_nights BETWEEN 0 AND 20);
