//! Sign up, log in, log out, and password resets.

use actix_web::{HttpRequest, HttpResponse, delete, get, post, web};

use crate::api::json::ValidJson;
use crate::domain::accounts::{self, LogIn, NewPassword, ResetAsked, ResetTold, SignUp, UserView};
use crate::domain::{AppState, Caller};
use crate::error::AppError;
use crate::http::{peer, session_cookie, session_removal, session_token};

/// Create an account; the response also logs it in.
#[utoipa::path(tag = "accounts", request_body = SignUp,
    responses((status = 201, body = UserView, description = "Created and logged in (session cookie set)"),
              (status = 409, description = "The email is taken", body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 422, body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/users")]
pub async fn sign_up(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: ValidJson<SignUp>,
) -> Result<HttpResponse, AppError> {
    let session = accounts::register(&state, body.0, peer(&req)).await?;
    Ok(HttpResponse::Created()
        .cookie(session_cookie(&req, &session))
        .json(UserView::from(session.user)))
}

/// Log in: a session cookie (HttpOnly, SameSite=Lax, Secure over https).
#[utoipa::path(tag = "accounts", request_body = LogIn,
    responses((status = 200, body = UserView),
              (status = 401, description = "Wrong email or password", body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 429, description = "Too many attempts; see Retry-After", body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/session")]
pub async fn log_in(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: ValidJson<LogIn>,
) -> Result<HttpResponse, AppError> {
    let session = accounts::authenticate(&state, body.0, peer(&req)).await?;
    Ok(HttpResponse::Ok()
        .cookie(session_cookie(&req, &session))
        .json(UserView::from(session.user)))
}

/// Who is logged in.
#[utoipa::path(tag = "accounts", responses((status = 200, body = UserView), (status = 401, body = crate::error::Problem, content_type = "application/problem+json")))]
#[get("/api/v1/session")]
pub async fn current(caller: Caller) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok().json(UserView::from(caller.user()?.clone())))
}

/// Log out: the session ends on the server and the cookie is cleared.
#[utoipa::path(tag = "accounts", responses((status = 204, description = "Logged out")))]
#[delete("/api/v1/session")]
pub async fn log_out(
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Result<HttpResponse, AppError> {
    accounts::end_session(&state, session_token(&req).as_deref()).await?;
    Ok(HttpResponse::NoContent()
        .cookie(session_removal())
        .insert_header(crate::http::CLEAR_SITE_DATA)
        .finish())
}

/// Ask for a password reset: a link valid for an hour is mailed to the account with this email,
/// if there is one. The answer is the same either way (202), and so is its time.
#[utoipa::path(tag = "accounts", request_body = ResetAsked,
    responses((status = 202, body = ResetTold),
              (status = 422, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 429, description = "Too many requests from this address or for this email; see Retry-After", body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/password-resets")]
pub async fn ask_reset(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: ValidJson<ResetAsked>,
) -> Result<HttpResponse, AppError> {
    let told = accounts::ask_reset(&state.clone().into_inner(), body.0, peer(&req))?;
    Ok(HttpResponse::Accepted().json(told))
}

/// Set a new password with the token of a reset link (single use, valid for an hour). Every
/// other session of the account ends.
#[utoipa::path(tag = "accounts", request_body = NewPassword,
    params(("token" = String, Path, max_length = 200, description = "The token from the mailed link")),
    responses((status = 204, description = "The password is set"),
              (status = 404, description = "The link was used already or is more than an hour old", body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 422, body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/password-resets/{token}")]
pub async fn reset_password(
    state: web::Data<AppState>,
    req: HttpRequest,
    token: web::Path<String>,
    body: ValidJson<NewPassword>,
) -> Result<HttpResponse, AppError> {
    accounts::reset_password(&state, &token, body.0, session_token(&req).as_deref()).await?;
    Ok(HttpResponse::NoContent().finish())
}
