//! Nights ahead: schedule a league's nights, reply coming / not coming / maybe, start check-in
//! from the replies, cancel, and the league's iCalendar feed.

use actix_web::HttpRequest;
use actix_web::{HttpResponse, delete, get, post, put, web};
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use crate::api::json::ValidJson;
use crate::domain::play::ahead::{self, Answer, NewScheduledNight, ScheduledView, Started};
use crate::domain::{AppState, Caller, Error};
use crate::error::AppError;

crate::api::listed!(ScheduledList, scheduled_nights, ScheduledView);

/// A reply.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplyBody {
    pub answer: Answer,
}

/// Schedule a night of the league (organizers). Every member of the club who takes the league's
/// mail is asked to reply, with one-tap links.
#[utoipa::path(tag = "nights", params(("league" = i64, Path, minimum = 1, example = 1)), request_body = NewScheduledNight,
    responses((status = 201, body = ScheduledView), (status = 404, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 422, body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/leagues/{league}/schedule")]
pub async fn schedule(
    state: web::Data<AppState>,
    caller: Caller,
    league: web::Path<i64>,
    body: ValidJson<NewScheduledNight>,
) -> Result<HttpResponse, AppError> {
    let made = ahead::schedule(&state, &caller, *league, body.0).await?;
    Ok(HttpResponse::Created().json(made))
}

/// The league's scheduled nights from today on, with the replies' counts (and, for members of
/// the club, who replied what).
#[utoipa::path(operation_id = "list_scheduled_nights", tag = "nights", params(("league" = i64, Path, minimum = 1, example = 1), crate::api::PageParams),
    responses((status = 200, body = ScheduledList), (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[get("/api/v1/leagues/{league}/schedule")]
pub async fn list(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    league: web::Path<i64>,
    page: web::Query<crate::api::PageParams>,
) -> Result<HttpResponse, AppError> {
    let items = ahead::list(&state, &caller, *league).await?;
    ScheduledList::page(&state, &req, items, &page, |_, s| s.id)
}

/// A scheduled night.
#[utoipa::path(operation_id = "show_scheduled_night", tag = "nights", params(("id" = i64, Path, minimum = 1, example = 1)),
    responses((status = 200, body = ScheduledView), (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[get("/api/v1/scheduled-nights/{id}")]
pub async fn show(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok().json(ahead::show(&state, &caller, *id).await?))
}

/// Your reply (a logged-in member of the club). Saying coming when the seats are taken puts you
/// on the waiting list; a seat freed goes to the first waiting, who gets a mail.
#[utoipa::path(tag = "nights", params(("id" = i64, Path, minimum = 1, example = 1)), request_body = ReplyBody,
    responses((status = 200, body = ScheduledView), (status = 403, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 404, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 409, description = "Cancelled, or check-in has started", body = crate::error::Problem, content_type = "application/problem+json")))]
#[put("/api/v1/scheduled-nights/{id}/reply")]
pub async fn reply(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
    body: ValidJson<ReplyBody>,
) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok().json(ahead::reply(&state, &caller, *id, body.0.answer).await?))
}

/// A reply through the signed link of a member's mail (no login).
#[utoipa::path(tag = "nights",
    params(("id" = i64, Path, minimum = 1, example = 1),
           ("token" = String, Path, max_length = 100, description = "The member and signature from the mailed link")),
    request_body = ReplyBody,
    responses((status = 200, body = ScheduledView), (status = 404, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 409, description = "Cancelled, or check-in has started", body = crate::error::Problem, content_type = "application/problem+json")))]
#[put("/api/v1/scheduled-nights/{id}/replies/{token}")]
pub async fn reply_signed(
    state: web::Data<AppState>,
    path: web::Path<(i64, String)>,
    body: ValidJson<ReplyBody>,
) -> Result<HttpResponse, AppError> {
    let (id, token) = path.into_inner();
    Ok(HttpResponse::Ok().json(ahead::reply_signed(&state, id, &token, body.0.answer).await?))
}

/// Start check-in (organizers): makes the league's night and checks in everyone coming with a
/// seat whose account is one of the club's players.
#[utoipa::path(tag = "nights", params(("id" = i64, Path, minimum = 1, example = 1)),
    responses((status = 201, body = Started), (status = 404, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 409, description = "Cancelled, or started already", body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/scheduled-nights/{id}/start")]
pub async fn start(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let mut res = HttpResponse::Created().json(ahead::start(&state, &caller, *id).await?);
    crate::api::retiring::mark(&mut res, &crate::api::retiring::STARTED_WITHOUT_PLAYER);
    Ok(res)
}

/// Cancel a scheduled night (organizers); everyone who said coming or maybe gets a mail.
#[utoipa::path(tag = "nights", params(("id" = i64, Path, minimum = 1, example = 1)),
    responses((status = 204), (status = 404, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 409, description = "Cancelled already, or check-in has started", body = crate::error::Problem, content_type = "application/problem+json")))]
#[delete("/api/v1/scheduled-nights/{id}")]
pub async fn cancel(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    ahead::cancel(&state, &caller, *id).await?;
    Ok(HttpResponse::NoContent().finish())
}

#[derive(Deserialize, IntoParams)]
pub struct CalendarQuery {
    /// A member's private key to a members-only league's feed (on the league's page).
    #[param(max_length = 100)]
    pub key: Option<String>,
}

/// The league's scheduled nights as an iCalendar feed (RFC 5545), for phone calendars. A public
/// league's feed is public; a members-only league's needs a member's `key`.
#[utoipa::path(tag = "nights", params(("league" = i64, Path, minimum = 1, example = 1), CalendarQuery),
    responses((status = 200, content_type = "text/calendar", body = String),
              (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[get("/api/v1/leagues/{league}/calendar.ics")]
pub async fn calendar(
    state: web::Data<AppState>,
    caller: Caller,
    league: web::Path<i64>,
    q: web::Query<CalendarQuery>,
) -> Result<HttpResponse, AppError> {
    if q.key.as_ref().is_some_and(|k| k.chars().count() > 100) {
        return Err(Error::invalid(
            "key",
            "a calendar key has at most 100 characters: copy the link from the league's page",
        )
        .into());
    }
    let body = ahead::calendar(&state, &caller, *league, q.key.as_deref()).await?;
    Ok(HttpResponse::Ok()
        .content_type("text/calendar; charset=utf-8")
        .insert_header(("Cache-Control", "private, max-age=300"))
        .body(body))
}
