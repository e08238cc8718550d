//! A league's season worked out from its counted games: the periods, each player's numbers
//! and place and rating after each period (the board as the standings rank it, on the games up
//! to then), and the league's own numbers.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::{
    Attendance, Counts, East, How, LeagueSeason, LineWins, Opponent, Period, PlayerSeason,
    SeasonPlayer, SectionWins,
};
use crate::domain::seasons::standings::counting_of;
use crate::rules::Card;
use crate::standings::{self, Board, Line, MatchScore, week_of, week_words};
use crate::storage::seasons::leagues::League;
use crate::storage::seasons::season::SeasonGame;

/// One period of the league: a night, or a week of open play.
#[derive(Debug, Clone)]
pub(super) struct PeriodInfo {
    pub(super) night: Option<i64>,
    pub(super) date: chrono::NaiveDate,
    pub(super) label: String,
}

/// One player's numbers, kept for the league.
#[derive(Debug, Clone, Default)]
pub(super) struct Kept {
    pub(super) counts: Counts,
    /// The first period she played.
    pub(super) first: Option<usize>,
    /// (games, wins, points, rank, rating) per period of the league, every period.
    pub(super) periods: Vec<(i64, i64, i64, Option<u32>, f64)>,
    /// Line id → wins.
    pub(super) lines: HashMap<String, i64>,
    /// Opponent → (games, ahead, behind).
    pub(super) opponents: HashMap<i64, (i64, i64, i64)>,
}

/// A league's season worked out, kept per league and stamp.
pub struct Season {
    pub(super) periods: Vec<PeriodInfo>,
    pub(super) players: HashMap<i64, Kept>,
    /// The card's sections, each with its lines (id, name), in the card's order.
    pub(super) card: Vec<(String, Vec<(String, String)>)>,
    pub(super) league: LeagueSeason,
    /// Where it is taken up again when new games come.
    resume: Resume,
}

/// What a season is worked out from.
pub struct Input<'a> {
    pub league: &'a League,
    pub games: &'a [SeasonGame],
    pub names: &'a HashMap<i64, String>,
    pub carried: &'a HashMap<i64, standings::Carried>,
    pub card: &'a Card,
}

/// The card's sections with their lines named as printed ("2468 · line 1").
fn card_lines(card: &Card) -> Vec<(String, Vec<(String, String)>)> {
    card.sections
        .iter()
        .map(|s| {
            let lines = card
                .lines
                .iter()
                .filter(|l| &l.section == s)
                .enumerate()
                .map(|(i, l)| (l.id.clone(), format!("{s} · line {}", i + 1)))
                .collect();
            (s.clone(), lines)
        })
        .collect()
}

/// Where a period stands in the league's order: (night number, date) for a night, (0, its
/// Monday) for a week of open play.
type Key = (i32, chrono::NaiveDate);

fn key_of(by_week: bool, g: &SeasonGame) -> Key {
    if by_week {
        (0, week_of(g.night_date))
    } else {
        (g.night_number, g.night_date)
    }
}

/// The periods these games fall in, in the league's order: nights, or in open play the
/// calendar weeks of the matches' dates.
fn periods_of(league: &League, games: &[SeasonGame]) -> Vec<(Key, PeriodInfo)> {
    let by_week = league.is_open_play();
    let mut all: Vec<(Key, i64)> = games
        .iter()
        .map(|g| (key_of(by_week, g), g.night_id))
        .collect();
    all.sort_unstable();
    all.dedup_by_key(|k| k.0);
    all.into_iter()
        .map(|((number, date), night)| {
            let info = PeriodInfo {
                night: (!by_week).then_some(night),
                date,
                label: if by_week {
                    week_words(date)
                } else {
                    format!("{} {number}", league.session())
                },
            };
            ((number, date), info)
        })
        .collect()
}

/// A season worked out up to the end of some period: the periods so far, each player's
/// numbers, the board, the ratings and the league's own numbers.
#[derive(Clone)]
struct Progress {
    periods: Vec<(Key, PeriodInfo)>,
    players: HashMap<i64, Kept>,
    boards: Boards,
    rating: HashMap<i64, standings::Skill>,
    tally: Tally,
}

impl Progress {
    fn new(
        league: &League,
        names: &HashMap<i64, String>,
        carried: &HashMap<i64, standings::Carried>,
    ) -> Progress {
        Progress {
            periods: Vec::new(),
            players: HashMap::new(),
            boards: Boards::new(league, names, carried),
            rating: HashMap::new(),
            tally: Tally::default(),
        }
    }

    /// Adds one period's games, in the order they were counted (ratings follow it), then each
    /// player's numbers, place and rating after it.
    fn period(
        &mut self,
        key: Key,
        info: PeriodInfo,
        games: &[&SeasonGame],
        names: &HashMap<i64, String>,
    ) {
        let p = self.periods.len();
        let mut played: HashMap<i64, (i64, i64, i64)> = HashMap::new();
        self.tally.seen.push(Default::default());
        for g in games {
            add_game(&mut self.players, &mut played, g, p);
            self.boards.add(g, names);
            self.tally.add(g, p);
            let seats: Vec<(i64, i64, i64)> = g
                .players
                .iter()
                .zip(&g.scores)
                .map(|(pl, s)| (g.id, *pl, *s))
                .collect();
            standings::replay(&mut self.rating, &seats);
        }
        let ranks = self.boards.ranks();
        for (id, kept) in self.players.iter_mut() {
            let (games, wins, points) = played.get(id).copied().unwrap_or_default();
            let r = self
                .rating
                .get(id)
                .map(|r| standings::shown(*r))
                .unwrap_or(0.0);
            kept.periods
                .push((games, wins, points, ranks.get(id).copied().flatten(), r));
        }
        self.periods.push((key, info));
    }
}

/// Where a season is taken up again when games come after it: worked out up to its last
/// period, and that period's games.
struct Resume {
    at: Arc<Progress>,
    tail: Vec<SeasonGame>,
}

/// Works the season out from its games.
pub fn work_out(input: &Input) -> Season {
    let start = Progress::new(input.league, input.names, input.carried);
    run(
        input.league,
        card_lines(input.card),
        Arc::new(start),
        input.games,
        input.names,
    )
}

/// Works the season on from `start` with `games`, the games of the periods after it.
fn run(
    league: &League,
    card: Vec<(String, Vec<(String, String)>)>,
    start: Arc<Progress>,
    games: &[SeasonGame],
    names: &HashMap<i64, String>,
) -> Season {
    let by_week = league.is_open_play();
    let periods = periods_of(league, games);
    let index: HashMap<Key, usize> = periods
        .iter()
        .enumerate()
        .map(|(i, (k, _))| (*k, i))
        .collect();
    let period_of: Vec<usize> = games.iter().map(|g| index[&key_of(by_week, g)]).collect();
    let mut order: Vec<usize> = (0..games.len()).collect();
    order.sort_by_key(|&i| (period_of[i], games[i].standings_order));
    let last = periods.len().checked_sub(1);
    let mut resume = start.clone();
    let mut progress = Progress::clone(&start);
    let mut at = 0;
    let mut tail_from = 0;
    for (p, (key, info)) in periods.into_iter().enumerate() {
        let end = at + order[at..].partition_point(|&i| period_of[i] == p);
        if Some(p) == last && p > 0 {
            resume = Arc::new(progress.clone());
        }
        if Some(p) == last {
            tail_from = at;
        }
        let these: Vec<&SeasonGame> = order[at..end].iter().map(|&i| &games[i]).collect();
        progress.period(key, info, &these, names);
        at = end;
    }
    let tail = order[tail_from..]
        .iter()
        .map(|&i| games[i].clone())
        .collect();
    let league_season = progress.tally.numbers(league, &progress.periods, &card);
    Season {
        periods: progress.periods.into_iter().map(|(_, info)| info).collect(),
        players: progress.players,
        card,
        league: league_season,
        resume: Resume { at: resume, tail },
    }
}

impl Season {
    /// The games of its last night (week), which carrying it on adds again.
    pub(super) fn tail(&self) -> &[SeasonGame] {
        &self.resume.tail
    }

    /// The season with `games` added, games counted since it was worked out, taken up again at
    /// its last period: none when one of them falls in an earlier period (a game entered late
    /// for a past night) or what was carried in is not what it was worked out with, which need
    /// the whole season worked out again.
    pub fn carry_on(
        &self,
        league: &League,
        games: &[SeasonGame],
        names: &HashMap<i64, String>,
        carried: &HashMap<i64, standings::Carried>,
    ) -> Option<Season> {
        if self.resume.at.boards.carried != *carried {
            return None;
        }
        let by_week = league.is_open_play();
        if let Some((before, _)) = self.resume.at.periods.last()
            && games.iter().any(|g| key_of(by_week, g) <= *before)
        {
            return None;
        }
        let mut all = self.resume.tail.clone();
        all.extend_from_slice(games);
        Some(run(
            league,
            self.card.clone(),
            self.resume.at.clone(),
            &all,
            names,
        ))
    }
}

/// Adds one game to its players' numbers and to what they played in period `p`.
fn add_game(
    players: &mut HashMap<i64, Kept>,
    played: &mut HashMap<i64, (i64, i64, i64)>,
    g: &SeasonGame,
    p: usize,
) {
    for (i, &pl) in g.players.iter().enumerate() {
        let kept = players.entry(pl).or_insert_with(|| Kept {
            periods: vec![(0, 0, 0, None, 0.0); p],
            ..Kept::default()
        });
        kept.first.get_or_insert(p);
        let score = g.scores[i];
        let won = g.winner == Some(pl);
        let c = &mut kept.counts;
        c.games += 1;
        c.points += score;
        if won {
            c.wins += 1;
            if self_picked(g) {
                c.self_picks += 1;
            } else {
                c.discard_wins += 1;
            }
            if g.jokerless {
                c.jokerless_wins += 1;
            }
            if let Some(line) = &g.line_id {
                *kept.lines.entry(line.clone()).or_default() += 1;
            }
        }
        if g.discarder == Some(pl) {
            c.deal_ins += 1;
        }
        if g.dead.get(i).copied().unwrap_or(false) {
            c.dead_hands += 1;
        }
        if g.outcome == "wall" {
            c.wall_games += 1;
        }
        for (j, &other) in g.players.iter().enumerate() {
            if j == i {
                continue;
            }
            let o = kept.opponents.entry(other).or_default();
            o.0 += 1;
            match score.cmp(&g.scores[j]) {
                std::cmp::Ordering::Greater => o.1 += 1,
                std::cmp::Ordering::Less => o.2 += 1,
                std::cmp::Ordering::Equal => {}
            }
        }
        let e = played.entry(pl).or_default();
        e.0 += 1;
        e.1 += i64::from(won);
        e.2 += score;
    }
}

/// The league's board as it stood after each period: the players' totals so far (what was
/// carried in among them, as the standings have it), and what the board counts of them.
#[derive(Clone)]
struct Boards {
    counting: standings::Counting,
    board: Board,
    carried: HashMap<i64, standings::Carried>,
    lines: HashMap<i64, Line>,
    /// Best per night, dropped nights: (player, night number) → the scores.
    night_scores: HashMap<(i64, i32), Vec<i64>>,
    night_numbers: Vec<i32>,
    /// Best per week: (player, table) → the match.
    matches: HashMap<(i64, i64), MatchScore>,
    /// (game, dense player, score) of the games so far, for head-to-head.
    rows: Vec<(i64, u32, i64)>,
    dense: HashMap<i64, u32>,
    ids: Vec<i64>,
}

impl Boards {
    fn new(
        league: &League,
        names: &HashMap<i64, String>,
        carried: &HashMap<i64, standings::Carried>,
    ) -> Boards {
        let board = if league.board == "average" {
            Board::Average {
                min_games: league.min_games as i64,
            }
        } else {
            Board::Total
        };
        let mut boards = Boards {
            counting: counting_of(league),
            board,
            carried: carried.clone(),
            lines: HashMap::new(),
            night_scores: HashMap::new(),
            night_numbers: Vec::new(),
            matches: HashMap::new(),
            rows: Vec::new(),
            dense: HashMap::new(),
            ids: Vec::new(),
        };
        for (id, c) in carried {
            let line = boards.line(*id, names);
            line.games += c.games;
            line.wins += c.wins;
            line.points += c.points;
        }
        boards
    }

    /// The player's line, made when she first comes.
    fn line(&mut self, player: i64, names: &HashMap<i64, String>) -> &mut Line {
        self.lines.entry(player).or_insert_with(|| {
            let name = names
                .get(&player)
                .cloned()
                .unwrap_or_else(|| format!("Player {player}"));
            blank_line(player, name)
        })
    }

    fn add(&mut self, g: &SeasonGame, names: &HashMap<i64, String>) {
        for (i, &pl) in g.players.iter().enumerate() {
            let score = g.scores[i];
            let won = g.winner == Some(pl);
            let line = self.line(pl, names);
            line.games += 1;
            line.points += score;
            line.wins += i64::from(won);
            line.self_picks += i64::from(won && self_picked(g));
            line.jokerless_wins += i64::from(won && g.jokerless);
            line.deal_ins += i64::from(g.discarder == Some(pl));
            line.dead_hands += i64::from(g.dead.get(i).copied().unwrap_or(false));
            line.wall_games += i64::from(g.outcome == "wall");
            let next = self.ids.len() as u32;
            let d = *self.dense.entry(pl).or_insert(next);
            if d == next {
                self.ids.push(pl);
            }
            self.rows.push((g.id, d, score));
            if self.counting.best_per_week.is_some() {
                let m = self.matches.entry((pl, g.table_id)).or_insert_with(|| {
                    let mut table = g.players.clone();
                    table.sort_unstable();
                    table.dedup();
                    MatchScore {
                        player: pl,
                        night: g.night_number,
                        date: g.night_date,
                        points: 0,
                        games: 0,
                        table,
                    }
                });
                m.points += score;
                m.games += 1;
            } else if !self.counting.is_plain() {
                self.night_scores
                    .entry((pl, g.night_number))
                    .or_default()
                    .push(score);
                if !self.night_numbers.contains(&g.night_number) {
                    self.night_numbers.push(g.night_number);
                }
            }
        }
    }

    /// What a board that does not count every game counts of each player so far: (points,
    /// games). `None` on a board that counts every game.
    fn counted(&self) -> Option<HashMap<i64, (i64, i64)>> {
        if let Some(best) = self.counting.best_per_week {
            let scores: Vec<MatchScore> = self.matches.values().cloned().collect();
            let weeks = standings::weekly(&scores, best, self.counting.same_table_per_week);
            Some(weeks.into_iter().map(|(p, c)| (p, c.0)).collect())
        } else if !self.counting.is_plain() {
            let mut numbers = self.night_numbers.clone();
            numbers.sort_unstable();
            let scores: Vec<(i64, i32, Vec<i64>)> = self
                .night_scores
                .iter()
                .map(|((p, n), s)| (*p, *n, s.clone()))
                .collect();
            let nights = standings::counting(&numbers, &scores, self.counting);
            Some(nights.into_iter().map(|(p, c)| (p, c.0)).collect())
        } else {
            None
        }
    }

    /// Each player's rank on the board after the games added so far (as the standings rank:
    /// the board, then the tie-breaks, head-to-head among them).
    fn ranks(&self) -> HashMap<i64, Option<u32>> {
        let mut lines: Vec<Line> = self.lines.values().cloned().collect();
        lines.sort_unstable_by_key(|l| l.player_id);
        if let Some(counted) = self.counted() {
            for l in &mut lines {
                let (points, games) = counted.get(&l.player_id).copied().unwrap_or((0, 0));
                let c = self.carried.get(&l.player_id);
                l.counted = Some((
                    points + c.map_or(0, |c| c.points),
                    games + c.map_or(0, |c| c.games),
                ));
            }
        }
        let tied = standings::tie_groups(&lines, self.board);
        let h2h = if tied.is_empty() {
            HashMap::new()
        } else {
            standings::head_to_head(&self.rows, &self.ids, &tied)
        };
        standings::rank(&lines, self.board, &h2h)
            .into_iter()
            .map(|s| (s.player_id, s.rank))
            .collect()
    }
}

/// Whether the game was won on a tile the winner drew (as the standings count self-picks).
fn self_picked(g: &SeasonGame) -> bool {
    matches!(
        g.won_by.as_deref(),
        Some("self_pick" | "heavenly" | "earthly")
    )
}

/// A line of totals with nothing in it yet.
fn blank_line(player_id: i64, name: String) -> Line {
    Line {
        player_id,
        name,
        games: 0,
        wins: 0,
        points: 0,
        self_picks: 0,
        jokerless_wins: 0,
        deal_ins: 0,
        dead_hands: 0,
        wall_games: 0,
        counted: None,
    }
}

/// Wins by section and line: every section of the card, and of each either every line (`all`)
/// or those won with; lines won that the card no longer has under "Other lines".
fn section_wins(
    card: &[(String, Vec<(String, String)>)],
    won: &HashMap<String, i64>,
    all: bool,
) -> Vec<SectionWins> {
    let mut out: Vec<SectionWins> = card
        .iter()
        .map(|(section, lines)| {
            let lines: Vec<LineWins> = lines
                .iter()
                .map(|(id, name)| LineWins {
                    line: id.clone(),
                    name: name.clone(),
                    wins: won.get(id).copied().unwrap_or(0),
                })
                .filter(|l| all || l.wins > 0)
                .collect();
            SectionWins {
                section: section.clone(),
                wins: lines.iter().map(|l| l.wins).sum(),
                lines,
            }
        })
        .collect();
    let mut other: Vec<LineWins> = won
        .iter()
        .filter(|(id, _)| !card.iter().any(|(_, l)| l.iter().any(|x| &x.0 == *id)))
        .map(|(id, wins)| LineWins {
            line: id.clone(),
            name: id.clone(),
            wins: *wins,
        })
        .collect();
    if !other.is_empty() {
        other.sort_by(|a, b| a.line.cmp(&b.line));
        out.push(SectionWins {
            section: "Other lines".into(),
            wins: other.iter().map(|l| l.wins).sum(),
            lines: other,
        });
    }
    out
}

/// The league's own numbers so far: games, nights, players, lines won, how games ended, East's
/// wins, who came to each period.
#[derive(Clone, Default)]
struct Tally {
    games: i64,
    won: HashMap<String, i64>,
    how: How,
    won_games: i64,
    east_wins: i64,
    /// Per period: the players and the tables with a game in it.
    seen: Vec<(HashSet<i64>, HashSet<i64>)>,
    nights: HashSet<i64>,
    players: HashSet<i64>,
}

impl Tally {
    fn add(&mut self, g: &SeasonGame, p: usize) {
        self.games += 1;
        self.nights.insert(g.night_id);
        self.players.extend(g.players.iter().copied());
        if let Some(s) = self.seen.get_mut(p) {
            s.0.extend(g.players.iter().copied());
            s.1.insert(g.table_id);
        }
        match g.winner {
            Some(w) => {
                if self_picked(g) {
                    self.how.self_pick += 1;
                } else {
                    self.how.discard += 1;
                }
                self.won_games += 1;
                self.east_wins += i64::from(w == g.east_player);
                if let Some(line) = &g.line_id {
                    *self.won.entry(line.clone()).or_default() += 1;
                }
            }
            None => self.how.wall += i64::from(g.outcome == "wall"),
        }
    }

    /// The league's season from what is tallied.
    fn numbers(
        &self,
        league: &League,
        periods: &[(Key, PeriodInfo)],
        card: &[(String, Vec<(String, String)>)],
    ) -> LeagueSeason {
        let mut east = East {
            won_games: self.won_games,
            wins: self.east_wins,
            share: 0.0,
            expected: 0.25,
        };
        if east.won_games > 0 {
            east.share = (east.wins as f64 / east.won_games as f64 * 1000.0).round() / 1000.0;
        }
        let attendance = periods
            .iter()
            .zip(&self.seen)
            .map(|((_, p), (players, tables))| Attendance {
                night: p.night,
                date: p.date,
                label: p.label.clone(),
                players: players.len() as i64,
                tables: tables.len() as i64,
            })
            .collect();
        LeagueSeason {
            league: league.id,
            period: period_word(league).into(),
            revision: league.revision,
            games: self.games,
            nights: self.nights.len() as i64,
            players: self.players.len() as i64,
            sections: section_wins(card, &self.won, true),
            how: self.how.clone(),
            east,
            attendance,
        }
    }
}

/// `night`, or `week` in open play.
fn period_word(league: &League) -> &'static str {
    if league.is_open_play() {
        "week"
    } else {
        "night"
    }
}

impl Season {
    /// One player's season (zeros and empty lists for a player with no counted game), with
    /// her opponents' names from `names`.
    pub fn player(
        &self,
        league: &League,
        player: SeasonPlayer,
        names: &HashMap<i64, String>,
    ) -> PlayerSeason {
        let kept = self.players.get(&player.id);
        let periods = kept
            .and_then(|k| k.first.map(|f| (k, f)))
            .map(|(k, first)| {
                let mut total = 0;
                self.periods
                    .iter()
                    .zip(&k.periods)
                    .skip(first)
                    .map(|(info, &(games, wins, points, rank, rating))| {
                        total += points;
                        Period {
                            night: info.night,
                            date: info.date,
                            label: info.label.clone(),
                            games,
                            wins,
                            points,
                            total,
                            rank,
                            rating,
                        }
                    })
                    .collect()
            })
            .unwrap_or_default();
        let mut opponents: Vec<Opponent> = kept
            .map(|k| {
                k.opponents
                    .iter()
                    .map(|(id, &(games, ahead, behind))| Opponent {
                        player: SeasonPlayer {
                            id: *id,
                            name: names
                                .get(id)
                                .cloned()
                                .unwrap_or_else(|| format!("Player {id}")),
                        },
                        games,
                        ahead,
                        behind,
                    })
                    .collect()
            })
            .unwrap_or_default();
        opponents.sort_by(|a, b| {
            b.games
                .cmp(&a.games)
                .then(a.player.name.cmp(&b.player.name))
        });
        let empty = HashMap::new();
        PlayerSeason {
            league: league.id,
            player,
            period: period_word(league).into(),
            revision: league.revision,
            counts: kept.map(|k| k.counts.clone()).unwrap_or_default(),
            periods,
            sections: section_wins(&self.card, kept.map_or(&empty, |k| &k.lines), false),
            opponents,
        }
    }

    /// The players' ids with counted games.
    pub(super) fn opponents_of(&self, player: i64) -> Vec<i64> {
        self.players
            .get(&player)
            .map(|k| k.opponents.keys().copied().collect())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::{Input, Season, SeasonPlayer, work_out};
    use crate::storage::seasons::leagues::League;
    use crate::storage::seasons::season::SeasonGame;

    fn league(kind: &str, best_per_night: i32) -> League {
        League {
            id: 1,
            club_id: 1,
            name: "L".into(),
            card_id: None,
            builtin_card: Some("demo-2026".into()),
            ruleset: serde_json::json!("nmjl-money"),
            games_per_table: 4,
            visibility: "public".into(),
            board: "total".into(),
            min_games: 0,
            starts_on: None,
            ends_on: None,
            kind: kind.into(),
            best_per_night,
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
        }
    }

    /// `nights` nights (days two apart, so weeks hold two or three) of two tables of ten
    /// players, three games a table, won and paid in turn.
    fn played(nights: i64) -> Vec<SeasonGame> {
        let mut out = Vec::new();
        for night in 1..=nights {
            for table in 0..2i64 {
                let seats: Vec<i64> = (0..4)
                    .map(|s| (table * 4 + s + night * 3) % 10 + 1)
                    .collect();
                for g in 0..3i64 {
                    let n = out.len() as i64 + 1;
                    let wall = n % 7 == 0;
                    let w = (n % 4) as usize;
                    let own = n % 3 == 0;
                    let scores = (0..4)
                        .map(|s| match (wall, s == w, own) {
                            (true, _, _) => 0,
                            (_, true, true) => 75,
                            (_, true, false) => 50,
                            (_, false, true) => -25,
                            _ => -(25 + 25 * i64::from(s == (w + 1) % 4)) / 2,
                        })
                        .collect();
                    out.push(SeasonGame {
                        id: n,
                        standings_order: n,
                        night_id: 100 + night,
                        night_number: night as i32,
                        night_date: chrono::NaiveDate::from_ymd_opt(2026, 11, 2).unwrap()
                            + chrono::Duration::days(2 * night),
                        table_id: night * 10 + table,
                        east_player: seats[(g % 4) as usize],
                        outcome: if wall { "wall" } else { "mahjong" }.into(),
                        line_id: (!wall).then(|| ["2026#1", "2468#2"][(n % 2) as usize].into()),
                        winner: (!wall).then_some(seats[w]),
                        discarder: (!wall && !own).then_some(seats[(w + 1) % 4]),
                        won_by: (!wall).then(|| if own { "self_pick" } else { "discard" }.into()),
                        jokerless: !wall && n % 5 == 0,
                        players: seats.clone(),
                        scores,
                        dead: vec![false, n % 11 == 0, false, false],
                    });
                }
            }
        }
        out
    }

    fn whole(league: &League, games: &[SeasonGame], names: &HashMap<i64, String>) -> Season {
        let carried = HashMap::new();
        work_out(&Input {
            league,
            games,
            names,
            carried: &carried,
            card: crate::rules::builtin::get("demo-2026").unwrap(),
        })
    }

    fn same(league: &League, a: &Season, b: &Season, names: &HashMap<i64, String>) {
        assert_eq!(a.league, b.league);
        for id in 1..=10 {
            let me = SeasonPlayer {
                id,
                name: format!("P{id}"),
            };
            assert_eq!(
                a.player(league, me.clone(), names),
                b.player(league, me, names),
                "player {id}"
            );
        }
    }

    /// Taken up game by game at its last period, a season is the one worked out from every game
    /// at once: on nights and weeks, on a board of every game and one of the best per night.
    #[test]
    fn carried_on_game_by_game_is_worked_out_whole() {
        let games = played(6);
        let names: HashMap<i64, String> = (1..=10).map(|p| (p, format!("P{p}"))).collect();
        for league in [league("league", 0), league("league", 2), league("open", 0)] {
            let mut kept = whole(&league, &games[..5], &names);
            for n in 6..=games.len() {
                kept = kept
                    .carry_on(&league, &games[n - 1..n], &names, &HashMap::new())
                    .expect("a game of the last night or after it");
                same(&league, &kept, &whole(&league, &games[..n], &names), &names);
            }
            // Two at once, across a night.
            let mut kept = whole(&league, &games[..10], &names);
            kept = kept
                .carry_on(&league, &games[10..14], &names, &HashMap::new())
                .unwrap();
            same(
                &league,
                &kept,
                &whole(&league, &games[..14], &names),
                &names,
            );
        }
    }

    /// A game counted late for a night before the last, or balances carried in since, are not
    /// carried on: the season is worked out whole.
    #[test]
    fn a_late_game_for_an_earlier_night_is_not_carried_on() {
        let games = played(3);
        let names: HashMap<i64, String> = (1..=10).map(|p| (p, format!("P{p}"))).collect();
        let league = league("league", 0);
        let kept = whole(&league, &games[..12], &names);
        let mut late = games[0].clone();
        late.id = 99;
        late.standings_order = 99;
        let none = HashMap::new();
        assert!(kept.carry_on(&league, &[late], &names, &none).is_none());
        assert!(
            kept.carry_on(&league, &games[12..], &names, &none)
                .is_some()
        );
        // Balances carried in since: worked out whole.
        let carried = HashMap::from([(
            3,
            crate::standings::Carried {
                points: 40,
                games: 2,
                wins: 1,
            },
        )]);
        assert!(
            kept.carry_on(&league, &games[12..], &names, &carried)
                .is_none()
        );
    }
}
