//! Cards: built-in and uploaded, listed with their lines; uploads refused with the engine's
//! line-numbered errors.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use actix_web::{HttpMessage, HttpRequest, HttpResponse, get, post, web};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::api::json;
use crate::auth::{Caller, Need};
use crate::error::{AppError, FieldError};
use crate::rules::pattern::{NumbersRule, SuitsRule, WindsRule};
use crate::rules::{Card, CardRef, builtin};
use crate::startup::AppState;
use crate::storage::{cards, cards::StoredCard, clubs};

/// Compiled uploaded cards by id. Cards never change once stored, so entries never go stale
/// and every process may keep its own.
#[derive(Default)]
pub struct CardCache(Mutex<HashMap<i64, Arc<Card>>>);

impl CardCache {
    const MAX: usize = 512;

    pub fn compiled(&self, stored: &StoredCard) -> Result<Arc<Card>, AppError> {
        if let Some(c) = self.0.lock().ok().and_then(|m| m.get(&stored.id).cloned()) {
            return Ok(c);
        }
        let card = Arc::new(Card::parse(&stored.source).map_err(|e| {
            AppError::Internal(anyhow::anyhow!(
                "stored card {} does not compile: {e:?}",
                stored.id
            ))
        })?);
        if let Ok(mut m) = self.0.lock() {
            if m.len() >= Self::MAX {
                m.clear();
            }
            m.insert(stored.id, card.clone());
        }
        Ok(card)
    }
}

/// Turns card-file errors into a 422 whose errors carry line and hand.
pub fn card_errors(errors: Vec<crate::rules::CardError>) -> AppError {
    let detail = format!(
        "the card file has {} error(s): {}",
        errors.len(),
        errors
            .iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("; ")
    );
    AppError::Unprocessable {
        detail,
        errors: errors
            .into_iter()
            .map(|e| FieldError {
                field: "source".into(),
                message: e.message,
                line: e.line,
                hand: e.hand,
            })
            .collect(),
    }
}

/// Resolves a card named in a request: a built-in name, the id of an uploaded card the caller
/// may see (public, or of a club the caller reads), or — when `inline` — a whole card file.
pub async fn resolve(
    state: &AppState,
    caller: &Caller,
    spec: &str,
    inline: bool,
) -> Result<CardRef, AppError> {
    if inline && spec.contains('\n') {
        return Card::parse(spec)
            .map(|c| CardRef::Shared(Arc::new(c)))
            .map_err(card_errors);
    }
    if let Some(card) = builtin::get(spec) {
        return Ok(CardRef::Builtin(card));
    }
    let not_found = || {
        AppError::invalid(
            "card",
            format!(
                "no card `{spec}`: give a built-in card ({}), the id of an uploaded card{}",
                builtin::names().collect::<Vec<_>>().join(", "),
                if inline { ", or a whole card file" } else { "" }
            ),
        )
    };
    let id: i64 = spec.trim().parse().map_err(|_| not_found())?;
    let stored = cards::get(&state.db, id).await?.ok_or_else(not_found)?;
    if !stored.public {
        let club = clubs::by_id(&state.db, stored.club_id)
            .await?
            .ok_or_else(not_found)?;
        caller
            .club_access(state, club, Need::Read)
            .await
            .map_err(|_| not_found())?;
    }
    Ok(CardRef::Shared(state.cards.compiled(&stored)?))
}

/// One line of a card.
#[derive(Serialize, ToSchema)]
pub struct LineView {
    #[schema(example = "2468#1")]
    pub id: String,
    /// The pattern, or its alternatives.
    pub patterns: Vec<String>,
    pub value: u32,
    pub concealed: bool,
    #[schema(example = "distinct")]
    pub suits: &'static str,
    /// `as-written`, `any`, or the values the lowest number may take.
    #[schema(value_type = Object, example = json!("any"))]
    pub numbers: serde_json::Value,
    #[schema(example = "as-written")]
    pub winds: &'static str,
    pub note: Option<String>,
    /// How many concrete targets the line stands for.
    pub targets: usize,
}

#[derive(Serialize, ToSchema)]
pub struct SectionView {
    pub name: String,
    pub lines: Vec<LineView>,
}

/// A card and its lines by section.
#[derive(Serialize, ToSchema)]
pub struct CardView {
    /// A built-in card's name, or an uploaded card's number.
    #[schema(example = "demo-2026")]
    pub id: String,
    pub name: String,
    pub year: i64,
    pub publisher: Option<String>,
    pub builtin: bool,
    pub public: bool,
    pub hands: usize,
    pub targets: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sections: Option<Vec<SectionView>>,
}

fn view(id: String, card: &Card, builtin: bool, public: bool, with_lines: bool) -> CardView {
    CardView {
        id,
        name: card.name.clone(),
        year: card.year,
        publisher: card.publisher.clone(),
        builtin,
        public,
        hands: card.lines.len(),
        targets: card.targets.len(),
        sections: with_lines.then(|| {
            card.sections
                .iter()
                .map(|s| SectionView {
                    name: s.clone(),
                    lines: card
                        .lines
                        .iter()
                        .filter(|l| &l.section == s)
                        .map(|l| LineView {
                            id: l.id.clone(),
                            patterns: l.patterns.clone(),
                            value: l.value,
                            concealed: l.concealed,
                            suits: match l.suits {
                                SuitsRule::Distinct => "distinct",
                                SuitsRule::Any => "any",
                            },
                            numbers: match &l.numbers {
                                NumbersRule::AsWritten => "as-written".into(),
                                NumbersRule::Any => "any".into(),
                                NumbersRule::Lowest(v) => serde_json::json!(v),
                            },
                            winds: match l.winds {
                                WindsRule::AsWritten => "as-written",
                                WindsRule::Any => "any",
                            },
                            note: l.note.clone(),
                            targets: l.targets.len(),
                        })
                        .collect(),
                })
                .collect()
        }),
    }
}

fn builtin_views(with_lines: bool) -> Vec<CardView> {
    builtin::names()
        .filter_map(|n| builtin::get(n).map(|c| view(n.to_string(), c, true, true, with_lines)))
        .collect()
}

fn stored_view(state: &AppState, s: &StoredCard, with_lines: bool) -> Result<CardView, AppError> {
    let card = state.cards.compiled(s)?;
    Ok(view(s.id.to_string(), &card, false, s.public, with_lines))
}

/// Built-in cards and cards clubs made public.
#[utoipa::path(tag = "cards", responses((status = 200, body = [CardView])))]
#[get("/api/v1/cards")]
pub async fn list_public(state: web::Data<AppState>) -> Result<HttpResponse, AppError> {
    let mut all = builtin_views(false);
    for s in cards::list_public(&state.db).await? {
        all.push(stored_view(&state, &s, false)?);
    }
    Ok(HttpResponse::Ok().json(all))
}

/// One card with its lines (built-in, public, or of a club the caller reads).
#[utoipa::path(tag = "cards", params(("id" = String, Path, description = "built-in name or uploaded card id")),
    responses((status = 200, body = CardView), (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[get("/api/v1/cards/{id}")]
pub async fn show(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let id = id.into_inner();
    if let Some(card) = builtin::get(&id) {
        return Ok(HttpResponse::Ok().json(view(id, card, true, true, true)));
    }
    let card = resolve(&state, &caller, &id, false)
        .await
        .map_err(|_| AppError::NotFound(format!("no card `{id}`")))?;
    let public = match id.parse::<i64>() {
        Ok(n) => cards::get(&state.db, n).await?.is_some_and(|c| c.public),
        Err(_) => false,
    };
    Ok(HttpResponse::Ok().json(view(id, &card, false, public, true)))
}

/// The club's uploaded cards, then the built-in ones.
#[utoipa::path(tag = "cards", params(("club" = String, Path)), responses((status = 200, body = [CardView])))]
#[get("/api/v1/clubs/{club}/cards")]
pub async fn list_for_club(
    state: web::Data<AppState>,
    caller: Caller,
    club: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let (club, _) = caller.club(&state, &club, Need::Read).await?;
    let mut all = Vec::new();
    for s in cards::list_for_club(&state.db, club.id).await? {
        all.push(stored_view(&state, &s, false)?);
    }
    all.extend(builtin_views(false));
    Ok(HttpResponse::Ok().json(all))
}

/// An upload as JSON (a card file can also be sent as the raw body, `Content-Type: application/toml`).
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CardUpload {
    /// The card file (TOML, rules.md §2).
    #[schema(
        example = "name = \"Club card\"\nyear = 2026\n\n[[hand]]\nsection = \"Winds\"\npattern = \"NNNN EEE WWW SSSS\"\nvalue = 25\n"
    )]
    pub source: String,
    /// Whether every club and the public API may see it.
    #[serde(default)]
    pub public: bool,
}

/// Upload a card file. Invalid files get 422 with each error's line and hand.
#[utoipa::path(tag = "cards", params(("club" = String, Path)), request_body = CardUpload,
    responses((status = 201, body = CardView),
              (status = 422, description = "The card file has errors", body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/clubs/{club}/cards")]
pub async fn upload(
    state: web::Data<AppState>,
    caller: Caller,
    club: web::Path<String>,
    req: HttpRequest,
    bytes: web::Bytes,
) -> Result<HttpResponse, AppError> {
    let (club, _) = caller.club(&state, &club, Need::Admin).await?;
    let upload: CardUpload = if req.content_type().ends_with("json") {
        json::parse(&bytes)?
    } else {
        CardUpload {
            source: String::from_utf8(bytes.to_vec())
                .map_err(|_| AppError::invalid("source", "the card file is not UTF-8 text"))?,
            public: false,
        }
    };
    let (stored, card) = store(&state, &club, &upload).await?;
    Ok(HttpResponse::Created().json(view(
        stored.id.to_string(),
        &card,
        false,
        stored.public,
        true,
    )))
}

/// Compiles and stores an uploaded card for the club (whose organizer the caller was checked
/// to be); a file with errors is refused with each error's line and hand (`card_errors`).
pub async fn store(
    state: &AppState,
    club: &clubs::Club,
    file: &CardUpload,
) -> Result<(StoredCard, Card), AppError> {
    let card = Card::parse(&file.source).map_err(card_errors)?;
    let year = i32::try_from(card.year)
        .map_err(|_| AppError::invalid("source", "year is out of range"))?;
    let stored = cards::create(
        &state.db,
        club.id,
        &card.name,
        year,
        &file.source,
        file.public,
    )
    .await?;
    Ok((stored, card))
}
