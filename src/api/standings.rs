//! Standings and CSV exports of a league (public leagues: no login needed).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use actix_web::http::header::{CONTENT_DISPOSITION, ETAG, IF_NONE_MATCH};
use actix_web::{HttpRequest, HttpResponse, get, web};
use serde::Serialize;
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

use crate::api::leagues::visible;
use crate::auth::{Caller, Need};
use crate::error::AppError;
use crate::standings::{self, Board, Standing};
use crate::startup::AppState;
use crate::storage::leagues::League;
use crate::storage::{games, totals};

/// Standings bodies by league, with the revision they were computed at. Every write that can
/// move standings bumps the league's revision in PostgreSQL, so a process serves a cached body
/// only if it was computed at the revision the request read, or a later one: safe with several
/// processes. One computation per league runs at a time in a process; readers arriving
/// meanwhile wait for it and take its body instead of computing the same standings again.
#[derive(Default)]
pub struct StandingsCache {
    bodies: Mutex<HashMap<i64, CachedStandings>>,
    flights: Mutex<HashMap<i64, Arc<tokio::sync::Mutex<()>>>>,
}

/// (revision, body, ETag) of one league's standings.
type CachedStandings = (i64, Arc<Vec<u8>>, String);

impl StandingsCache {
    const MAX: usize = 10_000;

    /// The body computed at `revision` or later.
    fn get(&self, league: i64, revision: i64) -> Option<(Arc<Vec<u8>>, String)> {
        let map = self.bodies.lock().ok()?;
        map.get(&league)
            .filter(|(r, _, _)| *r >= revision)
            .map(|(_, b, t)| (b.clone(), t.clone()))
    }

    fn put(&self, league: i64, revision: i64, body: Arc<Vec<u8>>, tag: String) {
        if let Ok(mut map) = self.bodies.lock() {
            if map.len() > Self::MAX {
                map.clear();
            }
            if map.get(&league).is_none_or(|(r, _, _)| *r < revision) {
                map.insert(league, (revision, body, tag));
            }
        }
    }

    /// The lock that lets one request at a time compute the league's standings.
    fn flight(&self, league: i64) -> Arc<tokio::sync::Mutex<()>> {
        match self.flights.lock() {
            Ok(mut map) => {
                if map.len() > Self::MAX {
                    map.retain(|_, m| Arc::strong_count(m) > 1);
                }
                map.entry(league).or_default().clone()
            }
            Err(_) => Arc::default(),
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct StandingsView {
    pub league: i64,
    /// `total` or `average`.
    pub board: String,
    pub min_games: i32,
    pub standings: Vec<Standing>,
}

pub async fn compute(state: &AppState, league: &League) -> Result<Vec<Standing>, AppError> {
    totals::rebuild_if_stale(&state.db, league.id).await?;
    let rows = totals::lines(&state.db, league.id).await?;
    let board = if league.board == "average" {
        Board::Average {
            min_games: league.min_games as i64,
        }
    } else {
        Board::Total
    };
    let ratings: HashMap<i64, f64> = rows
        .iter()
        .map(|(l, r)| (l.player_id, standings::shown(*r)))
        .collect();
    let lines: Vec<standings::Line> = rows.into_iter().map(|(l, _)| l).collect();
    // Head-to-head only for players tied on everything else, summed in the database.
    let tied = standings::tie_groups(&lines, board);
    let h2h = totals::head_to_head(&state.db, league.id, &tied).await?;
    let mut ranked = standings::rank(lines, board, &h2h);
    for s in &mut ranked {
        s.rating = ratings.get(&s.player_id).copied();
    }
    Ok(ranked)
}

/// The standings body and its ETag, computed at `revision` or later.
async fn body_at(
    state: &AppState,
    league: &League,
    revision: i64,
) -> Result<(Arc<Vec<u8>>, String), AppError> {
    if let Some(hit) = state.standings.get(league.id, revision) {
        return Ok(hit);
    }
    let flight = state.standings.flight(league.id);
    let _computing = flight.lock().await;
    // Whoever held the lock may have computed a body fresh enough for this request.
    if let Some(hit) = state.standings.get(league.id, revision) {
        return Ok(hit);
    }
    // Read again: what is computed now is at least this new, so readers waiting meanwhile
    // can take it.
    let now = games::revision(&state.db, league.id).await?;
    let view = StandingsView {
        league: league.id,
        board: league.board.clone(),
        min_games: league.min_games,
        standings: compute(state, league).await?,
    };
    let body = Arc::new(serde_json::to_vec(&view).map_err(|e| AppError::Internal(e.into()))?);
    let digest = Sha256::digest(body.as_slice());
    let tag = format!(
        "\"{}\"",
        digest
            .iter()
            .take(16)
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    );
    state
        .standings
        .put(league.id, now, body.clone(), tag.clone());
    Ok((body, tag))
}

/// The league's standings. Sends an `ETag`; with a matching `If-None-Match` the answer is 304.
#[utoipa::path(tag = "standings", params(("league" = i64, Path)),
    responses((status = 200, body = StandingsView), (status = 304, description = "Not modified"),
              (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[get("/api/v1/leagues/{league}/standings")]
pub async fn show(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let (league, _) = visible(&state, &caller, *id, Need::Read).await?;
    let revision = games::revision(&state.db, league.id).await?;
    let (body, tag) = body_at(&state, &league, revision).await?;
    let matches = req
        .headers()
        .get(IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == tag || t.trim() == "*"));
    if matches {
        return Ok(HttpResponse::NotModified()
            .insert_header((ETAG, tag))
            .finish());
    }
    Ok(HttpResponse::Ok()
        .insert_header((ETAG, tag))
        .content_type("application/json")
        .body(body.as_ref().clone()))
}

fn csv_response(name: String, bytes: Vec<u8>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/csv; charset=utf-8")
        .insert_header((
            CONTENT_DISPOSITION,
            format!("attachment; filename=\"{name}\""),
        ))
        .body(bytes)
}

fn csv_error(e: impl std::fmt::Display) -> AppError {
    AppError::Internal(anyhow::anyhow!("writing CSV: {e}"))
}

/// The standings as CSV.
#[utoipa::path(tag = "standings", params(("league" = i64, Path)), responses((status = 200, content_type = "text/csv", body = String)))]
#[get("/api/v1/leagues/{league}/standings.csv")]
pub async fn standings_csv(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let (league, _) = visible(&state, &caller, *id, Need::Read).await?;
    let rows = compute(&state, &league).await?;
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
    ])
    .map_err(csv_error)?;
    for s in rows {
        w.write_record([
            s.rank.map(|r| r.to_string()).unwrap_or_default(),
            s.shared.to_string(),
            s.player_id.to_string(),
            s.player,
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
        ])
        .map_err(csv_error)?;
    }
    let bytes = w.into_inner().map_err(csv_error)?;
    Ok(csv_response(
        format!("league-{}-standings.csv", league.id),
        bytes,
    ))
}

/// Every game of the league as CSV: one row per player per game, voided games and redeals included (see `status`, `outcome`).
#[utoipa::path(tag = "standings", params(("league" = i64, Path)), responses((status = 200, content_type = "text/csv", body = String)))]
#[get("/api/v1/leagues/{league}/games.csv")]
pub async fn games_csv(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let (league, _) = visible(&state, &caller, *id, Need::Read).await?;
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
            g.line_id.unwrap_or_default(),
            g.line_value.map(|v| v.to_string()).unwrap_or_default(),
            g.player_id.to_string(),
            g.player,
            g.seat,
            g.score.to_string(),
            g.breakdown,
        ])
        .map_err(csv_error)?;
    }
    let bytes = w.into_inner().map_err(csv_error)?;
    Ok(csv_response(
        format!("league-{}-games.csv", league.id),
        bytes,
    ))
}
