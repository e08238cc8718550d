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

/// Reads `path` on `base` (with `auth` when given) until `done` holds for the answer's status and
/// body, for at most 10 s; the last answer either way.
async fn until(
    base: &str,
    path: &str,
    auth: Option<&str>,
    done: impl Fn(u16, &serde_json::Value) -> bool,
) -> (u16, serde_json::Value) {
    let http = reqwest::Client::new();
    let mut last = (0, serde_json::Value::Null);
    for _ in 0..100 {
        let mut req = http.get(format!("{base}{path}"));
        if let Some(token) = auth {
            req = req.bearer_auth(token);
        }
        let res = answered(req).await;
        let status = res.status().as_u16();
        last = (status, res.json().await.unwrap_or(serde_json::Value::Null));
        if done(last.0, &last.1) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    last
}

/// Polls `count`, a count of the database's sessions (`$1` the database, `$2` some pids), until
/// it is `want`; fails after 10 s.
async fn until_sessions(
    admin: &mut sqlx::PgConnection,
    count: &'static str,
    database: &str,
    pids: &[i32],
    want: i64,
) {
    let mut n = -1;
    for _ in 0..100 {
        n = sqlx::query_scalar(count)
            .bind(database)
            .bind(pids)
            .fetch_one(&mut *admin)
            .await
            .unwrap();
        if n == want {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{count}: {n} after 10 s, not {want}");
}

/// The games counted for a player in a standings body.
fn games_of(view: &serde_json::Value, player: i64) -> i64 {
    view["standings"]
        .as_array()
        .and_then(|rows| rows.iter().find(|r| r["player_id"] == player))
        .map_or(0, |r| r["games"].as_i64().unwrap())
}

/// Issue 16: a process answers public standings and token-holders' reads from memory while it
/// hears the database's change notices. What another process writes reaches it (a game, a new
/// name, a revoked token, a league made members-only), and so does what was written while its
/// listening connection was lost.
#[tokio::test]
async fn standings_answered_from_memory_follow_other_processes() {
    let a = spawn_app().await;
    let dir = tempfile::tempdir().unwrap();
    let mut process = common::serve_process_on(&a, dir.path()).expect("a second process serves");
    let b = process.base.clone();
    let owner = club_owner(&a, "heard", "owner@example.org").await;
    let t = common::one_table(&a, &owner, "heard", &["Ann", "Bea", "Cy", "Di"]).await;
    let res = answered(
        owner
            .patch(a.url(&format!("/api/v1/leagues/{}", t.league)))
            .json(&json!({"visibility": "public"})),
    )
    .await;
    assert_eq!(res.status(), 200);
    let token = |scopes: &[&str]| {
        let req = owner
            .post(a.url("/api/v1/clubs/heard/tokens"))
            .json(&json!({"name": format!("{scopes:?}"), "scopes": scopes}));
        async move {
            let res = answered(req).await;
            assert_eq!(res.status(), 201);
            let body: serde_json::Value = res.json().await.unwrap();
            (
                body["id"].as_i64().unwrap(),
                body["token"].as_str().unwrap().to_string(),
            )
        }
    };
    let (reader_id, reader) = token(&["read"]).await;
    let (_, scorer) = token(&["admin"]).await;
    let standings = format!("/api/v1/leagues/{}/standings", t.league);
    let game_on_b = |number: i64| {
        let req = reqwest::Client::new()
            .post(format!("{b}/api/v1/tables/{}/games", t.table))
            .bearer_auth(&scorer)
            .json(&json!({"number": number, "outcome": "wall"}));
        async move {
            let res = answered(req).await;
            assert_eq!(res.status(), 201, "{:?}", res.text().await);
        }
    };
    let ann = t.players[0];

    // Read twice on A (the second from memory), by anyone and by the token.
    for auth in [None, Some(reader.as_str()), None] {
        let (status, view) = until(&a.address, &standings, auth, |_, _| true).await;
        assert_eq!((status, games_of(&view, ann)), (200, 0));
    }

    // A game entered on B: A's answer follows.
    game_on_b(1).await;
    let (_, view) = until(&a.address, &standings, None, |_, v| games_of(v, ann) == 1).await;
    assert_eq!(games_of(&view, ann), 1, "A heard of B's game: {view}");
    let (_, on_b) = until(&b, &standings, None, |_, _| true).await;
    assert_eq!(view, on_b, "both processes answer the same standings");

    // A player renamed on B: A shows the new name.
    let res = answered(
        reqwest::Client::new()
            .patch(format!("{b}/api/v1/clubs/heard/players/{ann}"))
            .bearer_auth(&scorer)
            .json(&json!({"name": "Annie"})),
    )
    .await;
    assert_eq!(res.status(), 200);
    let named = |v: &serde_json::Value| v.to_string().contains("\"Annie\"");
    let (_, view) = until(&a.address, &standings, Some(&reader), |_, v| named(v)).await;
    assert!(named(&view), "A shows B's new name: {view}");

    // Every listening connection ended (A's among them), then a game on B once they are gone:
    // its notice reaches no one, and A must not answer from what it held.
    let mut admin = common::admin_connection().await;
    let database = a.db.connect_options().get_database().unwrap().to_string();
    let listeners: Vec<i32> = sqlx::query_scalar(
        "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND query LIKE 'LISTEN%'",
    )
    .bind(&database)
    .fetch_all(&mut admin)
    .await
    .unwrap();
    assert_eq!(listeners.len(), 2, "A and B each listen");
    sqlx::query("SELECT pg_terminate_backend(pid) FROM unnest($1::INT[]) pid")
        .bind(&listeners)
        .execute(&mut admin)
        .await
        .unwrap();
    let gone = "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND pid = ANY($2)";
    until_sessions(&mut admin, gone, &database, &listeners, 0).await;
    game_on_b(2).await;
    let (_, view) = until(&a.address, &standings, None, |_, v| games_of(v, ann) == 2).await;
    assert_eq!(
        games_of(&view, ann),
        2,
        "A read B's game after the loss: {view}"
    );

    // Listening again, A keeps following B.
    let back = "SELECT count(*) FROM pg_stat_activity \
                WHERE datname = $1 AND query LIKE 'LISTEN%' AND pid <> ALL($2)";
    until_sessions(&mut admin, back, &database, &listeners, 2).await;
    game_on_b(3).await;
    let (_, view) = until(&a.address, &standings, None, |_, v| games_of(v, ann) == 3).await;
    assert_eq!(
        games_of(&view, ann),
        3,
        "A heard of B's game once back: {view}"
    );

    // The reading token, revoked on B (by the owner's session), is refused on A.
    let login = answered(
        reqwest::Client::new()
            .post(format!("{b}/api/v1/session"))
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
    let res = answered(
        reqwest::Client::new()
            .delete(format!("{b}/api/v1/clubs/heard/tokens/{reader_id}"))
            .header("Cookie", &cookie)
            .header("Origin", &b),
    )
    .await;
    assert!(res.status().is_success(), "{}", res.status());
    let (status, _) = until(&a.address, &standings, Some(&reader), |s, _| s == 401).await;
    assert_eq!(status, 401, "A refuses the token B revoked");

    // The league made members-only on B: A no longer shows it to anyone.
    let res = answered(
        reqwest::Client::new()
            .patch(format!("{b}/api/v1/leagues/{}", t.league))
            .header("Cookie", &cookie)
            .header("Origin", &b)
            .json(&json!({"visibility": "members"})),
    )
    .await;
    assert_eq!(res.status(), 200);
    let (status, _) = until(&a.address, &standings, None, |s, _| s == 404).await;
    assert_eq!(status, 404, "A hides the league B made members-only");
    let _ = process.child.kill();
    let _ = process.child.wait();
}
