//! Open play: matches members arrange (propose, join, leave), and the players' words on the
//! games entered (confirm, dispute), which organizers settle.

use actix_web::HttpRequest;
use actix_web::{HttpResponse, get, post, web};
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use crate::api::json::{self, ValidJson};
use crate::domain::play::open::{
    self as matches, Cancel, Checks, Leave, MatchView, NewMatch, Remove, Settle,
};
use crate::domain::{AppState, Caller};
use crate::error::AppError;

crate::api::listed!(MatchList, matches, MatchView);

/// Which matches.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MatchQuery {
    /// `true`: every match of the league, played ones included; otherwise from today on.
    #[serde(default)]
    pub all: Option<bool>,
}

/// A dispute.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DisputeBody {
    /// What is wrong with the game, for the organizers.
    #[schema(
        example = "Bea went out on Cy's discard, not self-picked",
        min_length = 1,
        max_length = 500
    )]
    pub reason: String,
}

/// Propose a match in an open-play league (a logged-in member of the club). Open to anyone in
/// the league until four have joined; with three named `players` it is proposed to them (each
/// is mailed a one-tap link to accept) and locks once all three have accepted; an organizer's
/// locks at once. All four are mailed when it locks.
#[utoipa::path(operation_id = "create_match", tag = "open play", params(("league" = i64, Path, minimum = 1, example = 1)), request_body = NewMatch,
    responses((status = 201, body = MatchView), (status = 404, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 409, description = "Not an open-play league, or your name is another player's", body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 422, body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/leagues/{league}/matches")]
pub async fn create(
    state: web::Data<AppState>,
    caller: Caller,
    league: web::Path<i64>,
    body: ValidJson<NewMatch>,
) -> Result<HttpResponse, AppError> {
    let made = matches::create(&state, &caller, *league, body.0).await?;
    Ok(HttpResponse::Created().json(made))
}

/// The league's matches, soonest first: from today on (on the club's clock), or all of them.
#[utoipa::path(operation_id = "list_matches", tag = "open play", params(("league" = i64, Path, minimum = 1, example = 1), MatchQuery, crate::api::PageParams),
    responses((status = 200, body = MatchList), (status = 404, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 409, description = "Not an open-play league", body = crate::error::Problem, content_type = "application/problem+json")))]
#[get("/api/v1/leagues/{league}/matches")]
pub async fn list(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    league: web::Path<i64>,
    q: web::Query<MatchQuery>,
    page: web::Query<crate::api::PageParams>,
) -> Result<HttpResponse, AppError> {
    let (list, _, _) = matches::list(&state, &caller, *league, q.all.unwrap_or(false)).await?;
    MatchList::page(&state, &req, list, &page, |_, m| m.id)
}

/// A match.
#[utoipa::path(operation_id = "show_match", tag = "open play", params(("id" = i64, Path, minimum = 1, example = 1)),
    responses((status = 200, body = MatchView), (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[get("/api/v1/matches/{id}")]
pub async fn show(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok().json(matches::show(&state, &caller, *id).await?.0))
}

/// Join an open match (a logged-in member). The fourth to join locks it: its table is made and
/// all four are mailed. Joining a match you are in answers it as it is.
#[utoipa::path(operation_id = "join_match", tag = "open play", params(("id" = i64, Path, minimum = 1, example = 1)),
    responses((status = 200, body = MatchView), (status = 404, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 409, description = "Full, called off, or made with named players", body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/matches/{id}/join")]
pub async fn join(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok().json(matches::join(&state, &caller, *id).await?))
}

/// Accept a match proposed to you (a logged-in member named in it). The last of the four to
/// accept locks it: its table is made and all four are mailed.
#[utoipa::path(operation_id = "accept_match", tag = "open play", params(("id" = i64, Path, minimum = 1, example = 1)),
    responses((status = 200, body = MatchView), (status = 404, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 409, description = "Not named in it, or called off", body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/matches/{id}/accept")]
pub async fn accept(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok().json(matches::accept(&state, &caller, *id).await?))
}

/// Leave a match. Before it locks, any time; once it has its four, only in an emergency
/// (`emergency: true` with a reason): the other three are mailed and the seat opens again. Not
/// once games are entered.
#[utoipa::path(operation_id = "leave_match", tag = "open play", params(("id" = i64, Path, minimum = 1, example = 1)), request_body = Option<Leave>,
    responses((status = 200, body = MatchView), (status = 404, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 409, description = "Not in it, or games are entered", body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 422, body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/matches/{id}/leave")]
pub async fn leave(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    bytes: web::Bytes,
) -> Result<HttpResponse, AppError> {
    // No body (or `null`): leaving a match that has not locked.
    let leave: Leave = if bytes.trim_ascii().is_empty() || bytes.trim_ascii() == b"null" {
        Leave::default()
    } else {
        json::parse(&bytes)?
    };
    Ok(HttpResponse::Ok().json(matches::leave(&state, &caller, *id, leave).await?))
}

/// Call a match off (organizers), saying why: its players are mailed the reason. Not once games
/// are entered: the match stands as played (void the games that should not count).
#[utoipa::path(operation_id = "cancel_match", tag = "open play", params(("id" = i64, Path, minimum = 1, example = 1)), request_body = Cancel,
    responses((status = 200, body = MatchView), (status = 403, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 404, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 409, description = "Called off already, or games are entered", body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 422, body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/matches/{id}/cancel")]
pub async fn cancel(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: ValidJson<Cancel>,
) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok().json(matches::cancel(&state, &caller, *id, body.0).await?))
}

/// Take a player out of a match (organizers), saying why: the player is mailed, and the other
/// three too when the match had its four (the seat opens again). Not once games are entered.
#[utoipa::path(operation_id = "remove_match_player", tag = "open play", params(("id" = i64, Path, minimum = 1, example = 1)), request_body = Remove,
    responses((status = 200, body = MatchView), (status = 403, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 404, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 409, description = "Games are entered, or the player left meanwhile", body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 422, description = "The player is not in the match, or no reason", body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/matches/{id}/remove")]
pub async fn remove(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: ValidJson<Remove>,
) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok().json(matches::remove(&state, &caller, *id, body.0).await?.0))
}

/// Where an open-play game stands: who confirmed, who disputed and why, who has not said, and
/// when it counts unconfirmed.
#[utoipa::path(operation_id = "game_checks", tag = "open play", params(("id" = i64, Path, minimum = 1, example = 1)),
    responses((status = 200, body = Checks), (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[get("/api/v1/games/{id}/checks")]
pub async fn checks(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok().json(matches::checks(&state, &caller, *id).await?))
}

/// Confirm a game at your table (open play). It counts once every player at the table has.
#[utoipa::path(operation_id = "confirm_game", tag = "open play", params(("id" = i64, Path, minimum = 1, example = 1)),
    responses((status = 200, body = Checks), (status = 403, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 404, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 409, description = "The game waits for nobody, or is disputed", body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/games/{id}/confirm")]
pub async fn confirm(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok().json(matches::confirm(&state, &caller, *id, None).await?))
}

/// Dispute a game at your table (open play), saying why: it waits for an organizer.
#[utoipa::path(operation_id = "dispute_game", tag = "open play", params(("id" = i64, Path, minimum = 1, example = 1)), request_body = DisputeBody,
    responses((status = 200, body = Checks), (status = 403, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 404, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 409, description = "The game counts already", body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 422, body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/games/{id}/dispute")]
pub async fn dispute(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: ValidJson<DisputeBody>,
) -> Result<HttpResponse, AppError> {
    Ok(
        HttpResponse::Ok()
            .json(matches::dispute(&state, &caller, *id, None, &body.0.reason).await?),
    )
}

/// Settle a waiting or disputed game (organizers): count it as it stands (correct it first with
/// `PUT /api/v1/games/{id}` if need be) or void it.
#[utoipa::path(operation_id = "settle_game", tag = "open play", params(("id" = i64, Path, minimum = 1, example = 1)), request_body = Settle,
    responses((status = 200, body = Checks), (status = 403, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 404, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 409, description = "The game waits for nobody", body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 422, body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/games/{id}/settle")]
pub async fn settle(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: ValidJson<Settle>,
) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok().json(matches::settle(&state, &caller, *id, None, body.0).await?))
}
