//! Liveness and readiness.

use actix_web::{HttpResponse, get, web};
use serde::Serialize;
use utoipa::ToSchema;

use crate::domain::{self, AppState, Error};
use crate::error::AppError;

#[derive(Serialize, ToSchema)]
pub struct Health {
    /// `ok` or `ready`.
    #[schema(example = "ok")]
    pub status: &'static str,
}

/// The process is alive.
#[utoipa::path(tag = "health", responses((status = 200, description = "Alive", body = Health)))]
#[get("/healthz")]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(Health { status: "ok" })
}

/// The database answers.
#[utoipa::path(
    tag = "health",
    responses(
        (status = 200, description = "Ready", body = Health),
        (status = 503, description = "The database does not answer", body = crate::error::Problem, content_type = "application/problem+json")
    )
)]
#[get("/readyz")]
pub async fn readyz(state: web::Data<AppState>) -> Result<HttpResponse, AppError> {
    if domain::ready(&state).await {
        Ok(HttpResponse::Ok().json(Health { status: "ready" }))
    } else {
        Err(Error::Unavailable("the database does not answer".into()).into())
    }
}
