//! Schemas of the JSON shapes the derive cannot see (a value that is a string or a list, a
//! preset name or an object), so the API document describes exactly what is accepted.

use serde_json::json;
use utoipa::openapi::{RefOr, Schema};

fn schema(v: serde_json::Value) -> RefOr<Schema> {
    serde_json::from_value(v).expect("a hand-written schema is valid")
}

fn tiles_value() -> serde_json::Value {
    json!({
        "description": "Tiles in tile notation: one string (`\"2B 2B J\"`) or a list of strings.",
        "oneOf": [
            {"type": "string", "maxLength": 2000},
            {"type": "array", "items": {"type": "string", "maxLength": 40}, "maxItems": 200}
        ]
    })
}

/// Tiles: a string or a list of strings.
pub fn tiles() -> RefOr<Schema> {
    schema(tiles_value())
}

/// Tiles, or nothing.
pub fn optional_tiles() -> RefOr<Schema> {
    let mut v = tiles_value();
    v["oneOf"]
        .as_array_mut()
        .unwrap()
        .push(json!({"type": "null"}));
    schema(v)
}

/// A list of tile groups (exposures).
pub fn tile_groups() -> RefOr<Schema> {
    schema(json!({"type": "array", "items": tiles_value(), "maxItems": 20}))
}

/// A list of tile groups, or nothing.
pub fn optional_tile_groups() -> RefOr<Schema> {
    schema(
        json!({"oneOf": [{"type": "array", "items": tiles_value(), "maxItems": 20}, {"type": "null"}]}),
    )
}

fn ruleset_value() -> serde_json::Value {
    let knob = json!({"type": "integer", "minimum": 0, "maximum": 10000});
    let name = json!({"type": ["string", "null"], "maxLength": 200});
    json!({
        "description": "A preset name, or a ruleset object (`kind` money or points, and the knobs of rules.md §6, each 0 to 10000); unset knobs take the defaults.",
        "oneOf": [
            {"type": "string", "enum": crate::rules::Ruleset::PRESETS},
            {"type": "object", "required": ["kind"], "additionalProperties": false,
             "properties": {
                "kind": {"type": "string", "enum": ["money"]},
                "name": name,
                "discarder": knob, "others_on_discard": knob, "self_pick": knob,
                "jokerless_multiplier": {"type": "integer", "minimum": 1, "maximum": 10000},
                "misnamed_discard": knob, "dispute": knob,
                "pays_for_table": {"oneOf": [{"type": "null"}, {"type": "object", "additionalProperties": false,
                    "required": ["exposures", "exposures_on_quints"],
                    "properties": {"exposures": {"type": "integer", "minimum": 0, "maximum": 4},
                                   "exposures_on_quints": {"type": "integer", "minimum": 0, "maximum": 4}}}]}
             }},
            {"type": "object", "required": ["kind"], "additionalProperties": false,
             "properties": {
                "kind": {"type": "string", "enum": ["points"]},
                "name": name,
                "self_pick": knob, "joker_exchange": knob, "jokerless": knob, "no_exposures": knob,
                "wall_alive": knob,
                "joker_exchange_is_self_pick": {"type": "boolean"},
                "wrong_caller_scores_zero": {"type": "boolean"},
                "misnamed_discard": {"type": ["integer", "null"], "minimum": 0, "maximum": 10000},
                "discarder": {"type": "object", "additionalProperties": false,
                    "required": ["up_to_one_exposure", "two_exposures", "three_or_more", "two_or_more_on_quints"],
                    "properties": {"up_to_one_exposure": knob, "two_exposures": knob,
                                   "three_or_more": knob, "two_or_more_on_quints": knob}}
             }}
        ]
    })
}

/// A ruleset: a preset's name or the knobs as an object.
pub fn ruleset() -> RefOr<Schema> {
    schema(ruleset_value())
}

/// A ruleset, or nothing (a league edit that keeps it).
pub fn optional_ruleset() -> RefOr<Schema> {
    let mut v = ruleset_value();
    v["oneOf"]
        .as_array_mut()
        .unwrap()
        .push(json!({"type": "null"}));
    schema(v)
}

/// A game result (rules.md §5), as the preview scores it.
pub fn game_result() -> RefOr<Schema> {
    let seat = json!({"type": "string", "maxLength": 10});
    let optional_seat = json!({"type": ["string", "null"], "maxLength": 10});
    schema(json!({
        "type": "object",
        "description": "A result: seats (winds), the outcome, and for a Mah Jongg the winner, hand, exposures and how it was won. Unknown fields are ignored.",
        "required": ["seats", "outcome"],
        "properties": {
            "seats": {"type": "array", "items": seat, "minItems": 2, "maxItems": 4},
            "outcome": {"type": "string", "enum": ["mahjong", "wall", "redeal"]},
            "winner": optional_seat,
            "hand": {"oneOf": [tiles_value(), {"type": "null"}]},
            "exposures": {"type": "array", "items": tiles_value(), "maxItems": 20},
            "won_by": {"type": ["string", "null"], "enum": ["self_pick", "discard", "joker_exchange", "heavenly", "earthly", null]},
            "discarder": optional_seat,
            "misnamed_discard": {"type": "boolean"},
            "dead": {"type": "array", "maxItems": 4, "items": {
                "type": "object", "required": ["seat"],
                "properties": {
                    "seat": seat,
                    "called_by": optional_seat,
                    "reason": {"type": ["string", "null"], "maxLength": 500},
                    "contested": {"type": "boolean"},
                    "upheld": {"type": ["boolean", "null"]}
                }
            }}
        }
    }))
}

/// How a line's numbers may move: `as-written`, `any`, or the values the lowest may take.
pub fn line_numbers() -> RefOr<Schema> {
    schema(json!({
        "oneOf": [
            {"type": "string", "enum": ["as-written", "any"]},
            {"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": 9}}
        ]
    }))
}

/// Any JSON value (a stored result, as entered), or nothing.
pub fn optional_object() -> RefOr<Schema> {
    schema(json!({"type": ["object", "null"]}))
}

/// The proposal kept with a night: its seed, method and player ids per table, or nothing.
pub fn proposal() -> RefOr<Schema> {
    schema(json!({
        "type": ["object", "null"],
        "properties": {
            "seed": {"type": "integer", "minimum": 0},
            "method": {"type": "string", "enum": ["avoid_repeats", "swiss"]},
            "tables": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}}
        }
    }))
}

/// How a game ended.
pub fn outcome() -> RefOr<Schema> {
    schema(json!({"type": "string", "enum": ["mahjong", "wall", "redeal"], "example": "mahjong"}))
}

/// How a Mah Jongg was won, or nothing.
pub fn won_by() -> RefOr<Schema> {
    schema(json!({
        "type": ["string", "null"],
        "enum": ["self_pick", "discard", "joker_exchange", "heavenly", "earthly", null],
        "example": "self_pick"
    }))
}
