//! Tournament day: a round's status and timer for its officials, the where-do-I-sit list,
//! check-in at the door (with late registration and badge codes), and player badges.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::domain::people::players::{self, NewPlayer};
use crate::domain::play::nights::{check_in, night_for};
use crate::domain::{AppState, Caller, Error, Need, Result};
use crate::storage::play::games::SEAT_WINDS;
use crate::storage::{people::clubs, play::nights};

/// The round timer as shown.
#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct TimerView {
    /// stopped, running, paused or over (ran out).
    #[schema(example = "running")]
    pub state: String,
    /// The length it was last started with.
    #[schema(required = true)]
    pub minutes: Option<i32>,
    /// When it runs out (running only).
    #[schema(required = true)]
    pub ends_at: Option<DateTime<Utc>>,
    /// Seconds left (0 once over; null when stopped).
    #[schema(required = true)]
    pub left_seconds: Option<i64>,
}

/// How one table of the round stands.
#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct TableProgress {
    pub id: i64,
    pub number: i32,
    pub players: Vec<String>,
    /// Games entered (voided games and redeals not counted).
    pub games: i64,
    /// Games each table plays this round.
    pub expected: i64,
    /// done (every game entered), behind, or playing.
    #[schema(example = "playing")]
    pub state: String,
    #[schema(required = true)]
    pub last_game_at: Option<DateTime<Utc>>,
}

/// A round at a glance, for officials and the projector.
#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct RoundStatus {
    pub night: i64,
    pub league: i64,
    pub number: i32,
    /// open, seated or closed.
    #[schema(schema_with = crate::domain::schemas::night_status)]
    pub status: String,
    pub timer: TimerView,
    pub tables: Vec<TableProgress>,
    /// Tables with every game entered.
    pub done: usize,
    /// Tables behind (see `TableProgress.state`).
    pub behind: usize,
}

fn timer_view(t: &nights::Timer) -> TimerView {
    let (state, left) = match (t.ends_at, t.left_secs) {
        (Some(end), _) => {
            let left = (end - t.now).num_seconds().max(0);
            (if left == 0 { "over" } else { "running" }, Some(left))
        }
        (None, Some(left)) => ("paused", Some(i64::from(left))),
        (None, None) => ("stopped", None),
    };
    TimerView {
        state: state.into(),
        minutes: t.minutes,
        ends_at: t.ends_at,
        left_seconds: left,
    }
}

/// Whether a table with `games` of `expected` is behind: two or more games behind the table
/// furthest on, or more than one game behind the timer's pace (games spread evenly over the
/// round's minutes), or not done when time is up.
pub fn is_behind(games: i64, expected: i64, furthest: i64, timer: &TimerView) -> bool {
    if games >= expected {
        return false;
    }
    if furthest - games >= 2 {
        return true;
    }
    match (timer.state.as_str(), timer.minutes, timer.left_seconds) {
        ("over", _, _) => true,
        ("running" | "paused", Some(minutes), Some(left)) => {
            let total = f64::from(minutes) * 60.0;
            let pace = expected as f64 * ((total - left as f64) / total).clamp(0.0, 1.0);
            (games as f64) < pace - 1.0
        }
        _ => false,
    }
}

/// The round's tables, how far each is, and its timer.
pub async fn status(state: &AppState, caller: &Caller, id: i64) -> Result<RoundStatus> {
    let (night, league) = night_for(state, caller, id, Need::Read).await?;
    let timer = timer_view(&nights::timer(&state.db, night.id).await?);
    let tables = nights::tables(&state.db, night.id).await?;
    let progress = nights::progress(&state.db, night.id).await?;
    let expected = i64::from(league.games_per_table);
    let furthest = progress.iter().map(|p| p.1).max().unwrap_or(0);
    let tables: Vec<TableProgress> = tables
        .into_iter()
        .map(|t| {
            let (games, last) = progress
                .iter()
                .find(|p| p.0 == t.id)
                .map(|p| (p.1, p.2))
                .unwrap_or((0, None));
            let state = if games >= expected {
                "done"
            } else if is_behind(games, expected, furthest, &timer) {
                "behind"
            } else {
                "playing"
            };
            TableProgress {
                id: t.id,
                number: t.number,
                players: t.players.into_iter().map(|p| p.1).collect(),
                games,
                expected,
                state: state.into(),
                last_game_at: last,
            }
        })
        .collect();
    Ok(RoundStatus {
        night: night.id,
        league: league.id,
        number: night.number,
        status: night.status,
        done: tables.iter().filter(|t| t.state == "done").count(),
        behind: tables.iter().filter(|t| t.state == "behind").count(),
        tables,
        timer,
    })
}

/// A change to the round timer.
#[derive(Deserialize, ToSchema, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct TimerChange {
    /// start (from `minutes`), pause, resume, or reset (stopped).
    #[schema(example = "start", pattern = "^(?:start|pause|resume|reset)$")]
    pub action: String,
    /// For start: the round's length, 1 to 600 minutes (default: the last length, else 90).
    #[serde(default)]
    #[schema(minimum = 1, maximum = 600, example = 90)]
    pub minutes: Option<i32>,
}

/// Starts, pauses, resumes or resets the round's timer (organizers).
pub async fn set_timer(
    state: &AppState,
    caller: &Caller,
    id: i64,
    change: TimerChange,
) -> Result<RoundStatus> {
    let (night, _) = night_for(state, caller, id, Need::Admin).await?;
    let action = change.action.as_str();
    if !["start", "pause", "resume", "reset"].contains(&action) {
        return Err(Error::invalid(
            "action",
            format!("`{action}` is not a timer action; use start, pause, resume or reset"),
        ));
    }
    if let Some(m) = change.minutes
        && !(1..=600).contains(&m)
    {
        return Err(Error::invalid("minutes", "give 1 to 600 minutes"));
    }
    if change.minutes.is_some() && action != "start" {
        return Err(Error::invalid(
            "minutes",
            "minutes go with start only; pause and resume keep what is left",
        ));
    }
    let minutes = match change.minutes {
        Some(m) => Some(m),
        None if action == "start" => Some(
            nights::timer(&state.db, night.id)
                .await?
                .minutes
                .unwrap_or(90),
        ),
        None => None,
    };
    nights::set_timer(&state.db, night.id, action, minutes).await?;
    status(state, caller, id).await
}

/// One line of the where-do-I-sit list.
#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct SeatRow {
    pub player: String,
    pub table: i32,
    /// The seat's wind at the round's first game: E, S, W, N.
    #[schema(schema_with = crate::domain::schemas::seat)]
    pub seat: &'static str,
}

/// Everyone seated this round, alphabetically, with table and seat.
pub struct SeatList {
    pub night: nights::Night,
    pub league: crate::storage::seasons::leagues::League,
    pub rows: Vec<SeatRow>,
    pub timer: TimerView,
}

pub async fn seats(state: &AppState, caller: &Caller, id: i64) -> Result<SeatList> {
    let (night, league) = night_for(state, caller, id, Need::Read).await?;
    let tables = nights::tables(&state.db, night.id).await?;
    let mut rows: Vec<SeatRow> = tables
        .iter()
        .flat_map(|t| {
            t.players.iter().enumerate().map(|(i, (_, name))| SeatRow {
                player: name.clone(),
                table: t.number,
                seat: SEAT_WINDS[i],
            })
        })
        .collect();
    rows.sort_by_key(|r| (r.player.to_lowercase(), r.table));
    let timer = timer_view(&nights::timer(&state.db, night.id).await?);
    Ok(SeatList {
        night,
        league,
        rows,
        timer,
    })
}

/// The code on a player's badge (its QR code and what a USB scanner types).
pub fn badge_code(player: i64) -> String {
    format!("MJL-{player}")
}

/// The player a badge code names, if it is one.
pub fn player_of_badge(code: &str) -> Option<i64> {
    code.trim()
        .to_ascii_uppercase()
        .strip_prefix("MJL-")?
        .parse()
        .ok()
        .filter(|n| *n > 0)
}

/// A player's badge: name, code and the code as a QR image (SVG).
pub struct Badge {
    pub name: String,
    pub code: String,
    pub svg: String,
}

/// Badges for the league's club's active players, by name (organizers).
pub async fn badges(
    state: &AppState,
    caller: &Caller,
    league: i64,
) -> Result<(crate::storage::seasons::leagues::League, Vec<Badge>)> {
    let (league, club) = caller.league(state, league, Need::Admin).await?;
    let roster = players::list(state, caller, &club.slug, false).await?;
    let mut out = Vec::with_capacity(roster.len());
    for p in roster {
        let code = badge_code(p.id);
        let qr = qrcode::QrCode::with_error_correction_level(code.as_bytes(), qrcode::EcLevel::M)
            .map_err(Error::internal)?;
        let svg = qr
            .render::<qrcode::render::svg::Color<'_>>()
            .min_dimensions(120, 120)
            .quiet_zone(true)
            .build();
        out.push(Badge {
            name: p.name,
            code,
            svg,
        });
    }
    Ok((league, out))
}

/// A late registration at the door: a new player of the club, checked in to the round.
pub async fn register_at_door(
    state: &AppState,
    caller: &Caller,
    night: i64,
    name: &str,
) -> Result<players::Player> {
    let (n, league) = night_for(state, caller, night, Need::Admin).await?;
    if n.status == "closed" {
        return Err(Error::Conflict(format!(
            "{} {} is closed; an organizer can reopen it",
            league.session_lower(),
            n.number
        )));
    }
    let club = clubs::by_id(&state.db, league.club_id)
        .await?
        .ok_or_else(|| Error::NotFound(format!("no night {night}")))?;
    let player = players::add(
        state,
        caller,
        &club.slug,
        NewPlayer {
            name: name.to_string(),
        },
    )
    .await?;
    check_in(state, caller, night, player.id).await?;
    Ok(player)
}

/// What the standings projector starts from: the standings, the latest event (the stream
/// resumes after it, so nothing falls between the page and the stream) and the current round.
pub struct Screen {
    pub overview: crate::domain::seasons::overview::Overview,
    pub last_event: i64,
    /// The latest round not closed (else the latest round).
    pub round: Option<nights::Night>,
}

pub async fn screen(state: &AppState, caller: &Caller, league: i64) -> Result<Screen> {
    // The event id first: a game saved between the two reads is sent again, never missed.
    caller.league(state, league, Need::Read).await?;
    let last_event = crate::storage::seasons::events::latest(&state.db, league).await?;
    let overview = crate::domain::seasons::overview::overview(state, caller, league, 0).await?;
    let round = overview
        .nights
        .iter()
        .rev()
        .find(|n| n.status != "closed")
        .or(overview.nights.last())
        .cloned();
    Ok(Screen {
        overview,
        last_event,
        round,
    })
}

/// A public league's standings for a page framed on another site (a club's website): read as
/// anyone would read them, so a league that is not public is not found, whoever asks.
pub async fn embed(state: &AppState, league: i64) -> Result<Screen> {
    screen(state, &Caller::default(), league)
        .await
        .map_err(|e| match e {
            Error::Unauthorized(_) | Error::Forbidden(_) => {
                Error::NotFound(format!("no league {league}"))
            }
            other => other,
        })
}

/// The round's tables for the score sheets and tent cards: (table number, players in seat
/// order with their winds), the league, and the round.
pub async fn printing(
    state: &AppState,
    caller: &Caller,
    id: i64,
) -> Result<(
    nights::Night,
    crate::storage::seasons::leagues::League,
    Vec<(i32, Vec<(String, &'static str)>)>,
)> {
    let (night, league) = night_for(state, caller, id, Need::Score).await?;
    let tables = nights::tables(&state.db, night.id)
        .await?
        .into_iter()
        .map(|t| {
            (
                t.number,
                t.players
                    .into_iter()
                    .enumerate()
                    .map(|(i, (_, name))| (name, SEAT_WINDS[i]))
                    .collect(),
            )
        })
        .collect();
    Ok((night, league, tables))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timer(state: &str, minutes: i32, left: i64) -> TimerView {
        TimerView {
            state: state.into(),
            minutes: Some(minutes),
            ends_at: None,
            left_seconds: Some(left),
        }
    }

    #[test]
    fn tables_fall_behind_the_leaders_or_the_clock() {
        let stopped = TimerView {
            state: "stopped".into(),
            minutes: None,
            ends_at: None,
            left_seconds: None,
        };
        assert!(!is_behind(4, 4, 4, &stopped), "done is never behind");
        assert!(
            !is_behind(2, 4, 3, &stopped),
            "one game behind the leaders is fine"
        );
        assert!(is_behind(1, 4, 3, &stopped), "two behind the leaders");
        // 120 minutes, 90 gone: 3 games' worth of time; 1 game entered is behind, 2 is not.
        assert!(is_behind(1, 4, 1, &timer("running", 120, 30 * 60)));
        assert!(!is_behind(2, 4, 2, &timer("running", 120, 30 * 60)));
        assert!(is_behind(3, 4, 3, &timer("over", 120, 0)));
    }

    #[test]
    fn badge_codes_read_back() {
        assert_eq!(player_of_badge(&badge_code(42)), Some(42));
        assert_eq!(player_of_badge(" mjl-7 "), Some(7));
        assert_eq!(player_of_badge("MJL-0"), None);
        assert_eq!(player_of_badge("Rose"), None);
    }
}
