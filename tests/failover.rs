//! A database URL with several hosts, as libpq reads them (issue 54): the service connects to
//! the first host that takes a connection as a writable primary, and says which hosts it tried
//! when none does.

#[path = "common/browser.rs"]
mod browser;
mod common;

use browser::Gate;

fn dead_port() -> u16 {
    // A port just freed: nothing listens on it.
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// The test server's URL for the database `name`, with `hosts` in place of its one host.
fn with_hosts(name: &str, hosts: &str, query: &str) -> String {
    let url = url::Url::parse(&std::env::var("TEST_DATABASE_URL").unwrap()).unwrap();
    let user = match url.password() {
        Some(p) => format!("{}:{p}@", url.username()),
        None => format!("{}@", url.username()),
    };
    format!("postgres://{user}{hosts}/{name}{query}")
}

// The gate runs on the test's runtime while `serve_with` waits for the process: two threads.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_multi_host_url_reaches_the_writable_host_and_says_which_it_tried() {
    let db = common::fresh_database().await;
    let name = db.connect_options().get_database().unwrap().to_string();
    let gate = Gate::to_test_database().await;
    let live = gate.host().to_string();
    let dead = format!("127.0.0.1:{}", dead_port());

    // The first host is away: the service starts on the second and serves.
    let url = with_hosts(
        &name,
        &format!("{dead},{live}"),
        "?target_session_attrs=read-write",
    );
    let dir = tempfile::tempdir().unwrap();
    let mut served = common::serve_with(dir.path(), &["--database-url", &url]).unwrap();
    let res = reqwest::get(format!("{}/healthz", served.base))
        .await
        .unwrap();
    assert!(res.status().is_success(), "{}", res.status());
    let _ = served.child.kill();
    let _ = served.child.wait();

    // No host takes a connection: the service stops at once, naming each host and why.
    let url = with_hosts(
        &name,
        &format!("{dead},127.0.0.1:{}", dead_port()),
        "?target_session_attrs=read-write",
    );
    let dir = tempfile::tempdir().unwrap();
    let refused = common::serve_with(dir.path(), &["--database-url", &url])
        .err()
        .expect("no host to serve from");
    assert!(
        refused.contains("no host of DATABASE_URL took a connection as a writable primary")
            && refused.contains(&dead),
        "{refused}"
    );

    // A target the service cannot use is refused in words.
    let url = with_hosts(&name, &live, "?target_session_attrs=standby");
    let dir = tempfile::tempdir().unwrap();
    let refused = common::serve_with(dir.path(), &["--database-url", &url])
        .err()
        .expect("a standby cannot be written to");
    assert!(
        refused.contains("target_session_attrs=standby is not one the service can use"),
        "{refused}"
    );
}

/// The host in use goes away (its connections cut, new ones refused): the service finds the
/// next host of its URL that writes, and answers again from it.
// The gates run on the test's runtime while `serve_with` waits for the process: two threads.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_service_follows_its_database_to_the_next_host_when_the_first_goes_away() {
    let db = common::fresh_database().await;
    let name = db.connect_options().get_database().unwrap().to_string();
    // Two hosts in the URL, each a gate in front of the test server.
    let a = Gate::to_test_database().await;
    let b = Gate::to_test_database().await;
    let url = with_hosts(
        &name,
        &format!("{},{}", a.host(), b.host()),
        "?target_session_attrs=read-write",
    );
    let dir = tempfile::tempdir().unwrap();
    let mut served = common::serve_with(dir.path(), &["--database-url", &url]).unwrap();
    let ready = || async {
        reqwest::get(format!("{}/readyz", served.base))
            .await
            .map(|r| r.status().as_u16())
            .unwrap_or(0)
    };
    assert_eq!(ready().await, 200);

    a.set_open(false);
    let t0 = std::time::Instant::now();
    let mut answered = 0;
    while t0.elapsed() < std::time::Duration::from_secs(20) {
        answered = ready().await;
        if answered == 200 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    // A read that needs a fresh connection, and a write.
    assert_eq!(answered, 200, "ready again through the second host");
    println!(
        "ready again {:?} after the first host went away",
        t0.elapsed()
    );
    let res = reqwest::Client::new()
        .post(format!("{}/api/v1/users", served.base))
        .json(&serde_json::json!({"email": "rose@example.org", "display_name": "Rose", "password": common::PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 202, "a write through the second host");
    let _ = served.child.kill();
    let _ = served.child.wait();
}
