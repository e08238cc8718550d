//! How much memory the live read models may take, split between them.

/// The memory the caches of one process may take together (estimated bytes), and each one's
/// share: what grows with the number of leagues read is bounded by this, however many there
/// are. Set with `--cache-mb`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheBudget {
    /// Standings bodies as answered (JSON).
    pub standings_bodies: u64,
    /// Standings rows held per league, brought up to date by reading only what changed.
    pub standings_rows: u64,
    /// Rows this process's new games changed, until a read takes them.
    pub pushed_rows: u64,
    /// Leagues' counted games for head-to-head among many tied players.
    pub game_logs: u64,
    /// Compiled uploaded cards.
    pub cards: u64,
}

impl CacheBudget {
    /// The default `--cache-mb`.
    pub const DEFAULT_MB: u64 = 256;

    /// `megabytes` split: 3/8 standings bodies, 1/8 held rows, 1/16 pushed rows, 3/16 game logs,
    /// 1/4 cards.
    pub fn of_megabytes(megabytes: u64) -> CacheBudget {
        let sixteenth = megabytes * 1024 * 1024 / 16;
        CacheBudget {
            standings_bodies: 6 * sixteenth,
            standings_rows: 2 * sixteenth,
            pushed_rows: sixteenth,
            game_logs: 3 * sixteenth,
            cards: 4 * sixteenth,
        }
    }
}

impl Default for CacheBudget {
    fn default() -> Self {
        CacheBudget::of_megabytes(Self::DEFAULT_MB)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shares_add_up_to_the_budget() {
        for mb in [16, 256, 1000] {
            let b = CacheBudget::of_megabytes(mb);
            let total =
                b.standings_bodies + b.standings_rows + b.pushed_rows + b.game_logs + b.cards;
            assert_eq!(total, mb * 1024 * 1024);
        }
    }
}
