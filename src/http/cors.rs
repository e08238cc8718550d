//! Cross-origin reads (CORS) for apps and club websites.
//!
//! - Public data read anonymously (`GET`/`HEAD` under `/api/v1/` with no credentials: no
//!   `Authorization`, no session or table-code cookie) answers any origin with
//!   `Access-Control-Allow-Origin: *` and never with credentials. An anonymous caller only ever
//!   sees public data, so nothing private can be read this way.
//! - A request that carries a cookie is never made readable from another origin.
//! - An API token sent from a page of another origin is accepted only when the token's club lists
//!   that origin (`PUT /api/v1/clubs/{club}/origins`); the answer then names that origin (and
//!   `Vary: Origin`). From any other origin the token is refused (403) before it is used.
//! - Preflights (`OPTIONS` with `Access-Control-Request-Method`) are answered here: reads of any
//!   API path for any origin; a request with `Authorization` only for an origin some club lists.

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::{HttpMessage, HttpResponse};

use crate::http::{SESSION_COOKIE, TABLE_COOKIE, state_of};

/// The headers a cross-origin script may read from an answer.
const EXPOSED: &str =
    "ETag, Link, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, X-Request-Id";
/// The request headers a cross-origin read may send.
const READ_HEADERS: &str = "If-None-Match, Last-Event-ID";
/// The request headers a listed origin may send with a token.
const TOKEN_HEADERS: &str =
    "Authorization, Content-Type, Idempotency-Key, If-Match, If-None-Match, Last-Event-ID";
/// How long a browser may keep a preflight's answer.
const MAX_AGE: &str = "600";

/// Put in a request's extensions when its API token's club lists the request's origin.
#[derive(Debug, Clone)]
pub struct ListedOrigin(pub String);

fn is_api(path: &str) -> bool {
    path.starts_with("/api/v1/") || path == "/api/openapi.json"
}

pub async fn cors(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    if !is_api(req.path()) {
        return Ok(next.call(req).await?.map_into_boxed_body());
    }
    let asked_method = req
        .headers()
        .get(header::ACCESS_CONTROL_REQUEST_METHOD)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    if *req.method() == Method::OPTIONS
        && let Some(asked) = asked_method
    {
        let res = preflight(&req, &asked).await;
        return Ok(req.into_response(res));
    }
    let read = matches!(*req.method(), Method::GET | Method::HEAD);
    let anonymous = !req.headers().contains_key(header::AUTHORIZATION)
        && req.cookie(SESSION_COOKIE).is_none()
        && req.cookie(TABLE_COOKIE).is_none();
    let mut res = next.call(req).await?.map_into_boxed_body();
    let listed = res.request().extensions().get::<ListedOrigin>().cloned();
    let h = res.headers_mut();
    if let Some(ListedOrigin(origin)) = listed {
        if let Ok(value) = HeaderValue::from_str(&origin) {
            h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, value);
            h.insert(
                header::ACCESS_CONTROL_EXPOSE_HEADERS,
                HeaderValue::from_static(EXPOSED),
            );
            // One `Vary` line: the handler's own (`Accept-Encoding` on standings) and Origin.
            let vary = match h.get(header::VARY).and_then(|v| v.to_str().ok()) {
                Some(own) if !own.is_empty() => HeaderValue::from_str(&format!("{own}, Origin"))
                    .unwrap_or(HeaderValue::from_static("Origin")),
                _ => HeaderValue::from_static("Origin"),
            };
            h.insert(header::VARY, vary);
        }
    } else if read && anonymous {
        h.insert(
            header::ACCESS_CONTROL_ALLOW_ORIGIN,
            HeaderValue::from_static("*"),
        );
        h.insert(
            header::ACCESS_CONTROL_EXPOSE_HEADERS,
            HeaderValue::from_static(EXPOSED),
        );
    }
    Ok(res)
}

/// The answer to a preflight: 204, with the permission when it is given.
async fn preflight(req: &ServiceRequest, asked: &str) -> HttpResponse {
    let mut res = HttpResponse::build(StatusCode::NO_CONTENT);
    res.insert_header((header::VARY, "Origin"));
    let asked_headers: Vec<String> = req
        .headers()
        .get(header::ACCESS_CONTROL_REQUEST_HEADERS)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .split(',')
        .map(|h| h.trim().to_ascii_lowercase())
        .filter(|h| !h.is_empty())
        .collect();
    let wants_token = asked_headers.iter().any(|h| h == "authorization");
    let origin = req
        .headers()
        .get(header::ORIGIN)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let reads = matches!(asked, "GET" | "HEAD");
    if !wants_token {
        let plain = ["if-none-match", "last-event-id"];
        if reads && asked_headers.iter().all(|h| plain.contains(&h.as_str())) {
            res.insert_header((header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"))
                .insert_header((header::ACCESS_CONTROL_ALLOW_METHODS, "GET, HEAD"))
                .insert_header((header::ACCESS_CONTROL_ALLOW_HEADERS, READ_HEADERS))
                .insert_header((header::ACCESS_CONTROL_MAX_AGE, MAX_AGE));
        }
        return res.finish();
    }
    // A token from a browser: only for an origin a club lists (which club, the preflight does
    // not say; the request itself is checked against its token's club).
    let listed = match state_of(req.request()) {
        Ok(state) => crate::domain::people::clubs::origin_listed(&state, &origin)
            .await
            .unwrap_or(false),
        Err(_) => false,
    };
    if listed && let Ok(value) = HeaderValue::from_str(&origin) {
        res.insert_header((header::ACCESS_CONTROL_ALLOW_ORIGIN, value))
            .insert_header((
                header::ACCESS_CONTROL_ALLOW_METHODS,
                "GET, HEAD, POST, PUT, PATCH, DELETE",
            ))
            .insert_header((header::ACCESS_CONTROL_ALLOW_HEADERS, TOKEN_HEADERS))
            .insert_header((header::ACCESS_CONTROL_MAX_AGE, MAX_AGE));
    }
    res.finish()
}
