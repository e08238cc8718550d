//! Schemas of the JSON shapes the derive cannot see (a value that is a string or a list, a
//! preset name or an object), so the API document describes exactly what is accepted.

use serde_json::json;
use utoipa::openapi::{RefOr, Schema};

fn schema(v: serde_json::Value) -> RefOr<Schema> {
    serde_json::from_value(v).expect("a hand-written schema is valid")
}

/// A word in a pattern, matched in any case: `bam` → `[bB][aA][mM]`.
fn any_case(word: &str) -> String {
    word.chars()
        .map(|c| {
            if c.is_ascii_alphabetic() {
                format!("[{}{}]", c.to_ascii_lowercase(), c.to_ascii_uppercase())
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// A seat: a wind as a letter or a word, any case (`E`, `east`).
fn seat_pattern() -> String {
    let winds = ["east", "e", "south", "s", "west", "w", "north", "n"].map(any_case);
    format!("^(?:{})$", winds.join("|"))
}

/// One tile in notation, any case (rules.md §1): `2B`, `2bam`, `N`, `north`, `RD`, `red`, `0`,
/// `soap`, `F`, `J`, `joker` … — what `rules::Tile::parse` reads.
fn tile_pattern() -> String {
    let named = [
        "north", "n", "east", "e", "west", "w", "south", "s", "red", "rd", "green", "gd", "white",
        "wd", "soap", "0", "flower", "f", "joker", "j",
    ];
    let suits = [
        "bams", "bam", "b", "cracks", "crack", "craks", "crak", "c", "dots", "dot", "d",
    ];
    let named = named.map(any_case).join("|");
    let suits = suits.map(any_case).join("|");
    format!("(?:[1-9](?:{suits})|{named})")
}

/// Tiles in notation, `min` to `max` of them: one string of tiles separated by spaces or commas
/// (`"2B 2B J"`), or a list with one tile in each item.
fn tiles_value(min: usize, max: usize, what: &str) -> serde_json::Value {
    let tile = tile_pattern();
    let sep = "[ ,]";
    let many = match (min, max) {
        (0, _) => format!("(?:{tile}(?:{sep}+{tile}){{0,{}}})?", max - 1),
        (min, max) => format!("{tile}(?:{sep}+{tile}){{{},{}}}", min - 1, max - 1),
    };
    let text =
        json!({"type": "string", "maxLength": 2000, "pattern": format!("^{sep}*{many}{sep}*$")});
    // With a count to keep, a list holds one tile per item; without (tiles out of play), an item
    // may hold any number of tiles, as one string may.
    let (item, list) = if min == 0 {
        (text.clone(), "a list of such strings")
    } else {
        let one = json!({"type": "string", "maxLength": 10, "pattern": format!("^{tile}$")});
        (one, "a list of tiles")
    };
    json!({
        "description": format!("{what}: one string of tiles in notation separated by spaces or commas (`\"2B 2B J\"`), or {list}."),
        "oneOf": [text, {"type": "array", "items": item, "minItems": min, "maxItems": max}]
    })
}

/// A whole hand: 14 tiles, exposed ones included.
fn hand_value() -> serde_json::Value {
    tiles_value(14, 14, "The 14 tiles of the hand, exposures included")
}

/// An exposure: a pung, kong, quint or sextet (3 to 6 tiles).
fn exposure_value() -> serde_json::Value {
    tiles_value(3, 6, "An exposure of 3 to 6 tiles")
}

/// Tiles seen out of play (discards, other exposures): up to the 152 of a set.
fn out_of_play_value() -> serde_json::Value {
    tiles_value(0, 152, "Tiles out of play")
}

fn or_null(mut v: serde_json::Value) -> RefOr<Schema> {
    v["oneOf"]
        .as_array_mut()
        .unwrap()
        .push(json!({"type": "null"}));
    schema(v)
}

/// A hand of 14 tiles.
pub fn hand() -> RefOr<Schema> {
    schema(hand_value())
}

/// A hand of 14 tiles, or nothing (a game with no Mah Jongg).
pub fn optional_hand() -> RefOr<Schema> {
    or_null(hand_value())
}

/// Tiles out of play, or nothing.
pub fn optional_out_of_play() -> RefOr<Schema> {
    or_null(out_of_play_value())
}

/// A list of exposures.
pub fn tile_groups() -> RefOr<Schema> {
    schema(json!({"type": "array", "items": exposure_value(), "maxItems": 20}))
}

/// A list of exposures, or nothing.
pub fn optional_tile_groups() -> RefOr<Schema> {
    schema(
        json!({"oneOf": [{"type": "array", "items": exposure_value(), "maxItems": 20}, {"type": "null"}]}),
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
    let seat = json!({"type": "string", "pattern": seat_pattern()});
    let optional_seat = json!({"type": ["string", "null"], "pattern": seat_pattern()});
    schema(json!({
        "type": "object",
        "description": "A result: seats (winds), the outcome, and for a Mah Jongg the winner, hand, exposures and how it was won. Unknown fields are ignored.",
        "required": ["seats", "outcome"],
        "properties": {
            "seats": {"type": "array", "items": seat, "minItems": 2, "maxItems": 4, "uniqueItems": true},
            "outcome": {"type": "string", "enum": ["mahjong", "wall", "redeal"]},
            "winner": optional_seat,
            "hand": {"oneOf": [hand_value(), {"type": "null"}]},
            "exposures": {"type": "array", "items": exposure_value(), "maxItems": 20},
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

/// How a league's standings rank players.
pub fn board() -> RefOr<Schema> {
    schema(
        json!({"type": "string", "enum": ["total", "average", "best_per_night", "best_per_week"], "example": "total"}),
    )
}

/// Who may read a league's standings.
pub fn visibility() -> RefOr<Schema> {
    schema(json!({"type": "string", "enum": ["public", "members"], "example": "public"}))
}

/// What an open-play game waits for.
pub fn awaiting() -> RefOr<Schema> {
    schema(
        json!({"type": ["string", "null"], "enum": ["players", "organizer", null], "example": "players"}),
    )
}

/// A match's status.
pub fn match_status() -> RefOr<Schema> {
    schema(
        json!({"type": "string", "enum": ["forming", "locked", "cancelled"], "example": "forming"}),
    )
}

/// A league's kind.
pub fn league_kind() -> RefOr<Schema> {
    schema(json!({"type": "string", "enum": ["league", "tournament", "open"], "example": "league"}))
}

/// A night's (a round's) status.
pub fn night_status() -> RefOr<Schema> {
    schema(json!({"type": "string", "enum": ["open", "seated", "closed"], "example": "open"}))
}

/// A night ahead's status.
pub fn scheduled_status() -> RefOr<Schema> {
    schema(json!({"type": "string", "enum": ["ahead", "started", "cancelled"], "example": "ahead"}))
}

/// A member's role in a club.
pub fn role() -> RefOr<Schema> {
    crate::storage::role_schema()
}

/// A club mail's status.
pub fn mail_status() -> RefOr<Schema> {
    schema(json!({"type": "string", "enum": ["pending", "sent", "failed"], "example": "sent"}))
}

/// The health endpoints' status.
pub fn health_status() -> RefOr<Schema> {
    schema(json!({"type": "string", "enum": ["ok", "ready"], "example": "ok"}))
}

/// A game's status.
pub fn game_status() -> RefOr<Schema> {
    schema(json!({"type": "string", "enum": ["recorded", "voided"], "example": "recorded"}))
}

/// A seat: the player's wind in a game.
pub fn seat() -> RefOr<Schema> {
    schema(json!({"type": "string", "enum": ["E", "S", "W", "N"], "example": "E"}))
}

/// The engine's verdict on a dead-hand call.
pub fn verdict() -> RefOr<Schema> {
    schema(json!({"type": "string", "enum": ["alive", "dead"], "example": "dead"}))
}

/// Why the engine found a hand dead.
pub fn dead_reason() -> RefOr<Schema> {
    schema(
        json!({"type": "string", "enum": ["no_line", "concealed", "impossible"], "example": "no_line"}),
    )
}

/// An API token's scopes: any of read, score, admin.
pub fn token_scopes() -> RefOr<Schema> {
    schema(json!({
        "type": "array",
        "description": "Any of read, score, admin, each once.",
        "items": {"type": "string", "enum": ["read", "score", "admin"]},
        "minItems": 1, "maxItems": 3, "uniqueItems": true, "example": ["read"]
    }))
}

/// The most origins a club may list (its schema and `people::clubs` share it).
pub const MAX_ORIGINS: usize = 20;

/// The most lines a card draft may hold (a printed card has about 60; its schema and
/// `cards::drafts` share it).
pub const MAX_LINES: usize = 300;

/// A club's websites: origins as a browser sends them (scheme, host, optional port), at most 20.
pub fn origins() -> RefOr<Schema> {
    let octet = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])";
    let host = format!("(?:(?:[A-Za-z0-9-]+\\.)*[A-Za-z][A-Za-z0-9-]*|(?:{octet}\\.){{3}}{octet})");
    schema(json!({
        "type": "array",
        "items": {"type": "string", "maxLength": 300,
                  "pattern": format!("^[Hh][Tt][Tt][Pp][Ss]?://{host}(?::[0-9]{{1,4}})?/?$")},
        "maxItems": MAX_ORIGINS,
        "example": ["https://tuesdaytiles.example"]
    }))
}

/// A card's own fields in the editor, as typed.
pub fn card_head() -> RefOr<Schema> {
    schema(
        json!({"type": "object", "additionalProperties": false, "properties": {
            "name": {"type": "string", "maxLength": 200, "example": "Our club card"},
            "year": {"type": "string", "maxLength": 10, "description": "as typed; a whole number when right", "example": "2027"},
            "publisher": {"type": "string", "maxLength": 200}
        }}),
    )
}

fn draft_line_value() -> serde_json::Value {
    json!({"type": "object", "additionalProperties": false,
        "description": "A hand line as typed: every field as text, kept with its mistakes; empty options mean the card file's defaults (rules.md §2).",
        "properties": {
        "section": {"type": "string", "maxLength": 80, "example": "2468"},
        "pattern": {"type": "string", "maxLength": 300, "description": "the pattern; alternatives separated by ` or `", "example": "FF 2222:g 44:r 66:r 8888:g"},
        "value": {"type": "string", "maxLength": 20, "description": "as typed; a whole number above 0 when right", "example": "25"},
        "concealed": {"type": "boolean", "description": "C on the printed card"},
        "suits": {"type": "string", "maxLength": 20, "description": "empty or `distinct`, or `any`"},
        "numbers": {"type": "string", "maxLength": 40, "description": "empty or `as-written`, `any`, or the values the lowest number may take (`1 3 5`)"},
        "winds": {"type": "string", "maxLength": 20, "description": "empty or `as-written`, or `any`"},
        "note": {"type": "string", "maxLength": 300},
        "id": {"type": "string", "maxLength": 80, "description": "the line's id when it is not `<section>#<n>`"},
        "unread": {"type": "string", "maxLength": 600, "description": "for a pasted line that could not be read, what was wrong"}
    }})
}

/// One hand line in the editor.
pub fn draft_line() -> RefOr<Schema> {
    schema(draft_line_value())
}

/// The hand lines of a draft.
pub fn draft_lines() -> RefOr<Schema> {
    schema(json!({"type": "array", "maxItems": MAX_LINES, "items": draft_line_value()}))
}
