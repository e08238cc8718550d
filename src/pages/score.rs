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
use crate::domain::games::{self, DeadInput, GameInput};
use crate::domain::leagues::{self, League};
use crate::domain::{AppState, Error};
use crate::error::AppError;
use crate::rules::Tiles;
use crate::rules::scoring::{Outcome, WonBy};

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
    let t = games::scoring(&state, &page.caller, *id).await?;
    page.render(ScorePage {
        ctx: page.ctx.clone(),
        table_id: *id,
        table_number: t.table_number,
        night_id: t.night_id,
        number: t.number,
        players: t.players,
        tiles: picker(),
        key: new_secret("page-"),
        card: leagues::card_name(&t.league),
        ruleset: t.league.ruleset.to_string(),
        league: t.league,
    })
}

#[derive(Deserialize)]
struct ScoreForm {
    key: String,
    /// The game number the screen showed (always sent, so racing scorers get a conflict).
    #[serde(default)]
    number: Option<i32>,
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
fn input(f: ScoreForm) -> Result<GameInput, Error> {
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
        number: f.number,
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
    posted: PostedBody,
) -> Result<HttpResponse, AppError> {
    // Who may score here is settled before the form is read: a stranger learns nothing from it.
    games::may_score(&state, &posted.caller, *id).await?;
    let result = match posted.form::<ScoreForm>() {
        Ok(form) => {
            let key = form.key.clone();
            match input(form) {
                Ok(game) => games::record(&state, &posted.caller, *id, Some(key), game).await,
                Err(e) => Err(e),
            }
        }
        Err(e) => Err(e),
    };
    match result {
        Ok(r) => after(
            &format!("/nights/{}#table-{}", r.night_id, id),
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
