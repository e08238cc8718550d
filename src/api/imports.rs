//! History in: a league's games from a `games.csv` file, and players' opening balances.
//! Who is calling is checked before the file is read; the file may be up to 16 MiB.

use actix_web::HttpRequest;
use actix_web::{HttpResponse, get, post, put, web};
use futures_util::StreamExt;

use crate::domain::history::imports::{self, BalancesReport, IMPORT_LIMIT, ImportReport};
use crate::domain::{AppState, Caller};
use crate::error::AppError;

crate::api::listed!(BalanceList, balances, imports::Balance);

#[derive(serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DryRun {
    /// Check the file and answer what would be stored, storing nothing.
    #[serde(default)]
    pub dry_run: bool,
}

/// Reads the request's body, up to the import limit (413 beyond it).
async fn file(mut payload: web::Payload) -> Result<web::BytesMut, AppError> {
    let mut bytes = web::BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk =
            chunk.map_err(|e| AppError::bad_request(format!("the body could not be read: {e}")))?;
        if bytes.len() + chunk.len() > IMPORT_LIMIT {
            return Err(AppError::TooLarge(format!(
                "the file is larger than the limit of {IMPORT_LIMIT} bytes; split it by nights"
            )));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

/// Import games from a CSV in the columns `GET …/games.csv` writes (organizers): `night`,
/// `date`, `table`, `game`, `outcome`, `player`, `seat`, `score` and `role` (winner,
/// discarder or empty) are needed; `status`, `line`, `value`, `breakdown`, `won_by`, `dead`,
/// `jokerless`, `recorded_at` and `game_id` are read when present, other columns ignored.
/// Players are matched by name in the club (any case) and created when missing. The nights
/// must be new to the league; they are stored closed. Every row is checked first: a refusal
/// (422) lists each problem with its `line` and column (`field`), and nothing is stored; the
/// import is one transaction. `dry_run=true` answers what would be stored, storing nothing.
/// The scores are kept as the file gives them.
#[utoipa::path(tag = "standings", params(("league" = i64, Path, minimum = 1, example = 1), DryRun),
    request_body(content = String, content_type = "text/csv", description = "A league's games.csv"),
    responses((status = 201, description = "Stored", body = ImportReport),
              (status = 200, description = "A dry run: what would be stored", body = ImportReport),
              (status = 409, description = "A night of the file is already in the league", body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 422, description = "Rows refused, each with its line and column", body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/leagues/{league}/games.csv")]
pub async fn import_games(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    query: web::Query<DryRun>,
    payload: web::Payload,
) -> Result<HttpResponse, AppError> {
    let league = imports::importer(&state, &caller, *id).await?;
    let _turn = imports::turn(&state)?;
    let bytes = file(payload).await?;
    let report = imports::games(&state, &caller, &league, &bytes, query.dry_run).await?;
    Ok(if report.dry_run {
        HttpResponse::Ok().json(report)
    } else {
        HttpResponse::Created().json(report)
    })
}

/// The league's opening balances: points, games and wins players carried in from before the
/// league was kept here (same access as the standings).
#[utoipa::path(tag = "standings", params(("league" = i64, Path, minimum = 1, example = 1), crate::api::PageParams),
    responses((status = 200, body = BalanceList),
              (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[get("/api/v1/leagues/{league}/opening-balances")]
pub async fn balances(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    id: web::Path<i64>,
    page: web::Query<crate::api::PageParams>,
) -> Result<HttpResponse, AppError> {
    let items = imports::balances(&state, &caller, *id).await?;
    BalanceList::page(&state, &req, items, &page, |_, b| b.player.id)
}

/// Set the league's opening balances from a CSV with the columns `player`, `points`, `games`
/// and optionally `wins` (organizers): they replace the ones before (a file of the header
/// alone clears them) and count in the standings' games, wins and points, in full on any
/// board, shown as carried in. Players are matched by name and created when missing. A refusal
/// (422) lists each problem with its line and column, and nothing is stored. `dry_run=true`
/// answers what would be stored.
#[utoipa::path(tag = "standings", params(("league" = i64, Path, minimum = 1, example = 1), DryRun),
    request_body(content = String, content_type = "text/csv", description = "player,points,games,wins"),
    responses((status = 200, body = BalancesReport),
              (status = 422, description = "Rows refused, each with its line and column", body = crate::error::Problem, content_type = "application/problem+json")))]
#[put("/api/v1/leagues/{league}/opening-balances")]
pub async fn set_balances(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    query: web::Query<DryRun>,
    payload: web::Payload,
) -> Result<HttpResponse, AppError> {
    let league = imports::importer(&state, &caller, *id).await?;
    let _turn = imports::turn(&state)?;
    let bytes = file(payload).await?;
    Ok(HttpResponse::Ok()
        .json(imports::set_balances(&state, &league, &bytes, query.dry_run).await?))
}
