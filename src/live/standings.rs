//! Standings as this process holds them: bodies by revision, rows per league, what new games pushed.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock};

use quick_cache::Weighter;
use quick_cache::sync::Cache;
use tokio::sync::Semaphore;

use super::CacheBudget;

use crate::storage::seasons::leagues::League;

/// Standings bodies by league, with the revision they were computed at. Every write that can
/// move standings bumps the league's revision in PostgreSQL, so a process serves a cached body
/// only if it was computed at the revision the request read, or a later one: safe with several
/// processes. One computation per league runs at a time in a process; readers arriving
/// meanwhile wait for it and take its body instead of computing the same standings again.
///
/// The bodies and the rows held per league are bounded by the memory they take (`CacheBudget`),
/// however many leagues are read: the least used go first (a league dropped is read from the
/// database again on its next read).
pub struct StandingsCache {
    bodies: Cache<i64, Cached, BodyBytes>,
    flights: Cache<i64, Flight, FlightBytes>,
    entries: Mutex<HashMap<i64, Arc<Semaphore>>>,
    /// The rows this process's new games changed, by league and standings revision, until a
    /// read takes them into the league's held rows.
    pushed: Mutex<PushedRows>,
    /// The most rows `pushed` keeps in all.
    pushed_max_rows: usize,
    /// Leagues whose ratings this process is replaying after a correction.
    pub replays: Arc<Mutex<std::collections::HashSet<i64>>>,
}

#[derive(Default)]
struct PushedRows {
    leagues: HashMap<i64, BTreeMap<i64, Pushed>>,
    rows: usize,
}

/// A league's held rows and the memory they took when last weighed.
#[derive(Clone)]
struct Flight {
    lines: Arc<tokio::sync::Mutex<HeldLines>>,
    bytes: u64,
}

/// The memory a kept body takes: its bytes, its tag and the league it was read with.
#[derive(Clone)]
struct BodyBytes;

impl Weighter<i64, Cached> for BodyBytes {
    fn weight(&self, _: &i64, c: &Cached) -> u64 {
        // A gzip form, when made, is about a fifth of the body.
        (c.body.len() + c.body.len() / 5 + c.tag.len() + LEAGUE_BYTES) as u64
    }
}

#[derive(Clone)]
struct FlightBytes;

impl Weighter<i64, Flight> for FlightBytes {
    fn weight(&self, _: &i64, f: &Flight) -> u64 {
        f.bytes
    }
}

/// About what a league's row takes in memory (its name, settings and board).
const LEAGUE_BYTES: usize = 1024;
/// About what one held standings row takes (totals, rating, the map's own share).
const ROW_BYTES: usize = 160;
/// What one written row's entry takes in its map (the player, the fingerprint, the place).
const WRITTEN_ROW_BYTES: usize = std::mem::size_of::<(i64, WrittenRow)>() + 1;

impl Default for StandingsCache {
    fn default() -> Self {
        StandingsCache::with_budget(&CacheBudget::default())
    }
}

/// A league's standings rows as this process holds them, brought up to date by reading only the
/// rows changed since `revision`.
#[derive(Debug, Default)]
pub struct HeldLines {
    /// The revision the rows are at (`None`: none read yet).
    pub revision: Option<i64>,
    /// Each player with a counted game: totals and rating.
    pub rows: HashMap<i64, crate::storage::seasons::totals::Rated>,
    /// The league's standings state at `revision`.
    pub state: Option<crate::storage::seasons::totals::LeagueState>,
    /// The league as it stood at `revision`.
    pub league: Option<Arc<League>>,
    /// The stamp (see `Freshness`) the rows were last read from the database under.
    pub stamp: Option<u64>,
    /// The last body written and where each player's row sits in it: a new body writes again
    /// only the rows that changed (a game changes four players' rows and the places between
    /// their old and new ranks) and copies the others' JSON from the last body.
    pub written: Written,
}

/// The last standings body written from a league's held rows, and for each player a fingerprint
/// of their row as written there and where its JSON sits in the body. The body is the one the
/// body cache keeps (shared, not copied), so a league's rows are held once as JSON, not again
/// as rows and as JSON of their own.
#[derive(Debug, Default)]
pub struct Written {
    pub body: bytes::Bytes,
    pub rows: HashMap<i64, WrittenRow>,
}

/// A row as last written: its fingerprint (two halves, so that the map's entries stay 32
/// bytes) and its JSON's place in the body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WrittenRow {
    pub print: [u64; 2],
    pub start: u32,
    pub end: u32,
}

/// What one new game changed in a league's standings: the revision it was counted at, whether
/// the ratings are being replayed, and its players' rows as they stand after it.
#[derive(Debug, Clone)]
pub struct Pushed {
    pub updating: bool,
    pub rows: Vec<crate::storage::seasons::totals::CountedRow>,
}

/// A standings body as served: its JSON, its entity tag, and its gzip form (made at most once
/// per body, by the first request that takes gzip).
#[derive(Clone)]
pub struct Served {
    pub json: bytes::Bytes,
    /// Quoted, as an HTTP entity tag.
    pub tag: String,
    gzip: Arc<OnceLock<bytes::Bytes>>,
}

impl Served {
    /// A body not compressed yet.
    pub fn new(json: bytes::Bytes, tag: String) -> Served {
        Served {
            json,
            tag,
            gzip: Arc::default(),
        }
    }

    /// The body compressed with gzip (at the fastest level: standings change with every game,
    /// and a fast level already makes a standings body about five times smaller).
    pub fn gzipped(&self) -> bytes::Bytes {
        self.gzip
            .get_or_init(|| {
                use std::io::Write;
                let mut z = flate2::write::GzEncoder::new(
                    Vec::with_capacity(self.json.len() / 4 + 64),
                    flate2::Compression::fast(),
                );
                // Writing to a Vec cannot fail.
                let _ = z.write_all(&self.json);
                bytes::Bytes::from(z.finish().unwrap_or_default())
            })
            .clone()
    }

    /// The entity tag of the gzip form: the body's tag with `-gzip` before its closing quote.
    pub fn gzip_tag(&self) -> String {
        match self.tag.strip_suffix('"') {
            Some(open) => format!("{open}-gzip\""),
            None => format!("{}-gzip", self.tag),
        }
    }
}

impl From<&Cached> for Served {
    fn from(c: &Cached) -> Served {
        Served {
            json: c.body.clone(),
            tag: c.tag.clone(),
            gzip: c.gzip.clone(),
        }
    }
}

impl Cached {
    /// A body computed at `revision` and served as `served`.
    pub fn new(revision: i64, served: &Served, stamp: Option<u64>, league: Arc<League>) -> Cached {
        Cached {
            revision,
            body: served.json.clone(),
            tag: served.tag.clone(),
            gzip: served.gzip.clone(),
            stamp,
            league,
        }
    }
}

/// One league's standings body as kept.
#[derive(Clone)]
pub struct Cached {
    /// The revision it was computed at.
    pub revision: i64,
    pub body: bytes::Bytes,
    /// Its entity tag.
    pub tag: String,
    /// The body compressed with gzip, once a client that takes gzip has asked for it.
    pub gzip: Arc<OnceLock<bytes::Bytes>>,
    /// The stamp (see `Freshness`) under which the league was last read at this revision.
    pub stamp: Option<u64>,
    /// The league as it stood at this revision.
    pub league: Arc<League>,
}

impl StandingsCache {
    pub(crate) const MAX: usize = 10_000;
    /// Changes kept per league for reads to take.
    const PUSHED: usize = 1024;
    /// New games of one league in flight at once in this process (measured with
    /// `scripts/bench-league.sh`: with 8 clients entering games, two keep the entries' pace and
    /// leave the most time to standings reads).
    const ENTRY_SLOTS: usize = 2;

    /// A cache within `budget`'s shares for standings.
    pub fn with_budget(budget: &CacheBudget) -> StandingsCache {
        StandingsCache {
            bodies: Cache::with_weighter(1024, budget.standings_bodies, BodyBytes),
            flights: Cache::with_weighter(1024, budget.standings_rows, FlightBytes),
            entries: Mutex::default(),
            pushed: Mutex::default(),
            pushed_max_rows: (budget.pushed_rows / ROW_BYTES as u64) as usize,
            replays: Arc::default(),
        }
    }

    /// What the bodies and the held rows take now (estimated bytes): (bodies, rows).
    pub fn bytes(&self) -> (u64, u64) {
        (self.bodies.weight(), self.flights.weight())
    }

    /// The body computed at `revision` or later.
    pub fn get(&self, league: i64, revision: i64) -> Option<Served> {
        self.bodies
            .get(&league)
            .filter(|c| c.revision >= revision)
            .map(|c| Served::from(&c))
    }

    /// The body computed at `revision` or later, if the league was read under `stamp` (still
    /// current) at its revision and `admitted` lets the caller read that league.
    pub fn current(
        &self,
        league: i64,
        revision: i64,
        stamp: u64,
        admitted: impl Fn(&League) -> bool,
    ) -> Option<Served> {
        self.bodies
            .get(&league)
            .filter(|c| c.revision >= revision && c.stamp == Some(stamp) && admitted(&c.league))
            .map(|c| Served::from(&c))
    }

    /// The league was read again at `revision` under `stamp`: the body kept for that revision may
    /// be answered from memory under that stamp.
    pub fn restamp(&self, league: i64, revision: i64, stamp: u64, read: &Arc<League>) {
        if let Some(mut c) = self.bodies.peek(&league)
            && c.revision == revision
        {
            c.stamp = Some(stamp);
            c.league = read.clone();
            self.bodies.insert(league, c);
        }
    }

    /// The revision of the league's latest body, if there is one.
    pub fn revision(&self, league: i64) -> Option<i64> {
        self.bodies.peek(&league).map(|c| c.revision)
    }

    pub fn put(&self, league: i64, cached: Cached) {
        if self
            .bodies
            .peek(&league)
            .is_none_or(|c| c.revision <= cached.revision)
        {
            self.bodies.insert(league, cached);
        }
    }

    /// Keeps what a new game of this process changed, counted at `revision`. Past the rows the
    /// budget allows, every league's are dropped (a read then takes its rows from the database).
    pub fn push(&self, league: i64, revision: i64, pushed: Pushed) {
        if let Ok(mut held) = self.pushed.lock() {
            let added = pushed.rows.len().max(1);
            if held.rows + added > self.pushed_max_rows
                || (held.leagues.len() > Self::MAX && !held.leagues.contains_key(&league))
            {
                *held = PushedRows::default();
            }
            held.rows += added;
            let queue = held.leagues.entry(league).or_default();
            queue.insert(revision, pushed);
            let mut dropped = 0;
            while queue.len() > Self::PUSHED {
                dropped += queue.pop_first().map_or(0, |(_, p)| p.rows.len().max(1));
            }
            held.rows -= dropped;
        }
    }

    /// The pushed changes that follow revision `from` one after another, merged (a later row
    /// replaces an earlier one), with the last revision they reach and whether the ratings were
    /// being replayed then; older changes are dropped.
    pub fn take_pushed(
        &self,
        league: i64,
        from: i64,
    ) -> Option<(i64, bool, Vec<crate::storage::seasons::totals::CountedRow>)> {
        let mut held = self.pushed.lock().ok()?;
        let held = &mut *held;
        let queue = held.leagues.get_mut(&league)?;
        let before: usize = queue.values().map(|p| p.rows.len().max(1)).sum();
        *queue = queue.split_off(&(from + 1));
        let mut reached = from;
        let mut updating = false;
        let mut rows: HashMap<i64, crate::storage::seasons::totals::CountedRow> = HashMap::new();
        while let Some(next) = queue.remove(&(reached + 1)) {
            reached += 1;
            updating = next.updating;
            for row in next.rows {
                rows.insert(row.player_id, row);
            }
        }
        let after: usize = queue.values().map(|p| p.rows.len().max(1)).sum();
        if queue.is_empty() {
            held.leagues.remove(&league);
        }
        held.rows = held.rows.saturating_sub(before - after);
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
    /// this process holds for it (weighed by `weigh` once brought up to date).
    pub fn flight(&self, league: i64) -> Arc<tokio::sync::Mutex<HeldLines>> {
        if let Some(f) = self.flights.get(&league) {
            return f.lines;
        }
        let lines: Arc<tokio::sync::Mutex<HeldLines>> = Arc::default();
        self.flights.insert(
            league,
            Flight {
                lines: lines.clone(),
                bytes: LEAGUE_BYTES as u64,
            },
        );
        lines
    }

    /// The league's held rows were brought up to date: what they take now counts in the budget.
    pub fn weigh(&self, league: i64, held: &HeldLines) {
        if let Some(f) = self.flights.peek(&league) {
            let bytes = Self::held_bytes(held);
            if bytes != f.bytes {
                self.flights.insert(
                    league,
                    Flight {
                        lines: f.lines,
                        bytes,
                    },
                );
            }
        }
    }

    fn held_bytes(held: &HeldLines) -> u64 {
        // The body is counted here too: the body cache may have let it go while these rows hold it.
        let written = held.written.rows.capacity() * WRITTEN_ROW_BYTES + held.written.body.len();
        (LEAGUE_BYTES + held.rows.capacity() * ROW_BYTES + written) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::seasons::totals::CountedRow;

    /// A player's row after `games` games, nothing else counted.
    fn row(player_id: i64, games: i64) -> CountedRow {
        CountedRow {
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
        }
    }

    #[test]
    fn pushed_rows_are_taken_only_in_an_unbroken_run() {
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

    fn league(id: i64) -> Arc<League> {
        Arc::new(League {
            id,
            club_id: 1,
            name: format!("League {id}"),
            card_id: None,
            builtin_card: Some("demo-2026".into()),
            ruleset: serde_json::json!("nmjl-money"),
            games_per_table: 4,
            visibility: "public".into(),
            board: "total".into(),
            min_games: 0,
            starts_on: None,
            ends_on: None,
            kind: "league".into(),
            best_per_night: 2,
            drop_worst_nights: 0,
            best_per_week: 2,
            confirm_hours: 48,
            same_table_per_week: None,
            place: None,
            sanctioning_number: None,
            previous_id: None,
            next_id: None,
            carried_in: false,
            created_at: chrono::Utc::now(),
            revision: 1,
        })
    }

    #[test]
    fn standings_kept_stay_within_the_budget_however_many_leagues_are_read() {
        let budget = CacheBudget::of_megabytes(16);
        let cache = StandingsCache::with_budget(&budget);
        // 2,000 leagues' bodies of 50 kB each (100 MB) through a 6 MB share.
        for id in 1..=2000 {
            cache.put(
                id,
                Cached {
                    revision: 1,
                    body: bytes::Bytes::from(vec![b' '; 50_000]),
                    tag: "\"t\"".into(),
                    gzip: Arc::default(),
                    stamp: None,
                    league: league(id),
                },
            );
            // Held rows of 200 players each.
            let flight = cache.flight(id);
            let mut held = flight.try_lock().unwrap();
            held.rows.reserve(200);
            cache.weigh(id, &held);
            let (bodies, rows) = cache.bytes();
            assert!(
                bodies <= budget.standings_bodies,
                "{bodies} bytes of bodies"
            );
            assert!(rows <= budget.standings_rows, "{rows} bytes of held rows");
        }
        assert!(cache.get(2000, 1).is_some(), "the body just kept is there");
        let kept = (1..=2000).filter(|id| cache.get(*id, 1).is_some()).count();
        assert!(kept < 130, "{kept} bodies of 50 kB kept in 6 MB");
        let (bodies, _) = cache.bytes();
        assert!(
            bodies > budget.standings_bodies / 2,
            "the share is used: {bodies}"
        );
    }

    #[test]
    fn pushed_rows_stay_within_the_budget() {
        let budget = CacheBudget::of_megabytes(16);
        let cache = StandingsCache::with_budget(&budget);
        let rows = |n: i64| (0..n).map(|player| row(player, 1)).collect::<Vec<_>>();
        for league in 0..5_000 {
            for revision in 1..=4 {
                let pushed = Pushed {
                    updating: false,
                    rows: rows(4),
                };
                cache.push(league, revision, pushed);
            }
            let held = cache.pushed.lock().unwrap().rows;
            assert!(held <= cache.pushed_max_rows, "{held} rows");
        }
        // Taking a league's rows gives back their count.
        let before = cache.pushed.lock().unwrap().rows;
        assert_eq!(cache.take_pushed(4_999, 0).map(|t| t.0), Some(4));
        assert_eq!(cache.pushed.lock().unwrap().rows, before - 16);
    }
}
