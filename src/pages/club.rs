//! A club's page: its leagues and players; organizers add players and start leagues.

use actix_web::{HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;

use super::{Ctx, Page, Posted, after};
use crate::domain::clubs::{self, Club};
use crate::domain::leagues::{self, League, LeagueInput};
use crate::domain::players::{self, NewPlayer, Player};
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
    presets: Vec<&'static str>,
}

#[get("/clubs/{slug}")]
async fn show(
    page: Page,
    state: web::Data<AppState>,
    slug: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let o = clubs::overview(&state, &page.caller, &slug).await?;
    page.render(ClubPage {
        ctx: page.ctx.clone(),
        club: o.club,
        role: o.role.map(|r| r.as_str().to_string()),
        organizer: o.role.is_some_and(|r| r >= Role::Organizer),
        leagues: o.leagues,
        players: o.players,
        cards: o.cards,
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
    let result = players::add(
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
                .map_err(|_| Error::invalid("min_games", "give a whole number of games")),
        ),
    }
    .transpose();
    let result = match min_games {
        Err(e) => Err(e),
        Ok(min_games) => leagues::create(
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
