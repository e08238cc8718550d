//! Game entry and corrections: `Idempotency-Key` makes a submission safe to retry, `If-Match`
//! names the version a correction starts from, `ETag` is a game's version.

use actix_web::http::header::{ETAG, IF_MATCH};
use actix_web::{HttpRequest, HttpResponse, get, post, put, web};

use crate::api::json::ValidJson;
use crate::domain::play::game_lists::{self, GamePage};
use crate::domain::play::game_view::Game;
use crate::domain::play::games::{self, AuditEntry, GameInput};
use crate::domain::{AppState, Caller};
use crate::error::AppError;

crate::api::listed!(AuditList, audit, AuditEntry);

/// The version a correction starts from, as sent (`If-Match`).
fn if_match(req: &HttpRequest) -> Option<&str> {
    req.headers()
        .get(IF_MATCH)
        .map(|v| v.to_str().unwrap_or_default())
}

/// A game's view with its version as `ETag`.
fn tagged(
    mut res: actix_web::HttpResponseBuilder,
    version: i32,
    body: impl serde::Serialize,
) -> HttpResponse {
    res.insert_header((ETAG, format!("\"{version}\"")))
        .json(body)
}

/// Record a game at a table. The engine validates the result against the league's card and
/// scores it with the league's ruleset. Send `Idempotency-Key` to make retries safe.
#[utoipa::path(operation_id = "record_game", tag = "games", params(("table" = i64, Path, minimum = 1, example = 1), ("Idempotency-Key" = Option<String>, Header, description = "the same key returns the stored answer")),
    request_body = GameInput,
    responses((status = 201, body = Game),
              (status = 409, description = "The game number is already recorded, or the night is closed", body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 422, description = "The result does not stand (the hand matches no line, a seat not at the table, …)", body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/tables/{table}/games")]
pub async fn create(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    table: web::Path<i64>,
    body: ValidJson<GameInput>,
) -> Result<HttpResponse, AppError> {
    // Kept as sent (bytes that are not text become U+FFFD) for the operation to judge.
    let key = req
        .headers()
        .get("idempotency-key")
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    let recorded =
        games::record_in_lane(state.clone().into_inner(), caller, *table, key, body.0).await?;
    Ok(tagged(
        HttpResponse::Created(),
        recorded.version,
        recorded.body,
    ))
}

/// One game with its scores (`ETag` is its version).
#[utoipa::path(operation_id = "show_game", tag = "games", params(("game" = i64, Path, minimum = 1, example = 1)), responses((status = 200, body = Game), (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[get("/api/v1/games/{game}")]
pub async fn show(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let view = games::show(&state, &caller, *id).await?;
    Ok(tagged(HttpResponse::Ok(), view.version, &view))
}

/// Amend a game: send the whole corrected result with `If-Match: <version>`. The result is
/// validated and scored again; the change goes in the audit log.
#[utoipa::path(tag = "games", params(("game" = i64, Path, minimum = 1, example = 1), ("If-Match" = String, Header, description = "the version you saw, as its ETag gave it (`\"3\"`, `3` or `W/\"3\"`)", pattern = r#"^(?:W/)?"?[0-9]{1,9}"?$"#)),
    request_body = GameInput,
    responses((status = 200, body = Game),
              (status = 412, description = "Stale version; the detail gives the current one", body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 428, description = "If-Match is missing", body = crate::error::Problem, content_type = "application/problem+json")))]
#[put("/api/v1/games/{game}")]
pub async fn amend(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    id: web::Path<i64>,
    body: ValidJson<GameInput>,
) -> Result<HttpResponse, AppError> {
    let before = games::show(&state, &caller, *id).await?;
    let view = games::amend(&state, &caller, *id, if_match(&req), body.0).await?;
    // A disputed game of an open-play match, settled by this correction: the players whose
    // word it now waits for are asked at once.
    if before.awaiting.as_deref() == Some("organizer") {
        crate::domain::play::open::corrected(&state, &caller, before.night.id, &before).await?;
    }
    Ok(tagged(HttpResponse::Ok(), view.version, &view))
}

/// Void a game (organizers): it stops counting; `If-Match` is checked when sent.
#[utoipa::path(tag = "games", params(("game" = i64, Path, minimum = 1, example = 1)),
    responses((status = 200, body = Game), (status = 412, body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/games/{game}/void")]
pub async fn void(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let view = games::void(&state, &caller, *id, if_match(&req)).await?;
    Ok(tagged(HttpResponse::Ok(), view.version, &view))
}

/// Every change to a game: who, when, before and after.
#[utoipa::path(tag = "games", params(("game" = i64, Path, minimum = 1, example = 1), crate::api::PageParams), responses((status = 200, body = AuditList)))]
#[get("/api/v1/games/{game}/audit")]
pub async fn audit(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    id: web::Path<i64>,
    page: web::Query<crate::api::PageParams>,
) -> Result<HttpResponse, AppError> {
    let items = games::audit(&state, &caller, *id).await?;
    // A game's changes are only ever added: an entry's place in them names it.
    AuditList::page(&state, &req, items, &page, |i, _| i as i64)
}

#[derive(serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct GamesQuery {
    /// How many games a page holds (1 to 500; 100 when not given).
    #[param(minimum = 1, maximum = 500, example = 100)]
    pub limit: Option<i64>,
    /// The `next` of the previous page.
    #[param(max_length = 200)]
    pub cursor: Option<String>,
    /// Only the games recorded, amended or voided after this league event (the `last_event`
    /// of an earlier listing), each once, in the order they last changed.
    #[param(minimum = 0)]
    pub since: Option<i64>,
}

impl GamesQuery {
    fn domain(&self) -> game_lists::GameQuery {
        game_lists::GameQuery {
            limit: self.limit,
            cursor: self.cursor.clone(),
            since: self.since,
        }
    }
}

/// The league's games, voided games and redeals included (see `status`, `outcome`), oldest
/// first; public leagues need no login. Paged: `next` in the body and a `Link: <…>;
/// rel="next"` header; `since` lists only what changed after an event. Sends an `ETag`; with a
/// matching `If-None-Match` the answer is 304.
#[utoipa::path(tag = "games", params(("league" = i64, Path, minimum = 1, example = 1), GamesQuery),
    responses((status = 200, body = GamePage), (status = 304, description = "Not modified"), (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[get("/api/v1/leagues/{league}/games")]
pub async fn league_games(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    id: web::Path<i64>,
    query: web::Query<GamesQuery>,
) -> Result<HttpResponse, AppError> {
    let page = game_lists::of_league(&state, &caller, *id, &query.domain()).await?;
    crate::api::tagged_json(&req, crate::api::paged(&req, page.next.as_deref()), &page)
}

/// The night's games, as the league's games list them (`ETag` and 304 too).
#[utoipa::path(tag = "games", params(("night" = i64, Path, minimum = 1, example = 1), GamesQuery),
    responses((status = 200, body = GamePage), (status = 304, description = "Not modified"), (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[get("/api/v1/nights/{night}/games")]
pub async fn night_games(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    id: web::Path<i64>,
    query: web::Query<GamesQuery>,
) -> Result<HttpResponse, AppError> {
    let page = game_lists::of_night(&state, &caller, *id, &query.domain()).await?;
    crate::api::tagged_json(&req, crate::api::paged(&req, page.next.as_deref()), &page)
}
