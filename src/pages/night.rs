//! A night: check-in, the proposed tables with seat swapping, locked tables and their games
//! with running totals.

use actix_web::{HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;

use super::{Ctx, Page, Posted, after};
use crate::domain::games::SEAT_WINDS;
use crate::domain::leagues::League;
use crate::domain::nights::{self, Night, NightScore, SeatChoice, SeatingRequest, Table};
use crate::domain::{AppState, Error, Role};
use crate::error::AppError;

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

fn tables_with_games(tables: Vec<Table>, scores: &[NightScore]) -> Vec<TableBlock> {
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
                    .map(|(i, (id, name))| (id, name, SEAT_WINDS[i % 4]))
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
    let d = nights::details(&state, &page.caller, *id).await?;
    let roster = d
        .roster
        .into_iter()
        .map(|(p, checked)| CheckRow {
            id: p.id,
            name: p.name,
            checked,
        })
        .collect();
    let proposal = d
        .proposal
        .into_iter()
        .enumerate()
        .map(|(ti, t)| {
            (0..4)
                .map(|si| ProposedSeat {
                    wind: SEAT_WINDS[si],
                    field: format!("t{}s{si}", ti + 1),
                    player: t.get(si).copied().unwrap_or(0),
                })
                .collect()
        })
        .collect();
    page.render(NightPage {
        ctx: page.ctx.clone(),
        closed: d.night.status == "closed",
        night: d.night,
        league: d.league,
        organizer: d.role.is_some_and(|r| r >= Role::Organizer),
        scorer: d.role.is_some_and(|r| r >= Role::Scorer),
        roster,
        checked_in: d.checked_in,
        proposal,
        tables: tables_with_games(d.tables, &d.scores),
    })
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
    let want = &posted.form.player;
    let result = nights::set_checkins(&state, &posted.caller, *id, want)
        .await
        .map(|c| {
            format!(
                "{} players checked in ({} in, {} out).",
                want.len(),
                c.added,
                c.removed
            )
        });
    after(&format!("/nights/{id}"), result)
}

#[post("/nights/{id}/seating")]
async fn propose(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<serde::de::IgnoredAny>,
) -> Result<HttpResponse, AppError> {
    let result = nights::propose_seating(&state, &posted.caller, *id, SeatingRequest::default())
        .await
        .map(|()| "Tables proposed: swap seats if you like, then lock them.".to_string());
    after(&format!("/nights/{id}#proposal"), result)
}

/// The seats of the lock form (`t<table>s<seat>` = player id, 0 for an empty seat); other
/// fields are not seats.
fn seats_from_fields(fields: &[(String, String)]) -> Result<Vec<SeatChoice>, Error> {
    let mut seats = Vec::new();
    for (name, value) in fields {
        let Some((t, s)) = name.strip_prefix('t').and_then(|rest| rest.split_once('s')) else {
            continue;
        };
        let (Ok(table), Ok(seat)) = (t.parse::<u64>(), s.parse::<u64>()) else {
            continue;
        };
        let player: i64 = value
            .parse()
            .map_err(|_| Error::invalid(name, "choose a player"))?;
        if player != 0 {
            seats.push(SeatChoice {
                table,
                seat,
                player,
            });
        }
    }
    Ok(seats)
}

#[post("/nights/{id}/tables")]
async fn lock(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<Vec<(String, String)>>,
) -> Result<HttpResponse, AppError> {
    let result = match seats_from_fields(&posted.form) {
        Ok(seats) => nights::lock_seats(&state, &posted.caller, *id, seats)
            .await
            .map(|()| "Tables locked: scorers can enter games.".to_string()),
        Err(e) => Err(e),
    };
    match result {
        // Numbers the page never offers: a crafted request, answered 422 rather than sent back.
        Err(e @ Error::Invalid { .. }) if e.fields().any(|f| f == "seats") => Err(e.into()),
        other => after(&format!("/nights/{id}"), other),
    }
}

#[post("/nights/{id}/close")]
async fn close(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<serde::de::IgnoredAny>,
) -> Result<HttpResponse, AppError> {
    let result = nights::close(&state, &posted.caller, *id)
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
    let result = nights::reopen(&state, &posted.caller, *id)
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
    fn lock_form_fields_become_seats() {
        let f = |n: &str, v: &str| (n.to_string(), v.to_string());
        let fields = vec![
            f("csrf", "x"),
            f("t1s1", "12"),
            f("t2s1", "0"),
            f("t18446744073709551615s0", "15"),
        ];
        let seats: Vec<(u64, u64, i64)> = seats_from_fields(&fields)
            .unwrap()
            .into_iter()
            .map(|s| (s.table, s.seat, s.player))
            .collect();
        assert_eq!(seats, vec![(1, 1, 12), (u64::MAX, 0, 15)]);
        assert!(seats_from_fields(&[f("t1s0", "x")]).is_err());
    }
}
