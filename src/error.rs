//! Errors over HTTP. Every error is `application/problem+json` (RFC 9457): the domain's errors
//! mapped to their status, and the request's own (unreadable or too large). The `render`
//! middleware applies that to every error response — ours, the framework's (unknown route, bad
//! JSON) and a panicking handler's. Outside `/api` a renderer installed as app data
//! ([`HtmlErrors`], the pages') shows the same problem as a page instead.

use std::panic::AssertUnwindSafe;

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{HttpResponse, ResponseError};
use futures_util::FutureExt;
use serde::Serialize;
use utoipa::ToSchema;

use crate::domain::Error;
pub use crate::domain::FieldError;

/// An RFC 9457 problem document.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({"type": "about:blank", "title": "Not Found", "status": 404, "detail": "no route for GET /api/v1/nothing"}))]
pub struct Problem {
    #[serde(rename = "type")]
    pub kind: String,
    pub title: String,
    pub status: u16,
    pub detail: String,
    /// For bad input: each field that is wrong.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<FieldError>,
    /// For a game whose number at its table is taken (409): the game that holds it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub taken: Option<crate::domain::play::games::TakenGame>,
    /// For a game sent to a table whose night is closed (409): the night.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub night_closed: Option<crate::domain::play::games::ClosedNight>,
}

impl Problem {
    pub fn new(status: StatusCode, detail: impl Into<String>) -> Problem {
        Problem {
            kind: "about:blank".into(),
            title: status.canonical_reason().unwrap_or("Error").into(),
            status: status.as_u16(),
            detail: detail.into(),
            errors: Vec::new(),
            taken: None,
            night_closed: None,
        }
    }
}

/// An error answered over HTTP: the domain's, or one about the request itself (a body that
/// cannot be read or is too large).
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error(transparent)]
    Domain(#[from] Error),
    #[error("{detail}")]
    BadRequest {
        detail: String,
        errors: Vec<FieldError>,
    },
    #[error("{0}")]
    TooLarge(String),
}

impl From<sqlx::Error> for AppError {
    fn from(e: sqlx::Error) -> Self {
        AppError::Domain(e.into())
    }
}

impl AppError {
    pub fn bad_request(detail: impl Into<String>) -> AppError {
        AppError::BadRequest {
            detail: detail.into(),
            errors: Vec::new(),
        }
    }

    pub fn not_found(detail: impl Into<String>) -> AppError {
        AppError::Domain(Error::NotFound(detail.into()))
    }

    pub fn internal(e: impl std::fmt::Display) -> AppError {
        AppError::Domain(Error::internal(e))
    }

    fn problem(&self) -> Problem {
        let status = self.status_code();
        match self {
            AppError::Domain(Error::Internal(e)) => {
                tracing::error!(error = ?e, "internal error");
                Problem::new(
                    status,
                    "something went wrong on our side; it has been logged",
                )
            }
            AppError::BadRequest { detail, errors }
            | AppError::Domain(Error::Invalid { detail, errors }) => {
                let mut p = Problem::new(status, detail.clone());
                p.errors = errors.clone();
                p
            }
            AppError::Domain(Error::NightClosed { detail, night }) => {
                let mut p = Problem::new(status, detail.clone());
                p.night_closed = Some(night.clone());
                p
            }
            AppError::Domain(Error::Taken { detail, taken }) => {
                let mut p = Problem::new(status, detail.clone());
                p.taken = Some(taken.clone());
                p
            }
            other => Problem::new(status, other.to_string()),
        }
    }
}

impl ResponseError for AppError {
    fn status_code(&self) -> StatusCode {
        match self {
            AppError::BadRequest { .. } => StatusCode::BAD_REQUEST,
            AppError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            AppError::Domain(e) => match e {
                Error::NotFound(_) => StatusCode::NOT_FOUND,
                Error::Invalid { .. } => StatusCode::UNPROCESSABLE_ENTITY,
                Error::Unauthorized(_) => StatusCode::UNAUTHORIZED,
                Error::Forbidden(_) => StatusCode::FORBIDDEN,
                Error::Conflict(_) | Error::Taken { .. } | Error::NightClosed { .. } => {
                    StatusCode::CONFLICT
                }
                Error::Stale(_) => StatusCode::PRECONDITION_FAILED,
                Error::VersionRequired(_) => StatusCode::PRECONDITION_REQUIRED,
                Error::TooManyRequests { .. } => StatusCode::TOO_MANY_REQUESTS,
                Error::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
                Error::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
            },
        }
    }

    fn error_response(&self) -> HttpResponse {
        let problem = self.problem();
        let mut res = problem_response(&problem);
        if let AppError::Domain(Error::TooManyRequests {
            retry_after_secs, ..
        }) = self
        {
            res.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(*retry_after_secs));
        }
        res.extensions_mut().insert(problem);
        res
    }
}

const PROBLEM_JSON: &str = "application/problem+json";

/// 405 for a method a path does not take, naming the ones it does (`Allow`).
pub fn method_not_allowed(method: &str, path: &str, allow: &str) -> HttpResponse {
    let problem = Problem::new(
        StatusCode::METHOD_NOT_ALLOWED,
        format!("{path} does not take {method}; it takes {allow}"),
    );
    let mut res = problem_response(&problem);
    if let Ok(v) = HeaderValue::from_str(allow) {
        res.headers_mut().insert(header::ALLOW, v);
    }
    res.extensions_mut().insert(problem);
    res
}

/// Seconds a client waits before trying again after a 503.
const RETRY_AFTER_UNAVAILABLE: u32 = 2;

fn problem_response(problem: &Problem) -> HttpResponse {
    let status = StatusCode::from_u16(problem.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut res = HttpResponse::build(status);
    res.content_type(PROBLEM_JSON);
    if status == StatusCode::SERVICE_UNAVAILABLE {
        res.insert_header((header::RETRY_AFTER, RETRY_AFTER_UNAVAILABLE));
    }
    res.body(serde_json::to_string(problem).unwrap_or_default())
}

/// How errors outside `/api` are shown: a renderer the pages install as app data. Without
/// one, every error is problem+json.
#[derive(Clone, Copy)]
pub struct HtmlErrors(pub fn(&Problem, Option<&PageHeader>) -> HttpResponse);

/// Who a page's header shows, put on the request by the pages when they read who is calling:
/// an error page then shows the caller as the page would have (her name and *Log out*, not
/// *Log in*). Absent when the request failed before that.
#[derive(Debug, Clone, Default)]
pub struct PageHeader {
    pub user: Option<String>,
    pub csrf: String,
    pub login: String,
}

/// The answer to an error in the format of its part of the site.
fn respond(
    html: Option<HtmlErrors>,
    problem: &Problem,
    header: Option<&PageHeader>,
) -> HttpResponse {
    match html {
        Some(HtmlErrors(render)) => render(problem, header),
        None => problem_response(problem),
    }
}

/// Middleware: turns panics into 500s and renders every error in the format of its part of the site.
pub async fn render(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    // The API and the health endpoints answer JSON; pages answer pages.
    let machine = ["/api", "/healthz", "/readyz"]
        .iter()
        .any(|p| req.path().starts_with(p));
    let html = match machine {
        true => None,
        false => req.app_data::<HtmlErrors>().copied(),
    };
    let api = html.is_none();
    let method = req.method().clone();
    let path = req.path().to_string();
    // The request cannot be kept (routing needs the only reference to it), so failures that
    // leave no response become an error that renders itself in the right format.
    let res = match AssertUnwindSafe(next.call(req)).catch_unwind().await {
        Ok(Ok(res)) => res.map_into_boxed_body(),
        Ok(Err(e)) => {
            let problem = Problem::new(e.as_response_error().status_code(), e.to_string());
            return Err(Rendered { html, problem }.into());
        }
        Err(_) => {
            tracing::error!(%method, %path, "a handler panicked");
            let problem = Problem::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "something went wrong on our side; it has been logged",
            );
            return Err(Rendered { html, problem }.into());
        }
    };
    let status = res.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return Ok(res);
    }
    if res.response().extensions().get::<OwnBody>().is_some() {
        return Ok(res);
    }
    let ours = res.response().extensions().get::<Problem>().cloned();
    if api && ours.is_some() {
        return Ok(res);
    }
    let problem = ours.unwrap_or_else(|| {
        let detail = match (status, res.response().error()) {
            (StatusCode::NOT_FOUND, _) => format!("no route for {method} {path}"),
            (StatusCode::METHOD_NOT_ALLOWED, _) => format!("{path} does not take {method}"),
            (_, Some(e)) => e.to_string(),
            _ => status.canonical_reason().unwrap_or("Error").to_string(),
        };
        Problem::new(status, detail)
    });
    let (req, old) = res.into_parts();
    let header = actix_web::HttpMessage::extensions(&req)
        .get::<PageHeader>()
        .cloned();
    let mut new = respond(html, &problem, header.as_ref());
    for (name, value) in old.headers() {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            new.headers_mut().append(name.clone(), value.clone());
        }
    }
    Ok(ServiceResponse::new(req, new))
}

/// Marks a response whose error status comes with a page of its own (a refused form shown
/// again with its errors in place): `render` leaves it as it is.
#[derive(Debug, Clone, Copy)]
pub struct OwnBody;

/// An error already turned into a problem, rendered for its part of the site.
#[derive(Debug)]
struct Rendered {
    html: Option<HtmlErrors>,
    problem: Problem,
}

impl std::fmt::Debug for HtmlErrors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HtmlErrors")
    }
}

impl std::fmt::Display for Rendered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.problem.detail)
    }
}

impl ResponseError for Rendered {
    fn status_code(&self) -> StatusCode {
        StatusCode::from_u16(self.problem.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }

    fn error_response(&self) -> HttpResponse {
        respond(self.html, &self.problem, None)
    }
}

#[cfg(test)]
mod tests {
    use actix_web::middleware::from_fn;
    use actix_web::{App, HttpResponse, test, web};

    async fn boom() -> HttpResponse {
        panic!("deliberate")
    }

    fn page(problem: &super::Problem, _: Option<&super::PageHeader>) -> HttpResponse {
        HttpResponse::build(actix_web::http::StatusCode::from_u16(problem.status).unwrap())
            .content_type("text/html; charset=utf-8")
            .body(format!("<p>{}</p>", problem.detail))
    }

    #[actix_web::test]
    async fn a_panic_becomes_a_500_in_the_format_of_its_part_of_the_site() {
        let app = test::init_service(
            App::new()
                .route("/api/boom", web::get().to(boom))
                .route("/boom", web::get().to(boom))
                .app_data(super::HtmlErrors(page))
                .wrap(from_fn(super::render)),
        )
        .await;
        let req = test::TestRequest::get().uri("/api/boom").to_request();
        let res = test::try_call_service(&app, req).await;
        let res = match res {
            Ok(r) => r.into_parts().1,
            Err(e) => e.error_response(),
        };
        assert_eq!(res.status(), 500);
        assert_eq!(
            res.headers().get("content-type").unwrap(),
            "application/problem+json"
        );

        let req = test::TestRequest::get().uri("/boom").to_request();
        let res = match test::try_call_service(&app, req).await {
            Ok(r) => r.into_parts().1,
            Err(e) => e.error_response(),
        };
        assert_eq!(res.status(), 500);
        assert!(
            res.headers()
                .get("content-type")
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("text/html")
        );
    }
}
