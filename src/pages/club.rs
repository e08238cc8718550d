//! A club's page: its leagues and players; organizers add players and start leagues.

use actix_web::{HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;

use super::{Ctx, Page, Posted, after};
use crate::api::leagues::{LeagueInput, create_league};
use crate::api::players::{NewPlayer, add_player};
use crate::auth::{Access, Need, Role};
use crate::error::AppError;
use crate::rules::{Ruleset, builtin};
use crate::startup::AppState;
use crate::storage::cards as stored_cards;
use crate::storage::clubs::{self, Club};
use crate::storage::leagues::{self, League};
use crate::storage::players::{self, Player};

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
    presets: Vec<&'static str>,
}

/// The viewer's role in the club, if any.
pub async fn role_in(state: &AppState, page: &Page, club: &Club) -> Option<Role> {
    match page
        .caller
        .club_access(state, club.clone(), Need::Read)
        .await
    {
        Ok((_, Access::Member { role, .. })) => Some(role),
        _ => None,
    }
}

#[get("/clubs/{slug}")]
async fn show(
    page: Page,
    state: web::Data<AppState>,
    slug: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let club = clubs::by_slug(&state.db, &slug)
        .await?
        .ok_or_else(|| AppError::NotFound(format!("no club `{slug}`")))?;
    let role = role_in(&state, &page, &club).await;
    let all = leagues::list(&state.db, club.id).await?;
    let leagues: Vec<League> = all
        .into_iter()
        .filter(|l| role.is_some() || l.visibility == "public")
        .collect();
    let organizer = role.is_some_and(|r| r >= Role::Organizer);
    let players = if role.is_some() {
        players::list(&state.db, club.id, false).await?
    } else {
        Vec::new()
    };
    let mut cards: Vec<(String, String)> = builtin::names()
        .map(|n| (n.to_string(), format!("{n} (built in)")))
        .collect();
    if organizer {
        for c in stored_cards::list_for_club(&state.db, club.id).await? {
            cards.push((
                c.id.to_string(),
                format!("{} {} (card {})", c.name, c.year, c.id),
            ));
        }
    }
    page.render(ClubPage {
        ctx: page.ctx.clone(),
        club,
        role: role.map(|r| r.as_str().to_string()),
        organizer,
        leagues,
        players,
        cards,
        presets: Ruleset::PRESETS.to_vec(),
    })
}

#[derive(Deserialize)]
struct PlayerForm {
    name: String,
}

#[post("/clubs/{slug}/players")]
async fn add(
    state: web::Data<AppState>,
    slug: web::Path<String>,
    posted: Posted<PlayerForm>,
) -> Result<HttpResponse, AppError> {
    let result = add_player(
        &state,
        &posted.caller,
        &slug,
        NewPlayer {
            name: posted.form.name,
        },
    )
    .await
    .map(|p| format!("{} joined the club's players.", p.name));
    after(&format!("/clubs/{slug}#players"), result)
}

#[derive(Deserialize)]
struct LeagueForm {
    name: String,
    card: String,
    ruleset: String,
    visibility: String,
    board: String,
    #[serde(default)]
    min_games: Option<String>,
}

#[post("/clubs/{slug}/leagues")]
async fn new_league(
    state: web::Data<AppState>,
    slug: web::Path<String>,
    posted: Posted<LeagueForm>,
) -> Result<HttpResponse, AppError> {
    let f = posted.form;
    let min_games = match f.min_games.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(n) => Some(
            n.parse::<i32>()
                .map_err(|_| AppError::invalid("min_games", "give a whole number of games")),
        ),
    }
    .transpose();
    let result = match min_games {
        Err(e) => Err(e),
        Ok(min_games) => create_league(
            &state,
            &posted.caller,
            &slug,
            LeagueInput {
                name: Some(f.name),
                card: Some(f.card),
                ruleset: Some(serde_json::Value::String(f.ruleset)),
                visibility: Some(f.visibility),
                board: Some(f.board),
                min_games,
                ..Default::default()
            },
        )
        .await
        .map(|(l, _)| l),
    };
    match result {
        Ok(l) => after(&format!("/leagues/{}", l.id), Ok("League created.".into())),
        Err(e) => after(&format!("/clubs/{slug}#new-league"), Err(e)),
    }
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(show).service(add).service(new_league);
}
