//! The scoring screen for a table: outcome, winner, the tile picker for the hand and exposures,
//! discarder, dead hands. Without JavaScript it is a plain form; `static/score.js` adds the
//! picker's live check against the league's card, the points preview, and sending through the
//! API with the page's idempotency key, kept and sent again while the network is down.

use actix_web::{HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;

use super::view::{TileFace, picker};
use super::{Ctx, Page, Posted, after};
use crate::api::games::{DeadInput, GameInput, record_game};
use crate::api::leagues::visible;
use crate::auth::{Need, new_secret};
use crate::error::AppError;
use crate::rules::Tiles;
use crate::rules::scoring::{Outcome, WonBy};
use crate::startup::AppState;
use crate::storage::games;
use crate::storage::leagues::League;

#[derive(Template)]
#[template(path = "pages/score.html")]
struct ScorePage {
    ctx: Ctx,
    league: League,
    table_id: i64,
    table_number: i32,
    night_id: i64,
    number: i32,
    /// (player id, name, wind this game)
    players: Vec<(i64, String, &'static str)>,
    tiles: Vec<TileFace>,
    key: String,
    /// The league's card and ruleset for the live check, as JSON.
    card: String,
    ruleset: String,
}

#[get("/tables/{id}/score")]
async fn show(
    page: Page,
    state: web::Data<AppState>,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let not_found = || AppError::NotFound(format!("no table {id}"));
    let ctx = games::table_context(&state.db, *id)
        .await?
        .ok_or_else(not_found)?;
    let (league, _) = visible(&state, &page.caller, ctx.league_id, Need::Score).await?;
    let players = games::table_players(&state.db, *id).await?;
    let number = games::next_number(&state.db, *id).await?;
    let n = players.len().max(1);
    let east = (number as usize - 1) % n;
    let card = league
        .builtin_card
        .clone()
        .or(league.card_id.map(|c| c.to_string()))
        .unwrap_or_default();
    page.render(ScorePage {
        ctx: page.ctx.clone(),
        table_id: *id,
        table_number: ctx.table_number,
        night_id: ctx.night_id,
        number,
        players: players
            .into_iter()
            .enumerate()
            .map(|(i, (pid, name))| (pid, name, games::SEAT_WINDS[(i + n - east) % n]))
            .collect(),
        tiles: picker(),
        key: new_secret("page-"),
        card,
        ruleset: league.ruleset.to_string(),
        league,
    })
}

#[derive(Deserialize)]
struct ScoreForm {
    key: String,
    outcome: Outcome,
    #[serde(default)]
    winner: Option<String>,
    #[serde(default)]
    won_by: Option<WonBy>,
    #[serde(default)]
    discarder: Option<String>,
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

fn player(field: &str, value: Option<&str>) -> Result<Option<i64>, AppError> {
    match value.map(str::trim) {
        None | Some("") => Ok(None),
        Some(v) => v
            .parse()
            .map(Some)
            .map_err(|_| AppError::invalid(field, "choose a player at the table")),
    }
}

/// The form as the API's game input.
fn input(f: ScoreForm) -> Result<GameInput, AppError> {
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
    let mahjong = f.outcome == Outcome::Mahjong;
    Ok(GameInput {
        number: None,
        outcome: f.outcome,
        winner: if mahjong {
            player("winner", f.winner.as_deref())?
        } else {
            None
        },
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
        won_by: if mahjong { f.won_by } else { None },
        discarder: if mahjong && f.won_by == Some(WonBy::Discard) {
            player("discarder", f.discarder.as_deref())?
        } else {
            None
        },
        misnamed_discard: false,
        dead,
    })
}

#[post("/tables/{id}/score")]
async fn submit(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<ScoreForm>,
) -> Result<HttpResponse, AppError> {
    let ctx = games::table_context(&state.db, *id)
        .await?
        .ok_or_else(|| AppError::NotFound(format!("no table {id}")))?;
    let key = posted.form.key.clone();
    let result = match input(posted.form) {
        Ok(game) => record_game(&state, &posted.caller, *id, Some(key), game).await,
        Err(e) => Err(e),
    };
    match result {
        Ok((_, body)) => after(
            &format!("/nights/{}#table-{}", ctx.night_id, id),
            Ok(format!(
                "Saved: game {} at table {}.",
                body["number"], ctx.table_number
            )),
        ),
        Err(e) => after(&format!("/tables/{id}/score"), Err(e)),
    }
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(show).service(submit);
}
