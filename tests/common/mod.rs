//! Test harness: the real application on port 0 against a fresh database of its own, and an
//! HTTP client with a cookie store. The server comes from TEST_DATABASE_URL, which `make test`
//! sets after starting a throwaway PostgreSQL.

#![allow(dead_code)]

pub mod smtp;
pub mod sse;
pub mod writing;

use std::str::FromStr;

use mahjong_league::config::{LogFormat, Secret, Settings};
use mahjong_league::startup::Application;
use sqlx::postgres::PgConnectOptions;
use sqlx::{Connection, PgPool};

pub struct TestApp {
    pub address: String,
    pub client: reqwest::Client,
    pub db: PgPool,
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.address, path)
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client
            .get(self.url(path))
            .send()
            .await
            .expect("request sent")
    }
}

fn admin_options() -> PgConnectOptions {
    let url = std::env::var("TEST_DATABASE_URL")
        .expect("TEST_DATABASE_URL is not set: run the tests with `make test`, which starts a throwaway PostgreSQL");
    PgConnectOptions::from_str(&url).expect("TEST_DATABASE_URL is a PostgreSQL URL")
}

/// A connection to the test server's `postgres` database, for what a test does to the server
/// itself (closing a database to connections, ending sessions).
pub async fn admin_connection() -> sqlx::PgConnection {
    sqlx::PgConnection::connect_with(&admin_options().database("postgres"))
        .await
        .expect("connect to the test server")
}

/// A pool as the service opens one. The service's pool gives up after 2 s (then it answers
/// 503); a machine busy with the rest of the suite can take longer to open a first connection,
/// so setup tries again.
async fn connect_patiently(options: PgConnectOptions) -> PgPool {
    let mut tries = 0;
    loop {
        match mahjong_league::storage::connect_with(options.clone()).await {
            Ok(pool) => return pool,
            Err(e) if tries < 4 => {
                tries += 1;
                eprintln!("connecting to the test database, try {tries}: {e:#}");
            }
            Err(e) => panic!("connect to the test database: {e:#}"),
        }
    }
}

/// How often the background workers of a test's service look for work (`Settings::worker_pass`;
/// 2 s outside the tests): the mail worker every pass, open play's sweep every 2.5.
pub const PASS: std::time::Duration = std::time::Duration::from_millis(200);

/// Waits while `n` passes of the background workers go by: what they would do has been done.
pub async fn passes(n: u32) {
    tokio::time::sleep(PASS * n).await;
}

/// A new, migrated database of its own: a copy of the migrated template (a fraction of a
/// second, where running every migration took one to three under a busy suite).
pub async fn fresh_database() -> PgPool {
    let admin = admin_options();
    let template = migrated_template(&admin).await;
    let name = format!("test_{}", uuid::Uuid::new_v4().simple());
    let mut conn = sqlx::PgConnection::connect_with(&admin)
        .await
        .expect("connect to the test server");
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "CREATE DATABASE \"{name}\" TEMPLATE \"{template}\""
    )))
    .execute(&mut conn)
    .await
    .expect("create the test database");
    conn.close().await.ok();
    connect_patiently(admin.clone().database(&name)).await
}

/// The name of a database on the test server holding every migration, made by the first test
/// that needs it (the others wait on an advisory lock) and named by the migrations' checksums,
/// so a changed or added migration makes a new one. Nothing ever connects to it but the test
/// that makes it, so copying it is allowed.
async fn migrated_template(admin: &PgConnectOptions) -> String {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    for m in sqlx::migrate!("./migrations").iter() {
        hash.update(m.version.to_le_bytes());
        hash.update(&m.checksum);
    }
    let digest: String = hash.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let name = format!("test_template_{digest}");
    let mut conn = sqlx::PgConnection::connect_with(admin)
        .await
        .expect("connect to the test server");
    sqlx::query("SELECT pg_advisory_lock(hashtext($1))")
        .bind(&name)
        .execute(&mut conn)
        .await
        .expect("take the template's lock");
    let made: bool =
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)")
            .bind(&name)
            .fetch_one(&mut conn)
            .await
            .expect("look for the template");
    if !made {
        // Built under another name and renamed once whole: a test killed halfway leaves no
        // template that lacks a migration.
        let building = format!("test_building_{}", uuid::Uuid::new_v4().simple());
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "CREATE DATABASE \"{building}\""
        )))
        .execute(&mut conn)
        .await
        .expect("create the template");
        let pool = connect_patiently(admin.clone().database(&building)).await;
        mahjong_league::storage::migrate(&pool)
            .await
            .expect("migrate");
        pool.close().await;
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "ALTER DATABASE \"{building}\" RENAME TO \"{name}\""
        )))
        .execute(&mut conn)
        .await
        .expect("name the template");
    }
    conn.close().await.ok();
    name
}

/// Spawns the application on a free port against a fresh database. The application has a pool
/// of its own: what a test writes through `TestApp::db` comes, as far as the application can
/// tell, from another process (heard through the database's change notices).
pub async fn spawn_app() -> TestApp {
    spawn_app_with(|_| {}).await
}

/// As `spawn_app`, with settings changed by `change` (the apps' rate limits, say).
pub async fn spawn_app_with(change: impl FnOnce(&mut Settings)) -> TestApp {
    let db = fresh_database().await;
    let own = connect_patiently(db.connect_options().as_ref().clone()).await;
    serve_on(db, own, change)
}

/// A second instance of the service on the database of `app`, as two processes behind one
/// proxy would run (each with its own pool and memory).
pub async fn another_instance(app: &TestApp, change: impl FnOnce(&mut Settings)) -> TestApp {
    let own = connect_patiently(app.db.connect_options().as_ref().clone()).await;
    serve_on(app.db.clone(), own, change)
}

fn serve_on(db: PgPool, own: PgPool, change: impl FnOnce(&mut Settings)) -> TestApp {
    // The service's warnings and errors go to the test's own output, which the runner shows
    // when the test fails (a 500's cause is then in CI's log).
    let _ = tracing_subscriber::fmt()
        .with_test_writer()
        .with_env_filter("warn")
        .try_init();
    let mut settings = Settings {
        bind: "127.0.0.1:0".into(),
        data_dir: std::env::temp_dir(),
        database_url: None,
        log_format: LogFormat::Human,
        session_key: Secret::new("k".repeat(64)),
        demo: false,
        trust_proxy: false,
        webhooks_allow_private: true,
        // Tests send requests as fast as they can; the limits have a test of their own.
        api_rate_limit: 0,
        token_rate_limit: 0,
        backup_keep: 0,
        backup_every_hours: 24,
        backup_gap_minutes: 10,
        metrics_token: None,
        cache_mb: None,
        streams_per_address: 64,
        smtp_url: None,
        mail_from: "League <league@example.org>".into(),
        public_url: None,
        mail_per_club_day: 2000,
        outside_mail_per_account_day: 50,
        clubs_per_account_day: 3,
        asked_mail_per_address_day: 3,
        member_mail_per_day: 10,
        worker_pass: Some(PASS),
    };
    change(&mut settings);
    let app = Application::build(&settings, own).expect("build the app");
    let address = format!("http://127.0.0.1:{}", app.port());
    tokio::spawn(app.run_until_stopped());
    let client = browser_client();
    TestApp {
        address,
        client,
        db,
    }
}

pub const PASSWORD: &str = "correct horse battery";

/// A client with cookies of its own that shows redirects rather than following them, as a test
/// of a form's answer needs.
pub fn browser_client() -> reqwest::Client {
    reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("http client")
}

/// The text of what `client` gets at `url` (a page, say), whatever its status.
pub async fn text_at(client: &reqwest::Client, url: &str) -> String {
    client
        .get(url)
        .send()
        .await
        .expect("request sent")
        .text()
        .await
        .expect("a text answer")
}

/// A client of its own (its own cookies), signed up and so logged in as a new user.
pub async fn signed_up(app: &TestApp, email: &str) -> reqwest::Client {
    let client = reqwest::Client::builder()
        .cookie_store(true)
        .build()
        .expect("http client");
    let res = client
        .post(app.url("/api/v1/users"))
        .json(&serde_json::json!({"email": email, "display_name": email}))
        .send()
        .await
        .expect("request sent");
    assert_eq!(res.status(), 202, "sign up {email}");
    assert!(
        !res.headers().contains_key("deprecation"),
        "nothing retiring was used"
    );
    let res = finish_sign_up(&app.db, &app.address, &client, email).await;
    assert_eq!(res.status(), 201, "finish signing up {email}");
    client
}

/// Follows the link of the sign-up mail to `email` (read from the outbox of `db`, waiting for
/// the mail worker to write it) with `client`, as the service at `base` is asked to.
pub async fn finish_sign_up(
    db: &PgPool,
    base: &str,
    client: &reqwest::Client,
    email: &str,
) -> reqwest::Response {
    let link = wait_mailed_path(db, "signup", email, "/signup/").await;
    let token = link.trim_start_matches("/signup/");
    client
        .post(format!("{base}/api/v1/sign-ups/{token}"))
        .json(&serde_json::json!({"password": PASSWORD}))
        .send()
        .await
        .expect("request sent")
}

/// As `mailed_path`, waiting (up to 10 s) for the mail worker to write the mail.
pub async fn wait_mailed_path(db: &PgPool, kind: &str, to: &str, prefix: &str) -> String {
    for _ in 0..100 {
        let body: Option<String> = sqlx::query_scalar(
            "SELECT text_body FROM mail_outbox WHERE kind = $1 AND lower(to_address) = lower($2) \
             ORDER BY id DESC LIMIT 1",
        )
        .bind(kind)
        .bind(to)
        .fetch_optional(db)
        .await
        .unwrap_or(None);
        if let Some(body) = body {
            return path_in(&body, prefix);
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("no {kind} mail to {to} within 10 s");
}

/// The path starting `prefix` in a message's text.
fn path_in(body: &str, prefix: &str) -> String {
    let at = body
        .find(prefix)
        .unwrap_or_else(|| panic!("no {prefix} link in: {body}"));
    body[at..]
        .split_whitespace()
        .next()
        .expect("a link")
        .to_string()
}

/// The path of the link (`/invitations/…`, `/reset/…`) in the latest mail of `kind` to `to`,
/// read from the outbox (written in the same transaction as what it is about).
pub async fn mailed_path(app: &TestApp, kind: &str, to: &str, prefix: &str) -> String {
    wait_mailed_path(&app.db, kind, to, prefix).await
}

/// `owner` invites `email` to the club `slug` as `role`, and `joiner` (logged in) follows the
/// mailed link and joins.
pub async fn joined(
    app: &TestApp,
    owner: &reqwest::Client,
    slug: &str,
    email: &str,
    role: &str,
    joiner: &reqwest::Client,
) {
    let res = owner
        .put(app.url(&format!("/api/v1/clubs/{slug}/members")))
        .json(&serde_json::json!({"email": email, "role": role}))
        .send()
        .await
        .expect("request sent");
    assert_eq!(res.status(), 202, "invite {email} to {slug}");
    join_by_mail(app, email, slug, joiner).await;
}

/// `joiner` (logged in) follows the invitation mailed to `email` and joins `slug`: the answer.
async fn join_by_mail(
    app: &TestApp,
    email: &str,
    slug: &str,
    joiner: &reqwest::Client,
) -> serde_json::Value {
    let link = mailed_path(app, "invitation", email, "/invitations/").await;
    let res = joiner
        .post(app.url(&format!("/api/v1{link}")))
        .json(&serde_json::json!({}))
        .send()
        .await
        .expect("request sent");
    assert_eq!(res.status(), 200, "{email} joins {slug}");
    res.json().await.expect("a JSON answer")
}

/// A new user (signed up and logged in) who joined the club `slug` as `role` by invitation.
pub async fn member_of(
    app: &TestApp,
    owner: &reqwest::Client,
    slug: &str,
    email: &str,
    role: &str,
) -> reqwest::Client {
    let client = signed_up(app, email).await;
    joined(app, owner, slug, email, role, &client).await;
    client
}

/// A new user (signed up and logged in) invited from the row of the club's player `player` and
/// joined as that player (one roster: the player is linked to their account).
pub async fn member_as(
    app: &TestApp,
    owner: &reqwest::Client,
    slug: &str,
    email: &str,
    player: i64,
) -> reqwest::Client {
    let client = signed_up(app, email).await;
    let res = owner
        .post(app.url(&format!("/api/v1/clubs/{slug}/players/{player}/invitation")))
        .json(&serde_json::json!({"email": email}))
        .send()
        .await
        .expect("request sent");
    assert_eq!(res.status(), 202, "invite {email} as player {player}");
    let joined = join_by_mail(app, email, slug, &client).await;
    assert_eq!(joined["player"]["id"], player, "{joined}");
    client
}

/// A client of its own logged in as `email` through the API.
pub async fn logged_in(app: &TestApp, email: &str, password: &str) -> reqwest::Client {
    let client = reqwest::Client::builder()
        .cookie_store(true)
        .build()
        .expect("http client");
    let res = client
        .post(app.url("/api/v1/session"))
        .json(&serde_json::json!({ "email": email, "password": password }))
        .send()
        .await
        .expect("request sent");
    assert_eq!(res.status(), 200, "{email} logs in");
    client
}

/// Table 1's code, as the organizer opens the night's table codes on its page.
pub async fn table_code(app: &TestApp, owner: &reqwest::Client, night: i64) -> String {
    let night_page = text_at(owner, &app.url(&format!("/nights/{night}"))).await;
    let codes = owner
        .post(app.url(&format!("/nights/{night}/codes")))
        .form(&[("csrf", csrf_of(&night_page).as_str())])
        .send()
        .await
        .expect("request sent")
        .text()
        .await
        .expect("the codes page");
    codes
        .split("id=\"code-1\">")
        .nth(1)
        .and_then(|r| r.split('<').next())
        .expect("table 1's code")
        .to_string()
}

/// A new user who owns a new club with this slug.
pub async fn club_owner(app: &TestApp, slug: &str, email: &str) -> reqwest::Client {
    let client = signed_up(app, email).await;
    let res = client
        .post(app.url("/api/v1/clubs"))
        .json(&serde_json::json!({"slug": slug, "name": slug}))
        .send()
        .await
        .expect("request sent");
    assert_eq!(res.status(), 201, "create club {slug}");
    client
}

/// A league on the demo card (nmjl-money) with one night whose only table seats the players
/// `names`, created in the club `slug` by its owner, in seat order E S W N.
pub struct OneTable {
    pub league: i64,
    pub night: i64,
    pub table: i64,
    pub players: Vec<i64>,
}

/// The JSON of a successful answer; a failure names its status and body.
pub async fn ok_json(res: reqwest::Response) -> serde_json::Value {
    let status = res.status();
    let text = res.text().await.expect("a body");
    assert!(status.is_success(), "{status}: {text}");
    serde_json::from_str(&text).expect("a JSON answer")
}

async fn json_of(req: reqwest::RequestBuilder) -> serde_json::Value {
    let res = req.send().await.expect("request sent");
    assert!(res.status().is_success(), "{}", res.status());
    res.json().await.expect("a JSON answer")
}

pub async fn one_table(
    app: &TestApp,
    owner: &reqwest::Client,
    slug: &str,
    names: &[&str],
) -> OneTable {
    let mut players = Vec::new();
    for name in names {
        let url = app.url(&format!("/api/v1/clubs/{slug}/players"));
        let p = json_of(owner.post(url).json(&serde_json::json!({"name": name}))).await;
        players.push(p["id"].as_i64().unwrap());
    }
    let league = json_of(
        owner
            .post(app.url(&format!("/api/v1/clubs/{slug}/leagues")))
            .json(&serde_json::json!({"name": "L", "card": "demo-2026", "ruleset": "nmjl-money"})),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let night = json_of(
        owner
            .post(app.url(&format!("/api/v1/leagues/{league}/nights")))
            .json(&serde_json::json!({"date": "2026-03-03"})),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    for p in &players {
        json_of(owner.put(app.url(&format!("/api/v1/nights/{night}/checkins/{p}")))).await;
    }
    let locked = json_of(
        owner
            .put(app.url(&format!("/api/v1/nights/{night}/tables")))
            .json(&serde_json::json!({"tables": [players.clone()]})),
    )
    .await;
    OneTable {
        league,
        night,
        table: locked["tables"][0]["id"].as_i64().unwrap(),
        players,
    }
}

/// A `serve` on its own data directory, and the address it serves on.
pub struct Served {
    pub child: std::process::Child,
    pub base: String,
    /// The data directory (its `mail/` holds the `.eml` files of a service with no SMTP server).
    pub data: std::path::PathBuf,
}

/// A service still running when its test ends (passed, failed or panicked) is stopped as an
/// operator would: TERM (it stops its own PostgreSQL), then KILL after 15 s.
impl Drop for Served {
    fn drop(&mut self) {
        if !matches!(self.child.try_wait(), Ok(None)) {
            return;
        }
        // SAFETY: a signal to the service process this test started.
        unsafe {
            libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM);
        }
        for _ in 0..150 {
            if !matches!(self.child.try_wait(), Ok(None)) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Served {
    /// Signs `client` up as `email` on this service, following the link of the mailed
    /// `.eml` file: the client is then logged in.
    pub async fn sign_up(&self, client: &reqwest::Client, email: &str) {
        let res = client
            .post(format!("{}/api/v1/users", self.base))
            .json(&serde_json::json!({"email": email, "display_name": email, "password": PASSWORD}))
            .send()
            .await
            .expect("request sent");
        assert_eq!(res.status(), 202, "sign up {email}");
        let link = self.mailed_link(email, "/signup/").await;
        let token = link.rsplit('/').next().unwrap();
        let res = client
            .post(format!("{}/api/v1/sign-ups/{token}", self.base))
            .json(&serde_json::json!({"password": PASSWORD}))
            .send()
            .await
            .expect("request sent");
        assert_eq!(res.status(), 201, "finish signing up {email}");
    }

    /// The link containing `path_start` in the latest `.eml` file to `email` (up to 10 s).
    pub async fn mailed_link(&self, email: &str, path_start: &str) -> String {
        let dir = self.data.join("mail");
        for _ in 0..100 {
            let mut files: Vec<_> = std::fs::read_dir(&dir)
                .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
                .unwrap_or_default();
            files.sort();
            for f in files.iter().rev() {
                let raw = std::fs::read(f).unwrap_or_default();
                let Some(m) = mail_parser::MessageParser::default().parse(&raw) else {
                    continue;
                };
                let to_them = m
                    .to()
                    .and_then(|a| a.first())
                    .and_then(|a| a.address())
                    .is_some_and(|a| a.eq_ignore_ascii_case(email));
                let text = m.body_text(0).unwrap_or_default().to_string();
                if to_them
                    && let Some(link) = text
                        .split_whitespace()
                        .find(|w| w.starts_with("http") && w.contains(path_start))
                {
                    return link.to_string();
                }
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        panic!(
            "no mail to {email} with a {path_start} link in {}",
            dir.display()
        );
    }
}

pub fn serve(dir: &std::path::Path) -> Result<Served, String> {
    serve_with(dir, &[])
}

/// A `serve` process on the database of `app` (as a second machine would run one).
pub fn serve_process_on(app: &TestApp, dir: &std::path::Path) -> Result<Served, String> {
    serve_process_on_database(&app.db, dir, &[])
}

/// A `serve` process on the database of `db`, with more flags.
pub fn serve_process_on_database(
    db: &PgPool,
    dir: &std::path::Path,
    extra: &[&str],
) -> Result<Served, String> {
    let name = db.connect_options().get_database().unwrap().to_string();
    let mut url = url::Url::parse(&std::env::var("TEST_DATABASE_URL").unwrap()).unwrap();
    url.set_path(&format!("/{name}"));
    let mut args = vec!["--database-url", url.as_str()];
    args.extend_from_slice(extra);
    serve_with(dir, &args)
}

pub fn serve_with(dir: &std::path::Path, extra: &[&str]) -> Result<Served, String> {
    use std::io::{BufRead, BufReader};
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mahjong-league"))
        .args(["serve", "--bind", "127.0.0.1:0", "--data-dir"])
        .arg(dir)
        .args(extra)
        .env("MAHJONG_SESSION_KEY", "k".repeat(64))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Some(url) = line.split("serving on ").nth(1) {
                let _ = tx.send(url.trim().trim_end_matches('/').to_string());
            }
        }
    });
    match rx.recv_timeout(std::time::Duration::from_secs(60)) {
        Ok(base) => Ok(Served {
            child,
            base,
            data: dir.to_path_buf(),
        }),
        Err(_) => {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            Err(String::from_utf8_lossy(&out.stderr).to_string())
        }
    }
}

pub fn postmaster_pid(dir: &std::path::Path) -> i32 {
    let text = std::fs::read_to_string(dir.join("postgres/data/postmaster.pid")).unwrap();
    text.lines().next().unwrap().trim().parse().unwrap()
}

/// Closes (or reopens) the app's database to connections, ending the sessions it has.
pub async fn database_away(app: &TestApp, away: bool) {
    let name = app.db.connect_options().get_database().unwrap().to_string();
    let mut admin = admin_connection().await;
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "ALTER DATABASE \"{name}\" ALLOW_CONNECTIONS {}",
        if away { "false" } else { "true" }
    )))
    .execute(&mut admin)
    .await
    .unwrap();
    if away {
        sqlx::query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()")
            .bind(&name)
            .execute(&mut admin)
            .await
            .unwrap();
    }
}

/// The CSRF token in a page's forms.
pub fn csrf_of(html: &str) -> String {
    html.split("name=\"csrf\" value=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .expect("a form with a CSRF token")
        .to_string()
}
