-- Every process of the service listens on `ml_changes` (LISTEN/NOTIFY) and answers standings
-- reads from memory while it hears every change. The notices come from triggers, so no write can
-- forget one, whoever makes it (another process, a script, psql):
--   `revision <league> <revision> <origin>`  a league's standings revision moved and nothing else
--                                   changed, written by a connection with application name
--                                   <origin> (a process hears its own writes at once);
--   `league <league>`               anything else of a league changed, or it was deleted;
--   `token`                         an API token was revoked or deleted.
-- A process that hears `league` or `token`, or loses its listening connection, checks everything
-- it holds against the database again.
CREATE FUNCTION notice_league_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    before leagues;
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('ml_changes', 'league ' || OLD.id);
        RETURN NULL;
    END IF;
    -- The old row with the new revision: equal to the new row when only the revision moved.
    before := OLD;
    before.revision := NEW.revision;
    IF before IS NOT DISTINCT FROM NEW THEN
        IF NEW.revision <> OLD.revision THEN
            PERFORM pg_notify('ml_changes', 'revision ' || NEW.id || ' ' || NEW.revision || ' '
                || coalesce(nullif(current_setting('application_name', true), ''), '-'));
        END IF;
    ELSE
        PERFORM pg_notify('ml_changes', 'league ' || NEW.id);
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER leagues_notice AFTER UPDATE OR DELETE ON leagues
    FOR EACH ROW EXECUTE FUNCTION notice_league_change();

CREATE FUNCTION notice_token_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    before api_tokens;
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('ml_changes', 'token');
        RETURN NULL;
    END IF;
    -- Using a token only stamps `last_used_at`: not a change anyone holding it must hear of.
    before := OLD;
    before.last_used_at := NEW.last_used_at;
    IF before IS DISTINCT FROM NEW THEN
        PERFORM pg_notify('ml_changes', 'token');
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER api_tokens_notice AFTER UPDATE OR DELETE ON api_tokens
    FOR EACH ROW EXECUTE FUNCTION notice_token_change();
