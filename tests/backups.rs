//! Backups (issue 30, item 1), with the real command and a real PostgreSQL: a backup taken
//! while games are being entered restores to a state that holds every game acknowledged before
//! it began, only acknowledged games, each whole, with totals that agree; a quiet backup
//! restores to the same standings of every league and the same audit log; a database that
//! holds tables is refused unless --force; the embedded default keeps its own backups after a
//! night closes, the newest N, and `db backup` / `db restore` work on data directories while
//! the service serves.

mod common;

use std::collections::BTreeSet;
use std::process::Command;

use common::{PASSWORD, club_owner, one_table, spawn_app};
use serde_json::{Value, json};
use sqlx::{Connection, PgPool};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mahjong-league"))
}

/// The URL of database `name` on the test server.
fn url_of(name: &str) -> String {
    let mut url = url::Url::parse(&std::env::var("TEST_DATABASE_URL").unwrap()).unwrap();
    url.set_path(&format!("/{name}"));
    url.to_string()
}

fn name_of(db: &PgPool) -> String {
    db.connect_options().get_database().unwrap().to_string()
}

/// A new database with nothing in it.
async fn empty_database() -> (String, String) {
    let name = format!("restored_{}", uuid::Uuid::new_v4().simple());
    let mut admin = common::admin_connection().await;
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE \"{name}\"")))
        .execute(&mut admin)
        .await
        .unwrap();
    (name.clone(), url_of(&name))
}

fn run(cmd: &mut Command) -> (bool, String) {
    let out = cmd.output().unwrap();
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

async fn game_ids(url: &str) -> BTreeSet<i64> {
    let mut conn = sqlx::PgConnection::connect(url).await.unwrap();
    let ids: Vec<i64> = sqlx::query_scalar("SELECT id FROM games")
        .fetch_all(&mut conn)
        .await
        .unwrap();
    ids.into_iter().collect()
}

#[tokio::test]
async fn a_backup_taken_while_games_are_entered_restores_exactly_what_was_acknowledged() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "busy", "busy@example.org").await;
    // Three tables of three leagues, each taking up to 32 wall games.
    let mut tables = Vec::new();
    for (i, names) in [
        ["Ann", "Bea", "Cy", "Dee"],
        ["Eve", "Flo", "Gus", "Hal"],
        ["Ida", "Jo", "Kay", "Lu"],
    ]
    .iter()
    .enumerate()
    {
        let t = one_table(&app, &owner, "busy", names).await;
        let res = owner
            .patch(app.url(&format!("/api/v1/leagues/{}", t.league)))
            .json(&json!({"name": format!("League {i}"), "games_per_table": 32}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());
        tables.push(t.table);
    }
    let acked = std::sync::Arc::new(std::sync::Mutex::new(BTreeSet::new()));
    let mut writers = Vec::new();
    for table in tables {
        let (owner, acked, url) = (
            owner.clone(),
            acked.clone(),
            app.url(&format!("/api/v1/tables/{table}/games")),
        );
        writers.push(tokio::spawn(async move {
            for n in 1..=32 {
                let res = owner
                    .post(&url)
                    .header("Idempotency-Key", format!("t{table}-g{n}"))
                    .json(&json!({"number": n, "outcome": "wall"}))
                    .send()
                    .await
                    .unwrap();
                assert_eq!(res.status(), 201);
                let game: Value = res.json().await.unwrap();
                acked.lock().unwrap().insert(game["id"].as_i64().unwrap());
                tokio::time::sleep(std::time::Duration::from_millis(15)).await;
            }
        }));
    }
    // Mid-way: the backup, with the service serving and the writers writing.
    while acked.lock().unwrap().len() < 20 {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("busy.dump");
    let before = acked.lock().unwrap().clone();
    let source = url_of(&name_of(&app.db));
    // On a thread of its own, so the writers go on meanwhile.
    let (f, u) = (file.clone(), source.clone());
    let (ok, said) = tokio::task::spawn_blocking(move || {
        run(bin()
            .args(["db", "backup", "--out"])
            .arg(&f)
            .args(["--database-url", &u]))
    })
    .await
    .unwrap();
    assert!(ok, "{said}");
    let during = acked.lock().unwrap().len();
    for w in writers {
        w.await.unwrap();
    }
    let all = acked.lock().unwrap().clone();
    assert_eq!(all.len(), 96);
    assert!(
        before.len() < during,
        "the backup ran while games went in ({} acknowledged before it, {during} after, {} in all)",
        before.len(),
        all.len()
    );

    let (_, target) = empty_database().await;
    let (ok, said) = run(bin()
        .args(["db", "restore"])
        .arg(&file)
        .args(["--database-url", &target]));
    assert!(ok, "{said}");
    let restored = game_ids(&target).await;
    assert!(
        before.is_subset(&restored),
        "every game acknowledged before the backup began is in it"
    );
    assert!(
        restored.is_subset(&all),
        "only acknowledged games are in it"
    );
    // Each restored game is whole, and the totals agree with the games (one snapshot).
    let mut conn = sqlx::PgConnection::connect(&target).await.unwrap();
    let broken: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM games g WHERE (SELECT count(*) FROM game_scores s WHERE s.game_id = g.id) <> 4 \
            OR (SELECT count(*) FROM game_audit a WHERE a.game_id = g.id) <> 1",
    )
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert_eq!(broken, 0);
    let disagree: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM league_totals t WHERE t.games <> ( \
           SELECT count(*) FROM game_scores s JOIN games g ON g.id = s.game_id JOIN night_tables nt ON nt.id = g.table_id \
           JOIN nights n ON n.id = nt.night_id WHERE n.league_id = t.league_id AND s.player_id = t.player_id \
             AND g.status = 'recorded' AND g.outcome <> 'redeal')",
    )
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert_eq!(disagree, 0, "league totals agree with the restored games");

    // A database that holds tables is refused, unless told.
    let (ok, said) = run(bin()
        .args(["db", "restore"])
        .arg(&file)
        .args(["--database-url", &target]));
    assert!(!ok && said.contains("already holds"), "{said}");

    // Quiet now: a second backup restores to the same standings of every league and the same
    // audit log, through a service on the restored database.
    let quiet = dir.path().join("quiet.dump");
    let (ok, said) = run(bin()
        .args(["db", "backup", "--out"])
        .arg(&quiet)
        .args(["--database-url", &source]));
    assert!(ok, "{said}");
    let (ok, said) = run(bin()
        .args(["db", "restore", "--force"])
        .arg(&quiet)
        .args(["--database-url", &target]));
    assert!(ok, "{said}");
    assert_eq!(game_ids(&target).await, all);
    let audit = |url: String| async move {
        let mut conn = sqlx::PgConnection::connect(&url).await.unwrap();
        let rows: Vec<(i64, i64, String, String, Option<Value>)> =
            sqlx::query_as("SELECT id, game_id, actor, action, after FROM game_audit ORDER BY id")
                .fetch_all(&mut conn)
                .await
                .unwrap();
        rows
    };
    assert_eq!(audit(source.clone()).await, audit(target.clone()).await);
    let restored_pool = PgPool::connect(&target).await.unwrap();
    let served_dir = tempfile::tempdir().unwrap();
    let mut served =
        common::serve_process_on_database(&restored_pool, served_dir.path(), &[]).unwrap();
    let log_in = |base: String| async move {
        let c = reqwest::Client::builder()
            .cookie_store(true)
            .build()
            .unwrap();
        let res = c
            .post(format!("{base}/api/v1/session"))
            .json(&json!({"email": "busy@example.org", "password": PASSWORD}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200, "the account is restored too");
        c
    };
    let there = log_in(served.base.clone()).await;
    let leagues: Vec<i64> = sqlx::query_scalar("SELECT id FROM leagues ORDER BY id")
        .fetch_all(&app.db)
        .await
        .unwrap();
    assert_eq!(leagues.len(), 3);
    for league in leagues {
        let path = format!("/api/v1/leagues/{league}/standings");
        let here: Value = owner
            .get(app.url(&path))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let back: Value = there
            .get(format!("{}{path}", served.base))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(here["standings"], back["standings"], "league {league}");
        assert_eq!(here["standings"].as_array().unwrap().len(), 4);
    }
    served.child.kill().unwrap();
    served.child.wait().unwrap();
}

/// Signs `c` up as `email` on the service at `base`, makes the club `slug` and a league named
/// `name` in it on the demo card: the league as the API answers it.
async fn owned_league(
    c: &reqwest::Client,
    served: &common::Served,
    email: &str,
    slug: &str,
    name: &str,
) -> Value {
    let base = &served.base;
    served.sign_up(c, email).await;
    let mut answer = Value::Null;
    for (path, body) in [
        (
            "/api/v1/clubs".to_string(),
            json!({"slug": slug, "name": slug}),
        ),
        (
            format!("/api/v1/clubs/{slug}/leagues"),
            json!({"name": name, "card": "demo-2026", "ruleset": "nmjl-money"}),
        ),
    ] {
        let res = c
            .post(format!("{base}{path}"))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert!(res.status().is_success(), "{path}: {}", res.status());
        answer = res.json().await.unwrap();
    }
    answer
}

#[tokio::test]
async fn the_embedded_default_keeps_its_own_backups_and_restores_into_a_new_data_directory() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    // Every closed night its own backup here (the gap has a test of its own).
    let mut served =
        common::serve_with(&data, &["--backup-keep", "2", "--backup-gap-minutes", "0"])
            .expect("the service serves");
    let c = reqwest::Client::builder()
        .cookie_store(true)
        .build()
        .unwrap();
    let api = |p: &str| format!("{}{p}", served.base);
    let ok = |res: reqwest::Response| {
        assert!(res.status().is_success(), "{}", res.status());
        res
    };
    let league = owned_league(&c, &served, "keeper@example.org", "keep", "Kept league").await;
    let backups = data.join("backups");
    let count = || {
        std::fs::read_dir(&backups)
            .map(|d| {
                d.flatten()
                    .filter(|e| e.file_name().to_string_lossy().ends_with(".dump"))
                    .count()
            })
            .unwrap_or(0)
    };
    // Three nights closed, one after another: a backup after each, the newest two kept.
    for i in 0..3 {
        let night: Value = ok(c
            .post(api(&format!("/api/v1/leagues/{}/nights", league["id"])))
            .json(&json!({"date": format!("2026-03-0{}", i + 1)}))
            .send()
            .await
            .unwrap())
        .json()
        .await
        .unwrap();
        let before = std::fs::read_dir(&backups)
            .map(|d| d.flatten().map(|e| e.file_name()).collect::<BTreeSet<_>>())
            .unwrap_or_default();
        ok(
            c.post(api(&format!("/api/v1/nights/{}/close", night["id"])))
                .send()
                .await
                .unwrap(),
        );
        let mut taken = false;
        for _ in 0..100 {
            let now = std::fs::read_dir(&backups)
                .map(|d| d.flatten().map(|e| e.file_name()).collect::<BTreeSet<_>>())
                .unwrap_or_default();
            if now
                .iter()
                .any(|n| !before.contains(n) && n.to_string_lossy().ends_with(".dump"))
            {
                taken = true;
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        assert!(taken, "a backup after night {} closed", i + 1);
    }
    assert_eq!(count(), 2, "the newest two are kept");
    let (ok_list, listed) = run(bin().args(["db", "backups", "--data-dir"]).arg(&data));
    assert!(ok_list && listed.lines().count() == 2, "{listed}");

    // A backup by hand while the service serves (it holds the data directory).
    let file = dir.path().join("by-hand.dump");
    let (done, said) = run(bin()
        .args(["db", "backup", "--out"])
        .arg(&file)
        .args(["--data-dir"])
        .arg(&data));
    assert!(done, "{said}");
    // A restore into the data directory the service holds is refused, even when told to replace.
    let (done, said) = run(bin()
        .args(["db", "restore", "--force"])
        .arg(&file)
        .args(["--data-dir"])
        .arg(&data));
    assert!(
        !done && said.contains("another mahjong-league instance"),
        "{said}"
    );
    // SAFETY: sends SIGTERM to the child this test started.
    unsafe { libc::kill(served.child.id() as i32, libc::SIGTERM) };
    assert!(served.child.wait().unwrap().success());

    // Restored into a new data directory, then served from it: the account and league are there.
    let fresh = dir.path().join("fresh");
    let (done, said) = run(bin()
        .args(["db", "restore"])
        .arg(&file)
        .args(["--data-dir"])
        .arg(&fresh));
    assert!(done, "{said}");
    let (done, said) = run(bin()
        .args(["db", "restore"])
        .arg(&file)
        .args(["--data-dir"])
        .arg(&fresh));
    assert!(!done && said.contains("already holds"), "{said}");
    let mut again = common::serve(&fresh).unwrap();
    let c = reqwest::Client::builder()
        .cookie_store(true)
        .build()
        .unwrap();
    let res = c
        .post(format!("{}/api/v1/session", again.base))
        .json(&json!({"email": "keeper@example.org", "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let shown: Value = c
        .get(format!("{}/api/v1/leagues/{}", again.base, league["id"]))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(shown["name"], "Kept league");
    // SAFETY: sends SIGTERM to the child this test started.
    unsafe { libc::kill(again.child.id() as i32, libc::SIGTERM) };
    assert!(again.child.wait().unwrap().success());
}

/// Issue 36, item 9: backups are private (files 0600 in a 0700 folder, also one made by an
/// earlier version), nights closed again and again take one backup per gap, and they never
/// push out a daily backup: each kind keeps its own newest N.
#[tokio::test]
async fn closing_nights_again_and_again_pushes_out_no_daily_backup_and_backups_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let backups = data.join("backups");
    std::fs::create_dir_all(&backups).unwrap();
    std::fs::set_permissions(&backups, std::fs::Permissions::from_mode(0o755)).unwrap();
    // A daily backup from yesterday's run, readable by all as earlier versions left them.
    let daily = backups.join("mahjong-league-20261124-030000-000-daily.dump");
    std::fs::write(&daily, "a daily backup").unwrap();
    std::fs::set_permissions(&daily, std::fs::Permissions::from_mode(0o644)).unwrap();
    let mut served = common::serve_with(&data, &["--backup-keep", "1"]).expect("serves");
    let c = reqwest::Client::builder()
        .cookie_store(true)
        .build()
        .unwrap();
    let api = |p: &str| format!("{}{p}", served.base);
    let ok = |res: reqwest::Response| {
        assert!(res.status().is_success(), "{}", res.status());
        res
    };
    let league = owned_league(&c, &served, "closer@example.org", "close", "L").await;
    let night: Value = ok(c
        .post(api(&format!("/api/v1/leagues/{}/nights", league["id"])))
        .json(&json!({"date": "2026-03-01"}))
        .send()
        .await
        .unwrap())
    .json()
    .await
    .unwrap();
    // One night closed and reopened 15 times.
    for _ in 0..15 {
        for action in ["close", "reopen"] {
            ok(
                c.post(api(&format!("/api/v1/nights/{}/{action}", night["id"])))
                    .send()
                    .await
                    .unwrap(),
            );
        }
    }
    let names = || {
        let mut v: Vec<String> = std::fs::read_dir(&backups)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().to_string())
            .filter(|n| n.ends_with(".dump"))
            .collect();
        v.sort();
        v
    };
    for _ in 0..100 {
        if names().iter().any(|n| n.ends_with("-night.dump")) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    // Room for a second one, were there no gap.
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    let all = names();
    assert_eq!(
        all.iter().filter(|n| n.ends_with("-night.dump")).count(),
        1,
        "one backup for 15 closes within the gap: {all:?}"
    );
    assert!(daily.exists(), "the daily backup stays: {all:?}");
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&backups), 0o700);
    for name in &all {
        assert_eq!(mode(&backups.join(name)), 0o600, "{name}");
    }
    // A backup by hand is private too.
    let file = dir.path().join("by-hand.dump");
    let (done, said) = run(bin()
        .args(["db", "backup", "--out"])
        .arg(&file)
        .args(["--data-dir"])
        .arg(&data));
    assert!(done, "{said}");
    assert_eq!(mode(&file), 0o600);
    // SAFETY: sends SIGTERM to the child this test started.
    unsafe { libc::kill(served.child.id() as i32, libc::SIGTERM) };
    assert!(served.child.wait().unwrap().success());
}
