//! Uploaded cards. A card's file is stored as uploaded and compiled when used; it never changes
//! (a fix is a new card, or a new version of it), so a card a game used stays what it was.

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
    /// The id of the card's first version (its own id on a first version).
    pub family: i64,
    pub version: i32,
}

const COLUMNS: &str =
    "id, club_id, name, year, source, public, created_at, coalesce(family, id) AS family, version";

pub async fn create<'e>(
    db: impl sqlx::PgExecutor<'e>,
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
    .fetch_one(db)
    .await
}

/// Stores a card as the next version of `family` (the first version's id), inside `tx`. Two
/// publishing at once: the second fails on the unique (family, version) index.
pub async fn create_version(
    tx: &mut sqlx::PgConnection,
    family: i64,
    name: &str,
    year: i32,
    source: &str,
    public: bool,
) -> sqlx::Result<StoredCard> {
    sqlx::query_as::<_, StoredCard>(sqlx::AssertSqlSafe(format!(
        "INSERT INTO cards (club_id, name, year, source, public, family, version)
         SELECT f.club_id, $2, $3, $4, $5, f.id,
                (SELECT max(version) + 1 FROM cards WHERE coalesce(family, id) = f.id)
         FROM cards f WHERE f.id = $1
         RETURNING {COLUMNS}"
    )))
    .bind(family)
    .bind(name)
    .bind(year)
    .bind(source)
    .bind(public)
    .fetch_one(&mut *tx)
    .await
}

/// Every version of a card's family, first to last.
pub async fn versions(pool: &PgPool, family: i64) -> sqlx::Result<Vec<StoredCard>> {
    sqlx::query_as::<_, StoredCard>(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM cards WHERE coalesce(family, id) = $1 ORDER BY version"
    )))
    .bind(family)
    .fetch_all(pool)
    .await
}

/// The club's cards, the latest version of each.
pub async fn latest_for_club(pool: &PgPool, club_id: i64) -> sqlx::Result<Vec<StoredCard>> {
    sqlx::query_as::<_, StoredCard>(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM cards c WHERE club_id = $1
           AND version = (SELECT max(version) FROM cards v WHERE coalesce(v.family, v.id) = coalesce(c.family, c.id))
         ORDER BY coalesce(family, id)"
    )))
    .bind(club_id)
    .fetch_all(pool)
    .await
}

/// A card's title: its name, and its year unless the name says it ("Maple Street 2026").
pub fn card_title(name: &str, year: i64) -> String {
    if name.contains(&year.to_string()) {
        name.to_string()
    } else {
        format!("{name} {year}")
    }
}

impl StoredCard {
    /// The card's title, its year said once.
    pub fn title(&self) -> String {
        card_title(&self.name, i64::from(self.year))
    }
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

/// What a club keeps as text: its card files and its card drafts as stored, in bytes.
pub async fn club_text_bytes(pool: &PgPool, club_id: i64) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "SELECT (SELECT coalesce(sum(octet_length(source)), 0) FROM cards WHERE club_id = $1)::BIGINT \
              + (SELECT coalesce(sum(octet_length(head::text) + octet_length(lines::text)), 0) \
                 FROM card_drafts WHERE club_id = $1)::BIGINT",
    )
    .bind(club_id)
    .fetch_one(pool)
    .await
}
