//! Database URLs with several hosts, as libpq reads them:
//! `postgres://u@host1:5433,host2:5432/league?target_session_attrs=read-write`. The service
//! connects to the first host that takes a connection (with `read-write` or `primary`, the first
//! that is a writable primary), and, while it runs, follows a failover: when the host it uses
//! stops answering or becomes read-only, its pools are pointed at the writable one.

use std::str::FromStr;
use std::time::Duration;

use anyhow::Context;
use sqlx::postgres::PgConnectOptions;
use sqlx::{ConnectOptions, Connection, PgPool};

/// The hosts of a database URL, each as connection options, in the URL's order.
#[derive(Debug, Clone)]
pub struct Hosts {
    pub candidates: Vec<PgConnectOptions>,
    /// Only a writable primary will do (`target_session_attrs=read-write` or `primary`).
    pub read_write: bool,
}

impl Hosts {
    /// Whether there is anything to follow: several hosts, or a host that must be writable.
    pub fn follows(&self) -> bool {
        self.candidates.len() > 1 || self.read_write
    }

    fn named(o: &PgConnectOptions) -> String {
        format!("{}:{}", o.get_host(), o.get_port())
    }

    /// The hosts in words: "host1:5433, host2:5432".
    pub fn names(&self) -> String {
        self.candidates
            .iter()
            .map(Hosts::named)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Reads a database URL with one host or several (`host:port` separated by commas).
pub fn parse(url: &str) -> anyhow::Result<Hosts> {
    let bad = || anyhow::anyhow!("DATABASE_URL is not a valid PostgreSQL URL");
    let (scheme, rest) = url.split_once("://").ok_or_else(bad)?;
    let end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let (user, host_list) = match authority.rfind('@') {
        Some(at) => (&authority[..=at], &authority[at + 1..]),
        None => ("", authority),
    };
    // `target_session_attrs` is libpq's, not the driver's: read here, left out of each host's URL.
    let (path, query) = match tail.split_once('?') {
        Some((p, q)) => (p, q),
        None => (tail, ""),
    };
    let mut read_write = false;
    let mut kept = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        match pair.split_once('=') {
            Some(("target_session_attrs", v)) => match v {
                "any" => {}
                "read-write" | "primary" => read_write = true,
                other => anyhow::bail!(
                    "DATABASE_URL: target_session_attrs={other} is not one the service can use: it writes, so use read-write (or primary), or any"
                ),
            },
            _ => kept.push(pair),
        }
    }
    let query = if kept.is_empty() {
        String::new()
    } else {
        format!("?{}", kept.join("&"))
    };
    let mut candidates = Vec::new();
    for host in host_list.split(',') {
        if host.is_empty() {
            anyhow::bail!("DATABASE_URL names an empty host between commas");
        }
        let one = format!("{scheme}://{user}{host}{path}{query}");
        candidates.push(PgConnectOptions::from_str(&one).with_context(|| {
            format!("DATABASE_URL: the host `{host}` is not a valid host[:port]")
        })?);
    }
    Ok(Hosts {
        candidates,
        read_write,
    })
}

/// How long choosing waits for one host before trying the next.
const TRY_FOR: Duration = Duration::from_secs(2);

/// Whether the server behind `conn` takes writes (not a standby, not read-only by default).
async fn writable(conn: &mut sqlx::PgConnection) -> sqlx::Result<bool> {
    sqlx::query_scalar(
        "SELECT NOT pg_is_in_recovery() AND current_setting('default_transaction_read_only') = 'off'",
    )
    .fetch_one(conn)
    .await
}

/// The first host that takes a connection (and writes, when it must), in the URL's order.
pub async fn choose(hosts: &Hosts) -> anyhow::Result<PgConnectOptions> {
    let mut why = Vec::new();
    for o in &hosts.candidates {
        let tried: Result<sqlx::Result<bool>, _> = tokio::time::timeout(TRY_FOR, async {
            let mut conn = o.connect().await?;
            let ok = !hosts.read_write || writable(&mut conn).await?;
            let _ = conn.close().await;
            Ok(ok)
        })
        .await;
        match tried {
            Ok(Ok(true)) => return Ok(o.clone()),
            Ok(Ok(false)) => why.push(format!("{} is read-only (a standby)", Hosts::named(o))),
            Ok(Err(e)) => why.push(format!("{}: {e}", Hosts::named(o))),
            Err(_) => why.push(format!("{} did not answer in time", Hosts::named(o))),
        }
    }
    anyhow::bail!(
        "no host of DATABASE_URL took a connection{}: {}",
        if hosts.read_write {
            " as a writable primary"
        } else {
            ""
        },
        why.join("; ")
    )
}

/// How often the host in use is checked while the service runs.
pub const CHECK_EVERY: Duration = Duration::from_millis(500);

/// How long the check waits for a connection of the pools: a dead host refuses at once, but the
/// pool keeps trying it until its own wait ends (2 s); a busy pool past this only costs a look
/// at the hosts.
const PROBE_FOR: Duration = Duration::from_millis(300);

/// Follows a failover for as long as the process runs: every `CHECK_EVERY`, the host `pools`
/// use is asked whether it still writes; when it does not answer or has become read-only, the
/// hosts are tried again in order and the pools' new connections go to the writable one (their
/// old connections fail and are dropped as they are used).
pub async fn follow(hosts: Hosts, pools: Vec<PgPool>) {
    let Some(first) = pools.first().cloned() else {
        return;
    };
    loop {
        tokio::time::sleep(CHECK_EVERY).await;
        if first.is_closed() {
            return;
        }
        let fine: Result<sqlx::Result<bool>, _> = tokio::time::timeout(PROBE_FOR, async {
            let mut conn = first.acquire().await?;
            writable(&mut conn).await
        })
        .await;
        if matches!(fine, Ok(Ok(true))) {
            continue;
        }
        let Ok(next) = choose(&Hosts {
            read_write: true,
            ..hosts.clone()
        })
        .await
        else {
            continue;
        };
        let now = first.connect_options();
        if (now.get_host(), now.get_port()) == (next.get_host(), next.get_port()) {
            continue;
        }
        tracing::warn!(
            from = %Hosts::named(&now),
            to = %Hosts::named(&next),
            "the database's writable host moved: new connections go to the new one"
        );
        for pool in &pools {
            let moved = pool
                .connect_options()
                .as_ref()
                .clone()
                .host(next.get_host())
                .port(next.get_port());
            pool.set_connect_options(moved);
            // Idle connections to the old host are of no use any more.
            while pool.num_idle() > 0 {
                match pool.try_acquire() {
                    Some(c) => drop(c.detach()),
                    None => break,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn several_hosts_are_read_as_libpq_reads_them() {
        let h = parse("postgres://u:p@host1:5433,host2:5432/league?target_session_attrs=read-write&sslmode=disable").unwrap();
        assert!(h.read_write && h.follows());
        assert_eq!(h.names(), "host1:5433, host2:5432");
        assert!(
            h.candidates
                .iter()
                .all(|o| o.get_database() == Some("league") && o.get_username() == "u")
        );
        let one = parse("postgres://u@db.example:6000/league").unwrap();
        assert!(!one.follows());
        assert_eq!(one.names(), "db.example:6000");
        assert!(parse("postgres://u@a,,b/league").is_err());
        assert!(parse("postgres://u@a/league?target_session_attrs=standby").is_err());
        assert!(parse("postgres://u@a:notaport/league").is_err());
        assert!(parse("not a url").is_err());
    }
}
