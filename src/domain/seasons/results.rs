//! A league's final results, as a tournament director sends them to a ranking body: placement
//! (ties shared), player and their ranking-body id, games, wins, points and the board's figure,
//! with the event's name, dates, place and sanctioning number. In the standings' order.

use std::collections::HashMap;

use chrono::NaiveDate;
use serde::Serialize;
use utoipa::ToSchema;

use crate::domain::seasons::exports::{Csv, cell, csv_error};
use crate::domain::seasons::standings::{self, board_in_words};
use crate::domain::{AppState, Caller, Need, Result};
use crate::standings::Figure;
use crate::storage::{people::players, play::nights};

/// The results of a league or tournament.
#[derive(Serialize, ToSchema)]
pub struct ResultsView {
    pub league: i64,
    /// The event's name (the league's).
    #[schema(example = "Spring Open 2026")]
    pub event: String,
    /// The club that ran it: its slug, as `club` is everywhere in the API.
    #[schema(example = "tuesday-tiles")]
    pub club: String,
    /// The club's name.
    #[schema(example = "Tuesday Tiles")]
    pub club_name: String,
    /// `league` or `tournament`.
    #[schema(schema_with = crate::domain::schemas::league_kind)]
    pub kind: String,
    /// The league's first date, or its first night's when that is earlier (or the league has
    /// none).
    #[schema(required = true)]
    pub starts_on: Option<NaiveDate>,
    /// The league's last date, or its last night's when that is later (or the league has none).
    #[schema(required = true)]
    pub ends_on: Option<NaiveDate>,
    #[schema(required = true)]
    pub place: Option<String>,
    #[schema(required = true)]
    pub sanctioning_number: Option<String>,
    /// The board in one sentence.
    pub board_in_words: String,
    /// What `figure` is: `points`, `counted points`, `average` or `counted average`.
    #[schema(example = "points")]
    pub figure_name: String,
    pub results: Vec<ResultRow>,
}

/// One player's result.
#[derive(Serialize, ToSchema)]
pub struct ResultRow {
    /// 1 for the winner; players the rules cannot tell apart share a placement. `null` for
    /// players the board leaves unranked (too few games), listed last.
    #[schema(required = true)]
    pub placement: Option<u32>,
    /// True when another player has the same placement.
    pub shared: bool,
    /// How the rules settled a tie with the next player down, as the league page says it:
    /// "more wins (12 to 10)", "fewer deal-ins (1 to 3)", "head-to-head (30 to -30)", or for a
    /// shared placement "shared" (with the head-to-head points the tied players each had).
    /// Absent when the board's own figure decides.
    #[schema(required = true, example = "more wins (12 to 10)")]
    pub tie: Option<String>,
    pub player_id: i64,
    pub player: String,
    /// The player's id at the ranking body (a player setting), if given.
    #[schema(required = true)]
    pub ranking_id: Option<String>,
    pub games: i64,
    pub wins: i64,
    /// Points over every game.
    pub points: i64,
    /// The board's figure (see `figure_name`).
    #[schema(value_type = f64, example = 320)]
    pub figure: Figure,
}

/// The league's results (who may read its standings may read them).
pub async fn results(state: &AppState, caller: &Caller, id: i64) -> Result<ResultsView> {
    let (league, club) = caller.league(state, id, Need::Read).await?;
    let rows = standings::ranked(state, &league).await?;
    let ranking: HashMap<i64, Option<String>> = players::list(&state.db, club.id, true)
        .await?
        .into_iter()
        .map(|p| (p.id, p.ranking_id))
        .collect();
    let dates: Vec<NaiveDate> = nights::list(&state.db, league.id)
        .await?
        .iter()
        .map(|n| n.night_date)
        .collect();
    let average = league.board == "average";
    let counted = !standings::counting_of(&league).is_plain();
    let figure_name = match (average, counted) {
        (true, true) => "counted average",
        (true, false) => "average",
        (false, true) => "counted points",
        (false, false) => "points",
    };
    let results = rows
        .into_iter()
        .map(|s| {
            let figure = if average {
                Figure(s.counted_average.unwrap_or(s.average))
            } else {
                Figure(s.counted_points.unwrap_or(s.points) as f64)
            };
            let tie = Some(s.tie_short()).filter(|t| !t.is_empty());
            ResultRow {
                placement: s.rank,
                shared: s.shared,
                tie,
                ranking_id: ranking.get(&s.player_id).cloned().flatten(),
                player_id: s.player_id,
                player: s.player,
                games: s.games,
                wins: s.wins,
                points: s.points,
                figure,
            }
        })
        .collect();
    Ok(ResultsView {
        league: league.id,
        board_in_words: board_in_words(&league),
        event: league.name,
        club: club.slug,
        club_name: club.name,
        kind: league.kind,
        // The dates cover every night: a league's own dates are widened by nights outside
        // them (an import of earlier nights), never shown ending before they start.
        starts_on: league
            .starts_on
            .into_iter()
            .chain(dates.iter().min().copied())
            .min(),
        ends_on: league
            .ends_on
            .into_iter()
            .chain(dates.iter().max().copied())
            .max(),
        place: league.place,
        sanctioning_number: league.sanctioning_number,
        figure_name: figure_name.to_string(),
        results,
    })
}

/// The results as CSV: a row per player, the event's columns repeated on each row so that
/// each row stands alone in a ranking body's import.
pub async fn results_csv(state: &AppState, caller: &Caller, id: i64) -> Result<Csv> {
    let r = results(state, caller, id).await?;
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "placement",
        "shared",
        "player",
        "ranking_id",
        "games",
        "wins",
        "points",
        "figure",
        "figure_name",
        "event",
        "club",
        "club_name",
        "starts_on",
        "ends_on",
        "place",
        "sanctioning_number",
        "tie",
    ])
    .map_err(csv_error)?;
    let text = |o: &Option<String>| cell(o.clone().unwrap_or_default());
    let date = |d: Option<NaiveDate>| d.map(|d| d.to_string()).unwrap_or_default();
    for row in &r.results {
        w.write_record([
            row.placement.map(|p| p.to_string()).unwrap_or_default(),
            row.shared.to_string(),
            cell(row.player.clone()),
            text(&row.ranking_id),
            row.games.to_string(),
            row.wins.to_string(),
            row.points.to_string(),
            row.figure.to_string(),
            r.figure_name.clone(),
            cell(r.event.clone()),
            cell(r.club.clone()),
            cell(r.club_name.clone()),
            date(r.starts_on),
            date(r.ends_on),
            text(&r.place),
            text(&r.sanctioning_number),
            text(&row.tie),
        ])
        .map_err(csv_error)?;
    }
    Ok(Csv {
        name: format!("league-{}-results.csv", r.league),
        bytes: w.into_inner().map_err(csv_error)?,
    })
}
