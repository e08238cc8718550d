//! Fixing a game from the night page: the entered result in the scoring form's plain fields,
//! corrected with the version it was read at (a change made meanwhile is reported, not
//! overwritten), voided by organizers after a second tap, and its audit log in the club's time.

use actix_web::{HttpResponse, get, post, web};
use askama::Template;
use serde_json::Value;

use super::score::{ScoreForm, input, signed, wind_name};
use super::view::local_time;
use super::{Ctx, Page, PostedBody, after};
use crate::domain::play::games::{self, Editing};
use crate::domain::{AppState, Error};
use crate::error::AppError;

/// One row of the audit log as people read it.
struct AuditLine {
    when: String,
    who: String,
    what: String,
}

/// A dead-hand row of the form, filled from the stored result.
#[derive(Default)]
struct DeadRow {
    player: i64,
    called_by: i64,
    reason: String,
    contested: bool,
    upheld: bool,
}

#[derive(Template)]
#[template(path = "pages/game.html")]
struct GamePage {
    ctx: Ctx,
    id: i64,
    number: i32,
    version: i32,
    voided: bool,
    closed: bool,
    may_void: bool,
    league_id: i64,
    league_name: String,
    night_id: i64,
    table_number: i32,
    /// (id, name, wind name)
    players: Vec<(i64, String, &'static str)>,
    /// What is stored now, in words.
    now: String,
    won: String,
    how: String,
    hand: String,
    /// The stored hand drawn as tiles, above the box that corrects it.
    hand_tiles: Vec<super::view::TileFace>,
    /// The open-play word or the night's ("Match", "Night", "Round").
    session: &'static str,
    exposures: Vec<String>,
    dead: Vec<DeadRow>,
    dead_open: bool,
    audit: Vec<AuditLine>,
}

fn tiles_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(a) => a
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    }
}

/// A stored result in words, players by name: "Mah Jongg by Ann on Cy's discard, 2468#2".
fn describe(result: &Value, line: Option<&str>, name: &dyn Fn(i64) -> String) -> String {
    let who = |field: &str| result[field].as_i64().map(name);
    let mut text = match result["outcome"].as_str() {
        Some("mahjong") => {
            let mut t = format!(
                "Mah Jongg by {}",
                who("winner").unwrap_or_else(|| "?".into())
            );
            match (result["won_by"].as_str(), who("discarder")) {
                (Some("discard"), Some(d)) => t.push_str(&format!(" on {d}'s discard")),
                (Some("self_pick"), _) => t.push_str(", self-picked"),
                (Some(other), _) => t.push_str(&format!(", {}", other.replace('_', " "))),
                _ => {}
            }
            t
        }
        Some("wall") => "Wall game".into(),
        Some("redeal") => "Redeal".into(),
        _ => "Unknown result".into(),
    };
    if let Some(line) = line {
        text.push_str(&format!(", {line}"));
    }
    // Tiles as people say them ("West × 4, Joker"), not as they are typed.
    let hand = super::view::tiles_in_words(&tiles_text(&result["hand"]));
    if !hand.is_empty() {
        text.push_str(&format!(" — hand {hand}"));
    }
    let exposures: Vec<String> = result["exposures"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|e| super::view::tiles_in_words(&tiles_text(e)))
                .collect()
        })
        .unwrap_or_default();
    if !exposures.is_empty() {
        text.push_str(&format!("; exposed {}", exposures.join(" | ")));
    }
    for d in result["dead"].as_array().into_iter().flatten() {
        if let Some(p) = d["player"].as_i64() {
            text.push_str(&format!("; {}'s hand called dead", name(p)));
        }
    }
    if let Some(line) = result["imported"]["line"].as_u64() {
        text.push_str(&format!(
            " (imported from a games.csv, line {line}: no tiles were entered)"
        ));
    }
    text
}

/// The table's players by name, for `describe`.
fn namer(e: &Editing) -> impl Fn(i64) -> String + use<> {
    let names: Vec<(i64, String)> = e
        .players
        .iter()
        .map(|(id, n, _)| (*id, n.clone()))
        .collect();
    move |pid: i64| {
        names
            .iter()
            .find(|(id, _)| *id == pid)
            .map(|(_, n)| n.clone())
            .unwrap_or_else(|| format!("player {pid}"))
    }
}

fn page(ctx: Ctx, id: i64, e: Editing) -> GamePage {
    let name = namer(&e);
    let r = &e.entered;
    let won = match r["outcome"].as_str() {
        Some("mahjong") => r["winner"]
            .as_i64()
            .map(|w| w.to_string())
            .unwrap_or_default(),
        Some(o) => o.to_string(),
        None => String::new(),
    };
    let how = match (r["won_by"].as_str(), r["discarder"].as_i64()) {
        (Some("discard"), Some(d)) => format!("discard:{d}"),
        (Some(w), _) => w.to_string(),
        _ => "self_pick".into(),
    };
    let mut exposures: Vec<String> = r["exposures"]
        .as_array()
        .map(|a| a.iter().map(tiles_text).collect())
        .unwrap_or_default();
    exposures.resize(4.max(exposures.len()), String::new());
    let mut dead: Vec<DeadRow> = r["dead"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| DeadRow {
            player: d["player"].as_i64().unwrap_or(0),
            called_by: d["called_by"].as_i64().unwrap_or(0),
            reason: d["reason"].as_str().unwrap_or_default().to_string(),
            contested: d["contested"].as_bool().unwrap_or(false),
            upheld: d["upheld"].as_bool().unwrap_or(false),
        })
        .collect();
    while dead.len() < 2 {
        dead.push(DeadRow::default());
    }
    let points: Vec<String> = e
        .game
        .players
        .iter()
        .map(|s| format!("{} {}", s.player.name, signed(s.score)))
        .collect();
    let now = format!(
        "{}. Points: {}.",
        describe(r, e.game.line.as_deref(), &name),
        points.join(", ")
    );
    let audit = e
        .audit
        .iter()
        .map(|a| AuditLine {
            when: local_time(a.at, &e.time_zone),
            who: a.actor.clone(),
            what: match (a.action.as_str(), &a.after) {
                ("voided", _) => "voided the game".into(),
                (action, Some(after)) => format!(
                    "{action}: {}",
                    describe(
                        after.get("result").unwrap_or(after),
                        after["line"].as_str(),
                        &name
                    )
                ),
                (action, None) => action.to_string(),
            },
        })
        .collect();
    GamePage {
        ctx,
        id,
        number: e.game.number,
        version: e.game.version,
        voided: e.game.status == "voided",
        closed: e.closed,
        may_void: e.may_void,
        league_id: e.league.id,
        league_name: e.league.name.clone(),
        session: e.league.session(),
        night_id: e.night_id,
        table_number: e.table_number,
        players: e
            .players
            .iter()
            .map(|(id, n, w)| (*id, n.clone(), wind_name(w)))
            .collect(),
        now,
        won,
        how,
        hand_tiles: super::view::faces(&tiles_text(&r["hand"])),
        hand: tiles_text(&r["hand"]),
        exposures,
        dead_open: dead.iter().any(|d| d.player != 0),
        dead,
        audit,
    }
}

#[get("/games/{id}/edit")]
async fn show(
    page: Page,
    state: web::Data<AppState>,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let e = games::editing(&state, &page.caller, *id).await?;
    page.render(self::page(page.ctx.clone(), *id, e))
}

#[post("/games/{id}/edit")]
async fn amend(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: PostedBody,
) -> Result<HttpResponse, AppError> {
    // Who may correct is settled before the form is read.
    let e = games::editing(&state, &posted.caller, *id).await?;
    let back = format!("/games/{id}/edit");
    let mut mine = Value::Null;
    let result = match posted.form::<ScoreForm>() {
        Ok(form) => {
            let version = form.version.clone();
            match input(form) {
                Ok(game) => {
                    mine = serde_json::to_value(&game).unwrap_or_default();
                    games::amend(&state, &posted.caller, *id, version.as_deref(), game)
                        .await
                        .map(|g| {
                            format!(
                                "Game {} at table {} corrected (version {}).",
                                g.number, e.table_number, g.version
                            )
                        })
                }
                Err(err) => Err(err),
            }
        }
        Err(err) => Err(err),
    };
    match result {
        // In open play the correction ends on the match page, saying whose word the game now
        // waits for (they are asked by mail at once).
        Ok(done) if e.league.is_open_play() => {
            match crate::domain::play::open::corrected(&state, &posted.caller, e.night_id, &e.game)
                .await?
            {
                Some(c) => after(&format!("/matches/{}", c.match_id), Ok(c.message)),
                None => after(
                    &format!("/nights/{}#table-{}", e.night_id, e.table_number),
                    Ok(done),
                ),
            }
        }
        Ok(done) => after(
            &format!("/nights/{}#table-{}", e.night_id, e.table_number),
            Ok(done),
        ),
        Err(Error::Stale(_)) => {
            // The page shows the game as stored now (the form is filled from it, not from what
            // was sent), and the message says the difference in words.
            let now = games::editing(&state, &posted.caller, *id).await?;
            let name = namer(&now);
            let who = now
                .audit
                .last()
                .map(|a| a.actor.split(" (").next().unwrap_or_default().to_string())
                .filter(|w| !w.is_empty())
                .unwrap_or_else(|| "someone else".into());
            let stored = describe(&now.entered, now.game.line.as_deref(), &name);
            let yours = describe(&mine, None, &name);
            let status = if now.game.status == "voided" {
                "voided it".to_string()
            } else {
                format!("stored it as: {stored}")
            };
            after(
                &back,
                Err(Error::Conflict(format!(
                    "Not saved: game {} at table {} was changed by {who} while you were fixing \
                     it; {who} {status}. You had chosen: {yours}. The form shows the game as \
                     stored now: change it again if it is still wrong.",
                    e.game.number, e.table_number
                ))),
            )
        }
        Err(err) => after(&back, Err(err)),
    }
}

#[post("/games/{id}/void")]
async fn void(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: PostedBody,
) -> Result<HttpResponse, AppError> {
    let e = games::editing(&state, &posted.caller, *id).await?;
    #[derive(serde::Deserialize)]
    struct VoidForm {
        version: Option<String>,
    }
    let result = match posted.form::<VoidForm>() {
        Ok(f) => games::void(&state, &posted.caller, *id, f.version.as_deref())
            .await
            .map(|g| {
                format!(
                    "Game {} at table {} voided: it no longer counts.",
                    g.number, e.table_number
                )
            }),
        Err(err) => Err(err),
    };
    match result {
        Ok(done) => after(&format!("/nights/{}", e.night_id), Ok(done)),
        Err(err) => after(&format!("/games/{id}/edit"), Err(err)),
    }
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(show).service(amend).service(void);
}
