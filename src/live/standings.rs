//! Standings as this process holds them: bodies by revision, rows per league, what new games pushed.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use tokio::sync::Semaphore;

use crate::storage::leagues::League;

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
    pub(crate) const MAX: usize = 10_000;
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
