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
    sqlx::query_as::<_, User>(
        "INSERT INTO users (email, display_name, password_hash) VALUES ($1, $2, $3) \
         ON CONFLICT (lower(email)) DO NOTHING RETURNING id, email, display_name",
    )
    .bind(email)
    .bind(display_name)
    .bind(password_hash)
    .fetch_optional(pool)
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

pub async fn create_session(
    pool: &PgPool,
    token_hash: &str,
    user_id: i64,
    expires_at: DateTime<Utc>,
) -> sqlx::Result<()> {
    sqlx::query("INSERT INTO sessions (token_hash, user_id, expires_at) VALUES ($1, $2, $3)")
        .bind(token_hash)
        .bind(user_id)
        .bind(expires_at)
        .execute(pool)
        .await?;
    Ok(())
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
