//! The stateless engine endpoints: the same answers as the CLI, no login needed, rate-limited
//! per address.

use actix_web::{HttpResponse, post, web};

use crate::api::json::ValidJson;
use crate::domain::cards::engine::{self, AdjudicateRequest, CheckRequest, PreviewRequest};
use crate::domain::{AppState, Caller};
use crate::error::AppError;

/// Does this hand win? Every matching line, the best one, and for a losing hand the nearest lines.
#[utoipa::path(tag = "engine", request_body = CheckRequest,
    responses((status = 200, description = "rules.md §3 answer: winning, best, matches, nearest", body = Object,
               example = json!({"winning": true, "best": {"id": "2468#2", "section": "2468", "value": 25, "jokerless": false, "singles_and_pairs": false, "exposures": 1, "quints": false, "concealed": false}, "matches": [], "nearest": []})),
              (status = 422, description = "The hand or card cannot be read", body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 429, description = "Rate limited", body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/hands/check")]
pub async fn check(
    state: web::Data<AppState>,
    caller: Caller,
    body: ValidJson<CheckRequest>,
) -> Result<HttpResponse, AppError> {
    let answer = engine::check(&state, &caller, body.0).await?;
    Ok(HttpResponse::Ok().json(answer))
}

/// Decide a dead-hand call (rules.md §4).
#[utoipa::path(tag = "engine", request_body = AdjudicateRequest,
    responses((status = 200, description = "alive with lines, or dead with a reason", body = crate::domain::play::game_view::EngineVerdict,
               example = json!({"verdict": "dead", "reason": "impossible"})),
              (status = 422, body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/hands/adjudicate")]
pub async fn adjudicate(
    state: web::Data<AppState>,
    caller: Caller,
    body: ValidJson<AdjudicateRequest>,
) -> Result<HttpResponse, AppError> {
    let answer = engine::adjudicate(&state, &caller, body.0).await?;
    Ok(HttpResponse::Ok().json(answer))
}

/// Score a result without storing it.
#[utoipa::path(tag = "engine", request_body = PreviewRequest,
    responses((status = 200, description = "scores per seat and the breakdown in words", body = Object,
               example = json!({"scores": {"E": 45, "S": 0, "W": 0, "N": 0}, "breakdown": [{"seat": "E", "score": 45, "text": "hand 2468#2: 25; self-picked +10; no exposures +10"}]})),
              (status = 422, body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/scores/preview")]
pub async fn preview(
    state: web::Data<AppState>,
    caller: Caller,
    body: ValidJson<PreviewRequest>,
) -> Result<HttpResponse, AppError> {
    let answer = engine::preview(&state, &caller, body.0).await?;
    Ok(HttpResponse::Ok().json(answer))
}
