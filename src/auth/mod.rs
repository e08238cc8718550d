//! Authentication and authorization: who is calling (a session cookie or a bearer token), what
//! they may do in a club, and rate limits. Every route checks on the server; a club the caller
//! has nothing to do with answers 404, as if it did not exist.

pub mod limits;
pub mod password;

use std::future::Future;
use std::pin::Pin;

use actix_web::{FromRequest, HttpRequest, web};
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use crate::error::AppError;
use crate::startup::AppState;
use crate::storage::{clubs, clubs::Club, tokens, users, users::User};

/// Name of the session cookie.
pub const SESSION_COOKIE: &str = "ml_session";
/// Prefix of API tokens, so a leaked one is easy to recognise.
pub const TOKEN_PREFIX: &str = "mlt_";

/// Keys for hashing session and API tokens (HMAC-SHA256 with the session key): a stolen
/// database alone does not give working tokens.
#[derive(Clone)]
pub struct Keys {
    key: Vec<u8>,
}

impl Keys {
    pub fn new(session_key: &str) -> Keys {
        Keys {
            key: session_key.as_bytes().to_vec(),
        }
    }

    pub fn hash(&self, token: &str) -> String {
        // HMAC takes keys of any length.
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&self.key)
            .expect("HMAC accepts any key length");
        mac.update(token.as_bytes());
        mac.finalize()
            .into_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

/// A new random secret (256 bits, hex) with a prefix.
pub fn new_secret(prefix: &str) -> String {
    let bytes: [u8; 32] = rand::random();
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("{prefix}{hex}")
}

/// Roles in a club, weakest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    Member,
    Scorer,
    Organizer,
    Owner,
}

impl Role {
    pub fn parse(s: &str) -> Option<Role> {
        Some(match s {
            "member" => Role::Member,
            "scorer" => Role::Scorer,
            "organizer" => Role::Organizer,
            "owner" => Role::Owner,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Member => "member",
            Role::Scorer => "scorer",
            Role::Organizer => "organizer",
            Role::Owner => "owner",
        }
    }
}

/// What a route needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Need {
    /// See the club's data: any member; a token with any scope.
    Read,
    /// Enter game results: scorer and up; a `score` or `admin` token.
    Score,
    /// Manage the club: organizer and up; an `admin` token.
    Admin,
}

impl Need {
    fn role(self) -> Role {
        match self {
            Need::Read => Role::Member,
            Need::Score => Role::Scorer,
            Need::Admin => Role::Organizer,
        }
    }

    fn granted_by_scopes(self, scopes: &[String]) -> bool {
        let has = |s: &str| scopes.iter().any(|x| x == s);
        match self {
            Need::Read => has("read") || has("score") || has("admin"),
            Need::Score => has("score") || has("admin"),
            Need::Admin => has("admin"),
        }
    }
}

/// Who is calling.
#[derive(Debug, Clone)]
pub enum Principal {
    User(User),
    Token {
        id: i64,
        club_id: i64,
        scopes: Vec<String>,
    },
}

/// The caller of a request: `None` when anonymous. A bearer token that is unknown or revoked
/// is an error (401), not anonymity.
pub struct Caller(pub Option<Principal>);

impl Caller {
    /// The logged-in user, or 401.
    pub fn user(&self) -> Result<&User, AppError> {
        match &self.0 {
            Some(Principal::User(u)) => Ok(u),
            Some(Principal::Token { .. }) => Err(AppError::Forbidden(
                "this needs a logged-in user, not an API token".into(),
            )),
            None => Err(AppError::Unauthorized(
                "log in first (POST /api/v1/session)".into(),
            )),
        }
    }

    /// The club named by `slug` if the caller may do `need` there: 401 when anonymous, 404 when
    /// the caller has nothing to do with the club (or there is none), 403 when below the need.
    pub async fn club(
        &self,
        state: &AppState,
        slug: &str,
        need: Need,
    ) -> Result<(Club, Access), AppError> {
        if self.0.is_none() {
            return Err(AppError::Unauthorized(
                "log in, or send an API token as `Authorization: Bearer`".into(),
            ));
        }
        let not_found = || AppError::NotFound(format!("no club `{slug}`"));
        let club = clubs::by_slug(&state.db, slug)
            .await?
            .ok_or_else(not_found)?;
        self.club_access(state, club, need).await
    }

    /// As `club`, for a club already loaded (through a league, a card, …).
    pub async fn club_access(
        &self,
        state: &AppState,
        club: Club,
        need: Need,
    ) -> Result<(Club, Access), AppError> {
        let Some(principal) = &self.0 else {
            return Err(AppError::Unauthorized(
                "log in, or send an API token as `Authorization: Bearer`".into(),
            ));
        };
        let not_found = || AppError::NotFound(format!("no club `{}`", club.slug));
        match principal {
            Principal::User(user) => {
                let role = clubs::role(&state.db, club.id, user.id)
                    .await?
                    .and_then(|r| Role::parse(&r))
                    .ok_or_else(not_found)?;
                if role < need.role() {
                    return Err(AppError::Forbidden(format!(
                        "your role in this club is {}; this needs {} or above",
                        role.as_str(),
                        need.role().as_str()
                    )));
                }
                Ok((
                    club,
                    Access::Member {
                        user_id: user.id,
                        role,
                    },
                ))
            }
            Principal::Token {
                club_id, scopes, ..
            } => {
                if *club_id != club.id {
                    return Err(not_found());
                }
                if !need.granted_by_scopes(scopes) {
                    return Err(AppError::Forbidden(format!(
                        "this token's scopes ({}) do not allow this; it needs {}",
                        scopes.join(", "),
                        match need {
                            Need::Read => "read",
                            Need::Score => "score or admin",
                            Need::Admin => "admin",
                        }
                    )));
                }
                Ok((club, Access::Token))
            }
        }
    }
}

/// How the caller reached a club.
#[derive(Debug, Clone, Copy)]
pub enum Access {
    Member { user_id: i64, role: Role },
    Token,
}

async fn resolve(req: HttpRequest) -> Result<Caller, AppError> {
    let state = req
        .app_data::<web::Data<AppState>>()
        .ok_or_else(|| AppError::Internal(anyhow::anyhow!("application state missing")))?;
    if let Some(value) = req.headers().get(actix_web::http::header::AUTHORIZATION) {
        let text = value.to_str().unwrap_or_default();
        let Some(token) = text.strip_prefix("Bearer ").map(str::trim) else {
            return Err(AppError::Unauthorized(
                "the Authorization header must be `Bearer <token>`".into(),
            ));
        };
        let grant = tokens::use_token(&state.db, &state.keys.hash(token)).await?;
        return match grant {
            None => Err(AppError::Unauthorized("this API token is not known".into())),
            Some(g) if g.revoked => {
                Err(AppError::Unauthorized("this API token was revoked".into()))
            }
            Some(g) => Ok(Caller(Some(Principal::Token {
                id: g.id,
                club_id: g.club_id,
                scopes: g.scopes,
            }))),
        };
    }
    if let Some(cookie) = req.cookie(SESSION_COOKIE) {
        let user = users::session_user(&state.db, &state.keys.hash(cookie.value())).await?;
        return Ok(Caller(user.map(Principal::User)));
    }
    Ok(Caller(None))
}

impl FromRequest for Caller {
    type Error = AppError;
    type Future = Pin<Box<dyn Future<Output = Result<Caller, AppError>>>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        Box::pin(resolve(req.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_and_roles_are_ordered() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert!(Need::Read.granted_by_scopes(&s(&["read"])));
        assert!(!Need::Score.granted_by_scopes(&s(&["read"])));
        assert!(Need::Score.granted_by_scopes(&s(&["admin"])));
        assert!(!Need::Admin.granted_by_scopes(&s(&["read", "score"])));
        assert!(Role::Scorer >= Need::Score.role() && Role::Scorer < Need::Admin.role());
    }

    #[test]
    fn hashes_are_keyed() {
        let a = Keys::new("one").hash("token");
        assert_eq!(a.len(), 64);
        assert_ne!(a, Keys::new("two").hash("token"));
        assert!(new_secret(TOKEN_PREFIX).starts_with("mlt_"));
    }
}
