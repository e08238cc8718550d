//! Compiled uploaded cards, bounded by the memory they hold.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::rules::Card;

/// Compiled uploaded cards by id, bounded by the memory they hold (and by count). Cards never
/// change once stored, so entries never go stale and every process may keep its own.
pub struct CardCache {
    /// Each card with its estimated size (estimated once, when it is kept).
    cards: Mutex<HashMap<i64, (Arc<Card>, usize)>>,
    /// The most memory the compiled cards may hold together (estimated).
    max_bytes: usize,
    /// How many compilations may run at once (each on the blocking pool).
    pub compiling: Arc<tokio::sync::Semaphore>,
}

impl Default for CardCache {
    fn default() -> Self {
        CardCache::with_budget(128 * 1024 * 1024)
    }
}

impl CardCache {
    const MAX: usize = 512;

    /// A cache holding at most `max_bytes` of compiled cards.
    pub fn with_budget(max_bytes: usize) -> CardCache {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        CardCache {
            cards: Mutex::new(HashMap::new()),
            max_bytes,
            compiling: Arc::new(tokio::sync::Semaphore::new(cores)),
        }
    }

    pub fn get(&self, id: i64) -> Option<Arc<Card>> {
        self.cards.lock().ok()?.get(&id).map(|(c, _)| c.clone())
    }

    /// Keeps a compiled card, dropping others while the cache holds too much.
    pub fn insert(&self, id: i64, card: Arc<Card>) {
        let Ok(mut map) = self.cards.lock() else {
            return;
        };
        let size = card.approx_bytes();
        map.insert(id, (card, size));
        let mut bytes: usize = map.values().map(|(_, size)| size).sum();
        while (bytes > self.max_bytes || map.len() > Self::MAX) && map.len() > 1 {
            let Some(victim) = map.keys().copied().find(|k| *k != id) else {
                break;
            };
            if let Some((_, size)) = map.remove(&victim) {
                bytes -= size;
            }
        }
    }

    /// The cached cards' ids and their total estimated size.
    pub fn usage(&self) -> (usize, usize) {
        self.cards.lock().map_or((0, 0), |m| {
            (m.len(), m.values().map(|(_, size)| size).sum())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_card_cache_is_bounded_by_memory() {
        let card =
            Arc::new(Card::parse(crate::rules::builtin::source("demo-2026").unwrap()).unwrap());
        let size = card.approx_bytes();
        assert!(size > 10_000, "a full card is estimated at {size} bytes");
        let cache = CardCache::with_budget(size * 3 + size / 2);
        for id in 0..10 {
            cache.insert(id, card.clone());
            let (count, bytes) = cache.usage();
            assert!(bytes <= size * 3 + size / 2, "{count} cards, {bytes} bytes");
        }
        assert_eq!(cache.usage().0, 3);
        assert!(cache.get(9).is_some(), "the card just kept stays");
    }
}
