//! The card editor's API: one line checked at each keystroke (stateless, like the engine), a
//! club's drafts saved as they are typed, pasted, tried with a hand and published; and any card
//! the caller may read back as its card file.

use actix_web::HttpRequest;
use actix_web::{HttpResponse, delete, get, post, put, web};
use serde::Deserialize;
use utoipa::ToSchema;

use crate::api::json::{self, ValidJson};
use crate::domain::cards::drafts::{
    self as card_drafts, DraftListing, DraftSave, DraftView, LineCheck, LineCheckRequest, NewDraft,
    Paste, TryAnswer, TryHand,
};
use crate::domain::cards::library::{self as cards, CardView};
use crate::domain::people::members::Organized;
use crate::domain::{AppState, Caller, people::members};
use crate::error::AppError;

crate::api::listed!(DraftList, drafts, DraftListing);

/// A draft's club, when the caller runs it (checked before any body is read), and its id.
async fn draft_of(
    state: &AppState,
    caller: &Caller,
    path: web::Path<(String, i64)>,
) -> Result<(Organized, i64), AppError> {
    let (club, id) = path.into_inner();
    Ok((members::organized(state, caller, &club).await?, id))
}

/// Check one hand line with the card parser, as the editor does at each keystroke: its problems
/// in words, how many concrete hands it stands for, and its pattern as drawn.
#[utoipa::path(operation_id = "check_line", tag = "engine", request_body = LineCheckRequest,
    responses((status = 200, body = LineCheck),
              (status = 422, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 429, description = "Rate limited", body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/lines/check")]
pub async fn check_line(
    state: web::Data<AppState>,
    body: ValidJson<LineCheckRequest>,
) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok().json(card_drafts::check_line(&state, body.0).await?))
}

/// A card's file (rules.md §2) for any card the caller may read; uploading it gives the same hands.
#[utoipa::path(operation_id = "card_source", tag = "cards", params(("id" = String, Path, description = "built-in name or uploaded card id", example = "demo-2026")),
    responses((status = 200, description = "The card file", content_type = "application/toml", body = String),
              (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[get("/api/v1/cards/{id}/source")]
pub async fn source(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let (file, text) = cards::source(&state, &caller, &id).await?;
    Ok(HttpResponse::Ok()
        .content_type("application/toml; charset=utf-8")
        .insert_header((
            "Content-Disposition",
            format!("inline; filename=\"{file}\""),
        ))
        .body(text))
}

/// The club's card drafts, last changed first.
#[utoipa::path(operation_id = "list_card_drafts", tag = "cards", params(("club" = String, Path, example = "tuesday-tiles"), crate::api::PageParams), responses((status = 200, body = DraftList)))]
#[get("/api/v1/clubs/{club}/card-drafts")]
pub async fn list(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    club: web::Path<String>,
    page: web::Query<crate::api::PageParams>,
) -> Result<HttpResponse, AppError> {
    let club = members::organized(&state, &caller, &club).await?;
    let items = card_drafts::list(&state, &club).await?;
    DraftList::page(&state, &req, items, &page, |_, d| d.id)
}

/// Start a card draft (no body: a blank card): blank, from a built-in card, from one of the club's cards as next year's
/// (`as: copy`), or as the next version of one (`as: version`).
#[utoipa::path(operation_id = "start_card_draft", tag = "cards", params(("club" = String, Path, example = "tuesday-tiles")), request_body = Option<NewDraft>,
    responses((status = 201, body = DraftView), (status = 422, body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/clubs/{club}/card-drafts")]
pub async fn start(
    state: web::Data<AppState>,
    caller: Caller,
    club: web::Path<String>,
    bytes: web::Bytes,
) -> Result<HttpResponse, AppError> {
    let club = members::organized(&state, &caller, &club).await?;
    // No body (or `null`): a blank card.
    let new: NewDraft = if bytes.trim_ascii().is_empty() || bytes.trim_ascii() == b"null" {
        NewDraft::default()
    } else {
        json::parse(&bytes)?
    };
    Ok(HttpResponse::Created().json(card_drafts::start(&state, &caller, &club, &new).await?))
}

/// One draft with its problems, line by line.
#[utoipa::path(operation_id = "show_card_draft", tag = "cards", params(("club" = String, Path, example = "tuesday-tiles"), ("id" = i64, Path)),
    responses((status = 200, body = DraftView), (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[get("/api/v1/clubs/{club}/card-drafts/{id}")]
pub async fn show(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(String, i64)>,
) -> Result<HttpResponse, AppError> {
    let (club, id) = draft_of(&state, &caller, path).await?;
    Ok(HttpResponse::Ok().json(card_drafts::get(&state, &club, id).await?))
}

/// Save a draft as it now stands. The save names the revision it changed: a save from an older
/// revision (another device saved meanwhile) is refused with 409, never stored over the newer.
#[utoipa::path(operation_id = "save_card_draft", tag = "cards", params(("club" = String, Path, example = "tuesday-tiles"), ("id" = i64, Path)), request_body = DraftSave,
    responses((status = 200, body = DraftView),
              (status = 409, description = "Another device saved first", body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 422, body = crate::error::Problem, content_type = "application/problem+json")))]
#[put("/api/v1/clubs/{club}/card-drafts/{id}")]
pub async fn save(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(String, i64)>,
    bytes: web::Bytes,
) -> Result<HttpResponse, AppError> {
    let (club, id) = draft_of(&state, &caller, path).await?;
    let body: DraftSave = json::parse(&bytes)?;
    Ok(HttpResponse::Ok().json(card_drafts::save(&state, &club, id, &body).await?))
}

/// Throw a draft away.
#[utoipa::path(operation_id = "remove_card_draft", tag = "cards", params(("club" = String, Path, example = "tuesday-tiles"), ("id" = i64, Path)),
    responses((status = 204), (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[delete("/api/v1/clubs/{club}/card-drafts/{id}")]
pub async fn remove(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(String, i64)>,
) -> Result<HttpResponse, AppError> {
    let (club, id) = draft_of(&state, &caller, path).await?;
    card_drafts::discard(&state, &club, id).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Fill a draft from plain text, a line per hand: `section | pattern | value | X or C`, then
/// optionally `| options | note` (options: `any suits`, `any numbers`, `numbers 1 3 5`,
/// `any winds`). Tabs work as separators too. A line of a few words alone is a section heading
/// for the three-part lines (`pattern | value | X`) under it. Lines that cannot be read are kept,
/// each marked with its problem.
#[utoipa::path(operation_id = "paste_card_draft", tag = "cards", params(("club" = String, Path, example = "tuesday-tiles"), ("id" = i64, Path)), request_body = Paste,
    responses((status = 200, body = DraftView),
              (status = 409, description = "Another device saved first", body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 422, body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/clubs/{club}/card-drafts/{id}/paste")]
pub async fn paste(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(String, i64)>,
    bytes: web::Bytes,
) -> Result<HttpResponse, AppError> {
    let (club, id) = draft_of(&state, &caller, path).await?;
    let body: Paste = json::parse(&bytes)?;
    Ok(HttpResponse::Ok().json(card_drafts::paste(&state, &club, id, &body).await?))
}

/// Try a hand on a draft: which lines it matches, and what East would score winning with it.
#[utoipa::path(operation_id = "try_card_draft", tag = "cards", params(("club" = String, Path, example = "tuesday-tiles"), ("id" = i64, Path)), request_body = TryHand,
    responses((status = 200, body = TryAnswer),
              (status = 422, description = "The hand cannot be read, or the draft has problems", body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/clubs/{club}/card-drafts/{id}/try")]
pub async fn try_hand(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(String, i64)>,
    bytes: web::Bytes,
) -> Result<HttpResponse, AppError> {
    let (club, id) = draft_of(&state, &caller, path).await?;
    let body: TryHand = json::parse(&bytes)?;
    Ok(HttpResponse::Ok().json(card_drafts::try_hand(&state, &club, id, &body).await?))
}

/// Which revision of the draft to publish.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Publish {
    pub revision: i32,
}

/// Publish a draft: a new card, or the next version of the card it changes. Leagues keep the
/// version they play until an organizer moves them.
#[utoipa::path(operation_id = "publish_card_draft", tag = "cards", params(("club" = String, Path, example = "tuesday-tiles"), ("id" = i64, Path)), request_body = Publish,
    responses((status = 201, body = CardView),
              (status = 409, description = "Another device saved or published first", body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 422, description = "The draft has problems, each named by line", body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/clubs/{club}/card-drafts/{id}/publish")]
pub async fn publish(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(String, i64)>,
    bytes: web::Bytes,
) -> Result<HttpResponse, AppError> {
    let (club, id) = draft_of(&state, &caller, path).await?;
    let body: Publish = json::parse(&bytes)?;
    let (_, view) = card_drafts::publish(&state, &club, id, body.revision).await?;
    Ok(HttpResponse::Created().json(view))
}
