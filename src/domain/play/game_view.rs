//! A game as the API shows it, one shape everywhere: in the games lists, `GET /games/{id}`, the
//! answers to recording, amending and voiding, and the data of `game.recorded`, `game.amended`
//! and `game.voided` events (streams and webhooks).

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::domain::play::nights::PlayerRef;
use crate::storage::play::game_pages::{ListedGame, ListedScore};
use crate::storage::play::games::{SEAT_WINDS, TableContext};
use crate::storage::seasons::new_game::NewGame;

/// The night (a tournament's round) a game was played on.
#[derive(Serialize, ToSchema)]
pub struct GameNight {
    pub id: i64,
    /// 1 for the league's first night (a tournament's first round), and so on.
    pub number: i32,
    /// The night's date, in the club's time zone (the league's `time_zone`).
    pub date: NaiveDate,
}

/// The table a game was played at.
#[derive(Serialize, ToSchema)]
pub struct GameTable {
    pub id: i64,
    /// The table's number that night.
    pub number: i32,
}

/// A player's part in a game.
#[derive(Serialize, ToSchema)]
pub struct GamePlayer {
    pub player: PlayerRef,
    /// The player's wind in this game.
    #[schema(schema_with = crate::domain::schemas::seat)]
    pub seat: String,
    pub score: i64,
    /// The score in words.
    #[schema(example = "hand 2468#2: 25; self-picked ×2")]
    pub breakdown: String,
    /// The player's hand was called dead.
    pub dead: bool,
}

/// The engine's verdict on a dead-hand call (rules.md §4).
#[derive(Serialize, Deserialize, ToSchema, Clone, Debug, PartialEq)]
pub struct EngineVerdict {
    /// `alive` (some line can still be made) or `dead`.
    #[schema(schema_with = crate::domain::schemas::verdict)]
    pub verdict: String,
    /// Why it is dead: `no_line` (no line fits the exposures), `concealed` (only concealed
    /// lines fit) or `impossible` (the tiles left cannot complete any line that fits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = crate::domain::schemas::dead_reason)]
    pub reason: Option<String>,
    /// For an alive hand: the lines that can still be made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines: Option<Vec<String>>,
}

/// A dead-hand call as it was entered, with the engine's verdict where it was asked for.
#[derive(Serialize, Deserialize, ToSchema, Clone, Debug, PartialEq)]
pub struct DeadCall {
    /// The player whose hand was called dead.
    pub player: i64,
    /// Who called it (an opponent), when it was said.
    #[serde(default)]
    #[schema(required = true)]
    pub called_by: Option<i64>,
    #[serde(default)]
    #[schema(required = true, example = "exposure fits no line")]
    pub reason: Option<String>,
    /// The call was contested.
    #[serde(default)]
    #[schema(required = true)]
    pub contested: bool,
    /// For a contested call: was it upheld?
    #[serde(default)]
    #[schema(required = true)]
    pub upheld: Option<bool>,
    /// The challenged player's exposures, as given for the engine.
    #[serde(default, deserialize_with = "tile_groups")]
    #[schema(required = true)]
    pub exposures: Option<Vec<String>>,
    /// Tiles out of play, as given for the engine.
    #[serde(default, deserialize_with = "optional_tiles")]
    #[schema(required = true)]
    pub out_of_play: Option<String>,
    /// The engine was asked for its verdict.
    #[serde(default)]
    #[schema(required = true)]
    pub adjudicate: bool,
    /// The engine's verdict, when it was asked for.
    #[serde(default)]
    #[schema(required = true)]
    pub engine_verdict: Option<EngineVerdict>,
}

/// A game: where and when it was played, its result and every player's score.
#[derive(Serialize, ToSchema)]
pub struct Game {
    pub id: i64,
    pub night: GameNight,
    pub table: GameTable,
    /// The game's number at its table (a redeal carries the number of the game it replaced).
    pub number: i32,
    /// A voided game counts for nothing.
    #[schema(schema_with = crate::domain::schemas::game_status)]
    pub status: String,
    /// Bumped by every amendment and the void; send it back as `If-Match` to amend.
    pub version: i32,
    #[schema(schema_with = crate::domain::schemas::outcome)]
    pub outcome: String,
    /// How the winner went out (a Mah Jongg), else null.
    #[schema(required = true, schema_with = crate::domain::schemas::won_by)]
    pub won_by: Option<String>,
    /// The winner's player id (a Mah Jongg), else null.
    #[schema(required = true)]
    pub winner: Option<i64>,
    /// Who discarded the winning tile (a win from a discard), else null.
    #[schema(required = true)]
    pub discarder: Option<i64>,
    /// The winning hand had no jokers.
    pub jokerless: bool,
    /// The winning line's id, and its value on the card.
    #[schema(required = true, example = "2468#2")]
    pub line: Option<String>,
    #[schema(required = true)]
    pub value: Option<i32>,
    /// East's player id for this game.
    pub east: i64,
    /// In seat order: E, S, W, N.
    pub players: Vec<GamePlayer>,
    /// The winning hand as entered (14 tiles in notation), else null.
    #[schema(required = true, example = "F F 2B 2B J 2B 4C 4C 6C 6C 8B 8B J 8B")]
    pub hand: Option<String>,
    /// The winner's exposures as entered.
    pub exposures: Vec<String>,
    /// The discarder named the tile wrongly (a discard win).
    pub misnamed_discard: bool,
    /// Dead-hand calls as entered, with the engine's verdicts where asked for.
    pub dead: Vec<DeadCall>,
    pub recorded_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// What an open-play game waits for before it counts: `players` (the other players to
    /// confirm it, or its time to run out) or `organizer` (a player disputed it); null when it
    /// waits for nothing (every game of other leagues). See `GET /api/v1/games/{id}/checks`.
    #[schema(required = true, schema_with = crate::domain::schemas::awaiting)]
    pub awaiting: Option<String>,
}

/// Tiles as entered (`"2B 2B"` or `["2B", "2B"]`) as one text.
fn tiles_text(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::String(s) => Some(s.split_whitespace().collect::<Vec<_>>().join(" ")),
        serde_json::Value::Array(a) => Some(
            a.iter()
                .filter_map(serde_json::Value::as_str)
                .collect::<Vec<_>>()
                .join(" "),
        ),
        _ => None,
    }
}

fn tile_groups<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    let v = Option::<serde_json::Value>::deserialize(d)?;
    Ok(v.and_then(|v| {
        v.as_array()
            .map(|a| a.iter().filter_map(tiles_text).collect())
    }))
}

fn optional_tiles<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let v = Option::<serde_json::Value>::deserialize(d)?;
    Ok(v.as_ref().and_then(tiles_text))
}

/// What a game's stored result (as entered) adds to its row: hand, exposures, the misnamed
/// discard and the dead-hand calls. Read leniently: a game imported from a file holds less.
struct Entered {
    hand: Option<String>,
    exposures: Vec<String>,
    misnamed_discard: bool,
    dead: Vec<DeadCall>,
}

impl Entered {
    fn of(submitted: &serde_json::Value) -> Entered {
        Entered {
            hand: tiles_text(&submitted["hand"]),
            exposures: submitted["exposures"]
                .as_array()
                .map(|a| a.iter().filter_map(tiles_text).collect())
                .unwrap_or_default(),
            misnamed_discard: submitted["misnamed_discard"].as_bool().unwrap_or(false),
            dead: submitted["dead"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|d| serde_json::from_value(d.clone()).ok())
                        .collect()
                })
                .unwrap_or_default(),
        }
    }
}

impl Game {
    /// A game as stored, with its scores in seat order.
    pub fn stored(g: ListedGame, scores: Vec<ListedScore>) -> Game {
        let entered = Entered::of(&g.submitted);
        Game {
            id: g.id,
            night: GameNight {
                id: g.night_id,
                number: g.night_number,
                date: g.night_date,
            },
            table: GameTable {
                id: g.table_id,
                number: g.table_number,
            },
            number: g.number,
            status: g.status,
            version: g.version,
            outcome: g.outcome,
            won_by: g.won_by,
            winner: g.winner,
            discarder: g.discarder,
            jokerless: g.jokerless,
            line: g.line_id,
            value: g.line_value,
            east: g.east_player,
            players: scores
                .into_iter()
                .map(|s| GamePlayer {
                    player: PlayerRef {
                        id: s.player_id,
                        name: s.name,
                    },
                    seat: s.seat,
                    score: s.score,
                    breakdown: s.breakdown,
                    dead: s.dead,
                })
                .collect(),
            hand: entered.hand,
            exposures: entered.exposures,
            misnamed_discard: entered.misnamed_discard,
            dead: entered.dead,
            recorded_at: g.created_at,
            updated_at: g.updated_at,
            awaiting: match (g.awaiting, g.disputed_at) {
                (false, _) => None,
                (true, None) => Some("players".into()),
                (true, Some(_)) => Some("organizer".into()),
            },
        }
    }

    /// A game about to be written at the table `ctx` (recorded, or amended to `version`), as
    /// reading it back would show it: the answer and the event are made before the write.
    pub fn entered(
        id: i64,
        ctx: &TableContext,
        game: &NewGame,
        players: &[(i64, String)],
        version: i32,
        recorded_at: DateTime<Utc>,
    ) -> Game {
        let mut scores: Vec<ListedScore> = game
            .scores
            .iter()
            .map(|(pid, seat, score, breakdown, dead)| ListedScore {
                game_id: id,
                player_id: *pid,
                name: players
                    .iter()
                    .find(|(p, _)| p == pid)
                    .map(|(_, n)| n.clone())
                    .unwrap_or_default(),
                seat: seat.clone(),
                score: *score,
                breakdown: breakdown.clone(),
                dead: *dead,
            })
            .collect();
        scores.sort_by_key(|s| SEAT_WINDS.iter().position(|w| *w == s.seat));
        let row = ListedGame {
            id,
            night_id: ctx.night_id,
            night_number: ctx.night_number,
            night_date: ctx.night_date,
            table_id: ctx.table_id,
            table_number: ctx.table_number,
            number: game.number,
            status: "recorded".into(),
            version,
            outcome: game.outcome.clone(),
            won_by: game.won_by.clone(),
            winner: game.winner,
            discarder: game.discarder,
            jokerless: game.jokerless,
            line_id: game.line_id.clone(),
            line_value: game.line_value,
            east_player: game.east_player,
            submitted: game.submitted.clone(),
            created_at: recorded_at,
            updated_at: game.at,
            event_id: None,
            awaiting: game.awaiting,
            disputed_at: None,
        };
        Game::stored(row, scores)
    }

    /// The player's name, when they played in this game.
    pub fn name_of(&self, player: i64) -> Option<&str> {
        self.players
            .iter()
            .find(|p| p.player.id == player)
            .map(|p| p.player.name.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_result_is_read_leniently() {
        let e = Entered::of(&serde_json::json!({
            "hand": ["F", "F", "2B"],
            "exposures": ["2B 2B  2B", ["4C", "4C", "4C"]],
            "dead": [
                {"player": 3, "called_by": 4, "contested": true, "upheld": false,
                 "exposures": ["3D 3D 3D"], "out_of_play": "1B 1B", "adjudicate": true,
                 "engine_verdict": {"verdict": "dead", "reason": "no_line"}},
                {"not": "a call"}
            ]
        }));
        assert_eq!(e.hand.as_deref(), Some("F F 2B"));
        assert_eq!(e.exposures, vec!["2B 2B 2B", "4C 4C 4C"]);
        assert!(!e.misnamed_discard);
        assert_eq!(e.dead.len(), 1, "what is not a call is left out");
        let d = &e.dead[0];
        assert_eq!((d.player, d.called_by, d.upheld), (3, Some(4), Some(false)));
        assert_eq!(d.exposures.as_deref(), Some(&["3D 3D 3D".to_string()][..]));
        assert_eq!(d.out_of_play.as_deref(), Some("1B 1B"));
        let v = d.engine_verdict.as_ref().unwrap();
        assert_eq!(
            (v.verdict.as_str(), v.reason.as_deref()),
            ("dead", Some("no_line"))
        );
        // An imported game holds only its outcome.
        let bare = Entered::of(&serde_json::json!({"outcome": "wall"}));
        assert!(bare.hand.is_none() && bare.exposures.is_empty() && bare.dead.is_empty());
    }
}
