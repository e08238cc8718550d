//! The card editor's pages: where a card starts (blank, a built-in card, a club card as next
//! year's or as its next version), the editor itself (the page's script checks each line as it
//! is typed and saves the draft as it goes), publishing, and comparing two cards side by side.

use actix_web::{HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;

use super::{Ctx, Flash, Page, Posted, after, redirect};
use crate::domain::cards::drafts::{self as card_drafts, DraftListing, DrawnGroup, NewDraft};
use crate::domain::cards::library::{self as cards, StoredCard};
use crate::domain::people::clubs::Club;
use crate::domain::people::members::organized;
use crate::domain::{AppState, Error};
use crate::error::AppError;
use crate::rules::card_text::{Change, compare};
use crate::rules::{Ruleset, builtin};

#[derive(Template)]
#[template(path = "pages/card_new.html")]
struct NewPage {
    ctx: Ctx,
    club: Club,
    builtins: Vec<(&'static str, String)>,
    cards: Vec<StoredCard>,
    drafts: Vec<DraftListing>,
}

impl NewPage {
    /// A moment on the club's clock.
    fn clock(&self) -> crate::domain::clock::Clock {
        crate::domain::clock::Clock::of(&self.club.time_zone)
    }
}

#[get("/clubs/{slug}/cards/new")]
async fn new_page(
    page: Page,
    state: web::Data<AppState>,
    slug: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let club = organized(&state, &page.caller, &slug).await?;
    let builtins = builtin::names()
        .filter_map(|n| builtin::get(n).map(|c| (n, format!("{} {}", c.name, c.year))))
        .collect();
    page.render(NewPage {
        ctx: page.ctx.clone(),
        club: club.club().clone(),
        builtins,
        cards: cards::latest(&state, &club).await?,
        drafts: card_drafts::list(&state, &club).await?,
    })
}

#[derive(Deserialize)]
struct StartForm {
    #[serde(default)]
    from: String,
    #[serde(default)]
    r#as: String,
}

#[post("/clubs/{slug}/cards/new")]
async fn start(
    state: web::Data<AppState>,
    slug: web::Path<String>,
    posted: Posted<StartForm>,
) -> Result<HttpResponse, AppError> {
    let club = organized(&state, &posted.caller, &slug).await?;
    let new = NewDraft {
        from: posted.form.from.clone(),
        r#as: posted.form.r#as.clone(),
    };
    match card_drafts::start(&state, &posted.caller, &club, &new).await {
        Ok(d) => Ok(redirect(
            &format!("/clubs/{slug}/cards/drafts/{}", d.id),
            None,
        )),
        Err(e) => after(&format!("/clubs/{slug}/cards/new"), Err(e)),
    }
}

#[derive(Template)]
#[template(path = "pages/card_editor.html")]
struct EditorPage {
    ctx: Ctx,
    club: Club,
    id: i64,
    /// The draft with its checks, as the API answers it, for the page's script.
    draft: String,
    replaces: Option<StoredCard>,
    presets: &'static [&'static str],
}

#[get("/clubs/{slug}/cards/drafts/{id}")]
async fn editor(
    page: Page,
    state: web::Data<AppState>,
    path: web::Path<(String, i64)>,
) -> Result<HttpResponse, AppError> {
    let (slug, id) = path.into_inner();
    let club = organized(&state, &page.caller, &slug).await?;
    let draft = card_drafts::get(&state, &club, id).await?;
    let replaces = match draft.replaces {
        Some(r) => {
            crate::domain::cards::library::stored(&state, &page.caller, &r.to_string()).await?
        }
        None => None,
    };
    page.render(EditorPage {
        ctx: page.ctx.clone(),
        club: club.club().clone(),
        id,
        draft: serde_json::to_string(&draft).map_err(AppError::internal)?,
        replaces,
        presets: &Ruleset::PRESETS,
    })
}

#[derive(Deserialize)]
struct PublishForm {
    revision: i32,
}

#[post("/clubs/{slug}/cards/drafts/{id}/publish")]
async fn publish(
    state: web::Data<AppState>,
    path: web::Path<(String, i64)>,
    posted: Posted<PublishForm>,
) -> Result<HttpResponse, AppError> {
    let (slug, id) = path.into_inner();
    let club = organized(&state, &posted.caller, &slug).await?;
    let here = format!("/clubs/{slug}/cards/drafts/{id}");
    match card_drafts::publish(&state, &club, id, posted.form.revision).await {
        Ok((stored, view)) => {
            let text = if stored.version > 1 {
                format!(
                    "{} {} published as version {}: {} lines. Leagues on an earlier version keep it until you move them, from each league's page.",
                    view.name, view.year, stored.version, view.hands
                )
            } else {
                format!(
                    "{} {} published: {} lines. Leagues can now play it.",
                    view.name, view.year, view.hands
                )
            };
            Ok(redirect(
                &format!("/cards/{}", stored.id),
                Some(Flash { ok: true, text }),
            ))
        }
        Err(Error::Invalid { detail, .. }) => after(
            &here,
            Err(Error::invalid("card", format!("Not published: {detail}"))),
        ),
        Err(e) => after(&here, Err(e)),
    }
}

#[post("/clubs/{slug}/cards/drafts/{id}/delete")]
async fn discard(
    state: web::Data<AppState>,
    path: web::Path<(String, i64)>,
    posted: Posted<serde::de::IgnoredAny>,
) -> Result<HttpResponse, AppError> {
    let (slug, id) = path.into_inner();
    let club = organized(&state, &posted.caller, &slug).await?;
    let result = card_drafts::discard(&state, &club, id)
        .await
        .map(|_| "Draft thrown away.".to_string());
    after(&format!("/clubs/{slug}/cards/new"), result)
}

/// One side of a compared line.
struct Side {
    id: String,
    section: String,
    value: u32,
    concealed: bool,
    drawing: Vec<Vec<DrawnGroup>>,
    note: Option<String>,
}

struct Row {
    change: &'static str,
    /// The line before and after.
    sides: [Option<Side>; 2],
}

#[derive(Template)]
#[template(path = "pages/card_compare.html")]
struct ComparePage {
    ctx: Ctx,
    a: (String, String),
    b: (String, String),
    rows: Vec<Row>,
    same: usize,
}

#[derive(Deserialize)]
struct CompareQuery {
    a: String,
    b: String,
}

fn side(card: &crate::rules::Card, i: usize) -> Side {
    let l = &card.lines[i];
    Side {
        id: l.id.clone(),
        section: l.section.clone(),
        value: l.value,
        concealed: l.concealed,
        drawing: card_drafts::drawing(&l.patterns.join(" or ")),
        note: l.note.clone(),
    }
}

fn title(card: &crate::rules::Card, stored: &Option<StoredCard>) -> String {
    match stored {
        Some(s) => format!("{} {}, version {}", card.name, card.year, s.version),
        None => format!("{} {}", card.name, card.year),
    }
}

#[get("/cards/compare")]
async fn compare_page(
    page: Page,
    state: web::Data<AppState>,
    q: web::Query<CompareQuery>,
) -> Result<HttpResponse, AppError> {
    let (a, a_stored) = cards::with_stored(&state, &page.caller, &q.a).await?;
    let (b, b_stored) = cards::with_stored(&state, &page.caller, &q.b).await?;
    let compared = compare(&a, &b);
    let same = compared.iter().filter(|r| r.change == Change::Same).count();
    let rows = compared
        .into_iter()
        .filter(|r| r.change != Change::Same)
        .map(|r| Row {
            change: match r.change {
                Change::Added => "added",
                Change::Removed => "removed",
                _ => "changed",
            },
            sides: [r.before.map(|i| side(&a, i)), r.after.map(|j| side(&b, j))],
        })
        .collect();
    page.render(ComparePage {
        ctx: page.ctx.clone(),
        a: (q.a.clone(), title(&a, &a_stored)),
        b: (q.b.clone(), title(&b, &b_stored)),
        rows,
        same,
    })
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(new_page)
        .service(start)
        .service(editor)
        .service(publish)
        .service(discard)
        .service(compare_page);
}
