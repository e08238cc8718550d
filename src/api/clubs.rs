//! Clubs, their members and roles, and API tokens.

use actix_web::{HttpResponse, delete, get, post, put, web};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::api::json::ValidJson;
use crate::auth::{Access, Caller, Need, Role, TOKEN_PREFIX, new_secret};
use crate::error::AppError;
use crate::startup::AppState;
use crate::storage::clubs::{self, Club, Member};
use crate::storage::tokens::{self, TokenInfo};
use crate::storage::users;

#[derive(Serialize, ToSchema)]
pub struct ClubView {
    #[schema(example = "tuesday-tiles")]
    pub slug: String,
    pub name: String,
    #[schema(example = "America/New_York")]
    pub time_zone: String,
}

impl From<Club> for ClubView {
    fn from(c: Club) -> Self {
        ClubView {
            slug: c.slug,
            name: c.name,
            time_zone: c.time_zone,
        }
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewClub {
    /// Lowercase letters, digits and dashes, 2 to 63 characters; used in URLs.
    #[schema(example = "tuesday-tiles")]
    pub slug: String,
    #[schema(example = "Tuesday Tiles")]
    pub name: String,
    /// IANA time zone; default UTC.
    #[serde(default)]
    #[schema(example = "America/New_York")]
    pub time_zone: Option<String>,
}

fn valid_slug(s: &str) -> bool {
    let b = s.as_bytes();
    (2..=63).contains(&b.len())
        && b[0].is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
}

fn valid_time_zone(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/_+-".contains(c))
}

/// Create a club; the caller becomes its owner.
#[utoipa::path(tag = "clubs", request_body = NewClub,
    responses((status = 201, body = ClubView), (status = 409, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 422, body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/clubs")]
pub async fn create(
    state: web::Data<AppState>,
    caller: Caller,
    body: ValidJson<NewClub>,
) -> Result<HttpResponse, AppError> {
    let club = create_club(&state, &caller, body.0).await?;
    Ok(HttpResponse::Created().json(ClubView::from(club)))
}

/// Creates a club owned by the caller (for the API and the pages).
pub async fn create_club(state: &AppState, caller: &Caller, n: NewClub) -> Result<Club, AppError> {
    let user = caller.user()?;
    if !valid_slug(&n.slug) {
        return Err(AppError::invalid(
            "slug",
            "use 2 to 63 lowercase letters, digits and dashes, starting with a letter or digit",
        ));
    }
    let name = n.name.trim();
    if name.is_empty() || name.chars().count() > 200 {
        return Err(AppError::invalid(
            "name",
            "give a name of 1 to 200 characters",
        ));
    }
    let tz = n.time_zone.unwrap_or_else(|| "UTC".into());
    if !valid_time_zone(&tz) {
        return Err(AppError::invalid(
            "time_zone",
            "give an IANA time zone such as America/New_York",
        ));
    }
    let club = clubs::create_with_owner(&state.db, &n.slug, name, &tz, user.id)
        .await?
        .ok_or_else(|| AppError::Conflict(format!("the slug `{}` is taken", n.slug)))?;
    Ok(club)
}

/// A club the caller belongs to (or holds a token of).
#[utoipa::path(tag = "clubs", params(("club" = String, Path)),
    responses((status = 200, body = ClubView), (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[get("/api/v1/clubs/{club}")]
pub async fn show(
    state: web::Data<AppState>,
    caller: Caller,
    club: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let (club, _) = caller.club(&state, &club, Need::Read).await?;
    Ok(HttpResponse::Ok().json(ClubView::from(club)))
}

/// Members and their roles (organizers and owners).
#[utoipa::path(tag = "clubs", params(("club" = String, Path)), responses((status = 200, body = [Member])))]
#[get("/api/v1/clubs/{club}/members")]
pub async fn members(
    state: web::Data<AppState>,
    caller: Caller,
    club: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let (club, _) = caller.club(&state, &club, Need::Admin).await?;
    Ok(HttpResponse::Ok().json(clubs::members(&state.db, club.id).await?))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SetRole {
    /// The email of an existing account.
    #[schema(example = "sam@example.org")]
    pub email: String,
    /// owner, organizer, scorer or member.
    #[schema(example = "scorer")]
    pub role: String,
}

/// Checks that the caller may give or take `role`, and that the last owner stays.
async fn check_role_change(
    state: &AppState,
    club: &Club,
    access: Access,
    target: i64,
    new: Option<Role>,
) -> Result<(), AppError> {
    let caller_role = match access {
        Access::Member { role, .. } => role,
        Access::Token => Role::Organizer,
    };
    let current = clubs::role(&state.db, club.id, target)
        .await?
        .and_then(|r| Role::parse(&r));
    let touches_owner = new == Some(Role::Owner) || current == Some(Role::Owner);
    if touches_owner && caller_role != Role::Owner {
        return Err(AppError::Forbidden(
            "only an owner can make or unmake owners".into(),
        ));
    }
    if current == Some(Role::Owner)
        && new != Some(Role::Owner)
        && clubs::owner_count(&state.db, club.id).await? <= 1
    {
        return Err(AppError::Conflict(
            "this is the club's last owner; make someone else owner first".into(),
        ));
    }
    Ok(())
}

/// Add a member by email, or change their role.
#[utoipa::path(tag = "clubs", params(("club" = String, Path)), request_body = SetRole,
    responses((status = 200, body = [Member]), (status = 403, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 422, body = crate::error::Problem, content_type = "application/problem+json")))]
#[put("/api/v1/clubs/{club}/members")]
pub async fn set_member(
    state: web::Data<AppState>,
    caller: Caller,
    club: web::Path<String>,
    body: ValidJson<SetRole>,
) -> Result<HttpResponse, AppError> {
    let after = set_role(&state, &caller, &club, body.0).await?;
    Ok(HttpResponse::Ok().json(after))
}

/// Adds a member by email or changes their role; answers the members after the change.
pub async fn set_role(
    state: &AppState,
    caller: &Caller,
    slug: &str,
    s: SetRole,
) -> Result<Vec<Member>, AppError> {
    let (club, access) = caller.club(state, slug, Need::Admin).await?;
    let role = Role::parse(&s.role)
        .ok_or_else(|| AppError::invalid("role", "use owner, organizer, scorer or member"))?;
    let user = users::by_email(&state.db, s.email.trim())
        .await?
        .ok_or_else(|| {
            AppError::invalid("email", "no account has this email; they sign up first")
        })?;
    check_role_change(state, &club, access, user.id, Some(role)).await?;
    clubs::set_role(&state.db, club.id, user.id, role.as_str()).await?;
    Ok(clubs::members(&state.db, club.id).await?)
}

/// Remove a member.
#[utoipa::path(tag = "clubs", params(("club" = String, Path), ("user" = i64, Path)), responses((status = 204), (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[delete("/api/v1/clubs/{club}/members/{user}")]
pub async fn remove_member(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(String, i64)>,
) -> Result<HttpResponse, AppError> {
    let (slug, user) = path.into_inner();
    remove_from_club(&state, &caller, &slug, user).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Takes a user out of the club (the last owner stays).
pub async fn remove_from_club(
    state: &AppState,
    caller: &Caller,
    slug: &str,
    user: i64,
) -> Result<(), AppError> {
    let (club, access) = caller.club(state, slug, Need::Admin).await?;
    check_role_change(state, &club, access, user, None).await?;
    if !clubs::remove_member(&state.db, club.id, user).await? {
        return Err(AppError::NotFound(format!(
            "user {user} is not a member of this club"
        )));
    }
    Ok(())
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewToken {
    #[schema(example = "standings board")]
    pub name: String,
    /// Any of read, score, admin.
    #[schema(example = json!(["read"]))]
    pub scopes: Vec<String>,
}

#[derive(Serialize, ToSchema)]
pub struct CreatedToken {
    #[serde(flatten)]
    pub info: TokenInfo,
    /// The secret: shown this once, never again. Send it as `Authorization: Bearer <token>`.
    pub token: String,
}

/// The club's API tokens (never their secrets).
#[utoipa::path(tag = "tokens", params(("club" = String, Path)), responses((status = 200, body = [TokenInfo])))]
#[get("/api/v1/clubs/{club}/tokens")]
pub async fn list_tokens(
    state: web::Data<AppState>,
    caller: Caller,
    club: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let (club, _) = caller.club(&state, &club, Need::Admin).await?;
    Ok(HttpResponse::Ok().json(tokens::list(&state.db, club.id).await?))
}

/// Create an API token (owners and organizers). The secret is in this response only.
#[utoipa::path(tag = "tokens", params(("club" = String, Path)), request_body = NewToken,
    responses((status = 201, body = CreatedToken), (status = 422, body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/clubs/{club}/tokens")]
pub async fn create_token(
    state: web::Data<AppState>,
    caller: Caller,
    club: web::Path<String>,
    body: ValidJson<NewToken>,
) -> Result<HttpResponse, AppError> {
    let created = issue_token(&state, &caller, &club, body.0).await?;
    Ok(HttpResponse::Created().json(created))
}

/// Creates an API token; the answer holds its secret, which is never stored.
pub async fn issue_token(
    state: &AppState,
    caller: &Caller,
    slug: &str,
    n: NewToken,
) -> Result<CreatedToken, AppError> {
    let user = caller.user()?.clone();
    let (club, _) = caller.club(state, slug, Need::Admin).await?;
    let name = n.name.trim();
    if name.is_empty() || name.chars().count() > 100 {
        return Err(AppError::invalid(
            "name",
            "give a name of 1 to 100 characters",
        ));
    }
    if n.scopes.is_empty() {
        return Err(AppError::invalid(
            "scopes",
            "give at least one of read, score, admin",
        ));
    }
    if let Some((i, bad)) = n
        .scopes
        .iter()
        .enumerate()
        .find(|(_, s)| !["read", "score", "admin"].contains(&s.as_str()))
    {
        return Err(AppError::invalid(
            &format!("scopes[{i}]"),
            format!("`{bad}` is not a scope; use read, score or admin"),
        ));
    }
    let mut scopes = n.scopes.clone();
    scopes.sort();
    scopes.dedup();
    let token = new_secret(TOKEN_PREFIX);
    let info = tokens::create(
        &state.db,
        club.id,
        name,
        &state.keys.hash(&token),
        &scopes,
        user.id,
    )
    .await?;
    Ok(CreatedToken { info, token })
}

/// Revoke a token: it stops working at once.
#[utoipa::path(tag = "tokens", params(("club" = String, Path), ("id" = i64, Path)), responses((status = 204), (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[delete("/api/v1/clubs/{club}/tokens/{id}")]
pub async fn revoke_token(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(String, i64)>,
) -> Result<HttpResponse, AppError> {
    let (slug, id) = path.into_inner();
    revoke(&state, &caller, &slug, id).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Revokes one of the club's tokens.
pub async fn revoke(
    state: &AppState,
    caller: &Caller,
    slug: &str,
    id: i64,
) -> Result<(), AppError> {
    let (club, _) = caller.club(state, slug, Need::Admin).await?;
    if !tokens::revoke(&state.db, club.id, id).await? {
        return Err(AppError::NotFound(format!("this club has no token {id}")));
    }
    Ok(())
}
