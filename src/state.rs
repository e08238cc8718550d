//! What every operation shares: the pool, the keys, the rate limits and the caches. Nothing
//! that matters lives only here: several processes can serve one database.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use sqlx::PgPool;

use crate::auth::Keys;
use crate::auth::limits::Limits;
use crate::rules::Card;
use crate::storage::cards::StoredCard;

pub struct AppState {
    pub db: PgPool,
    pub keys: Keys,
    pub limits: Limits,
    pub cards: CardCache,
    pub standings: StandingsCache,
}

impl AppState {
    pub fn new(db: PgPool, session_key: &str) -> AppState {
        AppState {
            db,
            keys: Keys::new(session_key),
            limits: Limits::default(),
            cards: CardCache::default(),
            standings: StandingsCache::default(),
        }
    }
}

/// Compiled uploaded cards by id. Cards never change once stored, so entries never go stale
/// and every process may keep its own.
#[derive(Default)]
pub struct CardCache(Mutex<HashMap<i64, Arc<Card>>>);

impl CardCache {
    const MAX: usize = 512;

    pub fn compiled(&self, stored: &StoredCard) -> anyhow::Result<Arc<Card>> {
        if let Some(c) = self.0.lock().ok().and_then(|m| m.get(&stored.id).cloned()) {
            return Ok(c);
        }
        let card =
            Arc::new(Card::parse(&stored.source).map_err(|e| {
                anyhow::anyhow!("stored card {} does not compile: {e:?}", stored.id)
            })?);
        if let Ok(mut m) = self.0.lock() {
            if m.len() >= Self::MAX {
                m.clear();
            }
            m.insert(stored.id, card.clone());
        }
        Ok(card)
    }
}

/// Standings bodies by league, with the revision they were computed at. Every write that can
/// move standings bumps the league's revision in PostgreSQL, so a process serves a cached body
/// only if it was computed at the revision the request read, or a later one: safe with several
/// processes. One computation per league runs at a time in a process; readers arriving
/// meanwhile wait for it and take its body instead of computing the same standings again.
#[derive(Default)]
pub struct StandingsCache {
    bodies: Mutex<HashMap<i64, CachedStandings>>,
    flights: Mutex<HashMap<i64, Arc<tokio::sync::Mutex<()>>>>,
}

/// (revision, body, ETag) of one league's standings.
type CachedStandings = (i64, Arc<Vec<u8>>, String);

impl StandingsCache {
    const MAX: usize = 10_000;

    /// The body computed at `revision` or later.
    pub fn get(&self, league: i64, revision: i64) -> Option<(Arc<Vec<u8>>, String)> {
        let map = self.bodies.lock().ok()?;
        map.get(&league)
            .filter(|(r, _, _)| *r >= revision)
            .map(|(_, b, t)| (b.clone(), t.clone()))
    }

    pub fn put(&self, league: i64, revision: i64, body: Arc<Vec<u8>>, tag: String) {
        if let Ok(mut map) = self.bodies.lock() {
            if map.len() > Self::MAX {
                map.clear();
            }
            if map.get(&league).is_none_or(|(r, _, _)| *r < revision) {
                map.insert(league, (revision, body, tag));
            }
        }
    }

    /// The lock that lets one request at a time compute the league's standings.
    pub fn flight(&self, league: i64) -> Arc<tokio::sync::Mutex<()>> {
        match self.flights.lock() {
            Ok(mut map) => {
                if map.len() > Self::MAX {
                    map.retain(|_, m| Arc::strong_count(m) > 1);
                }
                map.entry(league).or_default().clone()
            }
            Err(_) => Arc::default(),
        }
    }
}
