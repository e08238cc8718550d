//! What every operation shares: the pool, the keys, the rate limits and the caches. Nothing
//! that matters lives only here: several processes can serve one database.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{Semaphore, broadcast};

use sqlx::PgPool;

use crate::auth::Keys;
use crate::auth::limits::Limits;
use crate::rules::Card;
use crate::storage::events::{self, Event};
use crate::storage::leagues::League;

pub struct AppState {
    pub db: PgPool,
    pub keys: Keys,
    pub limits: Limits,
    pub cards: CardCache,
    pub standings: StandingsCache,
    pub game_logs: GameLogs,
    /// Whether what this process holds in memory is known to be current.
    pub freshness: Arc<Freshness>,
    /// API tokens checked against the database lately.
    pub grants: Grants,
    /// The league event streams open in this process.
    pub events: Hub,
    /// Webhooks may go to plain http and private addresses (a receiver on the club's network).
    pub webhooks_allow_private: bool,
    /// Where new games are entered, when the server gave them a lane of their own.
    pub entry: Option<EntryLane>,
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
            freshness: Arc::default(),
            grants: Grants::default(),
            events: Hub::default(),
            webhooks_allow_private: false,
            entry: None,
        }
    }

    /// The apps' API rate limits: requests a minute per address without credentials and per API
    /// token (0: none).
    pub fn set_api_limits(&mut self, per_address: u32, per_token: u32) {
        self.limits.api = crate::auth::limits::ApiLimits::new(per_address, per_token);
    }

    /// The connections new games are entered on: the lane's when there is one.
    pub fn entry_db(&self) -> &PgPool {
        self.entry.as_ref().map_or(&self.db, |lane| &lane.db)
    }
}

/// A lane of its own for entering new games: one thread, and connections whose answers that
/// thread notices. The request workers also answer standings reads; on a busy night a game's
/// answer from the database would sit unnoticed behind them while the game holds one of its
/// league's entry slots, and every other table's game would wait with it.
pub struct EntryLane {
    runtime: Option<tokio::runtime::Runtime>,
    /// Only the lane's tasks use these, so their sockets are watched by the lane's thread.
    pub db: PgPool,
}

impl EntryLane {
    /// Connections at most: more games than a league's entry slots only queue in the database.
    const CONNECTIONS: u32 = 8;

    /// A lane with connections to the database `db` connects to (under the same name, so that
    /// this process knows its own writes' change notices).
    pub fn new(db: &PgPool) -> std::io::Result<EntryLane> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("game-entry")
            .enable_all()
            .build()?;
        let db = {
            // The pool's upkeep runs on the lane.
            let _inside = runtime.enter();
            sqlx::postgres::PgPoolOptions::new()
                .max_connections(Self::CONNECTIONS)
                .acquire_timeout(crate::storage::ACQUIRE_TIMEOUT)
                .connect_lazy_with(db.connect_options().as_ref().clone())
        };
        Ok(EntryLane {
            runtime: Some(runtime),
            db,
        })
    }

    /// Runs `work` on the lane, as part of the caller: when the caller stops waiting (a request
    /// cut at its deadline), `work` stops too, as it would have where it was called. `None`:
    /// `work` panicked (the panic is reported where it happened).
    pub async fn run<T: Send + 'static>(
        &self,
        work: impl Future<Output = T> + Send + 'static,
    ) -> Option<T> {
        /// Aborts the lane's task when dropped before it ends.
        struct Tied<T>(tokio::task::JoinHandle<T>);
        impl<T> Drop for Tied<T> {
            fn drop(&mut self) {
                self.0.abort();
            }
        }
        let mut task = Tied(self.runtime.as_ref()?.spawn(work));
        (&mut task.0).await.ok()
    }
}

impl Drop for EntryLane {
    fn drop(&mut self) {
        // Dropped where blocking is not allowed (an async test's end): let the thread go.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// What this process knows of changes made in the database: every process listens to the change
/// notices (`storage::notices`), and what it held before a notice it may have missed is checked
/// against the database again.
///
/// A *stamp* names a stretch of time during which this process heard every notice: a new one
/// starts when the listening connection is made, when it is lost (none until it is back), and at
/// each notice that something other than a league's standings revision changed (a league's
/// settings, a token revoked), and at each such change this process makes itself. Anything read
/// from the database under a stamp (taken before the read) may be used without reading it
/// again while the stamp is current. A league's standings are current while nothing has moved
/// its revision past the one they were computed at.
#[derive(Default)]
pub struct Freshness {
    /// A counter that only grows, odd while listening (its value then is the stamp).
    state: AtomicU64,
    /// Each league's latest standings revision heard of (from notices and this process's writes
    /// and reads).
    known: Mutex<HashMap<i64, i64>>,
}

impl Freshness {
    /// The current stamp: `None` while not listening (then nothing is taken from memory).
    pub fn stamp(&self) -> Option<u64> {
        let s = self.state.load(Ordering::SeqCst);
        (s & 1 == 1).then_some(s)
    }

    fn next(&self, listening: bool) {
        let _ = self
            .state
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |s| {
                Some((s | 1) + 1 + u64::from(listening))
            });
    }

    /// Listening (again): a new stamp.
    pub fn listening(&self) {
        self.next(true);
    }

    /// The listening connection is lost: notices may be missed until it is back.
    pub fn deaf(&self) {
        self.next(false);
    }

    /// Something other than a standings revision changed: everything is read again.
    pub fn changed(&self) {
        let listening = self.stamp().is_some();
        self.next(listening);
    }

    /// A write begins (see `Unheard`).
    pub fn unheard(self: &Arc<Self>) -> Unheard {
        Unheard {
            freshness: self.clone(),
            armed: true,
        }
    }

    /// A league's standings revision `revision` was committed (heard of, written or read).
    pub fn saw(&self, league: i64, revision: i64) {
        if let Ok(mut known) = self.known.lock() {
            if known.len() > StandingsCache::MAX && !known.contains_key(&league) {
                known.clear();
            }
            let r = known.entry(league).or_insert(revision);
            *r = (*r).max(revision);
        }
    }

    /// The league's latest standings revision heard of.
    pub fn known(&self, league: i64) -> Option<i64> {
        self.known.lock().ok()?.get(&league).copied()
    }
}

/// A write of this process that moves a league's standings revision or changes what is held
/// in memory: this process does not wait for its own notices, so when it is dropped everything
/// held is read again — after the write, or when the request is cut short while it writes —
/// unless `heard` says the write was taken in otherwise.
pub struct Unheard {
    freshness: Arc<Freshness>,
    armed: bool,
}

impl Unheard {
    /// The write was taken in (its rows pushed, its revision noted).
    pub fn heard(mut self) {
        self.armed = false;
    }
}

impl Drop for Unheard {
    fn drop(&mut self) {
        if self.armed {
            self.freshness.changed();
        }
    }
}

/// API tokens as the database answered for them lately, by hash, each with the stamp it was read
/// under: a revoked token is refused as soon as its revocation is heard of. An entry is read
/// again after `FOR` (which also keeps the token's `last_used_at` within a minute or so).
#[derive(Default)]
pub struct Grants {
    map: Mutex<HashMap<String, (u64, Instant, crate::storage::tokens::TokenGrant)>>,
}

impl Grants {
    const FOR: Duration = Duration::from_secs(60);
    const MAX: usize = 10_000;

    /// The grant of the token with this hash, if read under the current stamp lately.
    pub fn get(
        &self,
        freshness: &Freshness,
        hash: &str,
    ) -> Option<crate::storage::tokens::TokenGrant> {
        let stamp = freshness.stamp()?;
        let map = self.map.lock().ok()?;
        let (at, read, grant) = map.get(hash)?;
        (*at == stamp && read.elapsed() < Self::FOR).then(|| grant.clone())
    }

    /// Keeps a live token's grant, read under `stamp`.
    pub fn put(&self, stamp: u64, hash: String, grant: crate::storage::tokens::TokenGrant) {
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
    bodies: Mutex<HashMap<i64, Cached>>,
    flights: Mutex<HashMap<i64, Arc<tokio::sync::Mutex<HeldLines>>>>,
    entries: Mutex<HashMap<i64, Arc<Semaphore>>>,
    /// The rows this process's new games changed, by league and standings revision, until a
    /// read takes them into the league's held rows.
    pushed: Mutex<HashMap<i64, BTreeMap<i64, Pushed>>>,
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
    /// The league's standings state at `revision`.
    pub state: Option<crate::storage::totals::LeagueState>,
    /// The league as it stood at `revision`.
    pub league: Option<Arc<League>>,
    /// The stamp (see `Freshness`) the rows were last read from the database under.
    pub stamp: Option<u64>,
}

/// What one new game changed in a league's standings: the revision it was counted at, whether
/// the ratings are being replayed, and its players' rows as they stand after it.
#[derive(Debug, Clone)]
pub struct Pushed {
    pub updating: bool,
    pub rows: Vec<crate::storage::totals::CountedRow>,
}

/// One league's standings body as kept.
pub struct Cached {
    /// The revision it was computed at.
    pub revision: i64,
    pub body: Arc<Vec<u8>>,
    /// Its entity tag.
    pub tag: String,
    /// The stamp (see `Freshness`) under which the league was last read at this revision.
    pub stamp: Option<u64>,
    /// The league as it stood at this revision.
    pub league: Arc<League>,
}

impl StandingsCache {
    const MAX: usize = 10_000;
    /// Changes kept per league for reads to take.
    const PUSHED: usize = 1024;
    /// New games of one league in flight at once in this process (measured with
    /// `scripts/bench-league.sh`: with 8 clients entering games, two keep the entries' pace and
    /// leave the most time to standings reads).
    const ENTRY_SLOTS: usize = 2;

    /// The body computed at `revision` or later.
    pub fn get(&self, league: i64, revision: i64) -> Option<(Arc<Vec<u8>>, String)> {
        let map = self.bodies.lock().ok()?;
        map.get(&league)
            .filter(|c| c.revision >= revision)
            .map(|c| (c.body.clone(), c.tag.clone()))
    }

    /// The body computed at `revision` or later, if the league was read under `stamp` (still
    /// current) at its revision and `admitted` lets the caller read that league.
    pub fn current(
        &self,
        league: i64,
        revision: i64,
        stamp: u64,
        admitted: impl Fn(&League) -> bool,
    ) -> Option<(Arc<Vec<u8>>, String)> {
        let map = self.bodies.lock().ok()?;
        map.get(&league)
            .filter(|c| c.revision >= revision && c.stamp == Some(stamp) && admitted(&c.league))
            .map(|c| (c.body.clone(), c.tag.clone()))
    }

    /// The league was read again at `revision` under `stamp`: the body kept for that revision may
    /// be answered from memory under that stamp.
    pub fn restamp(&self, league: i64, revision: i64, stamp: u64, read: &Arc<League>) {
        if let Ok(mut map) = self.bodies.lock()
            && let Some(c) = map.get_mut(&league)
            && c.revision == revision
        {
            c.stamp = Some(stamp);
            c.league = read.clone();
        }
    }

    /// The revision of the league's latest body, if there is one.
    pub fn revision(&self, league: i64) -> Option<i64> {
        self.bodies.lock().ok()?.get(&league).map(|c| c.revision)
    }

    pub fn put(&self, league: i64, cached: Cached) {
        if let Ok(mut map) = self.bodies.lock() {
            if map.len() > Self::MAX {
                map.clear();
            }
            if map
                .get(&league)
                .is_none_or(|c| c.revision <= cached.revision)
            {
                map.insert(league, cached);
            }
        }
    }

    /// Keeps what a new game of this process changed, counted at `revision`.
    pub fn push(&self, league: i64, revision: i64, pushed: Pushed) {
        if let Ok(mut map) = self.pushed.lock() {
            if map.len() > Self::MAX && !map.contains_key(&league) {
                map.clear();
            }
            let queue = map.entry(league).or_default();
            queue.insert(revision, pushed);
            while queue.len() > Self::PUSHED {
                queue.pop_first();
            }
        }
    }

    /// The pushed changes that follow revision `from` one after another, merged (a later row
    /// replaces an earlier one), with the last revision they reach and whether the ratings were
    /// being replayed then; older changes are dropped.
    pub fn take_pushed(
        &self,
        league: i64,
        from: i64,
    ) -> Option<(i64, bool, Vec<crate::storage::totals::CountedRow>)> {
        let mut map = self.pushed.lock().ok()?;
        let queue = map.get_mut(&league)?;
        *queue = queue.split_off(&(from + 1));
        let mut reached = from;
        let mut updating = false;
        let mut rows: HashMap<i64, crate::storage::totals::CountedRow> = HashMap::new();
        while let Some(next) = queue.remove(&(reached + 1)) {
            reached += 1;
            updating = next.updating;
            for row in next.rows {
                rows.insert(row.player_id, row);
            }
        }
        (reached > from).then(|| (reached, updating, rows.into_values().collect()))
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
    fn a_stamp_lasts_only_while_every_notice_is_heard() {
        let f = Arc::new(Freshness::default());
        assert_eq!(
            f.stamp(),
            None,
            "nothing is taken from memory before listening"
        );
        f.listening();
        let first = f.stamp().unwrap();
        f.saw(1, 5);
        f.saw(1, 3);
        assert_eq!(f.known(1), Some(5), "revisions only move forward");
        assert_eq!(f.stamp(), Some(first), "a revision leaves the stamp");
        f.changed();
        let second = f.stamp().unwrap();
        assert_ne!(second, first);
        drop(f.unheard());
        let third = f.stamp().unwrap();
        assert_ne!(third, second, "a write dropped unheard starts a new stamp");
        f.unheard().heard();
        assert_eq!(f.stamp(), Some(third), "a write taken in leaves it");
        f.deaf();
        assert_eq!(f.stamp(), None);
        f.changed();
        assert_eq!(f.stamp(), None, "still deaf");
        f.listening();
        assert!(f.stamp().is_some_and(|s| s != third));
    }

    #[test]
    fn pushed_rows_are_taken_only_in_an_unbroken_run() {
        use crate::storage::totals::CountedRow;
        let row = |player_id, games| CountedRow {
            player_id,
            games,
            wins: 0,
            points: 0,
            self_picks: 0,
            jokerless_wins: 0,
            deal_ins: 0,
            dead_hands: 0,
            wall_games: 0,
            mu: None,
            sigma: None,
        };
        let cache = StandingsCache::default();
        let push = |revision, rows, updating| cache.push(7, revision, Pushed { updating, rows });
        push(11, vec![row(1, 1), row(2, 1)], false);
        push(12, vec![row(1, 2)], true);
        push(14, vec![row(3, 1)], false);
        assert!(cache.take_pushed(7, 9).is_none(), "10 is missing");
        let (reached, updating, mut rows) = cache.take_pushed(7, 10).unwrap();
        rows.sort_unstable_by_key(|r| r.player_id);
        assert_eq!((reached, updating), (12, true));
        assert_eq!(rows, vec![row(1, 2), row(2, 1)], "the later row wins");
        assert!(cache.take_pushed(7, 12).is_none(), "13 is missing");
        assert_eq!(cache.take_pushed(7, 13).map(|t| t.0), Some(14));
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
