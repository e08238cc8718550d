//! What every operation shares: the pool, the keys, the rate limits, and the live read models
//! (`live`: caches, change notices heard, the event hub, game entry's lane). Nothing that
//! matters lives only here: several processes can serve one database.

use std::sync::Arc;

use sqlx::PgPool;

use crate::auth::Keys;
use crate::live::limits::Limits;
pub use crate::live::{
    AddressSlot, CacheBudget, Cached, CardCache, EVENTS_PAGE, EntryLane, Freshness, GameLog,
    GameLogs, Grants, HeldLines, Hub, MAX_STREAMS, Pushed, Served, StandingsCache, Subscription,
    Unheard, Written, WrittenRow,
};

/// Imports (games files, opening balances) one process reads at once; more wait their turn
/// (429 with `Retry-After`), so memory stays bounded however many organizers import together.
pub const MAX_IMPORTS_AT_ONCE: usize = 2;

pub struct AppState {
    pub db: PgPool,
    pub keys: Keys,
    pub limits: Limits,
    pub cards: CardCache,
    pub standings: StandingsCache,
    pub game_logs: GameLogs,
    /// Documents worked out from a league's games (the season's pictures), kept per league.
    pub memo: Memo,
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
    /// Rung when a night closes: the embedded default then takes a backup.
    pub backup_due: Arc<tokio::sync::Notify>,
    /// What `/metrics` reports.
    pub metrics: Arc<crate::metrics::Metrics>,
    /// Since when the private PostgreSQL this process runs has been found down (its supervisor
    /// restarting it); `None` while it runs, and always with an external database.
    pub private_database_down: std::sync::Mutex<Option<std::time::Instant>>,
    /// Imports being read at once in this process (each holds a file and its rows in memory).
    pub imports: Arc<tokio::sync::Semaphore>,
    /// How mail is sent (`None`: this process sends none, as in most tests).
    pub mailer: Option<Arc<crate::mail::Mailer>>,
    /// Rung when mail was put in the outbox.
    pub mail_due: Arc<tokio::sync::Notify>,
    /// The service's address as its users reach it (links in mail start with it).
    pub public_url: String,
    /// Messages one club may send in 24 hours.
    pub mail_per_club_day: u32,
    /// Distinct outside addresses one account may have mailed in 24 hours.
    pub outside_mail_per_account_day: u32,
    /// Clubs one account may make in 24 hours.
    pub clubs_per_account_day: u32,
    /// Messages others may have the service send one address without an account in 24 hours.
    pub asked_mail_per_address_day: u32,
    /// Messages one member's actions may have the service send to others in 24 hours.
    pub member_mail_per_day: u32,
    /// How long the background workers wait for work before they look again.
    pub worker_pass: std::time::Duration,
}

/// How long the background workers wait for work before they look again, unless set.
pub const WORKER_PASS: std::time::Duration = std::time::Duration::from_secs(2);

impl AppState {
    pub fn new(db: PgPool, session_key: &str) -> AppState {
        AppState {
            limits: Limits::new(Some(db.clone())),
            db,
            keys: Keys::new(session_key),
            cards: CardCache::default(),
            standings: StandingsCache::default(),
            game_logs: GameLogs::default(),
            memo: Memo::default(),
            freshness: Arc::default(),
            grants: Grants::default(),
            events: Hub::default(),
            webhooks_allow_private: false,
            entry: None,
            backup_due: Arc::default(),
            metrics: Arc::default(),
            private_database_down: std::sync::Mutex::new(None),
            imports: Arc::new(tokio::sync::Semaphore::new(MAX_IMPORTS_AT_ONCE)),
            mailer: None,
            mail_due: Arc::default(),
            public_url: "http://127.0.0.1:8080".into(),
            mail_per_club_day: 2000,
            outside_mail_per_account_day: 50,
            clubs_per_account_day: 3,
            asked_mail_per_address_day: 3,
            member_mail_per_day: 10,
            worker_pass: WORKER_PASS,
        }
    }

    /// The apps' API rate limits: requests a minute per address without credentials and per API
    /// token (0: none).
    pub fn set_api_limits(&mut self, per_address: u32, per_token: u32) {
        self.limits.set_api(per_address, per_token);
    }

    /// The caches' memory: at most `budget` together.
    pub fn set_cache_budget(&mut self, budget: CacheBudget) {
        self.cards = CardCache::with_budget(budget.cards as usize);
        self.standings = StandingsCache::with_budget(&budget);
        self.game_logs = GameLogs::with_budget(&budget);
    }

    /// The connections new games are entered on: the lane's when there is one.
    pub fn entry_db(&self) -> &PgPool {
        self.entry.as_ref().map_or(&self.db, |lane| &lane.db)
    }
}

/// How many leagues' documents `Memo` keeps at most (the one read longest ago goes first).
const MEMO_LEAGUES: usize = 64;

/// Documents worked out from a league's games, one per league, each under the stamp it was
/// worked out at (the league's standings revision and whatever else it depends on): a reader
/// with the same stamp uses it again, any other stamp works it out again. What a document is,
/// the domain says; kept here as `Any`.
#[derive(Default)]
pub struct Memo {
    kept: std::sync::Mutex<MemoEntries>,
    /// One working-out at a time per league: the others wait for it and take what it kept.
    flights: std::sync::Mutex<std::collections::HashMap<i64, Arc<tokio::sync::Mutex<()>>>>,
}

type MemoEntries = std::collections::HashMap<i64, (u64, u64, Arc<dyn std::any::Any + Send + Sync>)>;

impl Memo {
    /// The league's document kept under `stamp`, if it is of type `T`.
    pub fn get<T: std::any::Any + Send + Sync>(&self, league: i64, stamp: u64) -> Option<Arc<T>> {
        let mut kept = self.kept.lock().ok()?;
        let tick = kept.values().map(|e| e.1).max().unwrap_or(0) + 1;
        let entry = kept.get_mut(&league)?;
        if entry.0 != stamp {
            return None;
        }
        entry.1 = tick;
        entry.2.clone().downcast::<T>().ok()
    }

    /// The league's lock for working its document out (held by one request at a time).
    pub fn flight(&self, league: i64) -> Arc<tokio::sync::Mutex<()>> {
        let mut flights = self.flights.lock().unwrap_or_else(|e| e.into_inner());
        if flights.len() > 4 * MEMO_LEAGUES {
            flights.retain(|_, f| Arc::strong_count(f) > 1);
        }
        flights.entry(league).or_default().clone()
    }

    /// The league's document of type `T` under whatever stamp it was kept, with that stamp.
    pub fn latest<T: std::any::Any + Send + Sync>(&self, league: i64) -> Option<(u64, Arc<T>)> {
        let kept = self.kept.lock().ok()?;
        let entry = kept.get(&league)?;
        Some((entry.0, entry.2.clone().downcast::<T>().ok()?))
    }

    /// Keeps `doc` as the league's document under `stamp`.
    pub fn put<T: std::any::Any + Send + Sync>(&self, league: i64, stamp: u64, doc: Arc<T>) {
        let Ok(mut kept) = self.kept.lock() else {
            return;
        };
        let tick = kept.values().map(|e| e.1).max().unwrap_or(0) + 1;
        if kept.len() >= MEMO_LEAGUES
            && !kept.contains_key(&league)
            && let Some(oldest) = kept.iter().min_by_key(|e| e.1.1).map(|e| *e.0)
        {
            kept.remove(&oldest);
        }
        kept.insert(league, (stamp, tick, doc));
    }
}
