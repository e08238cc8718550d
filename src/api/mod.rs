//! The HTTP API: JSON handlers, each in the OpenAPI document.

pub mod accounts;
pub mod cards;
pub mod clubs;
pub mod engine;
pub mod games;
pub mod health;
pub mod json;
pub mod leagues;
pub mod nights;
pub mod players;
pub mod standings;

use utoipa::OpenApi;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::error::{FieldError, Problem};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "mahjong-league",
        description = "Leagues, tournaments and an exact rules engine for American Mah Jongg clubs. \
                       Errors are application/problem+json (RFC 9457).",
        license(name = "MIT")
    ),
    components(schemas(Problem, FieldError)),
    tags(
        (name = "health", description = "Liveness and readiness"),
        (name = "engine", description = "The rules engine, stateless: no login, rate-limited per address"),
        (name = "accounts", description = "Sign up, log in (session cookie), log out"),
        (name = "clubs", description = "Clubs, members and roles"),
        (name = "tokens", description = "API tokens for third-party apps (Authorization: Bearer)"),
        (name = "players", description = "A club's players"),
        (name = "cards", description = "Card files: built-in and uploaded"),
        (name = "leagues", description = "Leagues and their settings"),
        (name = "nights", description = "League nights: check-in, seating, tables"),
        (name = "games", description = "Game results: entry, validation, scoring"),
        (name = "standings", description = "Standings and CSV exports")
    )
)]
pub struct ApiDoc;

/// Registers every documented route.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(health::healthz)
        .service(health::readyz)
        .service(engine::check)
        .service(engine::adjudicate)
        .service(engine::preview)
        .service(accounts::sign_up)
        .service(accounts::log_in)
        .service(accounts::current)
        .service(accounts::log_out)
        .service(clubs::create)
        .service(clubs::show)
        .service(clubs::members)
        .service(clubs::set_member)
        .service(clubs::remove_member)
        .service(clubs::list_tokens)
        .service(clubs::create_token)
        .service(clubs::revoke_token)
        .service(players::list)
        .service(players::create)
        .service(players::update)
        .service(players::stats)
        .service(cards::list_public)
        .service(cards::show)
        .service(cards::list_for_club)
        .service(cards::upload)
        .service(leagues::list)
        .service(leagues::create)
        .service(leagues::show)
        .service(leagues::update)
        .service(nights::create)
        .service(nights::list)
        .service(nights::show)
        .service(nights::check_in)
        .service(nights::check_out)
        .service(nights::propose)
        .service(nights::lock)
        .service(nights::close)
        .service(nights::reopen)
        .service(games::create)
        .service(games::show)
        .service(games::amend)
        .service(games::void)
        .service(games::audit)
        .service(standings::show)
        .service(standings::standings_csv)
        .service(standings::games_csv);
}

/// The OpenAPI document, as served at `/api/openapi.json` and committed in `openapi/openapi.json`.
pub fn openapi() -> utoipa::openapi::OpenApi {
    use utoipa_actix_web::AppExt;
    let (_, doc) = actix_web::App::new()
        .into_utoipa_app()
        .openapi(ApiDoc::openapi())
        .configure(configure)
        .split_for_parts();
    doc
}
