-- Table codes shown again (issue 63): an organizer sees the night's working codes while the
-- night is open, and the tent cards print them. A code is not stored: each row keeps a random
-- seed, and the code is the keyed hash of that seed under the service's session key (as the
-- lookup hash is), so whoever reads the database alone has neither the codes nor a way to
-- make them. Rows made before this have no seed and cannot be shown again.
ALTER TABLE table_codes ADD COLUMN seed TEXT;
