//! Leagues' counted games kept in memory for head-to-head among many tied players.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

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
}
