//! The league's events as a Server-Sent Events stream.

use std::time::Duration;

use actix_web::http::header::{CACHE_CONTROL, HeaderName};
use actix_web::{HttpRequest, HttpResponse, get, web};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::domain::play::events::{self, Next, Opened};
use crate::domain::{AppState, Caller};
use crate::error::AppError;

/// How long a quiet stream waits before a keep-alive comment.
const KEEP_ALIVE: Duration = Duration::from_secs(15);
/// How long one stream lasts. The client reconnects with `Last-Event-ID` (browsers do it by
/// themselves) and its access is checked again.
const LIFETIME: Duration = Duration::from_secs(300);
/// What the stream asks a client to wait before reconnecting, in milliseconds.
const RETRY_MS: u64 = 1500;

/// One event of the stream as `text/event-stream` carries it (what an OpenAPI 3.2 `itemSchema`
/// says of a stream: each event's fields).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct EventFrame {
    /// The event's id, increasing within the league: send it back as `Last-Event-ID`.
    #[schema(example = "42", pattern = "^[0-9]+$")]
    id: String,
    /// The event's type: game.recorded, game.amended, game.voided, night.closed,
    /// night.reopened, standings.changed; in open play match.opened, match.locked,
    /// match.changed, game.confirmed and game.disputed.
    #[schema(
        example = "game.recorded",
        pattern = "^(game\\.(recorded|amended|voided|confirmed|disputed)|night\\.(closed|reopened)|standings\\.changed|match\\.(opened|locked|changed))$"
    )]
    event: String,
    /// The event as JSON: an `EventView` (its `type` is the frame's `event`).
    #[schema(
        example = "{\"id\":42,\"type\":\"standings.changed\",\"league\":1,\"at\":\"2026-11-24T19:00:00Z\",\"data\":{\"revision\":7}}"
    )]
    data: String,
    /// How long a client waits before reconnecting, in milliseconds.
    retry: Option<u64>,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct EventsQuery {
    /// Resume after this event, as `Last-Event-ID` does (for a first connection, which cannot
    /// send the header from a browser). The header wins when both are sent.
    #[param(minimum = 0, example = 0)]
    last_event_id: Option<i64>,
}

/// The league's events as they happen: `game.recorded`, `game.amended`, `game.voided`,
/// `night.closed`, `night.reopened` and `standings.changed` (and in open play `match.opened`,
/// `match.locked`, `match.changed`, `game.confirmed` and `game.disputed`), as a Server-Sent Events stream (`text/event-stream`).
/// Each event has `id:` (increasing within the league), `event:` (its type) and `data:` (an
/// `EventView` as JSON). A client that reconnects with `Last-Event-ID` (or `?last_event_id=`)
/// gets every event after that id first; without one the stream starts at the next event. A
/// comment line keeps a quiet stream open every 15 s; the server ends a stream after 5 minutes
/// and the client reconnects. Public leagues are readable by anyone, others with a session or
/// a token of the club. 503 with `Retry-After` when the server has too many streams open or is
/// stopping (a stream open then ends at once), 429 when the caller's address holds as many as
/// one address may (`--streams-per-address`).
#[utoipa::path(tag = "standings",
    params(("league" = i64, Path, minimum = 1, example = 1), EventsQuery,
           ("Last-Event-ID" = Option<String>, Header, pattern = "^[0-9]{0,18}$", description = "The id of the last event received (empty: as if not sent)")),
    responses((status = 200, content_type = "text/event-stream", body = EventFrame,
               description = "A stream of events: each event's `id`, `event` (its type) and `data` (an EventView as JSON)")))]
#[get("/api/v1/leagues/{league}/events")]
pub async fn stream(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    id: web::Path<i64>,
    query: web::Query<EventsQuery>,
) -> Result<HttpResponse, AppError> {
    let resume = resume_from(&req, &query)?;
    let opened = events::open(
        &state,
        &caller,
        *id,
        resume.as_deref(),
        crate::http::peer(&req),
    )
    .await?;
    Ok(sse(opened, state, format!("events of league {}", *id)))
}

/// The events of one table as its scoring screens follow it: `game.recorded`, `game.amended`
/// and `game.voided` for the table's games, `night.closed` and `night.reopened` for its night,
/// framed as on the league's stream (`Last-Event-ID` resumes). Whoever may enter games at the
/// table may follow it: its club's scorers and organizers, a token with `score`, and the holder
/// of the table's code (on a members-only league too). 404 naming the table otherwise.
#[utoipa::path(tag = "games",
    params(("table" = i64, Path, minimum = 1, example = 1), EventsQuery,
           ("Last-Event-ID" = Option<String>, Header, pattern = "^[0-9]{0,18}$", description = "The id of the last event received (empty: as if not sent)")),
    responses((status = 200, content_type = "text/event-stream", body = EventFrame,
               description = "A stream of the table's events: each event's `id`, `event` (its type) and `data` (an EventView as JSON)")))]
#[get("/api/v1/tables/{table}/events")]
pub async fn table_stream(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    id: web::Path<i64>,
    query: web::Query<EventsQuery>,
) -> Result<HttpResponse, AppError> {
    let resume = resume_from(&req, &query)?;
    let opened = events::open_table(
        &state,
        &caller,
        *id,
        resume.as_deref(),
        crate::http::peer(&req),
    )
    .await?;
    Ok(sse(opened, state, format!("events of table {}", *id)))
}

/// Where a stream resumes: `Last-Event-ID`, else `?last_event_id=` (checked).
fn resume_from(req: &HttpRequest, query: &EventsQuery) -> Result<Option<String>, AppError> {
    if let Some(n) = query.last_event_id
        && n < 0
    {
        return Err(crate::domain::Error::invalid(
            "last_event_id",
            format!("{n} is not an event id; send the id of the last event you received"),
        )
        .into());
    }
    let header = req
        .headers()
        .get("last-event-id")
        .map(|v| v.to_str().unwrap_or("?").to_string());
    Ok(header.or_else(|| query.last_event_id.map(|n| n.to_string())))
}

/// An open stream as `text/event-stream`: the retry hint, then events as they come, a comment
/// when quiet, ended after `LIFETIME` (the client reconnects and is checked again).
fn sse(opened: Opened, state: web::Data<AppState>, intro: String) -> HttpResponse {
    let ends = tokio::time::Instant::now() + LIFETIME;
    let first = web::Bytes::from(format!("retry: {RETRY_MS}\n: {intro}\n\n"));
    let body = futures_util::stream::unfold(
        (Some(first), opened, state),
        move |(first, mut opened, state): (_, Opened, _)| async move {
            if let Some(bytes) = first {
                return Some((Ok::<_, actix_web::Error>(bytes), (None, opened, state)));
            }
            let left = ends.saturating_duration_since(tokio::time::Instant::now());
            if left.is_zero() {
                return None;
            }
            let chunk = match opened.next(&state, KEEP_ALIVE.min(left)).await {
                Ok(Next::Events(list)) if list.is_empty() => ": catching up\n\n".to_string(),
                Ok(Next::Events(list)) => list.iter().map(|e| events::frame(e)).collect::<String>(),
                Ok(Next::KeepAlive) => ": keep-alive\n\n".to_string(),
                Ok(Next::End) => return None,
                Err(e) => {
                    // The database went away: the client reconnects and resumes from its last id.
                    tracing::warn!(error = %e, "an event stream ended early");
                    return None;
                }
            };
            Some((Ok(web::Bytes::from(chunk)), (None, opened, state)))
        },
    );
    HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header((CACHE_CONTROL, "no-cache"))
        .insert_header((HeaderName::from_static("x-accel-buffering"), "no"))
        .streaming(body)
}
