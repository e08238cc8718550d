//! The season in pictures: a player's season in a league and the league's season, each chart
//! drawn on the server (`charts`, which lays out every chart the pages have), said in a
//! sentence with its numbers, and given as a table.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use actix_web::{HttpResponse, get, web};
use askama::Template;

pub mod charts;

use super::{Ctx, Page};
use crate::domain::people::clubs::Club;
use crate::domain::seasons::leagues::League;
use crate::domain::seasons::season::{self, LeagueSeason, Period, PlayerSeason};
use crate::domain::{AppState, count, ordinal};
use crate::error::AppError;
use charts::{bars_figure, columns_figure, line_figure};

/// Players drawn in the league season's small multiples.
const LEADERS: usize = 6;

/// A number with its sign, as a score sheet writes it: "+75", "−40", "0".
fn signed(n: i64) -> String {
    match n.cmp(&0) {
        std::cmp::Ordering::Greater => format!("+{n}"),
        std::cmp::Ordering::Less => format!("−{}", n.unsigned_abs()),
        std::cmp::Ordering::Equal => "0".into(),
    }
}

/// A number as people read it, with a true minus sign.
fn number(n: i64) -> String {
    if n < 0 {
        format!("−{}", n.unsigned_abs())
    } else {
        n.to_string()
    }
}

/// A season page's charts and the table of numbers they share, as HTML.
#[derive(Default)]
struct Drawn {
    charts: Vec<String>,
    multiples: Vec<String>,
    numbers: String,
}

/// Pages' charts kept, by a digest of what they were drawn from.
static DRAWN: LazyLock<Mutex<HashMap<u64, Arc<Drawn>>>> = LazyLock::new(Default::default);

/// How many pages' charts are kept (a long season's page holds some 200 KB of them).
const DRAWN_KEPT: usize = 64;

/// The charts drawn from `from` (the document a page shows, and what else they are drawn
/// from): drawn once and kept, so the next read of the same numbers, by anyone, only fills in
/// the page around them. A new game changes the document, and so the digest.
fn drawn_once(from: &impl serde::Serialize, draw: impl FnOnce() -> Drawn) -> Arc<Drawn> {
    let Ok(bytes) = serde_json::to_vec(from) else {
        return Arc::new(draw());
    };
    let key = xxhash_rust::xxh3::xxh3_64(&bytes);
    if let Some(kept) = DRAWN.lock().ok().and_then(|k| k.get(&key).cloned()) {
        return kept;
    }
    let drawn = Arc::new(draw());
    if let Ok(mut kept) = DRAWN.lock() {
        if kept.len() >= DRAWN_KEPT {
            kept.clear();
        }
        kept.insert(key, drawn.clone());
    }
    drawn
}

#[derive(Template)]
#[template(path = "pages/player_season.html")]
struct PlayerSeasonPage {
    ctx: Ctx,
    club: Club,
    league: League,
    s: PlayerSeason,
    /// Her charts and the table of numbers they share.
    drawn: Arc<Drawn>,
    /// The lines she won with, in words: "2468 · line 1 (2)".
    lines_won: Vec<String>,
}

/// What one period of the season is called in a sentence.
fn unit_of(league: &League, period: &str) -> &'static str {
    if period == "week" {
        "week"
    } else {
        league.session_lower()
    }
}

/// The id and title of the table the charts over the season share: "Night by night".
fn by_period(unit: &str) -> (&'static str, String) {
    ("by-period", format!("{} by {unit}", period_head(unit)))
}

/// Her season period by period as one table: games, wins, points, total, place, rating.
fn player_numbers(s: &PlayerSeason, unit: &str) -> String {
    let (id, title) = by_period(unit);
    let table = charts::Table {
        head: [
            period_head(unit),
            "Games",
            "Wins",
            "Points",
            "Total",
            "Place",
            "Rating",
        ]
        .iter()
        .map(|h| h.to_string())
        .collect(),
        rows: s
            .periods
            .iter()
            .map(|p| {
                vec![
                    p.label.clone(),
                    p.games.to_string(),
                    p.wins.to_string(),
                    p.points.to_string(),
                    p.total.to_string(),
                    p.rank
                        .map(|r| ordinal(r as usize))
                        .unwrap_or_else(|| "–".into()),
                    format!("{:.2}", p.rating),
                ]
            })
            .collect(),
    };
    charts::numbers_html(id, &title, &table)
}

/// The player's charts: points and rank period by period, rating, wins by section, how she
/// won. The three over the season share one table of numbers (`player_numbers`).
fn player_charts(s: &PlayerSeason, unit: &str) -> Vec<String> {
    let name = &s.player.name;
    let mut out = Vec::new();
    let (shared, shared_title) = by_period(unit);
    let labels: Vec<String> = s.periods.iter().map(|p| p.label.clone()).collect();
    if let (Some(first), Some(last)) = (s.periods.first(), s.periods.last()) {
        let points: Vec<i64> = s.periods.iter().map(|p| p.points).collect();
        let best = best_and_worst(&s.periods);
        let said = format!(
            "{name}'s points {unit} by {unit}: {} after {}, {} after {} ({}).{best}",
            number(first.total),
            first.label,
            number(last.total),
            last.label,
            count(s.periods.len(), unit)
        );
        out.push(charts::html(
            &columns_figure(
                "points",
                format!("Points {unit} by {unit}"),
                said,
                &labels,
                &points,
                [period_head(unit), "Points"],
                None,
            )
            .shares_numbers(shared, &shared_title),
        ));
        let ranks: Vec<Option<f64>> = s.periods.iter().map(|p| p.rank.map(f64::from)).collect();
        out.push(charts::html(
            &line_figure(
                "rank",
                format!("Place after each {unit}"),
                rank_said(name, &s.periods),
                &labels,
                &ranks,
                [period_head(unit), "Place"],
                true,
            )
            .shares_numbers(shared, &shared_title),
        ));
        let ratings: Vec<Option<f64>> = s.periods.iter().map(|p| Some(p.rating)).collect();
        out.push(charts::html(
            &line_figure(
                "rating",
                "Rating over the season".into(),
                format!(
                    "{name}'s rating went from {:.2} after {} to {:.2} after {}.",
                    first.rating, first.label, last.rating, last.label
                ),
                &labels,
                &ratings,
                [period_head(unit), "Rating"],
                false,
            )
            .shares_numbers(shared, &shared_title),
        ));
    }
    let sections: Vec<(String, i64)> = s
        .sections
        .iter()
        .map(|x| (x.section.clone(), x.wins))
        .collect();
    if !sections.is_empty() {
        let won: Vec<String> = s
            .sections
            .iter()
            .filter(|x| x.wins > 0)
            .map(|x| format!("{} with {}", x.wins, x.section))
            .collect();
        let said = if won.is_empty() {
            format!("{name} has won no hand yet.")
        } else {
            format!(
                "{name} won {}: {}.",
                count(s.counts.wins, "hand"),
                won.join(", ")
            )
        };
        out.push(charts::html(&bars_figure(
            "sections",
            "Wins by section of the card".into(),
            said,
            &sections,
            ["Section", "Wins"],
        )));
    }
    let c = &s.counts;
    let how = vec![
        ("Self-picked".to_string(), c.self_picks),
        ("On a discard".to_string(), c.discard_wins),
        ("Jokerless".to_string(), c.jokerless_wins),
        ("Dealt in (her discard won)".to_string(), c.deal_ins),
    ];
    let said = format!(
        "Of {name}'s {}, {} self-picked and {} on a discard; {} jokerless. {name}'s discards gave {} to others.",
        count(c.wins, "win"),
        c.self_picks,
        c.discard_wins,
        c.jokerless_wins,
        count(c.deal_ins, "win")
    );
    out.push(charts::html(&bars_figure(
        "how",
        "How the hands were won".into(),
        said,
        &how,
        ["How", "Games"],
    )));
    out
}

/// The column head for a period: "Night", "Round", "Week".
fn period_head(unit: &str) -> &'static str {
    match unit {
        "week" => "Week",
        "round" => "Round",
        "match" => "Match",
        _ => "Night",
    }
}

/// " Best: Night 3 (+120); worst: Night 5 (−80)." (empty with one period).
fn best_and_worst(periods: &[Period]) -> String {
    let played: Vec<&Period> = periods.iter().filter(|p| p.games > 0).collect();
    let (Some(best), Some(worst)) = (
        played.iter().max_by_key(|p| p.points),
        played.iter().min_by_key(|p| p.points),
    ) else {
        return String::new();
    };
    if played.len() < 2 {
        return String::new();
    }
    format!(
        " Best: {} ({}); worst: {} ({}).",
        best.label,
        signed(best.points),
        worst.label,
        signed(worst.points)
    )
}

/// The rank chart in a sentence: where she started, where she stands, her best.
fn rank_said(name: &str, periods: &[Period]) -> String {
    let place = |p: &Period| {
        p.rank
            .map(|r| ordinal(r as usize))
            .unwrap_or_else(|| "not ranked yet".into())
    };
    let (Some(first), Some(last)) = (periods.first(), periods.last()) else {
        return String::new();
    };
    let best = periods.iter().filter_map(|p| p.rank).min();
    format!(
        "{name} was {} after {} and is {} after {}{}.",
        place(first),
        first.label,
        place(last),
        last.label,
        best.map(|b| format!(" (best: {})", ordinal(b as usize)))
            .unwrap_or_default()
    )
}

#[get("/leagues/{league}/players/{player}")]
async fn player_season(
    page: Page,
    state: web::Data<AppState>,
    ids: web::Path<(i64, i64)>,
) -> Result<HttpResponse, AppError> {
    let (league_id, player_id) = *ids;
    let (league, club, s) =
        season::player_season_in(&state, &page.caller, league_id, player_id).await?;
    let unit = unit_of(&league, &s.period);
    let drawn = drawn_once(&("player", unit, &s), || {
        if s.counts.games == 0 {
            return Drawn::default();
        }
        Drawn {
            charts: player_charts(&s, unit),
            multiples: Vec::new(),
            numbers: player_numbers(&s, unit),
        }
    });
    let lines_won = s
        .sections
        .iter()
        .flat_map(|x| &x.lines)
        .map(|l| format!("{} ({})", l.name, l.wins))
        .collect();
    page.render(PlayerSeasonPage {
        ctx: page.ctx.clone(),
        club,
        league,
        s,
        drawn,
        lines_won,
    })
}

#[derive(Template)]
#[template(path = "pages/league_season.html")]
struct LeagueSeasonPage {
    ctx: Ctx,
    club: Club,
    league: League,
    s: LeagueSeason,
    unit: &'static str,
    /// The league's charts, the leaders' small multiples (their points period by period, on
    /// one scale), and the table of numbers the charts over the season share.
    drawn: Arc<Drawn>,
    /// East's share in words ("27.4% of won games, against 25% by chance").
    east: String,
    /// The card's lines never won, by name.
    never_won: Vec<String>,
}

/// The league's season period by period as one table: players and tables, and each leader's
/// points.
fn league_numbers(
    s: &LeagueSeason,
    unit: &str,
    leaders: &[(season::SeasonPlayer, Vec<i64>)],
) -> String {
    let (id, title) = by_period(unit);
    let mut head: Vec<String> = [period_head(unit), "Players", "Tables"]
        .iter()
        .map(|h| h.to_string())
        .collect();
    head.extend(leaders.iter().map(|(who, _)| who.name.clone()));
    let rows = s
        .attendance
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let mut row = vec![a.label.clone(), a.players.to_string(), a.tables.to_string()];
            row.extend(
                leaders
                    .iter()
                    .map(|(_, points)| points.get(i).map(i64::to_string).unwrap_or_default()),
            );
            row
        })
        .collect();
    charts::numbers_html(id, &title, &charts::Table { head, rows })
}

/// The league's charts: attendance, wins by section, how games ended, East's wins. Attendance
/// shares its table of numbers with the leaders' charts (`league_numbers`).
fn league_charts(s: &LeagueSeason, unit: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (shared, shared_title) = by_period(unit);
    if !s.attendance.is_empty() {
        let labels: Vec<String> = s.attendance.iter().map(|a| a.label.clone()).collect();
        let players: Vec<i64> = s.attendance.iter().map(|a| a.players).collect();
        let most = s.attendance.iter().max_by_key(|a| a.players);
        let fewest = s.attendance.iter().min_by_key(|a| a.players);
        let said = match (most, fewest) {
            (Some(m), Some(f)) => format!(
                "Players each {unit}: most {} ({}), fewest {} ({}), over {}.",
                m.players,
                m.label,
                f.players,
                f.label,
                count(s.attendance.len(), unit)
            ),
            _ => String::new(),
        };
        out.push(charts::html(
            &columns_figure(
                "attendance",
                format!("Who came, {unit} by {unit}"),
                said,
                &labels,
                &players,
                [period_head(unit), "Players"],
                None,
            )
            .shares_numbers(shared, &shared_title),
        ));
    }
    let sections: Vec<(String, i64)> = s
        .sections
        .iter()
        .map(|x| (x.section.clone(), x.wins))
        .collect();
    if !sections.is_empty() {
        let top = s.sections.iter().max_by_key(|x| x.wins);
        let said = format!(
            "{} won with a line of the card{}.",
            count(s.how.self_pick + s.how.discard, "game"),
            top.filter(|t| t.wins > 0)
                .map(|t| format!("; most with {} ({})", t.section, t.wins))
                .unwrap_or_default()
        );
        out.push(charts::html(&bars_figure(
            "sections",
            "Wins by section of the card".into(),
            said,
            &sections,
            ["Section", "Wins"],
        )));
    }
    let how = vec![
        ("Self-picked".to_string(), s.how.self_pick),
        ("On a discard".to_string(), s.how.discard),
        ("Wall game".to_string(), s.how.wall),
    ];
    out.push(charts::html(&bars_figure(
        "how",
        "How games ended".into(),
        format!(
            "Of {}, {} self-picked, {} on a discard and {} wall games.",
            count(s.games, "game"),
            s.how.self_pick,
            s.how.discard,
            s.how.wall
        ),
        &how,
        ["Ended", "Games"],
    )));
    let expected = (s.east.won_games as f64 / 4.0).round() as i64;
    out.push(charts::html(&bars_figure(
        "east",
        "East's wins against a quarter".into(),
        format!(
            "East won {} of {} won games; a quarter would be {expected}.",
            s.east.wins, s.east.won_games
        ),
        &[
            ("Won by East".to_string(), s.east.wins),
            ("A quarter of won games".to_string(), expected),
        ],
        ["", "Games"],
    )));
    out
}

/// The leaders' small multiples: each one's points period by period, every chart on one scale,
/// their numbers in the table the charts over the season share.
fn multiples(
    leaders: &[(season::SeasonPlayer, Vec<i64>)],
    periods: &[String],
    unit: &str,
) -> Vec<String> {
    let (shared, shared_title) = by_period(unit);
    let lo = leaders.iter().flat_map(|l| l.1.iter()).copied().min();
    let hi = leaders.iter().flat_map(|l| l.1.iter()).copied().max();
    leaders
        .iter()
        .enumerate()
        .map(|(i, (who, points))| {
            let total: i64 = points.iter().sum();
            let mut f = columns_figure(
                &format!("leader-{i}"),
                who.name.clone(),
                format!(
                    "{}'s points {unit} by {unit}, {} in all.",
                    who.name,
                    number(total)
                ),
                periods,
                points,
                [period_head(unit), "Points"],
                lo.zip(hi),
            )
            .shares_numbers(shared, &shared_title);
            f.level = 3;
            charts::html(&f)
        })
        .collect()
}

#[get("/leagues/{league}/season")]
async fn league_season(
    page: Page,
    state: web::Data<AppState>,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let p = season::league_season_page(&state, &page.caller, *id, LEADERS).await?;
    let unit = unit_of(&p.league, &p.season.period);
    let s = p.season;
    let drawn = drawn_once(&("league", unit, &s, &p.leaders, &p.periods), || {
        if s.games == 0 {
            return Drawn::default();
        }
        Drawn {
            charts: league_charts(&s, unit),
            multiples: multiples(&p.leaders, &p.periods, unit),
            numbers: league_numbers(&s, unit, &p.leaders),
        }
    });
    let east = if s.east.won_games > 0 {
        format!(
            "{:.1}% of won games, against 25% by chance",
            s.east.share * 100.0
        )
    } else {
        "no game won yet".into()
    };
    let never_won = s
        .sections
        .iter()
        .flat_map(|x| &x.lines)
        .filter(|l| l.wins == 0)
        .map(|l| l.name.clone())
        .collect();
    page.render(LeagueSeasonPage {
        ctx: page.ctx.clone(),
        club: p.club,
        league: p.league,
        s,
        unit,
        drawn,
        east,
        never_won,
    })
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(league_season).service(player_season);
}
