//! Clubs, their members and roles, and API tokens.

use actix_web::HttpRequest;
use actix_web::{HttpResponse, delete, get, patch, post, put, web};

use crate::api::json::ValidJson;
use crate::domain::people::clubs::{self, AllowedOrigins, ClubChange, ClubView, NewClub};
use crate::domain::people::members::{
    self as membership, Added, CreatedToken, Invitation, Invited, Member, NewToken, SetRole,
    TokenInfo,
};
use crate::domain::{AppState, Caller};
use crate::error::AppError;

crate::api::listed!(MemberList, members, Member);
crate::api::listed!(InvitationList, invitations, Invitation);
crate::api::listed!(TokenList, tokens, TokenInfo);
crate::api::listed!(MailList, mail, crate::domain::outbox::mail::ClubMail);

/// Create a club; the caller becomes its owner.
#[utoipa::path(operation_id = "create_club", tag = "clubs", request_body = NewClub,
    responses((status = 201, body = ClubView), (status = 409, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 422, body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/clubs")]
pub async fn create(
    state: web::Data<AppState>,
    caller: Caller,
    body: ValidJson<NewClub>,
) -> Result<HttpResponse, AppError> {
    let club = clubs::create(&state, &caller, body.0).await?;
    Ok(HttpResponse::Created().json(ClubView::from(club)))
}

/// A club the caller belongs to (or holds a token of).
#[utoipa::path(operation_id = "show_club", tag = "clubs", params(("club" = String, Path, example = "tuesday-tiles")),
    responses((status = 200, body = ClubView), (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[get("/api/v1/clubs/{club}")]
pub async fn show(
    state: web::Data<AppState>,
    caller: Caller,
    club: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let club = clubs::show(&state, &caller, &club).await?;
    Ok(HttpResponse::Ok().json(ClubView::from(club)))
}

/// Rename the club or set its clock (organizers and owners).
#[utoipa::path(operation_id = "update_club", tag = "clubs", params(("club" = String, Path, example = "tuesday-tiles")), request_body = ClubChange,
    responses((status = 200, body = ClubView), (status = 403, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 422, body = crate::error::Problem, content_type = "application/problem+json")))]
#[patch("/api/v1/clubs/{club}")]
pub async fn update(
    state: web::Data<AppState>,
    caller: Caller,
    club: web::Path<String>,
    body: ValidJson<ClubChange>,
) -> Result<HttpResponse, AppError> {
    let club = clubs::update(&state, &caller, &club, body.0).await?;
    Ok(HttpResponse::Ok().json(ClubView::from(club)))
}

/// Members and their roles (organizers and owners).
#[utoipa::path(tag = "clubs", params(("club" = String, Path, example = "tuesday-tiles"), crate::api::PageParams), responses((status = 200, body = MemberList)))]
#[get("/api/v1/clubs/{club}/members")]
pub async fn members(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    club: web::Path<String>,
    page: web::Query<crate::api::PageParams>,
) -> Result<HttpResponse, AppError> {
    let items = membership::list(&state, &caller, &club).await?;
    MemberList::page(&state, &req, items, &page, |_, m| m.user_id)
}

/// Change a member's role by their email, or invite anyone else. An invitation is answered 202
/// whether or not the address has an account; the mail holds a link valid 14 days. Only owners
/// make or invite owners.
#[utoipa::path(tag = "clubs", params(("club" = String, Path, example = "tuesday-tiles")), request_body = SetRole,
    responses((status = 200, body = MemberList, description = "The address is a member's: their role changed; the members after the change"),
              (status = 202, body = Invited, description = "Anyone else: an invitation is on its way"),
              (status = 403, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 422, body = crate::error::Problem, content_type = "application/problem+json")))]
#[put("/api/v1/clubs/{club}/members")]
pub async fn set_member(
    state: web::Data<AppState>,
    caller: Caller,
    club: web::Path<String>,
    body: ValidJson<SetRole>,
) -> Result<HttpResponse, AppError> {
    Ok(
        match membership::set_role(&state, &caller, &club, body.0).await? {
            Added::Changed(list) => HttpResponse::Ok().json(MemberList::from(list)),
            Added::Invited(invited) => HttpResponse::Accepted().json(invited),
        },
    )
}

/// The club's invitations not yet accepted or withdrawn, newest first (expired ones too, until
/// the address is invited again).
#[utoipa::path(tag = "clubs", params(("club" = String, Path, example = "tuesday-tiles"), crate::api::PageParams), responses((status = 200, body = InvitationList)))]
#[get("/api/v1/clubs/{club}/invitations")]
pub async fn invitations(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    club: web::Path<String>,
    page: web::Query<crate::api::PageParams>,
) -> Result<HttpResponse, AppError> {
    let items = membership::invitations(&state, &caller, &club).await?;
    InvitationList::page(&state, &req, items, &page, |_, i| i.id)
}

/// Withdraw an invitation: its link stops working at once.
#[utoipa::path(tag = "clubs", params(("club" = String, Path, example = "tuesday-tiles"), ("id" = i64, Path, minimum = 1, example = 1)),
    responses((status = 204), (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[delete("/api/v1/clubs/{club}/invitations/{id}")]
pub async fn revoke_invitation(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(String, i64)>,
) -> Result<HttpResponse, AppError> {
    let (slug, id) = path.into_inner();
    membership::revoke_invitation(&state, &caller, &slug, id).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Send an invitation again, with a new link (the earlier link stops working): at most once a
/// day, within the club's and your mail budgets.
#[utoipa::path(tag = "clubs", params(("club" = String, Path, example = "tuesday-tiles"), ("id" = i64, Path, minimum = 1, example = 1)),
    responses((status = 202, body = Invited, description = "Sent again"),
              (status = 404, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 429, description = "Sent within the last day, or a mail budget is spent; see Retry-After", body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/clubs/{club}/invitations/{id}/send-again")]
pub async fn send_invitation_again(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(String, i64)>,
) -> Result<HttpResponse, AppError> {
    let (slug, id) = path.into_inner();
    Ok(HttpResponse::Accepted()
        .json(membership::send_invitation_again(&state, &caller, &slug, id).await?))
}

/// Remove a member, or leave the club.
///
/// With your own user id you leave, whatever your role (the last owner names another owner
/// first). What the member had waiting ends; their player and games stay, unlinked.
#[utoipa::path(tag = "clubs", params(("club" = String, Path, example = "tuesday-tiles"), ("user" = i64, Path, minimum = 1, example = 1)), responses((status = 204), (status = 404, body = crate::error::Problem, content_type = "application/problem+json"), (status = 409, description = "The club's last owner names another owner first", body = crate::error::Problem, content_type = "application/problem+json")))]
#[delete("/api/v1/clubs/{club}/members/{user}")]
pub async fn remove_member(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(String, i64)>,
) -> Result<HttpResponse, AppError> {
    let (slug, user) = path.into_inner();
    membership::remove(&state, &caller, &slug, user).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// The club's API tokens (never their secrets).
#[utoipa::path(tag = "tokens", params(("club" = String, Path, example = "tuesday-tiles"), crate::api::PageParams), responses((status = 200, body = TokenList)))]
#[get("/api/v1/clubs/{club}/tokens")]
pub async fn list_tokens(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    club: web::Path<String>,
    page: web::Query<crate::api::PageParams>,
) -> Result<HttpResponse, AppError> {
    let items = membership::tokens(&state, &caller, &club).await?;
    TokenList::page(&state, &req, items, &page, |_, t| t.id)
}

/// Create an API token (owners and organizers). The secret is in this response only.
#[utoipa::path(tag = "tokens", params(("club" = String, Path, example = "tuesday-tiles")), request_body = NewToken,
    responses((status = 201, body = CreatedToken), (status = 422, body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/clubs/{club}/tokens")]
pub async fn create_token(
    state: web::Data<AppState>,
    caller: Caller,
    club: web::Path<String>,
    body: ValidJson<NewToken>,
) -> Result<HttpResponse, AppError> {
    let created = membership::issue_token(&state, &caller, &club, body.0).await?;
    Ok(HttpResponse::Created().json(created))
}

/// Revoke a token: it stops working at once.
#[utoipa::path(tag = "tokens", params(("club" = String, Path, example = "tuesday-tiles"), ("id" = i64, Path, minimum = 1, example = 1)), responses((status = 204), (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[delete("/api/v1/clubs/{club}/tokens/{id}")]
pub async fn revoke_token(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(String, i64)>,
) -> Result<HttpResponse, AppError> {
    let (slug, id) = path.into_inner();
    membership::revoke_token(&state, &caller, &slug, id).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// The websites from which the club's API tokens may be used in a browser (organizers). Public
/// reads need no token and answer every website.
#[utoipa::path(tag = "tokens", params(("club" = String, Path, example = "tuesday-tiles")), responses((status = 200, body = AllowedOrigins)))]
#[get("/api/v1/clubs/{club}/origins")]
pub async fn origins(
    state: web::Data<AppState>,
    caller: Caller,
    club: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok().json(clubs::allowed_origins(&state, &caller, &club).await?))
}

/// Replace the websites from which the club's API tokens may be used in a browser (organizers).
#[utoipa::path(tag = "tokens", params(("club" = String, Path, example = "tuesday-tiles")), request_body = AllowedOrigins,
    responses((status = 200, body = AllowedOrigins), (status = 422, body = crate::error::Problem, content_type = "application/problem+json")))]
#[put("/api/v1/clubs/{club}/origins")]
pub async fn set_origins(
    state: web::Data<AppState>,
    caller: Caller,
    club: web::Path<String>,
    body: ValidJson<AllowedOrigins>,
) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok().json(clubs::set_allowed_origins(&state, &caller, &club, body.0).await?))
}

/// The club's latest 50 messages (mail after its nights, …), newest first, with what became of
/// each: sent, waiting to be tried again and why, or failed (organizers).
#[utoipa::path(tag = "clubs", params(("club" = String, Path, example = "tuesday-tiles"), crate::api::PageParams),
    responses((status = 200, body = MailList),
              (status = 401, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 403, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[get("/api/v1/clubs/{club}/mail")]
pub async fn mail_log(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    club: web::Path<String>,
    page: web::Query<crate::api::PageParams>,
) -> Result<HttpResponse, AppError> {
    let items = crate::domain::outbox::mail::club_log(&state, &caller, &club).await?;
    MailList::page(&state, &req, items, &page, |_, m| m.id)
}
