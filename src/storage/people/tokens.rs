//! API tokens: only a keyed hash of each is stored.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::PgPool;
use utoipa::ToSchema;

/// A token as listed (never its secret).
#[derive(Debug, Clone, sqlx::FromRow, Serialize, ToSchema)]
pub struct TokenInfo {
    pub id: i64,
    pub name: String,
    pub scopes: Vec<String>,
    pub created_at: DateTime<Utc>,
    #[schema(required = true)]
    pub last_used_at: Option<DateTime<Utc>>,
    #[schema(required = true)]
    pub revoked_at: Option<DateTime<Utc>>,
}

/// What a presented token grants.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TokenGrant {
    pub id: i64,
    pub club_id: i64,
    pub scopes: Vec<String>,
    pub revoked: bool,
}

pub async fn create(
    pool: &PgPool,
    club_id: i64,
    name: &str,
    hash: &str,
    scopes: &[String],
    by: i64,
) -> sqlx::Result<TokenInfo> {
    sqlx::query_as::<_, TokenInfo>(
        "INSERT INTO api_tokens (club_id, name, token_hash, scopes, created_by) VALUES ($1, $2, $3, $4, $5) \
         RETURNING id, name, scopes, created_at, last_used_at, revoked_at",
    )
    .bind(club_id)
    .bind(name)
    .bind(hash)
    .bind(scopes)
    .bind(by)
    .fetch_one(pool)
    .await
}

pub async fn list(pool: &PgPool, club_id: i64) -> sqlx::Result<Vec<TokenInfo>> {
    sqlx::query_as::<_, TokenInfo>(
        "SELECT id, name, scopes, created_at, last_used_at, revoked_at FROM api_tokens WHERE club_id = $1 ORDER BY id",
    )
    .bind(club_id)
    .fetch_all(pool)
    .await
}

/// Looks a token up by hash and records its use, to the minute: an app polling many times a
/// second writes the token's row once a minute, not at every request (which made its requests
/// queue on that one row).
pub async fn use_token(pool: &PgPool, hash: &str) -> sqlx::Result<Option<TokenGrant>> {
    sqlx::query_as::<_, TokenGrant>(
        "WITH t AS (SELECT id, club_id, scopes, revoked_at, last_used_at FROM api_tokens WHERE token_hash = $1), \
              u AS (UPDATE api_tokens a SET last_used_at = now() FROM t WHERE a.id = t.id AND t.revoked_at IS NULL \
                    AND (t.last_used_at IS NULL OR t.last_used_at < now() - interval '1 minute')) \
         SELECT id, club_id, scopes, revoked_at IS NOT NULL AS revoked FROM t",
    )
    .bind(hash)
    .fetch_optional(pool)
    .await
}

/// Revokes a token of the club; false when there is none with that id.
pub async fn revoke(pool: &PgPool, club_id: i64, id: i64) -> sqlx::Result<bool> {
    let r = sqlx::query("UPDATE api_tokens SET revoked_at = coalesce(revoked_at, now()) WHERE club_id = $1 AND id = $2")
        .bind(club_id)
        .bind(id)
        .execute(pool)
        .await?;
    Ok(r.rows_affected() > 0)
}
