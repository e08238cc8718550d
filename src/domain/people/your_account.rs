//! Your account: your name, password and email (a new email confirmed by a link mailed to it),
//! your sessions, your data, and leaving.

use std::net::IpAddr;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::{new_secret, password};
use crate::domain::{AppState, Caller, Error, Result, outbox::mail, people::budgets};
use crate::storage::people::users::{self, EmailChanged};

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
    /// The same in words: "Chrome on Android", "Safari on iPhone".
    #[schema(example = "Chrome on Android")]
    pub device_words: String,
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
                device_words: device_words(s.user_agent.as_deref()),
                device: s.user_agent,
                this_device: s.current,
            })
            .collect(),
    })
}

/// A browser's user-agent string in words: its browser and its system ("Firefox on Windows"),
/// or "A device" when it says nothing we know.
pub fn device_words(agent: Option<&str>) -> String {
    let Some(a) = agent else {
        return "A device".into();
    };
    // Order matters: Edge and Opera say Chrome too, Chrome says Safari, phones say Linux or Mac.
    let browser = [
        ("Edg/", "Edge"),
        ("OPR/", "Opera"),
        ("Firefox/", "Firefox"),
        ("FxiOS/", "Firefox"),
        ("CriOS/", "Chrome"),
        ("SamsungBrowser/", "Samsung Internet"),
        ("HeadlessChrome/", "Chrome (headless)"),
        ("Chrome/", "Chrome"),
        ("Safari/", "Safari"),
        ("curl/", "curl"),
    ]
    .iter()
    .find(|(mark, _)| a.contains(mark))
    .map(|(_, name)| *name);
    let system = [
        ("iPhone", "iPhone"),
        ("iPad", "iPad"),
        ("Android", "Android"),
        ("Windows", "Windows"),
        ("CrOS", "ChromeOS"),
        ("Macintosh", "Mac"),
        ("Linux", "Linux"),
    ]
    .iter()
    .find(|(mark, _)| a.contains(mark))
    .map(|(_, name)| *name);
    match (browser, system) {
        (Some(b), Some(s)) => format!("{b} on {s}"),
        (Some(b), None) => b.to_string(),
        (None, Some(s)) => format!("A browser on {s}"),
        (None, None) => "A device".into(),
    }
}

pub use crate::domain::people::accounts::clock_of;

pub async fn rename(state: &AppState, caller: &Caller, r: Rename) -> Result<()> {
    let user = caller.user()?;
    let name = crate::domain::text::one_line("display_name", &r.display_name, 200)?;
    let name = name.as_str();
    users::set_display_name(&state.db, user.id, name).await?;
    Ok(())
}

/// Checks the caller's current password (`field` names it in a refusal), counted with log in's
/// password attempts for the account and the address.
async fn check_password(
    state: &AppState,
    user: &users::User,
    given: String,
    field: &str,
    address: Option<IpAddr>,
) -> Result<()> {
    state.limits.password_check(&user.email, address).await?;
    if given.chars().count() > 1000 {
        state.limits.password_failed(&user.email, address).await;
        return Err(Error::invalid(field, "this is not your current password"));
    }
    let hash = users::password_hash(&state.db, user.id).await?;
    if !password::verify_password(given, hash).await? {
        state.limits.password_failed(&user.email, address).await;
        return Err(Error::invalid(field, "this is not your current password"));
    }
    Ok(())
}

/// Sets a new password (the current one given); every other session ends, and the account's
/// address is told.
pub async fn change_password(
    state: &AppState,
    caller: &Caller,
    c: PasswordChange,
    mine: Option<&str>,
    address: Option<IpAddr>,
) -> Result<()> {
    let user = caller.user()?.clone();
    let n = c.new_password.chars().count();
    if !(10..=1000).contains(&n) {
        return Err(Error::invalid("new_password", "use 10 to 1000 characters"));
    }
    check_password(
        state,
        &user,
        c.current_password,
        "current_password",
        address,
    )
    .await?;
    let hash = password::hash_password(c.new_password).await?;
    let keep = mine.map(|t| state.keys.hash(t));
    // The new password and the word to the address, in one transaction.
    let mut tx = state.db.begin().await?;
    users::set_password(&mut tx, user.id, &hash, keep.as_deref()).await?;
    crate::domain::people::accounts::tell_password_changed(state, &mut tx, &user, false).await?;
    tx.commit().await?;
    mail::wake(state);
    Ok(())
}

/// How long the link that undoes an email change works.
pub const UNDO_DAYS: i64 = 7;

/// Mails a link to the new address; the account takes it when the link is followed. The answer
/// and the work are the same whether or not another account has the address (that one is told
/// it has an account, with no link). A newer request ends every older link; at most 3 an hour
/// and 10 a day, and the new address counts as outside mail.
pub async fn change_email(
    state: &AppState,
    caller: &Caller,
    c: EmailChange,
    address: Option<IpAddr>,
) -> Result<EmailTold> {
    let user = caller.user()?.clone();
    crate::domain::people::accounts::validate_email(&c.email)?;
    let email = c.email.trim().to_string();
    if email.eq_ignore_ascii_case(user.email.trim()) {
        return Err(Error::invalid(
            "email",
            "this is your account's address already",
        ));
    }
    state.limits.password_reset(&email, None).await?;
    check_password(state, &user, c.password, "password", address).await?;
    let told = EmailTold {
        message: format!(
            "A link to confirm {email} is on its way to it. Your account keeps {} until the link is followed (within {EMAIL_LINK_HOURS} hours); any earlier link no longer works.",
            user.email
        ),
    };
    let mut tx = state.db.begin().await?;
    budgets::may_change_email(&mut tx, &user).await?;
    budgets::spend_outside(state, &mut tx, &user, &email, "email_change").await?;
    let token = new_secret("");
    users::create_email_change(
        &mut tx,
        &state.keys.hash(&token),
        user.id,
        &email,
        &user.email,
        chrono::Utc::now() + chrono::Duration::hours(EMAIL_LINK_HOURS),
    )
    .await?;
    let to = (email.as_str(), user.display_name.as_str());
    let greeting = format!("Hello {},", user.display_name);
    let Some(known) = lands(state, &mut tx, &user, &email).await? else {
        tx.commit().await?;
        return Ok(told);
    };
    let never = budgets::never_link(state, &email);
    let stop = format!("To be mailed never again at anyone's asking, open: {never}");
    let envelope = |kind| mail::Envelope {
        kind,
        to,
        club_id: None,
        caused_by: None,
        unsubscribe: Some(never.clone()),
    };
    match known {
        Some(_) => {
            let paragraphs = [format!(
                "Someone asked for their mahjong-league account to use this address, {email}. This address has an account already, so nothing changed."
            )];
            let after = ["If you did not ask, ignore this message.".to_string(), stop];
            let login = format!("{}/login", state.public_url);
            let letter = mail::Letter {
                greeting: "Hello,",
                paragraphs: &paragraphs,
                actions: &[("Log in", &login)],
                after: &after,
            };
            mail::write(
                state,
                &mut tx,
                envelope("email_change_known"),
                "This address has an account already",
                letter,
            )
            .await?;
        }
        None => {
            let link = format!("{}/account/email/{token}", state.public_url);
            let paragraphs = [format!(
                "You asked for your mahjong-league account to use this address, {email}, instead of {}.",
                user.email
            )];
            let after = [
                format!("The link works once, within {EMAIL_LINK_HOURS} hours."),
                "If you did not ask, ignore this message: nothing changes.".to_string(),
                stop,
            ];
            let letter = mail::Letter {
                greeting: &greeting,
                paragraphs: &paragraphs,
                actions: &[("Confirm this address", &link)],
                after: &after,
            };
            mail::write(
                state,
                &mut tx,
                envelope("email_change"),
                "Confirm your new address",
                letter,
            )
            .await?;
        }
    }
    tx.commit().await?;
    mail::wake(state);
    Ok(told)
}

/// Counts an email change's mail where it lands, with or without an account there (the answer
/// is the same): whether the address has an account, or `None` when it asked never to be
/// mailed at anyone's asking (nothing is sent).
async fn lands(
    state: &AppState,
    tx: &mut sqlx::PgConnection,
    user: &users::User,
    email: &str,
) -> Result<Option<Option<users::User>>> {
    let known = users::by_email_in(&mut *tx, email).await?;
    let asked = budgets::Asked {
        kind: if known.is_some() {
            "email_change_known"
        } else {
            "email_change"
        },
        address: email,
        club: None,
        asked_by: user.id,
        capped: true,
    };
    Ok(match budgets::spend_address(state, tx, &asked).await? {
        budgets::Landing::Send => Some(known),
        budgets::Landing::OptedOut => None,
    })
}

fn email_link_gone() -> Error {
    Error::NotFound(format!(
        "this link to confirm a new address was used already, was replaced by a newer one, or is more than {EMAIL_LINK_HOURS} hours old: change the address again on your account page"
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

/// Follows a confirmation link: the account takes the new address, and the address it had is
/// told, with a link that undoes the change for `UNDO_DAYS` days.
pub async fn confirm_email(state: &AppState, token: &str) -> Result<String> {
    if token.len() > 200 {
        return Err(email_link_gone());
    }
    let mut tx = state.db.begin().await?;
    let (user, old) = match users::confirm_email_change(&mut tx, &state.keys.hash(token)).await? {
        EmailChanged::Changed(user, old) => (user, old),
        EmailChanged::Gone => return Err(email_link_gone()),
        EmailChanged::Taken => {
            return Err(Error::Conflict(
                "another account uses this address now, so yours keeps its email".into(),
            ));
        }
    };
    let undo = new_secret("");
    let expires = chrono::Utc::now() + chrono::Duration::days(UNDO_DAYS);
    users::create_email_undo(
        &mut tx,
        &state.keys.hash(&undo),
        user.id,
        &old,
        &user.email,
        expires,
    )
    .await?;
    let link = format!("{}/account/email/undo/{undo}", state.public_url);
    let greeting = format!("Hello {},", user.display_name);
    let paragraphs = [format!(
        "Your mahjong-league account uses {} from now on, instead of this address, {old}.",
        user.email
    )];
    let after = [format!(
        "If you did not ask for this, undo it within {UNDO_DAYS} days: the account gets this address back as it was before the change, every device is logged out, API tokens and webhooks made since are revoked, and a link to choose a new password comes to this address."
    )];
    let letter = mail::Letter {
        greeting: &greeting,
        paragraphs: &paragraphs,
        actions: &[("Undo the change", &link)],
        after: &after,
    };
    let to = (old.as_str(), user.display_name.as_str());
    mail::write_to(
        state,
        &mut tx,
        "email_changed",
        to,
        "Your account's address was changed",
        letter,
    )
    .await?;
    tx.commit().await?;
    mail::wake(state);
    Ok(user.email)
}

fn undo_gone() -> Error {
    Error::NotFound(format!(
        "this link to undo an email change was used already, or is more than {UNDO_DAYS} days old"
    ))
}

/// What an undo link would do while it works: (the address the account gets back, the one it
/// has).
pub async fn undo_link(state: &AppState, token: &str) -> Result<(String, String)> {
    if token.len() > 200 {
        return Err(undo_gone());
    }
    users::email_undo(&state.db, &state.keys.hash(token))
        .await?
        .ok_or_else(undo_gone)
}

/// Undoes an email change: the account is brought back to how it was before the change was
/// asked. It gets its old address back; every session, reset link and email-change link ends;
/// API tokens and webhooks it made since are revoked; its password no longer works and is
/// chosen again through a link mailed to the restored address (which is told what was undone),
/// and the address it had is told too.
pub async fn undo_email(state: &AppState, token: &str) -> Result<String> {
    // A dead link costs nothing: checked before the slow hash.
    undo_link(state, token).await?;
    let locked = password::hash_password(new_secret("")).await?;
    let mut tx = state.db.begin().await?;
    let undone = match users::undo_email_change(&mut tx, &state.keys.hash(token), &locked).await? {
        users::UndoOutcome::Undone(u) => *u,
        users::UndoOutcome::Gone => return Err(undo_gone()),
        users::UndoOutcome::Taken => {
            return Err(Error::Conflict(
                "another account uses the old address now, so it cannot come back to yours: ask the service's administrator".into(),
            ));
        }
    };
    mail_undone(state, &mut tx, &undone).await?;
    tx.commit().await?;
    mail::wake(state);
    Ok(undone.user.email)
}

/// The two letters of an undo: to the restored address, what was taken back and the link that
/// chooses the password; to the address the account had, that it is no longer the account's.
async fn mail_undone(
    state: &AppState,
    tx: &mut sqlx::PgConnection,
    undone: &users::Undone,
) -> Result<()> {
    let user = &undone.user;
    let reset = crate::domain::people::accounts::new_reset_link(state, tx, user.id).await?;
    let greeting = format!("Hello {},", user.display_name);
    let mut paragraphs = vec![
        format!(
            "The change of your mahjong-league account's address to {} is undone: the account uses this address, {}, again, and every device was logged out.",
            undone.was, user.email
        ),
        "Its password no longer works, in case whoever changed the address knew it: choose a new one with the button below. Every earlier link to reset the password or change the address no longer works.".to_string(),
    ];
    let listed = |what: &[(String, String)]| {
        what.iter()
            .map(|(club, name)| format!("- {name} ({club})"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    if !undone.tokens.is_empty() {
        paragraphs.push(format!(
            "API tokens the account made since the change was asked, now revoked:\n{}",
            listed(&undone.tokens)
        ));
    }
    if !undone.webhooks.is_empty() {
        paragraphs.push(format!(
            "Webhooks the account registered since the change was asked, now removed:\n{}",
            listed(&undone.webhooks)
        ));
    }
    let after = [format!(
        "The link works once, within {} minutes; after that, ask for another from the login page (Forgot your password?).",
        crate::domain::people::accounts::RESET_MINUTES
    )];
    mail::write_to(
        state,
        tx,
        "email_undone",
        (&user.email, &user.display_name),
        "Your account's address change was undone: choose a new password",
        mail::Letter {
            greeting: &greeting,
            paragraphs: &paragraphs,
            actions: &[("Choose a new password", &reset)],
            after: &after,
        },
    )
    .await?;
    let paragraphs = [format!(
        "The mahjong-league account {} used this address, {}, for a while: the change was undone from a link sent to the address it had before, and the account no longer uses this one.",
        user.display_name, undone.was
    )];
    let after = ["If you made the change and did not undo it, whoever reads the other mailbox did: write to the service's administrator, and choose passwords anew everywhere that address reaches.".to_string()];
    mail::write_to(
        state,
        tx,
        "email_undone_told",
        (&undone.was, &user.display_name),
        "An address change of your account was undone",
        mail::Letter {
            greeting: &greeting,
            paragraphs: &paragraphs,
            actions: &[],
            after: &after,
        },
    )
    .await?;
    Ok(())
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
    let replies = crate::storage::play::ahead::replies_of(&state.db, account.id).await?;
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
pub async fn leave(
    state: &AppState,
    caller: &Caller,
    l: Leaving,
    address: Option<IpAddr>,
) -> Result<()> {
    let user = caller.user()?.clone();
    check_password(state, &user, l.password, "password", address).await?;
    match users::delete(&state.db, user.id).await? {
        Ok(()) => Ok(()),
        Err(clubs) => Err(Error::Conflict(format!(
            "you are the only owner of {}: make another member an owner first, so the club is not left without one",
            clubs.join(", ")
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::device_words;

    #[test]
    fn browsers_are_named_in_words() {
        for (agent, words) in [
            (
                "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36",
                "Chrome on Android",
            ),
            (
                "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
                "Safari on iPhone",
            ),
            (
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36 Edg/131.0",
                "Edge on Windows",
            ),
            (
                "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:132.0) Gecko/20100101 Firefox/132.0",
                "Firefox on Mac",
            ),
            ("reqwest/0.13", "A device"),
        ] {
            assert_eq!(device_words(Some(agent)), words, "{agent}");
        }
        assert_eq!(device_words(None), "A device");
    }
}
