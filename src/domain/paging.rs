//! Cursor paging for lists an app walks through: `limit` (1 to 500) and an opaque `cursor` that
//! the previous page's `next` gave. A cursor says where the last page stopped (ids, never an
//! offset), so rows added meanwhile neither repeat nor push others off a page.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

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

/// A cursor of `kind` ("games", "leagues", …) holding `at`: where the page stopped.
pub fn encode(kind: &str, at: &[i64]) -> String {
    let text = std::iter::once(kind.to_string())
        .chain(at.iter().map(i64::to_string))
        .collect::<Vec<_>>()
        .join(":");
    URL_SAFE_NO_PAD.encode(text)
}

/// The positions a cursor of `kind` holds (exactly `n` of them); a cursor that is not one of
/// this list's (another list's, edited, truncated) is a 400-class mistake naming `cursor`.
pub fn decode(kind: &str, cursor: &str, n: usize) -> Result<Vec<i64>> {
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
    let text = String::from_utf8(bytes).map_err(|_| wrong())?;
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
        let c = encode("games", &[12, 7]);
        assert_eq!(decode("games", &c, 2).unwrap(), vec![12, 7]);
        assert!(decode("leagues", &c, 2).is_err(), "another list's cursor");
        assert!(decode("games", &c, 1).is_err(), "another shape");
        assert!(decode("games", "not base64!", 2).is_err());
        assert!(decode("games", &encode("games", &[-1, 2]), 2).is_err());
        assert!(limit(Some(0), 50).is_err() && limit(Some(501), 50).is_err());
        assert_eq!(limit(None, 50).unwrap(), 50);
        assert_eq!(limit(Some(500), 50).unwrap(), 500);
    }
}
