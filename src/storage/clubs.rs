//! Clubs and memberships.

use serde::Serialize;
use sqlx::PgPool;
use utoipa::ToSchema;

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Club {
    pub id: i64,
    pub slug: String,
    pub name: String,
    pub time_zone: String,
}

/// A member of a club as listed.
#[derive(Debug, Clone, sqlx::FromRow, Serialize, ToSchema)]
pub struct Member {
    pub user_id: i64,
    pub email: String,
    pub display_name: String,
    #[schema(example = "organizer")]
    pub role: String,
}

const COLUMNS: &str = "id, slug, name, time_zone";

/// All clubs, by name.
pub async fn list(pool: &PgPool) -> sqlx::Result<Vec<Club>> {
    sqlx::query_as::<_, Club>("SELECT id, slug, name, time_zone FROM clubs ORDER BY name, id")
        .fetch_all(pool)
        .await
}

pub async fn by_slug(pool: &PgPool, slug: &str) -> sqlx::Result<Option<Club>> {
    sqlx::query_as::<_, Club>(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM clubs WHERE slug = $1"
    )))
    .bind(slug)
    .fetch_optional(pool)
    .await
}

pub async fn by_id(pool: &PgPool, id: i64) -> sqlx::Result<Option<Club>> {
    sqlx::query_as::<_, Club>(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM clubs WHERE id = $1"
    )))
    .bind(id)
    .fetch_optional(pool)
    .await
}

/// Creates a club with its first owner, in one transaction; `None` when the slug is taken.
pub async fn create_with_owner(
    pool: &PgPool,
    slug: &str,
    name: &str,
    time_zone: &str,
    owner: i64,
) -> sqlx::Result<Option<Club>> {
    let mut tx = pool.begin().await?;
    let club = sqlx::query_as::<_, Club>(sqlx::AssertSqlSafe(format!(
        "INSERT INTO clubs (slug, name, time_zone) VALUES ($1, $2, $3) ON CONFLICT (slug) DO NOTHING RETURNING {COLUMNS}"
    )))
    .bind(slug)
    .bind(name)
    .bind(time_zone)
    .fetch_optional(&mut *tx)
    .await?;
    let Some(club) = club else { return Ok(None) };
    sqlx::query("INSERT INTO memberships (club_id, user_id, role) VALUES ($1, $2, 'owner')")
        .bind(club.id)
        .bind(owner)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(Some(club))
}

/// Creates the demo club if it is not there yet.
pub async fn ensure_demo(pool: &PgPool) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO clubs (slug, name, time_zone) VALUES ('demo', 'Demo Mah Jongg Club', 'America/New_York') \
         ON CONFLICT (slug) DO NOTHING",
    )
    .execute(pool)
    .await?;
    Ok(())
}

pub async fn role(pool: &PgPool, club_id: i64, user_id: i64) -> sqlx::Result<Option<String>> {
    sqlx::query_scalar("SELECT role FROM memberships WHERE club_id = $1 AND user_id = $2")
        .bind(club_id)
        .bind(user_id)
        .fetch_optional(pool)
        .await
}

pub async fn members(pool: &PgPool, club_id: i64) -> sqlx::Result<Vec<Member>> {
    sqlx::query_as::<_, Member>(
        "SELECT u.id AS user_id, u.email, u.display_name, m.role FROM memberships m JOIN users u ON u.id = m.user_id \
         WHERE m.club_id = $1 ORDER BY u.display_name, u.id",
    )
    .bind(club_id)
    .fetch_all(pool)
    .await
}

/// Adds a member or changes their role.
pub async fn set_role(pool: &PgPool, club_id: i64, user_id: i64, role: &str) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO memberships (club_id, user_id, role) VALUES ($1, $2, $3) \
         ON CONFLICT (club_id, user_id) DO UPDATE SET role = EXCLUDED.role",
    )
    .bind(club_id)
    .bind(user_id)
    .bind(role)
    .execute(pool)
    .await?;
    Ok(())
}

pub async fn remove_member(pool: &PgPool, club_id: i64, user_id: i64) -> sqlx::Result<bool> {
    let r = sqlx::query("DELETE FROM memberships WHERE club_id = $1 AND user_id = $2")
        .bind(club_id)
        .bind(user_id)
        .execute(pool)
        .await?;
    Ok(r.rows_affected() > 0)
}

pub async fn owner_count(pool: &PgPool, club_id: i64) -> sqlx::Result<i64> {
    sqlx::query_scalar("SELECT count(*) FROM memberships WHERE club_id = $1 AND role = 'owner'")
        .bind(club_id)
        .fetch_one(pool)
        .await
}
