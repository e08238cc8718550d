//! Uploaded cards. A card's file is stored as uploaded and compiled when used; it never changes
//! (a fix is a new card), so a card a game used stays what it was.

use chrono::{DateTime, Utc};
use sqlx::PgPool;

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct StoredCard {
    pub id: i64,
    pub club_id: i64,
    pub name: String,
    pub year: i32,
    pub source: String,
    pub public: bool,
    pub created_at: DateTime<Utc>,
}

const COLUMNS: &str = "id, club_id, name, year, source, public, created_at";

pub async fn create(
    pool: &PgPool,
    club_id: i64,
    name: &str,
    year: i32,
    source: &str,
    public: bool,
) -> sqlx::Result<StoredCard> {
    sqlx::query_as::<_, StoredCard>(sqlx::AssertSqlSafe(format!(
        "INSERT INTO cards (club_id, name, year, source, public) VALUES ($1, $2, $3, $4, $5) RETURNING {COLUMNS}"
    )))
    .bind(club_id)
    .bind(name)
    .bind(year)
    .bind(source)
    .bind(public)
    .fetch_one(pool)
    .await
}

pub async fn list_for_club(pool: &PgPool, club_id: i64) -> sqlx::Result<Vec<StoredCard>> {
    sqlx::query_as::<_, StoredCard>(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM cards WHERE club_id = $1 ORDER BY id"
    )))
    .bind(club_id)
    .fetch_all(pool)
    .await
}

pub async fn list_public(pool: &PgPool) -> sqlx::Result<Vec<StoredCard>> {
    sqlx::query_as::<_, StoredCard>(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM cards WHERE public ORDER BY id"
    )))
    .fetch_all(pool)
    .await
}

pub async fn get(pool: &PgPool, id: i64) -> sqlx::Result<Option<StoredCard>> {
    sqlx::query_as::<_, StoredCard>(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM cards WHERE id = $1"
    )))
    .bind(id)
    .fetch_optional(pool)
    .await
}
