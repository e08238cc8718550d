//! League nights: create, check players in and out, propose seating, lock tables, close and
//! reopen.

use std::time::Duration;

use actix_web::{HttpResponse, delete, get, post, put, web};
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::api::json::ValidJson;
use crate::api::leagues::visible;
use crate::auth::{Caller, Need};
use crate::error::AppError;
use crate::seating::{self, History};
use crate::startup::AppState;
use crate::storage::leagues::League;
use crate::storage::nights::{self, Night};
use crate::storage::players;

/// How long a seating proposal may search (it usually finishes far sooner).
const SEATING_BUDGET: Duration = Duration::from_millis(800);
const SEATS: [&str; 4] = ["E", "S", "W", "N"];

#[derive(Serialize, ToSchema)]
pub struct PlayerRef {
    pub id: i64,
    pub name: String,
}

#[derive(Serialize, ToSchema)]
pub struct SeatView {
    /// The seat's wind at the night's first game: E, S, W, N.
    #[schema(example = "E")]
    pub seat: &'static str,
    pub player: PlayerRef,
}

#[derive(Serialize, ToSchema)]
pub struct TableView {
    pub id: i64,
    pub number: i32,
    pub seats: Vec<SeatView>,
}

#[derive(Serialize, ToSchema)]
pub struct NightView {
    pub id: i64,
    pub league: i64,
    /// 1 for the league's first night (a tournament's first round), and so on.
    pub number: i32,
    pub date: NaiveDate,
    /// open → seated → closed.
    #[schema(example = "open")]
    pub status: String,
    pub checkins: Vec<PlayerRef>,
    /// The last proposed seating: player ids per table in seat order (E, S, W, N).
    #[schema(value_type = Object)]
    pub proposal: Option<serde_json::Value>,
    /// Locked tables.
    pub tables: Vec<TableView>,
}

pub async fn night_view(state: &AppState, night: Night) -> Result<NightView, AppError> {
    let checkins = nights::checkins(&state.db, night.id).await?;
    let tables = nights::tables(&state.db, night.id).await?;
    Ok(NightView {
        id: night.id,
        league: night.league_id,
        number: night.number,
        date: night.night_date,
        status: night.status,
        checkins: checkins
            .into_iter()
            .map(|(id, name)| PlayerRef { id, name })
            .collect(),
        proposal: night.proposal,
        tables: tables
            .into_iter()
            .map(|t| TableView {
                id: t.id,
                number: t.number,
                seats: t
                    .players
                    .into_iter()
                    .enumerate()
                    .map(|(i, (id, name))| SeatView {
                        seat: SEATS[i],
                        player: PlayerRef { id, name },
                    })
                    .collect(),
            })
            .collect(),
    })
}

/// Ids of the players checked in, by id.
async fn checked_in_ids(state: &AppState, night_id: i64) -> Result<Vec<i64>, AppError> {
    Ok(nights::checkins(&state.db, night_id)
        .await?
        .into_iter()
        .map(|(id, _)| id)
        .collect())
}

/// The night as it is now, as the answer of a change.
async fn reloaded(state: &AppState, id: i64) -> Result<HttpResponse, AppError> {
    let night = nights::get(&state.db, id)
        .await?
        .ok_or_else(|| AppError::NotFound(format!("no night {id}")))?;
    Ok(HttpResponse::Ok().json(night_view(state, night).await?))
}

/// Loads a night and its league for a caller with `need`.
pub async fn night_for(
    state: &AppState,
    caller: &Caller,
    id: i64,
    need: Need,
) -> Result<(Night, League), AppError> {
    let night = nights::get(&state.db, id)
        .await?
        .ok_or_else(|| AppError::NotFound(format!("no night {id}")))?;
    let (league, _) = visible(state, caller, night.league_id, need)
        .await
        .map_err(|e| match e {
            AppError::NotFound(_) => AppError::NotFound(format!("no night {id}")),
            other => other,
        })?;
    Ok((night, league))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewNight {
    #[schema(example = "2026-03-03")]
    pub date: NaiveDate,
}

/// Start a league night (or a tournament round).
#[utoipa::path(tag = "nights", params(("league" = i64, Path)), request_body = NewNight,
    responses((status = 201, body = NightView), (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/leagues/{league}/nights")]
pub async fn create(
    state: web::Data<AppState>,
    caller: Caller,
    league: web::Path<i64>,
    body: ValidJson<NewNight>,
) -> Result<HttpResponse, AppError> {
    let night = create_night(&state, &caller, *league, body.0.date).await?;
    Ok(HttpResponse::Created().json(night_view(&state, night).await?))
}

/// Starts a night of the league (for the API and the pages).
pub async fn create_night(
    state: &AppState,
    caller: &Caller,
    league: i64,
    date: NaiveDate,
) -> Result<Night, AppError> {
    let (league, _) = visible(state, caller, league, Need::Admin).await?;
    Ok(nights::create(&state.db, league.id, date).await?)
}

/// The league's nights.
#[utoipa::path(tag = "nights", params(("league" = i64, Path)), responses((status = 200, body = [NightView])))]
#[get("/api/v1/leagues/{league}/nights")]
pub async fn list(
    state: web::Data<AppState>,
    caller: Caller,
    league: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let (league, _) = visible(&state, &caller, *league, Need::Read).await?;
    let mut all = Vec::new();
    for n in nights::list(&state.db, league.id).await? {
        all.push(night_view(&state, n).await?);
    }
    Ok(HttpResponse::Ok().json(all))
}

/// A night: check-ins, the proposal and the locked tables.
#[utoipa::path(tag = "nights", params(("night" = i64, Path)), responses((status = 200, body = NightView), (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[get("/api/v1/nights/{night}")]
pub async fn show(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let (night, _) = night_for(&state, &caller, *id, Need::Read).await?;
    Ok(HttpResponse::Ok().json(night_view(&state, night).await?))
}

fn must_not_be_closed(night: &Night) -> Result<(), AppError> {
    if night.status == "closed" {
        return Err(AppError::Conflict(format!(
            "night {} is closed; an organizer can reopen it",
            night.id
        )));
    }
    Ok(())
}

/// Check a player in.
#[utoipa::path(tag = "nights", params(("night" = i64, Path), ("player" = i64, Path)),
    responses((status = 200, body = NightView), (status = 409, description = "The night is closed", body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 422, body = crate::error::Problem, content_type = "application/problem+json")))]
#[put("/api/v1/nights/{night}/checkins/{player}")]
pub async fn check_in(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(i64, i64)>,
) -> Result<HttpResponse, AppError> {
    let (id, player) = path.into_inner();
    check_in_player(&state, &caller, id, player).await?;
    reloaded(&state, id).await
}

/// Checks a player in (for the API and the pages).
pub async fn check_in_player(
    state: &AppState,
    caller: &Caller,
    id: i64,
    player: i64,
) -> Result<(), AppError> {
    let (night, league) = night_for(state, caller, id, Need::Admin).await?;
    must_not_be_closed(&night)?;
    let p = players::get(&state.db, league.club_id, player)
        .await?
        .ok_or_else(|| AppError::invalid("player", format!("the club has no player {player}")))?;
    if !p.active {
        return Err(AppError::invalid(
            "player",
            format!("{} is deactivated; reactivate them first", p.name),
        ));
    }
    nights::check_in(&state.db, night.id, player).await?;
    Ok(())
}

/// Check a player out.
#[utoipa::path(tag = "nights", params(("night" = i64, Path), ("player" = i64, Path)), responses((status = 200, body = NightView), (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[delete("/api/v1/nights/{night}/checkins/{player}")]
pub async fn check_out(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(i64, i64)>,
) -> Result<HttpResponse, AppError> {
    let (id, player) = path.into_inner();
    check_out_player(&state, &caller, id, player).await?;
    reloaded(&state, id).await
}

/// Checks a player out (for the API and the pages).
pub async fn check_out_player(
    state: &AppState,
    caller: &Caller,
    id: i64,
    player: i64,
) -> Result<(), AppError> {
    let (night, _) = night_for(state, caller, id, Need::Admin).await?;
    must_not_be_closed(&night)?;
    if !nights::check_out(&state.db, night.id, player).await? {
        return Err(AppError::NotFound(format!(
            "player {player} is not checked in"
        )));
    }
    Ok(())
}

#[derive(Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct SeatingRequest {
    /// The same seed and check-ins give the same proposal; default: the night's id.
    #[serde(default)]
    pub seed: Option<u64>,
}

/// Propose tables from the checked-in players: players who met least this season (recent
/// meetings weigh most) sit together, and East starts are balanced.
#[utoipa::path(tag = "nights", params(("night" = i64, Path)), request_body = SeatingRequest,
    responses((status = 200, body = NightView), (status = 422, body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/nights/{night}/seating")]
pub async fn propose(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: ValidJson<SeatingRequest>,
) -> Result<HttpResponse, AppError> {
    propose_seating(&state, &caller, *id, body.0.seed).await?;
    reloaded(&state, *id).await
}

/// Proposes tables for the checked-in players and keeps the proposal with the night (for the
/// API and the pages). `seed` defaults to the night's id.
pub async fn propose_seating(
    state: &AppState,
    caller: &Caller,
    id: i64,
    seed: Option<u64>,
) -> Result<(), AppError> {
    let (night, league) = night_for(state, caller, id, Need::Admin).await?;
    must_not_be_closed(&night)?;
    let present = checked_in_ids(state, night.id).await?;
    if present.len() < 2 {
        return Err(AppError::invalid(
            "checkins",
            format!(
                "{} player(s) checked in; seating needs at least 2",
                present.len()
            ),
        ));
    }
    let index = |p: i64| present.iter().position(|&x| x == p);
    let mut history = History::new(present.len());
    let earlier = nights::earlier_tables(&state.db, league.id, night.number).await?;
    for (number, table) in &earlier {
        let age = (night.number - number - 1).max(0) as u32;
        let seated: Vec<usize> = table.iter().filter_map(|&p| index(p)).collect();
        for (i, &a) in seated.iter().enumerate() {
            for &b in &seated[i + 1..] {
                history.met(a, b, age);
            }
        }
        for g in 0..league.games_per_table as usize {
            if let Some(e) = index(table[g % table.len()]) {
                history.east[e] += 1;
            }
        }
    }
    let seed = seed.unwrap_or(night.id as u64);
    let games = league.games_per_table as usize;
    let present_for_plan = present.clone();
    let plan = web::block(move || {
        seating::plan(
            present_for_plan.len(),
            1,
            seed,
            Some(&history),
            SEATING_BUDGET,
            games,
        )
    })
    .await
    .map_err(|e| AppError::Internal(anyhow::anyhow!("seating: {e}")))?
    .map_err(|e| AppError::invalid("checkins", e))?;
    let tables: Vec<Vec<i64>> = plan.rounds[0]
        .iter()
        .map(|t| t.iter().map(|&i| present[i]).collect())
        .collect();
    nights::set_proposal(
        &state.db,
        night.id,
        &serde_json::json!({"seed": seed, "tables": tables}),
    )
    .await?;
    Ok(())
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LockTables {
    /// Player ids per table in seat order (E, S, W, N): the proposal, or the organizer's changes to it.
    #[schema(example = json!([[11, 12, 13, 14], [15, 16, 17]]))]
    pub tables: Vec<Vec<i64>>,
}

/// Lock the night's tables (the proposal, or with changes made by hand).
#[utoipa::path(tag = "nights", params(("night" = i64, Path)), request_body = LockTables,
    responses((status = 200, body = NightView), (status = 422, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 409, description = "The night is closed, or games are recorded at its tables", body = crate::error::Problem, content_type = "application/problem+json")))]
#[put("/api/v1/nights/{night}/tables")]
pub async fn lock(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: ValidJson<LockTables>,
) -> Result<HttpResponse, AppError> {
    lock_night_tables(&state, &caller, *id, body.0.tables).await?;
    reloaded(&state, *id).await
}

/// Locks the night's tables: player ids per table in seat order (for the API and the pages).
pub async fn lock_night_tables(
    state: &AppState,
    caller: &Caller,
    id: i64,
    tables: Vec<Vec<i64>>,
) -> Result<(), AppError> {
    let (night, _) = night_for(state, caller, id, Need::Admin).await?;
    must_not_be_closed(&night)?;
    let present = checked_in_ids(state, night.id).await?;
    if tables.is_empty() {
        return Err(AppError::invalid("tables", "give at least one table"));
    }
    let mut seen = std::collections::HashSet::new();
    for (i, t) in tables.iter().enumerate() {
        if !(2..=4).contains(&t.len()) {
            return Err(AppError::invalid(
                &format!("tables[{i}]"),
                format!("a table seats 2 to 4 players, not {}", t.len()),
            ));
        }
        for p in t {
            if !present.contains(p) {
                return Err(AppError::invalid(
                    &format!("tables[{i}]"),
                    format!("player {p} is not checked in"),
                ));
            }
            if !seen.insert(*p) {
                return Err(AppError::invalid(
                    &format!("tables[{i}]"),
                    format!("player {p} is seated twice"),
                ));
            }
        }
    }
    if let Some(missing) = present.iter().find(|p| !seen.contains(p)) {
        return Err(AppError::invalid(
            "tables",
            format!("checked-in player {missing} has no seat; check them out or seat them"),
        ));
    }
    if !nights::lock_tables(&state.db, night.id, &tables).await? {
        return Err(AppError::Conflict(format!(
            "night {} has games recorded at its tables, which re-seating would drop; start a new night for new tables",
            night.number
        )));
    }
    Ok(())
}

/// Close a night: it takes no new games until reopened.
#[utoipa::path(tag = "nights", params(("night" = i64, Path)), responses((status = 200, body = NightView)))]
#[post("/api/v1/nights/{night}/close")]
pub async fn close(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    close_night(&state, &caller, *id).await?;
    reloaded(&state, *id).await
}

/// Closes a night (for the API and the pages).
pub async fn close_night(state: &AppState, caller: &Caller, id: i64) -> Result<(), AppError> {
    let (night, _) = night_for(state, caller, id, Need::Admin).await?;
    nights::set_status(&state.db, night.id, "closed").await?;
    Ok(())
}

/// Reopen a closed night (seated again if it has tables, else open).
#[utoipa::path(tag = "nights", params(("night" = i64, Path)), responses((status = 200, body = NightView)))]
#[post("/api/v1/nights/{night}/reopen")]
pub async fn reopen(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    reopen_night(&state, &caller, *id).await?;
    reloaded(&state, *id).await
}

/// Reopens a closed night (for the API and the pages).
pub async fn reopen_night(state: &AppState, caller: &Caller, id: i64) -> Result<(), AppError> {
    let (night, _) = night_for(state, caller, id, Need::Admin).await?;
    let status = if nights::tables(&state.db, night.id).await?.is_empty() {
        "open"
    } else {
        "seated"
    };
    nights::set_status(&state.db, night.id, status).await?;
    Ok(())
}
