//! Table codes: for a shared tablet or a tournament's tables, an organizer opens a short code
//! per table of a night; whoever holds it enters and corrects games at that table only, until
//! the codes are revoked (while the night is closed, games are refused naming the night; a
//! code cannot be typed in then). Codes are stored as keyed hashes, guesses are
//! rate-limited per address, and the audit log names the holder "table 3 code".
//!
//! An organizer sees the night's working codes again while the night is open (and the tent
//! cards print them): a code is the keyed hash of a random seed under the service's key, so
//! the stored seed gives the code back to the service only, and the service shows it only to
//! the club's organizers.

use std::net::IpAddr;

use rand::RngExt;

use crate::domain::{AppState, Caller, Error, Need, Principal, Result};
use crate::storage::play::codes::{self, CodeGrant};
use crate::storage::play::nights;

/// Letters and digits nobody confuses when reading a code aloud (no 0/O, 1/I/L).
const ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";
/// 31⁸ ≈ 8.5 × 10¹¹ codes; at the guessing limit one address tries about 2,900 a day.
const LENGTH: usize = 8;

/// A new code's seed: 128 random bits, hex.
fn new_seed() -> String {
    let bytes: [u8; 16] = rand::rng().random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The code a seed makes under the service's key, as shown: `ABCD-EFGH`. The first 128 bits
/// of the keyed hash, read as a number in base 31 (31⁸ is far below 2¹²⁸, so every code is as
/// likely as any other, to within 10⁻²⁶).
fn code_of(keys: &crate::auth::keys::Keys, seed: &str) -> String {
    let hash = keys.hash(&format!("table-code:{seed}"));
    let mut n = u128::from_str_radix(&hash[..32], 16).unwrap_or_default();
    let raw: String = (0..LENGTH)
        .map(|_| {
            let c = ALPHABET[(n % ALPHABET.len() as u128) as usize] as char;
            n /= ALPHABET.len() as u128;
            c
        })
        .collect();
    format!("{}-{}", &raw[..4], &raw[4..])
}

/// A code as typed or scanned, in the form that is hashed: upper case, no spaces or dashes.
pub fn normalize(code: &str) -> String {
    code.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_uppercase())
        .take(32)
        .collect()
}

/// One table's code, as shown to the club's organizers.
pub struct TableCode {
    pub table_id: i64,
    pub table_number: i32,
    pub code: String,
}

/// Opens a code per table of the night (organizers); earlier codes stop working.
pub async fn open(state: &AppState, caller: &Caller, night_id: i64) -> Result<Vec<TableCode>> {
    let (night, _) = crate::domain::play::nights::open_night(state, caller, night_id).await?;
    let tables = nights::tables(&state.db, night.id).await?;
    if tables.is_empty() {
        return Err(Error::invalid(
            "tables",
            "lock the night's tables first: codes are per table",
        ));
    }
    let mut shown = Vec::new();
    let mut stored = Vec::new();
    for t in &tables {
        let seed = new_seed();
        let code = code_of(&state.keys, &seed);
        stored.push(codes::Stored {
            table_id: t.id,
            hash: state.keys.hash(&normalize(&code)),
            seed,
        });
        shown.push(TableCode {
            table_id: t.id,
            table_number: t.number,
            code,
        });
    }
    codes::replace(&state.db, night.id, &stored).await?;
    Ok(shown)
}

/// The night's working codes, again (organizers, while the night is open): nothing new is
/// made, so the codes handed out keep working. Codes opened before seeds were kept are left
/// out; how many, so the page can say to make new ones.
pub async fn shown(
    state: &AppState,
    caller: &Caller,
    night_id: i64,
) -> Result<(Vec<TableCode>, usize)> {
    let (night, _) = crate::domain::play::nights::open_night(state, caller, night_id).await?;
    let mut shown = Vec::new();
    let mut unseen = 0;
    for (table_id, table_number, seed) in codes::live(&state.db, night.id).await? {
        match seed {
            Some(seed) => shown.push(TableCode {
                table_id,
                table_number,
                code: code_of(&state.keys, &seed),
            }),
            None => unseen += 1,
        }
    }
    Ok((shown, unseen))
}

/// Revokes the night's codes (organizers); how many stopped working.
pub async fn revoke(state: &AppState, caller: &Caller, night_id: i64) -> Result<u64> {
    let (night, _) =
        crate::domain::play::nights::night_for(state, caller, night_id, Need::Admin).await?;
    Ok(codes::revoke(&state.db, night.id).await?)
}

/// When the night's codes were opened, if they are live (organizers see it on the night page).
pub async fn opened(
    state: &AppState,
    night_id: i64,
) -> Result<Option<chrono::DateTime<chrono::Utc>>> {
    Ok(codes::opened(&state.db, night_id).await?)
}

/// What a code grants, if it is live; wrong codes count against the address's limit.
pub async fn enter(state: &AppState, code: &str, address: Option<IpAddr>) -> Result<CodeGrant> {
    state.limits.table_code(address).await?;
    let refused = || {
        Error::invalid(
            "code",
            "this code does not open a table now: check it with the organizer (a code works while its night is open, again if it is reopened, until the organizer makes new codes or reseats its table)",
        )
    };
    let code = normalize(code);
    if code.len() != LENGTH {
        state.limits.table_code_failed(address).await;
        return Err(refused());
    }
    match codes::grant(&state.db, &state.keys.hash(&code)).await? {
        Some(g) if !g.revoked && !g.night_closed => Ok(g),
        _ => {
            state.limits.table_code_failed(address).await;
            Err(refused())
        }
    }
}

/// What the table cookie holds once a code was entered: the code and a keyed signature of it,
/// so the service knows the cookie came from a correct entry and needs no guessing limit for it.
pub fn cookie_value(state: &AppState, code: &str) -> String {
    let code = normalize(code);
    let signature = cookie_signature(state, &code);
    format!("{code}.{signature}")
}

fn cookie_signature(state: &AppState, code: &str) -> String {
    state.keys.hash(&format!("table-cookie:{code}"))[..32].to_string()
}

/// The code in a cookie this service signed, if it did.
fn signed_code(state: &AppState, value: &str) -> Option<String> {
    let (code, signature) = value.split_once('.')?;
    let code = normalize(code);
    let expected = cookie_signature(state, &code);
    // Constant time: the signature is a secret's function.
    let same = expected.len() == signature.len()
        && expected
            .bytes()
            .zip(signature.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0;
    same.then_some(code)
}

/// The caller a table-code cookie stands for: the table's scorer until the code is revoked. While
/// its night is closed the holder sees the table's screen say so and every game is refused
/// (409, naming the night); when an organizer reopens the night, the code works again, so a
/// game kept on the tablet is sent by itself.
///
/// A cookie this service signed (given when the code was entered) is looked up whatever anyone
/// else has guessed: it cannot be forged, so it is no way to guess. Any other cookie value is
/// a guess like a typed code: it counts against its client's address when wrong, and an
/// address over its limit is not looked up at all (anonymous).
pub async fn identify(state: &AppState, cookie: &str, address: Option<IpAddr>) -> Result<Caller> {
    let (code, signed) = match signed_code(state, cookie) {
        Some(code) => (code, true),
        None => {
            if state.limits.table_code(address).await.is_err() {
                return Ok(Caller::default());
            }
            (normalize(cookie), false)
        }
    };
    match codes::grant(&state.db, &state.keys.hash(&code)).await? {
        Some(g) if !g.revoked => Ok(Caller::of(Principal::Table {
            code_id: g.code_id,
            table_id: g.table_id,
            table_number: g.table_number,
            league_id: g.league_id,
        })),
        Some(_) => Ok(Caller::default()),
        None => {
            if !signed {
                state.limits.table_code_failed(address).await;
            }
            Ok(Caller::default())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_gives_its_code_under_its_key_only() {
        let keys = crate::auth::keys::Keys::new("one");
        let seed = new_seed();
        assert_eq!(seed.len(), 32);
        assert_eq!(code_of(&keys, &seed), code_of(&keys, &seed));
        assert_ne!(code_of(&keys, &seed), code_of(&keys, &new_seed()));
        assert_ne!(
            code_of(&keys, &seed),
            code_of(&crate::auth::keys::Keys::new("two"), &seed)
        );
    }

    #[test]
    fn codes_read_aloud_and_typed_loosely_are_the_same() {
        let c = code_of(&crate::auth::keys::Keys::new("k"), &new_seed());
        assert_eq!(c.len(), 9);
        assert!(c.chars().all(|x| x == '-' || ALPHABET.contains(&(x as u8))));
        assert_eq!(
            normalize(&c.to_lowercase().replace('-', " ")),
            c.replace('-', "")
        );
        assert_eq!(normalize("abcd-efgh\u{0}"), "ABCDEFGH");
    }
}
