//! One error type for the whole service. Under `/api` every error is `application/problem+json`
//! (RFC 9457); elsewhere it is an HTML page. The `render` middleware applies that to every error
//! response — ours, the framework's (unknown route, bad JSON) and a panicking handler's.

use std::panic::AssertUnwindSafe;

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{HttpResponse, ResponseError};
use askama::Template;
use futures_util::FutureExt;
use serde::Serialize;
use utoipa::ToSchema;

/// One field that is wrong, and why.
#[derive(Debug, Clone, Serialize, ToSchema, PartialEq, Eq)]
pub struct FieldError {
    /// Where the problem is, as a JSON path (`exposures[1]`, `hand`).
    pub field: String,
    pub message: String,
    /// For a card file: the line of the problem.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// For a card file: the hand's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hand: Option<String>,
}

impl FieldError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> FieldError {
        FieldError {
            field: field.into(),
            message: message.into(),
            line: None,
            hand: None,
        }
    }
}

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
}

impl Problem {
    pub fn new(status: StatusCode, detail: impl Into<String>) -> Problem {
        Problem {
            kind: "about:blank".into(),
            title: status.canonical_reason().unwrap_or("Error").into(),
            status: status.as_u16(),
            detail: detail.into(),
            errors: Vec::new(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error("{0}")]
    NotFound(String),
    #[error("{detail}")]
    BadRequest {
        detail: String,
        errors: Vec<FieldError>,
    },
    #[error("{detail}")]
    Unprocessable {
        detail: String,
        errors: Vec<FieldError>,
    },
    #[error("{0}")]
    Unauthorized(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    Conflict(String),
    #[error("{0}")]
    PreconditionFailed(String),
    #[error("{0}")]
    PreconditionRequired(String),
    #[error("{detail}")]
    TooManyRequests {
        detail: String,
        retry_after_secs: u64,
    },
    #[error("{0}")]
    Unavailable(String),
    #[error("{0}")]
    TooLarge(String),
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

impl From<sqlx::Error> for AppError {
    fn from(e: sqlx::Error) -> Self {
        AppError::Internal(e.into())
    }
}

impl AppError {
    pub fn bad_request(detail: impl Into<String>) -> AppError {
        AppError::BadRequest {
            detail: detail.into(),
            errors: Vec::new(),
        }
    }

    pub fn invalid(field: &str, message: impl Into<String>) -> AppError {
        let message = message.into();
        AppError::Unprocessable {
            detail: format!("{field}: {message}"),
            errors: vec![FieldError::new(field, message)],
        }
    }

    /// The error for a person reading a page: the detail, and each field's problem when there
    /// are several (a card upload's lines).
    pub fn message(&self) -> String {
        match self {
            AppError::BadRequest { detail, errors }
            | AppError::Unprocessable { detail, errors }
                if errors.len() > 1 =>
            {
                let each: Vec<String> = errors
                    .iter()
                    .map(|e| match e.line {
                        Some(line) => format!("line {line}: {}", e.message),
                        None => format!("{}: {}", e.field, e.message),
                    })
                    .collect();
                format!("{detail} — {}", each.join("; "))
            }
            other => other.to_string(),
        }
    }

    fn problem(&self) -> Problem {
        let status = self.status_code();
        match self {
            AppError::Internal(e) => {
                tracing::error!(error = ?e, "internal error");
                Problem::new(
                    status,
                    "something went wrong on our side; it has been logged",
                )
            }
            AppError::BadRequest { detail, errors }
            | AppError::Unprocessable { detail, errors } => {
                let mut p = Problem::new(status, detail.clone());
                p.errors = errors.clone();
                p
            }
            other => Problem::new(status, other.to_string()),
        }
    }
}

impl ResponseError for AppError {
    fn status_code(&self) -> StatusCode {
        match self {
            AppError::NotFound(_) => StatusCode::NOT_FOUND,
            AppError::BadRequest { .. } => StatusCode::BAD_REQUEST,
            AppError::Unprocessable { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            AppError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            AppError::Forbidden(_) => StatusCode::FORBIDDEN,
            AppError::Conflict(_) => StatusCode::CONFLICT,
            AppError::PreconditionFailed(_) => StatusCode::PRECONDITION_FAILED,
            AppError::PreconditionRequired(_) => StatusCode::PRECONDITION_REQUIRED,
            AppError::TooManyRequests { .. } => StatusCode::TOO_MANY_REQUESTS,
            AppError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            AppError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            AppError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let problem = self.problem();
        let mut res = problem_response(&problem);
        if let AppError::TooManyRequests {
            retry_after_secs, ..
        } = self
        {
            res.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(*retry_after_secs));
        }
        res.extensions_mut().insert(problem);
        res
    }
}

const PROBLEM_JSON: &str = "application/problem+json";

fn problem_response(problem: &Problem) -> HttpResponse {
    let status = StatusCode::from_u16(problem.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    HttpResponse::build(status)
        .content_type(PROBLEM_JSON)
        .body(serde_json::to_string(problem).unwrap_or_default())
}

#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage<'a> {
    ctx: crate::pages::Ctx,
    title: &'a str,
    status: u16,
    detail: &'a str,
}

fn html_response(problem: &Problem) -> HttpResponse {
    let status = StatusCode::from_u16(problem.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let page = ErrorPage {
        ctx: crate::pages::Ctx::default(),
        title: &problem.title,
        status: problem.status,
        detail: &problem.detail,
    };
    match page.render() {
        Ok(html) => HttpResponse::build(status)
            .content_type("text/html; charset=utf-8")
            .body(html),
        Err(e) => {
            tracing::error!(error = %e, "rendering the error page");
            HttpResponse::build(status)
                .content_type("text/plain")
                .body(problem.detail.clone())
        }
    }
}

/// Middleware: turns panics into 500s and renders every error in the format of its part of the site.
pub async fn render(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let api = req.path().starts_with("/api");
    let method = req.method().clone();
    let path = req.path().to_string();
    // The request cannot be kept (routing needs the only reference to it), so failures that
    // leave no response become an error that renders itself in the right format.
    let res = match AssertUnwindSafe(next.call(req)).catch_unwind().await {
        Ok(Ok(res)) => res.map_into_boxed_body(),
        Ok(Err(e)) => {
            let problem = Problem::new(e.as_response_error().status_code(), e.to_string());
            return Err(Rendered { api, problem }.into());
        }
        Err(_) => {
            tracing::error!(%method, %path, "a handler panicked");
            let problem = Problem::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "something went wrong on our side; it has been logged",
            );
            return Err(Rendered { api, problem }.into());
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
    let mut new = if api {
        problem_response(&problem)
    } else {
        html_response(&problem)
    };
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
    api: bool,
    problem: Problem,
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
        if self.api {
            problem_response(&self.problem)
        } else {
            html_response(&self.problem)
        }
    }
}

#[cfg(test)]
mod tests {
    use actix_web::middleware::from_fn;
    use actix_web::{App, HttpResponse, test, web};

    async fn boom() -> HttpResponse {
        panic!("deliberate")
    }

    #[actix_web::test]
    async fn a_panic_becomes_a_500_in_the_right_format() {
        let app = test::init_service(
            App::new()
                .route("/api/boom", web::get().to(boom))
                .route("/boom", web::get().to(boom))
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
