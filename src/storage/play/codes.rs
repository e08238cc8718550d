//! Table codes: a keyed hash of each code, to look it up, and the random seed it is made from
//! with the service's key, to show it again to the club's organizers; never the code itself.

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

/// A new code as stored: its table, the keyed hash it is looked up by, and its seed.
pub struct Stored {
    pub table_id: i64,
    pub hash: String,
    pub seed: String,
}

/// Revokes the night's live codes and stores new ones at once.
pub async fn replace(pool: &PgPool, night_id: i64, codes: &[Stored]) -> sqlx::Result<()> {
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
    for c in codes {
        sqlx::query(
            "INSERT INTO table_codes (night_id, table_id, code_hash, seed) VALUES ($1, $2, $3, $4)",
        )
        .bind(night_id)
        .bind(c.table_id)
        .bind(&c.hash)
        .bind(&c.seed)
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

/// The night's live codes by table, `(table id, table number, seed)`: a code made before seeds
/// were kept has none.
pub async fn live(pool: &PgPool, night_id: i64) -> sqlx::Result<Vec<(i64, i32, Option<String>)>> {
    sqlx::query_as(
        "SELECT t.id, t.number, c.seed FROM table_codes c JOIN night_tables t ON t.id = c.table_id \
         WHERE c.night_id = $1 AND c.revoked_at IS NULL ORDER BY t.number",
    )
    .bind(night_id)
    .fetch_all(pool)
    .await
}
