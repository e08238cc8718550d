//! One set of limits for every instance (issue 54): two instances of the service on one
//! database, a client sending to both in turn. Each limit a stranger meets holds between them
//! as it holds on one: the apps' rate limit, streams per address, wrong passwords and table
//! code guesses. (Mail budgets are counted in the database already: tests/abuse.rs sends
//! through two instances.)

mod common;

use std::time::{Duration, Instant};

use common::{PASSWORD, TestApp, another_instance, club_owner, one_table, spawn_app_with};
use serde_json::json;

async fn answered(req: reqwest::RequestBuilder) -> reqwest::Response {
    tokio::time::timeout(Duration::from_secs(30), req.send())
        .await
        .expect("the server answered")
        .expect("request sent")
}

/// Two instances on one database, both behind a proxy (so a test names its client's address),
/// with `change` made to both.
async fn two(change: fn(&mut mahjong_league::config::Settings)) -> (TestApp, TestApp) {
    let a = spawn_app_with(|s| {
        s.trust_proxy = true;
        change(s)
    })
    .await;
    let b = another_instance(&a, |s| {
        s.trust_proxy = true;
        change(s)
    })
    .await;
    (a, b)
}

#[tokio::test]
async fn two_instances_at_60_a_minute_answer_60_between_them() {
    let (a, b) = two(|s| s.api_rate_limit = 60).await;
    let client = reqwest::Client::new();
    let started = Instant::now();
    let (mut through, mut refused) = (0u32, 0u32);
    for i in 0..200 {
        let app = if i % 2 == 0 { &a } else { &b };
        let res = answered(
            client
                .get(app.url("/api/v1/leagues"))
                .header("X-Forwarded-For", "203.0.113.40"),
        )
        .await;
        match res.status().as_u16() {
            200 => through += 1,
            429 => {
                refused += 1;
                let wait: u64 = res.headers()["retry-after"]
                    .to_str()
                    .unwrap()
                    .parse()
                    .unwrap();
                assert!(
                    (1..=2).contains(&wait),
                    "one request comes back a second: {wait}"
                );
            }
            other => panic!("request {i}: {other}"),
        }
    }
    // 60 at once, and one more for each second the run took (the allowance refills as it goes).
    let refilled = started.elapsed().as_secs() as u32 + 1;
    println!(
        "200 requests over two instances in {:?}: {through} answered, {refused} refused",
        started.elapsed()
    );
    assert!(
        through <= 60 + refilled,
        "{through} answered in {:?}",
        started.elapsed()
    );
    assert!(
        through >= 55,
        "the limit is not eaten by the sharing: {through}"
    );
    // Another address has its own 60.
    let res = answered(
        client
            .get(b.url("/api/v1/leagues"))
            .header("X-Forwarded-For", "203.0.113.41"),
    )
    .await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["ratelimit-remaining"], "59");
}

#[tokio::test]
async fn streams_per_address_are_counted_across_instances_and_come_back_when_closed() {
    let (a, b) = two(|s| s.streams_per_address = 3).await;
    let owner = club_owner(&a, "streams", "owner@example.org").await;
    let t = one_table(&a, &owner, "streams", &["Ann", "Bea", "Cy", "Di"]).await;
    let open = |app: &TestApp, from: &str| {
        answered(
            owner
                .get(app.url(&format!("/api/v1/leagues/{}/events", t.league)))
                .header("X-Forwarded-For", from.to_string()),
        )
    };
    let held = vec![
        open(&a, "198.51.100.30").await,
        open(&b, "198.51.100.30").await,
        open(&a, "198.51.100.30").await,
    ];
    assert!(held.iter().all(|r| r.status() == 200));
    for app in [&a, &b] {
        let refused = open(app, "198.51.100.30").await;
        assert_eq!(refused.status(), 429);
        assert!(refused.headers().contains_key("retry-after"));
        let text = refused.text().await.unwrap();
        assert!(text.contains("3 event streams"), "{text}");
    }
    assert_eq!(
        open(&b, "198.51.100.31").await.status(),
        200,
        "another address"
    );
    drop(held);
}

/// A stream's end gives its slot back where every instance sees it at once (over HTTP the
/// service notices a client gone only when a write to it fails, up to two keep-alives later),
/// and a process gone quiet holds nothing.
#[tokio::test]
async fn a_closed_stream_frees_its_slot_for_every_instance() {
    use mahjong_league::live::Hub;
    let db = common::fresh_database().await;
    let mut beats = Vec::new();
    let hubs: Vec<std::sync::Arc<Hub>> = (0..2)
        .map(|_| {
            let hub = std::sync::Arc::new(Hub::default());
            hub.set_per_address(3);
            hub.share(db.clone(), uuid::Uuid::new_v4());
            let beating = hub.clone();
            beats.push(tokio::spawn(
                async move { beating.keep_shared(|_| {}).await },
            ));
            hub
        })
        .collect();
    common::passes(2).await;
    let ip: std::net::IpAddr = "198.51.100.30".parse().unwrap();
    let first = hubs[0].hold(Some(ip)).await.unwrap();
    let _second = hubs[0].hold(Some(ip)).await.unwrap();
    let _third = hubs[1].hold(Some(ip)).await.unwrap();
    assert_eq!(hubs[1].hold(Some(ip)).await.err(), Some(3));
    assert_eq!(hubs[0].hold(Some(ip)).await.err(), Some(3));
    drop(first);
    let deadline = Instant::now() + Duration::from_secs(5);
    while hubs[1].hold(Some(ip)).await.is_err() {
        assert!(Instant::now() < deadline, "the slot came back");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Both processes go quiet (their heartbeats stop and are a minute old): a third holds the
    // address's three slots, theirs no longer counted.
    for beat in beats {
        beat.abort();
    }
    sqlx::query("UPDATE instances SET seen_at = seen_at - interval '1 minute'")
        .execute(&db)
        .await
        .unwrap();
    let third = Hub::default();
    third.set_per_address(3);
    third.share(db.clone(), uuid::Uuid::new_v4());
    let mut kept = Vec::new();
    for _ in 0..3 {
        kept.push(
            third
                .hold(Some(ip))
                .await
                .expect("a slot of a quiet process"),
        );
    }
    assert_eq!(third.hold(Some(ip)).await.err(), Some(3));
}

#[tokio::test]
async fn wrong_passwords_and_code_guesses_count_on_every_instance() {
    let (a, b) = two(|_| {}).await;
    let owner = club_owner(&a, "guess", "owner@example.org").await;
    let t = one_table(&a, &owner, "guess", &["Ann", "Bea", "Cy", "Di"]).await;
    let code = common::table_code(&a, &owner, t.night).await;

    // Five wrong passwords for the owner from one address, sent to both in turn: the sixth try,
    // right or not and on either instance, is refused.
    let client = reqwest::Client::new();
    let log_in = |app: &TestApp, password: &str| {
        answered(
            client
                .post(app.url("/api/v1/session"))
                .header("X-Forwarded-For", "198.51.100.50")
                .json(&json!({"email": "owner@example.org", "password": password})),
        )
    };
    for i in 0..5 {
        let res = log_in(if i % 2 == 0 { &a } else { &b }, "not the password").await;
        assert!(
            [401, 422].contains(&res.status().as_u16()),
            "{}",
            res.status()
        );
    }
    for app in [&a, &b] {
        let res = log_in(app, PASSWORD).await;
        assert_eq!(res.status(), 429);
        assert!(res.headers().contains_key("retry-after"));
    }

    // Twenty made-up table codes from one address, in turn: the right code from that address is
    // then not even looked up, on either instance, while another address's is.
    for i in 0..20 {
        let app = if i % 2 == 0 { &a } else { &b };
        let res = answered(
            reqwest::Client::new()
                .get(app.url("/api/v1/session"))
                .header("Cookie", format!("ml_table=ZZZZZZZ{}", i % 10))
                .header("X-Forwarded-For", "198.51.100.60"),
        )
        .await;
        assert_eq!(res.status(), 401);
    }
    let with_code = |app: &TestApp, from: &str| {
        answered(
            reqwest::Client::new()
                .get(app.url("/api/v1/session"))
                .header("Cookie", format!("ml_table={code}"))
                .header("X-Forwarded-For", from.to_string()),
        )
    };
    for app in [&a, &b] {
        assert_eq!(with_code(app, "198.51.100.60").await.status(), 401);
    }
    // From another address the code is looked up: a table, known, though not an account (403).
    assert_eq!(with_code(&b, "198.51.100.61").await.status(), 403);
}

/// The database away under two instances: a caller who used up the shared allowance goes on
/// from there on each instance (next to nothing), not from a whole allowance each; a caller
/// never seen gets each instance's share of one allowance, not one from each.
#[tokio::test]
async fn cut_off_from_the_database_an_instance_goes_on_from_what_it_knew() {
    let (a, b) = two(|s| s.api_rate_limit = 60).await;
    // Both instances have told each other they are alive (a heartbeat every 5 s).
    tokio::time::sleep(Duration::from_millis(5_500)).await;
    let client = reqwest::Client::new();
    let send_both = |n: usize, from: &'static str| {
        let client = client.clone();
        let (a, b) = (a.url("/api/v1/leagues"), b.url("/api/v1/leagues"));
        async move {
            let mut let_through = 0;
            for i in 0..n {
                let url = if i % 2 == 0 { &a } else { &b };
                let res = answered(client.get(url).header("X-Forwarded-For", from)).await;
                if res.status() != 429 {
                    let_through += 1;
                }
            }
            let_through
        }
    };
    let used = send_both(70, "203.0.113.70").await;
    assert!((60..=62).contains(&used), "{used} let through");

    common::database_away(&a, true).await;
    let started = Instant::now();
    let during = send_both(100, "203.0.113.70").await;
    let fresh = send_both(100, "203.0.113.71").await;
    let took = started.elapsed().as_secs() as u32 + 1;
    common::database_away(&a, false).await;
    println!(
        "database away {took} s: {during} of 100 let through for the caller who had used her allowance, {fresh} of 100 for a new one"
    );
    // One request a second comes back to her (at most one per instance's share of it).
    assert!(
        during <= 2 + took,
        "{during} let through in {took} s from an allowance used up"
    );
    assert!(
        fresh <= 60 + 2 * took,
        "a new caller gets a share on each instance, one allowance in all: {fresh}"
    );
    assert!(fresh >= 50, "…and not less: {fresh}");
}

/// Wrong passwords are counted across a crash of PostgreSQL (`kill -9` of the service and its
/// postmaster): an account locked from an address stays locked after the restart.
#[tokio::test]
async fn wrong_password_counts_survive_a_crash_of_postgresql() {
    let dir = tempfile::tempdir().unwrap();
    let mut served = common::serve(dir.path()).expect("the service starts");
    let client = reqwest::Client::new();
    let log_in = |base: String| {
        let client = client.clone();
        async move {
            answered(client.post(format!("{base}/api/v1/session")).json(
                &json!({"email": "locked@example.org", "password": "not the right password"}),
            ))
            .await
            .status()
            .as_u16()
        }
    };
    for i in 0..5 {
        assert_eq!(log_in(served.base.clone()).await, 401, "try {i}");
    }
    assert_eq!(log_in(served.base.clone()).await, 429, "locked");
    let postmaster = common::postmaster_pid(dir.path());
    served.child.kill().unwrap();
    served.child.wait().unwrap();
    // SAFETY: SIGKILL to the postmaster of the service this test started.
    unsafe { libc::kill(postmaster, libc::SIGKILL) };
    let served = common::serve(dir.path()).expect("the service starts again");
    let started = Instant::now();
    loop {
        let ready = reqwest::get(format!("{}/readyz", served.base))
            .await
            .is_ok_and(|r| r.status() == 200);
        if ready {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "not ready");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        log_in(served.base.clone()).await,
        429,
        "still locked after PostgreSQL crashed"
    );
}
