//! A card's page: its lines by section, each group drawn in its colour as on a printed card.

use actix_web::{HttpResponse, get, web};
use askama::Template;

use super::{Ctx, Page};
use serde::Deserialize;

use crate::domain::cards::library::CardVersion;
use crate::domain::{AppState, cards::library as cards};
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
    /// The line in words ("four flowers, 2026 and two pungs of 2, all in one suit").
    words: String,
    /// Its options, a sentence each ("Any numbers: …").
    options: Vec<String>,
    /// Its options as the print says them ("any numbers").
    options_short: String,
}

struct Section {
    name: String,
    lines: Vec<LineRow>,
}

#[derive(Template)]
#[template(path = "pages/card.html")]
struct CardPage {
    ctx: Ctx,
    id: String,
    name: String,
    year: i64,
    publisher: Option<String>,
    sections: Vec<Section>,
    /// For a club's card: its version and every version of it.
    version: Option<i32>,
    versions: Vec<CardVersion>,
}

/// Whether a card's title shows its year after the name: not when the name says it already
/// ("Maple Street 2026").
fn year_apart(name: &str, year: i64) -> bool {
    !name.contains(&year.to_string())
}

impl CardPage {
    fn year_apart(&self) -> bool {
        year_apart(&self.name, self.year)
    }
}

impl PrintPage {
    fn year_apart(&self) -> bool {
        year_apart(&self.name, self.year)
    }
}

/// A card as printed for the table: the same lines, sized for a sheet of paper.
#[derive(Template)]
#[template(path = "pages/card_print.html")]
struct PrintPage {
    name: String,
    year: i64,
    publisher: Option<String>,
    sections: Vec<Section>,
    /// `A4` or `letter`, for the page's `@page` size.
    paper: &'static str,
}

#[derive(Deserialize)]
struct PrintQuery {
    paper: Option<String>,
}

#[get("/cards/{id}/print")]
async fn print(
    page: Page,
    state: web::Data<AppState>,
    id: web::Path<String>,
    q: web::Query<PrintQuery>,
) -> Result<HttpResponse, AppError> {
    let card = cards::find(&state, &page.caller, &id).await?;
    let paper = match q.paper.as_deref().map(str::to_ascii_lowercase).as_deref() {
        Some("a4") => "A4",
        _ => "letter",
    };
    page.render(PrintPage {
        name: card.name.clone(),
        year: card.year,
        publisher: card.publisher.clone(),
        sections: sections(&card),
        paper,
    })
}

#[get("/cards/{id}")]
async fn show(
    page: Page,
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let (card, stored) = cards::with_stored(&state, &page.caller, &id).await?;
    let (version, versions) = match &stored {
        Some(s) => (Some(s.version), cards::versions(&state, s).await?),
        None => (None, Vec::new()),
    };
    page.render(CardPage {
        ctx: page.ctx.clone(),
        id: id.into_inner(),
        name: card.name.clone(),
        year: card.year,
        publisher: card.publisher.clone(),
        sections: sections(&card),
        version,
        versions,
    })
}

fn sections(card: &crate::rules::Card) -> Vec<Section> {
    card.sections
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
                    words: crate::rules::words::line_words(&l.patterns, &l.suits, l.winds),
                    options: crate::rules::words::options_words(&l.suits, &l.numbers, l.winds),
                    options_short: crate::rules::words::options_short(
                        &l.suits, &l.numbers, l.winds,
                    )
                    .join(", "),
                })
                .collect(),
        })
        .collect()
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(print).service(show);
}
