//! Faults (issue 13): the database away answers 503 with `Retry-After` quickly, in the format of
//! its part of the site, and the service comes back by itself.

mod common;

use std::time::Duration;

use common::{club_owner, spawn_app};
use serde_json::json;

/// A guard against a request that never ends (not a speed limit).
async fn answered(req: reqwest::RequestBuilder) -> reqwest::Response {
    tokio::time::timeout(Duration::from_secs(20), req.send())
        .await
        .expect("the service answered")
        .expect("request sent")
}

#[tokio::test]
async fn the_database_away_is_a_503_and_the_service_comes_back() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "outage", "owner@example.org").await;
    common::database_away(&app, true).await;

    let res = answered(owner.get(app.url("/api/v1/clubs/outage/players"))).await;
    assert_eq!(res.status(), 503);
    assert_eq!(res.headers()["content-type"], "application/problem+json");
    let wait: u64 = res.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(wait >= 1);
    let body: serde_json::Value = res.json().await.unwrap();
    assert!(
        body["detail"].as_str().unwrap().contains("database"),
        "{body}"
    );

    let res = answered(
        owner
            .post(app.url("/api/v1/clubs/outage/players"))
            .json(&json!({"name": "Pat"})),
    )
    .await;
    assert_eq!(res.status(), 503);

    let res = answered(app.client.get(app.url("/readyz"))).await;
    assert_eq!(res.status(), 503);
    assert_eq!(res.headers()["content-type"], "application/problem+json");
    let res = answered(app.client.get(app.url("/healthz"))).await;
    assert_eq!(res.status(), 200, "the process itself is alive");
    let res = answered(owner.get(app.url("/clubs/outage"))).await;
    assert_eq!(res.status(), 503);
    assert!(
        res.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );

    common::database_away(&app, false).await;
    let res = answered(app.client.get(app.url("/readyz"))).await;
    assert_eq!(res.status(), 200);
    let res = answered(
        owner
            .post(app.url("/api/v1/clubs/outage/players"))
            .json(&json!({"name": "Pat"})),
    )
    .await;
    assert_eq!(res.status(), 201, "back by itself");
}

/// Issue 13, item 5: two instances (this test's and a `serve` process) on one database share sessions, idempotency keys, game
/// numbers, versions and standings.
#[tokio::test]
async fn two_instances_on_one_database_agree() {
    let a = spawn_app().await;
    // B is another process: the service's binary on the same database.
    let dir = tempfile::tempdir().unwrap();
    let mut process = common::serve_process_on(&a, dir.path()).expect("a second process serves");
    let b = common::TestApp {
        address: process.base.clone(),
        client: reqwest::Client::new(),
        db: a.db.clone(),
    };
    let owner = club_owner(&a, "twins", "owner@example.org").await;
    let t = common::one_table(&a, &owner, "twins", &["Ann", "Bea", "Cy", "Di"]).await;
    let on = |app: &common::TestApp, path: &str| app.url(path).replace(&a.address, &app.address);

    // The session made on A works on B (cookies are per host:port, so carry it by hand).
    let login = answered(
        reqwest::Client::new()
            .post(a.url("/api/v1/session"))
            .json(&json!({"email": "owner@example.org", "password": common::PASSWORD})),
    )
    .await;
    let cookie = login.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string();
    let me = answered(
        reqwest::Client::new()
            .get(b.url("/api/v1/session"))
            .header("Cookie", &cookie),
    )
    .await;
    assert_eq!(me.status(), 200, "sessions live in the database");
    let as_owner = |req: reqwest::RequestBuilder| req.header("Cookie", cookie.clone());
    let http = reqwest::Client::new();

    // The standings read on B first (cached there), then a game on A: B sees it at once.
    let standings =
        |app: &common::TestApp| on(app, &format!("/api/v1/leagues/{}/standings", t.league));
    let before: serde_json::Value = answered(as_owner(http.get(standings(&b))))
        .await
        .json()
        .await
        .unwrap();
    let games = format!("/api/v1/tables/{}/games", t.table);

    // The same key sent to both at once: one game, one answer.
    let body = json!({"number": 1, "outcome": "mahjong", "winner": t.players[0], "won_by": "self_pick",
                      "hand": "F F 2B 2B J 2B 4C 4C 6C 6C 8B 8B J 8B"});
    let (ra, rb) = tokio::join!(
        as_owner(http.post(on(&a, &games)))
            .header("Idempotency-Key", "k-1")
            .json(&body)
            .send(),
        as_owner(http.post(on(&b, &games)))
            .header("Idempotency-Key", "k-1")
            .json(&body)
            .send(),
    );
    let (ra, rb) = (ra.unwrap(), rb.unwrap());
    assert_eq!((ra.status().as_u16(), rb.status().as_u16()), (201, 201));
    let (ga, gb): (serde_json::Value, serde_json::Value) =
        (ra.json().await.unwrap(), rb.json().await.unwrap());
    assert_eq!(ga["id"], gb["id"], "one game for one key");

    // Racing scorers for game 2 on the two instances: one 201, one 409.
    let wall = json!({"number": 2, "outcome": "wall"});
    let (ra, rb) = tokio::join!(
        as_owner(http.post(on(&a, &games))).json(&wall).send(),
        as_owner(http.post(on(&b, &games))).json(&wall).send(),
    );
    let mut codes = [ra.unwrap().status().as_u16(), rb.unwrap().status().as_u16()];
    codes.sort_unstable();
    assert_eq!(codes, [201, 409]);

    // Amending the same version on both: one wins, the other is told the version moved.
    let game = format!("/api/v1/games/{}", ga["id"]);
    let fix = json!({"outcome": "wall"});
    let (ra, rb) = tokio::join!(
        as_owner(http.put(on(&a, &game)))
            .header("If-Match", "\"1\"")
            .json(&fix)
            .send(),
        as_owner(http.put(on(&b, &game)))
            .header("If-Match", "\"1\"")
            .json(&fix)
            .send(),
    );
    let mut codes = [ra.unwrap().status().as_u16(), rb.unwrap().status().as_u16()];
    codes.sort_unstable();
    assert_eq!(codes, [200, 412]);

    // The amendment's ratings replay runs off the request path: read both once it is done.
    let (mut after, mut from_a) = (serde_json::Value::Null, serde_json::Value::Null);
    for _ in 0..200 {
        after = answered(as_owner(http.get(standings(&b))))
            .await
            .json()
            .await
            .unwrap();
        from_a = answered(as_owner(http.get(standings(&a))))
            .await
            .json()
            .await
            .unwrap();
        if after["ratings_updating"] == false && from_a["ratings_updating"] == false {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_ne!(before, after, "B's cached standings moved with A's writes");
    assert_eq!(after, from_a, "both instances give the same standings");
    let stored: i64 = sqlx::query_scalar("SELECT count(*) FROM games")
        .fetch_one(&a.db)
        .await
        .unwrap();
    assert_eq!(stored, 2);
    let _ = process.child.kill();
    let _ = process.child.wait();
}
