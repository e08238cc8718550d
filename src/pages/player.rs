//! A player's page: totals, nights played, best hands drawn as tiles. Club members see it;
//! so does anyone when the player plays in a public league (their standings link here).

use actix_web::{HttpResponse, get, web};
use askama::Template;

use super::view::{TileFace, faces};
use super::{Ctx, Page};
use crate::domain::AppState;
use crate::domain::clubs::Club;
use crate::domain::players::Line;
use crate::domain::players::{self, NightLine};
use crate::error::AppError;

struct BestHand {
    line: String,
    value: i32,
    tiles: Vec<TileFace>,
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
    })
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(show);
}
