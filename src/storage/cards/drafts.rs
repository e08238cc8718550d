//! Cards being typed on the card editor's page: the head and lines as typed (JSON), saved as
//! they are typed, each save naming the revision it changed.

use chrono::{DateTime, Utc};
use sqlx::PgPool;
use sqlx::types::Json;

use crate::rules::card_text::{HeadText, LineText};

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Draft {
    pub id: i64,
    pub club_id: i64,
    pub head: Json<HeadText>,
    pub lines: Json<Vec<LineText>>,
    pub public: bool,
    pub replaces: Option<i64>,
    pub revision: i32,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

const COLUMNS: &str =
    "id, club_id, head, lines, public, replaces, revision, created_at, updated_at";

#[allow(clippy::too_many_arguments)]
pub async fn create(
    pool: &PgPool,
    club_id: i64,
    head: &HeadText,
    lines: &[LineText],
    replaces: Option<i64>,
    public: bool,
    user: Option<i64>,
    max: i64,
) -> sqlx::Result<Option<Draft>> {
    let mut tx = pool.begin().await?;
    // One new draft of a club at a time, so two cannot both take the last place.
    sqlx::query("SELECT 1 FROM clubs WHERE id = $1 FOR NO KEY UPDATE")
        .bind(club_id)
        .execute(&mut *tx)
        .await?;
    let made = sqlx::query_as::<_, Draft>(sqlx::AssertSqlSafe(format!(
        "INSERT INTO card_drafts (club_id, head, lines, replaces, public, created_by)
         SELECT $1, $2, $3, $4, $5, $6
         WHERE (SELECT count(*) FROM card_drafts WHERE club_id = $1) < $7 RETURNING {COLUMNS}"
    )))
    .bind(club_id)
    .bind(Json(head))
    .bind(Json(lines))
    .bind(replaces)
    .bind(public)
    .bind(user)
    .bind(max)
    .fetch_optional(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(made)
}

pub async fn get(pool: &PgPool, club_id: i64, id: i64) -> sqlx::Result<Option<Draft>> {
    sqlx::query_as::<_, Draft>(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM card_drafts WHERE id = $1 AND club_id = $2"
    )))
    .bind(id)
    .bind(club_id)
    .fetch_optional(pool)
    .await
}

pub async fn list(pool: &PgPool, club_id: i64) -> sqlx::Result<Vec<Draft>> {
    sqlx::query_as::<_, Draft>(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM card_drafts WHERE club_id = $1 ORDER BY updated_at DESC, id DESC"
    )))
    .bind(club_id)
    .fetch_all(pool)
    .await
}

/// Saves a draft when it is still at `revision`; `None` when another save came first (or the
/// draft is gone).
pub async fn save(
    pool: &PgPool,
    club_id: i64,
    id: i64,
    revision: i32,
    head: &HeadText,
    lines: &[LineText],
    public: bool,
) -> sqlx::Result<Option<Draft>> {
    sqlx::query_as::<_, Draft>(sqlx::AssertSqlSafe(format!(
        "UPDATE card_drafts SET head = $4, lines = $5, public = $6, revision = revision + 1,
                updated_at = now()
         WHERE id = $1 AND club_id = $2 AND revision = $3 RETURNING {COLUMNS}"
    )))
    .bind(id)
    .bind(club_id)
    .bind(revision)
    .bind(Json(head))
    .bind(Json(lines))
    .bind(public)
    .fetch_optional(pool)
    .await
}

/// Removes a draft (inside the publishing transaction, or when it is thrown away).
pub async fn delete(tx: &mut sqlx::PgConnection, club_id: i64, id: i64) -> sqlx::Result<bool> {
    Ok(
        sqlx::query("DELETE FROM card_drafts WHERE id = $1 AND club_id = $2")
            .bind(id)
            .bind(club_id)
            .execute(&mut *tx)
            .await?
            .rows_affected()
            == 1,
    )
}
