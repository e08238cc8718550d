//! What one account (or one club) can make the service do for it: mail to outside addresses,
//! mail from a club, new clubs, email changes. Each is a budget kept in PostgreSQL
//! (`storage::people::budgets`), checked in the transaction that writes what it counts; past one, the
//! request is refused with 429, `Retry-After` and words, and nothing is queued.

use chrono::{DateTime, Utc};

use crate::domain::{AppState, Error, Result};
use crate::storage::people::budgets::{self as stored, Window};
use crate::storage::people::users::User;

/// Email changes one account may ask for in an hour, and in a day.
pub const EMAIL_CHANGES_PER_HOUR: i64 = 3;
pub const EMAIL_CHANGES_PER_DAY: i64 = 10;

/// The refusal of a request over a budget: what was counted, and when to try again.
fn over(what: String, frees_at: Option<DateTime<Utc>>) -> Error {
    let secs = frees_at
        .map(|t| (t - Utc::now()).num_seconds().max(0) as u64 + 1)
        .unwrap_or(60);
    let wait = if secs >= 3600 {
        format!("{} h {} min", secs / 3600, secs % 3600 / 60)
    } else if secs >= 60 {
        format!("{} min", secs.div_ceil(60))
    } else {
        format!("{secs} s")
    };
    Error::TooManyRequests {
        detail: format!("{what}; nothing was sent. Try again in {wait}."),
        retry_after_secs: secs,
    }
}

/// Counts a message that `user` makes the service send to `address`, in `conn`'s transaction
/// (which then writes the message): an address that is not the account's own is outside, and
/// one account reaches at most `--outside-mail-per-account-day` distinct outside addresses in
/// 24 hours. Refused with nothing written when the budget is spent.
pub async fn spend_outside(
    state: &AppState,
    conn: &mut sqlx::PgConnection,
    user: &User,
    address: &str,
    kind: &str,
) -> Result<()> {
    let address = address.trim().to_lowercase();
    if address == user.email.trim().to_lowercase() {
        return Ok(());
    }
    stored::lock_user(conn, user.id).await?;
    let (window, already) = stored::outside_reached(conn, user.id, &address).await?;
    let limit = i64::from(state.outside_mail_per_account_day);
    if !already && window.used >= limit {
        return Err(over(
            format!(
                "your account has had the service mail {limit} addresses outside your clubs in the last 24 hours (invitations and email changes together), the most one account may"
            ),
            window.frees_at,
        ));
    }
    stored::record_outside(conn, user.id, &address, kind).await?;
    Ok(())
}

/// Counts `n` messages the club is about to write, in `conn`'s transaction: at most its own
/// budget (an operator's `club mail-budget`) or `--mail-per-club-day` in 24 hours.
pub async fn spend_club_mail(
    state: &AppState,
    conn: &mut sqlx::PgConnection,
    club_id: i64,
    club_name: &str,
    n: i64,
) -> Result<()> {
    stored::lock_club(conn, club_id).await?;
    let day = club_day(state, conn, club_id).await?;
    within_day(conn, (club_id, club_name), day, n).await
}

/// Whether `n` more messages keep the club (its row locked) within its `limit` a day.
async fn within_day(
    conn: &mut sqlx::PgConnection,
    (club_id, club_name): (i64, &str),
    limit: i64,
    n: i64,
) -> Result<()> {
    let window = stored::club_mail(conn, club_id).await?;
    if window.used + n > limit {
        return Err(over(
            format!(
                "{club_name} has written {} messages in the last 24 hours and may write {limit}",
                window.used
            ),
            window.frees_at,
        ));
    }
    Ok(())
}

/// The messages the club may write in 24 hours: its own budget, or `--mail-per-club-day`.
async fn club_day(state: &AppState, conn: &mut sqlx::PgConnection, club_id: i64) -> Result<i64> {
    Ok(stored::own_budget(conn, club_id)
        .await?
        .map_or(i64::from(state.mail_per_club_day), i64::from))
}

/// Whether `user` may make another club now (`--clubs-per-account-day` in 24 hours), in the
/// transaction that makes it.
pub async fn may_make_club(
    state: &AppState,
    conn: &mut sqlx::PgConnection,
    user: &User,
) -> Result<()> {
    stored::lock_user(conn, user.id).await?;
    let window = stored::clubs_made(conn, user.id).await?;
    let limit = i64::from(state.clubs_per_account_day);
    if window.used >= limit {
        return Err(over(
            format!("you made {limit} clubs in the last 24 hours, the most one account may"),
            window.frees_at,
        ));
    }
    Ok(())
}

/// Whether `user` may ask for another email change now: 3 an hour, 10 a day.
pub async fn may_change_email(conn: &mut sqlx::PgConnection, user: &User) -> Result<()> {
    stored::lock_user(conn, user.id).await?;
    let (hour, day): (Window, Window) = stored::email_changes(conn, user.id).await?;
    if day.used >= EMAIL_CHANGES_PER_DAY {
        return Err(over(
            format!(
                "you asked to change your email {EMAIL_CHANGES_PER_DAY} times today, the most one account may"
            ),
            day.frees_at,
        ));
    }
    if hour.used >= EMAIL_CHANGES_PER_HOUR {
        return Err(over(
            format!(
                "you asked to change your email {EMAIL_CHANGES_PER_HOUR} times in the last hour, the most one account may"
            ),
            hour.frees_at,
        ));
    }
    Ok(())
}

/// The keyed digest an address is counted under where mail lands: its lower-case form, hashed
/// with the service's key (the address itself is not kept for this).
pub fn address_digest(state: &AppState, address: &str) -> String {
    state
        .keys
        .hash(&format!("address {}", address.trim().to_lowercase()))
}

/// What words "never mail this address again" signs.
fn never_words(digest: &str) -> String {
    format!("never {digest}")
}

/// The one-click link (RFC 8058) in every mail someone else asked the service to send an
/// address: it stops all such mail to the address, from every club and account.
pub fn never_link(state: &AppState, address: &str) -> String {
    let digest = address_digest(state, address);
    let signed = state.keys.sign(&never_words(&digest));
    format!("{}/never/{digest}-{signed}", state.public_url)
}

/// The digest a "never mail" token names, if its signature holds.
fn never_token(state: &AppState, token: &str) -> Option<String> {
    let (digest, signed) = token.split_once('-')?;
    (digest.len() == 64 && state.keys.signed(&never_words(digest), signed))
        .then(|| digest.to_string())
}

fn never_gone() -> Error {
    Error::NotFound("this link to stop mail to an address is not one the service wrote".into())
}

/// Whether a "never mail this address" link holds (the page asks before it acts): whether the
/// address has stopped such mail already.
pub async fn never_page(state: &AppState, token: &str) -> Result<bool> {
    let digest = never_token(state, token).ok_or_else(never_gone)?;
    Ok(stored::opted_out(&state.db, &digest).await?)
}

/// Stops, at once, all mail others ask the service to send the link's address.
pub async fn never_mail(state: &AppState, token: &str) -> Result<()> {
    let digest = never_token(state, token).ok_or_else(never_gone)?;
    stored::opt_out(&state.db, &digest).await?;
    Ok(())
}

/// Lifts an address's "never mail" once it has an account of its own (signing up with it).
pub async fn address_has_account(
    state: &AppState,
    conn: &mut sqlx::PgConnection,
    address: &str,
) -> Result<()> {
    stored::opt_in(conn, &address_digest(state, address)).await?;
    Ok(())
}

/// What a message someone asks the service to send to an address that is not theirs is.
pub struct Asked<'a> {
    /// `invitation`, `email_change`, `email_change_known`.
    pub kind: &'static str,
    pub address: &'a str,
    /// The club it comes from (an invitation): one a day from a club to an address.
    pub club: Option<(i64, &'a str)>,
    pub asked_by: i64,
    /// Whether the address has an account: the day's cap of others' asking holds for an
    /// address without one (and for every email-change notice).
    pub capped: bool,
}

/// Whether an asked message goes out.
#[derive(Debug, PartialEq, Eq)]
pub enum Landing {
    Send,
    /// The address asked never to be mailed at anyone's asking: nothing is sent.
    OptedOut,
}

/// Counts, in `conn`'s transaction, a message someone asks the service to send to an address
/// that is not theirs, where it lands: refused (429, with when) when the club invited the
/// address in the last 24 hours (a withdrawn invitation counts), or when others have had the
/// service mail the address `--asked-mail-per-address-day` times in 24 hours and it is capped;
/// `OptedOut` when the address asked never to be mailed so. Kept by the address's digest.
pub async fn spend_address(
    state: &AppState,
    conn: &mut sqlx::PgConnection,
    asked: &Asked<'_>,
) -> Result<Landing> {
    let digest = address_digest(state, asked.address);
    stored::lock_address(conn, &digest).await?;
    if stored::opted_out(&mut *conn, &digest).await? {
        return Ok(Landing::OptedOut);
    }
    let address = asked.address.trim();
    if let Some((club_id, club_name)) = asked.club
        && let Some(last) = stored::club_invited(conn, &digest, club_id).await?
    {
        return Err(over(
            format!(
                "{club_name} sent {address} an invitation in the last 24 hours (one withdrawn since counts too); a club invites an address once a day"
            ),
            Some(last + chrono::Duration::hours(24)),
        ));
    }
    if asked.capped {
        let window = stored::address_asked(conn, &digest).await?;
        let limit = i64::from(state.asked_mail_per_address_day);
        if window.used >= limit {
            return Err(over(
                format!(
                    "{address} has had {limit} messages in the last 24 hours that others asked the service to send it, the most it sends an address that has not answered"
                ),
                window.frees_at,
            ));
        }
    }
    stored::record_address(
        conn,
        &digest,
        asked.kind,
        asked.club.map(|c| c.0),
        asked.asked_by,
    )
    .await?;
    Ok(Landing::Send)
}

/// Counts `n` messages that `user`'s own action (a proposal, a dispute, leaving a match in an
/// emergency) makes the service write to others in `club`, in `conn`'s transaction
/// (which writes them with `caused_by`): at most `--member-mail-per-day` an account in 24 hours,
/// withdrawn or left proposals included, and all members' together at most half of the club's
/// day (the other half is kept for what its organizers and the service send). Refused (429)
/// with nothing written past either.
pub async fn spend_member_mail(
    state: &AppState,
    conn: &mut sqlx::PgConnection,
    (club_id, club_name): (i64, &str),
    user_id: i64,
    n: i64,
) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    stored::lock_user(conn, user_id).await?;
    let mine = stored::caused_by(conn, user_id).await?;
    let limit = i64::from(state.member_mail_per_day);
    if mine.used + n > limit {
        return Err(over(
            format!(
                "what you did in the last 24 hours had the service mail {} people (proposals, also ones withdrawn or left, disputes and emergency leaves), and one member's may reach {limit}; this needs {n} more",
                mine.used
            ),
            mine.frees_at,
        ));
    }
    stored::lock_club(conn, club_id).await?;
    let members = stored::club_member_mail(conn, club_id).await?;
    let day = club_day(state, conn, club_id).await?;
    let half = day / 2;
    if members.used + n > half {
        return Err(over(
            format!(
                "{club_name}'s members' actions had the service write {} messages in the last 24 hours, half of the club's {day} a day; the other half is kept for its organizers",
                members.used
            ),
            members.frees_at,
        ));
    }
    within_day(conn, (club_id, club_name), day, n).await
}

/// As `spend_member_mail`, but a refusal means "mail nobody" (`false`), for an action that
/// stands whether or not its mail goes (a dispute, an emergency leave: the page shows them).
pub async fn member_may_mail(
    state: &AppState,
    conn: &mut sqlx::PgConnection,
    club: (i64, &str),
    user_id: i64,
    n: i64,
) -> Result<bool> {
    match spend_member_mail(state, conn, club, user_id, n).await {
        Ok(()) => Ok(true),
        Err(Error::TooManyRequests { .. }) => Ok(false),
        Err(e) => Err(e),
    }
}

/// Whether `user_id`'s actions had the service write `kind` to `address` in the last 24 hours.
pub async fn mailed_lately(
    conn: &mut sqlx::PgConnection,
    user_id: i64,
    kind: &str,
    address: &str,
) -> Result<bool> {
    Ok(stored::mailed_lately(conn, user_id, kind, address).await?)
}
