//! Leagues' counted games kept in memory for head-to-head among many tied players.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Leagues' counted games as (game, player, score) rows in standings order, kept in memory for
/// head-to-head among many tied players: read from the database only past the last game seen,
/// and whole again after a correction. At most `MAX` leagues are kept, within the memory the
/// budget gives them (about 10 MB for a league of 100,000 games); when another is needed the
/// least lately used that no request holds goes first.
pub struct GameLogs {
    logs: Mutex<Logs>,
    max_bytes: u64,
}

#[derive(Default)]
struct Logs {
    /// Each league's log and when it was last asked for (a tick of `clock`).
    map: HashMap<i64, (Arc<tokio::sync::Mutex<GameLog>>, u64)>,
    clock: u64,
}

impl Default for GameLogs {
    fn default() -> Self {
        GameLogs::with_budget(&super::CacheBudget::default())
    }
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

impl GameLog {
    /// About what the log takes in memory.
    pub fn bytes(&self) -> u64 {
        (self.rows.capacity() * std::mem::size_of::<(i64, u32, i64)>()
            + self.players.capacity() * 8
            + self.numbers.capacity() * 24) as u64
    }
}

impl GameLogs {
    const MAX: usize = 8;

    pub fn with_budget(budget: &super::CacheBudget) -> GameLogs {
        GameLogs {
            logs: Mutex::default(),
            max_bytes: budget.game_logs,
        }
    }

    pub fn log(&self, league: i64) -> Arc<tokio::sync::Mutex<GameLog>> {
        let Ok(mut logs) = self.logs.lock() else {
            return Arc::default();
        };
        logs.clock += 1;
        let now = logs.clock;
        if let Some((log, used)) = logs.map.get_mut(&league) {
            *used = now;
            return log.clone();
        }
        // Logs no request holds, least lately used first, with what each takes.
        let mut idle: Vec<(u64, i64, u64)> = logs
            .map
            .iter()
            .filter(|(_, (l, _))| Arc::strong_count(l) == 1)
            .filter_map(|(k, (l, used))| l.try_lock().ok().map(|g| (*used, *k, g.bytes())))
            .collect();
        idle.sort_unstable();
        let mut bytes: u64 = idle.iter().map(|(_, _, b)| b).sum();
        for (_, victim, size) in idle {
            if logs.map.len() < Self::MAX && bytes <= self.max_bytes {
                break;
            }
            logs.map.remove(&victim);
            bytes -= size;
        }
        let log: Arc<tokio::sync::Mutex<GameLog>> = Arc::default();
        logs.map.insert(league, (log.clone(), now));
        log
    }

    /// The leagues kept and what their logs take (those no request holds now).
    pub fn usage(&self) -> (usize, u64) {
        self.logs.lock().map_or((0, 0), |logs| {
            let bytes = logs
                .map
                .values()
                .filter_map(|(l, _)| l.try_lock().ok().map(|g| g.bytes()))
                .sum();
            (logs.map.len(), bytes)
        })
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
    fn game_logs_stay_within_their_budget_and_the_least_used_go_first() {
        // Room for about three logs of 10,000 rows.
        let one = {
            let mut log = GameLog::default();
            log.clear();
            log.extend((0..10_000).map(|g| (g, g, g % 40, 5)).collect());
            log.bytes()
        };
        let budget = super::super::CacheBudget {
            game_logs: one * 3 + one / 2,
            ..Default::default()
        };
        let logs = GameLogs::with_budget(&budget);
        for league in 1..=6 {
            let log = logs.log(league);
            let mut log = log.try_lock().unwrap();
            log.clear();
            log.extend((0..10_000).map(|g| (g, g, g % 40, 5)).collect());
            drop(log);
            // League 1 is read again each time: it is never the least lately used.
            drop(logs.log(1));
            let (_, bytes) = logs.usage();
            assert!(bytes <= budget.game_logs + one, "{bytes} bytes kept");
        }
        let (count, _) = logs.usage();
        assert!(count <= 4, "{count} logs kept");
        let kept = logs.logs.lock().unwrap().map.contains_key(&1);
        assert!(kept, "the league read every time stays");
    }
}
