//! A league's season as numbers, for a player's page and the league's: counts, night by night
//! (week by week in open play) with the rank and rating after each, wins by section and line of
//! the card, head-to-head, how games ended, East's share, attendance. Worked out from the
//! games the standings count (`storage::seasons::season`), once per league and standings
//! revision, and kept (`AppState::memo`): a new game, a correction or a void moves the revision
//! and the next read works it out again.

use std::collections::HashMap;
use std::sync::Arc;

use serde::Serialize;
use utoipa::ToSchema;

use crate::domain::seasons::standings::counting_of;
use crate::domain::{AppState, Caller, Error, Need, Result};
use crate::rules::Card;
use crate::standings::{self, Board, Line, MatchScore, week_of, week_words};
use crate::storage::history::imports;
use crate::storage::people::clubs::Club;
use crate::storage::seasons::leagues::League;
use crate::storage::seasons::season::{self as stored, SeasonGame};

/// A player as the documents name one.
#[derive(Debug, Clone, Serialize, ToSchema, PartialEq)]
pub struct PlayerRef {
    #[schema(example = 12)]
    pub id: i64,
    #[schema(example = "Edie Fong")]
    pub name: String,
}

/// What a player's counted games add up to.
#[derive(Debug, Clone, Default, Serialize, ToSchema, PartialEq)]
pub struct Counts {
    #[schema(example = 24)]
    pub games: i64,
    #[schema(example = 7)]
    pub wins: i64,
    /// Wins on a tile she drew herself (heavenly and earthly hands among them, as the
    /// standings count them).
    #[schema(example = 2)]
    pub self_picks: i64,
    /// Wins on another player's discard: `wins − self_picks`.
    #[schema(example = 5)]
    pub discard_wins: i64,
    #[schema(example = 1)]
    pub jokerless_wins: i64,
    /// Times her discard was the winning tile.
    #[schema(example = 3)]
    pub deal_ins: i64,
    /// Games in which her hand was called dead.
    #[schema(example = 1)]
    pub dead_hands: i64,
    /// Games she played that ended in a wall game.
    #[schema(example = 2)]
    pub wall_games: i64,
    #[schema(example = 240)]
    pub points: i64,
}

/// One night of a weekly league (one calendar week in open play) of a player's season.
#[derive(Debug, Clone, Serialize, ToSchema, PartialEq)]
pub struct Period {
    /// The night's id; null for a week of open play.
    #[schema(required = true, example = 31)]
    pub night: Option<i64>,
    /// The night's date; for a week, its Monday (on the club's clock).
    #[schema(example = "2026-12-01")]
    pub date: chrono::NaiveDate,
    /// What the period is called: "Night 3", or the week "Nov 30–Dec 6".
    #[schema(example = "Night 3")]
    pub label: String,
    /// Her counted games in it (0: she did not play).
    #[schema(example = 4)]
    pub games: i64,
    #[schema(example = 2)]
    pub wins: i64,
    /// Her points in it.
    #[schema(example = 75)]
    pub points: i64,
    /// Her points from the season's start to its end (games only; what was carried in is not
    /// among them).
    #[schema(example = 240)]
    pub total: i64,
    /// Her place on the league's board after it (ties shared); null while the board does not
    /// rank her (an average board's minimum of games).
    #[schema(required = true, example = 3)]
    pub rank: Option<u32>,
    /// Her rating (μ − 3σ, as the standings show it) after the games of this period and those
    /// before it.
    #[schema(example = 4.21)]
    pub rating: f64,
}

/// Wins with one line of the card.
#[derive(Debug, Clone, Serialize, ToSchema, PartialEq)]
pub struct LineWins {
    /// The line's id on the card.
    #[schema(example = "2468#1")]
    pub line: String,
    /// As the printed card says it: "2468 · line 1".
    #[schema(example = "2468 · line 1")]
    pub name: String,
    #[schema(example = 2)]
    pub wins: i64,
}

/// Wins with one section of the card, and its lines.
#[derive(Debug, Clone, Serialize, ToSchema, PartialEq)]
pub struct SectionWins {
    /// The section as printed ("2468"); lines the card no longer has are under "Other lines".
    #[schema(example = "2468")]
    pub section: String,
    #[schema(example = 3)]
    pub wins: i64,
    pub lines: Vec<LineWins>,
}

/// A player she shared a table with.
#[derive(Debug, Clone, Serialize, ToSchema, PartialEq)]
pub struct Opponent {
    pub player: PlayerRef,
    /// Counted games they played together.
    #[schema(example = 8)]
    pub games: i64,
    /// Of those, games she scored more in.
    #[schema(example = 5)]
    pub ahead: i64,
    /// Games she scored less in (the rest were level).
    #[schema(example = 2)]
    pub behind: i64,
}

/// A player's season in a league.
#[derive(Debug, Clone, Serialize, ToSchema, PartialEq)]
pub struct PlayerSeason {
    #[schema(example = 1)]
    pub league: i64,
    pub player: PlayerRef,
    /// `night` (a weekly league, tournament rounds) or `week` (open play).
    #[schema(example = "night")]
    pub period: String,
    /// The league's standings revision these numbers include.
    #[schema(example = 42)]
    pub revision: i64,
    pub counts: Counts,
    /// From her first night (week) on, every night (week) of the league in order, those she
    /// missed with 0 games.
    pub periods: Vec<Period>,
    /// Every section of the card in the card's order, with the lines she won with.
    pub sections: Vec<SectionWins>,
    /// Most games together first.
    pub opponents: Vec<Opponent>,
}

/// How the league's counted games ended.
#[derive(Debug, Clone, Default, Serialize, ToSchema, PartialEq)]
pub struct How {
    #[schema(example = 40)]
    pub self_pick: i64,
    #[schema(example = 150)]
    pub discard: i64,
    #[schema(example = 22)]
    pub wall: i64,
}

/// East's wins against the quarter of the won games a seat would win by chance.
#[derive(Debug, Clone, Default, Serialize, ToSchema, PartialEq)]
pub struct East {
    /// Games with a winner.
    #[schema(example = 190)]
    pub won_games: i64,
    /// Of those, won by East.
    #[schema(example = 52)]
    pub wins: i64,
    /// `wins / won_games`, to three decimals (0 when no game was won).
    #[schema(example = 0.274)]
    pub share: f64,
    /// What chance alone would give: a quarter.
    #[schema(example = 0.25)]
    pub expected: f64,
}

/// Who came to one night (one week in open play).
#[derive(Debug, Clone, Serialize, ToSchema, PartialEq)]
pub struct Attendance {
    /// The night's id; null for a week of open play.
    #[schema(required = true, example = 31)]
    pub night: Option<i64>,
    #[schema(example = "2026-12-01")]
    pub date: chrono::NaiveDate,
    #[schema(example = "Night 3")]
    pub label: String,
    /// Players with a counted game in it.
    #[schema(example = 16)]
    pub players: i64,
    /// Tables with a counted game in it.
    #[schema(example = 4)]
    pub tables: i64,
}

/// A league's season.
#[derive(Debug, Clone, Serialize, ToSchema, PartialEq)]
pub struct LeagueSeason {
    #[schema(example = 1)]
    pub league: i64,
    /// `night` or `week` (open play).
    #[schema(example = "night")]
    pub period: String,
    #[schema(example = 42)]
    pub revision: i64,
    /// Counted games.
    #[schema(example = 212)]
    pub games: i64,
    /// Nights (matches, in open play) with a counted game.
    #[schema(example = 9)]
    pub nights: i64,
    /// Players with a counted game.
    #[schema(example = 18)]
    pub players: i64,
    /// Every section of the card in the card's order, each with every line (those never won
    /// with 0 wins).
    pub sections: Vec<SectionWins>,
    pub how: How,
    pub east: East,
    pub attendance: Vec<Attendance>,
}

/// One period of the league: a night, or a week of open play.
#[derive(Debug, Clone)]
struct PeriodInfo {
    night: Option<i64>,
    date: chrono::NaiveDate,
    label: String,
}

/// One player's numbers, kept for the league.
#[derive(Debug, Clone, Default)]
struct Kept {
    counts: Counts,
    /// The first period she played.
    first: Option<usize>,
    /// (games, wins, points, rank, rating) per period of the league, every period.
    periods: Vec<(i64, i64, i64, Option<u32>, f64)>,
    /// Line id → wins.
    lines: HashMap<String, i64>,
    /// Opponent → (games, ahead, behind).
    opponents: HashMap<i64, (i64, i64, i64)>,
}

/// A league's season worked out, kept per league and stamp.
pub struct Season {
    periods: Vec<PeriodInfo>,
    players: HashMap<i64, Kept>,
    /// The card's sections, each with its lines (id, name), in the card's order.
    card: Vec<(String, Vec<(String, String)>)>,
    league: LeagueSeason,
}

/// The stamp a season is kept under: the league's revision and its card.
fn stamp_of(league: &League) -> u64 {
    let card = crate::domain::seasons::leagues::card_name(league);
    xxhash_rust::xxh3::xxh3_64(format!("{}|{card}|{}", league.revision, league.board).as_bytes())
}

/// The league's season, worked out or kept.
async fn season(state: &AppState, league: &League) -> Result<Arc<Season>> {
    let stamp = stamp_of(league);
    if let Some(kept) = state.memo.get::<Season>(league.id, stamp) {
        return Ok(kept);
    }
    let games = stored::games(&state.db, league.id).await?;
    let mut ids: Vec<i64> = games.iter().flat_map(|g| g.players.clone()).collect();
    ids.sort_unstable();
    ids.dedup();
    let names: HashMap<i64, String> = stored::names(&state.db, &ids).await?.into_iter().collect();
    let carried: HashMap<i64, standings::Carried> = if league.carried_in {
        imports::balances(&state.db, league.id)
            .await?
            .into_iter()
            .map(|b| {
                let c = standings::Carried {
                    points: b.points,
                    games: b.games,
                    wins: b.wins,
                };
                (b.player_id, c)
            })
            .collect()
    } else {
        HashMap::new()
    };
    let card = crate::domain::seasons::leagues::card(state, league).await?;
    let input = Input {
        league,
        games: &games,
        names: &names,
        carried: &carried,
        card: &card,
    };
    let worked = Arc::new(work_out(&input));
    state.memo.put(league.id, stamp, worked.clone());
    Ok(worked)
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
    fn player(
        &self,
        league: &League,
        player: PlayerRef,
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
                        player: PlayerRef {
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
    fn opponents_of(&self, player: i64) -> Vec<i64> {
        self.players
            .get(&player)
            .map(|k| k.opponents.keys().copied().collect())
            .unwrap_or_default()
    }
}

/// A player's season in a league: the league read as its standings are (public, or members
/// only), the player one of the league's club's.
pub async fn player_season(
    state: &AppState,
    caller: &Caller,
    league_id: i64,
    player_id: i64,
) -> Result<PlayerSeason> {
    Ok(player_season_in(state, caller, league_id, player_id)
        .await?
        .2)
}

/// As `player_season`, with the league and its club (for the page).
pub async fn player_season_in(
    state: &AppState,
    caller: &Caller,
    league_id: i64,
    player_id: i64,
) -> Result<(League, Club, PlayerSeason)> {
    let (league, club) = caller.league(state, league_id, Need::Read).await?;
    let season = season(state, &league).await?;
    let mut ids = season.opponents_of(player_id);
    ids.push(player_id);
    let names: HashMap<i64, String> = stored::names_in_club(&state.db, league.club_id, &ids)
        .await?
        .into_iter()
        .collect();
    let name = names.get(&player_id).cloned().ok_or_else(|| {
        Error::NotFound(format!(
            "no player {player_id} in the club of league {league_id}"
        ))
    })?;
    let player = PlayerRef {
        id: player_id,
        name,
    };
    let doc = season.player(&league, player, &names);
    Ok((league, club, doc))
}

/// The league's season, read as its standings are.
pub async fn league_season(
    state: &AppState,
    caller: &Caller,
    league_id: i64,
) -> Result<LeagueSeason> {
    let (league, _) = caller.league(state, league_id, Need::Read).await?;
    Ok(season(state, &league).await?.league.clone())
}

/// The league's season for its page: with the league, its club, the periods' names, and the
/// points period by period of the `top` players with the most points.
pub struct SeasonPage {
    pub league: League,
    pub club: Club,
    pub season: LeagueSeason,
    pub periods: Vec<String>,
    pub leaders: Vec<(PlayerRef, Vec<i64>)>,
}

/// The league's season and its leaders, for its page.
pub async fn league_season_page(
    state: &AppState,
    caller: &Caller,
    league_id: i64,
    top: usize,
) -> Result<SeasonPage> {
    let (league, club) = caller.league(state, league_id, Need::Read).await?;
    let season = season(state, &league).await?;
    let mut best: Vec<(i64, i64)> = season
        .players
        .iter()
        .map(|(id, k)| (*id, k.counts.points))
        .collect();
    best.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    best.truncate(top);
    let ids: Vec<i64> = best.iter().map(|b| b.0).collect();
    let names: HashMap<i64, String> = stored::names(&state.db, &ids).await?.into_iter().collect();
    let leaders = best
        .iter()
        .map(|(id, _)| {
            let points = season.players[id].periods.iter().map(|p| p.2).collect();
            let name = names
                .get(id)
                .cloned()
                .unwrap_or_else(|| format!("Player {id}"));
            (PlayerRef { id: *id, name }, points)
        })
        .collect();
    Ok(SeasonPage {
        periods: season.periods.iter().map(|p| p.label.clone()).collect(),
        season: season.league.clone(),
        leaders,
        league,
        club,
    })
}

/// How each player's night went, in one line for the results mail: "2 wins of 4, +75, up to
/// 3rd" (player → line), from the season as it stands (the night's place in the league's
/// nights; a later night already counted does not change this night's line).
pub async fn night_lines(
    state: &AppState,
    league: &League,
    night_id: i64,
) -> Result<HashMap<i64, String>> {
    let season = season(state, league).await?;
    let Some(at) = season
        .periods
        .iter()
        .position(|p| p.night == Some(night_id))
    else {
        return Ok(HashMap::new());
    };
    Ok(season
        .players
        .iter()
        .filter_map(|(id, k)| {
            let &(games, wins, points, rank, _) = k.periods.get(at)?;
            if games == 0 {
                return None;
            }
            let before = at
                .checked_sub(1)
                .and_then(|b| k.periods.get(b))
                .and_then(|p| p.3);
            Some((*id, night_line(games, wins, points, before, rank)))
        })
        .collect())
}

/// "2 wins of 4, +75, up to 3rd"; "1 win of 4, −40, down to 6th"; "0 wins of 4, 0, still
/// 2nd"; on her first night "… , 5th".
pub fn night_line(
    games: i64,
    wins: i64,
    points: i64,
    before: Option<u32>,
    after: Option<u32>,
) -> String {
    let signed = match points.cmp(&0) {
        std::cmp::Ordering::Greater => format!("+{points}"),
        std::cmp::Ordering::Less => format!("−{}", points.unsigned_abs()),
        std::cmp::Ordering::Equal => "0".into(),
    };
    let place = match (before, after) {
        (_, None) => "not ranked yet".to_string(),
        (Some(b), Some(a)) if a < b => format!("up to {}", crate::domain::ordinal(a as usize)),
        (Some(b), Some(a)) if a > b => format!("down to {}", crate::domain::ordinal(a as usize)),
        (Some(_), Some(a)) => format!("still {}", crate::domain::ordinal(a as usize)),
        (None, Some(a)) => crate::domain::ordinal(a as usize),
    };
    format!(
        "{} of {games}, {signed}, {place}",
        crate::domain::count(wins, "win")
    )
}

#[cfg(test)]
mod tests {
    use super::night_line;

    #[test]
    fn a_night_in_one_line() {
        assert_eq!(
            night_line(4, 2, 75, Some(5), Some(3)),
            "2 wins of 4, +75, up to 3rd"
        );
        assert_eq!(
            night_line(4, 1, -40, Some(2), Some(6)),
            "1 win of 4, −40, down to 6th"
        );
        assert_eq!(
            night_line(3, 0, 0, Some(2), Some(2)),
            "0 wins of 3, 0, still 2nd"
        );
        assert_eq!(
            night_line(4, 1, 10, None, Some(11)),
            "1 win of 4, +10, 11th"
        );
        assert_eq!(
            night_line(2, 0, -5, Some(4), None),
            "0 wins of 2, −5, not ranked yet"
        );
    }
}
