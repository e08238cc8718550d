//! CSRF protection for forms: a token derived from the browser's session (or, before login, from
//! a random seed cookie) with the server's key. A form post must carry it; `security` adds an
//! Origin check on every unsafe request made with cookies.

use actix_web::HttpRequest;
use actix_web::cookie::{Cookie, SameSite};

use crate::auth::{Keys, new_secret};
use crate::http::SESSION_COOKIE;

/// The seed cookie of browsers that are not logged in.
const SEED_COOKIE: &str = "ml_csrf";

/// The value tokens are derived from, and a new seed to set when the browser has neither a
/// session nor a seed.
pub fn seed(req: &HttpRequest) -> (String, Option<String>) {
    if let Some(c) = req.cookie(SESSION_COOKIE) {
        return (format!("session:{}", c.value()), None);
    }
    if let Some(c) = req.cookie(SEED_COOKIE) {
        return (format!("seed:{}", c.value()), None);
    }
    let new = new_secret("");
    (format!("seed:{new}"), Some(new))
}

pub fn seed_cookie(value: String) -> Cookie<'static> {
    Cookie::build(SEED_COOKIE, value)
        .path("/")
        .http_only(true)
        .same_site(SameSite::Strict)
        .finish()
}

/// The token forms carry.
pub fn token(keys: &Keys, seed: &str) -> String {
    keys.hash(&format!("csrf:{seed}"))
}

pub fn verify(keys: &Keys, seed: &str, sent: &str) -> bool {
    let want = token(keys, seed);
    // Compare without stopping at the first difference.
    want.len() == sent.len()
        && want
            .bytes()
            .zip(sent.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_belong_to_one_seed_and_one_key() {
        let keys = Keys::new("k");
        let t = token(&keys, "session:abc");
        assert!(verify(&keys, "session:abc", &t));
        assert!(!verify(&keys, "session:abd", &t));
        assert!(!verify(&Keys::new("other"), "session:abc", &t));
        assert!(!verify(&keys, "session:abc", ""));
    }
}
