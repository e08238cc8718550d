//! Users and their sessions.

use chrono::{DateTime, Utc};
use sqlx::PgPool;

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct User {
    pub id: i64,
    pub email: String,
    pub display_name: String,
}

/// Creates a user; `None` when the email is taken.
pub async fn create(
    pool: &PgPool,
    email: &str,
    display_name: &str,
    password_hash: &str,
) -> sqlx::Result<Option<User>> {
    let mut conn = pool.acquire().await?;
    create_in(&mut conn, email, display_name, password_hash).await
}

/// As `create`, in a transaction.
pub async fn create_in(
    conn: &mut sqlx::PgConnection,
    email: &str,
    display_name: &str,
    password_hash: &str,
) -> sqlx::Result<Option<User>> {
    sqlx::query_as::<_, User>(
        "INSERT INTO users (email, display_name, password_hash) VALUES ($1, $2, $3) \
         ON CONFLICT (lower(email)) DO NOTHING RETURNING id, email, display_name",
    )
    .bind(email)
    .bind(display_name)
    .bind(password_hash)
    .fetch_optional(conn)
    .await
}

/// A user and their password hash, by email (any case).
pub async fn credentials(pool: &PgPool, email: &str) -> sqlx::Result<Option<(User, String)>> {
    let row: Option<(i64, String, String, String)> = sqlx::query_as(
        "SELECT id, email, display_name, password_hash FROM users WHERE lower(email) = lower($1)",
    )
    .bind(email)
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|(id, email, display_name, hash)| {
        (
            User {
                id,
                email,
                display_name,
            },
            hash,
        )
    }))
}

pub async fn by_email(pool: &PgPool, email: &str) -> sqlx::Result<Option<User>> {
    sqlx::query_as::<_, User>(
        "SELECT id, email, display_name FROM users WHERE lower(email) = lower($1)",
    )
    .bind(email)
    .fetch_optional(pool)
    .await
}

/// As `by_email`, in a transaction.
pub async fn by_email_in(conn: &mut sqlx::PgConnection, email: &str) -> sqlx::Result<Option<User>> {
    sqlx::query_as::<_, User>(
        "SELECT id, email, display_name FROM users WHERE lower(email) = lower($1)",
    )
    .bind(email)
    .fetch_optional(conn)
    .await
}

pub async fn create_session(
    pool: &PgPool,
    token_hash: &str,
    user_id: i64,
    expires_at: DateTime<Utc>,
    user_agent: Option<&str>,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO sessions (token_hash, user_id, expires_at, user_agent) VALUES ($1, $2, $3, $4)",
    )
    .bind(token_hash)
    .bind(user_id)
    .bind(expires_at)
    .bind(user_agent)
    .execute(pool)
    .await?;
    Ok(())
}

/// One of a user's live sessions.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct SessionLine {
    pub id: i64,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub user_agent: Option<String>,
    /// The session the list was asked from.
    pub current: bool,
}

/// The user's live sessions, newest first; `current` marks the one whose hash is `mine`.
pub async fn sessions_of(
    pool: &PgPool,
    user_id: i64,
    mine: Option<&str>,
) -> sqlx::Result<Vec<SessionLine>> {
    sqlx::query_as(
        "SELECT id, created_at, expires_at, user_agent, token_hash IS NOT DISTINCT FROM $2 AS current \
         FROM sessions WHERE user_id = $1 AND expires_at > now() ORDER BY created_at DESC, id DESC",
    )
    .bind(user_id)
    .bind(mine)
    .fetch_all(pool)
    .await
}

/// Ends the user's sessions but `keep` (by hash): how many ended.
pub async fn end_sessions_but(
    pool: &PgPool,
    user_id: i64,
    keep: Option<&str>,
) -> sqlx::Result<u64> {
    Ok(
        sqlx::query("DELETE FROM sessions WHERE user_id = $1 AND token_hash IS DISTINCT FROM $2")
            .bind(user_id)
            .bind(keep)
            .execute(pool)
            .await?
            .rows_affected(),
    )
}

/// Ends one of the user's sessions, by its id: whether there was one.
pub async fn end_session_by_id(pool: &PgPool, user_id: i64, id: i64) -> sqlx::Result<bool> {
    Ok(
        sqlx::query("DELETE FROM sessions WHERE user_id = $1 AND id = $2")
            .bind(user_id)
            .bind(id)
            .execute(pool)
            .await?
            .rows_affected()
            > 0,
    )
}

pub async fn set_display_name(pool: &PgPool, user_id: i64, name: &str) -> sqlx::Result<()> {
    sqlx::query("UPDATE users SET display_name = $2 WHERE id = $1")
        .bind(user_id)
        .bind(name)
        .execute(pool)
        .await?;
    Ok(())
}

/// The user's password hash.
pub async fn password_hash(pool: &PgPool, user_id: i64) -> sqlx::Result<Option<String>> {
    sqlx::query_scalar("SELECT password_hash FROM users WHERE id = $1")
        .bind(user_id)
        .fetch_optional(pool)
        .await
}

/// Sets the user's password and ends their sessions but `keep`.
pub async fn set_password(
    tx: &mut sqlx::PgConnection,
    user_id: i64,
    hash: &str,
    keep: Option<&str>,
) -> sqlx::Result<()> {
    sqlx::query("UPDATE users SET password_hash = $2 WHERE id = $1")
        .bind(user_id)
        .bind(hash)
        .execute(&mut *tx)
        .await?;
    sqlx::query("DELETE FROM sessions WHERE user_id = $1 AND token_hash IS DISTINCT FROM $2")
        .bind(user_id)
        .bind(keep)
        .execute(&mut *tx)
        .await?;
    Ok(())
}

/// Keeps a new email waiting for its confirmation link; every older link of the account's
/// stops working.
pub async fn create_email_change(
    conn: &mut sqlx::PgConnection,
    token_hash: &str,
    user_id: i64,
    new_email: &str,
    old_email: &str,
    expires_at: DateTime<Utc>,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE email_changes SET expires_at = now() \
         WHERE user_id = $1 AND used_at IS NULL AND expires_at > now()",
    )
    .bind(user_id)
    .execute(&mut *conn)
    .await?;
    sqlx::query(
        "INSERT INTO email_changes (token_hash, user_id, new_email, old_email, expires_at) \
         VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(token_hash)
    .bind(user_id)
    .bind(new_email)
    .bind(old_email)
    .bind(expires_at)
    .execute(conn)
    .await?;
    Ok(())
}

/// The new email a confirmation link is for, while it works: (user, new email).
pub async fn email_change(pool: &PgPool, token_hash: &str) -> sqlx::Result<Option<(i64, String)>> {
    sqlx::query_as(
        "SELECT user_id, new_email FROM email_changes \
         WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now()",
    )
    .bind(token_hash)
    .fetch_optional(pool)
    .await
}

/// What confirming a new email came to.
pub enum EmailChanged {
    /// The account, and the address it had.
    Changed(User, String),
    /// The link was used, expired or unknown.
    Gone,
    /// Another account has taken the address meanwhile.
    Taken,
}

/// Confirms a new email in `tx`: the account takes it, unless another has it by now.
pub async fn confirm_email_change(
    tx: &mut sqlx::PgConnection,
    token_hash: &str,
) -> sqlx::Result<EmailChanged> {
    let change: Option<(i64, String)> = sqlx::query_as(
        "UPDATE email_changes SET used_at = now() \
         WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING user_id, new_email",
    )
    .bind(token_hash)
    .fetch_optional(&mut *tx)
    .await?;
    let Some((user_id, email)) = change else {
        return Ok(EmailChanged::Gone);
    };
    let old: String = sqlx::query_scalar("SELECT email FROM users WHERE id = $1 FOR NO KEY UPDATE")
        .bind(user_id)
        .fetch_one(&mut *tx)
        .await?;
    Ok(match take_address(tx, user_id, &email).await? {
        Some(user) => EmailChanged::Changed(user, old),
        None => EmailChanged::Taken,
    })
}

/// Gives the account `email`, in `tx`, unless another account has it (`None`; the transaction
/// is then to be rolled back).
async fn take_address(
    tx: &mut sqlx::PgConnection,
    user_id: i64,
    email: &str,
) -> sqlx::Result<Option<User>> {
    let taken = sqlx::query_as::<_, User>(
        "UPDATE users SET email = $2 WHERE id = $1 \
         AND NOT EXISTS (SELECT 1 FROM users o WHERE lower(o.email) = lower($2) AND o.id <> $1) \
         RETURNING id, email, display_name",
    )
    .bind(user_id)
    .bind(email)
    .fetch_optional(tx)
    .await;
    match taken {
        Ok(user) => Ok(user),
        Err(sqlx::Error::Database(e)) if e.is_unique_violation() => Ok(None),
        Err(e) => Err(e),
    }
}

/// Keeps the link that undoes an email change (sent to the address the account had).
pub async fn create_email_undo(
    conn: &mut sqlx::PgConnection,
    token_hash: &str,
    user_id: i64,
    old_email: &str,
    new_email: &str,
    expires_at: DateTime<Utc>,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO email_undos (token_hash, user_id, old_email, new_email, expires_at, asked_at) \
         VALUES ($1, $2, $3, $4, $5, coalesce((SELECT c.created_at FROM email_changes c \
             WHERE c.user_id = $2 AND c.used_at IS NOT NULL ORDER BY c.used_at DESC LIMIT 1), now()))",
    )
    .bind(token_hash)
    .bind(user_id)
    .bind(old_email)
    .bind(new_email)
    .bind(expires_at)
    .execute(conn)
    .await?;
    Ok(())
}

/// What an undo link would do while it works: (address the account gets back, address it has).
pub async fn email_undo(pool: &PgPool, token_hash: &str) -> sqlx::Result<Option<(String, String)>> {
    sqlx::query_as(
        "SELECT old_email, new_email FROM email_undos \
         WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now()",
    )
    .bind(token_hash)
    .fetch_optional(pool)
    .await
}

/// What an email undo did: the account as it is now, the address it had, and what the
/// account made since the change was asked that the undo took back: API tokens revoked and
/// webhooks removed, each (club name, its name or URL).
#[derive(Debug)]
pub struct Undone {
    pub user: User,
    pub was: String,
    pub tokens: Vec<(String, String)>,
    pub webhooks: Vec<(String, String)>,
}

/// What following an undo link came to.
#[derive(Debug)]
pub enum UndoOutcome {
    Undone(Box<Undone>),
    Gone,
    Taken,
}

/// Undoes an email change through its link, in `tx`: the account gets its old address back and
/// `locked_hash` as its password (a password nobody knows: it is chosen again through a link to
/// the old address); every session, reset link and email-change link of the account ends, as do
/// undo links of later changes (an older undo link still works: the address the account had
/// longest wins); API tokens and webhooks the account made since the change was asked are
/// revoked and removed.
pub async fn undo_email_change(
    tx: &mut sqlx::PgConnection,
    token_hash: &str,
    locked_hash: &str,
) -> sqlx::Result<UndoOutcome> {
    let undo: Option<(i64, String, DateTime<Utc>, DateTime<Utc>)> = sqlx::query_as(
        "UPDATE email_undos SET used_at = now() \
         WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() \
         RETURNING user_id, old_email, asked_at, created_at",
    )
    .bind(token_hash)
    .fetch_optional(&mut *tx)
    .await?;
    let Some((user_id, old, asked_at, made_at)) = undo else {
        return Ok(UndoOutcome::Gone);
    };
    let was: String = sqlx::query_scalar("SELECT email FROM users WHERE id = $1 FOR NO KEY UPDATE")
        .bind(user_id)
        .fetch_one(&mut *tx)
        .await?;
    if take_address(tx, user_id, &old).await?.is_none() {
        return Ok(UndoOutcome::Taken);
    }
    let user = sqlx::query_as::<_, User>(
        "UPDATE users SET password_hash = $2 WHERE id = $1 RETURNING id, email, display_name",
    )
    .bind(user_id)
    .bind(locked_hash)
    .fetch_one(&mut *tx)
    .await?;
    for sql in [
        "DELETE FROM sessions WHERE user_id = $1",
        "UPDATE email_changes SET expires_at = now() WHERE user_id = $1 AND used_at IS NULL AND expires_at > now()",
        "UPDATE password_resets SET used_at = now() WHERE user_id = $1 AND used_at IS NULL",
    ] {
        sqlx::query(sql).bind(user_id).execute(&mut *tx).await?;
    }
    sqlx::query(
        "UPDATE email_undos SET used_at = now() WHERE user_id = $1 AND used_at IS NULL AND created_at > $2",
    )
    .bind(user_id)
    .bind(made_at)
    .execute(&mut *tx)
    .await?;
    let tokens: Vec<(String, String)> = sqlx::query_as(
        "WITH r AS (UPDATE api_tokens SET revoked_at = now() \
            WHERE created_by = $1 AND created_at >= $2 AND revoked_at IS NULL RETURNING club_id, name) \
         SELECT c.name, r.name FROM r JOIN clubs c ON c.id = r.club_id ORDER BY c.name, r.name",
    )
    .bind(user_id)
    .bind(asked_at)
    .fetch_all(&mut *tx)
    .await?;
    let webhooks: Vec<(String, String)> = sqlx::query_as(
        "WITH r AS (DELETE FROM webhooks WHERE created_by = $1 AND created_at >= $2 RETURNING club_id, url) \
         SELECT c.name, r.url FROM r JOIN clubs c ON c.id = r.club_id ORDER BY c.name, r.url",
    )
    .bind(user_id)
    .bind(asked_at)
    .fetch_all(&mut *tx)
    .await?;
    Ok(UndoOutcome::Undone(Box::new(Undone {
        user,
        was,
        tokens,
        webhooks,
    })))
}

/// A club the user belongs to, with their role and how many owners it has.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Belonging {
    pub slug: String,
    pub name: String,
    pub role: String,
    pub since: DateTime<Utc>,
    pub owners: i64,
}

/// The clubs the user belongs to, by name.
pub async fn belongings(pool: &PgPool, user_id: i64) -> sqlx::Result<Vec<Belonging>> {
    sqlx::query_as(
        "SELECT c.slug, c.name, m.role, m.created_at AS since, \
                (SELECT count(*) FROM memberships o WHERE o.club_id = c.id AND o.role = 'owner') AS owners \
         FROM memberships m JOIN clubs c ON c.id = m.club_id WHERE m.user_id = $1 ORDER BY c.name",
    )
    .bind(user_id)
    .fetch_all(pool)
    .await
}

/// The players the user is in clubs' lists: (club name, player name).
pub async fn players_of(pool: &PgPool, user_id: i64) -> sqlx::Result<Vec<(String, String)>> {
    sqlx::query_as(
        "SELECT c.name, p.name FROM players p JOIN clubs c ON c.id = p.club_id \
         WHERE p.user_id = $1 ORDER BY c.name, p.name",
    )
    .bind(user_id)
    .fetch_all(pool)
    .await
}

/// Mail sent to the address: (kind, subject, status, created).
pub async fn mail_to(
    pool: &PgPool,
    email: &str,
) -> sqlx::Result<Vec<(String, String, String, DateTime<Utc>)>> {
    sqlx::query_as(
        "SELECT kind, subject, status, created_at FROM mail_outbox WHERE lower(to_address) = lower($1) \
         ORDER BY id DESC LIMIT 500",
    )
    .bind(email)
    .fetch_all(pool)
    .await
}

/// Deletes the user, unless they are now the only owner of a club (checked under a lock on
/// their memberships): the names of such clubs when refused.
pub async fn delete(pool: &PgPool, user_id: i64) -> sqlx::Result<Result<(), Vec<String>>> {
    let mut tx = pool.begin().await?;
    // The owners of the user's clubs, locked: two owners leaving at once cannot both go.
    sqlx::query(
        "SELECT 1 FROM memberships WHERE role = 'owner' AND club_id IN \
         (SELECT club_id FROM memberships WHERE user_id = $1 AND role = 'owner') FOR NO KEY UPDATE",
    )
    .bind(user_id)
    .execute(&mut *tx)
    .await?;
    let alone: Vec<String> = sqlx::query_scalar(
        "SELECT c.name FROM memberships m JOIN clubs c ON c.id = m.club_id \
         WHERE m.user_id = $1 AND m.role = 'owner' \
           AND NOT EXISTS (SELECT 1 FROM memberships o WHERE o.club_id = m.club_id \
                           AND o.role = 'owner' AND o.user_id <> $1) \
         ORDER BY c.name",
    )
    .bind(user_id)
    .fetch_all(&mut *tx)
    .await?;
    if !alone.is_empty() {
        return Ok(Err(alone));
    }
    sqlx::query("DELETE FROM users WHERE id = $1")
        .bind(user_id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(Ok(()))
}

/// The user of a live session.
pub async fn session_user(pool: &PgPool, token_hash: &str) -> sqlx::Result<Option<User>> {
    sqlx::query_as::<_, User>(
        "SELECT u.id, u.email, u.display_name FROM sessions s JOIN users u ON u.id = s.user_id \
         WHERE s.token_hash = $1 AND s.expires_at > now()",
    )
    .bind(token_hash)
    .fetch_optional(pool)
    .await
}

pub async fn delete_session(pool: &PgPool, token_hash: &str) -> sqlx::Result<()> {
    sqlx::query("DELETE FROM sessions WHERE token_hash = $1 OR expires_at < now()")
        .bind(token_hash)
        .execute(pool)
        .await?;
    Ok(())
}

/// Display names of these users: (id, name).
pub async fn display_names(pool: &PgPool, ids: &[i64]) -> sqlx::Result<Vec<(i64, String)>> {
    sqlx::query_as("SELECT id, display_name FROM users WHERE id = ANY($1)")
        .bind(ids)
        .fetch_all(pool)
        .await
}

/// A user by id.
pub async fn by_id(pool: &PgPool, id: i64) -> sqlx::Result<Option<User>> {
    sqlx::query_as::<_, User>("SELECT id, email, display_name FROM users WHERE id = $1")
        .bind(id)
        .fetch_optional(pool)
        .await
}
