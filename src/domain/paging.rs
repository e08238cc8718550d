//! Cursor paging for lists an app walks through: `limit` (1 to 500) and an opaque `cursor` that
//! the previous page's `next` gave. A cursor says where the last page stopped (ids, never an
//! offset), so rows added meanwhile neither repeat nor push others off a page.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::auth::keys::Keys;
use crate::domain::{Error, Result};

/// The most rows one page may ask for.
pub const MAX_LIMIT: i64 = 500;

/// The page size asked for: `default` when not given, else 1 to 500.
pub fn limit(asked: Option<i64>, default: i64) -> Result<i64> {
    match asked {
        None => Ok(default),
        Some(n) if (1..=MAX_LIMIT).contains(&n) => Ok(n),
        Some(n) => Err(Error::invalid(
            "limit",
            format!("{n} is out of range; give 1 to {MAX_LIMIT}"),
        )),
    }
}

/// A cursor of `kind` ("games", "leagues", …) for the list `scope` (which league, which night,
/// which search) holding `at`: where the page stopped. It is signed with the service's key, so
/// an edited cursor or one of another list is refused rather than read.
pub fn encode(keys: &Keys, kind: &str, scope: &str, at: &[i64]) -> String {
    let text = std::iter::once(kind.to_string())
        .chain(at.iter().map(i64::to_string))
        .collect::<Vec<_>>()
        .join(":");
    let sig = keys.sign(&signed_text(&text, scope));
    URL_SAFE_NO_PAD.encode(format!("{text}:{sig}"))
}

/// What a cursor's signature covers: its text and the list it belongs to.
fn signed_text(text: &str, scope: &str) -> String {
    format!("cursor {text} of {scope}")
}

/// The positions a cursor of `kind` for the list `scope` holds (exactly `n` of them); a cursor
/// that is not one this list gave (another list's, edited, truncated) is a 422 naming `cursor`.
pub fn decode(keys: &Keys, kind: &str, scope: &str, cursor: &str, n: usize) -> Result<Vec<i64>> {
    let wrong = || {
        Error::invalid(
            "cursor",
            "this cursor is not one this list gave; start again without a cursor, or send the `next` of the last page",
        )
    };
    if cursor.len() > 200 {
        return Err(wrong());
    }
    let bytes = URL_SAFE_NO_PAD.decode(cursor).map_err(|_| wrong())?;
    let whole = String::from_utf8(bytes).map_err(|_| wrong())?;
    let (text, sig) = whole.rsplit_once(':').ok_or_else(wrong)?;
    if !keys.signed(&signed_text(text, scope), sig) {
        return Err(wrong());
    }
    let mut parts = text.split(':');
    if parts.next() != Some(kind) {
        return Err(wrong());
    }
    let at: Vec<i64> = parts
        .map(|p| p.parse::<i64>().ok().filter(|v| *v >= 0))
        .collect::<Option<_>>()
        .ok_or_else(wrong)?;
    if at.len() != n {
        return Err(wrong());
    }
    Ok(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_refuse_others() {
        let keys = Keys::new("a test key of some length");
        let c = encode(&keys, "games", "league 4", &[12, 7]);
        assert_eq!(
            decode(&keys, "games", "league 4", &c, 2).unwrap(),
            vec![12, 7]
        );
        assert!(
            decode(&keys, "leagues", "league 4", &c, 2).is_err(),
            "another kind"
        );
        assert!(
            decode(&keys, "games", "league 5", &c, 2).is_err(),
            "another league's"
        );
        assert!(
            decode(&keys, "games", "night 4", &c, 2).is_err(),
            "a night's"
        );
        assert!(
            decode(&keys, "games", "league 4", &c, 1).is_err(),
            "another shape"
        );
        assert!(decode(&keys, "games", "league 4", "not base64!", 2).is_err());
        let other = Keys::new("another service's key");
        assert!(
            decode(&other, "games", "league 4", &c, 2).is_err(),
            "another key"
        );
        // Re-encoded with a position changed, the signature no longer holds.
        let text = String::from_utf8(URL_SAFE_NO_PAD.decode(&c).unwrap()).unwrap();
        let edited = URL_SAFE_NO_PAD.encode(text.replacen(":7:", ":999:", 1));
        assert_ne!(edited, c);
        assert!(
            decode(&keys, "games", "league 4", &edited, 2).is_err(),
            "edited"
        );
        let unsigned = URL_SAFE_NO_PAD.encode("games:12:999");
        assert!(
            decode(&keys, "games", "league 4", &unsigned, 2).is_err(),
            "unsigned"
        );
        assert!(limit(Some(0), 50).is_err() && limit(Some(501), 50).is_err());
        assert_eq!(limit(None, 50).unwrap(), 50);
        assert_eq!(limit(Some(500), 50).unwrap(), 500);
    }
}
