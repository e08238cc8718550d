//! Players of a club.

use actix_web::{HttpResponse, get, patch, post, web};
use serde::Deserialize;
use serde::Serialize;
use utoipa::{IntoParams, ToSchema};

use crate::api::json::ValidJson;
use crate::auth::{Caller, Need};
use crate::error::AppError;
use crate::startup::AppState;
use crate::storage::players::{self, Player, Updated};
use crate::storage::{clubs, games};

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewPlayer {
    #[schema(example = "Rose Adler")]
    pub name: String,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PlayerChange {
    /// A new name.
    #[serde(default)]
    pub name: Option<String>,
    /// false to deactivate (kept in history, no longer offered for check-in).
    #[serde(default)]
    pub active: Option<bool>,
}

#[derive(Deserialize, IntoParams)]
pub struct ListQuery {
    /// Include deactivated players.
    #[serde(default)]
    pub all: bool,
}

fn clean_name(name: &str) -> Result<String, AppError> {
    let n = name.split_whitespace().collect::<Vec<_>>().join(" ");
    if n.is_empty() || n.chars().count() > 100 {
        return Err(AppError::invalid(
            "name",
            "give a name of 1 to 100 characters",
        ));
    }
    Ok(n)
}

/// The club's players, active ones unless `all=true`.
#[utoipa::path(tag = "players", params(("club" = String, Path), ListQuery), responses((status = 200, body = [Player])))]
#[get("/api/v1/clubs/{club}/players")]
pub async fn list(
    state: web::Data<AppState>,
    caller: Caller,
    club: web::Path<String>,
    q: web::Query<ListQuery>,
) -> Result<HttpResponse, AppError> {
    let (club, _) = caller.club(&state, &club, Need::Read).await?;
    Ok(HttpResponse::Ok().json(players::list(&state.db, club.id, q.all).await?))
}

/// Add a player.
#[utoipa::path(tag = "players", params(("club" = String, Path)), request_body = NewPlayer,
    responses((status = 201, body = Player), (status = 409, description = "The club has a player of that name", body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/clubs/{club}/players")]
pub async fn create(
    state: web::Data<AppState>,
    caller: Caller,
    club: web::Path<String>,
    body: ValidJson<NewPlayer>,
) -> Result<HttpResponse, AppError> {
    let player = add_player(&state, &caller, &club, body.0).await?;
    Ok(HttpResponse::Created().json(player))
}

/// Adds a player to the club `slug` (for the API and the pages).
pub async fn add_player(
    state: &AppState,
    caller: &Caller,
    slug: &str,
    p: NewPlayer,
) -> Result<Player, AppError> {
    let (club, _) = caller.club(state, slug, Need::Admin).await?;
    let name = clean_name(&p.name)?;
    let player = players::create(&state.db, club.id, &name)
        .await?
        .ok_or_else(|| {
            AppError::Conflict(format!("the club already has a player named `{name}`"))
        })?;
    Ok(player)
}

/// Rename, deactivate or reactivate a player.
#[utoipa::path(tag = "players", params(("club" = String, Path), ("player" = i64, Path)), request_body = PlayerChange,
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
    let (club, _) = caller.club(&state, &slug, Need::Admin).await?;
    let change = body.0;
    let name = change.name.as_deref().map(clean_name).transpose()?;
    match players::update(&state.db, club.id, id, name.as_deref(), change.active).await? {
        Updated::Done(p) => Ok(HttpResponse::Ok().json(p)),
        Updated::NotFound => Err(AppError::NotFound(format!("this club has no player {id}"))),
        Updated::NameTaken => Err(AppError::Conflict(format!(
            "the club already has a player named `{}`",
            name.unwrap_or_default()
        ))),
    }
}

#[derive(Serialize, ToSchema)]
pub struct BestHand {
    #[schema(example = "2468#2")]
    pub line: String,
    pub value: i32,
    pub times: i64,
}

#[derive(Serialize, ToSchema)]
pub struct PlayerStats {
    pub player_id: i64,
    pub player: String,
    pub games: i64,
    pub wins: i64,
    pub points: i64,
    pub self_picks: i64,
    pub jokerless_wins: i64,
    pub deal_ins: i64,
    pub dead_hands: i64,
    pub wall_games: i64,
    /// The lines this player won with, most valuable first.
    pub best_hands: Vec<BestHand>,
}

/// A player's statistics over all the club's leagues (members of the club).
#[utoipa::path(tag = "players", params(("player" = i64, Path)), responses((status = 200, body = PlayerStats), (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[get("/api/v1/players/{player}/stats")]
pub async fn stats(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let not_found = || AppError::NotFound(format!("no player {id}"));
    let club_id = players::club_of(&state.db, *id)
        .await?
        .ok_or_else(not_found)?;
    let club = clubs::by_id(&state.db, club_id)
        .await?
        .ok_or_else(not_found)?;
    caller
        .club_access(&state, club, Need::Read)
        .await
        .map_err(|e| match e {
            AppError::NotFound(_) => not_found(),
            other => other,
        })?;
    let t = games::player_totals(&state.db, *id)
        .await?
        .ok_or_else(not_found)?;
    let best = games::best_hands(&state.db, *id).await?;
    Ok(HttpResponse::Ok().json(PlayerStats {
        player_id: t.player_id,
        player: t.name,
        games: t.games,
        wins: t.wins,
        points: t.points,
        self_picks: t.self_picks,
        jokerless_wins: t.jokerless_wins,
        deal_ins: t.deal_ins,
        dead_hands: t.dead_hands,
        wall_games: t.wall_games,
        best_hands: best
            .into_iter()
            .map(|(line, value, times)| BestHand { line, value, times })
            .collect(),
    }))
}
