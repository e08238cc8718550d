//! Who is calling and what they may do. Every operation asks here first; a club the caller has
//! nothing to do with answers 404, as if it did not exist.

use crate::domain::{AppState, Error, Result};
use crate::storage::people::clubs::{self, Club};
use crate::storage::seasons::leagues::{self, League};
use crate::storage::{people::tokens, people::users, people::users::User};

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

/// What an operation needs.
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
    /// The holder of a live table code: enters and corrects games at that table only.
    Table {
        code_id: i64,
        table_id: i64,
        table_number: i32,
        league_id: i64,
    },
}

/// The caller of an operation: `None` when anonymous. The second field is a table code a
/// logged-in user's browser holds too: whoever holds a code scores its table, whatever their
/// role in the club.
#[derive(Debug, Clone, Default)]
pub struct Caller(pub Option<Principal>, pub Option<HeldTable>);

/// A live table code held beside a login: the table it scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeldTable {
    pub table_id: i64,
    pub league_id: i64,
}

/// The credentials a request carried.
pub enum Credentials<'a> {
    /// An API token (`Authorization: Bearer`).
    Token(&'a str),
    /// A session token (the session cookie).
    Session(&'a str),
    None,
}

/// Who presents `credentials`. A token that is unknown or revoked is an error (401), not
/// anonymity; an unknown or expired session is anonymous.
pub async fn identify(state: &AppState, credentials: Credentials<'_>) -> Result<Caller> {
    match credentials {
        Credentials::Token(token) => {
            let hash = state.keys.hash(token);
            let grant = match state.grants.get(&state.freshness, &hash) {
                Some(grant) => Some(grant),
                None => {
                    let stamp = state.freshness.stamp();
                    let grant = tokens::use_token(&state.db, &hash).await?;
                    if let (Some(stamp), Some(g)) = (stamp, &grant)
                        && !g.revoked
                    {
                        state.grants.put(stamp, hash, g.clone());
                    }
                    grant
                }
            };
            match grant {
                None => Err(Error::Unauthorized("this API token is not known".into())),
                Some(g) if g.revoked => {
                    Err(Error::Unauthorized("this API token was revoked".into()))
                }
                Some(g) => Ok(Caller::of(Principal::Token {
                    id: g.id,
                    club_id: g.club_id,
                    scopes: g.scopes,
                })),
            }
        }
        Credentials::Session(token) => {
            let user = users::session_user(&state.db, &state.keys.hash(token)).await?;
            Ok(Caller(user.map(Principal::User), None))
        }
        Credentials::None => Ok(Caller::default()),
    }
}

fn log_in_first() -> Error {
    Error::Unauthorized("log in, or send an API token as `Authorization: Bearer`".into())
}

impl Caller {
    /// The caller `principal`, holding no table code besides.
    pub fn of(principal: Principal) -> Caller {
        Caller(Some(principal), None)
    }

    /// The logged-in user, or 401.
    pub fn user(&self) -> Result<&User> {
        match &self.0 {
            Some(Principal::User(u)) => Ok(u),
            Some(Principal::Token { .. }) => Err(Error::Forbidden(
                "this needs a logged-in user, not an API token".into(),
            )),
            Some(Principal::Table { .. }) => Err(Error::Forbidden(
                "this needs a logged-in user; a table code only enters games at its table".into(),
            )),
            None => Err(Error::Unauthorized(
                "log in first (POST /api/v1/session)".into(),
            )),
        }
    }

    /// The logged-in user's display name, for page headers.
    pub fn display_name(&self) -> Option<String> {
        match &self.0 {
            Some(Principal::User(u)) => Some(u.display_name.clone()),
            Some(Principal::Table { table_number, .. }) => {
                Some(format!("Table {table_number} code"))
            }
            _ => None,
        }
    }

    /// The table a table code lets the caller score at, if the caller holds one.
    pub fn code_table(&self) -> Option<(i64, i64)> {
        match &self.0 {
            Some(Principal::Table {
                table_id,
                league_id,
                ..
            }) => Some((*table_id, *league_id)),
            _ => self.1.map(|h| (h.table_id, h.league_id)),
        }
    }

    /// Who did something, for the audit log.
    pub fn actor(&self) -> String {
        match &self.0 {
            Some(Principal::User(u)) => format!("user {} ({})", u.id, u.email),
            Some(Principal::Token { id, .. }) => format!("token {id}"),
            Some(Principal::Table { table_number, .. }) => format!("table {table_number} code"),
            None => "anonymous".into(),
        }
    }

    /// Who did something at a table, for the audit log: a logged-in caller holding that table's
    /// code is written down as the code, used by them ("table 1 code, used by user 4 (…)"), so
    /// the log says how they could score there; anyone else as `actor`.
    pub fn actor_at(&self, table_id: i64, table_number: i32) -> String {
        match (&self.0, self.1) {
            (Some(Principal::User(u)), Some(held)) if held.table_id == table_id => format!(
                "table {table_number} code, used by user {} ({})",
                u.id, u.email
            ),
            _ => self.actor(),
        }
    }

    /// The club named by `slug` if the caller may do `need` there: 401 when anonymous, 404 when
    /// the caller has nothing to do with the club (or there is none), 403 when below the need.
    pub async fn club(&self, state: &AppState, slug: &str, need: Need) -> Result<(Club, Access)> {
        if self.0.is_none() {
            return Err(log_in_first());
        }
        let club = clubs::by_slug(&state.db, slug)
            .await?
            .ok_or_else(|| Error::NotFound(format!("no club `{slug}`")))?;
        self.club_access(state, club, need).await
    }

    /// As `club`, for a club already loaded (through a league, a card, …).
    pub async fn club_access(
        &self,
        state: &AppState,
        club: Club,
        need: Need,
    ) -> Result<(Club, Access)> {
        let Some(principal) = &self.0 else {
            return Err(log_in_first());
        };
        let not_found = || Error::NotFound(format!("no club `{}`", club.slug));
        match principal {
            Principal::User(user) => {
                let role = clubs::role(&state.db, club.id, user.id)
                    .await?
                    .and_then(|r| Role::parse(&r))
                    .ok_or_else(not_found)?;
                if role < need.role() {
                    let who = match need.role() {
                        Role::Owner => "owners",
                        Role::Organizer => "organizers and owners",
                        Role::Scorer => "scorers, organizers and owners",
                        Role::Member => "members",
                    };
                    return Err(Error::Forbidden(format!(
                        "this is for the {who} of {}; you are a {} there",
                        club.name,
                        role.as_str()
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
                    return Err(Error::Forbidden(format!(
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
            // A table code opens one table, nothing of the club beyond it.
            Principal::Table { .. } => Err(not_found()),
        }
    }

    /// The caller's role in the club as a logged-in member, if any (pages show more to
    /// organizers and scorers).
    pub async fn role_in(&self, state: &AppState, club: &Club) -> Result<Option<Role>> {
        match self.club_access(state, club.clone(), Need::Read).await {
            Ok((_, Access::Member { role, .. })) => Ok(Some(role)),
            Ok((_, Access::Token)) => Ok(None),
            Err(Error::Internal(e)) => Err(Error::Internal(e)),
            Err(_) => Ok(None),
        }
    }

    /// A league the caller may see (`Need::Read` on a public league: anyone) or act on.
    pub async fn league(&self, state: &AppState, id: i64, need: Need) -> Result<(League, Club)> {
        let (league, club) = leagues::with_club(&state.db, id)
            .await?
            .ok_or_else(|| Error::NotFound(format!("no league {id}")))?;
        self.admit(state, league, club, need).await
    }

    /// Whether the caller may read the league with nothing more read from the database: anyone
    /// a public league, a token of the league's club with a read scope. `false` says only that
    /// the database must be asked (which also says why not).
    pub fn reads_at_once(&self, league: &League) -> bool {
        if league.visibility == "public" {
            return true;
        }
        matches!(&self.0, Some(Principal::Token { club_id, scopes, .. })
            if *club_id == league.club_id && Need::Read.granted_by_scopes(scopes))
    }

    /// As `league`, for a league and its club already read.
    pub async fn admit(
        &self,
        state: &AppState,
        league: League,
        club: Club,
        need: Need,
    ) -> Result<(League, Club)> {
        let id = league.id;
        let not_found = || Error::NotFound(format!("no league {id}"));
        if need == Need::Read && league.visibility == "public" {
            return Ok((league, club));
        }
        let (club, _) = self
            .club_access(state, club, need)
            .await
            .map_err(|e| match e {
                Error::Unauthorized(_) if league.visibility != "public" => not_found(),
                // Reached through the league: its 404 names the league asked for, never the
                // club behind it (a stranger learns nothing of a members-only league's club).
                Error::NotFound(_) => not_found(),
                other => other,
            })?;
        Ok((league, club))
    }
}

/// How the caller reached a club.
#[derive(Debug, Clone, Copy)]
pub enum Access {
    Member { user_id: i64, role: Role },
    Token,
}

impl Access {
    /// The role this access acts with (a token with `admin` acts as an organizer).
    pub fn role(self) -> Role {
        match self {
            Access::Member { role, .. } => role,
            Access::Token => Role::Organizer,
        }
    }
}

/// A club the caller runs (organizers, owners, `admin` tokens), and whether they own it. Only
/// `organized` makes one, so holding one proves the check was made.
pub struct Organized {
    club: Club,
    owner: bool,
}

impl Organized {
    pub fn club(&self) -> &Club {
        &self.club
    }

    /// Whether the caller owns the club (only owners make or unmake owners).
    pub fn owner(&self) -> bool {
        self.owner
    }
}

/// The club, when the caller may run it.
pub async fn organized(state: &AppState, caller: &Caller, slug: &str) -> Result<Organized> {
    let (club, access) = caller.club(state, slug, Need::Admin).await?;
    let owner = matches!(
        access,
        Access::Member {
            role: Role::Owner,
            ..
        }
    );
    Ok(Organized { club, owner })
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
}
