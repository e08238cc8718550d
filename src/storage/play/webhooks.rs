//! A club's webhooks and their outbox (`webhook_deliveries`, filled by `events::emit`).

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::PgPool;
use utoipa::ToSchema;

/// A webhook as its club's organizers see it (never its secret).
#[derive(Debug, Clone, sqlx::FromRow, Serialize, ToSchema)]
pub struct WebhookInfo {
    pub id: i64,
    #[schema(example = "https://scores.example.org/mahjong")]
    pub url: String,
    pub created_at: DateTime<Utc>,
    /// Consecutive failed attempts (0 while it works).
    pub failures: i32,
    /// When the current run of failures began.
    #[schema(required = true)]
    pub failing_since: Option<DateTime<Utc>>,
    /// Set when the URL had failed for a day; nothing is sent until it is resumed (what
    /// happened meanwhile is kept and sent then).
    #[schema(required = true)]
    pub paused_at: Option<DateTime<Utc>>,
    /// Events waiting to be delivered.
    pub pending: i64,
    pub delivered: i64,
    #[schema(required = true)]
    pub last_delivered_at: Option<DateTime<Utc>>,
}

const INFO: &str = "SELECT w.id, w.url, w.created_at, w.failures, w.failing_since, w.paused_at, \
       (SELECT count(*) FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.status = 'pending') AS pending, \
       (SELECT count(*) FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.status = 'delivered') AS delivered, \
       (SELECT max(delivered_at) FROM webhook_deliveries d WHERE d.webhook_id = w.id) AS last_delivered_at \
     FROM webhooks w";

/// What registering a webhook came to.
pub enum Registered {
    Made(WebhookInfo),
    /// The club has `max` webhooks already.
    Full,
    /// The club already has one for this URL.
    Exists,
}

/// Registers a webhook unless the club has `max` already. Registrations of one club take turns
/// (on the club's row), so two at once cannot both pass the count.
pub async fn create(
    pool: &PgPool,
    club_id: i64,
    url: &str,
    secret: &str,
    max: i64,
    (by_user, by_token): (Option<i64>, Option<i64>),
) -> sqlx::Result<Registered> {
    let mut tx = pool.begin().await?;
    // NO KEY: the webhook's own reference to the club still goes through.
    sqlx::query("SELECT 1 FROM clubs WHERE id = $1 FOR NO KEY UPDATE")
        .bind(club_id)
        .execute(&mut *tx)
        .await?;
    let count: i64 = sqlx::query_scalar("SELECT count(*) FROM webhooks WHERE club_id = $1")
        .bind(club_id)
        .fetch_one(&mut *tx)
        .await?;
    if count >= max {
        return Ok(Registered::Full);
    }
    let id: Option<i64> = sqlx::query_scalar(
        "INSERT INTO webhooks (club_id, url, secret, created_by) \
         VALUES ($1, $2, $3, coalesce($4, (SELECT created_by FROM api_tokens WHERE id = $5))) \
         ON CONFLICT (club_id, url) DO NOTHING RETURNING id",
    )
    .bind(club_id)
    .bind(url)
    .bind(secret)
    .bind(by_user)
    .bind(by_token)
    .fetch_optional(&mut *tx)
    .await?;
    let Some(id) = id else {
        return Ok(Registered::Exists);
    };
    let made = get(&mut *tx, club_id, id)
        .await?
        .ok_or(sqlx::Error::RowNotFound)?;
    tx.commit().await?;
    Ok(Registered::Made(made))
}

pub async fn get(
    db: impl sqlx::PgExecutor<'_>,
    club_id: i64,
    id: i64,
) -> sqlx::Result<Option<WebhookInfo>> {
    let sql = format!("{INFO} WHERE w.club_id = $1 AND w.id = $2");
    sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(club_id)
        .bind(id)
        .fetch_optional(db)
        .await
}

/// A webhook's URL and secret, for a test delivery.
pub async fn target(
    pool: &PgPool,
    club_id: i64,
    id: i64,
) -> sqlx::Result<Option<(String, String)>> {
    sqlx::query_as("SELECT url, secret FROM webhooks WHERE club_id = $1 AND id = $2")
        .bind(club_id)
        .bind(id)
        .fetch_optional(pool)
        .await
}

pub async fn list(pool: &PgPool, club_id: i64) -> sqlx::Result<Vec<WebhookInfo>> {
    let sql = format!("{INFO} WHERE w.club_id = $1 ORDER BY w.id");
    sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(club_id)
        .fetch_all(pool)
        .await
}

/// Removes a webhook and its outbox rows; false when the club has no such webhook.
pub async fn delete(pool: &PgPool, club_id: i64, id: i64) -> sqlx::Result<bool> {
    let done = sqlx::query("DELETE FROM webhooks WHERE club_id = $1 AND id = $2")
        .bind(club_id)
        .bind(id)
        .execute(pool)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// Resumes a paused (or backing-off) webhook: its waiting events go out at once.
pub async fn resume(pool: &PgPool, club_id: i64, id: i64) -> sqlx::Result<bool> {
    let done = sqlx::query(
        "UPDATE webhooks SET paused_at = NULL, failures = 0, failing_since = NULL, retry_at = now() \
         WHERE club_id = $1 AND id = $2",
    )
    .bind(club_id)
    .bind(id)
    .execute(pool)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// One delivery in the log.
#[derive(Debug, Clone, sqlx::FromRow, Serialize, ToSchema)]
pub struct Delivery {
    pub id: i64,
    /// The event's id (the receiver's de-duplication key).
    pub event: i64,
    #[serde(rename = "type")]
    #[schema(schema_with = delivery_kind)]
    pub kind: String,
    /// pending or delivered.
    #[schema(schema_with = delivery_status)]
    pub status: String,
    pub attempts: i32,
    #[schema(required = true)]
    pub last_attempt_at: Option<DateTime<Utc>>,
    /// The receiver's HTTP status at the last attempt.
    #[schema(required = true)]
    pub last_status: Option<i32>,
    /// Why the last attempt failed, when it did.
    #[schema(required = true)]
    pub last_error: Option<String>,
    #[schema(required = true)]
    pub delivered_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

/// The webhook's latest deliveries, newest first.
pub async fn deliveries(pool: &PgPool, webhook_id: i64, limit: i64) -> sqlx::Result<Vec<Delivery>> {
    sqlx::query_as(
        "SELECT d.id, d.event_id AS event, e.kind, d.status, d.attempts, d.last_attempt_at, d.last_status, \
                d.last_error, d.delivered_at, d.created_at \
         FROM webhook_deliveries d JOIN league_events e ON e.id = d.event_id \
         WHERE d.webhook_id = $1 ORDER BY d.id DESC LIMIT $2",
    )
    .bind(webhook_id)
    .bind(limit)
    .fetch_all(pool)
    .await
}

/// Whether any delivery is due now (of a webhook neither paused, backing off nor held by a
/// worker).
pub async fn any_due(pool: &PgPool) -> sqlx::Result<bool> {
    sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id \
           WHERE d.status = 'pending' AND w.paused_at IS NULL AND w.retry_at <= now() \
             AND (w.leased_until IS NULL OR w.leased_until < now()))",
    )
    .fetch_one(pool)
    .await
}

/// A delivery leased to this worker, with what it sends.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Due {
    pub id: i64,
    pub webhook_id: i64,
    pub url: String,
    pub secret: String,
    pub event_id: i64,
    pub league_id: i64,
    pub kind: String,
    pub data: serde_json::Value,
    pub created_at: DateTime<Utc>,
}

/// Takes up to `limit` webhooks with deliveries due (neither paused, backing off, nor held by
/// another worker whose lease still runs) for `lease_secs`, under `token`. While a worker holds
/// a webhook no other takes it, so its deliveries go out one at a time, in order.
pub async fn lease_webhooks(
    pool: &PgPool,
    limit: i64,
    lease_secs: f64,
    token: uuid::Uuid,
) -> sqlx::Result<Vec<i64>> {
    sqlx::query_scalar(
        "WITH due AS (SELECT w.id FROM webhooks w \
           WHERE w.paused_at IS NULL AND w.retry_at <= now() \
             AND (w.leased_until IS NULL OR w.leased_until < now()) \
             AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.status = 'pending') \
           ORDER BY w.id LIMIT $1 FOR UPDATE SKIP LOCKED) \
         UPDATE webhooks w SET leased_until = now() + make_interval(secs => $2), lease_token = $3 \
         FROM due WHERE w.id = due.id RETURNING w.id",
    )
    .bind(limit)
    .bind(lease_secs)
    .bind(token)
    .fetch_all(pool)
    .await
}

/// The held webhook's next delivery in id order, its lease renewed for `lease_secs` first;
/// `None` when nothing is due, the webhook is backing off or paused, or the lease is no longer
/// this worker's (it ran out and another worker took the webhook).
pub async fn next_due(
    pool: &PgPool,
    webhook_id: i64,
    token: uuid::Uuid,
    lease_secs: f64,
) -> sqlx::Result<Option<Due>> {
    sqlx::query_as(
        "WITH held AS (UPDATE webhooks SET leased_until = now() + make_interval(secs => $3) \
           WHERE id = $1 AND lease_token = $2 AND leased_until >= now() \
             AND paused_at IS NULL AND retry_at <= now() \
           RETURNING id, url, secret) \
         SELECT d.id, d.webhook_id, held.url, held.secret, e.id AS event_id, e.league_id, e.kind, e.data, e.created_at \
         FROM held JOIN webhook_deliveries d ON d.webhook_id = held.id AND d.status = 'pending' \
         JOIN league_events e ON e.id = d.event_id \
         ORDER BY d.id LIMIT 1",
    )
    .bind(webhook_id)
    .bind(token)
    .bind(lease_secs)
    .fetch_optional(pool)
    .await
}

/// Gives a held webhook back (nothing more due, or it backs off).
pub async fn release_webhook(
    pool: &PgPool,
    webhook_id: i64,
    token: uuid::Uuid,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE webhooks SET leased_until = NULL, lease_token = NULL WHERE id = $1 AND lease_token = $2",
    )
    .bind(webhook_id)
    .bind(token)
    .execute(pool)
    .await?;
    Ok(())
}

/// The receiver took the delivery: it is done, and the webhook's failures are over.
pub async fn delivered(pool: &PgPool, d: &Due, status: i32) -> sqlx::Result<()> {
    sqlx::query(
        "WITH d AS (UPDATE webhook_deliveries SET status = 'delivered', attempts = attempts + 1, \
             last_attempt_at = now(), last_status = $2, last_error = NULL, delivered_at = now(), leased_until = NULL \
           WHERE id = $1) \
         UPDATE webhooks SET failures = 0, failing_since = NULL, retry_at = now() WHERE id = $3",
    )
    .bind(d.id)
    .bind(status)
    .bind(d.webhook_id)
    .execute(pool)
    .await?;
    Ok(())
}

/// How a failing webhook backs off and when it is paused, in seconds: the n-th failure in a
/// row waits `first × 2ⁿ⁻¹`, at most `most`; a webhook failing for `pause` is paused.
#[derive(Debug, Clone, Copy)]
pub struct Backoff {
    pub first: f64,
    pub most: f64,
    pub pause: f64,
}

/// An attempt failed: the webhook backs off, and is paused when it has been failing long
/// enough. Answers whether it is now paused.
pub async fn failed(
    pool: &PgPool,
    d: &Due,
    status: Option<i32>,
    error: &str,
    backoff: Backoff,
) -> sqlx::Result<bool> {
    sqlx::query_scalar(
        "WITH d AS (UPDATE webhook_deliveries SET attempts = attempts + 1, last_attempt_at = now(), \
             last_status = $2, last_error = $3, leased_until = NULL WHERE id = $1) \
         UPDATE webhooks SET failures = failures + 1, failing_since = coalesce(failing_since, now()), \
             retry_at = now() + make_interval(secs => least($6, $5 * power(2, least(failures, 30)))), \
             paused_at = CASE WHEN coalesce(failing_since, now()) <= now() - make_interval(secs => $7) \
                              THEN coalesce(paused_at, now()) END \
         WHERE id = $4 RETURNING paused_at IS NOT NULL",
    )
    .bind(d.id)
    .bind(status)
    .bind(error)
    .bind(d.webhook_id)
    .bind(backoff.first)
    .bind(backoff.most)
    .bind(backoff.pause)
    .fetch_one(pool)
    .await
}

/// Deliveries not yet delivered, every webhook's.
pub async fn pending_count(pool: &PgPool) -> sqlx::Result<i64> {
    sqlx::query_scalar("SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'")
        .fetch_one(pool)
        .await
}

/// A delivery's status, as its schema says it.
fn delivery_status() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    crate::storage::string_enum(&["pending", "delivered"], "delivered")
}

/// A delivery's event type, as its schema says it.
fn delivery_kind() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    crate::storage::string_enum(crate::storage::seasons::events::KINDS, "game.recorded")
}
