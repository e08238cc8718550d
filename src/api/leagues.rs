//! Leagues: card, ruleset (a preset or the club's own as data), games per table, visibility,
//! standings board, dates.

use actix_web::{HttpRequest, HttpResponse, get, patch, post, web};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::api::json::ValidJson;
use crate::domain::seasons::leagues::{
    self, LeagueInput, LeaguePage, LeagueView, NewLeague, NextSeason,
};
use crate::domain::{AppState, Caller};
use crate::error::AppError;

crate::api::listed!(LeagueList, leagues, LeagueView);

/// The club's leagues: all of them for its members and tokens, its public leagues for anyone
/// else (no login needed). A club with no league the caller may see answers 404.
#[utoipa::path(operation_id = "list_club_leagues", tag = "leagues", params(("club" = String, Path, example = "tuesday-tiles"), crate::api::PageParams), responses((status = 200, body = LeagueList)))]
#[get("/api/v1/clubs/{club}/leagues")]
pub async fn list(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    club: web::Path<String>,
    page: web::Query<crate::api::PageParams>,
) -> Result<HttpResponse, AppError> {
    let items = leagues::list(&state, &caller, &club).await?;
    LeagueList::page(&state, &req, items, &page, |_, l| l.id)
}

/// Create a league.
#[utoipa::path(operation_id = "create_league", tag = "leagues", params(("club" = String, Path, example = "tuesday-tiles")), request_body = NewLeague,
    responses((status = 201, body = LeagueView), (status = 422, body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/clubs/{club}/leagues")]
pub async fn create(
    state: web::Data<AppState>,
    caller: Caller,
    club: web::Path<String>,
    body: ValidJson<NewLeague>,
) -> Result<HttpResponse, AppError> {
    let (league, club) = leagues::create(&state, &caller, &club, body.0.into()).await?;
    Ok(HttpResponse::Created().json(LeagueView::new(league, &club)))
}

/// One league (public leagues need no login). Sends an `ETag`; with a matching
/// `If-None-Match` the answer is 304.
#[utoipa::path(operation_id = "show_league", tag = "leagues", params(("league" = i64, Path, minimum = 1, example = 1)), responses((status = 200, body = LeagueView), (status = 304, description = "Not modified"), (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[get("/api/v1/leagues/{league}")]
pub async fn show(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let (league, club) = leagues::show(&state, &caller, *id).await?;
    crate::api::tagged_json(&req, HttpResponse::Ok(), &LeagueView::new(league, &club))
}

/// Edit a league: any of its fields.
#[utoipa::path(operation_id = "update_league", tag = "leagues", params(("league" = i64, Path, minimum = 1, example = 1)), request_body = LeagueInput,
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

/// Start the league's next season: a new league with its settings and scoring (the name and
/// dates given; the card given or the same), linked both ways. The old season's standings stay
/// as they were. A league has one next season: a second is 409, naming it.
#[utoipa::path(tag = "leagues", params(("league" = i64, Path, minimum = 1, example = 1)), request_body = NextSeason,
    responses((status = 201, body = LeagueView), (status = 409, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 422, body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/leagues/{league}/next-season")]
pub async fn next_season(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: ValidJson<NextSeason>,
) -> Result<HttpResponse, AppError> {
    let (league, club) = leagues::next_season(&state, &caller, *id, body.0).await?;
    Ok(HttpResponse::Created().json(LeagueView::new(league, &club)))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DiscoverQuery {
    /// Part of a league's name or its club's name or slug (case-insensitive).
    #[param(max_length = 100, example = "spring")]
    pub q: Option<String>,
    /// How many leagues a page holds (1 to 500; 50 when not given).
    #[param(minimum = 1, maximum = 500, example = 50)]
    pub limit: Option<i64>,
    /// The `next` of the previous page.
    #[param(max_length = 200)]
    pub cursor: Option<String>,
}

/// Public leagues of every club, newest first (no login needed): name, club, dates, board and
/// links. Paged: `next` in the body and a `Link: <…>; rel="next"` header give the next page.
#[utoipa::path(tag = "leagues", params(DiscoverQuery), responses((status = 200, body = LeaguePage)))]
#[get("/api/v1/leagues")]
pub async fn discover(
    state: web::Data<AppState>,
    req: HttpRequest,
    query: web::Query<DiscoverQuery>,
) -> Result<HttpResponse, AppError> {
    let page = leagues::discover(
        &state,
        query.q.as_deref(),
        query.cursor.as_deref(),
        query.limit,
    )
    .await?;
    Ok(crate::api::paged(&req, page.next.as_deref()).json(&page))
}
