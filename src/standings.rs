//! Standings: ranking players by the league's board, with the tie-breaks clubs use. Pure
//! computation over totals and per-game scores.

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use utoipa::ToSchema;

/// One player's totals, the input of ranking.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub player_id: i64,
    pub name: String,
    pub games: i64,
    pub wins: i64,
    pub points: i64,
    pub self_picks: i64,
    pub jokerless_wins: i64,
    pub deal_ins: i64,
    pub dead_hands: i64,
    pub wall_games: i64,
}

/// How the board ranks players.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Board {
    /// Total points.
    Total,
    /// Average points per game, among players with at least `min_games` games.
    Average { min_games: i64 },
}

#[derive(Debug, Clone, Serialize, ToSchema, PartialEq)]
pub struct Standing {
    /// 1 for first; players who cannot be told apart share a rank. `null` for players below
    /// the board's minimum number of games.
    pub rank: Option<u32>,
    /// True when another player has the same rank.
    pub shared: bool,
    pub player_id: i64,
    pub player: String,
    pub games: i64,
    pub wins: i64,
    pub points: i64,
    /// Points per game, to two decimals.
    pub average: f64,
    pub self_picks: i64,
    pub jokerless_wins: i64,
    /// Times this player's discard gave a win.
    pub deal_ins: i64,
    pub dead_hands: i64,
    pub wall_games: i64,
    /// Weng-Lin (OpenSkill) rating, μ − 3σ; see `ratings`.
    pub rating: Option<f64>,
}

fn average(l: &Line) -> f64 {
    if l.games == 0 {
        0.0
    } else {
        (l.points as f64 / l.games as f64 * 100.0).round() / 100.0
    }
}

/// Ranks players: by the board, then more wins, then fewer deal-ins, then head-to-head points
/// (points scored in games shared with the other tied players). `games` holds
/// (game, player, score) for every counted game, rows of a game next to each other.
pub fn rank(lines: Vec<Line>, board: Board, games: &[(i64, i64, i64)]) -> Vec<Standing> {
    let eligible = |l: &Line| match board {
        Board::Total => true,
        Board::Average { min_games } => l.games >= min_games,
    };
    let key = |l: &Line| match board {
        Board::Total => l.points as f64,
        Board::Average { .. } => l.points as f64 / l.games.max(1) as f64,
    };
    let (mut ranked, mut others): (Vec<Line>, Vec<Line>) =
        lines.into_iter().partition(|l| eligible(l));
    let primary = |a: &Line, b: &Line| {
        key(b)
            .partial_cmp(&key(a))
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(b.wins.cmp(&a.wins))
            .then(a.deal_ins.cmp(&b.deal_ins))
    };
    ranked.sort_by(|a, b| primary(a, b).then(a.name.cmp(&b.name)));

    // Players in the same game, for head-to-head.
    let mut by_game: HashMap<i64, Vec<(i64, i64)>> = HashMap::new();
    for &(g, p, s) in games {
        by_game.entry(g).or_default().push((p, s));
    }

    let mut out = Vec::with_capacity(ranked.len() + others.len());
    let mut i = 0;
    while i < ranked.len() {
        let mut j = i + 1;
        while j < ranked.len() && primary(&ranked[i], &ranked[j]).is_eq() {
            j += 1;
        }
        let group: Vec<Line> = ranked[i..j].to_vec();
        let ids: HashSet<i64> = group.iter().map(|l| l.player_id).collect();
        // Head-to-head: each tied player's points in games with another tied player.
        let h2h = |p: i64| -> i64 {
            by_game
                .values()
                .filter(|seats| {
                    seats.iter().any(|(q, _)| *q == p)
                        && seats.iter().any(|(q, _)| *q != p && ids.contains(q))
                })
                .filter_map(|seats| seats.iter().find(|(q, _)| *q == p).map(|(_, s)| *s))
                .sum()
        };
        let mut scored: Vec<(i64, Line)> =
            group.into_iter().map(|l| (h2h(l.player_id), l)).collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.name.cmp(&b.1.name)));
        let mut k = 0;
        while k < scored.len() {
            let mut m = k + 1;
            while m < scored.len() && scored[m].0 == scored[k].0 {
                m += 1;
            }
            let shared = m - k > 1;
            for (_, l) in &scored[k..m] {
                out.push(standing(l, Some((i + k + 1) as u32), shared));
            }
            k = m;
        }
        i = j;
    }
    others.sort_by(|a, b| b.games.cmp(&a.games).then(a.name.cmp(&b.name)));
    out.extend(others.iter().map(|l| standing(l, None, false)));
    out
}

fn standing(l: &Line, rank: Option<u32>, shared: bool) -> Standing {
    Standing {
        rank,
        shared,
        player_id: l.player_id,
        player: l.name.clone(),
        games: l.games,
        wins: l.wins,
        points: l.points,
        average: average(l),
        self_picks: l.self_picks,
        jokerless_wins: l.jokerless_wins,
        deal_ins: l.deal_ins,
        dead_hands: l.dead_hands,
        wall_games: l.wall_games,
        rating: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(id: i64, points: i64, wins: i64, deal_ins: i64, games: i64) -> Line {
        Line {
            player_id: id,
            name: format!("P{id}"),
            games,
            wins,
            points,
            self_picks: 0,
            jokerless_wins: 0,
            deal_ins,
            dead_hands: 0,
            wall_games: 0,
        }
    }

    #[test]
    fn ties_break_by_wins_then_deal_ins_then_head_to_head_then_share() {
        let lines = vec![
            line(1, 100, 2, 1, 4),
            line(2, 100, 3, 1, 4), // more wins than 1
            line(3, 100, 2, 0, 4), // fewer deal-ins than 1
            line(4, 50, 1, 1, 4),
            line(5, 50, 1, 1, 4),
            line(6, 10, 0, 0, 4),
            line(7, 10, 0, 0, 4),
        ];
        // Game 1: 4 and 5 met, 4 scored more. 6 and 7 never met each other.
        let games = vec![(1, 4, 30), (1, 5, -30), (2, 6, 5), (3, 7, 5)];
        let s = rank(lines, Board::Total, &games);
        let order: Vec<(i64, Option<u32>, bool)> =
            s.iter().map(|x| (x.player_id, x.rank, x.shared)).collect();
        assert_eq!(
            order,
            [
                (2, Some(1), false),
                (3, Some(2), false),
                (1, Some(3), false),
                (4, Some(4), false),
                (5, Some(5), false),
                (6, Some(6), true),
                (7, Some(6), true)
            ]
        );
    }

    #[test]
    fn average_board_ranks_only_players_with_enough_games() {
        let lines = vec![
            line(1, 100, 1, 0, 10),
            line(2, 90, 1, 0, 3),
            line(3, 30, 0, 0, 2),
        ];
        let s = rank(lines, Board::Average { min_games: 3 }, &[]);
        assert_eq!((s[0].player_id, s[0].rank), (2, Some(1)));
        assert_eq!(
            (s[1].player_id, s[1].rank, s[1].average),
            (1, Some(2), 10.0)
        );
        assert_eq!((s[2].player_id, s[2].rank), (3, None));
    }
}

/// Weng-Lin (OpenSkill) ratings from games in the order they were played: each game is a
/// free-for-all ranked by the game's scores (equal scores tie). Games where everyone scored
/// the same (a wall game with no penalties) tell nothing and are skipped. The rating shown is
/// the conservative μ − 3σ, so a new player starts at 0 and rises with evidence.
pub fn ratings(games: &[(i64, i64, i64)]) -> HashMap<i64, f64> {
    use skillratings::MultiTeamOutcome;
    use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_multi_team};

    let config = WengLinConfig::new();
    let mut rating: HashMap<i64, WengLinRating> = HashMap::new();
    let mut i = 0;
    while i < games.len() {
        let mut j = i + 1;
        while j < games.len() && games[j].0 == games[i].0 {
            j += 1;
        }
        let game = &games[i..j];
        i = j;
        if game.len() < 2 || game.iter().all(|g| g.2 == game[0].2) {
            continue;
        }
        let mut scores: Vec<i64> = game.iter().map(|g| g.2).collect();
        scores.sort_unstable_by(|a, b| b.cmp(a));
        scores.dedup();
        let teams: Vec<[WengLinRating; 1]> = game
            .iter()
            .map(|g| [rating.get(&g.1).copied().unwrap_or_default()])
            .collect();
        let input: Vec<(&[WengLinRating], MultiTeamOutcome)> = game
            .iter()
            .zip(&teams)
            .map(|(g, team)| {
                let place = scores.iter().position(|&s| s == g.2).unwrap_or(0) + 1;
                (&team[..], MultiTeamOutcome::new(place))
            })
            .collect();
        for (g, new) in game.iter().zip(weng_lin_multi_team(&input, &config)) {
            if let Some(r) = new.first() {
                rating.insert(g.1, *r);
            }
        }
    }
    rating
        .into_iter()
        .map(|(p, r)| {
            (
                p,
                ((r.rating - 3.0 * r.uncertainty) * 100.0).round() / 100.0,
            )
        })
        .collect()
}

#[cfg(test)]
mod rating_tests {
    use super::*;

    #[test]
    fn winners_rise_and_losers_fall() {
        // Player 1 wins three games against 2, 3 and 4; a wall game with equal scores is skipped.
        let mut games = Vec::new();
        for g in 0..3 {
            games.extend([(g, 1, 150), (g, 2, -50), (g, 3, -50), (g, 4, -50)]);
        }
        games.extend([(9, 1, 0), (9, 2, 0), (9, 3, 0), (9, 4, 0)]);
        let r = ratings(&games);
        assert!(r[&1] > r[&2], "{r:?}");
        assert_eq!(r[&2], r[&3]);
        let once = ratings(&games[..12]);
        assert_eq!(once, r, "the equal-score game changes nothing");
    }
}
