//! What every operation shares: the pool, the keys, the rate limits and the caches. Nothing
//! that matters lives only here: several processes can serve one database.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::{Semaphore, broadcast};

use sqlx::PgPool;

use crate::auth::Keys;
use crate::auth::limits::Limits;
use crate::rules::Card;
use crate::storage::events::{self, Event};

pub struct AppState {
    pub db: PgPool,
    pub keys: Keys,
    pub limits: Limits,
    pub cards: CardCache,
    pub standings: StandingsCache,
    pub game_logs: GameLogs,
    /// The league event streams open in this process.
    pub events: Hub,
    /// Webhooks may go to plain http and private addresses (a receiver on the club's network).
    pub webhooks_allow_private: bool,
}

impl AppState {
    pub fn new(db: PgPool, session_key: &str) -> AppState {
        AppState {
            db,
            keys: Keys::new(session_key),
            limits: Limits::default(),
            cards: CardCache::default(),
            standings: StandingsCache::default(),
            game_logs: GameLogs::default(),
            events: Hub::default(),
            webhooks_allow_private: false,
        }
    }
}

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

/// Standings bodies by league, with the revision they were computed at. Every write that can
/// move standings bumps the league's revision in PostgreSQL, so a process serves a cached body
/// only if it was computed at the revision the request read, or a later one: safe with several
/// processes. One computation per league runs at a time in a process; readers arriving
/// meanwhile wait for it and take its body instead of computing the same standings again.
#[derive(Default)]
pub struct StandingsCache {
    bodies: Mutex<HashMap<i64, CachedStandings>>,
    flights: Mutex<HashMap<i64, Arc<tokio::sync::Mutex<HeldLines>>>>,
    entries: Mutex<HashMap<i64, Arc<Semaphore>>>,
    /// Leagues whose ratings this process is replaying after a correction.
    pub replays: Arc<Mutex<std::collections::HashSet<i64>>>,
}

/// A league's standings rows as this process holds them, brought up to date by reading only the
/// rows changed since `revision`.
#[derive(Debug, Default)]
pub struct HeldLines {
    /// The revision the rows are at (`None`: none read yet).
    pub revision: Option<i64>,
    /// Each player with a counted game: totals and rating.
    pub rows: HashMap<i64, crate::storage::totals::Rated>,
}

/// (revision, body, ETag) of one league's standings.
type CachedStandings = (i64, Arc<Vec<u8>>, String);

impl StandingsCache {
    const MAX: usize = 10_000;
    /// New games of one league in flight at once in this process (measured with
    /// `scripts/bench-league.sh`: with 8 clients entering games, two keep the entries' pace and
    /// leave the most time to standings reads).
    const ENTRY_SLOTS: usize = 2;

    /// The body computed at `revision` or later.
    pub fn get(&self, league: i64, revision: i64) -> Option<(Arc<Vec<u8>>, String)> {
        let map = self.bodies.lock().ok()?;
        map.get(&league)
            .filter(|(r, _, _)| *r >= revision)
            .map(|(_, b, t)| (b.clone(), t.clone()))
    }

    /// The revision of the league's latest body, if there is one.
    pub fn revision(&self, league: i64) -> Option<i64> {
        self.bodies.lock().ok()?.get(&league).map(|(r, _, _)| *r)
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

    /// Claims the replay of a league's ratings for this process: `false` when one runs already.
    pub fn start_replay(&self, league: i64) -> bool {
        self.replays.lock().is_ok_and(|mut set| set.insert(league))
    }

    /// The slots for new games of a league: a league's games are counted one at a time under
    /// its lock in the database, so more than `ENTRY_SLOTS` in flight only queue there, taking
    /// the database's time from readers.
    pub fn entry_slots(&self, league: i64) -> Arc<Semaphore> {
        match self.entries.lock() {
            Ok(mut map) => {
                if map.len() > Self::MAX {
                    map.retain(|_, s| Arc::strong_count(s) > 1);
                }
                map.entry(league)
                    .or_insert_with(|| Arc::new(Semaphore::new(Self::ENTRY_SLOTS)))
                    .clone()
            }
            Err(_) => Arc::new(Semaphore::new(Self::ENTRY_SLOTS)),
        }
    }

    /// The lock that lets one request at a time compute the league's standings, over the rows
    /// this process holds for it.
    pub fn flight(&self, league: i64) -> Arc<tokio::sync::Mutex<HeldLines>> {
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

/// Leagues' counted games as (game, player, score) rows in standings order, kept in memory for
/// head-to-head among many tied players: read from the database only past the last game seen,
/// and whole again after a correction. At most `MAX` leagues are kept (about 10 MB each for a
/// league of 100,000 games); a league not in use is dropped first.
#[derive(Default)]
pub struct GameLogs {
    logs: Mutex<HashMap<i64, Arc<tokio::sync::Mutex<GameLog>>>>,
}

/// One league's log: the rows as (game, player number, score), the players by number, the last
/// standings order read and the corrections counter it was read at (`None`: not read yet).
#[derive(Default)]
pub struct GameLog {
    pub corrections: Option<i64>,
    pub last_order: i64,
    /// The database's clock when the log was last brought up to date.
    pub synced_at: Option<chrono::DateTime<chrono::Utc>>,
    pub rows: Vec<(i64, u32, i64)>,
    pub players: Vec<i64>,
    numbers: HashMap<i64, u32>,
}

impl GameLog {
    /// Forgets everything.
    pub fn clear(&mut self) {
        *self = GameLog::default();
        self.last_order = i64::MIN;
    }

    /// Adds rows read from the database as (standings order, game, player, score).
    pub fn extend(&mut self, rows: Vec<(i64, i64, i64, i64)>) {
        if let Some(last) = rows.last() {
            self.last_order = last.0;
        }
        self.rows.reserve(rows.len());
        for (_, game, player, score) in rows {
            self.push(game, player, score);
        }
    }

    fn push(&mut self, game: i64, player: i64, score: i64) {
        let next = self.players.len() as u32;
        let number = *self.numbers.entry(player).or_insert(next);
        if number == next {
            self.players.push(player);
        }
        self.rows.push((game, number, score));
    }

    /// Replaces the rows of corrected games: `games` lose theirs, and `rows` (game, player,
    /// score) are those that count now. The rows of a game stay together.
    pub fn replace(&mut self, games: &[i64], rows: Vec<(i64, i64, i64)>) {
        let changed: std::collections::HashSet<i64> = games.iter().copied().collect();
        self.rows.retain(|r| !changed.contains(&r.0));
        for (game, player, score) in rows {
            self.push(game, player, score);
        }
    }
}

impl GameLogs {
    const MAX: usize = 8;

    pub fn log(&self, league: i64) -> Arc<tokio::sync::Mutex<GameLog>> {
        match self.logs.lock() {
            Ok(mut map) => {
                if !map.contains_key(&league) && map.len() >= Self::MAX {
                    let idle: Vec<i64> = map
                        .iter()
                        .filter(|(_, l)| Arc::strong_count(l) == 1)
                        .map(|(k, _)| *k)
                        .collect();
                    for k in idle.into_iter().take(map.len() + 1 - Self::MAX) {
                        map.remove(&k);
                    }
                }
                map.entry(league).or_default().clone()
            }
            Err(_) => Arc::default(),
        }
    }
}

/// The most streams one process keeps open; past it a new one is told to come back later.
pub const MAX_STREAMS: usize = 4096;
/// How many events a slow stream may fall behind before it reads them from the table instead.
const BUFFER: usize = 256;
/// How many events one read of the table takes.
pub const EVENTS_PAGE: i64 = 500;

struct Channel {
    tx: broadcast::Sender<Arc<Event>>,
    /// The last event handed to the channel.
    last: i64,
}

/// The process's open streams, by league.
pub struct Hub {
    channels: Mutex<HashMap<i64, Channel>>,
    pub streams: Arc<Semaphore>,
    /// Woken when this process committed events: the hub reads them at once (events other
    /// processes commit are read at the next sweep).
    pub poked: tokio::sync::Notify,
    /// Woken likewise for the webhook worker.
    pub outbox: tokio::sync::Notify,
}

impl Default for Hub {
    fn default() -> Self {
        Hub {
            channels: Mutex::new(HashMap::new()),
            streams: Arc::new(Semaphore::new(MAX_STREAMS)),
            poked: tokio::sync::Notify::new(),
            outbox: tokio::sync::Notify::new(),
        }
    }
}

/// A stream's subscription: where it starts and what the hub hands it from then on.
pub struct Subscription {
    pub rx: broadcast::Receiver<Arc<Event>>,
    /// The last event the hub had handed out when the stream subscribed.
    pub start: i64,
}

impl Hub {
    /// Says that this process just committed events (a wake-up, not a message: several pokes
    /// before the hub and the worker look are one).
    pub fn poke(&self) {
        self.poked.notify_one();
        self.outbox.notify_one();
    }

    /// Whether any league has a stream open in this process.
    pub fn listening(&self) -> bool {
        self.channels.lock().is_ok_and(|c| !c.is_empty())
    }

    /// Subscribes to a league's events; the first subscriber of a league in this process sets
    /// its channel's starting point at the league's latest event.
    pub async fn subscribe(&self, db: &PgPool, league: i64) -> sqlx::Result<Subscription> {
        if let Some(sub) = self.existing(league) {
            return Ok(sub);
        }
        let latest = events::latest(db, league).await?;
        let mut channels = self.channels.lock().unwrap_or_else(|e| e.into_inner());
        let channel = channels.entry(league).or_insert_with(|| Channel {
            tx: broadcast::channel(BUFFER).0,
            last: latest,
        });
        Ok(Subscription {
            rx: channel.tx.subscribe(),
            start: channel.last,
        })
    }

    fn existing(&self, league: i64) -> Option<Subscription> {
        let channels = self.channels.lock().ok()?;
        channels.get(&league).map(|c| Subscription {
            rx: c.tx.subscribe(),
            start: c.last,
        })
    }

    /// Reads the new events of every league with streams open here and hands them out, in
    /// order. Only the hub's task calls it (one reader: events go out in the order read).
    pub async fn read(&self, db: &PgPool) -> sqlx::Result<()> {
        let wanted: Vec<(i64, i64)> = {
            let Ok(mut channels) = self.channels.lock() else {
                return Ok(());
            };
            // Channels nobody listens to any more are dropped.
            channels.retain(|_, c| c.tx.receiver_count() > 0);
            channels.iter().map(|(l, c)| (*l, c.last)).collect()
        };
        for (league, mut last) in wanted {
            loop {
                let page = events::after(db, league, last, EVENTS_PAGE).await?;
                let full = page.len() as i64 == EVENTS_PAGE;
                let Ok(mut channels) = self.channels.lock() else {
                    return Ok(());
                };
                let Some(channel) = channels.get_mut(&league) else {
                    break;
                };
                for event in page {
                    last = event.id;
                    channel.last = event.id;
                    // No receiver left is not an error: the channel goes at the next sweep.
                    let _ = channel.tx.send(Arc::new(event));
                }
                if !full {
                    break;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_log_brought_up_to_date_equals_one_read_whole() {
        use crate::standings::head_to_head;
        // (order, game, player, score); players 1-3 tied.
        let all = [
            (1, 10, 1, 5),
            (1, 10, 2, -5),
            (1, 10, 7, 0),
            (2, 11, 1, -3),
            (2, 11, 8, 3),
            (3, 12, 2, 4),
            (3, 12, 3, -4),
        ];
        let mut log = GameLog::default();
        log.clear();
        log.extend(all[..3].to_vec());
        log.extend(all[3..].to_vec());
        assert_eq!(log.last_order, 3);
        // Game 10 corrected (1 and 2 swap scores), game 11 voided.
        log.replace(&[10, 11], vec![(10, 1, -5), (10, 2, 5), (10, 7, 0)]);
        let mut whole = GameLog::default();
        whole.clear();
        whole.extend(vec![
            (1, 10, 1, -5),
            (1, 10, 2, 5),
            (1, 10, 7, 0),
            (3, 12, 2, 4),
            (3, 12, 3, -4),
        ]);
        let groups = [vec![1, 2, 3]];
        let a = head_to_head(&log.rows, &log.players, &groups);
        let b = head_to_head(&whole.rows, &whole.players, &groups);
        assert_eq!(a, b);
        assert_eq!(a.get(&1), Some(&-5));
        assert_eq!(a.get(&2), Some(&9));
    }

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
