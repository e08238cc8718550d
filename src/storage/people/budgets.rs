//! Budgets kept in PostgreSQL, so that every instance of the service counts against one: the
//! outside addresses an account reached, the messages a club wrote, the clubs an account made
//! and its email changes, each over a sliding window. A check runs in the transaction that then
//! writes what it counts, with the account's or the club's row locked, so two requests (on two
//! instances) never both take the last of a budget.

use chrono::{DateTime, Utc};
use sqlx::PgConnection;

/// What a window holds: how many, and when the next one of them leaves it (if any); read from a
/// row of `used` and `frees_at`.
#[derive(Debug, Clone, Copy, sqlx::FromRow)]
pub struct Window {
    pub used: i64,
    pub frees_at: Option<DateTime<Utc>>,
}

/// Locks the account's row until the transaction ends: its budgets are checked one at a time.
pub async fn lock_user(conn: &mut PgConnection, user_id: i64) -> sqlx::Result<()> {
    sqlx::query("SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE")
        .bind(user_id)
        .execute(conn)
        .await?;
    Ok(())
}

/// Locks the club's row until the transaction ends.
pub async fn lock_club(conn: &mut PgConnection, club_id: i64) -> sqlx::Result<()> {
    sqlx::query("SELECT 1 FROM clubs WHERE id = $1 FOR NO KEY UPDATE")
        .bind(club_id)
        .execute(conn)
        .await?;
    Ok(())
}

/// The distinct outside addresses `user_id` reached in the last 24 hours, whether `address`
/// (lower case) is one of them, and when the first of them leaves the window (24 hours after
/// its last message).
pub async fn outside_reached(
    conn: &mut PgConnection,
    user_id: i64,
    address: &str,
) -> sqlx::Result<(Window, bool)> {
    let (used, frees_at, already): (i64, Option<DateTime<Utc>>, bool) = sqlx::query_as(
        "SELECT count(*), min(last) + interval '24 hours', coalesce(bool_or(address = $2), false) \
         FROM (SELECT address, max(at) AS last FROM outside_mail \
               WHERE user_id = $1 AND at > now() - interval '24 hours' GROUP BY address) a",
    )
    .bind(user_id)
    .bind(address)
    .fetch_one(conn)
    .await?;
    Ok((Window { used, frees_at }, already))
}

/// Writes down a message `user_id` made the service send to the outside `address`.
pub async fn record_outside(
    conn: &mut PgConnection,
    user_id: i64,
    address: &str,
    kind: &str,
) -> sqlx::Result<()> {
    sqlx::query("INSERT INTO outside_mail (user_id, address, kind) VALUES ($1, $2, $3)")
        .bind(user_id)
        .bind(address)
        .bind(kind)
        .execute(conn)
        .await?;
    Ok(())
}

/// The messages the club wrote in the last 24 hours.
pub async fn club_mail(conn: &mut PgConnection, club_id: i64) -> sqlx::Result<Window> {
    sqlx::query_as::<_, Window>(
        "SELECT count(*) AS used, min(created_at) + interval '24 hours' AS frees_at FROM mail_outbox \
         WHERE club_id = $1 AND created_at > now() - interval '24 hours'",
    )
    .bind(club_id)
    .fetch_one(conn)
    .await
}

/// The club's own mail budget, when an operator set one (`club mail-budget`).
pub async fn own_budget(conn: &mut PgConnection, club_id: i64) -> sqlx::Result<Option<i32>> {
    Ok(
        sqlx::query_scalar("SELECT mail_per_day FROM clubs WHERE id = $1")
            .bind(club_id)
            .fetch_optional(conn)
            .await?
            .flatten(),
    )
}

/// Sets (or, with `None`, clears) a club's own mail budget: whether the club exists.
pub async fn set_club_mail(
    pool: &sqlx::PgPool,
    slug: &str,
    per_day: Option<i32>,
) -> sqlx::Result<bool> {
    let done = sqlx::query("UPDATE clubs SET mail_per_day = $2 WHERE slug = $1")
        .bind(slug)
        .bind(per_day)
        .execute(pool)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// The clubs `user_id` made in the last 24 hours.
pub async fn clubs_made(conn: &mut PgConnection, user_id: i64) -> sqlx::Result<Window> {
    sqlx::query_as::<_, Window>(
        "SELECT count(*) AS used, min(created_at) + interval '24 hours' AS frees_at FROM clubs \
         WHERE created_by = $1 AND created_at > now() - interval '24 hours'",
    )
    .bind(user_id)
    .fetch_one(conn)
    .await
}

/// The email changes `user_id` asked for in the last hour and in the last day.
pub async fn email_changes(
    conn: &mut PgConnection,
    user_id: i64,
) -> sqlx::Result<(Window, Window)> {
    let (hour, hour_frees, day, day_frees): (i64, Option<DateTime<Utc>>, i64, Option<DateTime<Utc>>) =
        sqlx::query_as(
            "SELECT count(*) FILTER (WHERE created_at > now() - interval '1 hour'), \
                    min(created_at) FILTER (WHERE created_at > now() - interval '1 hour') + interval '1 hour', \
                    count(*), min(created_at) + interval '24 hours' \
             FROM email_changes WHERE user_id = $1 AND created_at > now() - interval '24 hours'",
        )
        .bind(user_id)
        .fetch_one(conn)
        .await?;
    Ok((
        Window {
            used: hour,
            frees_at: hour_frees,
        },
        Window {
            used: day,
            frees_at: day_frees,
        },
    ))
}

/// Holds an address's count (by its digest) until the transaction ends.
pub async fn lock_address(conn: &mut PgConnection, digest: &str) -> sqlx::Result<()> {
    sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended('address:' || $1, 62))")
        .bind(digest)
        .execute(conn)
        .await?;
    Ok(())
}

/// Whether the address asked never to be mailed at anyone else's asking.
pub async fn opted_out<'c>(conn: impl sqlx::PgExecutor<'c>, digest: &str) -> sqlx::Result<bool> {
    sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM address_optouts WHERE digest = $1)")
        .bind(digest)
        .fetch_one(conn)
        .await
}

/// The address asks never to be mailed at anyone else's asking.
pub async fn opt_out(pool: &sqlx::PgPool, digest: &str) -> sqlx::Result<()> {
    sqlx::query("INSERT INTO address_optouts (digest) VALUES ($1) ON CONFLICT DO NOTHING")
        .bind(digest)
        .execute(pool)
        .await?;
    Ok(())
}

/// The address's "never" is lifted (it has an account of its own now).
pub async fn opt_in(conn: &mut PgConnection, digest: &str) -> sqlx::Result<()> {
    sqlx::query("DELETE FROM address_optouts WHERE digest = $1")
        .bind(digest)
        .execute(conn)
        .await?;
    Ok(())
}

/// When the club last invited the address within 24 hours, if it did.
pub async fn club_invited(
    conn: &mut PgConnection,
    digest: &str,
    club_id: i64,
) -> sqlx::Result<Option<DateTime<Utc>>> {
    sqlx::query_scalar(
        "SELECT max(at) FROM address_mail WHERE digest = $1 AND club_id = $2 \
         AND kind = 'invitation' AND at > now() - interval '24 hours'",
    )
    .bind(digest)
    .bind(club_id)
    .fetch_one(conn)
    .await
}

/// The messages others asked the service to send the address in the last 24 hours.
pub async fn address_asked(conn: &mut PgConnection, digest: &str) -> sqlx::Result<Window> {
    sqlx::query_as::<_, Window>(
        "SELECT count(*) AS used, min(at) + interval '24 hours' AS frees_at FROM address_mail \
         WHERE digest = $1 AND at > now() - interval '24 hours'",
    )
    .bind(digest)
    .fetch_one(conn)
    .await
}

/// Writes down a message someone asked the service to send the address.
pub async fn record_address(
    conn: &mut PgConnection,
    digest: &str,
    kind: &str,
    club_id: Option<i64>,
    asked_by: i64,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO address_mail (digest, kind, club_id, asked_by) VALUES ($1, $2, $3, $4)",
    )
    .bind(digest)
    .bind(kind)
    .bind(club_id)
    .bind(asked_by)
    .execute(conn)
    .await?;
    Ok(())
}

/// The messages `user_id`'s actions made the service write to others in the last 24 hours.
pub async fn caused_by(conn: &mut PgConnection, user_id: i64) -> sqlx::Result<Window> {
    sqlx::query_as::<_, Window>(
        "SELECT count(*) AS used, min(created_at) + interval '24 hours' AS frees_at FROM mail_outbox \
         WHERE caused_by = $1 AND created_at > now() - interval '24 hours'",
    )
    .bind(user_id)
    .fetch_one(conn)
    .await
}

/// The messages members' actions made the club write in the last 24 hours.
pub async fn club_member_mail(conn: &mut PgConnection, club_id: i64) -> sqlx::Result<Window> {
    sqlx::query_as::<_, Window>(
        "SELECT count(*) AS used, min(created_at) + interval '24 hours' AS frees_at FROM mail_outbox \
         WHERE club_id = $1 AND caused_by IS NOT NULL AND created_at > now() - interval '24 hours'",
    )
    .bind(club_id)
    .fetch_one(conn)
    .await
}

/// Whether `user_id` had the service write `kind` to `address` in the last 24 hours (a
/// proposal naming the same people again mails nobody).
pub async fn mailed_lately(
    conn: &mut PgConnection,
    user_id: i64,
    kind: &str,
    address: &str,
) -> sqlx::Result<bool> {
    sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM mail_outbox WHERE caused_by = $1 AND kind = $2 \
         AND lower(to_address) = lower($3) AND created_at > now() - interval '24 hours')",
    )
    .bind(user_id)
    .bind(kind)
    .bind(address)
    .fetch_one(conn)
    .await
}
