//! A night: check-in, the proposed tables with seat swapping, locked tables and their games
//! with running totals.

use actix_web::{HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;

use actix_web::http::StatusCode;

use super::view::{local_time, plural};
use super::{Ctx, Flash, Page, Posted, after};
use crate::domain::play::games::SEAT_WINDS;
use crate::domain::play::nights::{
    self, Night, NightScore, SeatChoice, SeatingMethod, SeatingRequest, Table,
};
use crate::domain::seasons::leagues::League;
use crate::domain::{AppState, Error, Role, play::codes};
use crate::error::{AppError, OwnBody};

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
    started: bool,
    /// Games that count (not voided, not redeals).
    entered: usize,
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
    /// Checked in after the tables were locked, with no seat yet.
    late: Vec<(i64, String)>,
    /// Tables a late arrival can join: (id, number, players) — an open seat and no game yet.
    open_tables: Vec<(i64, i32, usize)>,
    /// Numbers of the tables with no game yet (re-seated with the late arrivals).
    unstarted: Vec<i32>,
    /// There is an earlier night to copy the check-ins of.
    has_previous: bool,
    /// When the night's table codes were opened, if they are live.
    codes_opened: Option<String>,
    /// The proposal was made Swiss (by standings).
    swiss: bool,
}

impl NightPage {
    /// The tables with fewer games than the league plays, in words, for the organizer about to
    /// close the night ("Table 2 has 3 of 4 games; table 4 has none."); `None` when all are done.
    fn short_tables(&self) -> Option<String> {
        let of = self.league.games_per_table;
        let short: Vec<String> = self
            .tables
            .iter()
            .filter(|t| (t.entered as i32) < of)
            .map(|t| match t.entered {
                0 => format!("table {} has none", t.number),
                n => format!("table {} has {n} of {of}", t.number),
            })
            .collect();
        let mut text = short.join("; ");
        if let Some(first) = text.get(..1) {
            text.replace_range(..1, &first.to_uppercase());
            Some(format!("{text} (the league plays {of} a table)."))
        } else {
            None
        }
    }
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
                started: !games.is_empty(),
                entered: games
                    .iter()
                    .filter(|g| !g.voided && g.label != "Redeal")
                    .count(),
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

fn proposal_rows(tables: &[Vec<i64>]) -> Vec<Vec<ProposedSeat>> {
    tables
        .iter()
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
        .collect()
}

/// The night's page; `proposal` replaces the stored one (seats sent back after a refusal).
fn night_page(
    ctx: Ctx,
    d: nights::Details,
    proposal: Option<Vec<Vec<i64>>>,
    codes_opened: Option<String>,
) -> NightPage {
    let roster = d
        .roster
        .into_iter()
        .map(|(p, checked)| CheckRow {
            id: p.id,
            name: p.name,
            checked,
        })
        .collect();
    let tables = tables_with_games(d.tables, &d.scores);
    let seated: std::collections::HashSet<i64> = tables
        .iter()
        .flat_map(|t| t.players.iter().map(|p| p.0))
        .collect();
    let late = if tables.is_empty() {
        Vec::new()
    } else {
        d.checked_in
            .iter()
            .filter(|(p, _)| !seated.contains(p))
            .cloned()
            .collect()
    };
    let open_tables = tables
        .iter()
        .filter(|t| !t.started && t.players.len() < 4)
        .map(|t| (t.id, t.number, t.players.len()))
        .collect();
    let unstarted = tables
        .iter()
        .filter(|t| !t.started)
        .map(|t| t.number)
        .collect();
    let swiss = d
        .night
        .proposal
        .as_ref()
        .and_then(|p| p.get("method"))
        .and_then(|m| m.as_str())
        == Some("swiss");
    NightPage {
        ctx,
        swiss,
        closed: d.night.status == "closed",
        has_previous: d.night.number > 1 || d.league.previous_id.is_some(),
        night: d.night,
        league: d.league,
        organizer: d.role.is_some_and(|r| r >= Role::Organizer),
        scorer: d.role.is_some_and(|r| r >= Role::Scorer),
        roster,
        checked_in: d.checked_in,
        proposal: proposal_rows(&proposal.unwrap_or(d.proposal)),
        tables,
        late,
        open_tables,
        unstarted,
        codes_opened,
    }
}

/// When the night's codes were opened, in the club's time (organizers only).
async fn codes_opened(state: &AppState, d: &nights::Details) -> Result<Option<String>, Error> {
    if d.role.is_none_or(|r| r < Role::Organizer) {
        return Ok(None);
    }
    Ok(codes::opened(state, d.night.id)
        .await?
        .map(|at| local_time(at, &d.time_zone)))
}

#[get("/nights/{id}")]
async fn show(
    page: Page,
    state: web::Data<AppState>,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let d = nights::details(&state, &page.caller, *id).await?;
    // In open play a night is a match: its players confirm its games on the match's page.
    if d.league.is_open_play()
        && d.role.is_none_or(|r| r < crate::domain::Role::Organizer)
        && let Some(m) = crate::domain::play::open::of_night(&state, d.night.id).await?
    {
        return Ok(super::redirect(&format!("/matches/{}", m.id), None));
    }
    let opened = codes_opened(&state, &d).await?;
    page.render(night_page(page.ctx.clone(), d, None, opened))
}

#[derive(Deserialize)]
struct CheckinForm {
    #[serde(default)]
    player: Vec<i64>,
    /// `propose`: propose tables right after saving the check-ins.
    #[serde(default)]
    then: Option<String>,
    /// How to propose: `avoid_repeats` or `swiss`.
    #[serde(default)]
    method: Option<String>,
}

fn seating_request(method: Option<&str>) -> Result<SeatingRequest, Error> {
    let method = match method {
        None | Some("avoid_repeats") => SeatingMethod::AvoidRepeats,
        Some("swiss") => SeatingMethod::Swiss,
        Some(other) => {
            return Err(Error::invalid(
                "method",
                format!("`{other}` is not a way to seat; choose fewest repeats or Swiss"),
            ));
        }
    };
    Ok(SeatingRequest {
        method,
        ..Default::default()
    })
}

/// What saving the check-in list did, in words: "Check-in saved: 40 players here (3 added, 1
/// taken off)." or "… here; no change."
fn checkin_saved(here: usize, added: usize, removed: usize) -> String {
    let change = match (added, removed) {
        (0, 0) => "; no change".to_string(),
        (a, 0) => format!(" ({a} added)"),
        (0, r) => format!(" ({r} taken off)"),
        (a, r) => format!(" ({a} added, {r} taken off)"),
    };
    format!(
        "Check-in saved: {} here{change}.",
        plural(here, "player", "players")
    )
}

/// Makes the checked-in set what the form says.
#[post("/nights/{id}/checkins")]
async fn checkins(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<CheckinForm>,
) -> Result<HttpResponse, AppError> {
    let want = &posted.form.player;
    let saved = nights::set_checkins(&state, &posted.caller, *id, want).await;
    let result = match saved {
        Ok(c) => {
            let mut text = checkin_saved(want.len(), c.added, c.removed);
            if !c.unseated.is_empty() {
                text.push_str(&format!(
                    " The tables are locked: {} {} no seat yet — seat them under \"Late arrivals\".",
                    c.unseated.join(", "),
                    if c.unseated.len() == 1 { "has" } else { "have" }
                ));
            }
            if posted.form.then.as_deref() == Some("propose") {
                let request = match seating_request(posted.form.method.as_deref()) {
                    Ok(r) => r,
                    Err(e) => return after(&format!("/nights/{id}"), Err(e)),
                };
                return after(
                    &format!("/nights/{id}#proposal"),
                    nights::propose_seating(&state, &posted.caller, *id, request)
                        .await
                        .map(|()| {
                            format!(
                                "{text} Tables proposed: swap seats if you like, then lock them."
                            )
                        }),
                );
            }
            Ok(text)
        }
        Err(e) => Err(e),
    };
    after(&format!("/nights/{id}"), result)
}

/// Checks in everyone who played the league's previous night (besides who is checked in).
#[post("/nights/{id}/checkins/previous")]
async fn checkins_previous(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<serde::de::IgnoredAny>,
) -> Result<HttpResponse, AppError> {
    let result = nights::check_in_previous(&state, &posted.caller, *id)
        .await
        .map(|(n, night)| {
            format!(
                "{} from the last {night} checked in; untick anyone who is not here.",
                plural(n, "player", "players")
            )
        });
    after(&format!("/nights/{id}#checkin"), result)
}

#[derive(Deserialize)]
struct LateForm {
    #[serde(default)]
    player: Option<i64>,
    /// A table id, or `reseat`.
    seat_at: String,
}

/// Seats late arrivals: at a table's open seat, or by re-seating the tables with no games.
#[post("/nights/{id}/late")]
async fn seat_late(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<LateForm>,
) -> Result<HttpResponse, AppError> {
    let how = match posted.form.seat_at.as_str() {
        "reseat" => Ok(nights::LateSeat::Reseat),
        t => t
            .parse()
            .map(nights::LateSeat::Table)
            .map_err(|_| Error::invalid("seat_at", "choose a table or re-seating")),
    };
    let result = match how {
        Ok(how) => nights::seat_late(&state, &posted.caller, *id, posted.form.player, how).await,
        Err(e) => Err(e),
    };
    after(&format!("/nights/{id}#tables"), result)
}

#[derive(Deserialize)]
struct ProposeForm {
    #[serde(default)]
    method: Option<String>,
}

#[post("/nights/{id}/seating")]
async fn propose(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<ProposeForm>,
) -> Result<HttpResponse, AppError> {
    let result = match seating_request(posted.form.method.as_deref()) {
        Ok(request) => nights::propose_seating(&state, &posted.caller, *id, request)
            .await
            .map(|()| "Tables proposed: swap seats if you like, then lock them.".to_string()),
        Err(e) => Err(e),
    };
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
    page: Page,
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<Vec<(String, String)>>,
) -> Result<HttpResponse, AppError> {
    let seats = seats_from_fields(&posted.form);
    let sent: Option<Vec<Vec<i64>>> = seats.as_ref().ok().map(|s| {
        let mut by_table: std::collections::BTreeMap<u64, Vec<i64>> = Default::default();
        for c in s.iter().filter(|c| c.table <= 64 && c.seat <= 3) {
            let t = by_table.entry(c.table).or_default();
            t.resize(t.len().max(c.seat as usize + 1), 0);
            t[c.seat as usize] = c.player;
        }
        by_table.into_values().collect()
    });
    let result = match seats {
        Ok(seats) => nights::lock_seats(&state, &posted.caller, *id, seats)
            .await
            .map(|()| "Tables locked: scorers can enter games.".to_string()),
        Err(e) => Err(e),
    };
    match result {
        // Numbers the page never offers: a crafted request, answered 422 rather than sent back.
        Err(e @ Error::Invalid { .. }) if e.fields().any(|f| f == "seats") => Err(e.into()),
        // Refused: the page again with the seats as they were sent, so no swap is lost.
        Err(e @ (Error::Invalid { .. } | Error::Conflict(_))) => {
            let d = nights::details(&state, &posted.caller, *id).await?;
            let opened = codes_opened(&state, &d).await?;
            let mut ctx = page.ctx.clone();
            ctx.flash = Some(Flash {
                ok: false,
                text: format!("Not locked: {}", e.message()),
            });
            let mut res = page.render(night_page(ctx, d, sent, opened))?;
            *res.status_mut() = StatusCode::UNPROCESSABLE_ENTITY;
            res.extensions_mut().insert(OwnBody);
            Ok(res)
        }
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
        .map(|l| format!("{} closed.", l.session()));
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
        .map(|l| format!("{} reopened.", l.session()));
    after(&format!("/nights/{id}"), result)
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(show)
        .service(checkins)
        .service(propose)
        .service(lock)
        .service(checkins_previous)
        .service(seat_late)
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
