//! Accounts and sessions: sign up, log in (rate-limited), log out.

use std::net::IpAddr;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::{new_secret, password};
use crate::domain::{AppState, Error, Result};
use crate::storage::users::{self, User};

/// How long a session lasts.
pub const SESSION_DAYS: i64 = 30;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SignUp {
    #[schema(example = "rose@example.org", min_length = 3, max_length = 254)]
    pub email: String,
    #[schema(example = "Rose Adler", min_length = 1, max_length = 200)]
    pub display_name: String,
    /// 10 to 1000 characters.
    #[schema(example = "correct horse battery", min_length = 10, max_length = 1000)]
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

/// A session just started: the account and the secret its holder presents from now on.
pub struct Session {
    pub user: User,
    /// Random, 256 bits; only its keyed hash is stored.
    pub token: String,
}

fn validate_signup(s: &SignUp) -> Result<()> {
    let email = s.email.trim();
    if s.email.chars().count() > 254
        || !email.contains('@')
        || email.starts_with('@')
        || email.ends_with('@')
        || email.contains(char::is_whitespace)
    {
        return Err(Error::invalid("email", "this is not an email address"));
    }
    let name = s.display_name.trim();
    if name.is_empty() || s.display_name.chars().count() > 200 {
        return Err(Error::invalid(
            "display_name",
            "give a name of 1 to 200 characters",
        ));
    }
    let n = s.password.chars().count();
    if n < 10 {
        return Err(Error::invalid("password", "use at least 10 characters"));
    }
    if n > 1000 {
        return Err(Error::invalid("password", "use at most 1000 characters"));
    }
    Ok(())
}

/// A new session for `user`: a new random token, so a session id never survives a login.
async fn start_session(state: &AppState, user: User) -> Result<Session> {
    let token = new_secret("");
    let expires = chrono::Utc::now() + chrono::Duration::days(SESSION_DAYS);
    users::create_session(&state.db, &state.keys.hash(&token), user.id, expires).await?;
    Ok(Session { user, token })
}

/// Creates an account and its first session (rate-limited per `address`).
pub async fn register(state: &AppState, s: SignUp, address: Option<IpAddr>) -> Result<Session> {
    state.limits.signup(address)?;
    validate_signup(&s)?;
    let hash = password::hash_password(s.password).await?;
    let user = users::create(&state.db, s.email.trim(), s.display_name.trim(), &hash)
        .await?
        .ok_or_else(|| {
            Error::Conflict("an account with this email exists; log in instead".into())
        })?;
    start_session(state, user).await
}

/// Checks a login (rate-limited per account and per `address`) and starts a session.
pub async fn authenticate(state: &AppState, l: LogIn, address: Option<IpAddr>) -> Result<Session> {
    state.limits.login(l.email.trim(), address)?;
    let found = users::credentials(&state.db, l.email.trim()).await?;
    let (user, hash) = match found {
        Some((u, h)) => (Some(u), Some(h)),
        None => (None, None),
    };
    // An unknown email is checked against a dummy hash: it takes as long as a wrong password.
    let ok = password::verify_password(l.password, hash).await?;
    let Some(user) = user.filter(|_| ok) else {
        return Err(Error::Unauthorized("wrong email or password".into()));
    };
    start_session(state, user).await
}

/// Ends the session whose token this is, if any.
pub async fn end_session(state: &AppState, token: Option<&str>) -> Result<()> {
    if let Some(t) = token {
        users::delete_session(&state.db, &state.keys.hash(t)).await?;
    }
    Ok(())
}
