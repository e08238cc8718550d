//! The embedded PostgreSQL is private to the service (issue 12, item 3): a password every
//! connection must give, kept where only the service's account reads it, and a socket directory
//! closed to other accounts.

use std::os::unix::fs::PermissionsExt;
use std::process::Command;

use sqlx::Connection;

mod common;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mahjong-league"))
}

#[tokio::test]
async fn the_embedded_database_wants_its_password() {
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .args(["db", "start", "--throwaway", "--data-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let url = String::from_utf8(out.stdout).unwrap().trim().to_string();
    let root = dir.path().canonicalize().unwrap().join("postgres");
    let result = async {
        let password = std::fs::read_to_string(root.join("password")).unwrap();
        assert_eq!(password.trim().len(), 64);
        assert!(
            url.contains(&format!(":{}@", password.trim())),
            "the URL carries it"
        );
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&root.join("password")), 0o600);
        assert_eq!(
            mode(&root.join("run")),
            0o700,
            "the socket directory is closed to others"
        );
        let hba = std::fs::read_to_string(root.join("data/pg_hba.conf")).unwrap();
        assert!(!hba.contains("trust"), "{hba}");

        let mut conn = sqlx::PgConnection::connect(&url)
            .await
            .expect("the service's URL connects");
        let one: i32 = sqlx::query_scalar("SELECT 1")
            .fetch_one(&mut conn)
            .await
            .unwrap();
        assert_eq!(one, 1);
        let without = url.replace(&format!(":{}@", password.trim()), "@");
        let refused = sqlx::PgConnection::connect(&without).await;
        assert!(
            refused.is_err(),
            "a connection without the password is refused"
        );
        let wrong = url.replace(password.trim(), "not-the-password");
        assert!(sqlx::PgConnection::connect(&wrong).await.is_err());
    }
    .await;
    let stop = bin()
        .args(["db", "stop", "--data-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(stop.status.success());
    result
}

async fn ready(base: &str) -> u16 {
    reqwest::get(format!("{base}/readyz"))
        .await
        .map(|r| r.status().as_u16())
        .unwrap_or(0)
}

/// Issue 13, items 1 and 2: a second instance on the same data directory is refused and leaves
/// the first one's database alone; after `kill -9` of the service and its postmaster the next
/// start comes up with the data kept.
#[tokio::test]
async fn one_instance_per_data_directory_and_a_restart_after_kill_9() {
    let dir = tempfile::tempdir().unwrap();
    let mut first = common::serve(dir.path()).expect("the first instance serves");
    assert_eq!(ready(&first.base).await, 200);
    let client = reqwest::Client::new();
    first.sign_up(&client, "kept@example.org").await;

    // As in the field: the same command again, same port.
    let address = first.base.trim_start_matches("http://").to_string();
    let second = bin()
        .args(["serve", "--bind", &address, "--data-dir"])
        .arg(dir.path())
        .env("MAHJONG_SESSION_KEY", "k".repeat(64))
        .output()
        .unwrap();
    assert!(!second.status.success());
    let said = String::from_utf8_lossy(&second.stderr);
    assert!(said.contains("another mahjong-league instance"), "{said}");
    assert_eq!(
        ready(&first.base).await,
        200,
        "the first instance's database still answers"
    );

    // kill -9 of the service and of its postmaster.
    let postmaster = common::postmaster_pid(dir.path());
    first.child.kill().unwrap();
    first.child.wait().unwrap();
    // SAFETY: sends SIGKILL to the postmaster this test's service started.
    unsafe { libc::kill(postmaster, libc::SIGKILL) };
    let mut again = common::serve(dir.path()).expect("the next start comes up after kill -9");
    assert_eq!(ready(&again.base).await, 200);
    let res = client
        .post(format!("{}/api/v1/session", again.base))
        .json(
            &serde_json::json!({"email": "kept@example.org", "password": "correct horse battery"}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(
        res.status(),
        200,
        "the account made before the kill is there"
    );

    // SIGTERM: the service stops, and with it the PostgreSQL it started.
    let postmaster = common::postmaster_pid(dir.path());
    // SAFETY: sends SIGTERM to the child this test started.
    unsafe { libc::kill(again.child.id() as i32, libc::SIGTERM) };
    let status = again.child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    assert!(
        !dir.path().join("postgres/data/postmaster.pid").exists(),
        "postmaster {postmaster} stopped"
    );
}

/// Issue 30, item 2: after `kill -9` of the service alone (its PostgreSQL still running), the
/// next start adopts that server, and SIGTERM then stops it: no PostgreSQL is left behind.
#[tokio::test]
async fn a_server_left_by_a_crash_is_adopted_and_stopped_with_the_service() {
    let dir = tempfile::tempdir().unwrap();
    let mut first = common::serve(dir.path()).expect("the first instance serves");
    assert_eq!(ready(&first.base).await, 200);
    let postmaster = common::postmaster_pid(dir.path());
    first.child.kill().unwrap();
    first.child.wait().unwrap();
    assert!(
        std::path::Path::new(&format!("/proc/{postmaster}")).exists(),
        "the service's PostgreSQL outlives a kill -9 of the service"
    );
    let mut again = common::serve(dir.path()).expect("the next start comes up");
    assert_eq!(ready(&again.base).await, 200);
    assert_eq!(
        common::postmaster_pid(dir.path()),
        postmaster,
        "the server left running is used, not a second one"
    );
    // SAFETY: sends SIGTERM to the child this test started.
    unsafe { libc::kill(again.child.id() as i32, libc::SIGTERM) };
    assert!(again.child.wait().unwrap().success());
    let mut gone = false;
    for _ in 0..100 {
        let stat = std::fs::read_to_string(format!("/proc/{postmaster}/stat")).unwrap_or_default();
        // Gone, or a zombie waiting for its parent (the postmaster's parent is not this test).
        if stat.is_empty()
            || stat
                .rsplit_once(')')
                .is_some_and(|(_, r)| r.trim_start().starts_with('Z'))
        {
            gone = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(
        gone,
        "postmaster {postmaster} stopped with the service that adopted it"
    );
    assert!(!dir.path().join("postgres/data/postmaster.pid").exists());
}

/// Issue 13, item 3: a database that freezes (every PostgreSQL process stopped) is answered 503
/// with `Retry-After` within the pool's wait, and the service is back when it thaws.
#[tokio::test]
async fn a_frozen_database_is_a_quick_503() {
    let dir = tempfile::tempdir().unwrap();
    let mut served = common::serve(dir.path()).expect("the service starts");
    assert_eq!(ready(&served.base).await, 200);
    let postmaster = common::postmaster_pid(dir.path());
    // The postmaster first, so it starts no backend while its children are looked for (a
    // backend started between the look and the stop answered queries: a flaky 200), then every
    // process it started (each leads a session of its own).
    // SAFETY: stops the PostgreSQL postmaster this test's service started.
    unsafe { libc::kill(postmaster, libc::SIGSTOP) };
    let mut frozen = vec![postmaster];
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<i32>().ok());
        if ppid == Some(postmaster) {
            frozen.push(pid);
        }
    }
    for pid in &frozen[1..] {
        // SAFETY: stops the PostgreSQL processes this test's service started.
        unsafe { libc::kill(*pid, libc::SIGSTOP) };
    }
    let res = tokio::time::timeout(
        std::time::Duration::from_secs(20),
        reqwest::get(format!("{}/api/v1/cards", served.base)),
    )
    .await
    .expect("answered while the database is frozen")
    .unwrap();
    let status = res.status().as_u16();
    let retry = res.headers().get("retry-after").cloned();
    for pid in &frozen {
        // SAFETY: resumes the processes stopped above.
        unsafe { libc::kill(*pid, libc::SIGCONT) };
    }
    assert_eq!(status, 503);
    assert!(retry.is_some());
    let mut back = false;
    for _ in 0..50 {
        if ready(&served.base).await == 200 {
            back = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(back, "ready again after the thaw");
    // SAFETY: signals the child this test started.
    unsafe { libc::kill(served.child.id() as i32, libc::SIGTERM) };
    served.child.wait().unwrap();
}

/// A new account owning a club `slug` on the service at `base`: its client (with the cookie).
async fn club_owner_at(served: &common::Served, slug: &str) -> reqwest::Client {
    let client = reqwest::Client::builder()
        .cookie_store(true)
        .build()
        .unwrap();
    served
        .sign_up(&client, &format!("{slug}@example.org"))
        .await;
    let res = client
        .post(format!("{}/api/v1/clubs", served.base))
        .json(&serde_json::json!({"slug": slug, "name": slug}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201, "create the club {slug}");
    client
}

/// How many players the club `slug` has.
async fn players_of(client: &reqwest::Client, base: &str, slug: &str) -> usize {
    let players: serde_json::Value = client
        .get(format!("{base}/api/v1/clubs/{slug}/players"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    players["players"].as_array().unwrap().len()
}

/// SIGTERM to a `serve` the test started; it must exit 0.
fn stop(mut served: common::Served) {
    // SAFETY: sends SIGTERM to the child this test started.
    unsafe { libc::kill(served.child.id() as i32, libc::SIGTERM) };
    assert!(served.child.wait().unwrap().success());
}

/// Issue 36, item 1: the embedded PostgreSQL's postmaster killed under a running service. The
/// service notices, answers 503 with `Retry-After` meanwhile (never 500), `/healthz` says the
/// database is down, and writes come back by themselves within 15 s with nothing acknowledged
/// lost.
#[tokio::test]
async fn a_killed_postgres_is_restarted_under_the_running_service() {
    let dir = tempfile::tempdir().unwrap();
    let served = common::serve(dir.path()).expect("serves");
    let client = club_owner_at(&served, "kept").await;
    let url = |p: &str| format!("{}{p}", served.base);

    let mut stored = 0;
    for round in 0..2 {
        let postmaster = common::postmaster_pid(dir.path());
        // SAFETY: sends SIGKILL to the postmaster this test's service started.
        unsafe { libc::kill(postmaster, libc::SIGKILL) };
        let killed = std::time::Instant::now();
        let mut statuses = std::collections::BTreeMap::<u16, u32>::new();
        // /healthz watched meanwhile, every 50 ms.
        let health_url = url("/healthz");
        let watcher = tokio::spawn(async move {
            let mut seen = std::collections::BTreeSet::new();
            for _ in 0..60 {
                if let Ok(r) = reqwest::get(&health_url).await {
                    seen.insert(r.status().as_u16());
                }
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
            seen
        });
        let mut back = None;
        let mut n = 0;
        while killed.elapsed() < std::time::Duration::from_secs(20) {
            n += 1;
            let res = client
                .post(url("/api/v1/clubs/kept/players"))
                .json(&serde_json::json!({"name": format!("Player {round}-{n}")}))
                .send()
                .await
                .unwrap();
            let status = res.status().as_u16();
            *statuses.entry(status).or_default() += 1;
            match status {
                201 => stored += 1,
                503 => assert!(res.headers().contains_key("retry-after")),
                _ => panic!("round {round}: {status}: {}", res.text().await.unwrap()),
            }
            let restarted =
                std::fs::read_to_string(dir.path().join("postgres/data/postmaster.pid"))
                    .ok()
                    .and_then(|t| t.lines().next().and_then(|l| l.trim().parse::<i32>().ok()))
                    .is_some_and(|pid| pid != postmaster);
            if status == 201 && restarted {
                back = Some(killed.elapsed());
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        let back = back.unwrap_or_else(|| {
            panic!("round {round}: writes to a new postmaster never came: {statuses:?}")
        });
        let healthz = watcher.await.unwrap();
        eprintln!(
            "round {round}: a write stored by the new postmaster {back:?} after kill -9; answers {statuses:?}; /healthz {healthz:?}"
        );
        assert!(
            healthz.contains(&503),
            "/healthz said the database was down: {healthz:?}"
        );
        assert!(back < std::time::Duration::from_secs(15), "{back:?}");
        let h = reqwest::get(url("/healthz")).await.unwrap();
        assert_eq!(h.status(), 200);
    }
    // Everything acknowledged is there.
    assert_eq!(
        players_of(&client, &served.base, "kept").await,
        stored,
        "every acknowledged player is there"
    );
    stop(served);
}

/// Issue 36, item 1: a full disk under the embedded PostgreSQL. A write the database refuses
/// for want of space is answered 503 with `Retry-After`, saying the disk is full (never a bare
/// 500), and once space is freed the same write goes through. The data directory is a small
/// tmpfs the test mounts (the suite runs as root, as CI does), filled by a file.
#[tokio::test]
async fn a_full_disk_is_said_and_writes_come_back_when_space_is_freed() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=256m,mode=0755", "tmpfs"])
        .arg(&data)
        .status()
        .unwrap();
    assert!(
        mounted.success(),
        "mounting a tmpfs needs root, as the suite runs"
    );
    struct Unmount(std::path::PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            let _ = std::process::Command::new("umount")
                .arg("-l")
                .arg(&self.0)
                .status();
        }
    }
    let _unmount = Unmount(data.clone());
    let served = common::serve_with(&data, &["--backup-keep", "0"]).expect("serves");
    let client = club_owner_at(&served, "full").await;
    let url = |p: &str| format!("{}{p}", served.base);
    // Fill what is left of the disk.
    let filler = data.join("filler");
    {
        use std::io::Write;
        let mut f = std::fs::File::create(&filler).unwrap();
        let block = vec![0u8; 1 << 20];
        while f.write_all(&block).is_ok() {}
        let _ = f.sync_all();
    }
    // Players until the database needs a page it cannot have.
    let mut refusal = None;
    let mut stored = 0;
    for n in 0..2000 {
        let res = client
            .post(url("/api/v1/clubs/full/players"))
            .json(&serde_json::json!({"name": format!("Player {n:04} {}", "x".repeat(80))}))
            .send()
            .await
            .unwrap();
        match res.status().as_u16() {
            201 => stored += 1,
            503 => {
                assert!(res.headers().contains_key("retry-after"));
                refusal = Some(res.text().await.unwrap());
                break;
            }
            other => panic!("{other}: {}", res.text().await.unwrap()),
        }
    }
    let refusal = refusal.unwrap_or_else(|| panic!("{stored} players fit on a full disk"));
    eprintln!("refused after {stored} players: {refusal}");
    assert!(refusal.contains("disk is full"), "{refusal}");

    // Space freed: writes come back by themselves (the server restarted if it had stopped).
    std::fs::remove_file(&filler).unwrap();
    let freed = std::time::Instant::now();
    let mut back = false;
    while freed.elapsed() < std::time::Duration::from_secs(30) {
        let res = client
            .post(url("/api/v1/clubs/full/players"))
            .json(&serde_json::json!({"name": "After the disk"}))
            .send()
            .await
            .unwrap();
        if res.status() == 201 {
            back = true;
            break;
        }
        assert_eq!(res.status(), 503, "{}", res.text().await.unwrap());
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
    assert!(back, "writes came back once space was freed");
    eprintln!("writes back {:?} after space was freed", freed.elapsed());
    assert_eq!(
        players_of(&client, &served.base, "full").await,
        stored + 1,
        "nothing acknowledged lost"
    );
    stop(served);
}
