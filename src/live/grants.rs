//! API tokens as the database answered for them lately.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::Freshness;

/// API tokens as the database answered for them lately, by hash, each with the stamp it was read
/// under: a revoked token is refused as soon as its revocation is heard of. An entry is read
/// again after `FOR` (which also keeps the token's `last_used_at` within a minute or so).
#[derive(Default)]
pub struct Grants {
    map: Mutex<HashMap<String, (u64, Instant, crate::storage::people::tokens::TokenGrant)>>,
}

impl Grants {
    const FOR: Duration = Duration::from_secs(60);
    const MAX: usize = 10_000;

    /// The grant of the token with this hash, if read under the current stamp lately.
    pub fn get(
        &self,
        freshness: &Freshness,
        hash: &str,
    ) -> Option<crate::storage::people::tokens::TokenGrant> {
        let stamp = freshness.stamp()?;
        let map = self.map.lock().ok()?;
        let (at, read, grant) = map.get(hash)?;
        (*at == stamp && read.elapsed() < Self::FOR).then(|| grant.clone())
    }

    /// Keeps a live token's grant, read under `stamp`.
    pub fn put(&self, stamp: u64, hash: String, grant: crate::storage::people::tokens::TokenGrant) {
        if let Ok(mut map) = self.map.lock() {
            if map.len() >= Self::MAX {
                map.retain(|_, (at, read, _)| *at == stamp && read.elapsed() < Self::FOR);
                if map.len() >= Self::MAX {
                    map.clear();
                }
            }
            map.insert(hash, (stamp, Instant::now(), grant));
        }
    }
}
