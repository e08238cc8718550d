//! A player's page: totals, nights played, best hands drawn as tiles. Club members see it;
//! so does anyone when the player plays in a public league (their standings link here).

use actix_web::{HttpResponse, get, post, web};
use askama::Template;

use super::view::{TileFace, faces};
use super::{Ctx, Page, Posted, after};
use crate::domain::AppState;
use crate::domain::people::clubs::Club;
use crate::domain::people::players::Line;
use crate::domain::people::players::{self, Link, NightLine, PlayerGame};
use crate::error::AppError;

struct BestHand {
    line: String,
    value: i32,
    tiles: Vec<TileFace>,
    /// "J = 8 Bam, J = 2 Crak"; empty when jokerless.
    jokers: String,
}

#[derive(Template)]
#[template(path = "pages/player.html")]
struct PlayerPage {
    ctx: Ctx,
    club: Club,
    name: String,
    totals: Line,
    average: String,
    nights: Vec<NightLine>,
    best: Vec<BestHand>,
    games: Vec<PlayerGame>,
    history_limit: i64,
    id: i64,
    link: Link,
    /// For organizers: the ranking id form's value.
    ranking_id: Option<String>,
    seasons: Vec<players::SeasonLine>,
}

#[get("/players/{id}")]
async fn show(
    page: Page,
    state: web::Data<AppState>,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let p = players::profile(&state, &page.caller, *id).await?;
    let best = p
        .best
        .into_iter()
        .map(|h| BestHand {
            line: h.line,
            value: h.value,
            tiles: faces(&h.tiles),
            jokers: faces(&h.jokers.join(" "))
                .iter()
                .map(|f| format!("J = {} {}", f.face, f.word))
                .collect::<Vec<_>>()
                .join(", "),
        })
        .collect();
    let totals = p.totals;
    let average = if totals.games > 0 {
        format!("{:.2}", totals.points as f64 / totals.games as f64)
    } else {
        "–".to_string()
    };
    page.render(PlayerPage {
        ctx: page.ctx.clone(),
        club: p.club,
        name: totals.name.clone(),
        average,
        nights: p.nights,
        totals,
        best,
        games: p.games,
        history_limit: players::HISTORY,
        id: *id,
        link: p.link,
        ranking_id: p.ranking_id,
        seasons: p.seasons,
    })
}

#[derive(serde::Deserialize)]
struct RankingForm {
    ranking_id: String,
}

/// An organizer sets or clears the player's ranking-body id.
#[post("/players/{id}/ranking")]
async fn ranking(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<RankingForm>,
) -> Result<HttpResponse, AppError> {
    let back = format!("/players/{id}");
    let club = match players::profile(&state, &posted.caller, *id).await {
        Ok(p) => p.club,
        Err(e) => return after(&back, Err(e)),
    };
    let change = players::PlayerChange {
        name: None,
        active: None,
        ranking_id: Some(posted.form.ranking_id.clone()),
    };
    let result = players::update(&state, &posted.caller, &club.slug, *id, change)
        .await
        .map(|p| match p.ranking_id {
            Some(r) => format!("{}'s ranking id is {r}.", p.name),
            None => format!("{} has no ranking id now.", p.name),
        });
    after(&back, result)
}

/// "This player is me": a member asks to be linked (an organizer confirms).
#[post("/players/{id}/claim")]
async fn claim(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<serde::de::IgnoredAny>,
) -> Result<HttpResponse, AppError> {
    let result = players::claim(&state, &posted.caller, *id).await;
    after(&format!("/players/{id}"), result)
}

#[derive(Template)]
#[template(path = "pages/me.html")]
struct MePage {
    ctx: Ctx,
    players: Vec<(i64, String, String, String)>,
}

/// My games: the players linked to the logged-in account, one per club.
#[get("/me")]
async fn me(page: Page, state: web::Data<AppState>) -> Result<HttpResponse, AppError> {
    let players = players::mine(&state, &page.caller).await?;
    page.render(MePage {
        ctx: page.ctx.clone(),
        players,
    })
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(show)
        .service(claim)
        .service(ranking)
        .service(me);
}
