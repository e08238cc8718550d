//! Players of a club.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::PgPool;
use utoipa::ToSchema;

#[derive(Debug, Clone, sqlx::FromRow, Serialize, ToSchema)]
pub struct Player {
    pub id: i64,
    #[schema(example = "Rose Adler")]
    pub name: String,
    pub active: bool,
    pub created_at: DateTime<Utc>,
    /// The player's id at a ranking body, for tournament results (optional).
    pub ranking_id: Option<String>,
}

const COLUMNS: &str = "id, name, active, created_at, ranking_id";

/// Creates a player; `None` when the club already has a player of that name.
pub async fn create(pool: &PgPool, club_id: i64, name: &str) -> sqlx::Result<Option<Player>> {
    sqlx::query_as::<_, Player>(sqlx::AssertSqlSafe(format!(
        "INSERT INTO players (club_id, name) VALUES ($1, $2) ON CONFLICT (club_id, lower(name)) DO NOTHING RETURNING {COLUMNS}"
    )))
    .bind(club_id)
    .bind(name)
    .fetch_optional(pool)
    .await
}

pub async fn list(
    pool: &PgPool,
    club_id: i64,
    include_inactive: bool,
) -> sqlx::Result<Vec<Player>> {
    sqlx::query_as::<_, Player>(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM players WHERE club_id = $1 AND (active OR $2) ORDER BY lower(name), id"
    )))
    .bind(club_id)
    .bind(include_inactive)
    .fetch_all(pool)
    .await
}

pub async fn get(pool: &PgPool, club_id: i64, id: i64) -> sqlx::Result<Option<Player>> {
    sqlx::query_as::<_, Player>(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM players WHERE club_id = $1 AND id = $2"
    )))
    .bind(club_id)
    .bind(id)
    .fetch_optional(pool)
    .await
}

/// Outcome of an update.
pub enum Updated<T> {
    Done(T),
    NotFound,
    NameTaken,
}

/// Renames and/or (de)activates a player, and sets or clears (`Some(None)`) their ranking id.
pub async fn update(
    pool: &PgPool,
    club_id: i64,
    id: i64,
    name: Option<&str>,
    active: Option<bool>,
    ranking_id: Option<Option<&str>>,
) -> sqlx::Result<Updated<Player>> {
    let r = sqlx::query_as::<_, Player>(sqlx::AssertSqlSafe(format!(
        "WITH renamed AS (UPDATE players SET name = coalesce($3, name), active = coalesce($4, active), \
           ranking_id = CASE WHEN $5 THEN $6 ELSE ranking_id END \
         WHERE club_id = $1 AND id = $2 RETURNING {COLUMNS}), \
         touched AS (UPDATE leagues SET revision = revision + 1 WHERE club_id = $1 AND EXISTS (SELECT 1 FROM renamed) \
           RETURNING id, revision), \
         marked AS (UPDATE league_totals t SET changed_at = touched.revision FROM touched \
           WHERE t.league_id = touched.id AND t.player_id = $2) \
         SELECT {COLUMNS} FROM renamed"
    )))
    .bind(club_id)
    .bind(id)
    .bind(name)
    .bind(active)
    .bind(ranking_id.is_some())
    .bind(ranking_id.flatten())
    .fetch_optional(pool)
    .await;
    match r {
        Ok(Some(p)) => Ok(Updated::Done(p)),
        Ok(None) => Ok(Updated::NotFound),
        Err(sqlx::Error::Database(e)) if e.constraint() == Some("players_club_name") => {
            Ok(Updated::NameTaken)
        }
        Err(e) => Err(e),
    }
}

/// The club a player belongs to.
pub async fn club_of(pool: &PgPool, id: i64) -> sqlx::Result<Option<i64>> {
    sqlx::query_scalar("SELECT club_id FROM players WHERE id = $1")
        .bind(id)
        .fetch_optional(pool)
        .await
}

/// Who a player is linked to, and who claims to be them: `(user_id, claimed_by)`.
pub async fn link_of(
    pool: &PgPool,
    player_id: i64,
) -> sqlx::Result<Option<(Option<i64>, Option<i64>)>> {
    sqlx::query_as("SELECT user_id, claimed_by FROM players WHERE id = $1")
        .bind(player_id)
        .fetch_optional(pool)
        .await
}

/// A member says "this is me": recorded when nobody is linked to the player yet and the member
/// is not linked to another player of the club. Whether it was recorded.
pub async fn claim(
    pool: &PgPool,
    club_id: i64,
    player_id: i64,
    user_id: i64,
) -> sqlx::Result<bool> {
    Ok(sqlx::query(
        "UPDATE players SET claimed_by = $3 WHERE club_id = $1 AND id = $2 AND user_id IS NULL \
         AND NOT EXISTS (SELECT 1 FROM players o WHERE o.club_id = $1 AND o.user_id = $3)",
    )
    .bind(club_id)
    .bind(player_id)
    .bind(user_id)
    .execute(pool)
    .await?
    .rows_affected()
        == 1)
}

/// An organizer confirms (`true`) or refuses a claim; whether there was one to settle.
pub async fn settle_claim(
    pool: &PgPool,
    club_id: i64,
    player_id: i64,
    confirm: bool,
) -> sqlx::Result<bool> {
    let sql = if confirm {
        "UPDATE players SET user_id = claimed_by, claimed_by = NULL \
         WHERE club_id = $1 AND id = $2 AND claimed_by IS NOT NULL AND user_id IS NULL \
         AND NOT EXISTS (SELECT 1 FROM players o WHERE o.club_id = $1 AND o.user_id = players.claimed_by)"
    } else {
        "UPDATE players SET claimed_by = NULL WHERE club_id = $1 AND id = $2 AND claimed_by IS NOT NULL"
    };
    Ok(sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(club_id)
        .bind(player_id)
        .execute(pool)
        .await?
        .rows_affected()
        == 1)
}

/// Open claims in a club: (player id, player name, user display name, user email).
pub async fn claims(
    pool: &PgPool,
    club_id: i64,
) -> sqlx::Result<Vec<(i64, String, String, String)>> {
    sqlx::query_as(
        "SELECT p.id, p.name, u.display_name, u.email FROM players p JOIN users u ON u.id = p.claimed_by \
         WHERE p.club_id = $1 ORDER BY lower(p.name)",
    )
    .bind(club_id)
    .fetch_all(pool)
    .await
}

/// The players linked to an account, with their clubs: (player id, player name, club slug, club name).
pub async fn of_user(
    pool: &PgPool,
    user_id: i64,
) -> sqlx::Result<Vec<(i64, String, String, String)>> {
    sqlx::query_as(
        "SELECT p.id, p.name, c.slug, c.name FROM players p JOIN clubs c ON c.id = p.club_id \
         WHERE p.user_id = $1 ORDER BY c.name",
    )
    .bind(user_id)
    .fetch_all(pool)
    .await
}
