//! Clubs and memberships.

use serde::Serialize;
use sqlx::{PgConnection, PgPool};
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
    #[schema(schema_with = crate::storage::role_schema)]
    pub role: String,
}

const COLUMNS: &str = "id, slug, name, time_zone";

/// The clubs a user belongs to, by name.
pub async fn of_user(pool: &PgPool, user_id: i64) -> sqlx::Result<Vec<Club>> {
    sqlx::query_as::<_, Club>(
        "SELECT c.id, c.slug, c.name, c.time_zone FROM clubs c JOIN memberships m ON m.club_id = c.id \
         WHERE m.user_id = $1 ORDER BY c.name, c.id",
    )
    .bind(user_id)
    .fetch_all(pool)
    .await
}

pub async fn by_slug(pool: &PgPool, slug: &str) -> sqlx::Result<Option<Club>> {
    // No slug holds a NUL (PostgreSQL's text cannot): there is no such club.
    if slug.contains('\0') {
        return Ok(None);
    }
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

/// Creates a club with its first owner (who made it), in `tx`; `None` when the slug is taken.
pub async fn create_with_owner(
    tx: &mut PgConnection,
    slug: &str,
    name: &str,
    time_zone: &str,
    owner: i64,
) -> sqlx::Result<Option<Club>> {
    let club = sqlx::query_as::<_, Club>(sqlx::AssertSqlSafe(format!(
        "INSERT INTO clubs (slug, name, time_zone, created_by) VALUES ($1, $2, $3, $4) \
         ON CONFLICT (slug) DO NOTHING RETURNING {COLUMNS}"
    )))
    .bind(slug)
    .bind(name)
    .bind(time_zone)
    .bind(owner)
    .fetch_optional(&mut *tx)
    .await?;
    let Some(club) = club else { return Ok(None) };
    sqlx::query("INSERT INTO memberships (club_id, user_id, role) VALUES ($1, $2, 'owner')")
        .bind(club.id)
        .bind(owner)
        .execute(&mut *tx)
        .await?;
    Ok(Some(club))
}

/// The club's owners and organizers: (user id, email, name).
pub async fn organizers(
    conn: &mut PgConnection,
    club_id: i64,
) -> sqlx::Result<Vec<(i64, String, String)>> {
    sqlx::query_as(
        "SELECT u.id, u.email, u.display_name FROM memberships m JOIN users u ON u.id = m.user_id \
         WHERE m.club_id = $1 AND m.role IN ('owner', 'organizer') ORDER BY u.id",
    )
    .bind(club_id)
    .fetch_all(conn)
    .await
}

/// Renames a club or sets its clock (a zone set clears `time_zone_was`); the club after.
pub async fn update(
    pool: &PgPool,
    id: i64,
    name: Option<&str>,
    time_zone: Option<&str>,
) -> sqlx::Result<Club> {
    sqlx::query_as::<_, Club>(sqlx::AssertSqlSafe(format!(
        "UPDATE clubs SET name = coalesce($2, name), time_zone = coalesce($3, time_zone), \
         time_zone_was = CASE WHEN $3 IS NULL THEN time_zone_was END \
         WHERE id = $1 RETURNING {COLUMNS}"
    )))
    .bind(id)
    .bind(name)
    .bind(time_zone)
    .fetch_one(pool)
    .await
}

/// What a club's time zone was stored as before it was checked, when that was no zone's name
/// (the club shows UTC until an organizer picks its zone).
pub async fn zone_was(pool: &PgPool, id: i64) -> sqlx::Result<Option<String>> {
    Ok(
        sqlx::query_scalar::<_, Option<String>>("SELECT time_zone_was FROM clubs WHERE id = $1")
            .bind(id)
            .fetch_optional(pool)
            .await?
            .flatten(),
    )
}

/// Creates the demo club if it is not there yet, with a public league on the demo card (a club
/// shows to visitors only through its public leagues).
pub async fn ensure_demo(pool: &PgPool) -> sqlx::Result<()> {
    let mut tx = pool.begin().await?;
    sqlx::query(
        "INSERT INTO clubs (slug, name, time_zone) VALUES ('demo', 'Demo Mah Jongg Club', 'America/New_York') \
         ON CONFLICT (slug) DO NOTHING",
    )
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "INSERT INTO leagues (club_id, name, builtin_card, ruleset, visibility) \
         SELECT c.id, 'Demo league', 'demo-2026', '\"nmjl-money\"', 'public' FROM clubs c \
         WHERE c.slug = 'demo' AND NOT EXISTS (SELECT 1 FROM leagues l WHERE l.club_id = c.id)",
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await
}

/// Holds the demo's advisory lock on a connection of its own until `demo_unlock`.
pub async fn demo_lock(pool: &PgPool) -> sqlx::Result<sqlx::pool::PoolConnection<sqlx::Postgres>> {
    let mut conn = pool.acquire().await?;
    sqlx::query("SELECT pg_advisory_lock(hashtext('mahjong-league demo'))")
        .execute(&mut *conn)
        .await?;
    Ok(conn)
}

pub async fn demo_unlock(mut conn: sqlx::pool::PoolConnection<sqlx::Postgres>) -> sqlx::Result<()> {
    sqlx::query("SELECT pg_advisory_unlock(hashtext('mahjong-league demo'))")
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// Whether any league of the club has a night.
pub async fn demo_has_nights(pool: &PgPool, club_id: i64) -> sqlx::Result<bool> {
    sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM nights n JOIN leagues l ON l.id = n.league_id WHERE l.club_id = $1)",
    )
    .bind(club_id)
    .fetch_one(pool)
    .await
}

/// The club's first league, if any.
pub async fn demo_league(pool: &PgPool, club_id: i64) -> sqlx::Result<Option<i64>> {
    sqlx::query_scalar("SELECT id FROM leagues WHERE club_id = $1 ORDER BY id LIMIT 1")
        .bind(club_id)
        .fetch_optional(pool)
        .await
}

/// Makes a user an owner of the club.
pub async fn make_owner(pool: &PgPool, club_id: i64, user_id: i64) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO memberships (club_id, user_id, role) VALUES ($1, $2, 'owner') \
         ON CONFLICT (club_id, user_id) DO UPDATE SET role = 'owner'",
    )
    .bind(club_id)
    .bind(user_id)
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

/// How a change of membership went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoleChange {
    Done,
    /// The user is not a member (nothing to remove).
    NotMember,
    /// The change would leave the club without an owner; nothing changed.
    LastOwner,
}

/// Gives a user a role in the club (adding them), or with `None` takes them out (`by` is who
/// did; herself when she leaves). The club's row is locked for the count of owners and the
/// change, so two owners demoting each other at once cannot leave the club with none: the
/// second sees the first's change.
pub async fn change_role(
    pool: &PgPool,
    club_id: i64,
    user_id: i64,
    role: Option<&str>,
    by: i64,
) -> sqlx::Result<RoleChange> {
    let mut tx = pool.begin().await?;
    sqlx::query("SELECT id FROM clubs WHERE id = $1 FOR NO KEY UPDATE")
        .bind(club_id)
        .execute(&mut *tx)
        .await?;
    let current: Option<String> =
        sqlx::query_scalar("SELECT role FROM memberships WHERE club_id = $1 AND user_id = $2")
            .bind(club_id)
            .bind(user_id)
            .fetch_optional(&mut *tx)
            .await?;
    let owners: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM memberships WHERE club_id = $1 AND role = 'owner'",
    )
    .bind(club_id)
    .fetch_one(&mut *tx)
    .await?;
    if current.as_deref() == Some("owner") && role != Some("owner") && owners <= 1 {
        return Ok(RoleChange::LastOwner);
    }
    match role {
        Some(role) => {
            sqlx::query(
                "INSERT INTO memberships (club_id, user_id, role) VALUES ($1, $2, $3) \
                 ON CONFLICT (club_id, user_id) DO UPDATE SET role = EXCLUDED.role",
            )
            .bind(club_id)
            .bind(user_id)
            .bind(role)
            .execute(&mut *tx)
            .await?;
        }
        None if current.is_none() => return Ok(RoleChange::NotMember),
        None => {
            sqlx::query("DELETE FROM memberships WHERE club_id = $1 AND user_id = $2")
                .bind(club_id)
                .bind(user_id)
                .execute(&mut *tx)
                .await?;
            end_what_waits_on(&mut tx, club_id, user_id).await?;
            sqlx::query(
                "INSERT INTO club_departures (club_id, user_id, removed_by) \
                 VALUES ($1, $2, nullif($3, $2)) \
                 ON CONFLICT (club_id, user_id) DO UPDATE \
                 SET left_at = now(), removed_by = EXCLUDED.removed_by",
            )
            .bind(club_id)
            .bind(user_id)
            .bind(by)
            .execute(&mut *tx)
            .await?;
        }
    }
    tx.commit().await?;
    Ok(RoleChange::Done)
}

/// When `user_id` last left the club or was taken out of it, and the name of who took her out
/// (`None` when she left herself).
pub async fn departure(
    pool: &PgPool,
    club_id: i64,
    user_id: i64,
) -> sqlx::Result<Option<(chrono::DateTime<chrono::Utc>, Option<String>)>> {
    sqlx::query_as(
        "SELECT d.left_at, u.display_name FROM club_departures d \
         LEFT JOIN users u ON u.id = d.removed_by WHERE d.club_id = $1 AND d.user_id = $2",
    )
    .bind(club_id)
    .bind(user_id)
    .fetch_optional(pool)
    .await
}

/// What a member who leaves (or is removed) leaves waiting ends with her membership, in `tx`:
/// her claims to be a player (nobody can confirm them afterwards), the match proposals she made
/// that wait for players, and the invitations she sent that nobody has answered. Her player
/// stays, with its games, no longer linked to her account.
async fn end_what_waits_on(
    tx: &mut sqlx::PgConnection,
    club_id: i64,
    user_id: i64,
) -> sqlx::Result<()> {
    for sql in [
        "UPDATE players SET claimed_by = NULL, claimed_at = NULL, claim_mailed_at = NULL \
         WHERE club_id = $1 AND claimed_by = $2",
        "UPDATE players SET user_id = NULL WHERE club_id = $1 AND user_id = $2",
        "UPDATE invitations SET revoked_at = now() \
         WHERE club_id = $1 AND invited_by = $2 AND accepted_at IS NULL AND revoked_at IS NULL",
        "UPDATE matches SET status = 'cancelled', \
                cancel_reason = 'the member who proposed it is no longer in the club' \
         WHERE created_by = $2 AND status = 'forming' AND night_id IS NULL \
           AND league_id IN (SELECT id FROM leagues WHERE club_id = $1)",
    ] {
        sqlx::query(sql)
            .bind(club_id)
            .bind(user_id)
            .execute(&mut *tx)
            .await?;
    }
    Ok(())
}

/// The origins from which the club's API tokens may be used in a browser.
pub async fn allowed_origins(pool: &PgPool, club_id: i64) -> sqlx::Result<Vec<String>> {
    sqlx::query_scalar("SELECT allowed_origins FROM clubs WHERE id = $1")
        .bind(club_id)
        .fetch_optional(pool)
        .await
        .map(Option::unwrap_or_default)
}

/// Replaces the club's allowed origins.
pub async fn set_allowed_origins(
    pool: &PgPool,
    club_id: i64,
    origins: &[String],
) -> sqlx::Result<()> {
    sqlx::query("UPDATE clubs SET allowed_origins = $2 WHERE id = $1")
        .bind(club_id)
        .bind(origins)
        .execute(pool)
        .await?;
    Ok(())
}

/// Whether any club lists `origin` (a browser's preflight for a token does not say whose).
pub async fn origin_listed(pool: &PgPool, origin: &str) -> sqlx::Result<bool> {
    sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM clubs WHERE allowed_origins @> ARRAY[$1::TEXT])",
    )
    .bind(origin)
    .fetch_one(pool)
    .await
}
