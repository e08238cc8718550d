//! Accounts, sessions, tokens and the authorization matrix, over real HTTP.

mod common;

use common::{PASSWORD, TestApp, signed_up, spawn_app};
use serde_json::{Value, json};

async fn send(
    client: &reqwest::Client,
    method: &str,
    url: String,
    body: Option<Value>,
    bearer: Option<&str>,
) -> reqwest::Response {
    let mut req = client.request(method.parse().unwrap(), url);
    if let Some(b) = body {
        req = req.json(&b);
    }
    if let Some(t) = bearer {
        req = req.bearer_auth(t);
    }
    req.send().await.unwrap()
}

#[tokio::test]
async fn sign_up_log_in_log_out() {
    let app = spawn_app().await;
    let res = app
        .client
        .post(app.url("/api/v1/users"))
        .json(&json!({"email": "ann@example.org", "display_name": "Ann", "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 202);
    assert!(
        res.headers().get("set-cookie").is_none(),
        "nothing is made yet"
    );
    let told: Value = res.json().await.unwrap();
    let res = common::finish_sign_up(&app.db, &app.address, &app.client, "ann@example.org").await;
    assert_eq!(res.status(), 201);
    let first = res.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(
        first.contains("HttpOnly") && first.contains("SameSite=Lax") && !first.contains("Secure"),
        "{first}"
    );

    let again = app
        .client
        .post(app.url("/api/v1/users"))
        .json(&json!({"email": "ANN@example.org", "display_name": "Ann", "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    // A taken address gets the same answer in the same words; its mail says it has an account.
    assert_eq!(again.status(), 202);
    let again: Value = again.json().await.unwrap();
    assert_eq!(
        again["message"].as_str().unwrap().replace("ANN@", "ann@"),
        told["message"].as_str().unwrap()
    );
    let login = common::wait_mailed_path(&app.db, "signup_known", "ann@example.org", "http").await;
    assert!(login.ends_with("/login"), "{login}");

    let res = app
        .client
        .post(app.url("/api/v1/session"))
        .json(&json!({"email": "ann@example.org", "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let second = res.headers()["set-cookie"].to_str().unwrap().to_string();
    let value = |c: &str| c.split(';').next().unwrap().to_string();
    assert_ne!(
        value(&first),
        value(&second),
        "a login starts a new session"
    );
    let me: Value = app.get("/api/v1/session").await.json().await.unwrap();
    assert_eq!(me["email"], "ann@example.org");

    for (email, password) in [
        ("ann@example.org", "wrong password!"),
        ("nobody@example.org", PASSWORD),
    ] {
        let res = app
            .client
            .post(app.url("/api/v1/session"))
            .json(&json!({"email": email, "password": password}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 401);
        let p: Value = res.json().await.unwrap();
        assert_eq!(p["detail"], "wrong email or password");
    }

    assert_eq!(
        app.client
            .delete(app.url("/api/v1/session"))
            .send()
            .await
            .unwrap()
            .status(),
        204
    );
    assert_eq!(app.get("/api/v1/session").await.status(), 401);
}

#[tokio::test]
async fn sign_up_input_is_checked_field_by_field() {
    let app = spawn_app().await;
    for (body, field) in [
        (
            json!({"email": "x", "display_name": "X", "password": PASSWORD}),
            "email",
        ),
        (
            json!({"email": "x@example.org", "display_name": " ", "password": PASSWORD}),
            "display_name",
        ),
        (
            json!({"email": "x@example.org", "display_name": "X", "password": PASSWORD, "admin": true}),
            "admin",
        ),
        (
            json!({"email": 5, "display_name": "X", "password": PASSWORD}),
            "email",
        ),
    ] {
        let res = app
            .client
            .post(app.url("/api/v1/users"))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert!(res.status().is_client_error(), "{body}");
        assert_eq!(res.headers()["content-type"], "application/problem+json");
        let p: Value = res.json().await.unwrap();
        assert_eq!(p["errors"][0]["field"], field, "{body} → {p}");
    }
    let res = app
        .client
        .post(app.url("/api/v1/users"))
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);
    let res = app
        .client
        .post(app.url("/api/v1/users"))
        .body("email=x")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);
    let big = "x".repeat(300 * 1024);
    let res = app
        .client
        .post(app.url("/api/v1/users"))
        .header("content-type", "application/json")
        .body(big)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 413);
}

#[tokio::test]
async fn login_attempts_are_rate_limited() {
    let app = spawn_app().await;
    signed_up(&app, "bea@example.org").await;
    let mut statuses = Vec::new();
    for _ in 0..7 {
        let res = app
            .client
            .post(app.url("/api/v1/session"))
            .json(&json!({"email": "bea@example.org", "password": "not the password"}))
            .send()
            .await
            .unwrap();
        if res.status() == 429 {
            let wait: u64 = res.headers()["retry-after"]
                .to_str()
                .unwrap()
                .parse()
                .unwrap();
            assert!(wait >= 1);
        }
        statuses.push(res.status().as_u16());
    }
    assert_eq!(&statuses[..5], &[401; 5]);
    assert_eq!(statuses[5], 429, "{statuses:?}");
}

struct Club {
    owner: reqwest::Client,
    organizer: reqwest::Client,
    scorer: reqwest::Client,
    member: reqwest::Client,
    outsider: reqwest::Client,
    read: String,
    score: String,
    admin: String,
    revoked: String,
}

async fn club(app: &TestApp) -> Club {
    let owner = signed_up(app, "owner@example.org").await;
    let organizer = signed_up(app, "organizer@example.org").await;
    let scorer = signed_up(app, "scorer@example.org").await;
    let member = signed_up(app, "member@example.org").await;
    let outsider = signed_up(app, "outsider@example.org").await;
    assert_eq!(
        send(
            &owner,
            "POST",
            app.url("/api/v1/clubs"),
            Some(json!({"slug": "a-club", "name": "A"})),
            None
        )
        .await
        .status(),
        201
    );
    assert_eq!(
        send(
            &outsider,
            "POST",
            app.url("/api/v1/clubs"),
            Some(json!({"slug": "b-club", "name": "B"})),
            None
        )
        .await
        .status(),
        201
    );
    for (email, role, client) in [
        ("organizer@example.org", "organizer", &organizer),
        ("scorer@example.org", "scorer", &scorer),
        ("member@example.org", "member", &member),
    ] {
        common::joined(app, &owner, "a-club", email, role, client).await;
    }
    let mut tokens = Vec::new();
    for scope in ["read", "score", "admin", "read"] {
        let res = send(
            &owner,
            "POST",
            app.url("/api/v1/clubs/a-club/tokens"),
            Some(json!({"name": scope, "scopes": [scope]})),
            None,
        )
        .await;
        assert_eq!(res.status(), 201);
        let v: Value = res.json().await.unwrap();
        tokens.push((
            v["id"].as_i64().unwrap(),
            v["token"].as_str().unwrap().to_string(),
        ));
    }
    let res = send(
        &owner,
        "DELETE",
        app.url(&format!("/api/v1/clubs/a-club/tokens/{}", tokens[3].0)),
        None,
        None,
    )
    .await;
    assert_eq!(res.status(), 204);
    Club {
        owner,
        organizer,
        scorer,
        member,
        outsider,
        read: tokens[0].1.clone(),
        score: tokens[1].1.clone(),
        admin: tokens[2].1.clone(),
        revoked: tokens[3].1.clone(),
    }
}

#[tokio::test]
async fn authorization_matrix_for_every_write_route() {
    let app = spawn_app().await;
    let c = club(&app).await;
    let anon = reqwest::Client::new();
    // A player and a league to edit.
    let p: Value = send(
        &c.owner,
        "POST",
        app.url("/api/v1/clubs/a-club/players"),
        Some(json!({"name": "Pat"})),
        None,
    )
    .await
    .json()
    .await
    .unwrap();
    let player = p["id"].as_i64().unwrap();
    let l: Value = send(
        &c.owner,
        "POST",
        app.url("/api/v1/clubs/a-club/leagues"),
        Some(json!({"name": "L", "card": "demo-2026", "ruleset": "nmjl-money"})),
        None,
    )
    .await
    .json()
    .await
    .unwrap();
    let league = l["id"].as_i64().unwrap();
    let card = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/example.toml"
    ))
    .unwrap();

    let mut n = 0;
    type Body = Box<dyn Fn(usize) -> Value>;
    let routes: Vec<(&str, String, Body)> = vec![
        (
            "POST",
            "/api/v1/clubs/a-club/players".into(),
            Box::new(|i| json!({"name": format!("Player {i}")})),
        ),
        (
            "PATCH",
            format!("/api/v1/clubs/a-club/players/{player}"),
            Box::new(|i| json!({"name": format!("Pat {i}")})),
        ),
        (
            "POST",
            "/api/v1/clubs/a-club/cards".into(),
            Box::new(move |_| json!({"source": card})),
        ),
        (
            "POST",
            "/api/v1/clubs/a-club/leagues".into(),
            Box::new(
                |i| json!({"name": format!("League {i}"), "card": "demo-2026", "ruleset": "tournament"}),
            ),
        ),
        (
            "PATCH",
            format!("/api/v1/leagues/{league}"),
            Box::new(|i| json!({"games_per_table": 1 + (i % 8) as i32})),
        ),
        (
            "PUT",
            "/api/v1/clubs/a-club/members".into(),
            Box::new(|_| json!({"email": "member@example.org", "role": "member"})),
        ),
    ];
    for (method, path, body) in &routes {
        // (who, session client, bearer, expected status class)
        let cases: Vec<(&str, &reqwest::Client, Option<&str>, u16)> = vec![
            ("owner", &c.owner, None, 200),
            ("organizer", &c.organizer, None, 200),
            ("admin token", &anon, Some(c.admin.as_str()), 200),
            ("scorer", &c.scorer, None, 403),
            ("member", &c.member, None, 403),
            ("read token", &anon, Some(c.read.as_str()), 403),
            ("score token", &anon, Some(c.score.as_str()), 403),
            ("revoked token", &anon, Some(c.revoked.as_str()), 401),
            ("anonymous", &anon, None, 401),
            ("other club's owner", &c.outsider, None, 404),
        ];
        for (who, client, bearer, want) in cases {
            n += 1;
            // Leagues have ids of their own: to an anonymous caller a members-only league does not exist.
            let want = if who == "anonymous" && path.starts_with("/api/v1/leagues") {
                404
            } else if who == "admin token" && path.ends_with("/members") {
                // Members and roles are changed by people, not tokens.
                403
            } else {
                want
            };
            let res = send(client, method, app.url(path), Some(body(n)), bearer).await;
            let got = res.status().as_u16();
            let ok = if want == 200 {
                (200..300).contains(&got)
            } else {
                got == want
            };
            assert!(
                ok,
                "{who} {method} {path}: got {got}, want {want}: {}",
                res.text().await.unwrap()
            );
        }
    }
    // Token creation needs a logged-in owner or organizer, not a token.
    for (who, client, bearer, want) in [
        ("organizer", &c.organizer, None, 201u16),
        ("admin token", &anon, Some(c.admin.as_str()), 403),
        ("scorer", &c.scorer, None, 403),
        ("other club's owner", &c.outsider, None, 404),
    ] {
        let res = send(
            client,
            "POST",
            app.url("/api/v1/clubs/a-club/tokens"),
            Some(json!({"name": "t", "scopes": ["read"]})),
            bearer,
        )
        .await;
        assert_eq!(res.status().as_u16(), want, "{who}");
    }
    // Deleting: members and tokens.
    for (who, client, want) in [
        ("scorer", &c.scorer, 403u16),
        ("other club's owner", &c.outsider, 404),
    ] {
        assert_eq!(
            send(
                client,
                "DELETE",
                app.url("/api/v1/clubs/a-club/tokens/1"),
                None,
                None
            )
            .await
            .status()
            .as_u16(),
            want,
            "{who}"
        );
        assert_eq!(
            send(
                client,
                "DELETE",
                app.url("/api/v1/clubs/a-club/members/4"),
                None,
                None
            )
            .await
            .status()
            .as_u16(),
            want,
            "{who}"
        );
    }
    assert_eq!(
        send(
            &c.organizer,
            "DELETE",
            app.url("/api/v1/clubs/a-club/tokens/1"),
            None,
            None
        )
        .await
        .status(),
        204
    );
    // The revoked read token no longer reads.
    assert_eq!(
        send(
            &anon,
            "GET",
            app.url("/api/v1/clubs/a-club"),
            None,
            Some(&c.read)
        )
        .await
        .status(),
        401
    );
}

#[tokio::test]
async fn reads_need_membership_and_other_clubs_do_not_exist() {
    let app = spawn_app().await;
    let c = club(&app).await;
    let anon = reqwest::Client::new();
    for path in [
        "/api/v1/clubs/a-club",
        "/api/v1/clubs/a-club/players",
        "/api/v1/clubs/a-club/leagues",
        "/api/v1/clubs/a-club/cards",
    ] {
        assert_eq!(
            send(&c.member, "GET", app.url(path), None, None)
                .await
                .status(),
            200,
            "{path}"
        );
        assert_eq!(
            send(&anon, "GET", app.url(path), None, Some(&c.read))
                .await
                .status(),
            200,
            "{path}"
        );
        assert_eq!(
            send(&c.outsider, "GET", app.url(path), None, None)
                .await
                .status(),
            404,
            "{path}"
        );
        // Anyone may ask for a club's public leagues; a club with none is not found.
        let anonymous = if path.ends_with("/leagues") { 404 } else { 401 };
        assert_eq!(
            send(&anon, "GET", app.url(path), None, None).await.status(),
            anonymous,
            "{path}"
        );
    }
    // Tokens of club A do not reach club B, and B looks like it does not exist.
    let res = send(
        &anon,
        "GET",
        app.url("/api/v1/clubs/b-club"),
        None,
        Some(&c.admin),
    )
    .await;
    assert_eq!(res.status(), 404);
    let res = send(
        &anon,
        "GET",
        app.url("/api/v1/clubs/no-such-club"),
        None,
        Some(&c.admin),
    )
    .await;
    assert_eq!(res.status(), 404);
    // Members and tokens lists are for organizers.
    assert_eq!(
        send(
            &c.scorer,
            "GET",
            app.url("/api/v1/clubs/a-club/members"),
            None,
            None
        )
        .await
        .status(),
        403
    );
    assert_eq!(
        send(
            &c.organizer,
            "GET",
            app.url("/api/v1/clubs/a-club/tokens"),
            None,
            None
        )
        .await
        .status(),
        200
    );
}

#[tokio::test]
async fn tokens_are_shown_once_hashed_and_record_their_use() {
    let app = spawn_app().await;
    let c = club(&app).await;
    let list: Value = send(
        &c.owner,
        "GET",
        app.url("/api/v1/clubs/a-club/tokens"),
        None,
        None,
    )
    .await
    .json()
    .await
    .unwrap();
    assert!(
        list["tokens"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t.get("token").is_none())
    );
    assert!(list[0]["last_used_at"].is_null());
    let stored: Vec<String> = sqlx::query_scalar("SELECT token_hash FROM api_tokens")
        .fetch_all(&app.db)
        .await
        .unwrap();
    assert!(
        !stored.contains(&c.read),
        "the secret itself is never stored"
    );
    assert_eq!(
        send(
            &reqwest::Client::new(),
            "GET",
            app.url("/api/v1/clubs/a-club"),
            None,
            Some(&c.read)
        )
        .await
        .status(),
        200
    );
    let list: Value = send(
        &c.owner,
        "GET",
        app.url("/api/v1/clubs/a-club/tokens"),
        None,
        None,
    )
    .await
    .json()
    .await
    .unwrap();
    assert!(list["tokens"][0]["last_used_at"].is_string());
    assert!(list["tokens"][3]["revoked_at"].is_string());
    // Use is recorded to the minute: a second request within it does not write the row again.
    type Rows = Vec<(i64, Option<chrono::DateTime<chrono::Utc>>, i64)>;
    let before: Rows =
        sqlx::query_as("SELECT id, last_used_at, xmin::TEXT::BIGINT FROM api_tokens ORDER BY id")
            .fetch_all(&app.db)
            .await
            .unwrap();
    send(
        &reqwest::Client::new(),
        "GET",
        app.url("/api/v1/clubs/a-club"),
        None,
        Some(&c.read),
    )
    .await;
    let after: Rows =
        sqlx::query_as("SELECT id, last_used_at, xmin::TEXT::BIGINT FROM api_tokens ORDER BY id")
            .fetch_all(&app.db)
            .await
            .unwrap();
    assert_eq!(
        before, after,
        "the token's row was written again within the minute"
    );
    let bad = send(
        &reqwest::Client::new(),
        "GET",
        app.url("/api/v1/clubs/a-club"),
        None,
        Some("mlt_made_up"),
    )
    .await;
    assert_eq!(bad.status(), 401);
    let res = send(
        &c.owner,
        "POST",
        app.url("/api/v1/clubs/a-club/tokens"),
        Some(json!({"name": "x", "scopes": ["write"]})),
        None,
    )
    .await;
    let p: Value = res.json().await.unwrap();
    assert_eq!(p["errors"][0]["field"], "scopes[0]");
    // A scope listed twice is refused, as the document says (each once, at most three).
    let res = send(
        &c.owner,
        "POST",
        app.url("/api/v1/clubs/a-club/tokens"),
        Some(json!({"name": "x", "scopes": ["read", "score", "read", "read"]})),
        None,
    )
    .await;
    assert_eq!(res.status(), 422);
    let p: Value = res.json().await.unwrap();
    assert_eq!(p["errors"][0]["field"], "scopes[2]", "{p}");
    assert!(
        p["detail"].as_str().unwrap().contains("listed twice"),
        "{p}"
    );
}

#[tokio::test]
async fn roles_keep_an_owner_and_only_owners_make_owners() {
    let app = spawn_app().await;
    let c = club(&app).await;
    let res = send(
        &c.organizer,
        "PUT",
        app.url("/api/v1/clubs/a-club/members"),
        Some(json!({"email": "scorer@example.org", "role": "owner"})),
        None,
    )
    .await;
    assert_eq!(res.status(), 403);
    let res = send(
        &c.owner,
        "PUT",
        app.url("/api/v1/clubs/a-club/members"),
        Some(json!({"email": "owner@example.org", "role": "member"})),
        None,
    )
    .await;
    assert_eq!(res.status(), 409, "the last owner stays");
    let res = send(
        &c.owner,
        "PUT",
        app.url("/api/v1/clubs/a-club/members"),
        Some(json!({"email": "nobody@example.org", "role": "member"})),
        None,
    )
    .await;
    assert_eq!(res.status(), 202, "any other address is invited");
    let res = send(
        &c.owner,
        "PUT",
        app.url("/api/v1/clubs/a-club/members"),
        Some(json!({"email": "scorer@example.org", "role": "boss"})),
        None,
    )
    .await;
    let p: Value = res.json().await.unwrap();
    assert_eq!(p["errors"][0]["field"], "role");
    // The scorer is promoted and can now add players.
    send(
        &c.owner,
        "PUT",
        app.url("/api/v1/clubs/a-club/members"),
        Some(json!({"email": "scorer@example.org", "role": "organizer"})),
        None,
    )
    .await;
    let res = send(
        &c.scorer,
        "POST",
        app.url("/api/v1/clubs/a-club/players"),
        Some(json!({"name": "Newcomer"})),
        None,
    )
    .await;
    assert_eq!(res.status(), 201);
}
