//! The HTTP API: JSON handlers, each in the OpenAPI document.

pub mod accounts;
pub mod ahead;
pub mod card_drafts;
pub mod cards;
pub mod clubs;
pub mod engine;
pub mod events;
pub mod games;
pub mod health;
pub mod imports;
pub mod json;
pub mod leagues;
pub mod matches;
pub mod nights;
pub mod players;
pub mod retiring;
pub mod standings;
pub mod webhooks;

use utoipa::OpenApi;

/// A list answer: every list the API gives is an object naming its items, with `next` (the
/// cursor of the next page; `null` when the list is whole), as `GET /leagues` and the games
/// lists are. `listed!(NightList, nights, NightView)` makes `NightList { nights, next }`.
macro_rules! listed {
    ($name:ident, $field:ident, $item:ty) => {
        #[derive(serde::Serialize, utoipa::ToSchema)]
        pub struct $name {
            pub $field: Vec<$item>,
            /// The cursor of the next page (as `cursor=`); null: the list is whole.
            #[schema(required = true)]
            pub next: Option<String>,
        }

        impl From<Vec<$item>> for $name {
            fn from(items: Vec<$item>) -> Self {
                $name {
                    $field: items,
                    next: None,
                }
            }
        }

        impl $name {
            /// The page of `items` (the whole list, in its order) that `params` asks for, as a
            /// 200 answer with `next` and its `Link` header; `key` names an item (its id).
            pub fn page(
                state: &crate::domain::AppState,
                req: &actix_web::HttpRequest,
                items: Vec<$item>,
                params: &crate::api::PageParams,
                key: impl Fn(usize, &$item) -> i64,
            ) -> Result<actix_web::HttpResponse, crate::error::AppError> {
                let (items, next) =
                    crate::api::page_of(state, stringify!($field), req.path(), items, params, key)?;
                Ok(crate::api::paged(req, next.as_deref()).json($name {
                    $field: items,
                    next,
                }))
            }
        }
    };
}

/// Which page of a list: every list of the API pages alike.
#[derive(serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageParams {
    /// How many items a page holds (1 to 500; 500 when not given).
    #[param(minimum = 1, maximum = 500, example = 100)]
    pub limit: Option<i64>,
    /// The `next` of the previous page.
    #[param(max_length = 200)]
    pub cursor: Option<String>,
}

/// The page `params` asks of `items` (in the list's order): after the item the cursor names
/// (found by its `key`; when it is gone meanwhile, from the place it held, which the item after
/// it took), at most `limit`.
/// The cursor is signed and names the list (`kind`, `scope`: the request's path), as the games
/// list's does.
pub fn page_of<T>(
    state: &crate::domain::AppState,
    kind: &str,
    scope: &str,
    mut items: Vec<T>,
    params: &PageParams,
    key: impl Fn(usize, &T) -> i64,
) -> Result<(Vec<T>, Option<String>), crate::error::AppError> {
    use crate::domain::paging;
    let limit = paging::limit(params.limit, paging::MAX_LIMIT)? as usize;
    let start = match params.cursor.as_deref() {
        None => 0,
        Some(cursor) => {
            let at = paging::decode(&state.keys, kind, scope, cursor, 2)?;
            items
                .iter()
                .enumerate()
                .position(|(i, item)| key(i, item) == at[1])
                .map_or(at[0] as usize, |i| i + 1)
                .min(items.len())
        }
    };
    let end = start.saturating_add(limit).min(items.len());
    let next = (end < items.len()).then(|| {
        let last = end - 1;
        paging::encode(
            &state.keys,
            kind,
            scope,
            &[last as i64, key(last, &items[last])],
        )
    });
    items.truncate(end);
    items.drain(..start);
    Ok((items, next))
}
pub(crate) use listed;
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
    components(schemas(Problem, FieldError, crate::domain::play::events::EventView, crate::domain::play::events::NightEventData, crate::domain::play::events::MatchEventData, crate::domain::play::events::StandingsChangedData, crate::domain::play::events::WebhookTestData, crate::domain::play::game_view::Game)),
    tags(
        (name = "health", description = "Liveness and readiness"),
        (name = "engine", description = "The rules engine, stateless: no login, rate-limited per address"),
        (name = "accounts", description = "Sign up, log in (session cookie), log out"),
        (name = "clubs", description = "Clubs, members and roles"),
        (name = "tokens", description = "API tokens for third-party apps (Authorization: Bearer)"),
        (name = "players", description = "A club's players"),
        (name = "cards", description = "Card files: built-in and uploaded"),
        (name = "leagues", description = "Leagues and their settings"),
        (name = "nights", description = "League nights and tournament rounds: check-in, seating, tables, round status and timer"),
        (name = "games", description = "Game results: entry, validation, scoring"),
        (name = "open play", description = "Open-play leagues: matches members arrange, and the players' confirmations of the games"),
        (name = "standings", description = "Standings, CSV exports and the live event stream"),
        (name = "webhooks", description = "Signed webhooks: every event of a club's leagues, POSTed to its URL")
    )
)]
pub struct ApiDoc;

/// Documents the answers every operation can give besides its own: a body or parameter that
/// cannot be read (400), no or a bad credential (401), refused (403), not found (404), input
/// that does not stand (422), the database away (503); for writes a conflict (409) and a body
/// over the limit (413); sign-up's rate limit (429).
struct CommonAnswers;

impl utoipa::Modify for CommonAnswers {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::{ContentBuilder, Ref, ResponseBuilder};
        let problem = |description: &str| {
            ResponseBuilder::new()
                .description(description)
                .content(
                    "application/problem+json",
                    ContentBuilder::new()
                        .schema(Some(Ref::from_schema_name("Problem")))
                        .build(),
                )
                .build()
        };
        for (path, item) in openapi.paths.paths.iter_mut() {
            let api = path.starts_with("/api/v1/");
            let ops = [
                (&mut item.get, false),
                (&mut item.post, true),
                (&mut item.put, true),
                (&mut item.patch, true),
                (&mut item.delete, true),
            ];
            for (op, write) in ops {
                let Some(op) = op.as_mut() else { continue };
                describe_each(op);
                if !api {
                    continue;
                }
                let mut answers: Vec<(&str, &str)> = vec![
                    (
                        "400",
                        "A parameter or the body cannot be read (the problem names the field)",
                    ),
                    (
                        "401",
                        "Not logged in, or the API token is not known or was revoked",
                    ),
                    (
                        "403",
                        "The caller's role or token does not allow this, or the request came from another site",
                    ),
                    ("404", "Not found, or not visible to this caller"),
                    (
                        "422",
                        "The input does not stand (the problem names each field and why)",
                    ),
                    (
                        "503",
                        "The database does not answer; try again after Retry-After",
                    ),
                ];
                if write {
                    answers.push(("409", "The change clashes with what is stored"));
                    answers.push(("413", "The body is larger than the limit (256 KiB)"));
                }
                if path == "/api/v1/users" {
                    answers.push((
                        "429",
                        "Too many sign-ups from this address; see Retry-After",
                    ));
                }
                if path.starts_with("/api/v1/hands/") || path.starts_with("/api/v1/scores/") {
                    answers.push((
                        "429",
                        "Too many requests from this address; see Retry-After",
                    ));
                } else {
                    answers.push((
                        "429",
                        "Too many requests with this API token, or from this address without one; see Retry-After and RateLimit-*",
                    ));
                }
                for (status, description) in answers {
                    op.responses
                        .responses
                        .entry(status.to_string())
                        .or_insert_with(|| problem(description).into());
                }
            }
        }
    }
}

/// A response object must have a description (OpenAPI 3.1): where an operation gave none, the
/// status's own words.
fn describe_each(op: &mut utoipa::openapi::path::Operation) {
    for (status, response) in op.responses.responses.iter_mut() {
        if let utoipa::openapi::RefOr::T(r) = response
            && r.description.is_empty()
        {
            r.description = status
                .parse::<u16>()
                .ok()
                .and_then(|s| actix_web::http::StatusCode::from_u16(s).ok())
                .and_then(|s| s.canonical_reason())
                .unwrap_or("The answer")
                .to_string();
        }
    }
}

/// Where the routes are registered: the document's builder (each route's paths and schemas
/// collected, for the API document) or a worker's app (the routes alone: a worker building the
/// document's tree again cost each instance 20 MB at its start).
pub trait Routes {
    fn service<F>(&mut self, factory: F) -> &mut Self
    where
        F: actix_web::dev::HttpServiceFactory + utoipa_actix_web::OpenApiFactory + 'static;
}

impl Routes for ServiceConfig<'_> {
    fn service<F>(&mut self, factory: F) -> &mut Self
    where
        F: actix_web::dev::HttpServiceFactory + utoipa_actix_web::OpenApiFactory + 'static,
    {
        ServiceConfig::service(self, factory)
    }
}

impl Routes for actix_web::web::ServiceConfig {
    fn service<F>(&mut self, factory: F) -> &mut Self
    where
        F: actix_web::dev::HttpServiceFactory + utoipa_actix_web::OpenApiFactory + 'static,
    {
        actix_web::web::ServiceConfig::service(self, factory)
    }
}

/// Registers every documented route. The router tries routes in this order, each a pattern
/// match: the busiest (standings read, game entry) come first.
pub fn configure(cfg: &mut impl Routes) {
    accounts_and_engine(cfg);
    clubs_and_people(cfg);
    cards_and_matches(cfg);
    leagues_and_play(cfg);
}

/// The standings and game entry first (the busiest), health, the engine, accounts.
fn accounts_and_engine(cfg: &mut impl Routes) {
    cfg.service(standings::show)
        .service(games::create)
        .service(health::healthz)
        .service(health::readyz)
        .service(engine::check)
        .service(engine::adjudicate)
        .service(engine::preview)
        .service(accounts::sign_up)
        .service(accounts::log_in)
        .service(accounts::current)
        .service(accounts::log_out)
        .service(accounts::finish_sign_up)
        .service(accounts::ask_reset)
        .service(accounts::reset_password)
        .service(accounts::account)
        .service(accounts::rename)
        .service(accounts::change_password)
        .service(accounts::change_email)
        .service(accounts::confirm_email)
        .service(accounts::undo_email)
        .service(accounts::end_other_sessions)
        .service(accounts::end_session)
        .service(accounts::data)
        .service(accounts::leave)
        .service(accounts::invitation)
        .service(accounts::join)
        .service(accounts::join_new);
}

/// Nights ahead, clubs with their members, tokens and mail, players.
fn clubs_and_people(cfg: &mut impl Routes) {
    cfg.service(ahead::schedule)
        .service(ahead::list)
        .service(ahead::show)
        .service(ahead::reply)
        .service(ahead::reply_signed)
        .service(ahead::start)
        .service(ahead::cancel)
        .service(ahead::calendar)
        .service(clubs::create)
        .service(clubs::show)
        .service(clubs::update)
        .service(clubs::members)
        .service(clubs::set_member)
        .service(clubs::remove_member)
        .service(clubs::invitations)
        .service(clubs::revoke_invitation)
        .service(clubs::send_invitation_again)
        .service(clubs::mail_log)
        .service(clubs::list_tokens)
        .service(clubs::create_token)
        .service(clubs::revoke_token)
        .service(clubs::origins)
        .service(clubs::set_origins)
        .service(players::list)
        .service(players::create)
        .service(players::update)
        .service(players::invite)
        .service(players::stats);
}

/// Cards, the card editor, open play's matches.
fn cards_and_matches(cfg: &mut impl Routes) {
    cfg.service(cards::list_public)
        .service(cards::show)
        .service(cards::line_targets)
        .service(cards::list_for_club)
        .service(cards::upload)
        .service(card_drafts::check_line)
        .service(card_drafts::source)
        .service(card_drafts::list)
        .service(card_drafts::start)
        .service(card_drafts::show)
        .service(card_drafts::save)
        .service(card_drafts::remove)
        .service(card_drafts::paste)
        .service(card_drafts::try_hand)
        .service(card_drafts::publish)
        .service(matches::create)
        .service(matches::list)
        .service(matches::show)
        .service(matches::join)
        .service(matches::accept)
        .service(matches::leave)
        .service(matches::cancel)
        .service(matches::remove)
        .service(matches::checks)
        .service(matches::confirm)
        .service(matches::dispute)
        .service(matches::settle);
}

/// Leagues, nights, games with their feeds and webhooks, exports and imports.
fn leagues_and_play(cfg: &mut impl Routes) {
    cfg.service(leagues::list)
        .service(leagues::discover)
        .service(leagues::create)
        .service(leagues::show)
        .service(leagues::update)
        .service(leagues::next_season)
        .service(nights::create)
        .service(nights::list)
        .service(nights::show)
        .service(nights::check_in)
        .service(nights::check_out)
        .service(nights::propose)
        .service(nights::lock)
        .service(nights::close)
        .service(nights::reopen)
        .service(nights::status)
        .service(nights::timer)
        .service(nights::seats)
        .service(games::show)
        .service(games::amend)
        .service(games::void)
        .service(games::audit)
        .service(games::league_games)
        .service(games::night_games)
        .service(events::stream)
        .service(events::table_stream)
        .service(webhooks::create)
        .service(webhooks::list)
        .service(webhooks::remove)
        .service(webhooks::resume)
        .service(webhooks::test)
        .service(webhooks::deliveries)
        .service(standings::standings_csv)
        .service(standings::games_csv)
        .service(standings::results)
        .service(standings::results_csv)
        .service(standings::player_season)
        .service(standings::league_season)
        .service(imports::import_games)
        .service(imports::balances)
        .service(imports::set_balances);
}

/// A 200 answer for a page of a list: with a `Link: <…>; rel="next"` header (the request's own
/// path and query, its `cursor` replaced by `next`) when there is a next page.
pub fn paged(req: &actix_web::HttpRequest, next: Option<&str>) -> actix_web::HttpResponseBuilder {
    let mut res = actix_web::HttpResponse::Ok();
    if let Some(next) = next {
        let kept = url::form_urlencoded::parse(req.query_string().as_bytes())
            .filter(|(k, _)| k != "cursor")
            .collect::<Vec<_>>();
        let query = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(kept)
            .append_pair("cursor", next)
            .finish();
        res.insert_header((
            actix_web::http::header::LINK,
            format!("<{}?{query}>; rel=\"next\"", req.path()),
        ));
    }
    res
}

/// Whether `If-None-Match` names one of `tags` (or `*`): compared weakly, as RFC 9110 says for
/// this header, so `W/"…"` matches too.
pub fn none_match(req: &actix_web::HttpRequest, tags: &[&str]) -> bool {
    req.headers()
        .get(actix_web::http::header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(',')
                .map(|t| t.trim().trim_start_matches("W/"))
                .any(|t| t == "*" || tags.contains(&t))
        })
}

/// `body` as JSON with an `ETag` (a hash of its bytes): an app sending that tag back in
/// `If-None-Match` gets 304 and no body while nothing changed. `res` may carry other headers
/// (a page's `Link`).
pub fn tagged_json(
    req: &actix_web::HttpRequest,
    mut res: actix_web::HttpResponseBuilder,
    body: &impl serde::Serialize,
) -> Result<actix_web::HttpResponse, crate::error::AppError> {
    use actix_web::http::header::ETAG;
    let bytes = serde_json::to_vec(body).map_err(crate::domain::Error::internal)?;
    let tag = crate::domain::seasons::standings::entity_tag(&bytes);
    if none_match(req, &[&tag]) {
        return Ok(actix_web::HttpResponse::NotModified()
            .insert_header((ETAG, tag))
            .finish());
    }
    Ok(res
        .insert_header((ETAG, tag))
        .content_type("application/json")
        .body(bytes))
}

/// The OpenAPI document, as served at `/api/openapi.json` and committed in `openapi/openapi.json`.
pub fn openapi() -> utoipa::openapi::OpenApi {
    use utoipa_actix_web::AppExt;
    let (_, doc) = actix_web::App::new()
        .into_utoipa_app()
        .openapi(ApiDoc::openapi())
        .configure(|cfg| configure(cfg))
        .split_for_parts();
    finish(doc)
}

/// The document once every route is registered: the answers common to every operation added.
pub fn finish(mut doc: utoipa::openapi::OpenApi) -> utoipa::openapi::OpenApi {
    use utoipa::Modify;
    CommonAnswers.modify(&mut doc);
    let mut v = serde_json::to_value(&doc).expect("the document serialises");
    text_rules(&mut v);
    security_and_headers(&mut v);
    serde_json::from_value(v).expect("the document reads back")
}

/// Operations that send an `ETag`, and those paged with `Link: <…>; rel="next"`.
const TAGGED: &[(&str, &str)] = &[
    ("get", "/api/v1/leagues/{league}"),
    ("get", "/api/v1/leagues/{league}/standings"),
    ("get", "/api/v1/leagues/{league}/season"),
    ("get", "/api/v1/leagues/{league}/players/{player}/season"),
    ("get", "/api/v1/leagues/{league}/games"),
    ("get", "/api/v1/nights/{night}/games"),
    ("get", "/api/v1/games/{game}"),
    ("put", "/api/v1/games/{game}"),
    ("post", "/api/v1/games/{game}/void"),
    ("post", "/api/v1/tables/{table}/games"),
];
const PAGED: &[&str] = &[
    "/api/v1/leagues",
    "/api/v1/leagues/{league}/games",
    "/api/v1/nights/{night}/games",
    "/api/v1/leagues/{league}/schedule",
    "/api/v1/clubs/{club}/card-drafts",
    "/api/v1/cards",
    "/api/v1/clubs/{club}/cards",
    "/api/v1/clubs/{club}/members",
    "/api/v1/clubs/{club}/invitations",
    "/api/v1/clubs/{club}/tokens",
    "/api/v1/clubs/{club}/mail",
    "/api/v1/games/{game}/audit",
    "/api/v1/leagues/{league}/opening-balances",
    "/api/v1/leagues/{league}/matches",
    "/api/v1/leagues/{league}/nights",
    "/api/v1/nights/{night}/seats",
    "/api/v1/clubs/{club}/players",
    "/api/v1/clubs/{club}/webhooks",
    "/api/v1/clubs/{club}/leagues",
];

/// Says in the document how callers prove who they are (an API token, a session cookie, a
/// table code's cookie; none for public reads) and the headers apps read: `RateLimit-*` on
/// every API answer, `Retry-After` on a 429 or 503, `ETag` and `Link` where they are sent.
fn security_and_headers(v: &mut serde_json::Value) {
    use serde_json::{Value, json};
    let header =
        |description: &str, schema: Value| json!({"description": description, "schema": schema});
    v["components"]["securitySchemes"] = json!({
        "bearer": {"type": "http", "scheme": "bearer",
                   "description": "A club's API token (`mlt_…`), made on the club's tokens page or with POST /api/v1/clubs/{club}/tokens"},
        "session": {"type": "apiKey", "in": "cookie", "name": crate::http::SESSION_COOKIE,
                    "description": "A logged-in account's session (POST /api/v1/session); writes with it also need the page's CSRF check or no Origin"},
        "tableCode": {"type": "apiKey", "in": "cookie", "name": crate::http::TABLE_COOKIE,
                      "description": "A table code entered at /code: scores that one table"}
    });
    // Public reads need nothing: `{}` says a request may come without credentials.
    v["security"] = json!([{}, {"bearer": []}, {"session": []}, {"tableCode": []}]);
    v["components"]["headers"] = json!({
        "RateLimit-Limit": header("Requests a minute this caller may send (the engine's endpoints: requests at once)", json!({"type": "integer"})),
        "RateLimit-Remaining": header("Requests this caller may still send at once", json!({"type": "integer"})),
        "RateLimit-Reset": header("Seconds until the whole limit is back; with none remaining, until the next request is let through (then equal to Retry-After)", json!({"type": "integer"})),
        "Retry-After": header("Seconds to wait before trying again", json!({"type": "integer"})),
        "ETag": header("The answer's entity tag: send it back as If-None-Match (304 while nothing changed) or, for a game, as If-Match to amend it", json!({"type": "string"})),
        "Link": header("The next page: `<url>; rel=\"next\"` (absent on the last page)", json!({"type": "string"}))
    });
    let reference = |name: &str| json!({"$ref": format!("#/components/headers/{name}")});
    let Some(Value::Object(paths)) = v.get_mut("paths") else {
        return;
    };
    for (path, item) in paths.iter_mut() {
        if !path.starts_with("/api/v1/") {
            continue;
        }
        let Value::Object(item) = item else { continue };
        for (method, op) in item.iter_mut() {
            let Some(Value::Object(responses)) = op.get_mut("responses") else {
                continue;
            };
            let tagged = TAGGED.contains(&(method.as_str(), path.as_str()));
            let paged = method == "get" && PAGED.contains(&path.as_str());
            for (status, response) in responses.iter_mut() {
                let Value::Object(response) = response else {
                    continue;
                };
                let headers = response.entry("headers").or_insert_with(|| json!({}));
                for name in ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"] {
                    headers[name] = reference(name);
                }
                if status == "429" || status == "503" {
                    headers["Retry-After"] = reference("Retry-After");
                }
                let ok = status.starts_with('2') || status == "304";
                if tagged && ok {
                    headers["ETag"] = reference("ETag");
                }
                if paged && status == "200" {
                    headers["Link"] = reference("Link");
                }
            }
        }
    }
}

/// What every request's text obeys, said in the document where the derive cannot: a string in a
/// JSON body holds no NUL character (`json::ValidJson` refuses one: PostgreSQL text cannot hold
/// it), and a header is a string, never `null` (an optional header is one not sent).
fn text_rules(v: &mut serde_json::Value) {
    use serde_json::Value;
    /// Adds the no-NUL pattern to every free-text string schema under `v`.
    fn no_nul(v: &mut Value) {
        match v {
            Value::Object(map) => {
                let is_string = match map.get("type") {
                    Some(Value::String(t)) => t == "string",
                    Some(Value::Array(ts)) => ts.iter().any(|t| t == "string"),
                    _ => false,
                };
                let free = !["enum", "pattern", "format", "const"]
                    .iter()
                    .any(|k| map.contains_key(*k));
                if is_string && free {
                    map.insert("pattern".into(), Value::from(json::NO_NUL_PATTERN));
                }
                map.values_mut().for_each(no_nul);
            }
            Value::Array(items) => items.iter_mut().for_each(no_nul),
            _ => {}
        }
    }
    if let Some(schemas) = v.pointer_mut("/components/schemas") {
        no_nul(schemas);
    }
    if let Some(Value::Object(paths)) = v.get_mut("paths") {
        for item in paths.values_mut() {
            let Value::Object(item) = item else { continue };
            for op in item.values_mut() {
                if let Some(body) = op.get_mut("requestBody") {
                    no_nul(body);
                }
                let Some(Value::Array(params)) = op.get_mut("parameters") else {
                    continue;
                };
                for p in params.iter_mut().filter(|p| p["in"] == "header") {
                    if let Some(Value::Array(types)) = p.pointer_mut("/schema/type") {
                        types.retain(|t| t != "null");
                        if let [one] = types.as_slice() {
                            let one = one.clone();
                            p["schema"]["type"] = one;
                        }
                    }
                }
            }
        }
    }
}

/// The methods the API serves on `path` (`/api/v1/clubs/x` → GET), from its own document; `None`
/// when no API route has that path. The answer to any other method there is 405 with `Allow`.
pub fn allowed_methods(path: &str) -> Option<String> {
    use std::sync::OnceLock;
    static ROUTES: OnceLock<Vec<(Vec<String>, Vec<&'static str>)>> = OnceLock::new();
    let routes = ROUTES.get_or_init(|| {
        openapi()
            .paths
            .paths
            .iter()
            .map(|(pattern, item)| {
                let segments = pattern.split('/').map(str::to_string).collect();
                let methods = [
                    ("GET", item.get.is_some()),
                    // `http::head` answers HEAD as GET on the API.
                    ("HEAD", item.get.is_some() && pattern.starts_with("/api/")),
                    ("POST", item.post.is_some()),
                    ("PUT", item.put.is_some()),
                    ("PATCH", item.patch.is_some()),
                    ("DELETE", item.delete.is_some()),
                ]
                .into_iter()
                .filter_map(|(m, has)| has.then_some(m))
                .collect();
                (segments, methods)
            })
            .collect()
    });
    let parts: Vec<&str> = path.split('/').collect();
    let mut allowed: Vec<&str> = routes
        .iter()
        .filter(|(segments, _)| {
            segments.len() == parts.len()
                && segments
                    .iter()
                    .zip(&parts)
                    .all(|(s, p)| (s.starts_with('{') && !p.is_empty()) || s == p)
        })
        .flat_map(|(_, methods)| methods.iter().copied())
        .collect();
    allowed.sort_unstable();
    allowed.dedup();
    (!allowed.is_empty()).then(|| allowed.join(", "))
}
