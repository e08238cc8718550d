//! A club's page: its leagues and players; organizers add players and start leagues.

use actix_web::{HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;

use super::league::{LeagueForm, league_input};
use super::view::LeagueFields;
use super::{Ctx, Flash, Page, Posted, after};
use crate::domain::people::clubs::{self, Club};
use crate::domain::people::players::{self, Player};
use crate::domain::seasons::leagues::{self, League};
use crate::domain::{AppState, Error, Role};
use crate::error::AppError;
use crate::rules::Ruleset;

#[derive(Template)]
#[template(path = "pages/club.html")]
struct ClubPage {
    ctx: Ctx,
    club: Club,
    /// The viewer's role, when they belong to the club.
    role: Option<String>,
    organizer: bool,
    leagues: Vec<League>,
    players: Vec<Player>,
    /// Cards a new league can use: (value for the form, label).
    cards: Vec<(String, String)>,
    /// The scoring presets: (value for the form, name in words).
    presets: Vec<(&'static str, &'static str)>,
    lf: LeagueFields,
    /// The add-players box: the names not added last time, to fix and send again.
    names: String,
    /// For organizers: every player with who they are on the service.
    roster: Vec<crate::domain::people::players::RosterRow>,
    /// For organizers: what the club's zone was stored as when it was no zone's name (the club
    /// is on UTC until they pick one).
    zone_to_pick: Option<String>,
    zones: &'static [(String, String)],
    /// For a former member: when and how she left, in words.
    departed: Option<String>,
}

impl ClubPage {
    /// The club's zone as people say it: "Eastern Time (New York)".
    fn zone_said(&self) -> String {
        crate::domain::clock::said(&self.club.time_zone)
    }

    /// What a roster row says about who the player is on the service.
    fn standing(&self, r: &crate::domain::people::players::RosterRow) -> String {
        match (&r.account, &r.claimer, &r.invited) {
            (Some(a), _, _) => format!("✓ Linked to {a}'s account"),
            (None, Some(c), _) => format!("{c} says they are {}: confirm on Members", r.name),
            (None, None, Some(email)) => format!("✉ Invited ({email}), not joined yet"),
            (None, None, None) => "Not linked to an account".to_string(),
        }
    }
}

#[get("/clubs/{slug}")]
async fn show(
    page: Page,
    state: web::Data<AppState>,
    slug: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    club_page(&page, &state, &slug, page.ctx.clone(), String::new()).await
}

async fn club_page(
    page: &Page,
    state: &AppState,
    slug: &str,
    ctx: Ctx,
    names: String,
) -> Result<HttpResponse, AppError> {
    // A former member is told so: on the page strangers see, or instead of its 404. Members
    // (nearly every view) are not looked up again.
    let o = match clubs::overview(state, &page.caller, slug).await {
        Ok(o) => o,
        Err(Error::NotFound(e)) => {
            return match clubs::departed(state, &page.caller, slug).await? {
                Some((club, words)) => page.render_as(
                    actix_web::http::StatusCode::FORBIDDEN,
                    DepartedPage { ctx, club, words },
                ),
                None => Err(Error::NotFound(e).into()),
            };
        }
        Err(e) => return Err(e.into()),
    };
    let departed = match o.role {
        Some(_) => None,
        None => clubs::departed(state, &page.caller, slug).await?,
    };
    let organizer = o.role.is_some_and(|r| r >= Role::Organizer);
    let (roster, zone_to_pick) = if organizer {
        let club = crate::domain::access::organized(state, &page.caller, slug).await?;
        (
            players::roster(state, &club).await?,
            clubs::zone_to_pick(state, &o.club).await?,
        )
    } else {
        (Vec::new(), None)
    };
    page.render(ClubPage {
        roster,
        zone_to_pick,
        zones: crate::domain::clock::picker(),
        ctx,
        names,
        club: o.club,
        role: o.role.map(|r| r.as_str().to_string()),
        organizer,
        leagues: o.leagues,
        players: o.players,
        cards: o.cards,
        presets: Ruleset::PRESETS
            .iter()
            .map(|p| (*p, super::view::preset_words(p)))
            .collect(),
        lf: LeagueFields::default(),
        departed: departed.map(|(_, words)| words),
    })
}

/// What a former member sees when she opens a club that has no public league.
#[derive(Template)]
#[template(path = "pages/departed.html")]
struct DepartedPage {
    ctx: Ctx,
    club: Club,
    words: String,
}

#[derive(Deserialize)]
struct PlayerForm {
    /// One name per line, or a CSV with a `name` column.
    names: String,
}

/// What adding players did, in words: who was added, who was not and why.
fn added_text(a: &players::Added) -> String {
    let mut text = match a.added.len() {
        0 => String::from("No player added."),
        1 => format!("{} joined the club's players.", a.added[0]),
        n => format!("{n} players added: {}.", a.added.join(", ")),
    };
    if !a.skipped.is_empty() {
        let why: Vec<String> = a
            .skipped
            .iter()
            .map(|(n, reason)| format!("{n} ({reason})"))
            .collect();
        text.push_str(&format!(
            " Not added: {}. They are left in the box to fix.",
            why.join("; ")
        ));
    }
    text
}

/// Adds the players listed. When some names are not added (already players, too long …), the
/// page answers itself with those names left in the box to fix, and says which were added.
#[post("/clubs/{slug}/players")]
async fn add(
    page: Page,
    state: web::Data<AppState>,
    slug: web::Path<String>,
    posted: Posted<PlayerForm>,
) -> Result<HttpResponse, AppError> {
    let outcome = players::add_many(&state, &posted.caller, &slug, &posted.form.names).await;
    if let Ok(a) = &outcome
        && !a.skipped.is_empty()
    {
        let left: Vec<&str> = a.skipped.iter().map(|(n, _)| n.as_str()).collect();
        let mut ctx = page.ctx.clone();
        ctx.flash = Some(Flash {
            ok: !a.added.is_empty(),
            text: added_text(a),
        });
        let mut res = club_page(&page, &state, &slug, ctx, left.join("\n")).await?;
        if a.added.is_empty() {
            *res.status_mut() = actix_web::http::StatusCode::UNPROCESSABLE_ENTITY;
            res.extensions_mut().insert(crate::error::OwnBody);
        }
        return Ok(res);
    }
    let result = outcome.and_then(|a| {
        if a.added.is_empty() {
            Err(Error::Conflict(added_text(&a)))
        } else {
            Ok(added_text(&a))
        }
    });
    after(&format!("/clubs/{slug}#players"), result)
}

#[post("/clubs/{slug}/leagues")]
async fn new_league(
    state: web::Data<AppState>,
    slug: web::Path<String>,
    posted: Posted<LeagueForm>,
) -> Result<HttpResponse, AppError> {
    let result = match league_input(posted.form, true) {
        Err(e) => Err(e),
        Ok(input) => leagues::create(&state, &posted.caller, &slug, input)
            .await
            .map(|(l, _)| l),
    };
    match result {
        Ok(l) => after(&format!("/leagues/{}", l.id), Ok("League created.".into())),
        Err(e) => after(
            &format!("/clubs/{slug}#new-league"),
            Err(super::view::league_form_refusal(e)),
        ),
    }
}

#[derive(Deserialize)]
struct InviteForm {
    email: String,
}

/// Invites a player by mail from their row on the player list.
#[post("/clubs/{slug}/players/{id}/invite")]
async fn invite(
    state: web::Data<AppState>,
    path: web::Path<(String, i64)>,
    posted: Posted<InviteForm>,
) -> Result<HttpResponse, AppError> {
    let (slug, id) = path.into_inner();
    let result = crate::domain::people::members::invite_player(
        &state,
        &posted.caller,
        &slug,
        id,
        crate::domain::people::members::InvitePlayer {
            email: posted.form.email.clone(),
        },
    )
    .await
    .map(|done| match done {
        crate::domain::people::members::PlayerInvited::Invited(i) => i.message,
        crate::domain::people::members::PlayerInvited::Linked(m) => m,
    });
    after(&format!("/clubs/{slug}#player-{id}"), result)
}

#[derive(Deserialize)]
struct SettingsForm {
    name: String,
    time_zone: String,
}

/// Renames the club or sets its clock.
#[post("/clubs/{slug}/settings")]
async fn settings(
    state: web::Data<AppState>,
    slug: web::Path<String>,
    posted: Posted<SettingsForm>,
) -> Result<HttpResponse, AppError> {
    let f = &posted.form;
    let change = |zone: &str| clubs::ClubChange {
        name: Some(f.name.clone()),
        time_zone: Some(zone.to_string()),
    };
    let mut result = clubs::update(&state, &posted.caller, &slug, change(&f.time_zone)).await;
    // A word with one zone it means ("Eastern", "Chicago", "New York") is taken as that zone at
    // once, and the page says which: the next tap is not another try.
    let mut meant = None;
    if let Err(Error::Invalid { errors, .. }) = &result
        && let [e] = errors.as_slice()
        && e.field == "time_zone"
        && let Some(zone) = e.suggestion.clone()
    {
        result = clubs::update(&state, &posted.caller, &slug, change(&zone)).await;
        meant = Some(f.time_zone.trim().to_string());
    }
    let result = result.map(|c| {
        let clock = crate::domain::clock::Clock::of(&c.time_zone);
        let read = match &meant {
            Some(typed) => format!(
                "“{typed}” is {} ({}). ",
                crate::domain::clock::said(&c.time_zone),
                c.time_zone
            ),
            None => String::new(),
        };
        format!(
            "Saved. {read}{}'s clock is {}: it is {} there now.",
            c.name,
            crate::domain::clock::said(&c.time_zone),
            clock.at(chrono::Utc::now())
        )
    });
    after(&format!("/clubs/{slug}#settings"), result)
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(show)
        .service(add)
        .service(new_league)
        .service(invite)
        .service(settings);
}
