//! Security primitives, with no knowledge of clubs or HTTP: keyed hashes of session and API
//! tokens (`keys`), password hashing (`password`) and rate limits (`limits`). Who may do what
//! is the domain's business (`domain::access`).

pub mod keys;
pub mod limits;
pub mod password;

pub use keys::{Keys, TOKEN_PREFIX, new_secret};
