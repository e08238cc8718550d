//! Standings: ranking players by the league's board, with the tie-breaks clubs use. Pure
//! computation over totals and per-game scores.

use std::collections::HashMap;

use serde::Serialize;
use utoipa::ToSchema;

/// One player's totals, the input of ranking.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
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
    /// On a board that does not count every game (best per night, dropped nights): the points
    /// and games that count (`counting`). The board ranks by these when set.
    #[sqlx(skip)]
    pub counted: Option<(i64, i64)>,
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
    #[schema(required = true)]
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating: Option<f64>,
    /// For a player tied with others on the board, wins and deal-ins: their points in the games
    /// they shared with those players, each game once (the last tie-break). Absent when the
    /// player is not so tied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head_to_head: Option<i64>,
    /// The tie-break that placed this player above the next ranked player (the row below):
    /// more wins, fewer deal-ins or head-to-head points. Absent where the board's own figure
    /// (points, counted points, average) already does, as the rows show; for the last ranked
    /// player, a rank shared with the next one and unranked players. The league page and the
    /// standings CSV say it for every row.
    #[serde(skip_serializing_if = "Ahead::by_the_board")]
    pub ahead: Option<Ahead>,
    /// On a board that does not count every game (best per night, dropped nights): the points
    /// that count, which the board ranks by (on an average board, `counted_average`). Absent
    /// when every game counts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counted_points: Option<i64>,
    /// The games whose scores count (with `counted_points`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counted_games: Option<i64>,
    /// Points per counted game, to two decimals (with `counted_points`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counted_average: Option<f64>,
    /// Night by night, what counted and what was dropped (with `counted_points`): every night
    /// of the league with a game, the player's missed ones included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nights: Option<Vec<NightCount>>,
    /// On a `best_per_week` board: week by week (each week the player played), the matches
    /// and what counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weeks: Option<Vec<WeekCount>>,
    /// What the player carried into the league from before it was kept here (an opening
    /// balance), already part of `games`, `wins` and `points` (and counted in full on any
    /// board). Absent when nothing was carried in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub carried: Option<Carried>,
}

/// A player's opening balance: points, games and wins carried into a league.
#[derive(Debug, Clone, Copy, Serialize, ToSchema, PartialEq)]
pub struct Carried {
    pub points: i64,
    pub games: i64,
    pub wins: i64,
}

impl Carried {
    /// "120 points over 6 games (2 wins) carried in".
    pub fn text(&self) -> String {
        let plural =
            |n: i64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        format!(
            "{} over {} ({}) carried in",
            plural(self.points, "point", "points"),
            plural(self.games, "game", "games"),
            plural(self.wins, "win", "wins")
        )
    }
}

/// One night of a player on a board that does not count every game.
#[derive(Debug, Clone, Serialize, ToSchema, PartialEq)]
pub struct NightCount {
    /// The night's number in the league.
    pub night: i32,
    /// Games the player played that night (0: missed).
    pub games: i64,
    /// Their points that night, every game.
    pub points: i64,
    /// The points of that night that count: the best `best_per_night` games' (all of them
    /// on other boards); 0 when the night is dropped.
    pub counted: i64,
    /// Games of that night that count.
    pub counted_games: i64,
    /// One of the player's `drop_worst_nights` lowest nights, not counted.
    pub dropped: bool,
}

/// A week (Monday to Sunday) as people say it: "Nov 23–29", "Nov 30–Dec 6".
pub fn week_words(monday: chrono::NaiveDate) -> String {
    let sunday = monday + chrono::Duration::days(6);
    if sunday.format("%m").to_string() == monday.format("%m").to_string() {
        format!("{}–{}", monday.format("%b %-d"), sunday.format("%-d"))
    } else {
        format!("{}–{}", monday.format("%b %-d"), sunday.format("%b %-d"))
    }
}

/// One calendar week (Monday to Sunday, on the league's clock) of a player on a
/// `best_per_week` board.
#[derive(Debug, Clone, Serialize, ToSchema, PartialEq)]
pub struct WeekCount {
    /// The week's Monday.
    pub week: chrono::NaiveDate,
    /// Matches the player played that week (a match: their games at one table on one day).
    pub matches: i64,
    /// Their points in those matches, every game.
    pub points: i64,
    /// The points that count: their best `best_per_week` match scores of the week.
    pub counted: i64,
    /// Matches whose scores count.
    pub counted_matches: i64,
    /// Matches left out by the league's limit on matches a week with the same three
    /// opponents (`same_table_per_week`).
    pub over_limit: i64,
}

/// What a board counts besides a plain sum: the best `best_per_night` game scores of each of a
/// player's nights, and `drop_worst_nights` of their lowest nights left out; or, by calendar
/// week, the best `best_per_week` match scores of each week, with at most `same_table_per_week`
/// matches a week with the same three opponents.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Counting {
    pub best_per_night: Option<usize>,
    pub drop_worst_nights: usize,
    pub best_per_week: Option<usize>,
    pub same_table_per_week: Option<usize>,
}

impl Counting {
    /// True when every game counts (nothing to work out night by night).
    pub fn is_plain(&self) -> bool {
        self.best_per_night.is_none() && self.drop_worst_nights == 0 && self.best_per_week.is_none()
    }
}

/// A player's score in one match (their games at one table on one day), for boards by week.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchScore {
    pub player: i64,
    /// The match's night number in the league (its order among the week's matches).
    pub night: i32,
    pub date: chrono::NaiveDate,
    /// The player's points in the match's counted games.
    pub points: i64,
    /// The player's counted games in it.
    pub games: i64,
    /// Everyone at the table, the player included, in id order.
    pub table: Vec<i64>,
}

/// The Monday of `date`'s week.
pub fn week_of(date: chrono::NaiveDate) -> chrono::NaiveDate {
    use chrono::Datelike;
    date - chrono::Duration::days(date.weekday().num_days_from_monday() as i64)
}

/// Works out a `best_per_week` board: for each player and each calendar week they played, their
/// matches in date order; a match at a table they already sat at `same_table` times that week
/// (the same three opponents) does not count; of the others, the `best` highest scores count
/// (every one when there are that many or fewer; among equal scores the earlier). Answers, per
/// player, (counted points, counted games) and the weeks.
pub fn weekly(
    scores: &[MatchScore],
    best: usize,
    same_table: Option<usize>,
) -> HashMap<i64, ((i64, i64), Vec<WeekCount>)> {
    let mut by_player: HashMap<i64, Vec<&MatchScore>> = HashMap::new();
    for m in scores {
        by_player.entry(m.player).or_default().push(m);
    }
    by_player
        .into_iter()
        .map(|(player, mut list)| {
            list.sort_by_key(|m| (m.date, m.night));
            let mut weeks: Vec<WeekCount> = Vec::new();
            let (mut points, mut games) = (0, 0);
            for week in list.chunk_by(|a, b| week_of(a.date) == week_of(b.date)) {
                let mut seen: HashMap<&[i64], usize> = HashMap::new();
                let mut eligible: Vec<&MatchScore> = Vec::new();
                let mut over = 0;
                for m in week {
                    let times = seen.entry(m.table.as_slice()).or_default();
                    *times += 1;
                    if same_table.is_some_and(|limit| *times > limit) {
                        over += 1;
                    } else {
                        eligible.push(m);
                    }
                }
                // Highest first; a stable sort keeps the earlier of equal scores first.
                eligible.sort_by_key(|m| std::cmp::Reverse(m.points));
                let counted = &eligible[..best.min(eligible.len())];
                let week_points: i64 = counted.iter().map(|m| m.points).sum();
                points += week_points;
                games += counted.iter().map(|m| m.games).sum::<i64>();
                weeks.push(WeekCount {
                    week: week_of(week[0].date),
                    matches: week.len() as i64,
                    points: week.iter().map(|m| m.points).sum(),
                    counted: week_points,
                    counted_matches: counted.len() as i64,
                    over_limit: over,
                });
            }
            (player, ((points, games), weeks))
        })
        .collect()
}

/// Works out what counts for each player, from the league's nights with a counted game
/// (`nights`, their numbers) and each player's scores night by night (`scores`: player, night,
/// the night's game scores in any order). A night's counted points are its best
/// `best_per_night` scores (every score when the player played that many or fewer); then the
/// player's `drop_worst_nights` lowest nights, by counted points, are dropped — a night the
/// player missed counts 0 and is one of the nights that can be dropped (so "drop the worst
/// night" and "best 11 of 12 nights" agree); among equal nights a missed one goes first, then
/// the earlier. Answers, per player who played, (counted points, counted games) and the
/// nights.
pub fn counting(
    nights: &[i32],
    scores: &[(i64, i32, Vec<i64>)],
    c: Counting,
) -> HashMap<i64, ((i64, i64), Vec<NightCount>)> {
    let mut by_player: HashMap<i64, HashMap<i32, &Vec<i64>>> = HashMap::new();
    for (p, night, s) in scores {
        by_player.entry(*p).or_default().insert(*night, s);
    }
    by_player
        .into_iter()
        .map(|(player, played)| {
            let mut list: Vec<NightCount> = nights
                .iter()
                .map(|&night| {
                    let mut s: Vec<i64> =
                        played.get(&night).map(|v| v.to_vec()).unwrap_or_default();
                    s.sort_unstable_by(|a, b| b.cmp(a));
                    let best = c.best_per_night.unwrap_or(usize::MAX).min(s.len());
                    NightCount {
                        night,
                        games: s.len() as i64,
                        points: s.iter().sum(),
                        counted: s[..best].iter().sum(),
                        counted_games: best as i64,
                        dropped: false,
                    }
                })
                .collect();
            let mut order: Vec<usize> = (0..list.len()).collect();
            order.sort_by_key(|&i| (list[i].counted, list[i].games > 0, list[i].night));
            for &i in order.iter().take(c.drop_worst_nights) {
                list[i].dropped = true;
                list[i].counted = 0;
                list[i].counted_games = 0;
            }
            let points = list.iter().map(|n| n.counted).sum();
            let games = list.iter().map(|n| n.counted_games).sum();
            (player, ((points, games), list))
        })
        .collect()
}

impl Standing {
    /// The figure the board ranks by, as shown: points that count (every game's on a plain
    /// board), or on an average board the average per counted game to two decimals.
    pub fn figure_text(&self, average: bool) -> String {
        if average {
            format!("{:.2}", self.counted_average.unwrap_or(self.average))
        } else {
            self.counted_points.unwrap_or(self.points).to_string()
        }
    }

    /// The nights a board dropped for this player, e.g. "2 (-40), 5 (missed)"; "none" when it
    /// dropped none, empty when the board counts every game.
    pub fn dropped_text(&self) -> String {
        let Some(nights) = &self.nights else {
            return String::new();
        };
        let dropped: Vec<String> = nights
            .iter()
            .filter(|n| n.dropped)
            .map(|n| {
                if n.games == 0 {
                    format!("{} (missed)", n.night)
                } else {
                    format!("{} ({})", n.night, n.points)
                }
            })
            .collect();
        if dropped.is_empty() {
            "none".to_string()
        } else {
            dropped.join(", ")
        }
    }

    /// Week by week on a `best_per_week` board, e.g. "Nov 2: 300 (2 of 3 matches); Nov 9: -50
    /// (1 of 1)"; empty on other boards.
    /// The points counted in the week of `monday`, if the player played that week.
    pub fn week_points(&self, monday: chrono::NaiveDate) -> Option<i64> {
        self.weeks
            .as_ref()?
            .iter()
            .find(|w| w.week == monday)
            .map(|w| w.counted)
    }

    pub fn weeks_text(&self) -> String {
        let Some(weeks) = &self.weeks else {
            return String::new();
        };
        // The latest week first: it is the one people look for.
        weeks
            .iter()
            .rev()
            .map(|w| {
                let over = if w.over_limit > 0 {
                    format!(", {} over the same-table limit", w.over_limit)
                } else {
                    String::new()
                };
                format!(
                    "{}: {} ({} of {} {}{over})",
                    week_words(w.week),
                    w.counted,
                    w.counted_matches,
                    w.matches,
                    if w.matches == 1 { "match" } else { "matches" }
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// When a tie-break (wins, deal-ins or head-to-head points, not the board's own figure)
    /// placed this player above the next: its words ("ahead of Kim Lee on wins: 12 to 10").
    pub fn tie_break(&self) -> Option<&str> {
        self.ahead
            .as_ref()
            .filter(|a| matches!(a.by.as_str(), "wins" | "deal_ins" | "head_to_head"))
            .map(|a| a.words.as_str())
    }

    /// The same for a projector's column: "more wins (12 to 10)", "shared" for a shared rank,
    /// empty otherwise.
    pub fn tie_short(&self) -> String {
        match self.ahead.as_ref() {
            Some(a) if self.tie_break().is_some() => {
                let what = match a.by.as_str() {
                    "wins" => "more wins",
                    "deal_ins" => "fewer deal-ins",
                    _ => "head-to-head",
                };
                format!("{what} ({} to {})", a.figure.0, a.next_figure.0)
            }
            _ if self.shared => match self.head_to_head {
                Some(h) => format!("shared (head-to-head {h})"),
                None => "shared".to_string(),
            },
            _ => String::new(),
        }
    }
}

/// Why one player ranks above the next: the first figure, in the order of the tie-breaks
/// (the board's figure, wins, deal-ins, head-to-head points), on which they differ.
#[derive(Debug, Clone, Serialize, ToSchema, PartialEq)]
pub struct Ahead {
    /// `points` (`counted_points` on a board that does not count every game, `average` on an
    /// average board), `wins`, `deal_ins` (fewer is better) or `head_to_head`.
    #[schema(example = "wins")]
    pub by: String,
    /// This player's figure.
    #[schema(value_type = f64, example = 12)]
    pub figure: Figure,
    /// The next player's figure.
    #[schema(value_type = f64, example = 10)]
    pub next_figure: Figure,
    /// The next ranked player.
    pub next_player_id: i64,
    /// The same in words, e.g. "ahead of Kim Lee on wins: 12 to 10".
    #[schema(example = "ahead of Kim Lee on wins: 12 to 10")]
    pub words: String,
}

impl Ahead {
    /// No tie-break placed the row: none, or the board's own figure did (left out of the JSON,
    /// where the figures of both rows say it).
    pub fn by_the_board(ahead: &Option<Ahead>) -> bool {
        ahead
            .as_ref()
            .is_none_or(|a| matches!(a.by.as_str(), "points" | "counted_points" | "average"))
    }
}

/// A standings figure: a whole number (points, wins, deal-ins) or an average, written as a
/// JSON number (`12`, `12.5`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figure(pub f64);

impl std::fmt::Display for Figure {
    /// `12`, `12.5`: as the JSON writes it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.fract() == 0.0 && self.0.abs() < 9.0e15 {
            write!(f, "{}", self.0 as i64)
        } else {
            write!(f, "{}", self.0)
        }
    }
}

impl Serialize for Figure {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.fract() == 0.0 && self.0.abs() < 9.0e15 {
            s.serialize_i64(self.0 as i64)
        } else {
            s.serialize_f64(self.0)
        }
    }
}

fn average(l: &Line) -> f64 {
    if l.games == 0 {
        0.0
    } else {
        (l.points as f64 / l.games as f64 * 100.0).round() / 100.0
    }
}

/// Players sorted by the board, then more wins, then fewer deal-ins, in groups that these
/// cannot tell apart; and the players the board leaves unranked (too few games). Each player's
/// board figure is worked out once, not at every comparison, and the lines are not copied.
fn groups(lines: &[Line], board: Board) -> (Vec<Vec<&Line>>, Vec<&Line>) {
    let eligible = |l: &Line| match board {
        Board::Total => true,
        Board::Average { min_games } => l.games >= min_games,
    };
    let key = |l: &Line| {
        let (points, games) = l.counted.unwrap_or((l.points, l.games));
        match board {
            Board::Total => points as f64,
            Board::Average { .. } => points as f64 / games.max(1) as f64,
        }
    };
    let mut ranked: Vec<(f64, &Line)> = Vec::with_capacity(lines.len());
    let mut others = Vec::new();
    for l in lines {
        if eligible(l) {
            ranked.push((key(l), l));
        } else {
            others.push(l);
        }
    }
    let primary = |(ka, a): &(f64, &Line), (kb, b): &(f64, &Line)| {
        kb.partial_cmp(ka)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(b.wins.cmp(&a.wins))
            .then(a.deal_ins.cmp(&b.deal_ins))
    };
    ranked.sort_by(|a, b| primary(a, b).then(a.1.name.cmp(&b.1.name)));
    let mut groups: Vec<Vec<&Line>> = Vec::new();
    let mut first: Option<(f64, &Line)> = None;
    for entry in ranked {
        match (groups.last_mut(), first) {
            (Some(g), Some(f)) if primary(&f, &entry).is_eq() => g.push(entry.1),
            _ => {
                first = Some(entry);
                groups.push(vec![entry.1]);
            }
        }
    }
    (groups, others)
}

/// The groups of players whose rank needs head-to-head points: those tied on the board, wins
/// and deal-ins, two or more to a group.
pub fn tie_groups(lines: &[Line], board: Board) -> Vec<Vec<i64>> {
    groups(lines, board)
        .0
        .iter()
        .filter(|g| g.len() > 1)
        .map(|g| g.iter().map(|l| l.player_id).collect())
        .collect()
}

/// Head-to-head points of tied players (as `tie_groups` gives them) from the league's counted
/// games as (game, player, score) rows, a game's rows together: for each tied player, the points
/// they scored in games shared with at least one other player of their group, each game once.
/// Players are numbered densely (`players[i]` is player `i`'s id; rows name the number), so the
/// pass over every game of the league looks groups up in an array.
pub fn head_to_head(
    rows: &[(i64, u32, i64)],
    players: &[i64],
    groups: &[Vec<i64>],
) -> HashMap<i64, i64> {
    const NONE: u32 = u32::MAX;
    let group_id: HashMap<i64, u32> = groups
        .iter()
        .enumerate()
        .flat_map(|(g, members)| members.iter().map(move |p| (*p, g as u32)))
        .collect();
    let group_of: Vec<u32> = players
        .iter()
        .map(|p| group_id.get(p).copied().unwrap_or(NONE))
        .collect();
    let mut points = vec![0i64; players.len()];
    let mut shared = vec![false; players.len()];
    for game in rows.chunk_by(|a, b| a.0 == b.0) {
        for (i, &(_, p, score)) in game.iter().enumerate() {
            let g = group_of[p as usize];
            if g == NONE {
                continue;
            }
            if game
                .iter()
                .enumerate()
                .any(|(j, &(_, q, _))| j != i && group_of[q as usize] == g)
            {
                points[p as usize] += score;
                shared[p as usize] = true;
            }
        }
    }
    players
        .iter()
        .zip(points.iter().zip(&shared))
        .filter(|(_, (_, s))| **s)
        .map(|(id, (points, _))| (*id, *points))
        .collect()
}

/// Ranks players: by the board, then more wins, then fewer deal-ins, then head-to-head points
/// (`head_to_head`: each player of a `tie_groups` group's points in games shared with another
/// player of the group; missing means none).
pub fn rank(lines: &[Line], board: Board, head_to_head: &HashMap<i64, i64>) -> Vec<Standing> {
    let (groups, mut others) = groups(lines, board);
    let mut out = Vec::with_capacity(groups.len() + others.len());
    for group in groups {
        let first = out.len();
        let h2h = |p: i64| -> i64 {
            if group.len() < 2 {
                0
            } else {
                head_to_head.get(&p).copied().unwrap_or(0)
            }
        };
        let mut scored: Vec<(i64, &Line)> = group.iter().map(|l| (h2h(l.player_id), *l)).collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.name.cmp(&b.1.name)));
        let mut k = 0;
        while k < scored.len() {
            let mut m = k + 1;
            while m < scored.len() && scored[m].0 == scored[k].0 {
                m += 1;
            }
            let shared = m - k > 1;
            for (h, l) in &scored[k..m] {
                let mut s = standing(l, Some((first + k + 1) as u32), shared);
                s.head_to_head = (group.len() > 1).then_some(*h);
                out.push(s);
            }
            k = m;
        }
    }
    for i in 1..out.len() {
        let (above, below) = out.split_at_mut(i);
        let (a, b) = (&mut above[i - 1], &below[0]);
        // A shared rank is above the next by the tie-break that shares it, said as "shared":
        // no row of a tie group claims it alone.
        if a.rank != b.rank && !a.shared {
            a.ahead = ahead(a, b, board);
        }
    }
    others.sort_by(|a, b| b.games.cmp(&a.games).then(a.name.cmp(&b.name)));
    out.extend(others.iter().map(|l| standing(l, None, false)));
    out
}

/// The tie-break that puts `a` above `b` (ranked next), or `None` when nothing does.
fn ahead(a: &Standing, b: &Standing, board: Board) -> Option<Ahead> {
    let counted = |s: &Standing| {
        (
            s.counted_points.unwrap_or(s.points),
            s.counted_games.unwrap_or(s.games),
        )
    };
    let exact = |s: &Standing| {
        let (p, g) = counted(s);
        p as f64 / g.max(1) as f64
    };
    let by_counted = a.counted_points.is_some();
    let (by, fa, fb) = match board {
        Board::Total if by_counted => ("counted_points", counted(a).0 as f64, counted(b).0 as f64),
        Board::Total => ("points", a.points as f64, b.points as f64),
        Board::Average { .. } => ("average", exact(a), exact(b)),
    };
    let steps = [
        (by, fa, fb),
        ("wins", a.wins as f64, b.wins as f64),
        ("deal_ins", a.deal_ins as f64, b.deal_ins as f64),
        (
            "head_to_head",
            a.head_to_head.unwrap_or(0) as f64,
            b.head_to_head.unwrap_or(0) as f64,
        ),
    ];
    let (by, x, y) = steps.into_iter().find(|(_, x, y)| x != y)?;
    let (x, y) = if by == "average" {
        // Shown as the standings show averages, with more decimals only when two decimals
        // would make them look equal.
        let two = |v: f64| (v * 100.0).round() / 100.0;
        if two(x) != two(y) {
            (two(x), two(y))
        } else {
            (
                (x * 10_000.0).round() / 10_000.0,
                (y * 10_000.0).round() / 10_000.0,
            )
        }
    } else {
        (x, y)
    };
    let what = match by {
        "points" => "points",
        "counted_points" => "points that count",
        "average" => "average points per game",
        "wins" => "wins",
        "deal_ins" => "fewer deal-ins",
        _ => "head-to-head points",
    };
    let shown = |v: f64| {
        if by == "average" {
            let t = format!("{v:.4}");
            let t = t.trim_end_matches('0');
            let (whole, decimals) = t.split_once('.').unwrap_or((t, ""));
            format!("{whole}.{decimals:0<2}")
        } else {
            format!("{v}")
        }
    };
    Some(Ahead {
        by: by.to_string(),
        figure: Figure(x),
        next_figure: Figure(y),
        next_player_id: b.player_id,
        words: format!(
            "ahead of {} on {what}: {} to {}",
            b.player,
            shown(x),
            shown(y)
        ),
    })
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
        head_to_head: None,
        ahead: None,
        counted_points: l.counted.map(|c| c.0),
        counted_games: l.counted.map(|c| c.1),
        counted_average: l.counted.map(|(p, g)| {
            if g == 0 {
                0.0
            } else {
                (p as f64 / g as f64 * 100.0).round() / 100.0
            }
        }),
        nights: None,
        weeks: None,
        carried: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weeks_are_said_monday_to_sunday() {
        let d = |s: &str| chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap();
        assert_eq!(week_words(d("2026-11-23")), "Nov 23–29");
        assert_eq!(week_words(d("2026-11-30")), "Nov 30–Dec 6");
    }

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
            counted: None,
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
        assert_eq!(tie_groups(&lines, Board::Total), [vec![4, 5], vec![6, 7]]);
        // 4 and 5 met and 4 scored more there; 6 and 7 never met each other.
        let h2h = HashMap::from([(4, 30), (5, -30)]);
        let s = rank(&lines, Board::Total, &h2h);
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
    fn each_row_says_what_placed_it_above_the_next() {
        let lines = vec![
            line(1, 100, 2, 1, 4),
            line(2, 100, 3, 1, 4),
            line(3, 100, 2, 0, 4),
            line(4, 50, 1, 1, 4),
            line(5, 50, 1, 1, 4),
            line(6, 10, 0, 0, 4),
            line(7, 10, 0, 0, 4),
            line(8, -20, 0, 2, 4),
        ];
        let h2h = HashMap::from([(4, 30), (5, -30)]);
        let s = rank(&lines, Board::Total, &h2h);
        let why: Vec<(i64, Option<&str>, Option<i64>)> = s
            .iter()
            .map(|x| {
                (
                    x.player_id,
                    x.ahead.as_ref().map(|a| a.words.as_str()),
                    x.head_to_head,
                )
            })
            .collect();
        assert_eq!(
            why,
            [
                (2, Some("ahead of P3 on wins: 3 to 2"), None),
                (3, Some("ahead of P1 on fewer deal-ins: 0 to 1"), None),
                (1, Some("ahead of P4 on points: 100 to 50"), None),
                (
                    4,
                    Some("ahead of P5 on head-to-head points: 30 to -30"),
                    Some(30)
                ),
                (5, Some("ahead of P6 on points: 50 to 10"), Some(-30)),
                // 6 and 7 share a rank: nothing placed 6 above 7.
                (6, None, Some(0)),
                // P7 shares 6th place with P6: a tie group's rows claim no tie-break alone.
                (7, None, Some(0)),
                (8, None, None),
            ]
        );
        let a = s[3].ahead.as_ref().unwrap();
        assert_eq!(
            (a.by.as_str(), a.figure, a.next_figure, a.next_player_id),
            ("head_to_head", Figure(30.0), Figure(-30.0), 5)
        );
        assert_eq!(
            serde_json::to_value(a).unwrap()["figure"],
            serde_json::json!(30)
        );
    }

    #[test]
    fn an_average_board_says_the_averages_with_the_decimals_that_tell_them_apart() {
        // 100/3 = 33.333… and 200/6 = 33.333… are equal; 301/9 = 33.444… is not.
        let lines = vec![
            line(1, 301, 0, 0, 9),
            line(2, 100, 1, 0, 3),
            line(3, 200, 0, 0, 6),
            line(4, 2000, 0, 0, 61),
        ];
        let s = rank(&lines, Board::Average { min_games: 0 }, &HashMap::new());
        let words: Vec<Option<String>> = s
            .iter()
            .map(|x| x.ahead.as_ref().map(|a| a.words.clone()))
            .collect();
        assert_eq!(
            words,
            [
                Some("ahead of P2 on average points per game: 33.44 to 33.33".to_string()),
                Some("ahead of P3 on wins: 1 to 0".to_string()),
                // 33.3333 and 32.7869 differ at two decimals already.
                Some("ahead of P4 on average points per game: 33.33 to 32.79".to_string()),
                None,
            ]
        );
        assert_eq!(
            serde_json::to_value(&s[0].ahead).unwrap()["figure"],
            serde_json::json!(33.44)
        );
    }

    /// Nights 1–3; each night's 2 best games count, each player's lowest night is dropped.
    fn night_scores() -> Vec<(i64, i32, Vec<i64>)> {
        vec![
            // Ann: 30 + 20 = 50 (the -10 does not count); both games of night 2 count (-45);
            // night 3 has one game (10). Night 2 is dropped: 60 from 3 games.
            (1, 1, vec![30, -10, 20]),
            (1, 2, vec![-40, -5]),
            (1, 3, vec![10]),
            // Bea: 5 + 5 = 10; missed night 2 (0, dropped); 40 + 0 = 40: 50 from 4 games.
            (2, 1, vec![5, 5, 5, 5]),
            (2, 3, vec![-20, -20, 40, 0]),
            // Cy: negative every night: the lowest (-15) is dropped: -15.
            (3, 1, vec![-5]),
            (3, 2, vec![-10]),
            (3, 3, vec![-15]),
            // Dee: 50 on night 1, 0 on night 2, missed night 3 — a missed night and a night of
            // 0 are equal: the missed one is dropped. 50, like Bea.
            (4, 1, vec![50]),
            (4, 2, vec![0]),
        ]
    }

    #[test]
    fn best_per_night_counts_each_nights_best_games_and_drops_the_lowest_nights() {
        let c = Counting {
            best_per_night: Some(2),
            drop_worst_nights: 1,
            ..Default::default()
        };
        let got = counting(&[1, 2, 3], &night_scores(), c);
        let figure = |p: i64| got[&p].0;
        assert_eq!(figure(1), (60, 3));
        assert_eq!(figure(2), (50, 4));
        assert_eq!(figure(3), (-15, 2));
        assert_eq!(figure(4), (50, 2));
        let ann: Vec<(i32, i64, i64, i64, bool)> = got[&1]
            .1
            .iter()
            .map(|n| (n.night, n.games, n.points, n.counted, n.dropped))
            .collect();
        assert_eq!(
            ann,
            [
                (1, 3, 40, 50, false),
                (2, 2, -45, 0, true),
                (3, 1, 10, 10, false)
            ]
        );
        let dropped = |p: i64| -> Vec<i32> {
            got[&p]
                .1
                .iter()
                .filter(|n| n.dropped)
                .map(|n| n.night)
                .collect()
        };
        assert_eq!(dropped(2), [2], "Bea's missed night");
        assert_eq!(dropped(3), [3], "Cy's most negative night");
        assert_eq!(
            dropped(4),
            [3],
            "a missed night before an equal night played"
        );

        // Nothing dropped: every night's best two count.
        let kept = counting(
            &[1, 2, 3],
            &night_scores(),
            Counting {
                best_per_night: Some(2),
                drop_worst_nights: 0,
                ..Default::default()
            },
        );
        assert_eq!(kept[&1].0, (15, 5));
        assert_eq!(kept[&2].0, (50, 4));
        assert_eq!(kept[&3].0, (-30, 3));
        // Dropping more nights than were played leaves nothing: 0 from 0 games.
        let all = counting(
            &[1, 2, 3],
            &night_scores(),
            Counting {
                best_per_night: None,
                drop_worst_nights: 3,
                ..Default::default()
            },
        );
        assert_eq!(all[&1].0, (0, 0));
        // Every game on a total board with the lowest night dropped: Ann 40 + 10.
        let total = counting(
            &[1, 2, 3],
            &night_scores(),
            Counting {
                best_per_night: None,
                drop_worst_nights: 1,
                ..Default::default()
            },
        );
        assert_eq!(total[&1].0, (50, 4));
        assert_eq!(total[&2].0, (20, 8));
    }

    #[test]
    fn counted_points_rank_and_break_ties_and_say_so() {
        let c = Counting {
            best_per_night: Some(2),
            drop_worst_nights: 1,
            ..Default::default()
        };
        let got = counting(&[1, 2, 3], &night_scores(), c);
        // Games, wins, points of every game; Bea and Dee are equal on what counts, Dee has more
        // wins.
        let mut lines = vec![
            line(1, 5, 2, 0, 6),
            line(2, 20, 1, 0, 8),
            line(3, -30, 0, 3, 3),
            line(4, 50, 2, 0, 2),
        ];
        for l in &mut lines {
            l.counted = Some(got[&l.player_id].0);
        }
        let s = rank(&lines, Board::Total, &HashMap::new());
        let order: Vec<(i64, Option<u32>, Option<i64>)> = s
            .iter()
            .map(|x| (x.player_id, x.rank, x.counted_points))
            .collect();
        assert_eq!(
            order,
            [
                (1, Some(1), Some(60)),
                (4, Some(2), Some(50)),
                (2, Some(3), Some(50)),
                (3, Some(4), Some(-15))
            ]
        );
        assert_eq!(
            s[0].ahead.as_ref().unwrap().words,
            "ahead of P4 on points that count: 60 to 50"
        );
        assert_eq!(s[1].tie_short(), "more wins (2 to 1)");
        assert_eq!(s[0].figure_text(false), "60");
    }

    #[test]
    fn average_board_ranks_only_players_with_enough_games() {
        let lines = vec![
            line(1, 100, 1, 0, 10),
            line(2, 90, 1, 0, 3),
            line(3, 30, 0, 0, 2),
        ];
        let s = rank(&lines, Board::Average { min_games: 3 }, &HashMap::new());
        assert_eq!((s[0].player_id, s[0].rank), (2, Some(1)));
        assert_eq!(
            (s[1].player_id, s[1].rank, s[1].average),
            (1, Some(2), 10.0)
        );
        assert_eq!((s[2].player_id, s[2].rank), (3, None));
    }
}

pub use skillratings::weng_lin::WengLinRating as Skill;

/// One game's effect on Weng-Lin (OpenSkill) ratings. `game` holds (player, score, rating
/// before) for each seat; the game is a free-for-all ranked by score (equal scores tie). A game
/// where everyone scored the same (a wall game with no penalties) tells nothing: `None`.
pub fn rate_game(game: &[(i64, i64, Skill)]) -> Option<Vec<(i64, Skill)>> {
    use skillratings::MultiTeamOutcome;
    use skillratings::weng_lin::{WengLinConfig, weng_lin_multi_team};

    if game.len() < 2 || game.iter().all(|g| g.1 == game[0].1) {
        return None;
    }
    let mut scores: Vec<i64> = game.iter().map(|g| g.1).collect();
    scores.sort_unstable_by(|a, b| b.cmp(a));
    scores.dedup();
    let teams: Vec<[Skill; 1]> = game.iter().map(|g| [g.2]).collect();
    let input: Vec<(&[Skill], MultiTeamOutcome)> = game
        .iter()
        .zip(&teams)
        .map(|(g, team)| {
            let place = scores.iter().position(|&s| s == g.1).unwrap_or(0) + 1;
            (&team[..], MultiTeamOutcome::new(place))
        })
        .collect();
    let new = weng_lin_multi_team(&input, &WengLinConfig::new());
    Some(
        game.iter()
            .zip(new)
            .filter_map(|(g, r)| r.first().map(|r| (g.0, *r)))
            .collect(),
    )
}

/// Ratings after replaying games in the order they were played: `games` holds
/// (game, player, score), rows of a game next to each other.
pub fn ratings(games: &[(i64, i64, i64)]) -> HashMap<i64, Skill> {
    let mut rating: HashMap<i64, Skill> = HashMap::new();
    replay(&mut rating, games);
    rating
}

/// Carries `rating` on through more games (as `ratings` reads them).
pub fn replay(rating: &mut HashMap<i64, Skill>, games: &[(i64, i64, i64)]) {
    for game in games.chunk_by(|a, b| a.0 == b.0) {
        let seats: Vec<(i64, i64, Skill)> = game
            .iter()
            .map(|g| (g.1, g.2, rating.get(&g.1).copied().unwrap_or_default()))
            .collect();
        for (p, r) in rate_game(&seats).unwrap_or_default() {
            rating.insert(p, r);
        }
    }
}

/// The rating shown: the conservative μ − 3σ to two decimals, so a new player is 0 and rises
/// with evidence.
pub fn shown(r: Skill) -> f64 {
    ((r.rating - 3.0 * r.uncertainty) * 100.0).round() / 100.0
}

#[cfg(test)]
mod head_to_head_tests {
    use super::*;

    #[test]
    fn each_shared_game_counts_once() {
        // A, B and C tied (ids 1, 2, 3); X, Y, Z, W others. C -10 (game 3), A -10 - 40 = -50,
        // B -30 - 30 + 0 = -60; game 5 holds all three and counts once for each.
        let (a, b, c, x, y, z, w) = (1, 2, 3, 10, 11, 12, 13);
        let games: [&[(i64, i64)]; 5] = [
            &[(a, -10), (b, -30), (x, 60), (y, -20)],
            &[(a, -10), (x, 60), (y, -30), (z, -20)],
            &[(b, -30), (c, -10), (y, 60), (w, -20)],
            &[(c, -50), (x, -10), (z, 80), (w, -20)],
            &[(a, -40), (b, 0), (c, 0), (x, 40)],
        ];
        let players: Vec<i64> = vec![a, b, c, x, y, z, w];
        let index = |p: i64| players.iter().position(|&q| q == p).unwrap() as u32;
        let rows: Vec<(i64, u32, i64)> = games
            .iter()
            .enumerate()
            .flat_map(|(g, seats)| seats.iter().map(move |&(p, s)| (g as i64, index(p), s)))
            .collect();
        let h2h = head_to_head(&rows, &players, &[vec![a, b, c]]);
        assert_eq!(h2h.get(&a), Some(&-50));
        assert_eq!(h2h.get(&b), Some(&-60));
        assert_eq!(h2h.get(&c), Some(&-10));
        assert_eq!(h2h.get(&x), None, "untied players get none");
    }
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
        assert!(shown(r[&1]) > shown(r[&2]), "{r:?}");
        assert_eq!(r[&2], r[&3]);
        assert_eq!(shown(Skill::default()), 0.0, "a new player shows 0");
        let once = ratings(&games[..12]);
        assert_eq!(once, r, "the equal-score game changes nothing");
    }

    /// The best 2 matches of each calendar week, with a limit of one counted match a week at
    /// the same table, worked by hand.
    #[test]
    fn best_matches_per_week_count_each_weeks_best_and_the_limit() {
        let d = |s: &str| s.parse::<chrono::NaiveDate>().unwrap();
        let m = |night, date: &str, points, table: &[i64]| MatchScore {
            player: 1,
            night,
            date: d(date),
            points,
            games: 4,
            table: table.to_vec(),
        };
        let (a, b) = (&[1, 2, 3, 4][..], &[1, 5, 6, 7][..]);
        // Week of Monday 2026-11-02: 30, 50, 10 (Sunday the 8th); week of the 9th: 20 and,
        // at the same table again, 90.
        let scores = [
            m(1, "2026-11-02", 30, a),
            m(2, "2026-11-04", 50, b),
            m(3, "2026-11-08", 10, a),
            m(4, "2026-11-09", 20, a),
            m(5, "2026-11-10", 90, a),
        ];
        let free = weekly(&scores, 2, None);
        let ((points, games), weeks) = &free[&1];
        // 50 + 30, then 90 + 20.
        assert_eq!((*points, *games), (80 + 110, 16));
        assert_eq!(weeks.len(), 2);
        assert_eq!(weeks[0].week, d("2026-11-02"));
        assert_eq!(
            (weeks[0].matches, weeks[0].points, weeks[0].counted),
            (3, 90, 80)
        );
        assert_eq!(weeks[1].week, d("2026-11-09"));
        let limited = weekly(&scores, 2, Some(1));
        let ((points, _), weeks) = &limited[&1];
        // Week 1: table a once (30), b (50): 80, the second a (10) over the limit. Week 2:
        // only the first match at a (20) may count.
        assert_eq!(*points, 80 + 20);
        assert_eq!((weeks[0].over_limit, weeks[1].over_limit), (1, 1));
        assert_eq!(weeks[1].counted_matches, 1);
    }
}
