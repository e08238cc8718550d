//! Accounts and sessions: sign up, log in (rate-limited), log out.

use std::net::IpAddr;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::{new_secret, password};
use crate::domain::{AppState, Error, Result, outbox::mail};
use crate::storage::outbox::mail as stored_mail;
use crate::storage::people::users;
pub use crate::storage::people::users::User;

/// How long a session lasts.
pub const SESSION_DAYS: i64 = 30;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SignUp {
    #[schema(example = "rose@example.org", min_length = 3, max_length = 254)]
    pub email: String,
    #[schema(example = "Rose Adler", min_length = 1, max_length = 200)]
    pub display_name: String,
    /// Ignored: the password is chosen on the page of the mailed link (`POST
    /// /api/v1/sign-ups/{token}`), by whoever holds the address. Still taken, so older apps
    /// keep working.
    #[schema(deprecated, max_length = 1000)]
    pub password: Option<String>,
}

/// The password chosen when a sign-up's mailed link is opened.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ChosenPassword {
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

/// An email address as the service takes one (trimmed): up to 254 characters, one mailbox as
/// the mail library reads one (lettre's `Address`: a local part and a domain, nothing else).
pub fn validate_email(email: &str) -> Result<()> {
    let trimmed = email.trim();
    if email.chars().count() > 254 {
        return Err(Error::invalid(
            "email",
            "an email address has at most 254 characters",
        ));
    }
    if !crate::mail::is_mailbox(trimmed) {
        return Err(Error::invalid(
            "email",
            "give one email address, such as rose@example.org: no name, no angle brackets, no second address",
        ));
    }
    Ok(())
}

/// A sign-up's address and name (the password is checked where one is chosen).
pub(crate) fn validate_signup(s: &SignUp) -> Result<()> {
    validate_email(&s.email)?;
    crate::domain::text::one_line("display_name", &s.display_name, 200)?;
    Ok(())
}

/// A password is 10 to 1000 characters.
pub(crate) fn validate_password(password: &str) -> Result<()> {
    let n = password.chars().count();
    if n < 10 {
        return Err(Error::invalid("password", "use at least 10 characters"));
    }
    if n > 1000 {
        return Err(Error::invalid("password", "use at most 1000 characters"));
    }
    Ok(())
}

/// A new session for `user`: a new random token, so a session id never survives a login.
pub(crate) async fn start_session(
    state: &AppState,
    user: User,
    agent: Option<&str>,
) -> Result<Session> {
    let token = new_secret("");
    let expires = chrono::Utc::now() + chrono::Duration::days(SESSION_DAYS);
    // What the browser says it is, shortened: enough to tell one's devices apart.
    let agent = agent.map(|a| {
        crate::mail::header_text(a)
            .chars()
            .take(200)
            .collect::<String>()
    });
    users::create_session(
        &state.db,
        &state.keys.hash(&token),
        user.id,
        expires,
        agent.as_deref(),
    )
    .await?;
    Ok(Session { user, token })
}

/// How long a sign-up's link works.
pub const SIGNUP_HOURS: i64 = 24;

/// What a sign-up is told, whether or not the address has an account.
#[derive(Serialize, ToSchema)]
pub struct SignUpTold {
    #[schema(
        example = "Check your mail: a link to finish signing up is on its way to rose@example.org. It works once, within 24 hours."
    )]
    pub message: String,
}

/// Asks for an account (rate-limited per `address` and per email). The sign-up is written down
/// the same way for any address and answered the same: the mail worker then mails a link to
/// finish it, or tells an address that has an account so (`signup_mail`). A password sent
/// with it is dropped: whoever opens the link chooses one, so a sign-up made for someone
/// else's address never holds a password its owner does not know.
pub async fn register(state: &AppState, s: SignUp, address: Option<IpAddr>) -> Result<SignUpTold> {
    validate_signup(&s)?;
    if s.password
        .as_ref()
        .is_some_and(|p| p.chars().count() > 1000)
    {
        return Err(Error::invalid(
            "password",
            "send at most 1000 characters, or none: the password is chosen on the mailed link's page",
        ));
    }
    let email = s.email.trim();
    state.limits.signup(Some(email), address).await?;
    stored_mail::ask_signup(&state.db, email, s.display_name.trim()).await?;
    mail::wake(state);
    Ok(SignUpTold {
        message: format!(
            "Check your mail: a link to finish signing up is on its way to {email}. It works once, within {SIGNUP_HOURS} hours."
        ),
    })
}

/// Makes an account at once, with no mail and no session: the service's own demo organizer,
/// whose password the console shows. Conflict when the address has an account.
pub async fn create_direct(state: &AppState, s: SignUp) -> Result<User> {
    validate_signup(&s)?;
    let password = s.password.unwrap_or_default();
    validate_password(&password)?;
    let hash = password::hash_password(password).await?;
    users::create(&state.db, s.email.trim(), s.display_name.trim(), &hash)
        .await?
        .ok_or_else(|| Error::Conflict("an account with this email exists".into()))
}

/// Writes, in `conn`'s transaction, the mail a sign-up gets: a link to finish it, or, for an
/// address that has an account, a word that it has one.
pub async fn signup_mail(
    state: &AppState,
    conn: &mut sqlx::PgConnection,
    r: &stored_mail::SignupRequest,
) -> Result<()> {
    let to = (r.email.as_str(), r.display_name.as_str());
    if let Some(user) = users::by_email_in(&mut *conn, &r.email).await? {
        let greeting = format!("Hello {},", user.display_name);
        let paragraphs = [format!(
            "Someone, we hope you, asked to sign up to the mah jongg league service with {}. This address has an account already, so nothing new was made.",
            user.email
        )];
        let after = [
            "If you forgot its password, choose a new one from the login page (Forgot your password?). If you did not ask, ignore this message.".to_string(),
        ];
        let login = format!("{}/login", state.public_url);
        let letter = mail::Letter {
            greeting: &greeting,
            paragraphs: &paragraphs,
            actions: &[("Log in", &login)],
            after: &after,
        };
        mail::write_to(
            state,
            conn,
            "signup_known",
            to,
            "You have an account already",
            letter,
        )
        .await?;
        return Ok(());
    }
    let token = new_secret("");
    let link = format!("{}/signup/{token}", state.public_url);
    let greeting = format!("Hello {},", r.display_name);
    let paragraphs = [format!(
        "Open this link to finish signing up to mahjong-league; your account's address is {}.",
        r.email
    )];
    let after = [
        format!("The link works once, within {SIGNUP_HOURS} hours."),
        "If you did not ask, ignore this message: no account is made.".to_string(),
    ];
    let letter = mail::Letter {
        greeting: &greeting,
        paragraphs: &paragraphs,
        actions: &[("Finish signing up", &link)],
        after: &after,
    };
    stored_mail::create_signup(
        &mut *conn,
        &state.keys.hash(&token),
        r,
        chrono::Utc::now() + chrono::Duration::hours(SIGNUP_HOURS),
    )
    .await?;
    mail::write_to(state, conn, "signup", to, "Finish signing up", letter).await?;
    Ok(())
}

fn signup_gone() -> Error {
    Error::NotFound(format!(
        "this sign-up link was used already, or is more than {SIGNUP_HOURS} hours old: sign up again"
    ))
}

/// The address and name a sign-up link would make an account for, while it works.
pub async fn signup_link(state: &AppState, token: &str) -> Result<(String, String)> {
    if token.len() > 200 {
        return Err(signup_gone());
    }
    stored_mail::signup_of(&state.db, &state.keys.hash(token))
        .await?
        .ok_or_else(signup_gone)
}

/// Makes the account a sign-up link holds, with the password chosen on the link's page, and
/// logs it in (the link is used up). Counted with log in's password attempts.
pub async fn finish_signup(
    state: &AppState,
    token: &str,
    chosen: ChosenPassword,
    address: Option<IpAddr>,
    agent: Option<&str>,
) -> Result<Session> {
    // A dead link is told before anything is counted or hashed.
    let (email, _) = signup_link(state, token).await?;
    validate_password(&chosen.password)?;
    state.limits.password_check(&email, address).await?;
    let hash = password::hash_password(chosen.password).await?;
    let mut tx = state.db.begin().await?;
    let r = stored_mail::use_signup(&mut tx, &state.keys.hash(token))
        .await?
        .ok_or_else(signup_gone)?;
    let user = users::create_in(&mut tx, &r.email, &r.display_name, &hash)
        .await?
        .ok_or_else(|| {
            Error::Conflict(format!(
                "an account with the email {} exists already: log in instead",
                r.email
            ))
        })?;
    // Whoever holds the address chose an account with it: its "never mail" is lifted.
    crate::domain::people::budgets::address_has_account(state, &mut tx, &r.email).await?;
    tx.commit().await?;
    start_session(state, user, agent).await
}

/// Checks a login (rate-limited per account and per `address`) and starts a session. Every
/// hashing thread busy is a 503 at once (an app tries again after its `Retry-After`).
pub async fn authenticate(
    state: &AppState,
    l: LogIn,
    address: Option<IpAddr>,
    agent: Option<&str>,
) -> Result<Session> {
    log_in(state, l, address, agent, false).await
}

/// How long the log-in page waits before it checks a password again when every hashing thread
/// was busy.
pub const BUSY_WAIT: std::time::Duration = std::time::Duration::from_millis(1_000);

/// As `authenticate`, for a person at the log-in page: when every hashing thread is busy it
/// waits a moment and checks once more by itself (counted as one attempt), and only then says
/// the service is busy.
pub async fn authenticate_patiently(
    state: &AppState,
    l: LogIn,
    address: Option<IpAddr>,
    agent: Option<&str>,
) -> Result<Session> {
    log_in(state, l, address, agent, true).await
}

async fn log_in(
    state: &AppState,
    l: LogIn,
    address: Option<IpAddr>,
    agent: Option<&str>,
    patient: bool,
) -> Result<Session> {
    state.limits.login(l.email.trim(), address).await?;
    state.limits.password_check(l.email.trim(), address).await?;
    let found = users::credentials(&state.db, l.email.trim()).await?;
    let (user, hash) = match found {
        Some((u, h)) => (Some(u), Some(h)),
        None => (None, None),
    };
    // An unknown email is checked against a dummy hash: it takes as long as a wrong password.
    let ok = match password::verify_password(l.password.clone(), hash.clone()).await {
        Err(password::HashError::Busy) if patient => {
            tokio::time::sleep(BUSY_WAIT).await;
            password::verify_password(l.password, hash).await?
        }
        answer => answer?,
    };
    let Some(user) = user.filter(|_| ok) else {
        state.limits.password_failed(l.email.trim(), address).await;
        return Err(Error::Unauthorized("wrong email or password".into()));
    };
    start_session(state, user, agent).await
}

/// Ends the session whose token this is, if any.
pub async fn end_session(state: &AppState, token: Option<&str>) -> Result<()> {
    if let Some(t) = token {
        users::delete_session(&state.db, &state.keys.hash(t)).await?;
    }
    Ok(())
}

/// How long a password reset link works.
pub const RESET_MINUTES: i64 = 60;

/// Asking for a password reset: the account's email.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ResetAsked {
    #[schema(example = "rose@example.org", max_length = 254)]
    pub email: String,
}

/// Setting a new password through a reset link.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewPassword {
    /// 10 to 1000 characters.
    #[schema(example = "a new horse battery", min_length = 10, max_length = 1000)]
    pub password: String,
}

/// What a reset request is told, whether or not an account has the address.
#[derive(Serialize, ToSchema)]
pub struct ResetTold {
    #[schema(
        example = "If an account has this email, a link to choose a new password is on its way. It works once, within an hour."
    )]
    pub message: String,
}

/// The answer to every reset request that is not over a limit.
pub fn reset_told() -> ResetTold {
    ResetTold {
        message: format!(
            "If an account has this email, a link to choose a new password is on its way. It works once, within {RESET_MINUTES} minutes."
        ),
    }
}

/// Asks for a password reset (rate-limited per `address` and per email). The request is written
/// down for any address alike, and answered the same: the mail worker then looks up the account
/// and writes its link's mail (`reset_mail`), or nothing for an address without one.
pub async fn ask_reset(
    state: &AppState,
    asked: ResetAsked,
    address: Option<IpAddr>,
) -> Result<ResetTold> {
    validate_email(&asked.email)?;
    let email = asked.email.trim();
    state.limits.password_reset(email, address).await?;
    stored_mail::ask_reset(&state.db, email).await?;
    mail::wake(state);
    Ok(reset_told())
}

/// Writes, in `conn`'s transaction, the reset link's mail for the account with `email`, if there
/// is one.
pub async fn reset_mail(
    state: &AppState,
    conn: &mut sqlx::PgConnection,
    email: &str,
) -> Result<()> {
    let Some(user) = users::by_email_in(&mut *conn, email).await? else {
        return Ok(());
    };
    let link = new_reset_link(state, conn, user.id).await?;
    let greeting = format!("Hello {},", user.display_name);
    let paragraphs = [format!(
        "Someone, we hope you, asked to reset the password of the mahjong-league account {}.",
        user.email
    )];
    let after = [
        format!(
            "The link works once, within {RESET_MINUTES} minutes. Choosing a new password logs this account out on every other device."
        ),
        "If you did not ask, ignore this message: your password stays as it is.".to_string(),
    ];
    let letter = mail::Letter {
        greeting: &greeting,
        paragraphs: &paragraphs,
        actions: &[("Choose a new password", &link)],
        after: &after,
    };
    let to = (user.email.as_str(), user.display_name.as_str());
    mail::write_to(
        state,
        conn,
        "password_reset",
        to,
        "Choose a new password",
        letter,
    )
    .await?;
    Ok(())
}

/// A new link that sets the account's password, working once for `RESET_MINUTES` minutes
/// (kept in `conn`'s transaction).
pub async fn new_reset_link(
    state: &AppState,
    conn: &mut sqlx::PgConnection,
    user_id: i64,
) -> Result<String> {
    let token = new_secret("");
    stored_mail::create_reset(
        &mut *conn,
        &state.keys.hash(&token),
        user_id,
        chrono::Utc::now() + chrono::Duration::minutes(RESET_MINUTES),
    )
    .await?;
    Ok(format!("{}/reset/{token}", state.public_url))
}

/// The email of the account a reset link opens (to show on its page), if the link still works.
pub async fn reset_link(state: &AppState, token: &str) -> Result<String> {
    if token.len() > 200 {
        return Err(reset_gone());
    }
    stored_mail::reset_user(&state.db, &state.keys.hash(token))
        .await?
        .map(|(_, email)| email)
        .ok_or_else(reset_gone)
}

fn reset_gone() -> Error {
    Error::NotFound(format!(
        "this link to choose a new password was used already, or is more than {RESET_MINUTES} minutes old: ask for a new one"
    ))
}

/// The clock an account's pages and mail show times on: its clubs' when they all keep one, else
/// UTC. With the zone's name.
pub async fn clock_of(
    state: &AppState,
    user_id: i64,
) -> Result<(crate::domain::clock::Clock, String)> {
    let zones: std::collections::BTreeSet<String> =
        crate::storage::people::clubs::of_user(&state.db, user_id)
            .await?
            .into_iter()
            .map(|c| c.time_zone)
            .collect();
    Ok(match zones.into_iter().collect::<Vec<_>>().as_slice() {
        [one] => (crate::domain::clock::Clock::of(one), one.clone()),
        _ => (crate::domain::clock::Clock::of("UTC"), "UTC".into()),
    })
}

/// Mails the account that its password was changed (`by_reset`: through a link mailed to it),
/// in `tx` with the change: led by what to do if it was not the owner.
pub(crate) async fn tell_password_changed(
    state: &AppState,
    tx: &mut sqlx::PgConnection,
    user: &crate::storage::people::users::User,
    by_reset: bool,
) -> Result<()> {
    let greeting = format!("Hello {},", user.display_name);
    let (clock, _) = clock_of(state, user.id).await?;
    let how = if by_reset {
        " with a reset link mailed to this address"
    } else {
        ""
    };
    // Led by what to do if it was not you: someone who changed it needs no button.
    let paragraphs = [
        "If this was not you, choose a new password now: that logs out everyone who has it."
            .to_string(),
        format!(
            "The password of your mahjong-league account ({}) was changed on {}{how}, and every other device was logged out.",
            user.email,
            clock.at(chrono::Utc::now())
        ),
    ];
    let after = ["If you changed it yourself, there is nothing to do.".to_string()];
    let forgot = format!("{}/forgot", state.public_url);
    let letter = crate::domain::outbox::mail::Letter {
        greeting: &greeting,
        paragraphs: &paragraphs,
        actions: &[("This was not me: choose a new password", &forgot)],
        after: &after,
    };
    let to = (user.email.as_str(), user.display_name.as_str());
    crate::domain::outbox::mail::write_to(
        state,
        tx,
        "password_changed",
        to,
        "Your password was changed",
        letter,
    )
    .await?;
    Ok(())
}

/// Sets a new password through a reset link: the link is used up, every session of the account
/// ends but `keep` (the session of whoever set it, when it is that account's), and the address
/// is told, in the same transaction. The account's email, for the login form that follows.
pub async fn reset_password(
    state: &AppState,
    token: &str,
    new: NewPassword,
    keep: Option<&str>,
) -> Result<String> {
    validate_password(&new.password)?;
    // Checked before the slow hash, so a dead link costs nothing.
    let email = reset_link(state, token).await?;
    let hash = password::hash_password(new.password).await?;
    let keep = keep.map(|t| state.keys.hash(t));
    // The new password and the word to the address, in one transaction.
    let mut tx = state.db.begin().await?;
    let user = stored_mail::use_reset(&mut tx, &state.keys.hash(token), &hash, keep.as_deref())
        .await?
        .ok_or_else(reset_gone)?;
    if let Some(user) = crate::storage::people::users::by_id(&state.db, user).await? {
        tell_password_changed(state, &mut tx, &user, true).await?;
    }
    tx.commit().await?;
    crate::domain::outbox::mail::wake(state);
    Ok(email)
}

/// Password resets and sign-ups asked for: each becomes its link's mail (or nothing, for an
/// address without an account), in one transaction with the requests marked done. `true` when a
/// full batch was taken (more may wait). A writer of the outbox's worker.
pub async fn write_requested(state: &AppState) -> Result<bool> {
    use crate::storage::outbox::mail as stored;
    let batch = crate::domain::outbox::mail::BATCH;
    let mut tx = state.db.begin().await?;
    let asked = stored::take_reset_requests(&mut tx, batch).await?;
    for (_, email) in &asked {
        reset_mail(state, &mut tx, email).await?;
    }
    let signups = stored::take_signup_requests(&mut tx, batch).await?;
    for r in &signups {
        signup_mail(state, &mut tx, r).await?;
    }
    tx.commit().await?;
    Ok(asked.len() as i64 >= batch || signups.len() as i64 >= batch)
}
