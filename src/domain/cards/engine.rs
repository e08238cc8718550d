//! The stateless engine operations: the same answers as the CLI, no login needed, rate-limited
//! per address.

use serde::Deserialize;
use utoipa::ToSchema;

use crate::domain::{AppState, Caller, Error, FieldError, Result, cards::library as cards};
use crate::rules::answers::{adjudicate_value, check_value, score_value};
use crate::rules::scoring::{GameResult, RulesetSpec, Tiles};
use crate::rules::{InputError, Tile};

/// An engine refusal, as a 422 naming the field the message is about.
fn refusal(e: InputError) -> Error {
    let message = e.to_string();
    let field = refused_field(&message);
    Error::Invalid {
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

fn tiles(t: &Tiles, field: &str) -> Result<Vec<Tile>> {
    t.parse().map_err(|e| Error::invalid(field, e.to_string()))
}

fn exposures(list: &[Tiles]) -> Result<Vec<Vec<Tile>>> {
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
    #[schema(schema_with = crate::domain::schemas::hand)]
    pub hand: Tiles,
    /// Exposures made during play, each a string or an array.
    #[serde(default)]
    #[schema(schema_with = crate::domain::schemas::tile_groups)]
    pub exposures: Vec<Tiles>,
}

/// Does this hand win? Every matching line, the best one, and for a losing hand the nearest
/// lines (rules.md §3).
pub async fn check(
    state: &AppState,
    caller: &Caller,
    r: CheckRequest,
) -> Result<serde_json::Value> {
    let card = cards::resolve(state, caller, &r.card, true).await?;
    let hand = tiles(&r.hand, "hand")?;
    check_value(&card, &hand, &exposures(&r.exposures)?).map_err(refusal)
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AdjudicateRequest {
    #[schema(example = "demo-2026")]
    pub card: String,
    /// The challenged seat's exposures.
    #[serde(default)]
    #[schema(schema_with = crate::domain::schemas::tile_groups)]
    pub exposures: Vec<Tiles>,
    /// Every tile known to be out of play: discards and the other players' exposures.
    #[serde(default)]
    #[schema(schema_with = crate::domain::schemas::optional_out_of_play)]
    pub out_of_play: Option<Tiles>,
}

/// Decides a dead-hand call (rules.md §4).
pub async fn adjudicate(
    state: &AppState,
    caller: &Caller,
    r: AdjudicateRequest,
) -> Result<serde_json::Value> {
    let card = cards::resolve(state, caller, &r.card, true).await?;
    let out = match &r.out_of_play {
        Some(t) => tiles(t, "out_of_play")?,
        None => Vec::new(),
    };
    adjudicate_value(&card, &exposures(&r.exposures)?, &out).map_err(refusal)
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PreviewRequest {
    #[schema(example = "demo-2026")]
    pub card: String,
    /// A preset name or a ruleset as data.
    #[schema(schema_with = crate::domain::schemas::ruleset)]
    pub ruleset: RulesetSpec,
    /// The result (rules.md §5); a `ruleset` inside it is ignored.
    #[schema(schema_with = crate::domain::schemas::game_result)]
    pub result: GameResult,
}

/// Scores a result without storing it.
pub async fn preview(
    state: &AppState,
    caller: &Caller,
    mut r: PreviewRequest,
) -> Result<serde_json::Value> {
    let card = cards::resolve(state, caller, &r.card, true).await?;
    r.result.ruleset = Some(r.ruleset);
    score_value(&card, &r.result).map_err(refusal)
}
