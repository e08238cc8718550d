//! Leagues: card, ruleset (a preset or the club's own as data), games per table, visibility,
//! standings board, dates.

use actix_web::{HttpResponse, get, patch, post, web};

use crate::api::json::ValidJson;
use crate::domain::leagues::{self, LeagueInput, LeagueView};
use crate::domain::{AppState, Caller};
use crate::error::AppError;

/// The club's leagues.
#[utoipa::path(tag = "leagues", params(("club" = String, Path, example = "tuesday-tiles")), responses((status = 200, body = [LeagueView])))]
#[get("/api/v1/clubs/{club}/leagues")]
pub async fn list(
    state: web::Data<AppState>,
    caller: Caller,
    club: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok().json(leagues::list(&state, &caller, &club).await?))
}

/// Create a league.
#[utoipa::path(tag = "leagues", params(("club" = String, Path, example = "tuesday-tiles")), request_body = LeagueInput,
    responses((status = 201, body = LeagueView), (status = 422, body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/clubs/{club}/leagues")]
pub async fn create(
    state: web::Data<AppState>,
    caller: Caller,
    club: web::Path<String>,
    body: ValidJson<LeagueInput>,
) -> Result<HttpResponse, AppError> {
    let (league, club) = leagues::create(&state, &caller, &club, body.0).await?;
    Ok(HttpResponse::Created().json(LeagueView::new(league, &club)))
}

/// One league (public leagues need no login).
#[utoipa::path(tag = "leagues", params(("league" = i64, Path, minimum = 1, example = 1)), responses((status = 200, body = LeagueView), (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[get("/api/v1/leagues/{league}")]
pub async fn show(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let (league, club) = leagues::show(&state, &caller, *id).await?;
    Ok(HttpResponse::Ok().json(LeagueView::new(league, &club)))
}

/// Edit a league: any of its fields.
#[utoipa::path(tag = "leagues", params(("league" = i64, Path, minimum = 1, example = 1)), request_body = LeagueInput,
    responses((status = 200, body = LeagueView), (status = 422, body = crate::error::Problem, content_type = "application/problem+json")))]
#[patch("/api/v1/leagues/{league}")]
pub async fn update(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: ValidJson<LeagueInput>,
) -> Result<HttpResponse, AppError> {
    let (league, club) = leagues::update(&state, &caller, *id, body.0).await?;
    Ok(HttpResponse::Ok().json(LeagueView::new(league, &club)))
}
