//! Sign up, log in, log out.

use actix_web::{HttpRequest, HttpResponse, delete, get, post, web};

use crate::api::json::ValidJson;
use crate::domain::accounts::{self, LogIn, SignUp, UserView};
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
