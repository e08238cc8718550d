//! Players of a club.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::{PgConnection, PgPool};
use utoipa::ToSchema;

use crate::storage::people::names;

#[derive(Debug, Clone, sqlx::FromRow, Serialize, ToSchema)]
pub struct Player {
    pub id: i64,
    #[schema(example = "Rose Adler")]
    pub name: String,
    pub active: bool,
    pub created_at: DateTime<Utc>,
    /// The player's id at a ranking body, for tournament results (optional).
    #[schema(required = true)]
    pub ranking_id: Option<String>,
}

const COLUMNS: &str = "id, name, active, created_at, ranking_id";

/// Creates a player; `Err(existing)` when the club already has a player of that name (its key:
/// the same name in another case, or a look-alike), naming that player.
pub async fn create(
    pool: &PgPool,
    club_id: i64,
    name: &str,
) -> sqlx::Result<Result<Player, Player>> {
    let mut tx = pool.begin().await?;
    let answer = create_in(&mut tx, club_id, name).await?;
    tx.commit().await?;
    Ok(answer)
}

/// `create` in `tx`'s transaction.
pub async fn create_in(
    tx: &mut sqlx::PgConnection,
    club_id: i64,
    name: &str,
) -> sqlx::Result<Result<Player, Player>> {
    fill_keys(tx, Some(club_id)).await?;
    let key = names::key(name);
    let made = sqlx::query_as::<_, Player>(sqlx::AssertSqlSafe(format!(
        "INSERT INTO players (club_id, name, name_key) VALUES ($1, $2, $3) \
         ON CONFLICT (club_id, name_key) DO NOTHING RETURNING {COLUMNS}"
    )))
    .bind(club_id)
    .bind(name)
    .bind(&key)
    .fetch_optional(&mut *tx)
    .await?;
    Ok(match made {
        Some(p) => Ok(p),
        None => Err(by_key(&mut *tx, club_id, &key)
            .await?
            .ok_or(sqlx::Error::RowNotFound)?),
    })
}

/// The club's player whose name is the same as `name` (same key), if any.
pub async fn same_name(pool: &PgPool, club_id: i64, name: &str) -> sqlx::Result<Option<Player>> {
    by_key(pool, club_id, &names::key(name)).await
}

async fn by_key(
    db: impl sqlx::PgExecutor<'_>,
    club_id: i64,
    key: &str,
) -> sqlx::Result<Option<Player>> {
    sqlx::query_as::<_, Player>(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM players WHERE club_id = $1 AND name_key = $2"
    )))
    .bind(club_id)
    .bind(key)
    .fetch_optional(db)
    .await
}

/// Gives every player without a name key (stored before keys existed, or by hand in SQL) its
/// key, in `club_id` or everywhere. A key another player of the club already has gets the
/// player's id appended: both stay, as they were, and an organizer may rename one.
pub async fn fill_keys(tx: &mut sqlx::PgConnection, club_id: Option<i64>) -> sqlx::Result<u64> {
    let missing: Vec<(i64, i64, String)> = sqlx::query_as(
        "SELECT id, club_id, name FROM players WHERE name_key IS NULL AND ($1::BIGINT IS NULL OR club_id = $1) \
         ORDER BY id FOR NO KEY UPDATE",
    )
    .bind(club_id)
    .fetch_all(&mut *tx)
    .await?;
    if missing.is_empty() {
        return Ok(0);
    }
    let clubs: Vec<i64> = missing.iter().map(|m| m.1).collect();
    let taken: Vec<(i64, String)> = sqlx::query_as(
        "SELECT club_id, name_key FROM players WHERE club_id = ANY($1) AND name_key IS NOT NULL",
    )
    .bind(&clubs)
    .fetch_all(&mut *tx)
    .await?;
    let mut taken: std::collections::HashSet<(i64, String)> = taken.into_iter().collect();
    let (mut ids, mut keys) = (Vec::new(), Vec::new());
    for (id, club, name) in missing {
        let mut key = names::key(&name);
        if !taken.insert((club, key.clone())) {
            tracing::warn!(player = id, club, name = %name, "two players of a club have the same name by its rule (case or look-alike); both kept");
            key = format!("{key}#{id}");
            taken.insert((club, key.clone()));
        }
        ids.push(id);
        keys.push(key);
    }
    let n = ids.len() as u64;
    sqlx::query(
        "UPDATE players p SET name_key = u.k FROM unnest($1::BIGINT[], $2::TEXT[]) AS u(id, k) WHERE p.id = u.id",
    )
    .bind(&ids)
    .bind(&keys)
    .execute(&mut *tx)
    .await?;
    Ok(n)
}

/// After the migrations: every player's key filled, and the unique index on keys in place.
pub async fn ensure_keys(pool: &PgPool) -> sqlx::Result<()> {
    let mut tx = pool.begin().await?;
    // One process at a time (several instances may start at once).
    sqlx::query("SELECT pg_advisory_xact_lock(36060036)")
        .execute(&mut *tx)
        .await?;
    let filled = fill_keys(&mut tx, None).await?;
    if filled > 0 {
        tracing::info!(players = filled, "players' name keys filled");
    }
    // Made once; asking first spares every later start the table lock `CREATE INDEX` takes.
    let indexed: bool = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM pg_indexes WHERE indexname = 'players_club_name_key')",
    )
    .fetch_one(&mut *tx)
    .await?;
    if !indexed {
        sqlx::query("CREATE UNIQUE INDEX players_club_name_key ON players (club_id, name_key)")
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await
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
        "WITH renamed AS (UPDATE players SET name = coalesce($3, name), name_key = coalesce($7, name_key), \
           active = coalesce($4, active), \
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
    .bind(name.map(names::key))
    .fetch_optional(pool)
    .await;
    match r {
        Ok(Some(p)) => Ok(Updated::Done(p)),
        Ok(None) => Ok(Updated::NotFound),
        Err(sqlx::Error::Database(e)) if e.constraint() == Some("players_club_name_key") => {
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

/// Links a player nobody is linked to, to an account with no player in the club (in `conn`'s
/// transaction); whether it was linked. A claim on the player is settled by it.
pub async fn link_in(conn: &mut PgConnection, player_id: i64, user_id: i64) -> sqlx::Result<bool> {
    Ok(sqlx::query(
        "UPDATE players SET user_id = $2, claimed_by = NULL WHERE id = $1 AND user_id IS NULL \
         AND NOT EXISTS (SELECT 1 FROM players o WHERE o.club_id = players.club_id AND o.user_id = $2)",
    )
    .bind(player_id)
    .bind(user_id)
    .execute(conn)
    .await?
    .rows_affected()
        == 1)
}

/// A member's player in the club (in `conn`'s transaction): (id, name, linked), where `linked`
/// is false while the member only says they are that player.
pub async fn of_member(
    conn: &mut PgConnection,
    club_id: i64,
    user_id: i64,
) -> sqlx::Result<Option<(i64, String, bool)>> {
    sqlx::query_as(
        "SELECT id, name, user_id IS NOT NULL FROM players \
         WHERE club_id = $1 AND (user_id = $2 OR claimed_by = $2) \
         ORDER BY (user_id IS NOT NULL) DESC, id LIMIT 1",
    )
    .bind(club_id)
    .bind(user_id)
    .fetch_optional(conn)
    .await
}

/// A claim recorded in `conn`'s transaction, as `claim`.
pub async fn claim_in(
    conn: &mut PgConnection,
    club_id: i64,
    player_id: i64,
    user_id: i64,
) -> sqlx::Result<bool> {
    Ok(sqlx::query(sqlx::AssertSqlSafe(format!(
        "UPDATE players SET claimed_by = $3, claimed_at = now(), claim_mailed_at = NULL \
         WHERE club_id = $1 AND id = $2 AND user_id IS NULL \
         AND claimed_by IS NULL \
         AND NOT EXISTS (SELECT 1 FROM players o WHERE o.club_id = $1 AND o.claimed_by = $3) \
         AND NOT EXISTS (SELECT 1 FROM players o WHERE o.club_id = $1 AND o.user_id = $3 \
           AND NOT {}) \
         AND NOT EXISTS (SELECT 1 FROM invitations i WHERE i.player_id = $2 AND i.accepted_at IS NULL \
           AND i.revoked_at IS NULL AND i.expires_at > now() \
           AND lower(i.email) <> (SELECT lower(email) FROM users WHERE id = $3))",
        unplayed("o")
    )))
    .bind(club_id)
    .bind(player_id)
    .bind(user_id)
    .execute(conn)
    .await?
    .rows_affected()
        == 1)
}

/// The player the member says they are in the club, waiting for an organizer: (id, name).
pub async fn claim_of(
    conn: &mut PgConnection,
    club_id: i64,
    user_id: i64,
) -> sqlx::Result<Option<(i64, String)>> {
    sqlx::query_as("SELECT id, name FROM players WHERE club_id = $1 AND claimed_by = $2 LIMIT 1")
        .bind(club_id)
        .bind(user_id)
        .fetch_optional(conn)
        .await
}

/// Whether an open invitation was sent for the player to an address other than the member's.
pub async fn invited_elsewhere(
    conn: &mut PgConnection,
    player_id: i64,
    user_id: i64,
) -> sqlx::Result<bool> {
    sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM invitations i WHERE i.player_id = $1 AND i.accepted_at IS NULL \
         AND i.revoked_at IS NULL AND i.expires_at > now() \
         AND lower(i.email) <> (SELECT lower(email) FROM users WHERE id = $2))",
    )
    .bind(player_id)
    .bind(user_id)
    .fetch_one(conn)
    .await
}

/// A claim waiting for the club's organizers to be told: (player id, player name, member id,
/// member name, member email).
pub type UnmailedClaim = (i64, String, i64, String, String);

/// The club's claims its organizers were not mailed yet, marked mailed now (in `conn`'s
/// transaction), when the club's last claims mail is 24 hours old or more (or none was sent);
/// the club's claims mail is stamped now when any are taken.
pub async fn take_unmailed_claims(
    conn: &mut PgConnection,
    club_id: i64,
) -> sqlx::Result<Vec<UnmailedClaim>> {
    let due: bool = sqlx::query_scalar(
        "SELECT coalesce(claims_mailed_at < now() - interval '24 hours', true) FROM clubs \
         WHERE id = $1 FOR NO KEY UPDATE",
    )
    .bind(club_id)
    .fetch_optional(&mut *conn)
    .await?
    .unwrap_or(false);
    if !due {
        return Ok(Vec::new());
    }
    let taken: Vec<UnmailedClaim> = sqlx::query_as(
        "WITH t AS (UPDATE players p SET claim_mailed_at = now() \
            WHERE p.club_id = $1 AND p.claimed_by IS NOT NULL AND p.claim_mailed_at IS NULL \
            RETURNING p.id, p.name, p.claimed_by) \
         SELECT t.id, t.name, u.id, u.display_name, u.email FROM t JOIN users u ON u.id = t.claimed_by \
         ORDER BY lower(t.name)",
    )
    .bind(club_id)
    .fetch_all(&mut *conn)
    .await?;
    if !taken.is_empty() {
        sqlx::query("UPDATE clubs SET claims_mailed_at = now() WHERE id = $1")
            .bind(club_id)
            .execute(conn)
            .await?;
    }
    Ok(taken)
}

/// A club whose claims wait for their daily mail (the last one is 24 hours old), if any.
pub async fn club_with_claims_due(conn: &mut PgConnection) -> sqlx::Result<Option<i64>> {
    sqlx::query_scalar(
        "SELECT c.id FROM clubs c WHERE (c.claims_mailed_at IS NULL OR c.claims_mailed_at < now() - interval '24 hours') \
         AND EXISTS (SELECT 1 FROM players p WHERE p.club_id = c.id AND p.claimed_by IS NOT NULL \
                     AND p.claim_mailed_at IS NULL) \
         ORDER BY c.id LIMIT 1 FOR UPDATE OF c SKIP LOCKED",
    )
    .fetch_optional(conn)
    .await
}

/// Waits for any other transaction placing the same member on the club's roster.
pub async fn lock_member(conn: &mut PgConnection, club_id: i64, user_id: i64) -> sqlx::Result<()> {
    sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended('roster:' || $1 || ':' || $2, 53))")
        .bind(club_id)
        .bind(user_id)
        .execute(conn)
        .await?;
    Ok(())
}

/// The name of the club's player `id`, if the club has one.
pub async fn name_in(
    conn: &mut PgConnection,
    club_id: i64,
    id: i64,
) -> sqlx::Result<Option<String>> {
    sqlx::query_scalar("SELECT name FROM players WHERE club_id = $1 AND id = $2")
        .bind(club_id)
        .bind(id)
        .fetch_optional(conn)
        .await
}

/// A player and a member of its club, as a claim's link shows them.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ClaimRow {
    pub club_id: i64,
    pub club: String,
    pub club_name: String,
    pub name: String,
    /// Who is linked to the player, and who says they are them.
    pub linked: Option<i64>,
    pub claimed: Option<i64>,
    pub member: String,
    pub member_email: String,
    /// When the member's account was made.
    pub member_since: DateTime<Utc>,
    pub club_time_zone: String,
    /// Games the player has played (in any league of the club), and the address of an open
    /// invitation sent for the player, if any.
    pub games: i64,
    pub invited: Option<String>,
}

/// The player `player` with the member `user` of its club; `None` when either is gone or the
/// user is no member of the player's club.
pub async fn claim_row(pool: &PgPool, player: i64, user: i64) -> sqlx::Result<Option<ClaimRow>> {
    sqlx::query_as(
        "SELECT c.id AS club_id, c.slug AS club, c.name AS club_name, p.name, p.user_id AS linked, \
         p.claimed_by AS claimed, u.display_name AS member, u.email AS member_email, \
         u.created_at AS member_since, c.time_zone AS club_time_zone, \
         (SELECT count(*) FROM table_seats s JOIN games g ON g.table_id = s.table_id \
            WHERE s.player_id = p.id) AS games, \
         (SELECT i.email FROM invitations i WHERE i.player_id = p.id AND i.accepted_at IS NULL \
            AND i.revoked_at IS NULL AND i.expires_at > now() ORDER BY i.id DESC LIMIT 1) AS invited \
         FROM players p JOIN clubs c ON c.id = p.club_id JOIN users u ON u.id = $2 \
         JOIN memberships m ON m.club_id = c.id AND m.user_id = u.id WHERE p.id = $1",
    )
    .bind(player)
    .bind(user)
    .fetch_optional(pool)
    .await
}

/// A player of the club on the organizers' list: who they are on the service.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct RosterRow {
    pub id: i64,
    pub name: String,
    pub active: bool,
    /// The display name of the account linked to the player.
    pub account: Option<String>,
    /// The member who says they are the player (not confirmed yet): (user id, name, email).
    pub claimed_by: Option<i64>,
    pub claimer: Option<String>,
    pub claimer_email: Option<String>,
    /// The address of an open invitation sent from the player's row.
    pub invited: Option<String>,
}

/// The club's players with their accounts, claims and invitations, active first, by name; only
/// the player `only` when given.
pub async fn roster(
    pool: &PgPool,
    club_id: i64,
    only: Option<i64>,
) -> sqlx::Result<Vec<RosterRow>> {
    sqlx::query_as(
        "SELECT p.id, p.name, p.active, a.display_name AS account, p.claimed_by, \
         c.display_name AS claimer, c.email AS claimer_email, \
         (SELECT i.email FROM invitations i WHERE i.player_id = p.id AND i.accepted_at IS NULL \
            AND i.revoked_at IS NULL AND i.expires_at > now() ORDER BY i.id DESC LIMIT 1) AS invited \
         FROM players p LEFT JOIN users a ON a.id = p.user_id LEFT JOIN users c ON c.id = p.claimed_by \
         WHERE p.club_id = $1 AND ($2::BIGINT IS NULL OR p.id = $2) \
         ORDER BY p.active DESC, lower(p.name), p.id",
    )
    .bind(club_id)
    .bind(only)
    .fetch_all(pool)
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

/// Whether the player `p` (a table name or alias) has never played: never checked in, seated or
/// in a match (a player made for a member when they joined, before anyone knew they were
/// already on the list).
fn unplayed(p: &str) -> String {
    format!(
        "(NOT EXISTS (SELECT 1 FROM checkins c WHERE c.player_id = {p}.id) \
         AND NOT EXISTS (SELECT 1 FROM table_seats s WHERE s.player_id = {p}.id) \
         AND NOT EXISTS (SELECT 1 FROM match_players m WHERE m.player_id = {p}.id))"
    )
}

/// The member's linked player in the club when it has never played: (id, name).
pub async fn unplayed_of(
    conn: &mut PgConnection,
    club_id: i64,
    user_id: i64,
) -> sqlx::Result<Option<(i64, String)>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT id, name FROM players WHERE club_id = $1 AND user_id = $2 AND {}",
        unplayed("players")
    )))
    .bind(club_id)
    .bind(user_id)
    .fetch_optional(conn)
    .await
}

/// An organizer confirms (`true`) or refuses a claim; whether there was one to settle. On
/// confirming, a player the member was given on joining that has never played is let go
/// (unlinked and deactivated: the member is the player they said they are).
pub async fn settle_claim(
    pool: &PgPool,
    club_id: i64,
    player_id: i64,
    confirm: bool,
) -> sqlx::Result<bool> {
    let mut tx = pool.begin().await?;
    if confirm {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "UPDATE players SET user_id = NULL, active = false \
             WHERE club_id = $1 AND id <> $2 \
             AND user_id = (SELECT claimed_by FROM players WHERE id = $2 AND club_id = $1) AND {}",
            unplayed("players")
        )))
        .bind(club_id)
        .bind(player_id)
        .execute(&mut *tx)
        .await?;
    }
    let sql = if confirm {
        "UPDATE players SET user_id = claimed_by, claimed_by = NULL \
         WHERE club_id = $1 AND id = $2 AND claimed_by IS NOT NULL AND user_id IS NULL \
         AND NOT EXISTS (SELECT 1 FROM players o WHERE o.club_id = $1 AND o.user_id = players.claimed_by)"
    } else {
        "UPDATE players SET claimed_by = NULL WHERE club_id = $1 AND id = $2 AND claimed_by IS NOT NULL"
    };
    let done = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(club_id)
        .bind(player_id)
        .execute(&mut *tx)
        .await?
        .rows_affected()
        == 1;
    tx.commit().await?;
    Ok(done)
}

/// The club's players nobody is linked to or claims: (id, name), by name.
pub async fn unclaimed(pool: &PgPool, club_id: i64) -> sqlx::Result<Vec<(i64, String)>> {
    sqlx::query_as(
        "SELECT id, name FROM players WHERE club_id = $1 AND user_id IS NULL AND claimed_by IS NULL \
         ORDER BY lower(name), id",
    )
    .bind(club_id)
    .fetch_all(pool)
    .await
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
