//! Sign up, log in, log out, and password resets.

use actix_web::{HttpRequest, HttpResponse, delete, get, patch, post, put, web};

use crate::api::json::ValidJson;
use crate::domain::people::accounts::{
    self, ChosenPassword, LogIn, NewPassword, ResetAsked, ResetTold, SignUp, SignUpTold, UserView,
};
use crate::domain::people::invitations::{self, InvitationView, Joined, Joining, JoiningNew};
use crate::domain::people::your_account::{
    self, AccountView, EmailChange, EmailTold, Leaving, PasswordChange, Rename,
};
use crate::domain::{AppState, Caller};
use crate::error::AppError;
use crate::http::{peer, session_cookie, session_removal, session_token, user_agent};

/// Sign up: a link to finish is mailed to the address (24 hours, once); an address that has an
/// account is told so by mail instead. The answer is the same either way (202), and so is its
/// time.
#[utoipa::path(tag = "accounts", request_body = SignUp,
    responses((status = 202, body = SignUpTold),
              (status = 422, body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/users")]
pub async fn sign_up(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: ValidJson<SignUp>,
) -> Result<HttpResponse, AppError> {
    let sent_password = body.0.password.is_some();
    let told = accounts::register(&state, body.0, peer(&req)).await?;
    let mut res = HttpResponse::Accepted().json(told);
    if sent_password {
        crate::api::retiring::mark(&mut res, &crate::api::retiring::SIGN_UP_PASSWORD);
    }
    Ok(res)
}

/// Finish signing up with the token of the mailed link, choosing the account's password: the
/// account is made and logged in.
#[utoipa::path(tag = "accounts", request_body = ChosenPassword,
    params(("token" = String, Path, max_length = 200, description = "The token from the mailed link")),
    responses((status = 201, body = UserView, description = "Created and logged in (session cookie set)"),
              (status = 404, description = "Used already or more than 24 hours old", body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 409, description = "The address has an account meanwhile", body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 422, description = "The password is too short or too long", body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 429, description = "Too many password attempts; see Retry-After", body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/sign-ups/{token}")]
pub async fn finish_sign_up(
    state: web::Data<AppState>,
    req: HttpRequest,
    token: web::Path<String>,
    body: ValidJson<ChosenPassword>,
) -> Result<HttpResponse, AppError> {
    let session =
        accounts::finish_signup(&state, &token, body.0, peer(&req), user_agent(&req)).await?;
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
    let session = accounts::authenticate(&state, body.0, peer(&req), user_agent(&req)).await?;
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
    let told = accounts::ask_reset(&state, body.0, peer(&req)).await?;
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

/// Your account: name, email, clubs with your role, and your sessions.
#[utoipa::path(tag = "accounts", responses((status = 200, body = AccountView), (status = 401, body = crate::error::Problem, content_type = "application/problem+json")))]
#[get("/api/v1/account")]
pub async fn account(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
) -> Result<HttpResponse, AppError> {
    let view = your_account::show(&state, &caller, session_token(&req).as_deref()).await?;
    Ok(HttpResponse::Ok().json(view))
}

/// Change your display name.
#[utoipa::path(tag = "accounts", request_body = Rename,
    responses((status = 204, description = "Renamed"), (status = 401, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 422, body = crate::error::Problem, content_type = "application/problem+json")))]
#[patch("/api/v1/account")]
pub async fn rename(
    state: web::Data<AppState>,
    caller: Caller,
    body: ValidJson<Rename>,
) -> Result<HttpResponse, AppError> {
    your_account::rename(&state, &caller, body.0).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Change your password, giving the current one. Every other session ends.
#[utoipa::path(tag = "accounts", request_body = PasswordChange,
    responses((status = 204, description = "Changed"), (status = 401, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 422, description = "The current password is wrong, or the new one too short or long", body = crate::error::Problem, content_type = "application/problem+json")))]
#[put("/api/v1/account/password")]
pub async fn change_password(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    body: ValidJson<PasswordChange>,
) -> Result<HttpResponse, AppError> {
    your_account::change_password(
        &state,
        &caller,
        body.0,
        session_token(&req).as_deref(),
        peer(&req),
    )
    .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Change your email: a link is mailed to the new address, and the account takes it when the
/// link is followed (`POST /api/v1/account/email/{token}`).
#[utoipa::path(tag = "accounts", request_body = EmailChange,
    responses((status = 202, body = EmailTold), (status = 401, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 422, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 429, body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/account/email")]
pub async fn change_email(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    body: ValidJson<EmailChange>,
) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Accepted()
        .json(your_account::change_email(&state, &caller, body.0, peer(&req)).await?))
}

/// Confirm a new email with the token of the mailed link.
#[utoipa::path(tag = "accounts",
    params(("token" = String, Path, max_length = 200, description = "The token from the mailed link")),
    responses((status = 204, description = "The account uses the new address"),
              (status = 404, description = "The link was used already or is too old", body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 409, description = "Another account uses the address now", body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/account/email/{token}")]
pub async fn confirm_email(
    state: web::Data<AppState>,
    token: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    your_account::confirm_email(&state, &token).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Undo an email change with the token of the link mailed to the address the account had (7
/// days): the account gets that address back and every session of it ends.
#[utoipa::path(tag = "accounts",
    params(("token" = String, Path, max_length = 200, description = "The token from the mailed link")),
    responses((status = 204, description = "The account uses its old address again; every session ended"),
              (status = 404, description = "The link was used already or is too old", body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 409, description = "Another account uses the old address now", body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/account/email/undo/{token}")]
pub async fn undo_email(
    state: web::Data<AppState>,
    token: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    your_account::undo_email(&state, &token).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Log out everywhere else: every session of yours but this one ends.
#[utoipa::path(tag = "accounts", responses((status = 204, description = "Every other session ended"), (status = 401, body = crate::error::Problem, content_type = "application/problem+json")))]
#[delete("/api/v1/account/sessions")]
pub async fn end_other_sessions(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
) -> Result<HttpResponse, AppError> {
    your_account::end_other_sessions(&state, &caller, session_token(&req).as_deref()).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// End one of your sessions.
#[utoipa::path(tag = "accounts", params(("id" = i64, Path, minimum = 1)),
    responses((status = 204, description = "Ended"), (status = 401, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 404, body = crate::error::Problem, content_type = "application/problem+json")))]
#[delete("/api/v1/account/sessions/{id}")]
pub async fn end_session(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    your_account::end_session(&state, &caller, *id).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Everything kept about you, as JSON (a download).
#[utoipa::path(tag = "accounts", responses((status = 200, body = Object), (status = 401, body = crate::error::Problem, content_type = "application/problem+json")))]
#[get("/api/v1/account/data")]
pub async fn data(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
) -> Result<HttpResponse, AppError> {
    let data = your_account::data(&state, &caller, session_token(&req).as_deref()).await?;
    Ok(HttpResponse::Ok()
        .insert_header((
            actix_web::http::header::CONTENT_DISPOSITION,
            "attachment; filename=\"my-mahjong-league-data.json\"",
        ))
        .json(data))
}

/// Delete your account, giving your password. Refused (409, naming the clubs) while you are the
/// only owner of a club.
#[utoipa::path(tag = "accounts", request_body = Leaving,
    responses((status = 204, description = "Deleted, and logged out"), (status = 401, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 409, description = "You are the only owner of a club", body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 422, body = crate::error::Problem, content_type = "application/problem+json")))]
#[delete("/api/v1/account")]
pub async fn leave(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    body: ValidJson<Leaving>,
) -> Result<HttpResponse, AppError> {
    your_account::leave(&state, &caller, body.0, peer(&req)).await?;
    Ok(HttpResponse::NoContent()
        .cookie(session_removal())
        .insert_header(crate::http::CLEAR_SITE_DATA)
        .finish())
}

/// What an invitation's link opens, while it works: the club, the role, and the club's players
/// nobody is linked to yet (whom the new member may say they are). No login needed: the link is
/// the credential.
#[utoipa::path(tag = "accounts",
    params(("token" = String, Path, max_length = 200, description = "The token from the mailed link")),
    responses((status = 200, body = InvitationView),
              (status = 404, description = "Used, withdrawn or more than 14 days old", body = crate::error::Problem, content_type = "application/problem+json")))]
#[get("/api/v1/invitations/{token}")]
pub async fn invitation(
    state: web::Data<AppState>,
    token: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok().json(invitations::show(&state, &token).await?))
}

/// Join the club as the logged-in account (one tap), optionally saying which player you are.
#[utoipa::path(tag = "accounts", request_body = Joining,
    params(("token" = String, Path, max_length = 200, description = "The token from the mailed link")),
    responses((status = 200, body = Joined),
              (status = 401, body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 404, description = "Used, withdrawn or more than 14 days old", body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/invitations/{token}")]
pub async fn join(
    state: web::Data<AppState>,
    caller: Caller,
    token: web::Path<String>,
    body: ValidJson<Joining>,
) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok().json(invitations::join(&state, &caller, &token, body.0).await?))
}

/// Sign up with the invited address and join (the new account is logged in).
#[utoipa::path(tag = "accounts", request_body = JoiningNew,
    params(("token" = String, Path, max_length = 200, description = "The token from the mailed link")),
    responses((status = 201, body = Joined, description = "Signed up, logged in (session cookie set) and joined"),
              (status = 404, description = "Used, withdrawn or more than 14 days old", body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 409, description = "The address has an account: log in and join", body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 429, description = "Too many sign-ups from this address; see Retry-After", body = crate::error::Problem, content_type = "application/problem+json"),
              (status = 422, body = crate::error::Problem, content_type = "application/problem+json")))]
#[post("/api/v1/invitations/{token}/account")]
pub async fn join_new(
    state: web::Data<AppState>,
    req: HttpRequest,
    token: web::Path<String>,
    body: ValidJson<JoiningNew>,
) -> Result<HttpResponse, AppError> {
    let (session, joined) =
        invitations::join_new(&state, &token, body.0, peer(&req), user_agent(&req)).await?;
    Ok(HttpResponse::Created()
        .cookie(session_cookie(&req, &session))
        .json(joined))
}
