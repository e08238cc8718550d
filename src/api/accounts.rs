//! Sign up, log in, log out.

use actix_web::cookie::{Cookie, SameSite, time::Duration as CookieDuration};
use actix_web::{HttpRequest, HttpResponse, delete, get, post, web};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::api::json::ValidJson;
use crate::auth::{Caller, SESSION_COOKIE, new_secret, password};
use crate::error::AppError;
use crate::startup::AppState;
use crate::storage::users::{self, User};

/// How long a session lasts.
const SESSION_DAYS: i64 = 30;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SignUp {
    #[schema(example = "rose@example.org")]
    pub email: String,
    #[schema(example = "Rose Adler")]
    pub display_name: String,
    /// At least 10 characters.
    #[schema(example = "correct horse battery")]
    pub password: String,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LogIn {
    #[schema(example = "rose@example.org")]
    pub email: String,
    #[schema(example = "correct horse battery")]
    pub password: String,
}

#[derive(Serialize, ToSchema)]
pub struct UserView {
    pub id: i64,
    pub email: String,
    pub display_name: String,
}

impl From<User> for UserView {
    fn from(u: User) -> Self {
        UserView {
            id: u.id,
            email: u.email,
            display_name: u.display_name,
        }
    }
}

fn validate_signup(s: &SignUp) -> Result<(), AppError> {
    let email = s.email.trim();
    if email.len() > 254
        || !email.contains('@')
        || email.starts_with('@')
        || email.ends_with('@')
        || email.contains(char::is_whitespace)
    {
        return Err(AppError::invalid("email", "this is not an email address"));
    }
    let name = s.display_name.trim();
    if name.is_empty() || name.chars().count() > 200 {
        return Err(AppError::invalid(
            "display_name",
            "give a name of 1 to 200 characters",
        ));
    }
    let n = s.password.chars().count();
    if n < 10 {
        return Err(AppError::invalid("password", "use at least 10 characters"));
    }
    if n > 1000 {
        return Err(AppError::invalid("password", "use at most 1000 characters"));
    }
    Ok(())
}

/// Starts a session: a new random token (so a session id never survives a login) in a cookie.
async fn start_session(
    state: &AppState,
    req: &HttpRequest,
    user: &User,
) -> Result<Cookie<'static>, AppError> {
    let token = new_secret("");
    let expires = chrono::Utc::now() + chrono::Duration::days(SESSION_DAYS);
    users::create_session(&state.db, &state.keys.hash(&token), user.id, expires).await?;
    let secure = req.connection_info().scheme() == "https";
    Ok(Cookie::build(SESSION_COOKIE, token)
        .path("/")
        .http_only(true)
        .same_site(SameSite::Lax)
        .secure(secure)
        .max_age(CookieDuration::days(SESSION_DAYS))
        .finish())
}

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
    let (user, cookie) = register(&state, &req, body.0).await?;
    Ok(HttpResponse::Created()
        .cookie(cookie)
        .json(UserView::from(user)))
}

/// Creates an account and its first session (for the API and the sign-up page).
pub async fn register(
    state: &AppState,
    req: &HttpRequest,
    s: SignUp,
) -> Result<(User, Cookie<'static>), AppError> {
    validate_signup(&s)?;
    let hash = password::hash_password(s.password).await?;
    let user = users::create(&state.db, s.email.trim(), s.display_name.trim(), &hash)
        .await?
        .ok_or_else(|| {
            AppError::Conflict("an account with this email exists; log in instead".into())
        })?;
    let cookie = start_session(state, req, &user).await?;
    Ok((user, cookie))
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
    let (user, cookie) = authenticate(&state, &req, body.0).await?;
    Ok(HttpResponse::Ok().cookie(cookie).json(UserView::from(user)))
}

/// Checks a login (rate-limited) and starts a session (for the API and the login page).
pub async fn authenticate(
    state: &AppState,
    req: &HttpRequest,
    l: LogIn,
) -> Result<(User, Cookie<'static>), AppError> {
    state
        .limits
        .login(l.email.trim(), req.peer_addr().map(|a| a.ip()))?;
    let found = users::credentials(&state.db, l.email.trim()).await?;
    let (user, hash) = match found {
        Some((u, h)) => (Some(u), Some(h)),
        None => (None, None),
    };
    // An unknown email is checked against a dummy hash: it takes as long as a wrong password.
    let ok = password::verify_password(l.password, hash).await?;
    let Some(user) = user.filter(|_| ok) else {
        return Err(AppError::Unauthorized("wrong email or password".into()));
    };
    let cookie = start_session(state, req, &user).await?;
    Ok((user, cookie))
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
    Ok(HttpResponse::NoContent()
        .cookie(end_session(&state, &req).await?)
        .finish())
}

/// Ends the request's session on the server; the answer is the cookie that clears it.
pub async fn end_session(state: &AppState, req: &HttpRequest) -> Result<Cookie<'static>, AppError> {
    if let Some(c) = req.cookie(SESSION_COOKIE) {
        users::delete_session(&state.db, &state.keys.hash(c.value())).await?;
    }
    let mut gone = Cookie::build(SESSION_COOKIE, "")
        .path("/")
        .http_only(true)
        .same_site(SameSite::Lax)
        .finish();
    gone.make_removal();
    Ok(gone)
}
