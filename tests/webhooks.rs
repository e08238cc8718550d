//! Webhooks over real HTTP: a local receiver gets every event of the club's leagues, signed,
//! across a kill and restart of the service; a URL that keeps failing is paused and resumed;
//! only organizers manage webhooks.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use common::{
    TestApp, club_owner, fresh_database, one_table, serve_process_on_database, spawn_app,
    spawn_app_with,
};
use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Value, json};
use sha2::Sha256;

const WIN: &str = "F F 2B 2B J 2B 4C 4C 6C 6C 8B 8B J 8B";

#[derive(Debug, Clone)]
struct Received {
    event_id: String,
    event_type: String,
    signature: String,
    body: Vec<u8>,
}

/// A webhook receiver on a free local port: keeps every request, and answers 503 to the first
/// `fail_first` of them (and to every one while `failing` is set).
#[derive(Clone, Default)]
struct Receiver {
    got: Arc<Mutex<Vec<Received>>>,
    fail_first: Arc<AtomicUsize>,
    failing: Arc<std::sync::atomic::AtomicBool>,
    ok: Arc<AtomicUsize>,
    /// Milliseconds each request takes before it is answered (a receiver doing work).
    delay_ms: Arc<std::sync::atomic::AtomicU64>,
    /// Requests left that hang without an answer (a receiver stuck).
    hang_first: Arc<AtomicUsize>,
}

async fn hook(req: HttpRequest, body: web::Bytes, r: web::Data<Receiver>) -> HttpResponse {
    let header = |name: &str| {
        req.headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_string())
            .unwrap_or_default()
    };
    r.got.lock().unwrap().push(Received {
        event_id: header("mahjong-event-id"),
        event_type: header("mahjong-event-type"),
        signature: header("mahjong-signature"),
        body: body.to_vec(),
    });
    if r.hang_first
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok()
    {
        tokio::time::sleep(Duration::from_secs(120)).await;
    }
    let delay = r.delay_ms.load(Ordering::SeqCst);
    if delay > 0 {
        tokio::time::sleep(Duration::from_millis(delay)).await;
    }
    let refuse = r.failing.load(Ordering::SeqCst)
        || r.fail_first
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok();
    if refuse {
        return HttpResponse::ServiceUnavailable().body("not now");
    }
    r.ok.fetch_add(1, Ordering::SeqCst);
    HttpResponse::NoContent().finish()
}

async fn receiver() -> (Receiver, String) {
    let r = Receiver::default();
    let data = web::Data::new(r.clone());
    let server = HttpServer::new(move || {
        App::new()
            .app_data(data.clone())
            .route("/hook", web::post().to(hook))
    })
    .workers(2)
    .bind(("127.0.0.1", 0))
    .unwrap();
    let port = server.addrs()[0].port();
    tokio::spawn(server.run());
    (r, format!("http://127.0.0.1:{port}/hook"))
}

/// Checks a delivery's signature as a receiver would, from the header and the raw body.
fn verify(secret: &str, r: &Received) -> Value {
    let (t, v1) = r
        .signature
        .split_once(',')
        .unwrap_or_else(|| panic!("signature header: {}", r.signature));
    let t = t.strip_prefix("t=").unwrap();
    let v1 = v1.strip_prefix("v1=").unwrap();
    let now = chrono::Utc::now().timestamp();
    assert!(
        (now - t.parse::<i64>().unwrap()).abs() < 300,
        "a fresh timestamp"
    );
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{t}.").as_bytes());
    mac.update(&r.body);
    let want: String = mac
        .finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(v1, want, "the signature verifies");
    let body: Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(body["id"].to_string(), r.event_id);
    assert_eq!(body["type"], r.event_type.as_str());
    body
}

async fn ok_json(req: reqwest::RequestBuilder) -> Value {
    let res = req.send().await.unwrap();
    let status = res.status();
    let text = res.text().await.unwrap();
    assert!(status.is_success(), "{status}: {text}");
    serde_json::from_str(&text).unwrap_or(Value::Null)
}

/// Waits until the receiver has taken (2xx) every event the league has, at most `wait`.
async fn all_taken(r: &Receiver, db: &sqlx::PgPool, wait: Duration) -> Vec<i64> {
    let until = Instant::now() + wait;
    loop {
        let ids: Vec<i64> = sqlx::query_scalar("SELECT id FROM league_events ORDER BY id")
            .fetch_all(db)
            .await
            .unwrap();
        let pending: i64 =
            sqlx::query_scalar("SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'")
                .fetch_one(db)
                .await
                .unwrap();
        if pending == 0 || Instant::now() > until {
            assert_eq!(pending, 0, "every delivery done within {wait:?}");
            let _ = r;
            return ids;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test]
async fn a_receiver_gets_every_event_signed_across_a_service_restart() {
    let db = fresh_database().await;
    let dir = tempfile::tempdir().unwrap();
    let flags = ["--webhooks-allow-private"];
    let mut first = serve_process_on_database(&db, dir.path(), &flags).unwrap();
    let mut app = TestApp {
        address: first.base.clone(),
        client: reqwest::Client::new(),
        db: db.clone(),
    };
    let owner = club_owner(&app, "club", "o@example.org").await;
    let t = one_table(&app, &owner, "club", &["Ann", "Bea", "Cy", "Dot"]).await;
    let (receiver, url) = receiver().await;
    // The first two attempts fail: the service backs off and retries.
    receiver.fail_first.store(2, Ordering::SeqCst);
    let created = ok_json(
        owner
            .post(app.url("/api/v1/clubs/club/webhooks"))
            .json(&json!({ "url": url })),
    )
    .await;
    let secret = created["secret"].as_str().unwrap().to_string();
    assert!(secret.starts_with("mlwh_"));
    let hook_id = created["id"].as_i64().unwrap();

    let games = |app: &TestApp| app.url(&format!("/api/v1/tables/{}/games", t.table));
    for n in 1..=3 {
        ok_json(
            owner
                .post(games(&app))
                .json(&json!({"number": n, "outcome": "mahjong",
            "winner": t.players[n as usize], "hand": WIN, "won_by": "self_pick"})),
        )
        .await;
    }
    // Killed while deliveries wait on the back-off: the webhook not held (a worker killed holding
    // it leaves it to its lease's end, 20 s), the next try a second away at least.
    let mut waited = 0;
    loop {
        let backing_off: bool = sqlx::query_scalar(
            "SELECT EXISTS (SELECT 1 FROM webhook_deliveries WHERE status = 'pending') \
               AND NOT EXISTS (SELECT 1 FROM webhooks WHERE leased_until > now()) \
               AND (SELECT retry_at FROM webhooks) > now() + interval '1 second'",
        )
        .fetch_one(&db)
        .await
        .unwrap();
        if backing_off {
            break;
        }
        waited += 1;
        assert!(waited < 600, "the first failures never came");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    first.child.kill().unwrap();
    first.child.wait().unwrap();
    let pending: i64 =
        sqlx::query_scalar("SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'")
            .fetch_one(&db)
            .await
            .unwrap();
    assert!(pending > 0, "the kill left deliveries waiting");

    // A new process on the same database delivers them, and what happens next.
    let mut second = serve_process_on_database(&db, dir.path(), &flags).unwrap();
    app.address = second.base.clone();
    // The session lives in the database, but the cookie was for the first address's port.
    let owner2 = reqwest::Client::builder()
        .cookie_store(true)
        .build()
        .unwrap();
    ok_json(
        owner2
            .post(app.url("/api/v1/session"))
            .json(&json!({"email": "o@example.org", "password": common::PASSWORD})),
    )
    .await;
    ok_json(
        owner2
            .post(games(&app))
            .json(&json!({"number": 4, "outcome": "wall"})),
    )
    .await;
    ok_json(owner2.post(app.url("/api/v1/games/2/void"))).await;
    ok_json(owner2.post(app.url(&format!("/api/v1/nights/{}/close", t.night)))).await;

    let ids = all_taken(&receiver, &db, Duration::from_secs(40)).await;
    second.child.kill().unwrap();
    second.child.wait().unwrap();

    // 3 games + standings, a wall game + standings, a void + standings, the night closed.
    assert_eq!(ids.len(), 11);
    let got = receiver.got.lock().unwrap().clone();
    let mut taken = Vec::new();
    for r in &got {
        let body = verify(&secret, r);
        assert_eq!(body["league"], t.league);
        let id = body["id"].as_i64().unwrap();
        if !taken.contains(&id) {
            taken.push(id);
        }
    }
    // Every event, first seen in event order, the failed ones again after the back-off.
    assert_eq!(taken, ids);
    assert!(
        got.len() >= ids.len() + 2,
        "two refused attempts were retried"
    );
    let types: Vec<String> = got
        .iter()
        .filter_map(|r| serde_json::from_slice::<Value>(&r.body).ok())
        .map(|b| b["type"].as_str().unwrap().to_string())
        .collect();
    for kind in [
        "game.recorded",
        "standings.changed",
        "game.voided",
        "night.closed",
    ] {
        assert!(types.iter().any(|k| k == kind), "{kind}");
    }
    // The delivery log says what happened to each.
    let log: Value = sqlx::query_scalar(
        "SELECT json_agg(json_build_object('attempts', attempts, 'status', status, 'last_status', last_status) ORDER BY id) \
         FROM webhook_deliveries WHERE webhook_id = $1",
    )
    .bind(hook_id)
    .fetch_one(&db)
    .await
    .unwrap();
    let log = log.as_array().unwrap();
    assert_eq!(log.len(), 11);
    assert!(
        log.iter()
            .all(|d| d["status"] == "delivered" && d["last_status"] == 204)
    );
    assert_eq!(log[0]["attempts"], 3, "refused twice, then taken");
}

#[tokio::test]
async fn a_url_failing_for_a_day_is_paused_and_an_organizer_resumes_it() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "club", "o@example.org").await;
    let t = one_table(&app, &owner, "club", &["Ann", "Bea", "Cy", "Dot"]).await;
    let (receiver, url) = receiver().await;
    receiver.failing.store(true, Ordering::SeqCst);
    let created = ok_json(
        owner
            .post(app.url("/api/v1/clubs/club/webhooks"))
            .json(&json!({ "url": url })),
    )
    .await;
    let id = created["id"].as_i64().unwrap();
    // The same URL twice is refused.
    let res = owner
        .post(app.url("/api/v1/clubs/club/webhooks"))
        .json(&json!({ "url": url }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 409);
    // A receiver that has been failing since yesterday.
    sqlx::query("UPDATE webhooks SET failing_since = now() - interval '25 hours', failures = 40")
        .execute(&app.db)
        .await
        .unwrap();
    ok_json(
        owner
            .post(app.url(&format!("/api/v1/tables/{}/games", t.table)))
            .json(&json!({"number": 1, "outcome": "wall"})),
    )
    .await;
    let log_url = app.url(&format!("/api/v1/clubs/club/webhooks/{id}/deliveries"));
    let until = Instant::now() + Duration::from_secs(10);
    let log = loop {
        let log = ok_json(owner.get(&log_url)).await;
        if !log["webhook"]["paused_at"].is_null() || Instant::now() > until {
            break log;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert!(!log["webhook"]["paused_at"].is_null(), "{log}");
    assert_eq!(log["webhook"]["pending"], 2);
    let first = &log["deliveries"][1];
    assert_eq!(first["type"], "game.recorded");
    assert_eq!(first["status"], "pending");
    assert_eq!(first["last_status"], 503);
    assert!(first["last_error"].as_str().unwrap().contains("503"));
    // Paused: nothing more is tried.
    let tried = receiver.got.lock().unwrap().len();
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(receiver.got.lock().unwrap().len(), tried);

    // The receiver is fixed; resuming sends what waited.
    receiver.failing.store(false, Ordering::SeqCst);
    let resumed =
        ok_json(owner.post(app.url(&format!("/api/v1/clubs/club/webhooks/{id}/resume")))).await;
    assert!(resumed["paused_at"].is_null());
    let until = Instant::now() + Duration::from_secs(10);
    while receiver.ok.load(Ordering::SeqCst) < 2 && Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // The receiver has answered both; the service records each just after its answer.
    let until = Instant::now() + Duration::from_secs(10);
    let hooks = loop {
        let hooks = ok_json(owner.get(app.url("/api/v1/clubs/club/webhooks"))).await;
        if hooks["webhooks"][0]["pending"] == 0 || Instant::now() > until {
            break hooks;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(receiver.ok.load(Ordering::SeqCst), 2);
    assert_eq!(hooks["webhooks"][0]["pending"], 0);
    assert_eq!(hooks["webhooks"][0]["delivered"], 2);
    assert_eq!(hooks["webhooks"][0]["failures"], 0);
    assert!(
        hooks["webhooks"][0].get("secret").is_none(),
        "the secret is shown once"
    );

    // Removed: no more deliveries.
    let res = owner
        .delete(app.url(&format!("/api/v1/clubs/club/webhooks/{id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 204);
    let res = owner.get(&log_url).send().await.unwrap();
    assert_eq!(res.status(), 404);
}

#[tokio::test]
async fn only_organizers_manage_webhooks_and_bad_urls_are_refused() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "club", "o@example.org").await;
    let token = ok_json(
        owner
            .post(app.url("/api/v1/clubs/club/tokens"))
            .json(&json!({"name": "reader", "scopes": ["read"]})),
    )
    .await;
    let reader = token["token"].as_str().unwrap();
    let res = app
        .client
        .post(app.url("/api/v1/clubs/club/webhooks"))
        .bearer_auth(reader)
        .json(&json!({"url": "https://example.org/hook"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 403);
    let res = app
        .client
        .get(app.url("/api/v1/clubs/club/webhooks"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401);
    for (bad, says) in [
        ("ftp://example.org/hook", "https://"),
        ("not a url", "not a URL"),
        ("https://user:pw@example.org/hook", "password"),
    ] {
        let res = owner
            .post(app.url("/api/v1/clubs/club/webhooks"))
            .json(&json!({ "url": bad }))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 422, "{bad}");
        let problem: Value = res.json().await.unwrap();
        assert!(problem.to_string().contains(says), "{problem}");
        assert!(problem.to_string().contains("url"), "{problem}");
    }
    let res = owner
        .get(app.url("/api/v1/clubs/club/webhooks/1/deliveries?limit=5000"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 422);
}

/// Registrations sent at once stop at the club's limit: each is answered 201 or 409, and the
/// club ends with exactly the limit. A request the service could not take at that moment (503,
/// its pool's wait run out on a busy machine) did nothing and says when to try again; it is
/// sent again then, as a client would, and must end as 201 or 409 like the others.
#[tokio::test]
async fn registrations_at_once_stop_at_the_limit() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "club", "o@example.org").await;
    let limit = mahjong_league::domain::play::webhooks::MAX_PER_CLUB;
    let mut waiting: Vec<i64> = (0..limit + 6).collect();
    let mut made = 0;
    for round in 1..=3 {
        let sent = waiting.iter().map(|i| {
            owner
                .post(app.url("/api/v1/clubs/club/webhooks"))
                .json(&json!({ "url": format!("http://127.0.0.1:9/hook-{i}") }))
                .send()
        });
        let answers = futures_util::future::join_all(sent).await;
        let mut again = Vec::new();
        let mut wait_s = 0;
        for (i, answer) in waiting.iter().zip(answers) {
            let res = answer.unwrap();
            match res.status().as_u16() {
                201 => made += 1,
                409 => {
                    let problem: Value = res.json().await.unwrap();
                    assert!(
                        problem["detail"]
                            .as_str()
                            .unwrap()
                            .contains(&format!("already has {limit} webhooks")),
                        "{problem}"
                    );
                }
                503 => {
                    let wait: u64 = res.headers()["retry-after"]
                        .to_str()
                        .unwrap()
                        .parse()
                        .unwrap();
                    assert!((1..=30).contains(&wait), "Retry-After {wait}");
                    eprintln!("registration {i}: 503, sent again after {wait} s");
                    wait_s = wait_s.max(wait);
                    again.push(*i);
                }
                other => panic!("answered {other}: {}", res.text().await.unwrap()),
            }
        }
        waiting = again;
        if waiting.is_empty() {
            break;
        }
        assert!(round < 3, "still 503 after three rounds: {waiting:?}");
        tokio::time::sleep(std::time::Duration::from_secs(wait_s)).await;
    }
    assert_eq!(made, limit);
    let stored: i64 = sqlx::query_scalar("SELECT count(*) FROM webhooks")
        .fetch_one(&app.db)
        .await
        .unwrap();
    assert_eq!(stored, limit);
}

/// The event ids a receiver got, in the order the requests arrived.
fn arrivals(r: &Receiver) -> Vec<i64> {
    r.got
        .lock()
        .unwrap()
        .iter()
        .map(|x| x.event_id.parse().unwrap())
        .collect()
}

/// Issue 36, item 4: three workers (two `serve` processes and the test's) on one database
/// deliver one webhook's events in id order, live and from a backlog: one delivery in flight
/// per webhook across all instances.
#[tokio::test]
async fn several_instances_deliver_one_webhook_in_id_order() {
    let app = spawn_app().await;
    let dir = tempfile::tempdir().unwrap();
    let flags = ["--webhooks-allow-private"];
    let mut others: Vec<_> = (0..2)
        .map(|_| serve_process_on_database(&app.db, dir.path(), &flags).unwrap())
        .collect();
    let owner = club_owner(&app, "order", "o@example.org").await;
    let t = one_table(&app, &owner, "order", &["Ann", "Bea", "Cy", "Dot"]).await;
    let (receiver, url) = receiver().await;
    receiver.delay_ms.store(20, Ordering::SeqCst);
    ok_json(
        owner
            .post(app.url("/api/v1/clubs/order/webhooks"))
            .json(&json!({ "url": url })),
    )
    .await;
    // Three nights, each closed and reopened through its own instance at once: every instance
    // commits events and wakes its own worker while the others deliver.
    let mut nights = vec![t.night];
    for date in ["2026-03-10", "2026-03-17"] {
        let n = ok_json(
            owner
                .post(app.url(&format!("/api/v1/leagues/{}/nights", t.league)))
                .json(&json!({ "date": date })),
        )
        .await;
        nights.push(n["id"].as_i64().unwrap());
    }
    let bases: Vec<String> = std::iter::once(app.address.clone())
        .chain(others.iter().map(|o| o.base.clone()))
        .collect();
    let close_and_reopen = |rounds: usize| {
        let runs = nights.iter().zip(&bases).map(|(night, base)| {
            let owner = owner.clone();
            let close = format!("{base}/api/v1/nights/{night}/close");
            let reopen = format!("{base}/api/v1/nights/{night}/reopen");
            async move {
                for _ in 0..rounds {
                    ok_json(owner.post(&close)).await;
                    ok_json(owner.post(&reopen)).await;
                    tokio::time::sleep(Duration::from_millis(15)).await;
                }
            }
        });
        futures_util::future::join_all(runs)
    };
    // Live: events as they happen.
    close_and_reopen(30).await;
    let ids = all_taken(&receiver, &app.db, Duration::from_secs(60)).await;
    assert!(ids.len() >= 90, "{}", ids.len());
    assert_eq!(arrivals(&receiver), ids, "live deliveries in id order");

    // A backlog: the webhook paused while events pile up, then resumed.
    sqlx::query("UPDATE webhooks SET paused_at = now()")
        .execute(&app.db)
        .await
        .unwrap();
    close_and_reopen(40).await;
    let hook: i64 = sqlx::query_scalar("SELECT id FROM webhooks")
        .fetch_one(&app.db)
        .await
        .unwrap();
    ok_json(owner.post(app.url(&format!("/api/v1/clubs/order/webhooks/{hook}/resume")))).await;
    let ids = all_taken(&receiver, &app.db, Duration::from_secs(60)).await;
    assert!(ids.len() >= 210, "{}", ids.len());
    assert_eq!(arrivals(&receiver), ids, "the backlog in id order");
    for o in &mut others {
        o.child.kill().unwrap();
        o.child.wait().unwrap();
    }
}

/// Issue 36, item 4: an instance killed in the middle of a delivery: another instance goes on
/// within 30 s, sending again only the delivery that was in flight.
#[tokio::test]
async fn after_an_instance_is_killed_another_resumes_the_backlog_within_30_s() {
    let db = fresh_database().await;
    let dir = tempfile::tempdir().unwrap();
    let flags = ["--webhooks-allow-private"];
    let mut first = serve_process_on_database(&db, dir.path(), &flags).unwrap();
    let app = TestApp {
        address: first.base.clone(),
        client: reqwest::Client::new(),
        db: db.clone(),
    };
    let owner = club_owner(&app, "kill", "o@example.org").await;
    let t = one_table(&app, &owner, "kill", &["Ann", "Bea", "Cy", "Dot"]).await;
    let (receiver, url) = receiver().await;
    receiver.hang_first.store(1, Ordering::SeqCst);
    ok_json(
        owner
            .post(app.url("/api/v1/clubs/kill/webhooks"))
            .json(&json!({ "url": url })),
    )
    .await;
    for _ in 0..5 {
        ok_json(owner.post(app.url(&format!("/api/v1/nights/{}/close", t.night)))).await;
        ok_json(owner.post(app.url(&format!("/api/v1/nights/{}/reopen", t.night)))).await;
    }
    // The first delivery is in flight (the receiver holds it): the instance dies.
    let until = Instant::now() + Duration::from_secs(20);
    while arrivals(&receiver).is_empty() {
        assert!(Instant::now() < until, "the first delivery never came");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    first.child.kill().unwrap();
    first.child.wait().unwrap();
    let killed = Instant::now();
    let mut second = serve_process_on_database(&db, dir.path(), &flags).unwrap();
    while arrivals(&receiver).len() < 2 {
        assert!(
            killed.elapsed() < Duration::from_secs(30),
            "no delivery within 30 s of the kill"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let resumed = killed.elapsed();
    eprintln!("deliveries resumed {resumed:?} after the kill");
    let ids = all_taken(&receiver, &db, Duration::from_secs(30)).await;
    let got = arrivals(&receiver);
    // The one in flight went twice; every other once, in order.
    assert_eq!(got[0], ids[0]);
    assert_eq!(&got[1..], &ids[..], "{got:?}");
    second.child.kill().unwrap();
    second.child.wait().unwrap();
}

/// An app developer registers a receiver and sends it a test event: it arrives signed like every
/// delivery, the answer says what the receiver answered, and nothing goes in the delivery log.
/// A receiver that refuses is said as such. On a service that refuses private addresses, the
/// refusal says how to develop against one.
#[tokio::test]
async fn a_test_event_reaches_the_receiver_signed_and_private_addresses_say_how_to_develop() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "club", "o@example.org").await;
    let (r, url) = receiver().await;
    let made = ok_json(
        owner
            .post(app.url("/api/v1/clubs/club/webhooks"))
            .json(&json!({ "url": url })),
    )
    .await;
    let id = made["id"].as_i64().unwrap();
    let secret = made["secret"].as_str().unwrap().to_string();
    let sent =
        ok_json(owner.post(app.url(&format!("/api/v1/clubs/club/webhooks/{id}/test")))).await;
    assert_eq!(sent["delivered"], true, "{sent}");
    assert_eq!(sent["status"], 204);
    assert_eq!(sent["error"], Value::Null);
    let got = r.got.lock().unwrap().clone();
    assert_eq!(got.len(), 1);
    let body = verify(&secret, &got[0]);
    assert_eq!(body["type"], "webhook.test");
    assert_eq!(body["data"]["webhook"], id);
    assert_eq!(body["data"]["club"], "club");
    assert_eq!(body, sent["event"], "the answer shows the event sent");
    let log =
        ok_json(owner.get(app.url(&format!("/api/v1/clubs/club/webhooks/{id}/deliveries")))).await;
    assert_eq!(log["deliveries"], json!([]), "a test is not a delivery");

    // A receiver that refuses: said, with its status.
    r.failing.store(true, Ordering::SeqCst);
    let sent =
        ok_json(owner.post(app.url(&format!("/api/v1/clubs/club/webhooks/{id}/test")))).await;
    assert_eq!(sent["delivered"], false);
    assert_eq!(sent["status"], 503);
    assert!(sent["error"].as_str().unwrap().contains("503"), "{sent}");
    // Only the club's organizers test its webhooks; another id is not found.
    let res = app
        .client
        .post(app.url(&format!("/api/v1/clubs/club/webhooks/{id}/test")))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401);
    let res = owner
        .post(app.url(&format!("/api/v1/clubs/club/webhooks/{}/test", id + 1)))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);

    // A service refusing private addresses says how to develop against one.
    let strict = spawn_app_with(|s| s.webhooks_allow_private = false).await;
    let owner = club_owner(&strict, "club", "o@example.org").await;
    for local in [
        url.as_str(),
        "https://localhost/hook",
        "https://10.1.2.3/hook",
    ] {
        let res = owner
            .post(strict.url("/api/v1/clubs/club/webhooks"))
            .json(&json!({ "url": local }))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 422, "{local}");
        let problem: Value = res.json().await.unwrap();
        let detail = problem["errors"][0]["message"].as_str().unwrap();
        assert!(
            detail.contains("--webhooks-allow-private"),
            "{local}: {detail}"
        );
    }
}
