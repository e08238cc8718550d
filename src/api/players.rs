//! Players of a club.

use actix_web::HttpRequest;
use actix_web::{HttpResponse, get, patch, post, web};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::api::json::ValidJson;
use crate::domain::people::players::{self, NewPlayer, Player, PlayerChange, PlayerStats};
use crate::domain::{AppState, Caller};
use crate::error::AppError;

crate::api::listed!(PlayerList, players, Player);

#[derive(Deserialize, IntoParams)]
pub struct ListQuery {
    /// Include deactivated players.
    #[serde(default)]
    pub all: bool,
}

/// The club's players, active ones unless `all=true`.
#[utoipa::path(operation_id = "list_players", tag = "players", params(("club" = String, Path, example = "tuesday-tiles"), ListQuery, crate::api::PageParams), responses((status = 200, body = PlayerList)))]
#[get("/api/v1/clubs/{club}/players")]
pub async fn list(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    club: web::Path<String>,
    q: web::Query<ListQuery>,
    page: web::Query<crate::api::PageParams>,
) -> Result<HttpResponse, AppError> {
    let items = players::list(&state, &caller, &club, q.all).await?;
    PlayerList::page(&state, &req, items, &page, |_, p| p.id)
}

/// Add a player.
#[utoipa::path(operation_id = "create_player", tag = "players", params(("club" = String, Path, example = "tuesday-tiles")), request_body = NewPlayer,
    responses((status = 201, body = Player), (status = 409, description = "The club has a player of that name", body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/clubs/{club}/players")]
pub async fn create(
    state: web::Data<AppState>,
    caller: Caller,
    club: web::Path<String>,
    body: ValidJson<NewPlayer>,
) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Created().json(players::add(&state, &caller, &club, body.0).await?))
}

/// The answer when inviting a player linked a member at once.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct PlayerLinked {
    #[schema(example = "Mia Chen is a member already: they are Mia C. on the player list now.")]
    pub message: String,
}

/// Invite a player by mail (organizers): whoever joins with the link is that player. The
/// address of a member without a player links them to the player at once (200).
#[utoipa::path(operation_id = "invite_player", tag = "players", params(("club" = String, Path, example = "tuesday-tiles"), ("player" = i64, Path, minimum = 1, example = 1)),
    request_body = crate::domain::people::members::InvitePlayer,
    responses((status = 202, body = crate::domain::people::members::Invited, description = "An invitation for the player is on its way"),
              (status = 200, body = PlayerLinked, description = "The address was a member's without a player: they are this player now"),
              (status = 404, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 409, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 422, body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/clubs/{club}/players/{player}/invitation")]
pub async fn invite(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(String, i64)>,
    body: ValidJson<crate::domain::people::members::InvitePlayer>,
) -> Result<HttpResponse, AppError> {
    use crate::domain::people::members::{PlayerInvited, invite_player};
    let (slug, id) = path.into_inner();
    Ok(
        match invite_player(&state, &caller, &slug, id, body.0).await? {
            PlayerInvited::Invited(i) => HttpResponse::Accepted().json(i),
            PlayerInvited::Linked(message) => HttpResponse::Ok().json(PlayerLinked { message }),
        },
    )
}

/// Rename, deactivate or reactivate a player.
#[utoipa::path(operation_id = "update_player", tag = "players", params(("club" = String, Path, example = "tuesday-tiles"), ("player" = i64, Path, minimum = 1, example = 1)), request_body = PlayerChange,
    responses((status = 200, body = Player), (status = 404, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 409, body = crate::error::Problem, content_type = "application/problem+json")))]
#[patch("/api/v1/clubs/{club}/players/{player}")]
pub async fn update(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(String, i64)>,
    body: ValidJson<PlayerChange>,
) -> Result<HttpResponse, AppError> {
    let (slug, id) = path.into_inner();
    Ok(HttpResponse::Ok().json(players::update(&state, &caller, &slug, id, body.0).await?))
}

/// A player's statistics over all the club's leagues (members of the club).
#[utoipa::path(tag = "players", params(("player" = i64, Path, minimum = 1, example = 1)), responses((status = 200, body = PlayerStats), (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[get("/api/v1/players/{player}/stats")]
pub async fn stats(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok().json(players::stats(&state, &caller, *id).await?))
}
