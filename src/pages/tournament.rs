//! Tournament-day pages: check-in at the door, badges, where do I sit (and its projector view),
//! the live standings projector, the round's status and timer, and printed score sheets and
//! tent cards.

use actix_web::{HttpRequest, HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;

use super::{Ctx, Page, Posted, after};
use crate::domain::play::nights::{self, Night};
use crate::domain::play::rounds::{self, Badge, RoundStatus, SeatRow, TimerChange, TimerView};
use crate::domain::seasons::leagues::League;
use crate::domain::seasons::standings::Standing;
use crate::domain::{AppState, Error, Role};
use crate::error::AppError;

/// Minutes as "m:ss" (or "h:mm:ss").
fn clock(seconds: i64) -> String {
    let s = seconds.max(0);
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, (s % 3600) / 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

/// The timer in words, as the projector and officials see it.
fn timer_text(t: &TimerView) -> String {
    match (t.state.as_str(), t.left_seconds) {
        ("running", Some(left)) => format!("{} left", clock(left)),
        ("paused", Some(left)) => format!("Paused · {} left", clock(left)),
        ("over", _) => "Time is up".into(),
        _ => String::new(),
    }
}

struct DoorRow {
    id: i64,
    name: String,
    checked: bool,
}

#[derive(Template)]
#[template(path = "pages/door.html")]
struct DoorPage {
    ctx: Ctx,
    night: Night,
    league: League,
    rows: Vec<DoorRow>,
    checked: usize,
    missing: usize,
    closed: bool,
}

/// Check-in at the door: search as you type, one tap per player, who is still missing, late
/// registration, and badge codes from a scanner or the camera.
#[get("/nights/{id}/door")]
async fn door(
    page: Page,
    state: web::Data<AppState>,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let d = nights::details(&state, &page.caller, *id).await?;
    if d.role.is_none_or(|r| r < Role::Organizer) {
        return Err(
            Error::Forbidden("check-in at the door is for the club's organizers".into()).into(),
        );
    }
    let mut rows: Vec<DoorRow> = d
        .roster
        .into_iter()
        .map(|(p, checked)| DoorRow {
            id: p.id,
            name: p.name,
            checked,
        })
        .collect();
    rows.sort_by_key(|r| r.name.to_lowercase());
    let checked = rows.iter().filter(|r| r.checked).count();
    page.render(DoorPage {
        ctx: page.ctx.clone(),
        missing: rows.len() - checked,
        checked,
        rows,
        closed: d.night.status == "closed",
        night: d.night,
        league: d.league,
    })
}

#[derive(Deserialize)]
struct DoorForm {
    #[serde(default)]
    player: Option<i64>,
    /// A badge code typed by a scanner (or by hand).
    #[serde(default)]
    code: Option<String>,
    /// "in" or "out".
    #[serde(default)]
    to: Option<String>,
}

/// One tap at the door (without JavaScript; with it the page calls the API and stays put).
#[post("/nights/{id}/door")]
async fn door_tap(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<DoorForm>,
) -> Result<HttpResponse, AppError> {
    let f = posted.form;
    let player = match (f.player, f.code.as_deref().map(str::trim)) {
        (Some(p), _) => Ok(p),
        (None, Some(code)) if !code.is_empty() => match rounds::player_of_badge(code) {
            Some(p) => Ok(p),
            // A name typed without the page's script: the one player it names.
            None => by_name(&state, &posted.caller, *id, code).await,
        },
        _ => Err(Error::invalid(
            "code",
            "type a name, tap a player or scan a badge",
        )),
    };
    let result = match player {
        Ok(p) if f.to.as_deref() == Some("out") => {
            nights::check_out(&state, &posted.caller, *id, p)
                .await
                .map(|()| p)
        }
        Ok(p) => nights::check_in(&state, &posted.caller, *id, p)
            .await
            .map(|()| p),
        Err(e) => Err(e),
    };
    let result = match result {
        Ok(p) => {
            let d = nights::details(&state, &posted.caller, *id).await?;
            let name = d
                .roster
                .iter()
                .find(|(r, _)| r.id == p)
                .map(|(r, _)| r.name.clone())
                .unwrap_or_else(|| format!("player {p}"));
            let n = d.checked_in.len();
            let total = d.roster.len();
            Ok(if f.to.as_deref() == Some("out") {
                format!(
                    "{name} checked out. {n} of {total} here, {} missing.",
                    total - n
                )
            } else {
                format!(
                    "{name} checked in. {n} of {total} here, {} missing.",
                    total - n
                )
            })
        }
        Err(e) => Err(e),
    };
    after(&format!("/nights/{id}/door"), result)
}

/// The one club player whose name contains `text` (any case), for the door's search box.
async fn by_name(
    state: &AppState,
    caller: &crate::domain::Caller,
    night: i64,
    text: &str,
) -> Result<i64, Error> {
    let d = nights::details(state, caller, night).await?;
    let want = text.to_lowercase();
    let found: Vec<(i64, &str)> = d
        .roster
        .iter()
        .filter(|(p, _)| p.name.to_lowercase().contains(&want))
        .map(|(p, _)| (p.id, p.name.as_str()))
        .collect();
    match found.as_slice() {
        [(id, _)] => Ok(*id),
        [] => Err(Error::invalid(
            "code",
            format!("no player is named like “{text}”; register them below"),
        )),
        many => {
            let names: Vec<&str> = many.iter().take(5).map(|(_, n)| *n).collect();
            Err(Error::invalid(
                "code",
                format!(
                    "{} players match “{text}” ({}); tap the one you mean",
                    many.len(),
                    names.join(", ")
                ),
            ))
        }
    }
}

#[derive(Deserialize)]
struct RegisterForm {
    name: String,
}

/// Late registration: a new player, checked in at once.
#[post("/nights/{id}/door/register")]
async fn door_register(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<RegisterForm>,
) -> Result<HttpResponse, AppError> {
    let result = rounds::register_at_door(&state, &posted.caller, *id, &posted.form.name)
        .await
        .map(|p| format!("{} registered and checked in.", p.name));
    after(&format!("/nights/{id}/door"), result)
}

#[derive(Template)]
#[template(path = "pages/badges.html")]
struct BadgesPage {
    ctx: Ctx,
    league: League,
    badges: Vec<Badge>,
}

/// Printable badges, a QR code each (drawn here as SVG) that the door page accepts.
#[get("/leagues/{id}/badges")]
async fn badges(
    page: Page,
    state: web::Data<AppState>,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let (league, badges) = rounds::badges(&state, &page.caller, *id).await?;
    page.render(BadgesPage {
        ctx: page.ctx.clone(),
        league,
        badges,
    })
}

#[derive(Template)]
#[template(path = "pages/seats.html")]
struct SeatsPage {
    ctx: Ctx,
    night: Night,
    league: League,
    rows: Vec<SeatRow>,
    timer: String,
}

/// The projector view of the seats: full screen, pages by itself.
#[derive(Template)]
#[template(path = "pages/seats_screen.html")]
struct SeatsScreen {
    night: Night,
    league: League,
    rows: Vec<SeatRow>,
    timer: String,
}

#[derive(Deserialize)]
struct ScreenQuery {
    #[serde(default)]
    screen: Option<String>,
}

/// Where do I sit: every player of the round, alphabetically, with table and seat. Public
/// when the league is. `?screen=1`: the projector view.
#[get("/nights/{id}/seats")]
async fn seats(
    page: Page,
    state: web::Data<AppState>,
    id: web::Path<i64>,
    q: web::Query<ScreenQuery>,
) -> Result<HttpResponse, AppError> {
    let list = rounds::seats(&state, &page.caller, *id).await?;
    let shown = timer_text(&list.timer);
    if q.screen.is_some() {
        return page.render(SeatsScreen {
            timer: shown,
            night: list.night,
            league: list.league,
            rows: list.rows,
        });
    }
    page.render(SeatsPage {
        ctx: page.ctx.clone(),
        timer: shown,
        night: list.night,
        league: list.league,
        rows: list.rows,
    })
}

#[derive(Template)]
#[template(path = "pages/screen.html")]
struct ScreenPage {
    league: League,
    rows: Vec<Standing>,
    last_event: i64,
    round: Option<Night>,
    average: bool,
    figure_heading: &'static str,
}

/// The standings projector: large type, pages through long standings, and follows the league's
/// event stream (no reload).
#[get("/leagues/{id}/screen")]
async fn screen(
    page: Page,
    state: web::Data<AppState>,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let s = rounds::screen(&state, &page.caller, *id).await?;
    page.render(ScreenPage {
        average: s.overview.league.board == "average",
        figure_heading: super::view::figure_heading(&s.overview.league),
        league: s.overview.league,
        rows: s.overview.rows,
        last_event: s.last_event,
        round: s.round,
    })
}

#[derive(Template)]
#[template(path = "pages/status.html")]
struct StatusPage {
    ctx: Ctx,
    league: League,
    status: RoundStatus,
    timer: String,
    organizer: bool,
}

/// The round at a glance for officials: tables done and behind, and the timer's controls.
#[get("/nights/{id}/status")]
async fn status(
    page: Page,
    state: web::Data<AppState>,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let d = nights::details(&state, &page.caller, *id).await?;
    let status = rounds::status(&state, &page.caller, *id).await?;
    page.render(StatusPage {
        ctx: page.ctx.clone(),
        timer: timer_text(&status.timer),
        organizer: d.role.is_some_and(|r| r >= Role::Organizer),
        league: d.league,
        status,
    })
}

#[derive(Deserialize)]
struct TimerForm {
    action: String,
    #[serde(default)]
    minutes: Option<String>,
}

#[post("/nights/{id}/timer")]
async fn set_timer(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<TimerForm>,
) -> Result<HttpResponse, AppError> {
    let f = posted.form;
    let minutes = match f.minutes.as_deref().map(str::trim) {
        None | Some("") => Ok(None),
        Some(m) => m
            .parse::<i32>()
            .map(Some)
            .map_err(|_| Error::invalid("minutes", "give the round's length in whole minutes")),
    };
    let result = match minutes {
        Ok(minutes) => rounds::set_timer(
            &state,
            &posted.caller,
            *id,
            TimerChange {
                minutes: if f.action == "start" { minutes } else { None },
                action: f.action,
            },
        )
        .await
        .map(|s| match s.timer.state.as_str() {
            "running" => format!("Timer running: {}.", timer_text(&s.timer)),
            "paused" => format!("Timer {}.", timer_text(&s.timer).to_lowercase()),
            _ => "Timer reset.".into(),
        }),
        Err(e) => Err(e),
    };
    after(&format!("/nights/{id}/status"), result)
}

#[derive(Template)]
#[template(path = "pages/print.html")]
struct PrintPage {
    ctx: Ctx,
    night: Night,
    league: League,
    tables: Vec<(i32, Vec<(String, &'static str)>)>,
    games: Vec<i32>,
    tents: bool,
    /// Each table's code and QR code, on tent cards an organizer prints while codes are open.
    codes: Vec<super::codes::Shown>,
}

impl PrintPage {
    fn code_of(&self, table: &i32) -> Option<&super::codes::Shown> {
        self.codes.iter().find(|c| c.number == *table)
    }
}

#[derive(Deserialize)]
struct PrintQuery {
    #[serde(default)]
    what: Option<String>,
}

/// Score sheets (default) or tent cards (`?what=tents`) for every table, one per printed page;
/// an organizer's tent cards carry each table's working code and QR code (none are made).
#[get("/nights/{id}/print")]
async fn print(
    page: Page,
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<i64>,
    q: web::Query<PrintQuery>,
) -> Result<HttpResponse, AppError> {
    let (night, league, tables) = rounds::printing(&state, &page.caller, *id).await?;
    let tents = q.what.as_deref() == Some("tents");
    let codes = if tents {
        match crate::domain::play::codes::shown(&state, &page.caller, *id).await {
            Ok((opened, _)) => super::codes::shown(&req, opened)?,
            // A scorer, or a closed night: cards without codes.
            Err(Error::Forbidden(_) | Error::Conflict(_) | Error::NotFound(_)) => Vec::new(),
            Err(e) => return Err(e.into()),
        }
    } else {
        Vec::new()
    };
    page.render(PrintPage {
        ctx: page.ctx.clone(),
        games: (1..=league.games_per_table).collect(),
        night,
        league,
        tables,
        tents,
        codes,
    })
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(door)
        .service(door_tap)
        .service(door_register)
        .service(badges)
        .service(seats)
        .service(screen)
        .service(embed)
        .service(status)
        .service(set_timer)
        .service(print);
}

#[cfg(test)]
mod tests {
    use super::clock;

    #[test]
    fn clocks_read_as_minutes_and_seconds() {
        assert_eq!(clock(0), "0:00");
        assert_eq!(clock(65), "1:05");
        assert_eq!(clock(3725), "1:02:05");
        assert_eq!(clock(-4), "0:00");
    }
}

#[derive(Template)]
#[template(path = "pages/embed.html")]
struct EmbedPage {
    league: League,
    club_name: String,
    rows: Vec<Standing>,
    last_event: i64,
    average: bool,
    /// The figure's heading, as the league page names it ("Counted points" on a board that
    /// does not count every game).
    figure_heading: &'static str,
    /// The board in a few words.
    board_short: String,
    /// Open play: games entered that do not count yet (waiting for their players or an
    /// organizer).
    waiting: i64,
}

/// A public league's standings, small, for a club's website to frame (`<iframe>`): any site may
/// frame it, it follows the league's event stream, and it fits a sidebar or a full column.
/// Other leagues are not found here, whoever asks.
#[get("/leagues/{id}/embed")]
async fn embed(state: web::Data<AppState>, id: web::Path<i64>) -> Result<HttpResponse, AppError> {
    let s = rounds::embed(&state, *id).await?;
    let body = EmbedPage {
        average: s.overview.league.board == "average",
        figure_heading: super::view::figure_heading(&s.overview.league),
        board_short: crate::domain::seasons::standings::board_short(&s.overview.league),
        club_name: s.overview.club.name.clone(),
        waiting: s.overview.waiting.0 + s.overview.waiting.1,
        league: s.overview.league,
        rows: s.overview.rows,
        last_event: s.last_event,
    }
    .render()
    .map_err(AppError::internal)?;
    let mut res = HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header(("Cache-Control", "no-cache"))
        .body(body);
    res.extensions_mut().insert(crate::http::security::Framable);
    Ok(res)
}
