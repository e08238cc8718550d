//! A person's or a player's name as the service keeps it: the one check every name passes,
//! whoever types it (an organizer adding players, a member joining under her own name).

use crate::domain::{Error, Result};

/// A name as stored (NFC, white space collapsed), or why it cannot be one: empty, too long, or
/// holding a character that shows nothing or a control character (`storage::people::names`).
pub(crate) fn clean_name(name: &str) -> Result<String> {
    let n = crate::storage::people::names::normalize(name);
    // The length as sent counts too: the limit is the one the API document states.
    if n.is_empty() || name.chars().count() > 100 {
        return Err(Error::invalid("name", "give a name of 1 to 100 characters"));
    }
    if let Some(c) = crate::storage::people::names::forbidden(&n) {
        return Err(Error::invalid(
            "name",
            format!(
                "`{}` holds {}, a character that shows nothing (a zero-width or direction mark) or a control character; type the name without it",
                n.replace(c, ""),
                crate::storage::people::names::code_point(c)
            ),
        ));
    }
    Ok(n)
}
