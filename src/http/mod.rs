//! What the two adapters (`api`, `pages`) share about HTTP: the caller of a request, the
//! session cookie, and the site-wide security headers (`security`).

pub mod client;
pub mod cors;
pub mod head;
pub mod metrics;
pub mod rate;
pub mod security;

use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;

use actix_web::cookie::{Cookie, SameSite, time::Duration as CookieDuration};
use actix_web::http::header::AUTHORIZATION;
use actix_web::{FromRequest, HttpMessage, HttpRequest, web};

use crate::domain::access::{Credentials, identify};
use crate::domain::{AppState, Caller, Error, people::accounts, play::codes};
use crate::error::AppError;

/// Largest request body accepted (a card file is the biggest thing anyone sends).
pub const BODY_LIMIT: usize = 256 * 1024;

/// Reads a request's body (JSON or a form), mapping a too-large body to 413.
pub async fn body(
    req: &HttpRequest,
    payload: &mut actix_web::dev::Payload,
) -> Result<web::Bytes, AppError> {
    web::Bytes::from_request(req, payload).await.map_err(|e| {
        if e.as_response_error().status_code() == actix_web::http::StatusCode::PAYLOAD_TOO_LARGE {
            AppError::TooLarge(format!(
                "the body is larger than the limit of {BODY_LIMIT} bytes"
            ))
        } else {
            AppError::bad_request(format!("the body could not be read: {e}"))
        }
    })
}

/// Name of the session cookie.
pub const SESSION_COOKIE: &str = "ml_session";

/// The shared state, from the app's data.
pub fn state_of(req: &HttpRequest) -> Result<web::Data<AppState>, AppError> {
    req.app_data::<web::Data<AppState>>()
        .cloned()
        .ok_or_else(|| AppError::internal("application state missing"))
}

/// The client the request came from (the proxy's word for it with `--trust-proxy`; see
/// `client`).
/// What the browser says it is (`User-Agent`), to tell a person's sessions apart.
pub fn user_agent(req: &HttpRequest) -> Option<&str> {
    req.headers()
        .get(actix_web::http::header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
}

pub fn peer(req: &HttpRequest) -> Option<IpAddr> {
    client::address(req)
}

/// The session token the browser sent, if any.
pub fn session_token(req: &HttpRequest) -> Option<String> {
    req.cookie(SESSION_COOKIE).map(|c| c.value().to_string())
}

/// The caller as already resolved for this request (by the API's rate limit, which must know
/// whether a cookie stands for someone before counting the request).
#[derive(Clone)]
struct Resolved(Caller);

/// Who sent the request: a bearer token wins over the session cookie. Resolved once per request.
pub async fn caller_of(req: HttpRequest) -> Result<Caller, AppError> {
    if let Some(Resolved(caller)) = req.extensions().get::<Resolved>() {
        return Ok(caller.clone());
    }
    let caller = resolve(&req).await?;
    req.extensions_mut().insert(Resolved(caller.clone()));
    Ok(caller)
}

async fn resolve(req: &HttpRequest) -> Result<Caller, AppError> {
    let state = state_of(req)?;
    let cookie = req.cookie(SESSION_COOKIE);
    let credentials = match req.headers().get(AUTHORIZATION) {
        Some(value) => match value.to_str().unwrap_or_default().strip_prefix("Bearer ") {
            Some(token) => Credentials::Token(token.trim()),
            None => {
                return Err(Error::Unauthorized(
                    "the Authorization header must be `Bearer <token>`".into(),
                )
                .into());
            }
        },
        None => match &cookie {
            Some(c) => Credentials::Session(c.value()),
            None => Credentials::None,
        },
    };
    let caller = identify(&state, credentials).await?;
    // A token sent from a page of another site: only from a website its club lists.
    if let Some(crate::domain::Principal::Token { club_id, .. }) = &caller.0
        && let Some(origin) = security::foreign_origin(req)
    {
        if !crate::domain::people::clubs::lists_origin(&state, *club_id, &origin).await? {
            return Err(Error::Forbidden(format!(
                "this API token may not be used from a page of {origin}: an organizer lists the club's websites (PUT /api/v1/clubs/{{club}}/origins)"
            ))
            .into());
        }
        req.extensions_mut().insert(cors::ListedOrigin(origin));
    }
    // A table code the browser holds makes it that table's scorer: alone when no one is logged
    // in, and beside a login too (whoever holds a code scores its table, whatever their role).
    if req.headers().get(AUTHORIZATION).is_none()
        && let Some(code) = req.cookie(TABLE_COOKIE)
    {
        let by_code = codes::identify(&state, code.value(), peer(req)).await?;
        match caller.0 {
            None => return Ok(by_code),
            Some(crate::domain::Principal::User(_)) => {
                let held =
                    by_code
                        .code_table()
                        .map(|(table_id, league_id)| crate::domain::HeldTable {
                            table_id,
                            league_id,
                        });
                return Ok(Caller(caller.0, held));
            }
            Some(_) => {}
        }
    }
    Ok(caller)
}

/// Name of the cookie that holds a table code.
pub const TABLE_COOKIE: &str = "ml_table";

/// The cookie that holds a table code for the rest of the night (HttpOnly, SameSite=Lax).
pub fn table_cookie(req: &HttpRequest, state: &AppState, code: &str) -> Cookie<'static> {
    let secure = client::scheme(req) == "https";
    Cookie::build(TABLE_COOKIE, codes::cookie_value(state, code))
        .path("/")
        .http_only(true)
        .same_site(SameSite::Lax)
        .secure(secure)
        .max_age(CookieDuration::hours(24))
        .finish()
}

/// The cookie that clears a table code.
pub fn table_removal() -> Cookie<'static> {
    let mut gone = Cookie::build(TABLE_COOKIE, "")
        .path("/")
        .http_only(true)
        .same_site(SameSite::Lax)
        .finish();
    gone.make_removal();
    gone
}

impl FromRequest for Caller {
    type Error = AppError;
    type Future = Pin<Box<dyn Future<Output = Result<Caller, AppError>>>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        Box::pin(caller_of(req.clone()))
    }
}

/// The cookie that carries a new session: HttpOnly, SameSite=Lax, Secure over https.
pub fn session_cookie(req: &HttpRequest, session: &accounts::Session) -> Cookie<'static> {
    let secure = client::scheme(req) == "https";
    Cookie::build(SESSION_COOKIE, session.token.clone())
        .path("/")
        .http_only(true)
        .same_site(SameSite::Lax)
        .secure(secure)
        .max_age(CookieDuration::days(accounts::SESSION_DAYS))
        .finish()
}

/// What a log-out answer tells the browser to drop: its HTTP cache of this site (pages a member
/// saw must not be shown to the next person at a shared tablet). Storage is left alone: it
/// holds games a tablet has not sent yet. The service worker forgets its kept pages itself.
pub const CLEAR_SITE_DATA: (&str, &str) = ("clear-site-data", "\"cache\"");

/// The cookie that clears the session cookie.
pub fn session_removal() -> Cookie<'static> {
    let mut gone = Cookie::build(SESSION_COOKIE, "")
        .path("/")
        .http_only(true)
        .same_site(SameSite::Lax)
        .finish();
    gone.make_removal();
    gone
}

/// The longest a request may take (a card's compilation budget, 20 s, fits inside). A database
/// that freezes in the middle of a request cannot hold a worker longer: the client gets 503 and
/// retries; a write cut this way did not commit, and its idempotency key makes the retry safe.
pub const REQUEST_DEADLINE: std::time::Duration = std::time::Duration::from_secs(30);

/// Middleware: answers 503 when a request outlives `REQUEST_DEADLINE`.
pub async fn deadline(
    req: actix_web::dev::ServiceRequest,
    next: actix_web::middleware::Next<impl actix_web::body::MessageBody + 'static>,
) -> Result<actix_web::dev::ServiceResponse<impl actix_web::body::MessageBody>, actix_web::Error> {
    match tokio::time::timeout(REQUEST_DEADLINE, next.call(req)).await {
        Ok(res) => res,
        Err(_) => {
            tracing::warn!("a request outlived its deadline");
            Err(AppError::from(Error::Unavailable(format!(
                "the service did not finish this request within {} s; try again",
                REQUEST_DEADLINE.as_secs()
            )))
            .into())
        }
    }
}
