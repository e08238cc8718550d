//! Change notices (`ml_changes`, sent by the triggers of migration 0014): what other writers
//! changed, heard on a connection of its own.

use std::time::Duration;

use sqlx::PgPool;
use sqlx::postgres::{PgListener, PgPoolOptions};

/// The channel the triggers notify on.
const CHANNEL: &str = "ml_changes";

/// One change notice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notice<'a> {
    /// The league's standings revision moved to this one, and nothing else of the league changed,
    /// by a connection of the pool with this application name.
    Revision {
        league: i64,
        revision: i64,
        origin: &'a str,
    },
    /// Something else of the league changed (its settings, its standings state), or it is gone.
    League(i64),
    /// An API token was revoked or deleted.
    Token,
}

impl<'a> Notice<'a> {
    /// Reads a notice's payload; `None` for one this version does not know.
    pub fn parse(payload: &'a str) -> Option<Notice<'a>> {
        if let Some(rest) = payload.strip_prefix("revision ") {
            let mut words = rest.splitn(3, ' ');
            return Some(Notice::Revision {
                league: words.next()?.parse().ok()?,
                revision: words.next()?.parse().ok()?,
                origin: words.next()?,
            });
        }
        let mut words = payload.split(' ');
        let notice = match words.next()? {
            "league" => Notice::League(words.next()?.parse().ok()?),
            "token" => Notice::Token,
            _ => return None,
        };
        words.next().is_none().then_some(notice)
    }
}

/// The application name of `pool`'s connections: the origin its writes' notices name.
pub fn origin(pool: &PgPool) -> Option<String> {
    pool.connect_options()
        .get_application_name()
        .map(str::to_string)
}

/// A listener on the notices, on a connection of its own (not one of `pool`'s: it is held for
/// as long as the process runs). Its first `try_recv` after the connection is lost answers
/// `Ok(None)` or an error: notices may have been missed.
pub async fn listen(pool: &PgPool) -> sqlx::Result<PgListener> {
    let own = PgPoolOptions::new()
        .max_connections(1)
        .acquire_timeout(Duration::from_secs(5))
        .connect_lazy_with(pool.connect_options().as_ref().clone());
    let mut listener = PgListener::connect_with(&own).await?;
    listener.listen(CHANNEL).await?;
    Ok(listener)
}

#[cfg(test)]
mod tests {
    use super::Notice;

    #[test]
    fn notices_are_read_exactly() {
        assert_eq!(
            Notice::parse("revision 7 12 mahjong-league 00ff"),
            Some(Notice::Revision {
                league: 7,
                revision: 12,
                origin: "mahjong-league 00ff"
            })
        );
        assert_eq!(Notice::parse("revision 7 12"), None);
        assert_eq!(Notice::parse("league 7"), Some(Notice::League(7)));
        assert_eq!(Notice::parse("token"), Some(Notice::Token));
        assert_eq!(Notice::parse("revision 7"), None);
        assert_eq!(Notice::parse("league 7 8"), None);
        assert_eq!(Notice::parse("league x"), None);
        assert_eq!(Notice::parse("other"), None);
    }
}
