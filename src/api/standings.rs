//! Standings and CSV exports of a league (public leagues: no login needed).

use actix_web::http::header::{CONTENT_DISPOSITION, CONTENT_ENCODING, ETAG, VARY};
use actix_web::{HttpRequest, HttpResponse, get, web};

use crate::domain::seasons::exports::{self, Csv};
use crate::domain::seasons::results::{self as final_results, ResultsView};
use crate::domain::seasons::standings::{self, StandingsView};
use crate::domain::{AppState, Caller};
use crate::error::AppError;

/// The league's standings. Sends an `ETag`; with a matching `If-None-Match` the answer is 304.
/// A client that takes gzip (`Accept-Encoding`) gets the body compressed, under its own tag.
#[utoipa::path(operation_id = "show_standings", tag = "standings", params(("league" = i64, Path, minimum = 1, example = 1)),
    responses((status = 200, body = StandingsView), (status = 304, description = "Not modified"),
              (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[get("/api/v1/leagues/{league}/standings")]
pub async fn show(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let body = standings::show(&state, &caller, *id).await?;
    let gzip = crate::http::client::takes_gzip(&req);
    let gzip_tag = body.gzip_tag();
    // Either form's tag names these standings.
    let matches = crate::api::none_match(&req, &[&body.tag, &gzip_tag]);
    let tag = if gzip { gzip_tag } else { body.tag.clone() };
    let vary = (VARY, "Accept-Encoding");
    if matches {
        return Ok(HttpResponse::NotModified()
            .insert_header((ETAG, tag))
            .insert_header(vary)
            .finish());
    }
    let mut answer = HttpResponse::Ok();
    answer
        .insert_header((ETAG, tag))
        .insert_header(vary)
        .content_type("application/json");
    if gzip {
        answer.insert_header((CONTENT_ENCODING, "gzip"));
        return Ok(answer.body(body.gzipped()));
    }
    Ok(answer.body(body.json))
}

fn csv_response(csv: Csv) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/csv; charset=utf-8")
        .insert_header((
            CONTENT_DISPOSITION,
            format!("attachment; filename=\"{}\"", csv.name),
        ))
        .body(csv.bytes)
}

/// The standings as CSV.
#[utoipa::path(tag = "standings", params(("league" = i64, Path, minimum = 1, example = 1)), responses((status = 200, content_type = "text/csv", body = String)))]
#[get("/api/v1/leagues/{league}/standings.csv")]
pub async fn standings_csv(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    Ok(csv_response(
        exports::standings_csv(&state, &caller, *id).await?,
    ))
}

/// Every game of the league as CSV: one row per player per game, voided games and redeals included (see `status`, `outcome`).
#[utoipa::path(tag = "standings", params(("league" = i64, Path, minimum = 1, example = 1)), responses((status = 200, content_type = "text/csv", body = String)))]
#[get("/api/v1/leagues/{league}/games.csv")]
pub async fn games_csv(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    Ok(csv_response(
        exports::games_csv(&state, &caller, *id).await?,
    ))
}

/// The league's final results for a ranking body: placement (ties shared), player and ranking
/// id, games, wins, points and the board's figure, with the event's name, dates, place and
/// sanctioning number; in the standings' order. Same access as the standings.
#[utoipa::path(tag = "standings", params(("league" = i64, Path, minimum = 1, example = 1)),
    responses((status = 200, body = ResultsView), (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[get("/api/v1/leagues/{league}/results")]
pub async fn results(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok().json(final_results::results(&state, &caller, *id).await?))
}

/// The results as CSV (the event's columns repeated on every row).
#[utoipa::path(tag = "standings", params(("league" = i64, Path, minimum = 1, example = 1)), responses((status = 200, content_type = "text/csv", body = String)))]
#[get("/api/v1/leagues/{league}/results.csv")]
pub async fn results_csv(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    Ok(csv_response(
        final_results::results_csv(&state, &caller, *id).await?,
    ))
}

/// A player's season in the league: her counts, night by night (week by week in open play)
/// with her rank and rating after each, her wins by section and line of the card, and the
/// players she shared a table with. Counts the games the standings count (not voided games,
/// nor games waiting for their players); a player with no games gets zeros and empty lists.
/// Same access as the standings; sends an `ETag`, and 304 for a matching `If-None-Match`.
#[utoipa::path(operation_id = "show_player_season", tag = "standings",
    params(("league" = i64, Path, minimum = 1, example = 1), ("player" = i64, Path, minimum = 1, example = 12)),
    responses((status = 200, body = crate::domain::seasons::season::PlayerSeason), (status = 304, description = "Not modified"),
              (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[get("/api/v1/leagues/{league}/players/{player}/season")]
pub async fn player_season(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    ids: web::Path<(i64, i64)>,
) -> Result<HttpResponse, AppError> {
    let (league, player) = *ids;
    let doc =
        crate::domain::seasons::season::player_season(&state, &caller, league, player).await?;
    crate::api::tagged_json(&req, HttpResponse::Ok(), &doc)
}

/// The league's season: games, nights and players; wins by section and line of the card
/// (lines never won among them); how games ended; East's wins against the expected quarter;
/// who came each night (week in open play). Same access as the standings; sends an `ETag`.
#[utoipa::path(operation_id = "show_league_season", tag = "standings",
    params(("league" = i64, Path, minimum = 1, example = 1)),
    responses((status = 200, body = crate::domain::seasons::season::LeagueSeason), (status = 304, description = "Not modified"),
              (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[get("/api/v1/leagues/{league}/season")]
pub async fn league_season(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let doc = crate::domain::seasons::season::league_season(&state, &caller, *id).await?;
    crate::api::tagged_json(&req, HttpResponse::Ok(), &doc)
}
