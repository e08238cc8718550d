//! The HTTP API: JSON handlers, each in the OpenAPI document.

pub mod health;

use actix_web::web;
use utoipa::OpenApi;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::error::{AppError, FieldError, Problem};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "mahjong-league",
        description = "Leagues, tournaments and an exact rules engine for American Mah Jongg clubs. \
                       Errors are application/problem+json (RFC 9457).",
        license(name = "MIT")
    ),
    components(schemas(Problem, FieldError)),
    tags((name = "health", description = "Liveness and readiness"))
)]
pub struct ApiDoc;

/// Registers every documented route.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(health::healthz).service(health::readyz);
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

/// JSON bodies: a size limit, and errors that name what is wrong.
pub fn json_config() -> web::JsonConfig {
    web::JsonConfig::default()
        .limit(256 * 1024)
        .error_handler(|err, _req| {
            use actix_web::error::JsonPayloadError as E;
            let e = match &err {
                E::OverflowKnownLength { length, limit } => AppError::BadRequest {
                    detail: format!("the body has {length} bytes; the limit is {limit}"),
                    errors: Vec::new(),
                },
                E::Overflow { limit } => AppError::bad_request(format!(
                    "the body is larger than the limit of {limit} bytes"
                )),
                E::ContentType => {
                    AppError::bad_request("send the body as JSON (Content-Type: application/json)")
                }
                E::Deserialize(de) => {
                    let message = de.to_string();
                    let field = message
                        .split('`')
                        .nth(1)
                        .filter(|_| message.contains("field"))
                        .unwrap_or("body")
                        .to_string();
                    AppError::BadRequest {
                        detail: format!("the JSON body is not valid: {message}"),
                        errors: vec![FieldError::new(field, message)],
                    }
                }
                other => AppError::bad_request(format!("the body could not be read: {other}")),
            };
            e.into()
        })
}
