//! The failover drill (issue 54): a primary PostgreSQL and a synchronous standby on loopback,
//! the service writing games with idempotency keys through four writers; the primary is killed
//! with `-9` mid-writing and the standby promoted. Once the database's address is switched to the
//! standby (a gate in front of it, as a managed database's DNS name or a proxy moves), once the
//! service holds both in a multi-host URL and finds the new primary itself. Each time every
//! acknowledged game is on the new primary, every game sent ends stored exactly once, and the
//! figures are printed.

#[path = "common/browser.rs"]
mod browser;
mod common;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::writing::{Club, TABLES, night, set_up};
use serde_json::json;

/// Games each table gets in a drill.
const NUMBERS: i64 = 8;
const WRITERS: usize = 4;

/// A PostgreSQL server of the drill's own, in `dir`, on a loopback port.
struct Server {
    dir: PathBuf,
    port: u16,
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// A PostgreSQL program, run as `postgres` when the test runs as root (the server refuses root).
fn pg(program: &str) -> Command {
    let bin = mahjong_league::storage::embedded::find_binaries().expect("PostgreSQL's binaries");
    let mut exe = bin.join(program);
    if !exe.is_file() {
        exe = bin
            .join("pg_ctl")
            .canonicalize()
            .unwrap()
            .with_file_name(program);
    }
    let mut cmd = if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(exe);
        c
    } else {
        Command::new(exe)
    };
    cmd.current_dir("/").env("LC_ALL", "C").env_remove("PGDATA");
    cmd
}

fn run(mut cmd: Command, what: &str) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn append(file: &Path, lines: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().append(true).open(file).unwrap();
    writeln!(f, "{lines}").unwrap();
}

impl Server {
    /// A primary that waits for the standby named `standby` before it acknowledges a commit.
    fn primary(root: &Path) -> Server {
        let dir = root.join("primary");
        let port = browser::free_port();
        let mut init = pg("initdb");
        init.args(["-U", "postgres", "-A", "trust", "--no-sync", "-D"])
            .arg(&dir);
        run(init, "initdb");
        append(
            &dir.join("postgresql.conf"),
            &format!(
                "port = {port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{}'\n\
                 fsync = off\nwal_level = replica\nmax_wal_senders = 4\n\
                 synchronous_standby_names = 'standby'\nsynchronous_commit = on",
                root.display()
            ),
        );
        let s = Server { dir, port };
        s.start();
        s
    }

    /// A synchronous standby of `primary`, streaming from it.
    fn standby(root: &Path, primary: &Server) -> Server {
        let dir = root.join("standby");
        let port = browser::free_port();
        let conninfo = format!(
            "host=127.0.0.1 port={} user=postgres application_name=standby",
            primary.port
        );
        let mut backup = pg("pg_basebackup");
        backup
            .args([
                "-d",
                &conninfo,
                "-R",
                "-X",
                "stream",
                "-c",
                "fast",
                "--no-sync",
                "-D",
            ])
            .arg(&dir);
        run(backup, "pg_basebackup");
        // Promoted, it waits for no standby of its own.
        append(
            &dir.join("postgresql.auto.conf"),
            &format!(
                "port = {port}\nprimary_conninfo = '{conninfo}'\nsynchronous_standby_names = ''"
            ),
        );
        let s = Server { dir, port };
        s.start();
        s
    }

    fn start(&self) {
        let mut start = pg("pg_ctl");
        start
            .args(["start", "-w", "-t", "60", "-D"])
            .arg(&self.dir)
            .arg("-l")
            .arg(self.dir.with_extension("log"));
        run(start, "pg_ctl start");
    }

    fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// `kill -9` of the postmaster.
    fn kill(&self) {
        let pid: i32 = std::fs::read_to_string(self.dir.join("postmaster.pid"))
            .unwrap()
            .lines()
            .next()
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        // SAFETY: SIGKILL to the postmaster this test started.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }

    fn promote(&self) {
        let mut promote = pg("pg_ctl");
        promote.args(["promote", "-w", "-D"]).arg(&self.dir);
        run(promote, "pg_ctl promote");
    }

    async fn pool(&self, database: &str) -> sqlx::PgPool {
        sqlx::PgPool::connect(&format!("postgres://postgres@{}/{database}", self.host()))
            .await
            .unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let mut stop = pg("pg_ctl");
        stop.args(["stop", "-m", "immediate", "-D"]).arg(&self.dir);
        let _ = stop.output();
    }
}

/// The pair, the standby streaming synchronously once this returns.
async fn pair(root: &Path) -> (Server, Server) {
    if is_root() {
        let uid = |name: &str| {
            String::from_utf8(
                Command::new("id")
                    .args(["-u", name])
                    .output()
                    .unwrap()
                    .stdout,
            )
            .unwrap()
            .trim()
            .parse::<u32>()
            .expect("a postgres user (the PostgreSQL packages make it)")
        };
        std::os::unix::fs::chown(root, Some(uid("postgres")), None).unwrap();
    }
    let primary = Server::primary(root);
    let standby = Server::standby(root, &primary);
    let db = primary.pool("postgres").await;
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let state: Option<String> = sqlx::query_scalar(
            "SELECT sync_state FROM pg_stat_replication WHERE application_name = 'standby'",
        )
        .fetch_optional(&db)
        .await
        .unwrap();
        if state.as_deref() == Some("sync") {
            break;
        }
        assert!(Instant::now() < deadline, "the standby streams: {state:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    db.close().await;
    (primary, standby)
}

#[derive(Default)]
struct Tally {
    /// Keys answered 201, with the game and when.
    acknowledged: Vec<(String, i64, Instant)>,
    /// Answers other than 201 while the database was away (sent again with their key).
    refused: usize,
}

/// One writer: games on its own tables, each sent again with its key until it is acknowledged.
async fn writer(base: String, token: String, w: usize, tables: Vec<i64>, out: Arc<Mutex<Tally>>) {
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap();
    for number in 1..=NUMBERS {
        for &table in &tables {
            let key = format!("w{w}-{table}-{number}");
            let deadline = Instant::now() + Duration::from_secs(90);
            loop {
                let sent = client
                    .post(format!("{base}/api/v1/tables/{table}/games"))
                    .bearer_auth(&token)
                    .header("Idempotency-Key", &key)
                    .json(&json!({"number": number, "outcome": "wall"}))
                    .send()
                    .await;
                match sent {
                    Ok(res) if res.status() == 201 => {
                        let game: serde_json::Value = res.json().await.unwrap();
                        let id = game["id"].as_i64().unwrap();
                        out.lock()
                            .unwrap()
                            .acknowledged
                            .push((key.clone(), id, Instant::now()));
                        break;
                    }
                    Ok(res) if res.status().is_server_error() => {
                        assert_eq!(res.status(), 503, "{key}: the database away is a 503");
                        assert!(res.headers().contains_key("retry-after"), "{key}");
                    }
                    Ok(res) => panic!("{key}: refused {}", res.status()),
                    Err(_) => {}
                }
                out.lock().unwrap().refused += 1;
                assert!(Instant::now() < deadline, "{key}: never acknowledged");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

/// Runs the drill with the service started on `url`; `switch` is called after the promotion
/// (a switched address moves there). Every figure checked; printed.
async fn drill(how: &str, url: &str, standby: &Server, primary: &Server, switch: impl FnOnce()) {
    let data = tempfile::tempdir().unwrap();
    let served = common::serve_with(data.path(), &["--database-url", url]).expect("serves");
    let club: Club = set_up(&served).await;
    let (_, tables) = night(&served.base, &club).await;
    let out = Arc::new(Mutex::new(Tally::default()));
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let mine: Vec<i64> = tables.iter().skip(w).step_by(WRITERS).copied().collect();
            tokio::spawn(writer(
                served.base.clone(),
                club.token.clone(),
                w,
                mine,
                out.clone(),
            ))
        })
        .collect();
    // A quarter of the games in, the primary dies.
    let total = TABLES as i64 * NUMBERS;
    while (out.lock().unwrap().acknowledged.len() as i64) < total / 4 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let before = out.lock().unwrap().acknowledged.len();
    primary.kill();
    tokio::time::sleep(Duration::from_millis(300)).await;
    standby.promote();
    let promoted = Instant::now();
    switch();
    for w in writers {
        w.await.unwrap();
    }
    let tally = std::mem::take(&mut *out.lock().unwrap());
    let again = tally
        .acknowledged
        .iter()
        .filter(|a| a.2 > promoted)
        .map(|a| a.2 - promoted)
        .min()
        .expect("writes acknowledged after the promotion");

    // On the new primary: every acknowledged game, and each game sent exactly once.
    let db = standby.pool("league").await;
    let ids: Vec<i64> = tally.acknowledged.iter().map(|a| a.1).collect();
    let found: i64 = sqlx::query_scalar("SELECT count(*) FROM games WHERE id = ANY($1)")
        .bind(&ids)
        .fetch_one(&db)
        .await
        .unwrap();
    let (games, slots): (i64, i64) = sqlx::query_as(
        "SELECT count(*), count(DISTINCT (table_id, number)) FROM games WHERE table_id = ANY($1)",
    )
    .bind(&tables)
    .fetch_one(&db)
    .await
    .unwrap();
    let keys: HashSet<&str> = tally.acknowledged.iter().map(|a| a.0.as_str()).collect();
    println!(
        "failover drill ({how}): {} games acknowledged ({before} before the kill), {} answers 503 sent again with their key, \
         {found} of them on the new primary, {games} games stored for {total} sent; writes acknowledged again {:.2} s after the promotion",
        tally.acknowledged.len(),
        tally.refused,
        again.as_secs_f64()
    );
    assert_eq!(keys.len() as i64, total, "every game acknowledged once");
    assert_eq!(found, ids.len() as i64, "no acknowledged game lost");
    assert_eq!(
        (games, slots),
        (total, total),
        "each game stored exactly once"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failover_through_a_switched_address_loses_no_acknowledged_game() {
    let root = tempfile::tempdir().unwrap();
    let (primary, standby) = pair(root.path()).await;
    let gate = browser::Gate::to(&primary.host()).await;
    let url = format!("postgres://postgres@{}/league", gate.host());
    let to = standby.host();
    drill("switched address", &url, &standby, &primary, || {
        gate.switch_to(&to)
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failover_through_a_multi_host_url_loses_no_acknowledged_game() {
    let root = tempfile::tempdir().unwrap();
    let (primary, standby) = pair(root.path()).await;
    let url = format!(
        "postgres://postgres@{},{}/league?target_session_attrs=read-write",
        primary.host(),
        standby.host()
    );
    drill("multi-host URL", &url, &standby, &primary, || {}).await;
}
