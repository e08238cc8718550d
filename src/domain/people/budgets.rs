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
    let (window, own) = stored::club_mail(conn, club_id).await?;
    let limit = own.map_or(i64::from(state.mail_per_club_day), i64::from);
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
