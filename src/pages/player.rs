//! A player's page: totals, nights played, best hands drawn as tiles. Club members see it;
//! so does anyone when the player plays in a public league (their standings link here).

use actix_web::{HttpResponse, get, web};
use askama::Template;

use super::view::{TileFace, faces};
use super::{Ctx, Page};
use crate::auth::Need;
use crate::error::AppError;
use crate::standings::Line;
use crate::startup::AppState;
use crate::storage::clubs::{self, Club};
use crate::storage::games::{self, NightLine};
use crate::storage::players;

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
    let not_found = || AppError::NotFound(format!("no player {id}"));
    let club_id = players::club_of(&state.db, *id)
        .await?
        .ok_or_else(not_found)?;
    let club = clubs::by_id(&state.db, club_id)
        .await?
        .ok_or_else(not_found)?;
    let member = page
        .caller
        .club_access(&state, club.clone(), Need::Read)
        .await
        .is_ok();
    if !member && !games::plays_in_public(&state.db, *id).await? {
        return Err(not_found());
    }
    let totals = games::player_totals(&state.db, *id)
        .await?
        .ok_or_else(not_found)?;
    let best = games::winning_hands(&state.db, *id)
        .await?
        .into_iter()
        .map(|(line, value, hand)| {
            let text = match hand {
                serde_json::Value::String(s) => s,
                serde_json::Value::Array(a) => a
                    .iter()
                    .filter_map(|t| t.as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
                _ => String::new(),
            };
            BestHand {
                line,
                value,
                tiles: faces(&text),
            }
        })
        .collect();
    let average = if totals.games > 0 {
        format!("{:.2}", totals.points as f64 / totals.games as f64)
    } else {
        "–".to_string()
    };
    page.render(PlayerPage {
        ctx: page.ctx.clone(),
        club,
        name: totals.name.clone(),
        average,
        nights: games::player_nights(&state.db, *id).await?,
        totals,
        best,
    })
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(show);
}
