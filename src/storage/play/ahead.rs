//! Nights ahead: scheduled nights of a league and members' replies.

use chrono::{DateTime, NaiveDate, NaiveTime, Utc};
use sqlx::{PgConnection, PgPool};

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Scheduled {
    pub id: i64,
    pub league_id: i64,
    pub night_date: NaiveDate,
    pub local_time: NaiveTime,
    pub starts_at: DateTime<Utc>,
    pub place: String,
    pub tables: i32,
    pub remind_hours: i32,
    pub reminded_at: Option<DateTime<Utc>>,
    pub night_id: Option<i64>,
    pub cancelled_at: Option<DateTime<Utc>>,
}

const COLUMNS: &str = "id, league_id, night_date, local_time, starts_at, place, tables, remind_hours, \
     reminded_at, night_id, cancelled_at";

/// What a new scheduled night holds.
pub struct NewScheduled<'a> {
    pub league_id: i64,
    pub night_date: NaiveDate,
    pub local_time: NaiveTime,
    pub starts_at: DateTime<Utc>,
    pub place: &'a str,
    pub tables: i32,
    pub remind_hours: i32,
    pub created_by: Option<i64>,
}

pub async fn create(conn: &mut PgConnection, n: &NewScheduled<'_>) -> sqlx::Result<Scheduled> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "INSERT INTO scheduled_nights (league_id, night_date, local_time, starts_at, place, tables, \
         remind_hours, created_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING {COLUMNS}"
    )))
    .bind(n.league_id)
    .bind(n.night_date)
    .bind(n.local_time)
    .bind(n.starts_at)
    .bind(n.place)
    .bind(n.tables)
    .bind(n.remind_hours)
    .bind(n.created_by)
    .fetch_one(conn)
    .await
}

pub async fn get(pool: &PgPool, id: i64) -> sqlx::Result<Option<Scheduled>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM scheduled_nights WHERE id = $1"
    )))
    .bind(id)
    .fetch_optional(pool)
    .await
}

/// As `get`, locked for a change in `conn`'s transaction.
pub async fn lock(conn: &mut PgConnection, id: i64) -> sqlx::Result<Option<Scheduled>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM scheduled_nights WHERE id = $1 FOR NO KEY UPDATE"
    )))
    .bind(id)
    .fetch_optional(conn)
    .await
}

/// The league's scheduled nights not cancelled, from `since` on (by start), at most `limit`.
pub async fn of_league(
    pool: &PgPool,
    league_id: i64,
    since: DateTime<Utc>,
    limit: i64,
) -> sqlx::Result<Vec<Scheduled>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM scheduled_nights WHERE league_id = $1 AND cancelled_at IS NULL \
         AND starts_at >= $2 ORDER BY starts_at, id LIMIT $3"
    )))
    .bind(league_id)
    .bind(since)
    .bind(limit)
    .fetch_all(pool)
    .await
}

/// Marks a scheduled night cancelled; whether it was live (not started, not cancelled).
pub async fn cancel(conn: &mut PgConnection, id: i64) -> sqlx::Result<bool> {
    Ok(sqlx::query(
        "UPDATE scheduled_nights SET cancelled_at = now() \
         WHERE id = $1 AND cancelled_at IS NULL AND night_id IS NULL",
    )
    .bind(id)
    .execute(conn)
    .await?
    .rows_affected()
        == 1)
}

/// Ties the scheduled night to the league's night that check-in made.
pub async fn started(conn: &mut PgConnection, id: i64, night_id: i64) -> sqlx::Result<()> {
    sqlx::query("UPDATE scheduled_nights SET night_id = $2 WHERE id = $1")
        .bind(id)
        .bind(night_id)
        .execute(conn)
        .await?;
    Ok(())
}

/// A member's reply, with what the list needs.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Reply {
    pub user_id: i64,
    pub display_name: String,
    pub email: String,
    pub answer: String,
    pub coming_since: Option<DateTime<Utc>>,
    /// The club's player linked to the member, if any.
    pub player_id: Option<i64>,
    pub player: Option<String>,
}

/// Every reply to a scheduled night: coming first in the order they said it, then maybe, then
/// not coming, each by name.
pub async fn replies(conn: &mut PgConnection, scheduled_id: i64) -> sqlx::Result<Vec<Reply>> {
    sqlx::query_as(
        "SELECT r.user_id, u.display_name, u.email, r.answer, r.coming_since, p.id AS player_id, \
         p.name AS player \
         FROM night_replies r JOIN users u ON u.id = r.user_id \
         JOIN scheduled_nights s ON s.id = r.scheduled_id JOIN leagues l ON l.id = s.league_id \
         LEFT JOIN players p ON p.club_id = l.club_id AND p.user_id = r.user_id \
         WHERE r.scheduled_id = $1 \
         ORDER BY CASE r.answer WHEN 'coming' THEN 0 WHEN 'maybe' THEN 1 ELSE 2 END, \
                  r.coming_since, lower(u.display_name), u.id",
    )
    .bind(scheduled_id)
    .fetch_all(conn)
    .await
}

/// Records a member's answer; `coming_since` is kept while they stay coming, so changing nothing
/// keeps their place on the waiting list.
pub async fn reply(
    conn: &mut PgConnection,
    scheduled_id: i64,
    user_id: i64,
    answer: &str,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO night_replies (scheduled_id, user_id, answer, coming_since) \
         VALUES ($1, $2, $3, CASE WHEN $3 = 'coming' THEN clock_timestamp() END) \
         ON CONFLICT (scheduled_id, user_id) DO UPDATE SET answer = EXCLUDED.answer, replied_at = now(), \
         coming_since = CASE WHEN EXCLUDED.answer <> 'coming' THEN NULL \
                             WHEN night_replies.answer = 'coming' THEN night_replies.coming_since \
                             ELSE clock_timestamp() END",
    )
    .bind(scheduled_id)
    .bind(user_id)
    .bind(answer)
    .execute(conn)
    .await?;
    Ok(())
}

/// A member of a league's club who takes its mail.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Reader {
    pub user_id: i64,
    pub email: String,
    pub display_name: String,
}

/// The club's members who have not stopped the league's mail.
pub async fn readers(conn: &mut PgConnection, league_id: i64) -> sqlx::Result<Vec<Reader>> {
    sqlx::query_as(
        "SELECT u.id AS user_id, u.email, u.display_name FROM leagues l \
         JOIN memberships m ON m.club_id = l.club_id JOIN users u ON u.id = m.user_id \
         WHERE l.id = $1 \
           AND NOT EXISTS (SELECT 1 FROM mail_unsubscribes x WHERE x.user_id = u.id AND x.league_id = l.id) \
         ORDER BY u.id",
    )
    .bind(league_id)
    .fetch_all(conn)
    .await
}

/// Takes one scheduled night whose reminder is due (marking it reminded), if any. A night
/// scheduled inside its reminder window has none: the mail asking for replies was its reminder.
pub async fn take_due_reminder(conn: &mut PgConnection) -> sqlx::Result<Option<Scheduled>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "UPDATE scheduled_nights SET reminded_at = now() WHERE id = ( \
             SELECT id FROM scheduled_nights \
             WHERE reminded_at IS NULL AND night_id IS NULL AND cancelled_at IS NULL \
               AND remind_hours > 0 AND starts_at > now() \
               AND starts_at - make_interval(hours => remind_hours) <= now() \
               AND created_at < starts_at - make_interval(hours => remind_hours) \
             ORDER BY starts_at LIMIT 1 FOR UPDATE SKIP LOCKED) \
         RETURNING {COLUMNS}"
    )))
    .fetch_optional(conn)
    .await
}

/// A member's replies to nights ahead: (league, date, place, answer, replied at), newest first.
pub async fn replies_of(
    pool: &PgPool,
    user_id: i64,
) -> sqlx::Result<Vec<(String, NaiveDate, String, String, DateTime<Utc>)>> {
    sqlx::query_as(
        "SELECT l.name, s.night_date, s.place, r.answer, r.replied_at FROM night_replies r \
         JOIN scheduled_nights s ON s.id = r.scheduled_id JOIN leagues l ON l.id = s.league_id \
         WHERE r.user_id = $1 ORDER BY s.starts_at DESC",
    )
    .bind(user_id)
    .fetch_all(pool)
    .await
}

/// Whether `user_id` is a member of the club of `league_id`.
pub async fn is_member(pool: &PgPool, league_id: i64, user_id: i64) -> sqlx::Result<bool> {
    sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM leagues l JOIN memberships m ON m.club_id = l.club_id \
         WHERE l.id = $1 AND m.user_id = $2)",
    )
    .bind(league_id)
    .bind(user_id)
    .fetch_one(pool)
    .await
}
