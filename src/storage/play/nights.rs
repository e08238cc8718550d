//! League nights, check-ins and tables.

use chrono::NaiveDate;
use sqlx::PgPool;

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Night {
    pub id: i64,
    pub league_id: i64,
    pub number: i32,
    pub night_date: NaiveDate,
    pub status: String,
    pub proposal: Option<serde_json::Value>,
}

const COLUMNS: &str = "id, league_id, number, night_date, status, proposal";

/// Creates the league's next night (numbered after the last). The league's row is locked
/// while the number is taken, so nights created at once get numbers one after the other.
pub async fn create(pool: &PgPool, league_id: i64, date: NaiveDate) -> sqlx::Result<Night> {
    let mut tx = pool.begin().await?;
    let night = create_in(&mut tx, league_id, date).await?;
    tx.commit().await?;
    Ok(night)
}

/// As `create`, in `tx`'s transaction (the league's row stays locked until it ends).
pub async fn create_in(
    tx: &mut sqlx::PgConnection,
    league_id: i64,
    date: NaiveDate,
) -> sqlx::Result<Night> {
    sqlx::query("SELECT id FROM leagues WHERE id = $1 FOR NO KEY UPDATE")
        .bind(league_id)
        .execute(&mut *tx)
        .await?;
    let night = sqlx::query_as::<_, Night>(sqlx::AssertSqlSafe(format!(
        "INSERT INTO nights (league_id, number, night_date) \
         VALUES ($1, (SELECT coalesce(max(number), 0) + 1 FROM nights WHERE league_id = $1), $2) RETURNING {COLUMNS}"
    )))
    .bind(league_id)
    .bind(date)
    .fetch_one(&mut *tx)
    .await?;
    Ok(night)
}

pub async fn get(pool: &PgPool, id: i64) -> sqlx::Result<Option<Night>> {
    sqlx::query_as::<_, Night>(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM nights WHERE id = $1"
    )))
    .bind(id)
    .fetch_optional(pool)
    .await
}

pub async fn list(pool: &PgPool, league_id: i64) -> sqlx::Result<Vec<Night>> {
    sqlx::query_as::<_, Night>(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM nights WHERE league_id = $1 ORDER BY number"
    )))
    .bind(league_id)
    .fetch_all(pool)
    .await
}

/// Closes a night, announcing it (`night.closed`) unless it was closed already.
pub async fn close(pool: &PgPool, league_id: i64, id: i64) -> sqlx::Result<()> {
    let mut tx = pool.begin().await?;
    // The league's lock orders this event among the league's others.
    sqlx::query("SELECT 1 FROM leagues WHERE id = $1 FOR NO KEY UPDATE")
        .bind(league_id)
        .execute(&mut *tx)
        .await?;
    let closed: Option<(i32, NaiveDate)> = sqlx::query_as(
        "UPDATE nights SET status = 'closed' WHERE id = $1 AND status <> 'closed' RETURNING number, night_date",
    )
    .bind(id)
    .fetch_optional(&mut *tx)
    .await?;
    if let Some((number, date)) = closed {
        let data = serde_json::json!({"night": id, "number": number, "date": date});
        crate::storage::seasons::events::emit(&mut tx, league_id, &[("night.closed", data)])
            .await?;
        // Its players' mail, written by the mail worker (again after a reopened night closes).
        sqlx::query(
            "INSERT INTO night_mail (night_id) VALUES ($1) \
             ON CONFLICT (night_id) DO UPDATE SET asked_at = now(), done_at = NULL",
        )
        .bind(id)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await
}

/// Reopens a night as `status` (seated or open), announcing it (`night.reopened`) when it was
/// closed: the scoring screens of its tables open again by themselves.
pub async fn reopen(pool: &PgPool, league_id: i64, id: i64, status: &str) -> sqlx::Result<()> {
    let mut tx = pool.begin().await?;
    sqlx::query("SELECT 1 FROM leagues WHERE id = $1 FOR NO KEY UPDATE")
        .bind(league_id)
        .execute(&mut *tx)
        .await?;
    let was: Option<(String, i32, NaiveDate)> = sqlx::query_as(
        "SELECT status, number, night_date FROM nights WHERE id = $1 FOR NO KEY UPDATE",
    )
    .bind(id)
    .fetch_optional(&mut *tx)
    .await?;
    sqlx::query("UPDATE nights SET status = $2 WHERE id = $1")
        .bind(id)
        .bind(status)
        .execute(&mut *tx)
        .await?;
    if let Some((was, number, date)) = was
        && was == "closed"
    {
        let data = serde_json::json!({"night": id, "number": number, "date": date});
        crate::storage::seasons::events::emit(&mut tx, league_id, &[("night.reopened", data)])
            .await?;
    }
    tx.commit().await
}

pub async fn set_proposal(
    pool: &PgPool,
    id: i64,
    proposal: &serde_json::Value,
) -> sqlx::Result<()> {
    sqlx::query("UPDATE nights SET proposal = $2 WHERE id = $1")
        .bind(id)
        .bind(proposal)
        .execute(pool)
        .await?;
    Ok(())
}

/// Checks a player in; false when already checked in.
pub async fn check_in(pool: &PgPool, night_id: i64, player_id: i64) -> sqlx::Result<bool> {
    let r = sqlx::query(
        "INSERT INTO checkins (night_id, player_id) VALUES ($1, $2) ON CONFLICT DO NOTHING",
    )
    .bind(night_id)
    .bind(player_id)
    .execute(pool)
    .await?;
    Ok(r.rows_affected() > 0)
}

/// Checks in those of `players` who are the club's active players, in `conn`'s transaction: how
/// many were checked in.
pub async fn check_in_many(
    conn: &mut sqlx::PgConnection,
    night_id: i64,
    club_id: i64,
    players: &[i64],
) -> sqlx::Result<u64> {
    Ok(sqlx::query(
        "INSERT INTO checkins (night_id, player_id) SELECT $1, p.id FROM players p \
         WHERE p.club_id = $2 AND p.active AND p.id = ANY($3) ON CONFLICT DO NOTHING",
    )
    .bind(night_id)
    .bind(club_id)
    .bind(players)
    .execute(conn)
    .await?
    .rows_affected())
}

pub async fn check_out(pool: &PgPool, night_id: i64, player_id: i64) -> sqlx::Result<bool> {
    let r = sqlx::query("DELETE FROM checkins WHERE night_id = $1 AND player_id = $2")
        .bind(night_id)
        .bind(player_id)
        .execute(pool)
        .await?;
    Ok(r.rows_affected() > 0)
}

/// Checked-in players as (id, name), by id.
pub async fn checkins(pool: &PgPool, night_id: i64) -> sqlx::Result<Vec<(i64, String)>> {
    sqlx::query_as("SELECT p.id, p.name FROM checkins c JOIN players p ON p.id = c.player_id WHERE c.night_id = $1 ORDER BY p.id")
        .bind(night_id)
        .fetch_all(pool)
        .await
}

/// A table with its players in seat order.
#[derive(Debug, Clone)]
pub struct Table {
    pub id: i64,
    pub number: i32,
    pub players: Vec<(i64, String)>,
}

pub async fn tables(pool: &PgPool, night_id: i64) -> sqlx::Result<Vec<Table>> {
    let rows: Vec<(i64, i32, i64, String)> = sqlx::query_as(
        "SELECT t.id, t.number, p.id, p.name FROM night_tables t JOIN table_seats s ON s.table_id = t.id \
         JOIN players p ON p.id = s.player_id WHERE t.night_id = $1 ORDER BY t.number, s.seat",
    )
    .bind(night_id)
    .fetch_all(pool)
    .await?;
    let mut out: Vec<Table> = Vec::new();
    for (id, number, pid, name) in rows {
        match out.last_mut() {
            Some(t) if t.id == id => t.players.push((pid, name)),
            _ => out.push(Table {
                id,
                number,
                players: vec![(pid, name)],
            }),
        }
    }
    Ok(out)
}

/// Replaces the night's tables and marks it seated, in one transaction (the night's row locked,
/// so two lockings at once apply one after the other). `false` (and nothing changed) when games
/// are recorded at the night's tables.
pub async fn lock_tables(pool: &PgPool, night_id: i64, tables: &[Vec<i64>]) -> sqlx::Result<bool> {
    let mut tx = pool.begin().await?;
    sqlx::query("SELECT id FROM nights WHERE id = $1 FOR NO KEY UPDATE")
        .bind(night_id)
        .execute(&mut *tx)
        .await?;
    let deleted = sqlx::query("DELETE FROM night_tables WHERE night_id = $1")
        .bind(night_id)
        .execute(&mut *tx)
        .await;
    match deleted {
        // games.table_id restricts deletes: a game arrived at one of the tables.
        Err(sqlx::Error::Database(d)) if d.is_foreign_key_violation() => return Ok(false),
        Err(e) => return Err(e),
        Ok(_) => {}
    }
    for (i, players) in tables.iter().enumerate() {
        let table_id: i64 = sqlx::query_scalar(
            "INSERT INTO night_tables (night_id, number) VALUES ($1, $2) RETURNING id",
        )
        .bind(night_id)
        .bind(i as i32 + 1)
        .fetch_one(&mut *tx)
        .await?;
        for (seat, player) in players.iter().enumerate() {
            sqlx::query("INSERT INTO table_seats (table_id, seat, player_id) VALUES ($1, $2, $3)")
                .bind(table_id)
                .bind(seat as i32)
                .bind(player)
                .execute(&mut *tx)
                .await?;
        }
    }
    sqlx::query("UPDATE nights SET status = 'seated' WHERE id = $1")
        .bind(night_id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(true)
}

/// Tables of the league's earlier nights, newest night first: (night number, players in seat order).
pub async fn earlier_tables(
    pool: &PgPool,
    league_id: i64,
    before: i32,
) -> sqlx::Result<Vec<(i32, Vec<i64>)>> {
    let rows: Vec<(i32, i64, i64)> = sqlx::query_as(
        "SELECT n.number, t.id, s.player_id FROM nights n JOIN night_tables t ON t.night_id = n.id \
         JOIN table_seats s ON s.table_id = t.id WHERE n.league_id = $1 AND n.number < $2 \
         ORDER BY n.number DESC, t.id, s.seat",
    )
    .bind(league_id)
    .bind(before)
    .fetch_all(pool)
    .await?;
    let mut out: Vec<(i32, i64, Vec<i64>)> = Vec::new();
    for (number, table, player) in rows {
        match out.last_mut() {
            Some((_, t, players)) if *t == table => players.push(player),
            _ => out.push((number, table, vec![player])),
        }
    }
    Ok(out.into_iter().map(|(n, _, p)| (n, p)).collect())
}

/// How adding a late arrival to a table went.
pub enum AddSeat {
    Done,
    /// The table seats 4 already.
    Full,
    /// The table has a game: its winds would change under it.
    Started,
}

/// Seats a player at the next seat of a table that has fewer than 4 and no game (the night row
/// locked, so two organizers cannot fill one seat twice).
pub async fn add_seat(
    pool: &PgPool,
    night_id: i64,
    table_id: i64,
    player: i64,
) -> sqlx::Result<AddSeat> {
    let mut tx = pool.begin().await?;
    sqlx::query("SELECT id FROM nights WHERE id = $1 FOR NO KEY UPDATE")
        .bind(night_id)
        .execute(&mut *tx)
        .await?;
    let (seats, games): (i64, i64) = sqlx::query_as(
        "SELECT (SELECT count(*) FROM table_seats WHERE table_id = $1), \
                (SELECT count(*) FROM games WHERE table_id = $1)",
    )
    .bind(table_id)
    .fetch_one(&mut *tx)
    .await?;
    if games > 0 {
        return Ok(AddSeat::Started);
    }
    if seats >= 4 {
        return Ok(AddSeat::Full);
    }
    sqlx::query(
        "INSERT INTO table_seats (table_id, seat, player_id) \
         SELECT $1, coalesce(max(seat), -1) + 1, $2 FROM table_seats WHERE table_id = $1",
    )
    .bind(table_id)
    .bind(player)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(AddSeat::Done)
}

/// The night's tables that have at least one game.
pub async fn tables_with_games(pool: &PgPool, night_id: i64) -> sqlx::Result<Vec<i64>> {
    sqlx::query_scalar(
        "SELECT DISTINCT t.id FROM night_tables t JOIN games g ON g.table_id = t.id WHERE t.night_id = $1",
    )
    .bind(night_id)
    .fetch_all(pool)
    .await
}

/// Replaces the tables `drop` (none with a game) by `tables`, which take the dropped numbers
/// first, then numbers after the highest; the numbers given, or `None` when a game arrived at
/// one of the dropped tables meanwhile.
pub async fn reseat(
    pool: &PgPool,
    night_id: i64,
    drop: &[i64],
    tables: &[Vec<i64>],
) -> sqlx::Result<Option<Vec<i32>>> {
    let mut tx = pool.begin().await?;
    sqlx::query("SELECT id FROM nights WHERE id = $1 FOR NO KEY UPDATE")
        .bind(night_id)
        .execute(&mut *tx)
        .await?;
    let mut free: Vec<i32> = sqlx::query_scalar(
        "SELECT number FROM night_tables WHERE night_id = $1 AND id = ANY($2) ORDER BY number",
    )
    .bind(night_id)
    .bind(drop)
    .fetch_all(&mut *tx)
    .await?;
    let deleted = sqlx::query("DELETE FROM night_tables WHERE night_id = $1 AND id = ANY($2)")
        .bind(night_id)
        .bind(drop)
        .execute(&mut *tx)
        .await;
    match deleted {
        Err(sqlx::Error::Database(d)) if d.is_foreign_key_violation() => return Ok(None),
        Err(e) => return Err(e),
        Ok(_) => {}
    }
    let mut highest: i32 =
        sqlx::query_scalar("SELECT coalesce(max(number), 0) FROM night_tables WHERE night_id = $1")
            .bind(night_id)
            .fetch_one(&mut *tx)
            .await?;
    highest = highest.max(free.iter().copied().max().unwrap_or(0));
    free.reverse();
    let mut numbers = Vec::new();
    for players in tables {
        let number = free.pop().unwrap_or_else(|| {
            highest += 1;
            highest
        });
        let table_id: i64 = sqlx::query_scalar(
            "INSERT INTO night_tables (night_id, number) VALUES ($1, $2) RETURNING id",
        )
        .bind(night_id)
        .bind(number)
        .fetch_one(&mut *tx)
        .await?;
        for (seat, player) in players.iter().enumerate() {
            sqlx::query("INSERT INTO table_seats (table_id, seat, player_id) VALUES ($1, $2, $3)")
                .bind(table_id)
                .bind(seat as i32)
                .bind(player)
                .execute(&mut *tx)
                .await?;
        }
        numbers.push(number);
    }
    tx.commit().await?;
    numbers.sort_unstable();
    Ok(Some(numbers))
}

/// The league's night before night `number`, if any.
pub async fn previous(pool: &PgPool, league_id: i64, number: i32) -> sqlx::Result<Option<i64>> {
    sqlx::query_scalar(
        "SELECT id FROM nights WHERE league_id = $1 AND number < $2 ORDER BY number DESC LIMIT 1",
    )
    .bind(league_id)
    .bind(number)
    .fetch_optional(pool)
    .await
}

/// A round's timer as stored, with the database's clock.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Timer {
    pub minutes: Option<i32>,
    pub ends_at: Option<chrono::DateTime<chrono::Utc>>,
    pub left_secs: Option<i32>,
    pub now: chrono::DateTime<chrono::Utc>,
}

pub async fn timer(pool: &PgPool, id: i64) -> sqlx::Result<Timer> {
    sqlx::query_as(
        "SELECT timer_minutes AS minutes, timer_ends_at AS ends_at, timer_left_secs AS left_secs, now() AS now \
         FROM nights WHERE id = $1",
    )
    .bind(id)
    .fetch_one(pool)
    .await
}

/// Starts (`minutes`), pauses, resumes or resets the round's timer in one statement, on the
/// database's clock. Pausing a timer that is not running, or resuming one that is not paused,
/// changes nothing.
pub async fn set_timer(
    pool: &PgPool,
    id: i64,
    action: &str,
    minutes: Option<i32>,
) -> sqlx::Result<()> {
    let sql = match action {
        "start" => {
            "UPDATE nights SET timer_minutes = $2, timer_ends_at = now() + make_interval(mins => $2), \
             timer_left_secs = NULL WHERE id = $1"
        }
        "pause" => {
            "UPDATE nights SET timer_left_secs = greatest(0, ceil(extract(epoch FROM timer_ends_at - now())))::INT, \
             timer_ends_at = NULL WHERE id = $1 AND timer_ends_at IS NOT NULL"
        }
        "resume" => {
            "UPDATE nights SET timer_ends_at = now() + make_interval(secs => timer_left_secs), timer_left_secs = NULL \
             WHERE id = $1 AND timer_left_secs IS NOT NULL"
        }
        _ => "UPDATE nights SET timer_ends_at = NULL, timer_left_secs = NULL WHERE id = $1",
    };
    sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(id)
        .bind(minutes)
        .execute(pool)
        .await?;
    Ok(())
}

/// Per table of the night: its recorded games (not voided, not redeals) and when the last
/// was entered.
pub async fn progress(
    pool: &PgPool,
    night_id: i64,
) -> sqlx::Result<Vec<(i64, i64, Option<chrono::DateTime<chrono::Utc>>)>> {
    sqlx::query_as(
        "SELECT t.id, count(g.id), max(g.created_at) FROM night_tables t \
         LEFT JOIN games g ON g.table_id = t.id AND g.status = 'recorded' AND g.outcome <> 'redeal' \
         WHERE t.night_id = $1 GROUP BY t.id",
    )
    .bind(night_id)
    .fetch_all(pool)
    .await
}
