//! Table codes: only a keyed hash of each code is stored.

use chrono::{DateTime, Utc};
use sqlx::PgPool;

/// What a presented table code grants, if it is live.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct CodeGrant {
    pub code_id: i64,
    pub table_id: i64,
    pub table_number: i32,
    pub night_id: i64,
    pub league_id: i64,
    pub revoked: bool,
    pub night_closed: bool,
}

pub async fn grant(pool: &PgPool, hash: &str) -> sqlx::Result<Option<CodeGrant>> {
    sqlx::query_as::<_, CodeGrant>(
        "SELECT c.id AS code_id, coalesce(c.table_id, 0) AS table_id, coalesce(t.number, 0) AS table_number, \
                c.night_id, n.league_id, (c.revoked_at IS NOT NULL OR c.table_id IS NULL) AS revoked, \
                n.status = 'closed' AS night_closed \
         FROM table_codes c LEFT JOIN night_tables t ON t.id = c.table_id JOIN nights n ON n.id = c.night_id \
         WHERE c.code_hash = $1",
    )
    .bind(hash)
    .fetch_optional(pool)
    .await
}

/// Revokes the night's live codes and stores new ones, `(table id, code hash)`, at once.
pub async fn replace(pool: &PgPool, night_id: i64, codes: &[(i64, String)]) -> sqlx::Result<()> {
    let mut tx = pool.begin().await?;
    sqlx::query("SELECT id FROM nights WHERE id = $1 FOR NO KEY UPDATE")
        .bind(night_id)
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "UPDATE table_codes SET revoked_at = now() WHERE night_id = $1 AND revoked_at IS NULL",
    )
    .bind(night_id)
    .execute(&mut *tx)
    .await?;
    for (table_id, hash) in codes {
        sqlx::query("INSERT INTO table_codes (night_id, table_id, code_hash) VALUES ($1, $2, $3)")
            .bind(night_id)
            .bind(table_id)
            .bind(hash)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await
}

/// Revokes the night's live codes; how many there were.
pub async fn revoke(pool: &PgPool, night_id: i64) -> sqlx::Result<u64> {
    Ok(sqlx::query(
        "UPDATE table_codes SET revoked_at = now() WHERE night_id = $1 AND revoked_at IS NULL",
    )
    .bind(night_id)
    .execute(pool)
    .await?
    .rows_affected())
}

/// When the night's live codes were opened, if they are.
pub async fn opened(pool: &PgPool, night_id: i64) -> sqlx::Result<Option<DateTime<Utc>>> {
    sqlx::query_scalar(
        "SELECT max(created_at) FROM table_codes WHERE night_id = $1 AND revoked_at IS NULL AND table_id IS NOT NULL",
    )
    .bind(night_id)
    .fetch_one(pool)
    .await
}
