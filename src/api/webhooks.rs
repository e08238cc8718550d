//! A club's webhooks (organizers): register, list, remove, resume, and the delivery log.

use actix_web::HttpRequest;
use actix_web::{HttpResponse, delete, get, post, web};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::api::json::ValidJson;
use crate::domain::play::webhooks::{self, CreatedWebhook, Delivery, NewWebhook, WebhookInfo};
use crate::domain::{AppState, Caller};
use crate::error::AppError;

crate::api::listed!(WebhookList, webhooks, WebhookInfo);

/// Register a webhook (owners and organizers): every event of the club's leagues
/// (`game.recorded`, `game.amended`, `game.voided`, `night.closed`, `night.reopened`,
/// `standings.changed`; in open play `match.opened`, `match.locked`, `match.changed`,
/// `game.confirmed`, `game.disputed`) is
/// POSTed to the URL as JSON (an `EventView`), with the headers `Mahjong-Event-Id`,
/// `Mahjong-Event-Type` and `Mahjong-Signature: t=<unix seconds>,v1=<hex>`, where the hex is
/// HMAC-SHA256 with the secret over `<t>.<raw body>`. A 2xx answer within 10 s delivers it;
/// anything else is retried, backing off from 2 s to an hour, in event order. Delivery is at
/// least once: de-duplicate on the event id. A URL failing for a day is paused until resumed.
/// The secret is in this answer only.
#[utoipa::path(operation_id = "create_webhook", tag = "webhooks", params(("club" = String, Path, example = "tuesday-tiles")), request_body = NewWebhook,
    responses((status = 201, body = CreatedWebhook)))]
#[post("/api/v1/clubs/{club}/webhooks")]
pub async fn create(
    state: web::Data<AppState>,
    caller: Caller,
    club: web::Path<String>,
    body: ValidJson<NewWebhook>,
) -> Result<HttpResponse, AppError> {
    let created = webhooks::create(&state, &caller, &club, body.0).await?;
    Ok(HttpResponse::Created().json(created))
}

/// The club's webhooks and how their deliveries stand (never their secrets).
#[utoipa::path(operation_id = "list_webhooks", tag = "webhooks", params(("club" = String, Path, example = "tuesday-tiles"), crate::api::PageParams),
    responses((status = 200, body = WebhookList)))]
#[get("/api/v1/clubs/{club}/webhooks")]
pub async fn list(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    club: web::Path<String>,
    page: web::Query<crate::api::PageParams>,
) -> Result<HttpResponse, AppError> {
    let items = webhooks::list(&state, &caller, &club).await?;
    WebhookList::page(&state, &req, items, &page, |_, w| w.id)
}

/// Remove a webhook: nothing more is sent to it.
#[utoipa::path(tag = "webhooks", params(("club" = String, Path, example = "tuesday-tiles"), ("webhook" = i64, Path, minimum = 1, example = 1)),
    responses((status = 204, description = "Removed")))]
#[delete("/api/v1/clubs/{club}/webhooks/{webhook}")]
pub async fn remove(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(String, i64)>,
) -> Result<HttpResponse, AppError> {
    let (club, id) = path.into_inner();
    webhooks::delete(&state, &caller, &club, id).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Resume a paused webhook: the events kept meanwhile are sent now, in order.
#[utoipa::path(tag = "webhooks", params(("club" = String, Path, example = "tuesday-tiles"), ("webhook" = i64, Path, minimum = 1, example = 1)),
    responses((status = 200, body = WebhookInfo)))]
#[post("/api/v1/clubs/{club}/webhooks/{webhook}/resume")]
pub async fn resume(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(String, i64)>,
) -> Result<HttpResponse, AppError> {
    let (club, id) = path.into_inner();
    Ok(HttpResponse::Ok().json(webhooks::resume(&state, &caller, &club, id).await?))
}

/// Send a test event (`webhook.test`, id 0) to the webhook now, signed with its secret as
/// every delivery is, and answer what the receiver said. Nothing is stored or retried: develop a
/// receiver against it, then watch the delivery log for real events.
#[utoipa::path(operation_id = "test_webhook", tag = "webhooks", params(("club" = String, Path, example = "tuesday-tiles"), ("webhook" = i64, Path, minimum = 1, example = 1)),
    responses((status = 200, body = webhooks::TestDelivery, description = "Sent: `delivered` says whether the receiver answered 2xx")))]
#[post("/api/v1/clubs/{club}/webhooks/{webhook}/test")]
pub async fn test(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(String, i64)>,
) -> Result<HttpResponse, AppError> {
    let (club, id) = path.into_inner();
    Ok(HttpResponse::Ok().json(webhooks::send_test(&state, &caller, &club, id).await?))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LogQuery {
    /// How many deliveries, newest first (1 to 200; 50 when not given).
    #[param(minimum = 1, maximum = 200, example = 50)]
    limit: Option<i64>,
}

#[derive(Serialize, ToSchema)]
pub struct DeliveryLog {
    pub webhook: WebhookInfo,
    pub deliveries: Vec<Delivery>,
}

/// The webhook's delivery log, newest first: each event, its attempts and the last answer.
#[utoipa::path(tag = "webhooks", params(("club" = String, Path, example = "tuesday-tiles"), ("webhook" = i64, Path, minimum = 1, example = 1), LogQuery),
    responses((status = 200, body = DeliveryLog)))]
#[get("/api/v1/clubs/{club}/webhooks/{webhook}/deliveries")]
pub async fn deliveries(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(String, i64)>,
    query: web::Query<LogQuery>,
) -> Result<HttpResponse, AppError> {
    let (club, id) = path.into_inner();
    let (webhook, deliveries) =
        webhooks::deliveries(&state, &caller, &club, id, query.limit).await?;
    Ok(HttpResponse::Ok().json(DeliveryLog {
        webhook,
        deliveries,
    }))
}
