//! A card's page: its lines by section, each group drawn in its colour as on a printed card.

use actix_web::{HttpResponse, get, web};
use askama::Template;

use super::{Ctx, Page};
use crate::domain::{AppState, cards};
use crate::error::AppError;
use crate::rules::pattern::Pattern;

struct Group {
    text: String,
    /// `c0`, `c1`, `c2` for the first, second, third colour; `plain` for unsuited groups.
    class: String,
}

struct LineRow {
    id: String,
    value: u32,
    concealed: bool,
    /// Each alternative pattern as groups.
    alternatives: Vec<Vec<Group>>,
    note: Option<String>,
}

struct Section {
    name: String,
    lines: Vec<LineRow>,
}

#[derive(Template)]
#[template(path = "pages/card.html")]
struct CardPage {
    ctx: Ctx,
    name: String,
    year: i64,
    publisher: Option<String>,
    sections: Vec<Section>,
}

#[get("/cards/{id}")]
async fn show(
    page: Page,
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let card = cards::find(&state, &page.caller, &id).await?;
    let card: &crate::rules::Card = &card;
    let sections = card
        .sections
        .iter()
        .map(|s| Section {
            name: s.clone(),
            lines: card
                .lines
                .iter()
                .filter(|l| &l.section == s)
                .map(|l| LineRow {
                    id: l.id.clone(),
                    value: l.value,
                    concealed: l.concealed,
                    alternatives: l
                        .patterns
                        .iter()
                        .map(|p| {
                            Pattern::parse(p)
                                .map(|p| {
                                    p.display_groups()
                                        .into_iter()
                                        .map(|(text, colour)| Group {
                                            text,
                                            class: colour
                                                .map(|c| format!("c{}", c % 3))
                                                .unwrap_or_else(|| "plain".to_string()),
                                        })
                                        .collect()
                                })
                                .unwrap_or_default()
                        })
                        .collect(),
                    note: l.note.clone(),
                })
                .collect(),
        })
        .collect();
    page.render(CardPage {
        ctx: page.ctx.clone(),
        name: card.name.clone(),
        year: card.year,
        publisher: card.publisher.clone(),
        sections,
    })
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(show);
}
