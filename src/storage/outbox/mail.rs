//! The mail outbox and password resets.

use chrono::{DateTime, Utc};
use sqlx::{PgConnection, PgPool};

/// A message to send, as the outbox keeps it.
#[derive(Debug, Clone)]
pub struct NewMail {
    pub kind: &'static str,
    pub club_id: Option<i64>,
    pub to_address: String,
    pub to_name: Option<String>,
    pub subject: String,
    pub text_body: String,
    pub html_body: String,
    /// The one-click unsubscribe URL of a message sent to many.
    pub unsubscribe: Option<String>,
    /// The account whose action (a proposal, a dispute, a claim) made the service write it to
    /// someone else: counted against that account's day and the members' half of the club's.
    pub caused_by: Option<i64>,
}

/// A message leased for sending.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct QueuedMail {
    pub id: i64,
    pub kind: String,
    pub club_id: Option<i64>,
    pub to_address: String,
    pub to_name: Option<String>,
    pub subject: String,
    pub text_body: String,
    pub html_body: String,
    pub unsubscribe: Option<String>,
    pub attempts: i32,
    pub lease_token: uuid::Uuid,
    pub created_at: DateTime<Utc>,
}

/// A message as an organizer sees it in the club's mail log.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct MailLine {
    pub id: i64,
    pub kind: String,
    pub to_address: String,
    pub subject: String,
    pub status: String,
    pub attempts: i32,
    pub last_error: Option<String>,
    pub retry_at: DateTime<Utc>,
    pub sent_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

/// Puts a message in the outbox (in the caller's transaction, with what it is about).
pub async fn enqueue(conn: &mut PgConnection, m: &NewMail) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "INSERT INTO mail_outbox (kind, club_id, to_address, to_name, subject, text_body, html_body, unsubscribe, caused_by) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id",
    )
    .bind(m.kind)
    .bind(m.club_id)
    .bind(&m.to_address)
    .bind(&m.to_name)
    .bind(&m.subject)
    .bind(&m.text_body)
    .bind(&m.html_body)
    .bind(&m.unsubscribe)
    .bind(m.caused_by)
    .fetch_one(conn)
    .await
}

/// Whether any message is due now.
pub async fn any_due(pool: &PgPool) -> sqlx::Result<bool> {
    sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM mail_outbox WHERE status = 'pending' AND retry_at <= now() \
         AND (leased_until IS NULL OR leased_until < now()))",
    )
    .fetch_one(pool)
    .await
}

/// Leases up to `n` due messages for `lease_secs` (another instance skips them meanwhile).
pub async fn lease_due(pool: &PgPool, n: i64, lease_secs: i64) -> sqlx::Result<Vec<QueuedMail>> {
    sqlx::query_as(
        "WITH due AS ( \
             SELECT id FROM mail_outbox \
             WHERE status = 'pending' AND retry_at <= now() \
               AND (leased_until IS NULL OR leased_until < now()) \
             ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED) \
         UPDATE mail_outbox m SET leased_until = now() + make_interval(secs => $2), \
                lease_token = gen_random_uuid() \
         FROM due WHERE m.id = due.id \
         RETURNING m.id, m.kind, m.club_id, m.to_address, m.to_name, m.subject, m.text_body, m.html_body, \
                   m.unsubscribe, m.attempts, m.lease_token, m.created_at",
    )
    .bind(n)
    .bind(lease_secs as f64)
    .fetch_all(pool)
    .await
}

/// Messages the club has sent in the last 24 hours.
pub async fn sent_today(pool: &PgPool, club_id: i64) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "SELECT count(*) FROM mail_outbox WHERE club_id = $1 AND status = 'sent' \
         AND sent_at > now() - interval '1 day'",
    )
    .bind(club_id)
    .fetch_one(pool)
    .await
}

/// Holds a leased message back for an hour, saying why (not a failed try).
pub async fn hold(pool: &PgPool, id: i64, lease: uuid::Uuid, why: &str) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE mail_outbox SET retry_at = now() + interval '1 hour', last_error = $3, \
         leased_until = NULL WHERE id = $1 AND lease_token = $2",
    )
    .bind(id)
    .bind(lease)
    .bind(why)
    .execute(pool)
    .await?;
    Ok(())
}

/// The message was accepted by the SMTP server (or written to its file).
pub async fn mark_sent(pool: &PgPool, id: i64, lease: uuid::Uuid) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE mail_outbox SET status = 'sent', sent_at = now(), attempts = attempts + 1, \
         leased_until = NULL, last_error = NULL WHERE id = $1 AND lease_token = $2",
    )
    .bind(id)
    .bind(lease)
    .execute(pool)
    .await?;
    Ok(())
}

/// Sending failed: tried again at `retry_at`, or given up (`failed`) when `retry_at` is `None`.
pub async fn mark_failed(
    pool: &PgPool,
    id: i64,
    lease: uuid::Uuid,
    error: &str,
    retry_at: Option<DateTime<Utc>>,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE mail_outbox SET attempts = attempts + 1, last_error = $3, leased_until = NULL, \
         status = CASE WHEN $4::timestamptz IS NULL THEN 'failed' ELSE 'pending' END, \
         retry_at = COALESCE($4, retry_at) WHERE id = $1 AND lease_token = $2",
    )
    .bind(id)
    .bind(lease)
    .bind(error)
    .bind(retry_at)
    .execute(pool)
    .await?;
    Ok(())
}

/// Messages not sent: (pending, failed).
pub async fn unsent_counts(pool: &PgPool) -> sqlx::Result<(i64, i64)> {
    sqlx::query_as(
        "SELECT count(*) FILTER (WHERE status = 'pending'), count(*) FILTER (WHERE status = 'failed') \
         FROM mail_outbox WHERE status <> 'sent'",
    )
    .fetch_one(pool)
    .await
}

/// The club's latest messages, newest first.
pub async fn club_log(pool: &PgPool, club_id: i64, limit: i64) -> sqlx::Result<Vec<MailLine>> {
    sqlx::query_as(
        "SELECT id, kind, to_address, subject, status, attempts, last_error, retry_at, sent_at, created_at \
         FROM mail_outbox WHERE club_id = $1 ORDER BY id DESC LIMIT $2",
    )
    .bind(club_id)
    .bind(limit)
    .fetch_all(pool)
    .await
}

/// Keeps a password reset token's hash, valid until `expires_at`.
pub async fn create_reset(
    conn: &mut PgConnection,
    token_hash: &str,
    user_id: i64,
    expires_at: DateTime<Utc>,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO password_resets (token_hash, user_id, expires_at) VALUES ($1, $2, $3)",
    )
    .bind(token_hash)
    .bind(user_id)
    .bind(expires_at)
    .execute(conn)
    .await?;
    Ok(())
}

/// The account a reset token opens, if it is unused and unexpired.
pub async fn reset_user(pool: &PgPool, token_hash: &str) -> sqlx::Result<Option<(i64, String)>> {
    sqlx::query_as(
        "SELECT u.id, u.email FROM password_resets r JOIN users u ON u.id = r.user_id \
         WHERE r.token_hash = $1 AND r.used_at IS NULL AND r.expires_at > now()",
    )
    .bind(token_hash)
    .fetch_optional(pool)
    .await
}

/// Uses a reset token: sets the account's password, uses up every reset of the account and ends
/// its sessions but `keep` (the session of whoever reset it, if theirs). `None` when the token is
/// used, expired or unknown.
pub async fn use_reset(
    tx: &mut sqlx::PgConnection,
    token_hash: &str,
    password_hash: &str,
    keep: Option<&str>,
) -> sqlx::Result<Option<i64>> {
    let user: Option<i64> = sqlx::query_scalar(
        "UPDATE password_resets SET used_at = now() \
         WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING user_id",
    )
    .bind(token_hash)
    .fetch_optional(&mut *tx)
    .await?;
    let Some(user) = user else {
        return Ok(None);
    };
    sqlx::query(
        "UPDATE password_resets SET used_at = now() WHERE user_id = $1 AND used_at IS NULL",
    )
    .bind(user)
    .execute(&mut *tx)
    .await?;
    sqlx::query("UPDATE users SET password_hash = $2 WHERE id = $1")
        .bind(user)
        .bind(password_hash)
        .execute(&mut *tx)
        .await?;
    sqlx::query("DELETE FROM sessions WHERE user_id = $1 AND token_hash IS DISTINCT FROM $2")
        .bind(user)
        .bind(keep)
        .execute(&mut *tx)
        .await?;
    Ok(Some(user))
}

/// Writes down a password reset asked for `email`.
pub async fn ask_reset(pool: &PgPool, email: &str) -> sqlx::Result<()> {
    sqlx::query("INSERT INTO reset_requests (email) VALUES ($1)")
        .bind(email)
        .execute(pool)
        .await?;
    Ok(())
}

/// Takes up to `n` reset requests not handled yet, in `conn`'s transaction (locked: another
/// worker skips them): (id, email).
pub async fn take_reset_requests(
    conn: &mut PgConnection,
    n: i64,
) -> sqlx::Result<Vec<(i64, String)>> {
    sqlx::query_as(
        "UPDATE reset_requests r SET done_at = now() FROM ( \
             SELECT id FROM reset_requests WHERE done_at IS NULL ORDER BY id LIMIT $1 \
             FOR UPDATE SKIP LOCKED) due \
         WHERE r.id = due.id RETURNING r.id, r.email",
    )
    .bind(n)
    .fetch_all(conn)
    .await
}

/// Takes the next closed night whose players' mail is not written yet, in `conn`'s transaction
/// (locked: another worker skips it): (night, league).
pub async fn take_night_mail(conn: &mut PgConnection) -> sqlx::Result<Option<(i64, i64)>> {
    sqlx::query_as(
        "UPDATE night_mail m SET done_at = now() FROM ( \
             SELECT night_id FROM night_mail WHERE done_at IS NULL ORDER BY asked_at LIMIT 1 \
             FOR UPDATE SKIP LOCKED) due, nights n \
         WHERE m.night_id = due.night_id AND n.id = m.night_id RETURNING n.id, n.league_id",
    )
    .fetch_optional(conn)
    .await
}

/// A player of a night who has an account and still takes the league's mail.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct NightReader {
    pub player_id: i64,
    pub player: String,
    pub user_id: i64,
    pub email: String,
    pub display_name: String,
}

/// The players of a night's games (voided games aside) who have an account and have not
/// stopped the league's mail.
pub async fn night_readers(
    conn: &mut PgConnection,
    night_id: i64,
    league_id: i64,
) -> sqlx::Result<Vec<NightReader>> {
    sqlx::query_as(
        "SELECT DISTINCT p.id AS player_id, p.name AS player, u.id AS user_id, u.email, u.display_name \
         FROM night_tables t JOIN games g ON g.table_id = t.id AND g.status <> 'voided' \
         JOIN game_scores s ON s.game_id = g.id JOIN players p ON p.id = s.player_id \
         JOIN users u ON u.id = p.user_id \
         WHERE t.night_id = $1 \
           AND NOT EXISTS (SELECT 1 FROM mail_unsubscribes x WHERE x.user_id = u.id AND x.league_id = $2) \
         ORDER BY p.id",
    )
    .bind(night_id)
    .bind(league_id)
    .fetch_all(conn)
    .await
}

/// Stops a league's mail for a user (at once; again is no change).
pub async fn unsubscribe(pool: &PgPool, user_id: i64, league_id: i64) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO mail_unsubscribes (user_id, league_id) SELECT $1, $2 \
         WHERE EXISTS (SELECT 1 FROM users WHERE id = $1) AND EXISTS (SELECT 1 FROM leagues WHERE id = $2) \
         ON CONFLICT DO NOTHING",
    )
    .bind(user_id)
    .bind(league_id)
    .execute(pool)
    .await?;
    Ok(())
}

/// A sign-up waiting for its mail.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct SignupRequest {
    pub email: String,
    pub display_name: String,
}

/// Writes down a sign-up asked for `email` (no password: whoever opens the mailed link
/// chooses it).
pub async fn ask_signup(pool: &PgPool, email: &str, display_name: &str) -> sqlx::Result<()> {
    sqlx::query("INSERT INTO signup_requests (email, display_name) VALUES ($1, $2)")
        .bind(email)
        .bind(display_name)
        .execute(pool)
        .await?;
    Ok(())
}

/// Takes (deletes) up to `n` sign-ups waiting for their mail, in `conn`'s transaction (locked:
/// another worker skips them); day-old links go too.
pub async fn take_signup_requests(
    conn: &mut PgConnection,
    n: i64,
) -> sqlx::Result<Vec<SignupRequest>> {
    sqlx::query("DELETE FROM signups WHERE expires_at < now() - interval '1 day'")
        .execute(&mut *conn)
        .await?;
    sqlx::query_as(
        "DELETE FROM signup_requests r USING ( \
             SELECT id FROM signup_requests ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED) due \
         WHERE r.id = due.id RETURNING r.email, r.display_name",
    )
    .bind(n)
    .fetch_all(conn)
    .await
}

/// Keeps a sign-up's link (its keyed hash) until it expires.
pub async fn create_signup(
    conn: &mut PgConnection,
    token_hash: &str,
    r: &SignupRequest,
    expires_at: DateTime<Utc>,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO signups (token_hash, email, display_name, expires_at) \
         VALUES ($1, $2, $3, $4)",
    )
    .bind(token_hash)
    .bind(&r.email)
    .bind(&r.display_name)
    .bind(expires_at)
    .execute(conn)
    .await?;
    Ok(())
}

/// The sign-up a link opens while it works: (email, display name).
pub async fn signup_of(pool: &PgPool, token_hash: &str) -> sqlx::Result<Option<(String, String)>> {
    sqlx::query_as(
        "SELECT email, display_name FROM signups WHERE token_hash = $1 AND expires_at > now()",
    )
    .bind(token_hash)
    .fetch_optional(pool)
    .await
}

/// Uses up a sign-up's link (in `conn`'s transaction): what it holds, if it still works.
pub async fn use_signup(
    conn: &mut PgConnection,
    token_hash: &str,
) -> sqlx::Result<Option<SignupRequest>> {
    sqlx::query_as(
        "DELETE FROM signups WHERE token_hash = $1 AND expires_at > now() \
         RETURNING email, display_name",
    )
    .bind(token_hash)
    .fetch_optional(conn)
    .await
}
