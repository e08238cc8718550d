//! The scoring screen for a table: outcome, winner, the tile picker for the hand and exposures,
//! discarder, dead hands. Without JavaScript it is a plain form; `static/score.js` adds the
//! picker's live check against the league's card, the points preview, and sending through the
//! API with the page's idempotency key, kept and sent again while the network is down.

use actix_web::{HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;

use super::view::{TileFace, picker};
use super::{Ctx, Page, PostedBody, after};
use crate::auth::new_secret;
use crate::domain::play::games::{self, DeadInput, GameInput, Played};
use crate::domain::seasons::leagues::{self, League};
use crate::domain::{AppState, Error};
use crate::error::AppError;
use crate::rules::Tiles;
use crate::rules::scoring::{Outcome, WonBy};

/// A game already entered, as the screen lists it.
struct PlayedLine {
    number: i32,
    voided: bool,
    /// "Mah Jongg, 2468#2: Ann +50, Bea −25, …"
    summary: String,
}

#[derive(Template)]
#[template(path = "pages/score.html")]
struct ScorePage {
    ctx: Ctx,
    league: League,
    table_id: i64,
    table_number: i32,
    night_id: i64,
    night_number: i32,
    number: i32,
    /// Every game of the night is entered: no form, a message instead.
    done: bool,
    closed: bool,
    /// (player id, name, wind letter this game, wind name)
    players: Vec<(i64, String, &'static str, &'static str)>,
    /// The players as the script reads them: `[{id, name, wind}]`.
    players_json: String,
    totals: Vec<i64>,
    played: Vec<PlayedLine>,
    tiles: Vec<(&'static str, Vec<TileFace>)>,
    key: String,
    /// The league's card and ruleset for the live check, as JSON.
    card: String,
    ruleset: String,
    /// Open play: the match this table is, whose page the other players confirm the games on.
    match_id: Option<i64>,
}

pub(super) fn wind_name(letter: &str) -> &'static str {
    match letter {
        "E" => "East",
        "S" => "South",
        "W" => "West",
        _ => "North",
    }
}

/// Points as a person writes them: +50, −25, 0.
pub(super) fn signed(points: i64) -> String {
    match points {
        p if p > 0 => format!("+{p}"),
        p if p < 0 => format!("\u{2212}{}", p.unsigned_abs()),
        _ => "0".into(),
    }
}

pub(super) fn summary(g: &Played, names: &[(i64, String, &'static str)]) -> String {
    let what = match (g.outcome.as_str(), &g.line) {
        ("mahjong", Some(line)) => format!("Mah Jongg, {line}"),
        ("mahjong", None) => "Mah Jongg".into(),
        ("wall", _) => "Wall game".into(),
        _ => "Redeal".into(),
    };
    let points: Vec<String> = names
        .iter()
        .zip(&g.scores)
        .map(|((_, name, _), s)| format!("{name} {}", signed(*s)))
        .collect();
    format!("{what}: {}", points.join(", "))
}

#[get("/tables/{id}/score")]
async fn show(
    page: Page,
    state: web::Data<AppState>,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let t = games::scoring(&state, &page.caller, *id).await?;
    let played = t
        .played
        .iter()
        .map(|g| PlayedLine {
            number: g.number,
            voided: g.voided,
            summary: summary(g, &t.players),
        })
        .collect();
    let players_json = serde_json::to_string(
        &t.players
            .iter()
            .map(|(pid, name, wind)| serde_json::json!({"id": pid, "name": name, "wind": wind}))
            .collect::<Vec<_>>(),
    )
    .map_err(|e| AppError::Domain(Error::Internal(e.into())))?;
    let match_id = if t.league.is_open_play() {
        crate::domain::play::open::of_night(&state, t.night_id)
            .await?
            .map(|m| m.id)
    } else {
        None
    };
    page.render(ScorePage {
        ctx: page.ctx.clone(),
        match_id,
        table_id: *id,
        table_number: t.table_number,
        night_id: t.night_id,
        night_number: t.night_number,
        number: t.number,
        done: t.number > t.league.games_per_table,
        closed: t.closed,
        players: t
            .players
            .iter()
            .map(|(pid, name, wind)| (*pid, name.clone(), *wind, wind_name(wind)))
            .collect(),
        players_json,
        totals: t.totals,
        played,
        tiles: picker(),
        key: new_secret("page-"),
        card: leagues::card_name(&t.league),
        ruleset: t.league.ruleset.to_string(),
        league: t.league,
    })
}

#[derive(Deserialize)]
pub(super) struct ScoreForm {
    /// The idempotency key of a new game (the correction form has none).
    #[serde(default)]
    key: Option<String>,
    /// The version a correction was made from (`If-Match`).
    #[serde(default)]
    pub(super) version: Option<String>,
    /// The game number the screen showed (always sent, so racing scorers get a conflict).
    #[serde(default)]
    number: Option<i32>,
    /// Who won: a player's id, `wall` or `redeal`.
    #[serde(default)]
    won: Option<String>,
    /// How: `self_pick`, `joker_exchange`, `heavenly`, `earthly` or `discard:<player id>`.
    #[serde(default)]
    how: Option<String>,
    #[serde(default)]
    hand: String,
    #[serde(default)]
    exposure: Vec<String>,
    #[serde(default)]
    dead_player: Vec<String>,
    #[serde(default)]
    dead_called_by: Vec<String>,
    #[serde(default)]
    dead_reason: Vec<String>,
    /// Indexes of the dead-hand rows marked contested / upheld.
    #[serde(default)]
    dead_contested: Vec<usize>,
    #[serde(default)]
    dead_upheld: Vec<usize>,
}

fn player(field: &str, value: Option<&str>) -> Result<Option<i64>, Error> {
    match value.map(str::trim) {
        None | Some("") => Ok(None),
        Some(v) => v
            .parse()
            .map(Some)
            .map_err(|_| Error::invalid(field, "choose a player at the table")),
    }
}

/// The form as the API's game input.
pub(super) fn input(f: ScoreForm) -> Result<GameInput, Error> {
    let mut dead = Vec::new();
    for (i, p) in f.dead_player.iter().enumerate() {
        let Some(p) = player("dead_player", Some(p))? else {
            continue;
        };
        let contested = f.dead_contested.contains(&i);
        dead.push(DeadInput {
            player: p,
            called_by: player(
                "dead_called_by",
                f.dead_called_by.get(i).map(String::as_str),
            )?,
            reason: f
                .dead_reason
                .get(i)
                .map(|r| r.trim().to_string())
                .filter(|r| !r.is_empty()),
            contested,
            upheld: contested.then(|| f.dead_upheld.contains(&i)),
            ..Default::default()
        });
    }
    let (outcome, winner) = match f.won.as_deref().map(str::trim) {
        Some("wall") => (Outcome::Wall, None),
        Some("redeal") => (Outcome::Redeal, None),
        None | Some("") => {
            return Err(Error::invalid(
                "won",
                "choose who won, or a wall game or a redeal",
            ));
        }
        Some(p) => (Outcome::Mahjong, player("won", Some(p))?),
    };
    let mahjong = outcome == Outcome::Mahjong;
    let (won_by, discarder) = match f.how.as_deref().map(str::trim) {
        _ if !mahjong => (None, None),
        None | Some("") | Some("self_pick") => (Some(WonBy::SelfPick), None),
        Some("joker_exchange") => (Some(WonBy::JokerExchange), None),
        Some("heavenly") => (Some(WonBy::Heavenly), None),
        Some("earthly") => (Some(WonBy::Earthly), None),
        Some(other) => match other.strip_prefix("discard:") {
            Some(p) => (Some(WonBy::Discard), player("how", Some(p))?),
            None => {
                return Err(Error::invalid(
                    "how",
                    "choose self-pick, a discard by a player, joker exchange, heavenly or earthly",
                ));
            }
        },
    };
    Ok(GameInput {
        number: f.number,
        outcome,
        winner,
        hand: (mahjong && !f.hand.trim().is_empty())
            .then(|| Tiles::Text(f.hand.trim().to_string())),
        exposures: if mahjong {
            f.exposure
                .iter()
                .map(|e| e.trim())
                .filter(|e| !e.is_empty())
                .map(|e| Tiles::Text(e.to_string()))
                .collect()
        } else {
            Vec::new()
        },
        won_by,
        discarder,
        misnamed_discard: false,
        dead,
    })
}

#[post("/tables/{id}/score")]
async fn submit(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: PostedBody,
) -> Result<HttpResponse, AppError> {
    // Who may score here is settled before the form is read: a stranger learns nothing from it.
    games::may_score(&state, &posted.caller, *id).await?;
    let result = match posted.form::<ScoreForm>() {
        Ok(form) => {
            let key = form.key.clone().filter(|k| !k.is_empty());
            match (key, input(form)) {
                (None, _) => Err(Error::invalid(
                    "key",
                    "the form lost its key: open the screen again",
                )),
                (Some(key), Ok(game)) => {
                    games::record_in_lane(
                        state.clone().into_inner(),
                        posted.caller.clone(),
                        *id,
                        Some(key),
                        game,
                    )
                    .await
                }
                (_, Err(e)) => Err(e),
            }
        }
        Err(e) => Err(e),
    };
    match result {
        Ok(r) => after(
            &format!("/tables/{id}/score"),
            Ok(format!(
                "Saved: game {} at table {}.",
                r.body["number"], r.table_number
            )),
        ),
        Err(e) => after(&format!("/tables/{id}/score"), Err(e)),
    }
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(show).service(submit);
}
