//! A league's season worked out from its counted games: the periods, each player's numbers
//! and place and rating after each period (the board as the standings rank it, on the games up
//! to then), and the league's own numbers.

use std::collections::HashMap;

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

/// The periods of the league and each game's period: nights in order, or in open play the
/// calendar weeks of the matches' dates.
fn periods_of(league: &League, games: &[SeasonGame]) -> (Vec<PeriodInfo>, Vec<usize>) {
    let by_week = league.is_open_play();
    let mut periods: Vec<PeriodInfo> = Vec::new();
    let mut keys: Vec<(chrono::NaiveDate, i32)> = Vec::new();
    let key = |g: &SeasonGame| {
        if by_week {
            (week_of(g.night_date), 0)
        } else {
            (g.night_date, g.night_number)
        }
    };
    let mut all: Vec<(chrono::NaiveDate, i32, i64)> = games
        .iter()
        .map(|g| {
            let (d, n) = key(g);
            (d, n, g.night_id)
        })
        .collect();
    all.sort_unstable_by_key(|k| (k.1, k.0));
    all.dedup_by_key(|k| (k.0, k.1));
    if by_week {
        all.sort_unstable();
    }
    for (date, number, night) in all {
        keys.push((date, number));
        periods.push(PeriodInfo {
            night: (!by_week).then_some(night),
            date,
            label: if by_week {
                week_words(date)
            } else {
                format!("{} {number}", league.session())
            },
        });
    }
    let of = games
        .iter()
        .map(|g| keys.iter().position(|k| *k == key(g)).unwrap_or(0))
        .collect();
    (periods, of)
}

/// Works the season out from its games.
pub fn work_out(input: &Input) -> Season {
    let Input {
        league,
        games,
        names,
        carried,
        card,
    } = input;
    let (periods, period_of) = periods_of(league, games);
    let card = card_lines(card);
    let mut players: HashMap<i64, Kept> = HashMap::new();
    let mut order: Vec<usize> = (0..games.len()).collect();
    // Ratings follow the games in the order they were counted, period by period.
    order.sort_by_key(|&i| (period_of[i], games[i].standings_order));
    let mut boards = Boards::new(league, names, carried);
    let mut rating: HashMap<i64, standings::Skill> = HashMap::new();
    let mut at = 0;
    for (p, _) in periods.iter().enumerate() {
        let mut played: HashMap<i64, (i64, i64, i64)> = HashMap::new();
        while at < order.len() && period_of[order[at]] == p {
            let g = &games[order[at]];
            add_game(&mut players, &mut played, g, p);
            boards.add(g);
            let seats: Vec<(i64, i64, i64)> = g
                .players
                .iter()
                .zip(&g.scores)
                .map(|(pl, s)| (g.id, *pl, *s))
                .collect();
            standings::replay(&mut rating, &seats);
            at += 1;
        }
        let ranks = boards.ranks();
        for (id, kept) in players.iter_mut() {
            let (games, wins, points) = played.get(id).copied().unwrap_or_default();
            let r = rating.get(id).map(|r| standings::shown(*r)).unwrap_or(0.0);
            kept.periods
                .push((games, wins, points, ranks.get(id).copied().flatten(), r));
        }
    }
    let league_season = league_numbers(league, games, &period_of, &periods, &card);
    Season {
        periods,
        players,
        card,
        league: league_season,
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
struct Boards<'a> {
    counting: standings::Counting,
    board: Board,
    names: &'a HashMap<i64, String>,
    carried: &'a HashMap<i64, standings::Carried>,
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

impl<'a> Boards<'a> {
    fn new(
        league: &League,
        names: &'a HashMap<i64, String>,
        carried: &'a HashMap<i64, standings::Carried>,
    ) -> Boards<'a> {
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
            names,
            carried,
            lines: HashMap::new(),
            night_scores: HashMap::new(),
            night_numbers: Vec::new(),
            matches: HashMap::new(),
            rows: Vec::new(),
            dense: HashMap::new(),
            ids: Vec::new(),
        };
        for (id, c) in carried {
            let line = boards.line(*id);
            line.games += c.games;
            line.wins += c.wins;
            line.points += c.points;
        }
        boards
    }

    /// The player's line, made when she first comes.
    fn line(&mut self, player: i64) -> &mut Line {
        let names = self.names;
        self.lines.entry(player).or_insert_with(|| {
            let name = names
                .get(&player)
                .cloned()
                .unwrap_or_else(|| format!("Player {player}"));
            blank_line(player, name)
        })
    }

    fn add(&mut self, g: &SeasonGame) {
        for (i, &pl) in g.players.iter().enumerate() {
            let score = g.scores[i];
            let won = g.winner == Some(pl);
            let line = self.line(pl);
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

/// The league's own numbers: games, nights, players, sections and lines won, how games ended,
/// East's wins, attendance.
fn league_numbers(
    league: &League,
    games: &[SeasonGame],
    period_of: &[usize],
    periods: &[PeriodInfo],
    card: &[(String, Vec<(String, String)>)],
) -> LeagueSeason {
    let mut won: HashMap<String, i64> = HashMap::new();
    let mut how = How::default();
    let mut east = East {
        expected: 0.25,
        ..East::default()
    };
    let mut seen: Vec<(
        std::collections::HashSet<i64>,
        std::collections::HashSet<i64>,
    )> = vec![Default::default(); periods.len()];
    let mut nights = std::collections::HashSet::new();
    let mut players = std::collections::HashSet::new();
    for (g, &p) in games.iter().zip(period_of) {
        nights.insert(g.night_id);
        players.extend(g.players.iter().copied());
        if let Some(s) = seen.get_mut(p) {
            s.0.extend(g.players.iter().copied());
            s.1.insert(g.table_id);
        }
        match g.winner {
            Some(w) => {
                if self_picked(g) {
                    how.self_pick += 1;
                } else {
                    how.discard += 1;
                }
                east.won_games += 1;
                east.wins += i64::from(w == g.east_player);
                if let Some(line) = &g.line_id {
                    *won.entry(line.clone()).or_default() += 1;
                }
            }
            None => how.wall += i64::from(g.outcome == "wall"),
        }
    }
    if east.won_games > 0 {
        east.share = (east.wins as f64 / east.won_games as f64 * 1000.0).round() / 1000.0;
    }
    let attendance = periods
        .iter()
        .zip(seen)
        .map(|(p, (players, tables))| Attendance {
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
        games: games.len() as i64,
        nights: nights.len() as i64,
        players: players.len() as i64,
        sections: section_wins(card, &won, true),
        how,
        east,
        attendance,
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
