//! Your account: your name, password and email (a new email confirmed by a link mailed to it),
//! your sessions, your data, and leaving.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::{new_secret, password};
use crate::domain::{AppState, Caller, Error, Result, mail};
use crate::storage::users::{self, EmailChanged};

/// How long a link confirming a new email works.
pub const EMAIL_LINK_HOURS: i64 = 24;

/// One of your sessions.
#[derive(Serialize, ToSchema)]
pub struct SessionView {
    pub id: i64,
    pub started: chrono::DateTime<chrono::Utc>,
    pub ends: chrono::DateTime<chrono::Utc>,
    /// What the browser said it was when it logged in.
    #[schema(required = true)]
    pub device: Option<String>,
    /// The session this list was asked from.
    pub this_device: bool,
}

/// A club you belong to.
#[derive(Serialize, ToSchema)]
pub struct ClubRole {
    pub slug: String,
    pub name: String,
    /// `owner`, `organizer`, `scorer` or `member`.
    #[schema(schema_with = crate::domain::schemas::role)]
    pub role: String,
    /// You are its only owner: the club needs another owner before you can leave.
    pub only_owner: bool,
}

/// Your account as you see it.
#[derive(Serialize, ToSchema)]
pub struct AccountView {
    pub id: i64,
    pub email: String,
    pub display_name: String,
    pub clubs: Vec<ClubRole>,
    pub sessions: Vec<SessionView>,
}

/// A new display name.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Rename {
    #[schema(example = "Rose Adler", min_length = 1, max_length = 200)]
    pub display_name: String,
}

/// A new password, with the current one.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PasswordChange {
    pub current_password: String,
    /// 10 to 1000 characters.
    #[schema(min_length = 10, max_length = 1000)]
    pub new_password: String,
}

/// A new email (confirmed by a link mailed to it), with the current password.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EmailChange {
    #[schema(example = "rose@example.net", max_length = 254)]
    pub email: String,
    pub password: String,
}

/// Leaving: the current password.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Leaving {
    pub password: String,
}

/// What an email change is told, whether or not another account has the address.
#[derive(Serialize, ToSchema)]
pub struct EmailTold {
    pub message: String,
}

/// Your account, your clubs and your sessions (`mine`: this request's session token).
pub async fn show(state: &AppState, caller: &Caller, mine: Option<&str>) -> Result<AccountView> {
    let user = caller.user()?.clone();
    let mine = mine.map(|t| state.keys.hash(t));
    let sessions = users::sessions_of(&state.db, user.id, mine.as_deref()).await?;
    let clubs = users::belongings(&state.db, user.id).await?;
    Ok(AccountView {
        id: user.id,
        email: user.email,
        display_name: user.display_name,
        clubs: clubs
            .into_iter()
            .map(|b| ClubRole {
                only_owner: b.role == "owner" && b.owners == 1,
                slug: b.slug,
                name: b.name,
                role: b.role,
            })
            .collect(),
        sessions: sessions
            .into_iter()
            .map(|s| SessionView {
                id: s.id,
                started: s.created_at,
                ends: s.expires_at,
                device: s.user_agent,
                this_device: s.current,
            })
            .collect(),
    })
}

pub async fn rename(state: &AppState, caller: &Caller, r: Rename) -> Result<()> {
    let user = caller.user()?;
    let name = r.display_name.trim();
    if name.is_empty() || r.display_name.chars().count() > 200 || name.chars().any(char::is_control)
    {
        return Err(Error::invalid(
            "display_name",
            "give a name of 1 to 200 characters, on one line",
        ));
    }
    users::set_display_name(&state.db, user.id, name).await?;
    Ok(())
}

/// Checks the caller's current password (`field` names it in a refusal).
async fn check_password(state: &AppState, user_id: i64, given: String, field: &str) -> Result<()> {
    if given.chars().count() > 1000 {
        return Err(Error::invalid(field, "this is not your current password"));
    }
    let hash = users::password_hash(&state.db, user_id).await?;
    if !password::verify_password(given, hash).await? {
        return Err(Error::invalid(field, "this is not your current password"));
    }
    Ok(())
}

/// Sets a new password (the current one given); every other session ends.
pub async fn change_password(
    state: &AppState,
    caller: &Caller,
    c: PasswordChange,
    mine: Option<&str>,
) -> Result<()> {
    let user = caller.user()?.clone();
    let n = c.new_password.chars().count();
    if !(10..=1000).contains(&n) {
        return Err(Error::invalid("new_password", "use 10 to 1000 characters"));
    }
    check_password(state, user.id, c.current_password, "current_password").await?;
    let hash = password::hash_password(c.new_password).await?;
    let keep = mine.map(|t| state.keys.hash(t));
    users::set_password(&state.db, user.id, &hash, keep.as_deref()).await?;
    Ok(())
}

/// Mails a link to the new address; the account takes it when the link is followed. The answer
/// is the same whether or not another account has the address (that one gets no mail).
pub async fn change_email(state: &AppState, caller: &Caller, c: EmailChange) -> Result<EmailTold> {
    let user = caller.user()?.clone();
    crate::domain::accounts::validate_email(&c.email)?;
    let email = c.email.trim().to_string();
    state.limits.password_reset(&email, None)?;
    check_password(state, user.id, c.password, "password").await?;
    let told = EmailTold {
        message: format!(
            "A link to confirm {email} is on its way to it. Your account keeps {} until the link is followed (within {EMAIL_LINK_HOURS} hours).",
            user.email
        ),
    };
    if users::by_email(&state.db, &email).await?.is_some() {
        return Ok(told);
    }
    let token = new_secret("");
    let link = format!("{}/account/email/{token}", state.public_url);
    let greeting = format!("Hello {},", user.display_name);
    let paragraphs = [format!(
        "You asked for your mah jongg league account to use this address, {email}, instead of {}.",
        user.email
    )];
    let after = [
        format!("The link works once, within {EMAIL_LINK_HOURS} hours."),
        "If you did not ask, ignore this message: nothing changes.".to_string(),
    ];
    let letter = mail::Letter {
        greeting: &greeting,
        paragraphs: &paragraphs,
        actions: &[("Confirm this address", &link)],
        after: &after,
    };
    let mut tx = state.db.begin().await?;
    users::create_email_change(
        &mut tx,
        &state.keys.hash(&token),
        user.id,
        &email,
        chrono::Utc::now() + chrono::Duration::hours(EMAIL_LINK_HOURS),
    )
    .await?;
    let to = (email.as_str(), user.display_name.as_str());
    mail::write_to(
        &mut tx,
        "email_change",
        to,
        "Confirm your new address",
        letter,
    )
    .await?;
    tx.commit().await?;
    mail::wake(state);
    Ok(told)
}

fn email_link_gone() -> Error {
    Error::NotFound(format!(
        "this link to confirm a new address was used already, or is more than {EMAIL_LINK_HOURS} hours old: change the address again on your account page"
    ))
}

/// The new address a confirmation link is for, while it works.
pub async fn email_link(state: &AppState, token: &str) -> Result<String> {
    if token.len() > 200 {
        return Err(email_link_gone());
    }
    users::email_change(&state.db, &state.keys.hash(token))
        .await?
        .map(|(_, email)| email)
        .ok_or_else(email_link_gone)
}

/// Follows a confirmation link: the account takes the new address.
pub async fn confirm_email(state: &AppState, token: &str) -> Result<String> {
    if token.len() > 200 {
        return Err(email_link_gone());
    }
    match users::confirm_email_change(&state.db, &state.keys.hash(token)).await? {
        EmailChanged::Changed(user) => Ok(user.email),
        EmailChanged::Gone => Err(email_link_gone()),
        EmailChanged::Taken => Err(Error::Conflict(
            "another account uses this address now, so yours keeps its email".into(),
        )),
    }
}

/// Ends every session of the caller's but this one: how many ended.
pub async fn end_other_sessions(
    state: &AppState,
    caller: &Caller,
    mine: Option<&str>,
) -> Result<u64> {
    let user = caller.user()?;
    let keep = mine.map(|t| state.keys.hash(t));
    Ok(users::end_sessions_but(&state.db, user.id, keep.as_deref()).await?)
}

/// Ends one of the caller's sessions.
pub async fn end_session(state: &AppState, caller: &Caller, id: i64) -> Result<()> {
    let user = caller.user()?;
    if !users::end_session_by_id(&state.db, user.id, id).await? {
        return Err(Error::NotFound("you have no such session".into()));
    }
    Ok(())
}

/// Everything the service keeps about the caller, as JSON.
pub async fn data(
    state: &AppState,
    caller: &Caller,
    mine: Option<&str>,
) -> Result<serde_json::Value> {
    let account = show(state, caller, mine).await?;
    let players = users::players_of(&state.db, account.id).await?;
    let mail = users::mail_to(&state.db, &account.email).await?;
    let replies = crate::storage::ahead::replies_of(&state.db, account.id).await?;
    Ok(serde_json::json!({
        "exported_at": chrono::Utc::now(),
        "account": {
            "id": account.id,
            "email": account.email,
            "display_name": account.display_name,
        },
        "clubs": account.clubs,
        "players": players.iter().map(|(club, name)| serde_json::json!({"club": club, "player": name})).collect::<Vec<_>>(),
        "sessions": account.sessions,
        "nights_ahead": replies.iter().map(|(league, date, place, answer, at)| serde_json::json!({
            "league": league, "date": date, "place": place, "answer": answer, "replied_at": at
        })).collect::<Vec<_>>(),
        "mail": mail.iter().map(|(kind, subject, status, at)| serde_json::json!({
            "kind": kind, "subject": subject, "status": status, "written_at": at
        })).collect::<Vec<_>>(),
    }))
}

/// Deletes the caller's account (the password given), unless they are the only owner of a club.
/// Their memberships and sessions go with it; players they were stay in the clubs' lists,
/// without the account.
pub async fn leave(state: &AppState, caller: &Caller, l: Leaving) -> Result<()> {
    let user = caller.user()?.clone();
    check_password(state, user.id, l.password, "password").await?;
    match users::delete(&state.db, user.id).await? {
        Ok(()) => Ok(()),
        Err(clubs) => Err(Error::Conflict(format!(
            "you are the only owner of {}: make another member an owner first, so the club is not left without one",
            clubs.join(", ")
        ))),
    }
}
