//! Keyed hashes and random secrets.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// Prefix of API tokens, so a leaked one is easy to recognise.
pub const TOKEN_PREFIX: &str = "mlt_";

/// Keys for hashing session and API tokens (HMAC-SHA256 with the session key): a stolen
/// database alone does not give working tokens.
#[derive(Clone)]
pub struct Keys {
    key: Vec<u8>,
}

impl Keys {
    pub fn new(session_key: &str) -> Keys {
        Keys {
            key: session_key.as_bytes().to_vec(),
        }
    }

    pub fn hash(&self, token: &str) -> String {
        // HMAC takes keys of any length.
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&self.key)
            .expect("HMAC accepts any key length");
        mac.update(token.as_bytes());
        mac.finalize()
            .into_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// The signature of `what` in a link that needs no login (an unsubscribe, a reply, a
    /// calendar key): the first 128 bits of its keyed hash, hex.
    pub fn sign(&self, what: &str) -> String {
        self.hash(what)[..32].to_string()
    }

    /// Whether `given` is the signature of `what`, compared in full whatever differs first.
    pub fn signed(&self, what: &str, given: &str) -> bool {
        let want = self.sign(what);
        given.len() == want.len()
            && given
                .bytes()
                .zip(want.bytes())
                .fold(0u8, |d, (a, b)| d | (a ^ b))
                == 0
    }
}

/// A new random secret (256 bits, hex) with a prefix.
pub fn new_secret(prefix: &str) -> String {
    let bytes: [u8; 32] = rand::random();
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("{prefix}{hex}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_holds_for_its_text_only() {
        let keys = Keys::new("one");
        let sig = keys.sign("reply 4 7");
        assert_eq!(sig.len(), 32);
        assert!(keys.signed("reply 4 7", &sig));
        assert!(!keys.signed("reply 4 8", &sig));
        assert!(!keys.signed("reply 4 7", &sig[..31]));
        assert!(!Keys::new("two").signed("reply 4 7", &sig));
    }

    #[test]
    fn hashes_are_keyed() {
        let a = Keys::new("one").hash("token");
        assert_eq!(a.len(), 64);
        assert_ne!(a, Keys::new("two").hash("token"));
        assert!(new_secret(TOKEN_PREFIX).starts_with("mlt_"));
    }
}
