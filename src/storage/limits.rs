//! The limits every instance shares (migration 0037): rate allowances, failure windows and the
//! event streams each process holds per client address.

use sqlx::PgPool;

/// What a take of a rate allowance gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Took {
    pub granted: u32,
    pub remaining: u32,
    /// Microseconds until the next request's worth comes back (when fewer were granted than
    /// wanted).
    pub wait_us: i64,
}

/// Takes up to `want` requests' worth of `key`'s allowance: `burst` at once, one more every
/// `step_us` microseconds.
pub async fn take(
    pool: &PgPool,
    key: &str,
    step_us: i64,
    burst: u32,
    want: u32,
) -> sqlx::Result<Took> {
    let (granted, remaining, wait_us): (i32, i32, i64) =
        sqlx::query_as("SELECT granted, remaining, wait_us FROM take_allowance($1, $2, $3, $4)")
            .bind(key)
            .bind(step_us.max(1))
            .bind(burst.min(i32::MAX as u32) as i32)
            .bind(want.min(i32::MAX as u32) as i32)
            .fetch_one(pool)
            .await?;
    Ok(Took {
        granted: granted.max(0) as u32,
        remaining: remaining.max(0) as u32,
        wait_us,
    })
}

/// How many failures `key` has in its current window of `window_secs`, and the seconds left
/// of that window.
pub async fn failures(pool: &PgPool, key: &str, window_secs: i64) -> sqlx::Result<(u32, i64)> {
    let row: Option<(i32, f64)> = sqlx::query_as(
        "SELECT n, extract(epoch FROM since + make_interval(secs => $2) - clock_timestamp())::float8 \
         FROM failure_counts WHERE key = $1 AND since > clock_timestamp() - make_interval(secs => $2)",
    )
    .bind(key)
    .bind(window_secs as f64)
    .fetch_optional(pool)
    .await?;
    Ok(row.map_or((0, 0), |(n, left)| (n.max(0) as u32, left.ceil() as i64)))
}

/// Counts one failure of `key` (a new window when its last one ended).
pub async fn fail(pool: &PgPool, key: &str, window_secs: i64) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO failure_counts AS f (key, n, since) VALUES ($1, 1, clock_timestamp()) \
         ON CONFLICT (key) DO UPDATE SET \
           n = CASE WHEN f.since > clock_timestamp() - make_interval(secs => $2) THEN f.n + 1 ELSE 1 END, \
           since = CASE WHEN f.since > clock_timestamp() - make_interval(secs => $2) THEN f.since ELSE clock_timestamp() END",
    )
    .bind(key)
    .bind(window_secs as f64)
    .execute(pool)
    .await?;
    Ok(())
}

/// Says this process (`instance`) is alive, forgets processes not seen for `gone_secs` (and
/// their streams), and writes down the streams this one holds now (`held`: key, count), so a
/// release that never reached the database is mended here. How many processes are alive.
pub async fn heartbeat(
    pool: &PgPool,
    instance: uuid::Uuid,
    gone_secs: i64,
    held: &[(String, i32)],
) -> sqlx::Result<u32> {
    let mut tx = pool.begin().await?;
    sqlx::query(
        "INSERT INTO instances (id, seen_at) VALUES ($1, clock_timestamp()) \
         ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at",
    )
    .bind(instance)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "DELETE FROM instances WHERE seen_at < clock_timestamp() - make_interval(secs => $1)",
    )
    .bind(gone_secs as f64)
    .execute(&mut *tx)
    .await?;
    sqlx::query("DELETE FROM stream_holds h WHERE NOT EXISTS (SELECT 1 FROM instances i WHERE i.id = h.instance)")
        .execute(&mut *tx)
        .await?;
    let (keys, counts): (Vec<String>, Vec<i32>) = held.iter().cloned().unzip();
    sqlx::query(
        "INSERT INTO stream_holds (instance, key, n) SELECT $1, k, n FROM unnest($2::text[], $3::int[]) AS u (k, n) \
         ON CONFLICT (instance, key) DO UPDATE SET n = excluded.n",
    )
    .bind(instance)
    .bind(&keys)
    .bind(&counts)
    .execute(&mut *tx)
    .await?;
    sqlx::query("DELETE FROM stream_holds WHERE instance = $1 AND NOT (key = ANY($2))")
        .bind(instance)
        .bind(&keys)
        .execute(&mut *tx)
        .await?;
    let alive: i64 = sqlx::query_scalar("SELECT count(*) FROM instances")
        .fetch_one(&mut *tx)
        .await?;
    tx.commit().await?;
    // Allowances whole again and windows over hold nothing: gone.
    sqlx::query("DELETE FROM rate_limits WHERE tat < clock_timestamp() - interval '1 minute'")
        .execute(pool)
        .await?;
    sqlx::query("DELETE FROM failure_counts WHERE since < clock_timestamp() - interval '1 day'")
        .execute(pool)
        .await?;
    Ok(alive.clamp(1, i64::from(u32::MAX)) as u32)
}

/// Takes one of `key`'s `cap` stream slots for `instance`, counting the streams of every
/// process seen in the last `alive_secs`: whether it was taken.
pub async fn hold_stream(
    pool: &PgPool,
    instance: uuid::Uuid,
    key: &str,
    cap: u32,
    alive_secs: i64,
) -> sqlx::Result<bool> {
    let taken: bool = sqlx::query_scalar("SELECT taken FROM hold_stream($1, $2, $3, $4)")
        .bind(instance)
        .bind(key)
        .bind(cap.min(i32::MAX as u32) as i32)
        .bind(alive_secs.clamp(1, i32::MAX as i64) as i32)
        .fetch_one(pool)
        .await?;
    Ok(taken)
}

/// Gives back one of `key`'s stream slots held by `instance`.
pub async fn release_stream(pool: &PgPool, instance: uuid::Uuid, key: &str) -> sqlx::Result<()> {
    sqlx::query("UPDATE stream_holds SET n = n - 1 WHERE instance = $1 AND key = $2 AND n > 0")
        .bind(instance)
        .bind(key)
        .execute(pool)
        .await?;
    Ok(())
}
