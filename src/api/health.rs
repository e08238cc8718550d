//! Liveness and readiness.

use actix_web::{HttpResponse, get, web};
use serde::Serialize;
use utoipa::ToSchema;

use crate::domain::{self, AppState, Error};
use crate::error::AppError;

#[derive(Serialize, ToSchema)]
pub struct Health {
    /// `ok` or `ready`.
    #[schema(schema_with = crate::domain::schemas::health_status)]
    pub status: &'static str,
}

/// The process is alive. With the embedded PostgreSQL, 503 while that server is down and its
/// supervisor restarts it (an external database's outages are `/readyz`'s to say).
#[utoipa::path(
    tag = "health",
    responses(
        (status = 200, description = "Alive", body = Health),
        (status = 503, description = "The private PostgreSQL is down and being restarted", body = crate::error::Problem, content_type = "application/problem+json")
    )
)]
#[get("/healthz")]
pub async fn healthz(state: web::Data<AppState>) -> Result<HttpResponse, AppError> {
    let down = *state
        .private_database_down
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    match down {
        None => Ok(HttpResponse::Ok().json(Health { status: "ok" })),
        Some(since) => Err(Error::Unavailable(format!(
            "the private PostgreSQL stopped {} s ago and is being restarted",
            since.elapsed().as_secs()
        ))
        .into()),
    }
}

/// The database answers.
#[utoipa::path(
    tag = "health",
    responses(
        (status = 200, description = "Ready", body = Health),
        (status = 503, description = "The database does not answer, or does not take writes (a standby)", body = crate::error::Problem, content_type = "application/problem+json")
    )
)]
#[get("/readyz")]
pub async fn readyz(state: web::Data<AppState>) -> Result<HttpResponse, AppError> {
    if domain::ready(&state).await {
        Ok(HttpResponse::Ok().json(Health { status: "ready" }))
    } else {
        Err(Error::Unavailable(
            "the database does not answer, or does not take writes (a standby)".into(),
        )
        .into())
    }
}
