//! The API's rate limits for apps, as headers an app can watch: every API request sent with an
//! API token counts against that token, every one sent without credentials against its
//! address; each answer says `RateLimit-Limit` (requests a minute), `RateLimit-Remaining` and
//! `RateLimit-Reset` (seconds until the whole limit is back while some remains; with none
//! remaining, seconds until the next request is let through), and a request over the limit is
//! answered 429 with `Retry-After`, equal to `RateLimit-Reset`. Pages (a session or a table code)
//! do not count here. The engine's endpoints (`/hands/…`, `/scores/…`) have a limit of their own,
//! per address whoever calls (120 at once, then 20 a second), told with the same headers.

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderName, HeaderValue};
use actix_web::middleware::Next;

use crate::auth::limits::Allowance;
use crate::domain::Error;
use crate::error::AppError;
use crate::http::{SESSION_COOKIE, TABLE_COOKIE, state_of};

fn counted(path: &str) -> bool {
    path.starts_with("/api/v1/") && !engine(path)
}

/// The stateless engine's endpoints.
fn engine(path: &str) -> bool {
    path.starts_with("/api/v1/hands/")
        || path.starts_with("/api/v1/scores/")
        || path == "/api/v1/lines/check"
}

pub async fn api_rate(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let allowance = if engine(req.path()) {
        let state = state_of(req.request())?;
        match crate::http::client::address(req.request()) {
            Some(ip) => Some(state.limits.engine(ip).await),
            None => None,
        }
    } else if counted(req.path()) {
        let state = state_of(req.request())?;
        let bearer = req
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::trim);
        match bearer {
            Some(token) => state.limits.api_token(token).await,
            None => {
                // A cookie lifts the limit only when it stands for someone: a live session or
                // table code (resolved here once; the handler reuses it).
                let someone = (req.cookie(SESSION_COOKIE).is_some()
                    || req.cookie(TABLE_COOKIE).is_some())
                    && crate::http::caller_of(req.request().clone())
                        .await
                        .is_ok_and(|c| c.0.is_some());
                if someone {
                    None
                } else {
                    match crate::http::client::address(req.request()) {
                        Some(ip) => state.limits.api_address(ip).await,
                        None => None,
                    }
                }
            }
        }
    } else {
        None
    };
    let per = if engine(req.path()) {
        "engine requests at once from one address"
    } else if req.headers().contains_key(header::AUTHORIZATION) {
        "API requests a minute per API token"
    } else {
        "API requests a minute per address"
    };
    let mut res = match allowance {
        Some(Allowance {
            retry_after_secs: Some(wait),
            limit,
            ..
        }) => req.error_response(AppError::from(Error::TooManyRequests {
            detail: format!(
                "too many requests: this service answers {limit} {per}; try again in {wait} s"
            ),
            retry_after_secs: wait,
        })),
        _ => next.call(req).await?.map_into_boxed_body(),
    };
    if let Some(a) = allowance {
        let h = res.headers_mut();
        for (name, value) in [
            ("ratelimit-limit", a.limit as u64),
            ("ratelimit-remaining", a.remaining as u64),
            ("ratelimit-reset", a.reset_secs),
        ] {
            h.insert(HeaderName::from_static(name), HeaderValue::from(value));
        }
    }
    Ok(res)
}
