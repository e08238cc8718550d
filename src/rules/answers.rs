//! The engine's answers as JSON, the same for the CLI and the HTTP API.

use serde_json::Value;

use super::{Card, GameResult, Hand, InputError, Ruleset, Table, Tile};

/// Checks a hand; the answer as JSON.
pub fn check_value(
    card: &Card,
    hand: &[Tile],
    exposures: &[Vec<Tile>],
) -> Result<Value, InputError> {
    let hand = Hand::new(hand, exposures)?;
    let report = card.check_report(&card.check(&hand));
    serde_json::to_value(report).map_err(|e| InputError::new(e.to_string()))
}

/// Adjudicates a call; the answer as JSON.
pub fn adjudicate_value(
    card: &Card,
    exposures: &[Vec<Tile>],
    out: &[Tile],
) -> Result<Value, InputError> {
    let table = Table::new(exposures, out)?;
    serde_json::to_value(card.verdict_report(&card.adjudicate(&table)))
        .map_err(|e| InputError::new(e.to_string()))
}

/// Scores a result; the answer as JSON.
pub fn score_value(card: &Card, result: &GameResult) -> Result<Value, InputError> {
    let Some(spec) = &result.ruleset else {
        return Err(InputError::new(format!(
            "ruleset: name a preset ({}) or give a ruleset",
            Ruleset::PRESETS.join(", ")
        )));
    };
    let ruleset = spec.resolve().map_err(|e| e.context("ruleset"))?;
    let valid = result.validate(card)?;
    serde_json::to_value(valid.score(&ruleset)).map_err(|e| InputError::new(e.to_string()))
}
