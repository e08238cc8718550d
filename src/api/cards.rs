//! Cards: built-in and uploaded, listed with their lines; uploads refused with the engine's
//! line-numbered errors.

use actix_web::{HttpMessage, HttpRequest, HttpResponse, get, post, web};

use crate::api::json;
use crate::domain::cards::library::{self as cards, CardUpload, CardView};
use crate::domain::{AppState, Caller, Error, people::members};
use crate::error::AppError;

crate::api::listed!(CardList, cards, CardView);

/// Built-in cards and cards clubs made public.
#[utoipa::path(tag = "cards", params(crate::api::PageParams), responses((status = 200, body = CardList)))]
#[get("/api/v1/cards")]
pub async fn list_public(
    state: web::Data<AppState>,
    req: HttpRequest,
    page: web::Query<crate::api::PageParams>,
) -> Result<HttpResponse, AppError> {
    let items = cards::list_public(&state).await?;
    CardList::page(&state, &req, items, &page, |_, c| card_key(&c.id))
}

/// A card's place in a list: an uploaded card's id, a built-in card's name read as a number.
fn card_key(id: &str) -> i64 {
    id.parse::<i64>().unwrap_or_else(|_| {
        use sha2::Digest;
        let d = sha2::Sha256::digest(id.as_bytes());
        i64::from_be_bytes([0, d[0], d[1], d[2], d[3], d[4], d[5], d[6]])
    })
}

/// One card with its lines (built-in, public, or of a club the caller reads).
#[utoipa::path(operation_id = "show_card", tag = "cards", params(("id" = String, Path, description = "built-in name or uploaded card id", example = "demo-2026")),
    responses((status = 200, body = CardView), (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[get("/api/v1/cards/{id}")]
pub async fn show(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok().json(cards::show(&state, &caller, id.into_inner()).await?))
}

/// Every target of one line of a card: the concrete tiles, for entering a hand from the card.
#[utoipa::path(tag = "cards", params(("id" = String, Path, description = "built-in name or uploaded card id", example = "demo-2026"),
                                    ("line" = String, Path, description = "the line's id", example = "2468#1")),
    responses((status = 200, body = cards::LineTargets), (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[get("/api/v1/cards/{id}/lines/{line}")]
pub async fn line_targets(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, AppError> {
    let (id, line) = path.into_inner();
    Ok(HttpResponse::Ok().json(cards::line_targets(&state, &caller, &id, &line).await?))
}

/// The club's uploaded cards, then the built-in ones.
#[utoipa::path(tag = "cards", params(("club" = String, Path, example = "tuesday-tiles"), crate::api::PageParams), responses((status = 200, body = CardList)))]
#[get("/api/v1/clubs/{club}/cards")]
pub async fn list_for_club(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    club: web::Path<String>,
    page: web::Query<crate::api::PageParams>,
) -> Result<HttpResponse, AppError> {
    let items = cards::list_for_club(&state, &caller, &club).await?;
    CardList::page(&state, &req, items, &page, |_, c| card_key(&c.id))
}

/// Upload a card file. Invalid files get 422 with each error's line and hand.
#[utoipa::path(tag = "cards", params(("club" = String, Path, example = "tuesday-tiles")), request_body = CardUpload,
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
    // Who is uploading is checked before the body is read.
    let club = members::organized(&state, &caller, &club).await?;
    let upload: CardUpload = if req.content_type().ends_with("json") {
        json::parse(&bytes)?
    } else {
        CardUpload {
            source: String::from_utf8(bytes.to_vec())
                .map_err(|_| Error::invalid("source", "the card file is not UTF-8 text"))?,
            public: false,
        }
    };
    let (stored, card) = cards::store(&state, &club, &upload).await?;
    Ok(HttpResponse::Created().json(cards::stored_card_view(&stored, &card)))
}
