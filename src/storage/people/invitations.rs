//! Invitations to a club: one open invitation per club and address, found by its link's keyed
//! hash, accepted once.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::{PgConnection, PgPool};
use utoipa::ToSchema;

/// An invitation as an organizer sees it.
#[derive(Debug, Clone, sqlx::FromRow, Serialize, ToSchema)]
pub struct Invitation {
    pub id: i64,
    #[schema(example = "rose@example.org")]
    pub email: String,
    #[schema(schema_with = crate::storage::role_schema)]
    pub role: String,
    /// The display name of who sent it (absent once their account is gone).
    #[schema(required = true)]
    pub invited_by: Option<String>,
    pub created_at: DateTime<Utc>,
    /// After this the link no longer works; inviting the address again sends a new one.
    pub expires_at: DateTime<Utc>,
    /// When its mail was last sent (*Send again* sends it once more, at most once a day).
    pub sent_at: DateTime<Utc>,
}

const LISTED: &str = "SELECT i.id, i.email, i.role, u.display_name AS invited_by, i.created_at, i.expires_at, i.sent_at \
     FROM invitations i LEFT JOIN users u ON u.id = i.invited_by";

/// The user with this email, when they are a member of the club.
pub async fn member_by_email(
    pool: &PgPool,
    club_id: i64,
    email: &str,
) -> sqlx::Result<Option<i64>> {
    sqlx::query_scalar(
        "SELECT u.id FROM users u JOIN memberships m ON m.user_id = u.id AND m.club_id = $1 \
         WHERE lower(u.email) = lower($2)",
    )
    .bind(club_id)
    .bind(email)
    .fetch_optional(pool)
    .await
}

/// A new invitation: to whom, as what, for which player of the club (sent from the player's
/// row), by whom, with which link.
pub struct NewInvitation<'a> {
    pub club_id: i64,
    pub email: &'a str,
    pub role: &'a str,
    pub player_id: Option<i64>,
    pub token_hash: &'a str,
    pub invited_by: i64,
    pub expires_at: DateTime<Utc>,
}

/// Writes (or renews, with a new link, role, player and expiry) the club's open invitation of
/// `email`.
pub async fn invite(conn: &mut PgConnection, i: &NewInvitation<'_>) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "INSERT INTO invitations (club_id, email, role, token_hash, invited_by, expires_at, player_id) \
         VALUES ($1, $2, $3, $4, $5, $6, $7) \
         ON CONFLICT (club_id, lower(email)) WHERE accepted_at IS NULL AND revoked_at IS NULL \
         DO UPDATE SET email = EXCLUDED.email, role = EXCLUDED.role, token_hash = EXCLUDED.token_hash, \
         invited_by = EXCLUDED.invited_by, created_at = now(), expires_at = EXCLUDED.expires_at, \
         sent_at = now(), player_id = EXCLUDED.player_id \
         RETURNING id",
    )
    .bind(i.club_id)
    .bind(i.email)
    .bind(i.role)
    .bind(i.token_hash)
    .bind(i.invited_by)
    .bind(i.expires_at)
    .bind(i.player_id)
    .fetch_one(conn)
    .await
}

/// Names the player an open invitation is for (sent again from a player's row).
pub async fn set_player(conn: &mut PgConnection, id: i64, player_id: i64) -> sqlx::Result<()> {
    sqlx::query("UPDATE invitations SET player_id = $2 WHERE id = $1")
        .bind(id)
        .bind(player_id)
        .execute(conn)
        .await?;
    Ok(())
}

/// The club's invitation of `email` whose link still works, locked for the transaction: (id,
/// role).
pub async fn pending(
    conn: &mut PgConnection,
    club_id: i64,
    email: &str,
) -> sqlx::Result<Option<(i64, String)>> {
    sqlx::query_as(
        "SELECT id, role FROM invitations WHERE club_id = $1 AND lower(email) = lower($2) \
         AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now() FOR NO KEY UPDATE",
    )
    .bind(club_id)
    .bind(email)
    .fetch_optional(conn)
    .await
}

/// Changes the role an open invitation offers (its link and mail stay as they are).
/// (With `set_player`, what inviting an address with an open invitation again changes.)
pub async fn set_role(conn: &mut PgConnection, id: i64, role: &str) -> sqlx::Result<()> {
    sqlx::query("UPDATE invitations SET role = $2 WHERE id = $1")
        .bind(id)
        .bind(role)
        .execute(conn)
        .await?;
    Ok(())
}

/// An open invitation of the club to send again, locked for the transaction: (email, role,
/// when it was last sent, the name of the player it is for while nobody is linked to them).
pub async fn to_send_again(
    conn: &mut PgConnection,
    club_id: i64,
    id: i64,
) -> sqlx::Result<Option<(String, String, DateTime<Utc>, Option<String>)>> {
    sqlx::query_as(
        "SELECT i.email, i.role, i.sent_at, p.name FROM invitations i \
         LEFT JOIN players p ON p.id = i.player_id AND p.user_id IS NULL \
         WHERE i.club_id = $1 AND i.id = $2 \
         AND i.accepted_at IS NULL AND i.revoked_at IS NULL FOR NO KEY UPDATE OF i",
    )
    .bind(club_id)
    .bind(id)
    .fetch_optional(conn)
    .await
}

/// Gives an open invitation a new link (the old one stops working) sent now.
pub async fn sent_again(
    conn: &mut PgConnection,
    id: i64,
    token_hash: &str,
    invited_by: i64,
    expires_at: DateTime<Utc>,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE invitations SET token_hash = $2, invited_by = $3, expires_at = $4, sent_at = now() \
         WHERE id = $1",
    )
    .bind(id)
    .bind(token_hash)
    .bind(invited_by)
    .bind(expires_at)
    .execute(conn)
    .await?;
    Ok(())
}

/// One invitation of the club, as listed.
pub async fn get(pool: &PgPool, club_id: i64, id: i64) -> sqlx::Result<Option<Invitation>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{LISTED} WHERE i.club_id = $1 AND i.id = $2"
    )))
    .bind(club_id)
    .bind(id)
    .fetch_optional(pool)
    .await
}

/// The club's invitations not yet accepted or revoked (expired ones too), newest first.
pub async fn open_of(pool: &PgPool, club_id: i64) -> sqlx::Result<Vec<Invitation>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{LISTED} WHERE i.club_id = $1 AND i.accepted_at IS NULL AND i.revoked_at IS NULL \
         ORDER BY i.created_at DESC, i.id DESC"
    )))
    .bind(club_id)
    .fetch_all(pool)
    .await
}

/// Revokes an open invitation; whether there was one.
pub async fn revoke(pool: &PgPool, club_id: i64, id: i64) -> sqlx::Result<bool> {
    Ok(sqlx::query(
        "UPDATE invitations SET revoked_at = now() \
         WHERE club_id = $1 AND id = $2 AND accepted_at IS NULL AND revoked_at IS NULL",
    )
    .bind(club_id)
    .bind(id)
    .execute(pool)
    .await?
    .rows_affected()
        == 1)
}

/// What a working invitation link opens.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Opened {
    pub club_id: i64,
    pub club_slug: String,
    pub club_name: String,
    pub email: String,
    pub role: String,
    pub invited_by: Option<String>,
    pub expires_at: DateTime<Utc>,
    /// The player of the club it was sent for (from the player's row), with their name, while
    /// nobody is linked to them.
    pub player_id: Option<i64>,
    pub player_name: Option<String>,
}

/// The invitation whose link has this hash, while it works (open and not expired).
pub async fn opened(pool: &PgPool, token_hash: &str) -> sqlx::Result<Option<Opened>> {
    sqlx::query_as(
        "SELECT c.id AS club_id, c.slug AS club_slug, c.name AS club_name, i.email, i.role, \
         u.display_name AS invited_by, i.expires_at, p.id AS player_id, p.name AS player_name \
         FROM invitations i JOIN clubs c ON c.id = i.club_id LEFT JOIN users u ON u.id = i.invited_by \
         LEFT JOIN players p ON p.id = i.player_id AND p.user_id IS NULL \
         WHERE i.token_hash = $1 AND i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > now()",
    )
    .bind(token_hash)
    .fetch_optional(pool)
    .await
}

/// Uses the invitation for `user_id` (in `conn`'s transaction): marks it accepted and makes the
/// user a member with its role. An owner already in the club stays owner. The club and role,
/// or `None` when the link no longer works.
pub async fn accept(
    conn: &mut PgConnection,
    token_hash: &str,
    user_id: i64,
) -> sqlx::Result<Option<(i64, String)>> {
    let taken: Option<(i64, String)> = sqlx::query_as(
        "UPDATE invitations SET accepted_at = now(), accepted_by = $2 \
         WHERE token_hash = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now() \
         RETURNING club_id, role",
    )
    .bind(token_hash)
    .bind(user_id)
    .fetch_optional(&mut *conn)
    .await?;
    let Some((club_id, role)) = taken else {
        return Ok(None);
    };
    let role: String = sqlx::query_scalar(
        "INSERT INTO memberships (club_id, user_id, role) VALUES ($1, $2, $3) \
         ON CONFLICT (club_id, user_id) DO UPDATE \
         SET role = CASE WHEN memberships.role = 'owner' THEN 'owner' ELSE EXCLUDED.role END \
         RETURNING role",
    )
    .bind(club_id)
    .bind(user_id)
    .bind(&role)
    .fetch_one(&mut *conn)
    .await?;
    Ok(Some((club_id, role)))
}
