//! A night: check-in, the proposed tables with seat swapping, locked tables and their games
//! with running totals.

use std::collections::HashMap;

use actix_web::{HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;

use super::{Ctx, Page, Posted, after};
use crate::api::nights::{
    check_in_player, check_out_player, close_night, lock_night_tables, night_for, propose_seating,
    reopen_night,
};
use crate::auth::{Access, Need, Role};
use crate::error::AppError;
use crate::startup::AppState;
use crate::storage::games::{self, NightScore};
use crate::storage::leagues::League;
use crate::storage::nights::{self, Night};
use crate::storage::players;

struct CheckRow {
    id: i64,
    name: String,
    checked: bool,
}

/// A seat of the proposal: the wind and who sits there (0 for nobody).
struct ProposedSeat {
    wind: &'static str,
    field: String,
    player: i64,
}

struct GameRow {
    id: i64,
    number: i32,
    label: String,
    voided: bool,
    scores: Vec<String>,
}

struct TableBlock {
    id: i64,
    number: i32,
    players: Vec<(i64, String, &'static str)>,
    games: Vec<GameRow>,
    totals: Vec<i64>,
}

#[derive(Template)]
#[template(path = "pages/night.html")]
struct NightPage {
    ctx: Ctx,
    night: Night,
    league: League,
    organizer: bool,
    scorer: bool,
    closed: bool,
    roster: Vec<CheckRow>,
    checked_in: Vec<(i64, String)>,
    proposal: Vec<Vec<ProposedSeat>>,
    tables: Vec<TableBlock>,
}

fn tables_with_games(tables: Vec<nights::Table>, scores: &[NightScore]) -> Vec<TableBlock> {
    tables
        .into_iter()
        .map(|t| {
            let mut games: Vec<GameRow> = Vec::new();
            let mut totals = vec![0i64; t.players.len()];
            let mut by_game: Vec<(i64, Vec<&NightScore>)> = Vec::new();
            for s in scores.iter().filter(|s| s.table_id == t.id) {
                match by_game.last_mut() {
                    Some((g, rows)) if *g == s.game_id => rows.push(s),
                    _ => by_game.push((s.game_id, vec![s])),
                }
            }
            for (id, rows) in by_game {
                let first = rows[0];
                let voided = first.status == "voided";
                let counted = !voided && first.outcome != "redeal";
                let mut cells = Vec::with_capacity(t.players.len());
                for (i, (pid, _)) in t.players.iter().enumerate() {
                    let score = rows.iter().find(|r| r.player_id == *pid).map(|r| r.score);
                    if counted {
                        totals[i] += score.unwrap_or(0);
                    }
                    cells.push(match score {
                        Some(s) if counted => format!("{s:+}"),
                        _ => "–".to_string(),
                    });
                }
                let label = match (first.outcome.as_str(), &first.line_id) {
                    ("mahjong", Some(line)) => format!("Mah Jongg, {line}"),
                    ("wall", _) => "Wall game".to_string(),
                    ("redeal", _) => "Redeal".to_string(),
                    (other, _) => other.to_string(),
                };
                games.push(GameRow {
                    id,
                    number: first.number,
                    label,
                    voided,
                    scores: cells,
                });
            }
            TableBlock {
                id: t.id,
                number: t.number,
                players: t
                    .players
                    .into_iter()
                    .enumerate()
                    .map(|(i, (id, name))| (id, name, games::SEAT_WINDS[i % 4]))
                    .collect(),
                games,
                totals,
            }
        })
        .collect()
}

#[get("/nights/{id}")]
async fn show(
    page: Page,
    state: web::Data<AppState>,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let (night, league) = night_for(&state, &page.caller, *id, Need::Read).await?;
    let role = match page
        .caller
        .club(&state, &club_slug(&state, &league).await?, Need::Read)
        .await
    {
        Ok((_, Access::Member { role, .. })) => Some(role),
        _ => None,
    };
    let organizer = role.is_some_and(|r| r >= Role::Organizer);
    let scorer = role.is_some_and(|r| r >= Role::Scorer);
    let checked_in = nights::checkins(&state.db, night.id).await?;
    let roster = if organizer {
        players::list(&state.db, league.club_id, false)
            .await?
            .into_iter()
            .map(|p| CheckRow {
                checked: checked_in.iter().any(|(id, _)| *id == p.id),
                id: p.id,
                name: p.name,
            })
            .collect()
    } else {
        Vec::new()
    };
    let proposal: Vec<Vec<ProposedSeat>> = night
        .proposal
        .as_ref()
        .and_then(|p| p.get("tables"))
        .and_then(|t| serde_json::from_value::<Vec<Vec<i64>>>(t.clone()).ok())
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .map(|(ti, t)| {
            (0..4)
                .map(|si| ProposedSeat {
                    wind: games::SEAT_WINDS[si],
                    field: format!("t{}s{si}", ti + 1),
                    player: t.get(si).copied().unwrap_or(0),
                })
                .collect()
        })
        .collect();
    let tables = nights::tables(&state.db, night.id).await?;
    let scores = games::night_scores(&state.db, night.id).await?;
    page.render(NightPage {
        ctx: page.ctx.clone(),
        closed: night.status == "closed",
        night,
        league,
        organizer,
        scorer,
        roster,
        checked_in,
        proposal,
        tables: tables_with_games(tables, &scores),
    })
}

async fn club_slug(state: &AppState, league: &League) -> Result<String, AppError> {
    Ok(crate::storage::clubs::by_id(&state.db, league.club_id)
        .await?
        .map(|c| c.slug)
        .unwrap_or_default())
}

#[derive(Deserialize)]
struct CheckinForm {
    #[serde(default)]
    player: Vec<i64>,
}

/// Makes the checked-in set what the form says.
#[post("/nights/{id}/checkins")]
async fn checkins(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<CheckinForm>,
) -> Result<HttpResponse, AppError> {
    let id = *id;
    let result = async {
        let now: Vec<i64> = nights::checkins(&state.db, id)
            .await?
            .into_iter()
            .map(|(p, _)| p)
            .collect();
        let want = &posted.form.player;
        let (mut added, mut removed) = (0, 0);
        for p in want.iter().filter(|p| !now.contains(p)) {
            check_in_player(&state, &posted.caller, id, *p).await?;
            added += 1;
        }
        for p in now.iter().filter(|p| !want.contains(p)) {
            check_out_player(&state, &posted.caller, id, *p).await?;
            removed += 1;
        }
        Ok::<_, AppError>(format!(
            "{} players checked in ({added} in, {removed} out).",
            want.len()
        ))
    }
    .await;
    after(&format!("/nights/{id}"), result)
}

#[post("/nights/{id}/seating")]
async fn propose(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<serde::de::IgnoredAny>,
) -> Result<HttpResponse, AppError> {
    let result = propose_seating(&state, &posted.caller, *id, None)
        .await
        .map(|()| "Tables proposed: swap seats if you like, then lock them.".to_string());
    after(&format!("/nights/{id}#proposal"), result)
}

/// The seats of the lock form (`t<table>s<seat>` = player id, 0 for an empty seat) as
/// player ids per table in seat order.
fn tables_from_fields(fields: &[(String, String)]) -> Result<Vec<Vec<i64>>, AppError> {
    let mut seats: HashMap<(usize, usize), i64> = HashMap::new();
    for (name, value) in fields {
        let Some(rest) = name.strip_prefix('t') else {
            continue;
        };
        let Some((t, s)) = rest.split_once('s') else {
            continue;
        };
        let (Ok(t), Ok(s)) = (t.parse::<usize>(), s.parse::<usize>()) else {
            continue;
        };
        let player: i64 = value
            .parse()
            .map_err(|_| AppError::invalid(name, "choose a player"))?;
        if player != 0 {
            seats.insert((t, s), player);
        }
    }
    let count = seats.keys().map(|k| k.0).max().unwrap_or(0);
    Ok((1..=count)
        .map(|t| (0..4).filter_map(|s| seats.get(&(t, s)).copied()).collect())
        .filter(|t: &Vec<i64>| !t.is_empty())
        .collect())
}

#[post("/nights/{id}/tables")]
async fn lock(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<Vec<(String, String)>>,
) -> Result<HttpResponse, AppError> {
    let result = match tables_from_fields(&posted.form) {
        Ok(tables) => lock_night_tables(&state, &posted.caller, *id, tables)
            .await
            .map(|()| "Tables locked: scorers can enter games.".to_string()),
        Err(e) => Err(e),
    };
    after(&format!("/nights/{id}"), result)
}

#[post("/nights/{id}/close")]
async fn close(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<serde::de::IgnoredAny>,
) -> Result<HttpResponse, AppError> {
    let result = close_night(&state, &posted.caller, *id)
        .await
        .map(|()| "Night closed.".to_string());
    after(&format!("/nights/{id}"), result)
}

#[post("/nights/{id}/reopen")]
async fn reopen(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<serde::de::IgnoredAny>,
) -> Result<HttpResponse, AppError> {
    let result = reopen_night(&state, &posted.caller, *id)
        .await
        .map(|()| "Night reopened.".to_string());
    after(&format!("/nights/{id}"), result)
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(show)
        .service(checkins)
        .service(propose)
        .service(lock)
        .service(close)
        .service(reopen);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_form_fields_become_tables_in_seat_order() {
        let f = |n: &str, v: &str| (n.to_string(), v.to_string());
        let fields = vec![
            f("csrf", "x"),
            f("t1s1", "12"),
            f("t1s0", "11"),
            f("t1s2", "13"),
            f("t1s3", "14"),
            f("t2s0", "15"),
            f("t2s1", "0"),
            f("t2s2", "16"),
        ];
        assert_eq!(
            tables_from_fields(&fields).unwrap(),
            vec![vec![11, 12, 13, 14], vec![15, 16]]
        );
        assert!(tables_from_fields(&[f("t1s0", "x")]).is_err());
    }
}
