//! The stateless engine endpoints: the same answers as the CLI, no login needed, rate-limited
//! per address.

use actix_web::{HttpRequest, HttpResponse, post, web};
use serde::Deserialize;
use utoipa::ToSchema;

use crate::api::cards::resolve;
use crate::api::json::ValidJson;
use crate::auth::Caller;
use crate::error::{AppError, FieldError};
use crate::rules::answers::{adjudicate_value, check_value, score_value};
use crate::rules::scoring::{GameResult, RulesetSpec, Tiles};
use crate::rules::{InputError, Tile};
use crate::startup::AppState;

fn limited(state: &AppState, req: &HttpRequest) -> Result<(), AppError> {
    state.limits.engine(req.peer_addr().map(|a| a.ip()))
}

/// An engine refusal, as a 422 naming the field the message is about.
fn refusal(e: InputError) -> AppError {
    let message = e.to_string();
    let field = refused_field(&message);
    AppError::Unprocessable {
        detail: message.clone(),
        errors: vec![FieldError::new(field, message)],
    }
}

/// The field an engine message is about: "exposure 2 (…)" → `exposures[1]`, "discarder: …" →
/// `discarder`, "the hand has 3 tiles" → `hand`.
pub(crate) fn refused_field(message: &str) -> String {
    if let Some(n) = message
        .strip_prefix("exposure ")
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse::<usize>().ok())
    {
        return format!("exposures[{}]", n.saturating_sub(1));
    }
    let head = message.split_once(':').map(|(f, _)| f.trim()).unwrap_or("");
    if !head.is_empty() && !head.contains(' ') {
        head.to_string()
    } else if message.starts_with("the hand") {
        "hand".into()
    } else if message.contains("exposure") {
        "exposures".into()
    } else {
        "body".into()
    }
}

fn tiles(t: &Tiles, field: &str) -> Result<Vec<Tile>, AppError> {
    t.parse()
        .map_err(|e| AppError::invalid(field, e.to_string()))
}

fn exposures(list: &[Tiles]) -> Result<Vec<Vec<Tile>>, AppError> {
    list.iter()
        .enumerate()
        .map(|(i, t)| tiles(t, &format!("exposures[{i}]")))
        .collect()
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckRequest {
    /// A card id (built-in name or uploaded card number) or a whole card file.
    #[schema(example = "demo-2026")]
    pub card: String,
    /// The 14 tiles: a string or an array of strings.
    #[schema(value_type = Object, example = json!("F F 2B 2B J 2B 4C 4C 6C 6C 8B 8B J 8B"))]
    pub hand: Tiles,
    /// Exposures made during play, each a string or an array.
    #[serde(default)]
    #[schema(value_type = Vec<Object>, example = json!(["8B 8B J 8B"]))]
    pub exposures: Vec<Tiles>,
}

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
    req: HttpRequest,
    body: ValidJson<CheckRequest>,
) -> Result<HttpResponse, AppError> {
    limited(&state, &req)?;
    let r = body.0;
    let card = resolve(&state, &caller, &r.card, true).await?;
    let hand = tiles(&r.hand, "hand")?;
    let answer = check_value(&card, &hand, &exposures(&r.exposures)?).map_err(refusal)?;
    Ok(HttpResponse::Ok().json(answer))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AdjudicateRequest {
    #[schema(example = "demo-2026")]
    pub card: String,
    /// The challenged seat's exposures.
    #[serde(default)]
    #[schema(value_type = Vec<Object>, example = json!(["2B 2B 2B", "6C 6C J"]))]
    pub exposures: Vec<Tiles>,
    /// Every tile known to be out of play: discards and the other players' exposures.
    #[serde(default)]
    #[schema(value_type = Object, example = json!("8C 8C 8C"))]
    pub out_of_play: Option<Tiles>,
}

/// Decide a dead-hand call (rules.md §4).
#[utoipa::path(tag = "engine", request_body = AdjudicateRequest,
    responses((status = 200, description = "alive with lines, or dead with a reason", body = Object,
               example = json!({"verdict": "dead", "reason": "impossible"})),
              (status = 422, body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/hands/adjudicate")]
pub async fn adjudicate(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    body: ValidJson<AdjudicateRequest>,
) -> Result<HttpResponse, AppError> {
    limited(&state, &req)?;
    let r = body.0;
    let card = resolve(&state, &caller, &r.card, true).await?;
    let out = match &r.out_of_play {
        Some(t) => tiles(t, "out_of_play")?,
        None => Vec::new(),
    };
    let answer = adjudicate_value(&card, &exposures(&r.exposures)?, &out).map_err(refusal)?;
    Ok(HttpResponse::Ok().json(answer))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PreviewRequest {
    #[schema(example = "demo-2026")]
    pub card: String,
    /// A preset name or a ruleset as data.
    #[schema(value_type = Object, example = json!("bigcard-points"))]
    pub ruleset: RulesetSpec,
    /// The result (rules.md §5); a `ruleset` inside it is ignored.
    #[schema(value_type = Object, example = json!({"seats": ["E","S","W","N"], "outcome": "mahjong", "winner": "E", "hand": "F F 2B 2B J 2B 4C 4C 6C 6C 8B 8B J 8B", "won_by": "self_pick"}))]
    pub result: GameResult,
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
    req: HttpRequest,
    body: ValidJson<PreviewRequest>,
) -> Result<HttpResponse, AppError> {
    limited(&state, &req)?;
    let mut r = body.0;
    let card = resolve(&state, &caller, &r.card, true).await?;
    r.result.ruleset = Some(r.ruleset);
    let answer = score_value(&card, &r.result).map_err(refusal)?;
    Ok(HttpResponse::Ok().json(answer))
}
