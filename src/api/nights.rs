//! League nights: create, check players in and out, propose seating, lock tables, close and
//! reopen. Every change answers with the night as it is after it.

use actix_web::HttpRequest;
use actix_web::{HttpResponse, delete, get, post, put, web};

use crate::api::json::ValidJson;
use crate::domain::play::nights::{self, LockTables, NewNight, NightView, SeatingRequest};
use crate::domain::play::rounds::{self, RoundStatus, SeatRow, TimerChange};
use crate::domain::{AppState, Caller};
use crate::error::AppError;

crate::api::listed!(NightList, nights, NightView);
crate::api::listed!(SeatList, seats, SeatRow);

/// The night after a change.
async fn reloaded(state: &AppState, id: i64) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok().json(nights::reloaded(state, id).await?))
}

/// Start a league night (or a tournament round).
#[utoipa::path(operation_id = "start_night", tag = "nights", params(("league" = i64, Path, minimum = 1, example = 1)), request_body = NewNight,
    responses((status = 201, body = NightView), (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/leagues/{league}/nights")]
pub async fn create(
    state: web::Data<AppState>,
    caller: Caller,
    league: web::Path<i64>,
    body: ValidJson<NewNight>,
) -> Result<HttpResponse, AppError> {
    let (night, _) = nights::create(&state, &caller, *league, body.0).await?;
    Ok(HttpResponse::Created().json(nights::created(&state, night).await?))
}

/// The league's nights.
#[utoipa::path(operation_id = "list_nights", tag = "nights", params(("league" = i64, Path, minimum = 1, example = 1), crate::api::PageParams), responses((status = 200, body = NightList)))]
#[get("/api/v1/leagues/{league}/nights")]
pub async fn list(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    league: web::Path<i64>,
    page: web::Query<crate::api::PageParams>,
) -> Result<HttpResponse, AppError> {
    let items = nights::list(&state, &caller, *league).await?;
    NightList::page(&state, &req, items, &page, |_, n| n.id)
}

/// A night: check-ins, the proposal and the locked tables.
#[utoipa::path(operation_id = "show_night", tag = "nights", params(("night" = i64, Path, minimum = 1, example = 1)), responses((status = 200, body = NightView), (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[get("/api/v1/nights/{night}")]
pub async fn show(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok().json(nights::show(&state, &caller, *id).await?))
}

/// Check a player in.
#[utoipa::path(tag = "nights", params(("night" = i64, Path, minimum = 1, example = 1), ("player" = i64, Path, minimum = 1, example = 1)),
    responses((status = 200, body = NightView), (status = 404, description = "No such night, or the club has no such player", body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 409, description = "The night is closed", body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 422, description = "The player is deactivated", body = crate::error::Problem, content_type = "application/problem+json")))]
#[put("/api/v1/nights/{night}/checkins/{player}")]
pub async fn check_in(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(i64, i64)>,
) -> Result<HttpResponse, AppError> {
    let (id, player) = path.into_inner();
    nights::check_in(&state, &caller, id, player).await?;
    reloaded(&state, id).await
}

/// Check a player out.
#[utoipa::path(tag = "nights", params(("night" = i64, Path, minimum = 1, example = 1), ("player" = i64, Path, minimum = 1, example = 1)), responses((status = 200, body = NightView), (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[delete("/api/v1/nights/{night}/checkins/{player}")]
pub async fn check_out(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(i64, i64)>,
) -> Result<HttpResponse, AppError> {
    let (id, player) = path.into_inner();
    nights::check_out(&state, &caller, id, player).await?;
    reloaded(&state, id).await
}

/// Propose tables from the checked-in players: players who met least this season (recent
/// meetings weigh most) sit together, and East starts are balanced.
#[utoipa::path(tag = "nights", params(("night" = i64, Path, minimum = 1, example = 1)), request_body = SeatingRequest,
    responses((status = 200, body = NightView), (status = 422, body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/nights/{night}/seating")]
pub async fn propose(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: ValidJson<SeatingRequest>,
) -> Result<HttpResponse, AppError> {
    nights::propose_seating(&state, &caller, *id, body.0).await?;
    reloaded(&state, *id).await
}

/// Lock the night's tables (the proposal, or with changes made by hand).
#[utoipa::path(tag = "nights", params(("night" = i64, Path, minimum = 1, example = 1)), request_body = LockTables,
    responses((status = 200, body = NightView), (status = 422, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 409, description = "The night is closed, or games are recorded at its tables", body = crate::error::Problem, content_type = "application/problem+json")))]
#[put("/api/v1/nights/{night}/tables")]
pub async fn lock(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: ValidJson<LockTables>,
) -> Result<HttpResponse, AppError> {
    nights::lock_tables(&state, &caller, *id, body.0).await?;
    reloaded(&state, *id).await
}

/// Close a night: it takes no new games until reopened.
#[utoipa::path(tag = "nights", params(("night" = i64, Path, minimum = 1, example = 1)), responses((status = 200, body = NightView)))]
#[post("/api/v1/nights/{night}/close")]
pub async fn close(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    nights::close(&state, &caller, *id).await?;
    reloaded(&state, *id).await
}

/// Reopen a closed night (seated again if it has tables, else open).
#[utoipa::path(tag = "nights", params(("night" = i64, Path, minimum = 1, example = 1)), responses((status = 200, body = NightView)))]
#[post("/api/v1/nights/{night}/reopen")]
pub async fn reopen(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    nights::reopen(&state, &caller, *id).await?;
    reloaded(&state, *id).await
}

/// A round at a glance: each table's games entered of those expected, which tables are done
/// and which are behind (two games behind the furthest table, more than a game behind the
/// timer's pace, or not done when time is up), and the round timer.
#[utoipa::path(tag = "nights", params(("night" = i64, Path, minimum = 1, example = 1)), responses((status = 200, body = RoundStatus)))]
#[get("/api/v1/nights/{night}/status")]
pub async fn status(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok().json(rounds::status(&state, &caller, *id).await?))
}

/// Start, pause, resume or reset the round timer (organizers); answers the round's status.
#[utoipa::path(tag = "nights", params(("night" = i64, Path, minimum = 1, example = 1)), request_body = TimerChange,
    responses((status = 200, body = RoundStatus)))]
#[put("/api/v1/nights/{night}/timer")]
pub async fn timer(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: ValidJson<TimerChange>,
) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok().json(rounds::set_timer(&state, &caller, *id, body.0).await?))
}

/// Where everyone sits this round: every seated player, alphabetically, with table and seat.
#[utoipa::path(tag = "nights", params(("night" = i64, Path, minimum = 1, example = 1), crate::api::PageParams), responses((status = 200, body = SeatList)))]
#[get("/api/v1/nights/{night}/seats")]
pub async fn seats(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    id: web::Path<i64>,
    page: web::Query<crate::api::PageParams>,
) -> Result<HttpResponse, AppError> {
    let items = rounds::seats(&state, &caller, *id).await?.rows;
    // One player a seat: a seat names its row.
    SeatList::page(&state, &req, items, &page, |_, s| {
        i64::from(s.table.max(0)) * 4
            + ["E", "S", "W", "N"]
                .iter()
                .position(|w| *w == s.seat)
                .unwrap_or(0) as i64
    })
}
