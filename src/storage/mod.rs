//! Storage: every SQL statement of the service lives under this module.

pub mod backup;
pub mod cards;
pub mod embedded;
pub mod history;
pub mod hosts;
pub mod limits;
pub mod notices;
pub mod outbox;
pub mod people;
pub mod play;
pub mod seasons;

use std::time::Duration;

use anyhow::Context;
use hosts::Hosts;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{ConnectOptions, Connection, PgPool};

/// Opens a pool on the database at `url` (one host, or several as libpq reads them: the first
/// that takes a connection, or that writes with `target_session_attrs=read-write`).
pub async fn connect(url: &str) -> anyhow::Result<PgPool> {
    Ok(open(url).await?.0)
}

/// `connect`, with the URL's hosts when there is a failover to follow (`hosts::follow`).
pub async fn open(url: &str) -> anyhow::Result<(PgPool, Option<hosts::Hosts>)> {
    let hosts = hosts::parse(url)?;
    if !hosts.follows() {
        let pool = connect_with(hosts.candidates[0].clone()).await?;
        return Ok((pool, None));
    }
    let options = hosts::choose(&hosts).await?;
    let pool = connect_with(options).await?;
    Ok((pool, Some(hosts)))
}

/// How long a request waits for a connection before it is told the database is away.
pub const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(2);

/// Whether an error says the database is away rather than that a statement went wrong: no
/// connection in time, a connection lost, or the server shutting down or not taking connections.
/// Whether the database refused a write because its disk is full (53100, or the file system's
/// own words in an error PostgreSQL passed on).
pub fn is_disk_full(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Database(d) => {
            d.code().as_deref() == Some("53100") || d.message().contains("No space left on device")
        }
        _ => false,
    }
}

/// Two transactions that met and one of them was undone (a deadlock, or a serialization
/// failure): nothing of it was stored and the same request may be sent again.
pub fn is_collision(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(d) if d.code().is_some_and(|c| c == "40P01" || c == "40001"))
}

pub fn is_unavailable(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(d) => {
            // Class 08: connection exceptions; 57P01-57P03: shutdown, crash, cannot connect
            // now; 53300: too many connections; 55000 when the database takes no connections.
            d.code().is_some_and(|c| {
                c.starts_with("08") || ["57P01", "57P02", "57P03", "53300"].contains(&c.as_ref())
            }) || d.message().contains("not currently accepting connections")
        }
        _ => false,
    }
}

/// Opens a pool with the given options. Its connections carry an application name of their
/// own (`mahjong-league` and a random id): the change notices of its writes say it, so the
/// process that made them knows them for its own (see `notices`).
pub async fn connect_with(options: PgConnectOptions) -> anyhow::Result<PgPool> {
    let id: [u8; 8] = rand::random();
    let name = format!(
        "mahjong-league {}",
        id.iter().map(|b| format!("{b:02x}")).collect::<String>()
    );
    let options = options
        .application_name(&name)
        .log_statements(tracing::log::LevelFilter::Debug);
    PgPoolOptions::new()
        .max_connections(20)
        .acquire_timeout(ACQUIRE_TIMEOUT)
        .connect_with(options)
        .await
        .context("connecting to PostgreSQL")
}

/// Creates the database named in `url` when the server has no such database yet.
pub async fn ensure_database(url: &str) -> anyhow::Result<()> {
    let hosts = hosts::parse(url)?;
    let options = match hosts.candidates.as_slice() {
        [one] if !hosts.read_write => one.clone(),
        // Several hosts: the database is made where the service will write.
        _ => hosts::choose(&Hosts {
            candidates: hosts
                .candidates
                .iter()
                .map(|o| o.clone().database("postgres"))
                .collect(),
            read_write: hosts.read_write,
        })
        .await?
        .database(hosts.candidates[0].get_database().unwrap_or("postgres")),
    };
    let name = options.get_database().unwrap_or("postgres").to_string();
    let mut conn = sqlx::PgConnection::connect_with(&options.clone().database("postgres"))
        .await
        .context("connecting to PostgreSQL")?;
    let exists: bool =
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)")
            .bind(&name)
            .fetch_one(&mut conn)
            .await?;
    if !exists {
        // Identifiers cannot be bound; quote it.
        let quoted = format!("\"{}\"", name.replace('"', "\"\""));
        let created = sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {quoted}")))
            .execute(&mut conn)
            .await;
        match created {
            Ok(_) => {}
            // Another instance starting at the same moment made it first: 42P04 when its
            // CREATE had committed, 23505 (the catalogue's unique index) when both ran at once.
            Err(sqlx::Error::Database(e))
                if matches!(e.code().as_deref(), Some("42P04") | Some("23505")) =>
            {
                tracing::info!(database = %name, "another instance created the database first");
            }
            Err(e) => return Err(e).context(format!("creating the database {name}")),
        }
    }
    conn.close().await?;
    Ok(())
}

/// Brings the schema up to date.
pub async fn migrate(pool: &PgPool) -> anyhow::Result<()> {
    sqlx::migrate!("./migrations")
        .run(pool)
        .await
        .context("running migrations")?;
    // What SQL alone cannot do: players' name keys are computed here (`names::key`).
    people::players::ensure_keys(pool)
        .await
        .context("filling players' name keys")
}

/// Whether the database answers.
pub async fn ping(pool: &PgPool) -> bool {
    // A standby answers too, but cannot take a game: ready means writable.
    tokio::time::timeout(
        Duration::from_secs(2),
        sqlx::query_scalar::<_, bool>(
            "SELECT NOT pg_is_in_recovery() AND current_setting('transaction_read_only') = 'off'",
        )
        .fetch_one(pool),
    )
    .await
    .is_ok_and(|r| r.unwrap_or(false))
}

/// A string that takes one of `values`, as the OpenAPI document says it (for answer fields
/// kept as text, here and in `domain`).
pub(crate) fn string_enum(
    values: &[&'static str],
    example: &'static str,
) -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::String)
        .enum_values(Some(values.iter().copied()))
        .examples([example])
        .into()
}

/// A member's role in a club, as the document says it (the roles `domain::access` orders).
pub(crate) fn role_schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    string_enum(&["owner", "organizer", "scorer", "member"], "member")
}
