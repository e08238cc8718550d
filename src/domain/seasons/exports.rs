//! A league's standings and games as CSV files, with the columns of the JSON (public leagues:
//! no login needed).

use super::standings::compute;
use crate::domain::{AppState, Caller, Error, Need, Result};
use crate::standings;
use crate::storage::play::games;

/// A CSV file: its name and its bytes.
pub struct Csv {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// Text a spreadsheet would run as a formula is kept as text (OWASP's advice: a leading `'`).
pub(crate) fn cell(text: String) -> String {
    match text.chars().next() {
        Some('=' | '+' | '-' | '@' | '\t' | '\r') => format!("'{text}"),
        _ => text,
    }
}

/// The numbers of a player's dropped nights, "2;5" (empty when none are or the board drops none).
fn dropped_nights(nights: &Option<Vec<standings::NightCount>>) -> String {
    nights
        .iter()
        .flatten()
        .filter(|n| n.dropped)
        .map(|n| n.night.to_string())
        .collect::<Vec<_>>()
        .join(";")
}

pub(crate) fn csv_error(e: impl std::fmt::Display) -> Error {
    Error::internal(format!("writing CSV: {e}"))
}

/// The standings as CSV: one row per player, the columns of the JSON.
pub async fn standings_csv(state: &AppState, caller: &Caller, id: i64) -> Result<Csv> {
    let (league, _) = caller.league(state, id, Need::Read).await?;
    let rows = compute(state, &league).await?.standings;
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "rank",
        "shared",
        "player_id",
        "player",
        "games",
        "wins",
        "points",
        "average",
        "self_picks",
        "jokerless_wins",
        "deal_ins",
        "dead_hands",
        "wall_games",
        "rating",
        "head_to_head",
        "ahead_by",
        "ahead",
        "counted_points",
        "counted_games",
        "dropped_nights",
        "carried_points",
        "carried_games",
        "carried_wins",
        "weeks",
    ])
    .map_err(csv_error)?;
    for s in rows {
        let weeks = s.weeks_text();
        w.write_record([
            s.rank.map(|r| r.to_string()).unwrap_or_default(),
            s.shared.to_string(),
            s.player_id.to_string(),
            cell(s.player),
            s.games.to_string(),
            s.wins.to_string(),
            s.points.to_string(),
            format!("{:.2}", s.average),
            s.self_picks.to_string(),
            s.jokerless_wins.to_string(),
            s.deal_ins.to_string(),
            s.dead_hands.to_string(),
            s.wall_games.to_string(),
            s.rating.map(|r| format!("{r:.2}")).unwrap_or_default(),
            s.head_to_head.map(|h| h.to_string()).unwrap_or_default(),
            s.ahead.as_ref().map(|a| a.by.clone()).unwrap_or_default(),
            s.ahead.map(|a| cell(a.words)).unwrap_or_default(),
            s.counted_points.map(|p| p.to_string()).unwrap_or_default(),
            s.counted_games.map(|g| g.to_string()).unwrap_or_default(),
            dropped_nights(&s.nights),
            s.carried.map(|c| c.points.to_string()).unwrap_or_default(),
            s.carried.map(|c| c.games.to_string()).unwrap_or_default(),
            s.carried.map(|c| c.wins.to_string()).unwrap_or_default(),
            cell(weeks),
        ])
        .map_err(csv_error)?;
    }
    Ok(Csv {
        name: format!("league-{}-standings.csv", league.id),
        bytes: w.into_inner().map_err(csv_error)?,
    })
}

/// Every game of the league as CSV: one row per player per game, voided games and redeals
/// included (see `status`, `outcome`); each row says the player's part in the game (`role`:
/// winner or discarder, `dead`) and the game's `won_by`, `jokerless` and when it was recorded,
/// so that `POST …/games.csv` can take the file into another league (`domain::history::imports`).
pub async fn games_csv(state: &AppState, caller: &Caller, id: i64) -> Result<Csv> {
    let (league, _) = caller.league(state, id, Need::Read).await?;
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "game_id",
        "night",
        "date",
        "table",
        "game",
        "status",
        "outcome",
        "line",
        "value",
        "player_id",
        "player",
        "seat",
        "score",
        "breakdown",
        "won_by",
        "role",
        "dead",
        "jokerless",
        "recorded_at",
    ])
    .map_err(csv_error)?;
    for g in games::league_game_lines(&state.db, league.id).await? {
        w.write_record([
            g.game_id.to_string(),
            g.night.to_string(),
            g.night_date.to_string(),
            g.table_number.to_string(),
            g.number.to_string(),
            g.status,
            g.outcome,
            cell(g.line_id.unwrap_or_default()),
            g.line_value.map(|v| v.to_string()).unwrap_or_default(),
            g.player_id.to_string(),
            cell(g.player),
            g.seat,
            g.score.to_string(),
            cell(g.breakdown),
            g.won_by.unwrap_or_default(),
            g.role,
            g.dead.to_string(),
            g.jokerless.to_string(),
            g.recorded_at
                .to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
        ])
        .map_err(csv_error)?;
    }
    Ok(Csv {
        name: format!("league-{}-games.csv", league.id),
        bytes: w.into_inner().map_err(csv_error)?,
    })
}
