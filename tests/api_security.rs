//! The holes outside testing found (issue 12), each closed: over real HTTP against the real
//! application and PostgreSQL. Each test names the item it covers.

mod common;

use std::net::{IpAddr, Ipv4Addr};

use common::{PASSWORD, TestApp, club_owner, one_table, signed_up, spawn_app};
use serde_json::{Value, json};

/// A client with cookies, sending from `address` (any 127.x.y.z reaches the loopback server).
fn client_from(address: [u8; 4]) -> reqwest::Client {
    reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .local_address(IpAddr::V4(Ipv4Addr::from(address)))
        .build()
        .unwrap()
}

/// The CSRF token of `client`'s forms, from a page it may see.
async fn csrf(app: &TestApp, client: &reqwest::Client, page: &str) -> String {
    let html = client
        .get(app.url(page))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    html.split("name=\"csrf\" value=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .expect("a form with a CSRF token")
        .to_string()
}

async fn json_of(res: reqwest::Response) -> Value {
    res.json().await.unwrap()
}

/// The field the first error of a problem names.
async fn field_of(res: reqwest::Response) -> String {
    let v = json_of(res).await;
    v["errors"][0]["field"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// A token of the club `slug` with these scopes, made by its owner.
async fn token(
    app: &TestApp,
    owner: &reqwest::Client,
    slug: &str,
    scopes: &[&str],
) -> (i64, String) {
    let v = json_of(
        owner
            .post(app.url(&format!("/api/v1/clubs/{slug}/tokens")))
            .json(&json!({"name": "t", "scopes": scopes}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    (
        v["id"].as_i64().unwrap(),
        v["token"].as_str().unwrap().to_string(),
    )
}

/// Item 4: two owners demoting (or removing) each other at once leave one owner.
#[tokio::test]
async fn owners_demoting_each_other_at_once_leave_an_owner() {
    let app = spawn_app().await;
    let a = club_owner(&app, "owners", "a@example.org").await;
    let b = signed_up(&app, "b@example.org").await;
    let id_of = |email: &'static str| {
        let db = app.db.clone();
        async move {
            sqlx::query_scalar::<_, i64>("SELECT id FROM users WHERE email = $1")
                .bind(email)
                .fetch_one(&db)
                .await
                .unwrap()
        }
    };
    let (ida, idb) = (id_of("a@example.org").await, id_of("b@example.org").await);
    let members = app.url("/api/v1/clubs/owners/members");
    for round in 0..16 {
        // Both are owners again before each round.
        sqlx::query(
            "INSERT INTO memberships (club_id, user_id, role) SELECT c.id, u, 'owner' FROM clubs c, unnest($1::bigint[]) u \
             WHERE c.slug = 'owners' ON CONFLICT (club_id, user_id) DO UPDATE SET role = 'owner'",
        )
        .bind(vec![ida, idb])
        .execute(&app.db)
        .await
        .unwrap();
        let (ra, rb) = if round % 2 == 0 {
            tokio::join!(
                a.put(&members)
                    .json(&json!({"email": "b@example.org", "role": "member"}))
                    .send(),
                b.put(&members)
                    .json(&json!({"email": "a@example.org", "role": "member"}))
                    .send(),
            )
        } else {
            tokio::join!(
                a.delete(app.url(&format!("/api/v1/clubs/owners/members/{idb}")))
                    .send(),
                b.delete(app.url(&format!("/api/v1/clubs/owners/members/{ida}")))
                    .send(),
            )
        };
        let statuses = [ra.unwrap().status().as_u16(), rb.unwrap().status().as_u16()];
        assert!(
            statuses
                .iter()
                .all(|s| [200, 204, 403, 404, 409].contains(s)),
            "round {round}: {statuses:?}"
        );
        let owners: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM memberships m JOIN clubs c ON c.id = m.club_id WHERE c.slug = 'owners' AND m.role = 'owner'",
        )
        .fetch_one(&app.db)
        .await
        .unwrap();
        assert!(
            owners >= 1,
            "round {round}: the club has no owner ({statuses:?})"
        );
    }
}

/// Item 5: a NUL character is refused with 422 naming its field, in JSON and in page forms.
#[tokio::test]
async fn nul_characters_are_refused_naming_the_field() {
    let app = spawn_app().await;
    let res = app
        .client
        .post(app.url("/api/v1/users"))
        .json(&json!({"email": "n@example.org", "display_name": "N\u{0}", "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 422);
    assert_eq!(field_of(res).await, "display_name");
    let res = app
        .client
        .post(app.url("/api/v1/session"))
        .json(&json!({"email": "n\u{0}@example.org", "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 422);
    assert_eq!(field_of(res).await, "email");

    let owner = club_owner(&app, "nul", "owner@example.org").await;
    for (path, body, field) in [
        (
            "/api/v1/clubs",
            json!({"slug": "x-club", "name": "X\u{0}"}),
            "name",
        ),
        (
            "/api/v1/clubs/nul/players",
            json!({"name": "\u{0}Pat"}),
            "name",
        ),
        (
            "/api/v1/clubs/nul/leagues",
            json!({"name": "L\u{0}", "card": "demo-2026", "ruleset": "nmjl-money"}),
            "name",
        ),
        (
            "/api/v1/clubs/nul/tokens",
            json!({"name": "t\u{0}", "scopes": ["read"]}),
            "name",
        ),
        (
            "/api/v1/clubs/nul/cards",
            json!({"source": "name = \"C\u{0}\"\nyear = 2026\n"}),
            "source",
        ),
    ] {
        let res = owner.post(app.url(path)).json(&body).send().await.unwrap();
        assert_eq!(res.status(), 422, "{path}");
        assert_eq!(field_of(res).await, field, "{path}");
    }
    let res = owner
        .put(app.url("/api/v1/clubs/nul/members"))
        .json(&json!({"email": "x\u{0}@example.org", "role": "member"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 422);
    assert_eq!(field_of(res).await, "email");

    let t = one_table(&app, &owner, "nul", &["Ann", "Bea", "Cy", "Di"]).await;
    let res = owner
        .post(app.url(&format!("/api/v1/tables/{}/games", t.table)))
        .json(&json!({"outcome": "wall", "dead": [{"player": t.players[1], "reason": "no\u{0}"}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 422);
    assert_eq!(field_of(res).await, "dead[0].reason");

    // A page form, and a slug in a path.
    let token = csrf(&app, &owner, "/clubs/nul").await;
    let res = owner
        .post(app.url("/clubs/nul/players"))
        .form(&[("csrf", token.as_str()), ("names", "Pat\u{0}")])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 422);
    assert!(res.text().await.unwrap().to_lowercase().contains("names"));
    let res = owner
        .get(app.url("/api/v1/clubs/nul%00"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);
    let res = owner.get(app.url("/clubs/nul%00")).send().await.unwrap();
    assert_eq!(res.status(), 404);
}

/// Item 6: nights and table locks created at once get distinct numbers, never a 500.
#[tokio::test]
async fn concurrent_creates_are_serialised() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "busy", "owner@example.org").await;
    let t = one_table(&app, &owner, "busy", &["Ann", "Bea", "Cy", "Di"]).await;
    let url = app.url(&format!("/api/v1/leagues/{}/nights", t.league));
    let sends = (0..20).map(|_| owner.post(&url).json(&json!({"date": "2026-04-01"})).send());
    let mut numbers = Vec::new();
    for res in futures_join(sends).await {
        let res = res.unwrap();
        assert_eq!(res.status(), 201);
        numbers.push(json_of(res).await["number"].as_i64().unwrap());
    }
    numbers.sort_unstable();
    assert_eq!(numbers, (2..=21).collect::<Vec<i64>>());

    let url = app.url(&format!("/api/v1/nights/{}/tables", t.night));
    let sends = (0..10).map(|i| {
        let mut seats = t.players.clone();
        seats.rotate_left(i % 4);
        owner.put(&url).json(&json!({"tables": [seats]})).send()
    });
    for res in futures_join(sends).await {
        let status = res.unwrap().status().as_u16();
        assert!(status == 200 || status == 409, "{status}");
    }
    let night = json_of(
        owner
            .get(app.url(&format!("/api/v1/nights/{}", t.night)))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(night["tables"].as_array().unwrap().len(), 1);
    assert_eq!(night["tables"][0]["seats"].as_array().unwrap().len(), 4);
}

async fn futures_join<F: std::future::Future>(futures: impl Iterator<Item = F>) -> Vec<F::Output> {
    let handles: Vec<_> = futures.collect();
    let mut out = Vec::new();
    // Start them all before awaiting any.
    let joined = futures_util::future::join_all(handles).await;
    out.extend(joined);
    out
}

/// Items 7 and 8: strangers reading a public league see display names in the audit log, and a
/// player's page shows them public-league games only.
#[tokio::test]
async fn strangers_see_no_emails_and_no_members_only_leagues() {
    let app = spawn_app().await;
    let owner = client_from([127, 0, 0, 1]);
    owner
        .post(app.url("/api/v1/users"))
        .json(&json!({"email": "secret-owner@example.org", "display_name": "Rose Owner", "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    common::finish_sign_up(&app.db, &app.address, &owner, "secret-owner@example.org").await;
    owner
        .post(app.url("/api/v1/clubs"))
        .json(&json!({"slug": "mixed", "name": "Mixed"}))
        .send()
        .await
        .unwrap();
    let open = one_table(&app, &owner, "mixed", &["Ann", "Bea", "Cy", "Di"]).await;
    let res = owner
        .patch(app.url(&format!("/api/v1/leagues/{}", open.league)))
        .json(&json!({"visibility": "public", "name": "Open league"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    // A members-only league with the same players.
    let hidden = json_of(
        owner
            .post(app.url("/api/v1/clubs/mixed/leagues"))
            .json(&json!({"name": "Hidden ladder", "card": "demo-2026", "ruleset": "nmjl-money"}))
            .send()
            .await
            .unwrap(),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let night = json_of(
        owner
            .post(app.url(&format!("/api/v1/leagues/{hidden}/nights")))
            .json(&json!({"date": "2026-05-05"}))
            .send()
            .await
            .unwrap(),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    for p in &open.players {
        owner
            .put(app.url(&format!("/api/v1/nights/{night}/checkins/{p}")))
            .send()
            .await
            .unwrap();
    }
    let locked = json_of(
        owner
            .put(app.url(&format!("/api/v1/nights/{night}/tables")))
            .json(&json!({"tables": [open.players]}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    let hidden_table = locked["tables"][0]["id"].as_i64().unwrap();
    let wall = json!({"outcome": "wall"});
    let game = json_of(
        owner
            .post(app.url(&format!("/api/v1/tables/{}/games", open.table)))
            .json(&wall)
            .send()
            .await
            .unwrap(),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let res = owner
        .post(app.url(&format!("/api/v1/tables/{hidden_table}/games")))
        .json(&json!({"outcome": "wall", "number": 1}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);

    let stranger = reqwest::Client::new();
    let audit = stranger
        .get(app.url(&format!("/api/v1/games/{game}/audit")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(audit.contains("\"actor\""), "{audit}");
    assert!(!audit.contains('@'), "a stranger sees an email: {audit}");
    assert!(
        audit.contains("\"actor\":\"Rose Owner\""),
        "the display name stays: {audit}"
    );
    let audit = owner
        .get(app.url(&format!("/api/v1/games/{game}/audit")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        audit.contains("secret-owner@example.org"),
        "members see the account: {audit}"
    );

    let page = stranger
        .get(app.url(&format!("/players/{}", open.players[0])))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    let page = page.text().await.unwrap();
    assert!(page.contains("Open league"));
    assert!(
        !page.contains("Hidden ladder"),
        "a members-only league on a public page"
    );
    let page = owner
        .get(app.url(&format!("/players/{}", open.players[0])))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains("Hidden ladder"), "members see every league");
}

/// Item 9: ruleset knobs are bounded, and scores never wrap.
#[tokio::test]
async fn ruleset_knobs_are_bounded() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "knobs", "owner@example.org").await;
    let res = owner
        .post(app.url("/api/v1/clubs/knobs/leagues"))
        .json(&json!({"name": "L", "card": "demo-2026",
                      "ruleset": {"kind": "money", "self_pick": 9_223_372_036_854_775_807i64}}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 422);
    let v = json_of(res).await;
    assert_eq!(v["errors"][0]["field"], "ruleset");
    assert!(v["detail"].as_str().unwrap().contains("self_pick"), "{v}");
    let res = app
        .client
        .post(app.url("/api/v1/scores/preview"))
        .json(
            &json!({"card": "demo-2026", "ruleset": {"kind": "points", "jokerless": -1},
                      "result": {"seats": ["E","S","W","N"], "outcome": "wall"}}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 422);
}

/// Item 10: an Idempotency-Key that is not visible ASCII is refused, not ignored.
#[tokio::test]
async fn a_non_ascii_idempotency_key_is_refused() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "keys", "owner@example.org").await;
    let t = one_table(&app, &owner, "keys", &["Ann", "Bea", "Cy", "Di"]).await;
    let key = reqwest::header::HeaderValue::from_bytes("clé-1".as_bytes()).unwrap();
    for _ in 0..2 {
        let res = owner
            .post(app.url(&format!("/api/v1/tables/{}/games", t.table)))
            .header("Idempotency-Key", key.clone())
            .json(&json!({"outcome": "wall"}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 422);
        assert_eq!(field_of(res).await, "Idempotency-Key");
    }
    let stored: i64 = sqlx::query_scalar("SELECT count(*) FROM games")
        .fetch_one(&app.db)
        .await
        .unwrap();
    assert_eq!(stored, 0);
}

/// Item 11: a token, even an admin one, neither manages tokens nor changes members.
#[tokio::test]
async fn tokens_do_not_manage_tokens_or_members() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "tok", "owner@example.org").await;
    signed_up(&app, "sam@example.org").await;
    let (read_id, _) = token(&app, &owner, "tok", &["read"]).await;
    let (_, admin) = token(&app, &owner, "tok", &["admin"]).await;
    let anon = reqwest::Client::new();
    let res = anon
        .delete(app.url(&format!("/api/v1/clubs/tok/tokens/{read_id}")))
        .bearer_auth(&admin)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 403);
    let res = anon
        .put(app.url("/api/v1/clubs/tok/members"))
        .bearer_auth(&admin)
        .json(&json!({"email": "sam@example.org", "role": "organizer"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 403);
    let members: Value = json_of(
        owner
            .get(app.url("/api/v1/clubs/tok/members"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        members["members"].as_array().unwrap().len(),
        1,
        "nobody was added"
    );
    let tokens: Value = json_of(
        owner
            .get(app.url("/api/v1/clubs/tok/tokens"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert!(
        tokens["tokens"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["revoked_at"].is_null())
    );
}

/// Items 12 and 13: wrong passwords from one address do not lock the owner out elsewhere, and
/// sign-ups from one address are limited.
#[tokio::test]
async fn login_and_sign_up_limits_are_per_address() {
    let app = spawn_app().await;
    signed_up(&app, "owner@example.org").await;
    let attacker = client_from([127, 0, 0, 2]);
    for _ in 0..6 {
        attacker
            .post(app.url("/api/v1/session"))
            .json(&json!({"email": "owner@example.org", "password": "wrong guess!!"}))
            .send()
            .await
            .unwrap();
    }
    let res = attacker
        .post(app.url("/api/v1/session"))
        .json(&json!({"email": "owner@example.org", "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 429, "the attacker's address is limited");
    let owner = client_from([127, 0, 0, 3]);
    let res = owner
        .post(app.url("/api/v1/session"))
        .json(&json!({"email": "owner@example.org", "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "the owner logs in from elsewhere");

    let crowd = client_from([127, 0, 0, 4]);
    let mut statuses = Vec::new();
    for i in 0..12 {
        let res = crowd
            .post(app.url("/api/v1/users"))
            .json(&json!({"email": format!("u{i}@example.org"), "display_name": "U", "password": PASSWORD}))
            .send()
            .await
            .unwrap();
        statuses.push(res.status().as_u16());
    }
    assert_eq!(&statuses[..10], &[202; 10], "{statuses:?}");
    assert_eq!(&statuses[10..], &[429, 429], "{statuses:?}");
    let res = client_from([127, 0, 0, 5])
        .post(app.url("/api/v1/users"))
        .json(&json!({"email": "late@example.org", "display_name": "L", "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 202, "another address signs up");
}

/// Items 14 and 15: `next` stays on this site; a line break in a page path is no 500.
#[tokio::test]
async fn redirects_stay_on_this_site_and_valid() {
    let app = spawn_app().await;
    signed_up(&app, "rose@example.org").await;
    for next in [
        "/%09/evil.example",
        "/\t/evil.example",
        "/x\r\nSet-Cookie: a=b",
        "/\\evil.example",
    ] {
        let browser = client_from([127, 0, 0, 1]);
        let token = csrf(&app, &browser, "/login").await;
        let res = browser
            .post(app.url("/login"))
            .form(&[
                ("csrf", token.as_str()),
                ("email", "rose@example.org"),
                ("password", PASSWORD),
                ("next", next),
            ])
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 303, "{next:?}");
        assert_eq!(res.headers()["location"], "/", "{next:?}");
    }
    let owner = client_from([127, 0, 0, 1]);
    owner
        .post(app.url("/api/v1/users"))
        .json(&json!({"email": "o@example.org", "display_name": "O", "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    common::finish_sign_up(&app.db, &app.address, &owner, "o@example.org").await;
    let token = csrf(&app, &owner, "/").await;
    let res = owner
        .post(app.url("/clubs/a%0D%0Ab/leagues"))
        .form(&[
            ("csrf", token.as_str()),
            ("name", "L"),
            ("card", "demo-2026"),
            ("ruleset", "nmjl-money"),
            ("visibility", "members"),
            ("board", "total"),
            ("min_games", "many"),
        ])
        .send()
        .await
        .unwrap();
    assert!(res.status().as_u16() < 500, "{}", res.status());
    if let Some(to) = res.headers().get("location") {
        assert!(
            !to.as_bytes().iter().any(|b| b.is_ascii_control()),
            "{to:?}"
        );
    }
}

/// Item 16: `Origin: null` and a forged X-Forwarded-Host do not pass the Origin check.
#[tokio::test]
async fn the_origin_check_refuses_null_and_forwarded_hosts() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "origin", "owner@example.org").await;
    for (origin, forwarded) in [
        ("null", None),
        ("http://evil.example", Some("evil.example")),
    ] {
        let mut req = owner
            .post(app.url("/api/v1/clubs/origin/players"))
            .header("Origin", origin)
            .json(&json!({"name": "Mallory"}));
        if let Some(host) = forwarded {
            req = req.header("X-Forwarded-Host", host);
        }
        let res = req.send().await.unwrap();
        assert_eq!(res.status(), 403, "{origin}");
    }
    let players: Value = json_of(
        owner
            .get(app.url("/api/v1/clubs/origin/players"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert!(players["players"].as_array().unwrap().is_empty());
}

/// Item 17: a name a spreadsheet would run as a formula is exported as text.
#[tokio::test]
async fn csv_cells_never_start_a_formula() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "csv", "owner@example.org").await;
    let evil = "=HYPERLINK(\"http://evil.example\",\"x\")";
    let t = one_table(&app, &owner, "csv", &[evil, "@SUM(A1)", "+1", "Di"]).await;
    owner
        .post(app.url(&format!("/api/v1/tables/{}/games", t.table)))
        .json(&json!({"outcome": "wall"}))
        .send()
        .await
        .unwrap();
    for file in ["standings.csv", "games.csv"] {
        let csv = owner
            .get(app.url(&format!("/api/v1/leagues/{}/{file}", t.league)))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let mut rows = csv::Reader::from_reader(csv.as_bytes());
        let mut names = 0;
        for row in rows.records() {
            for cell in row.unwrap().iter() {
                assert!(
                    !cell.starts_with(['=', '+', '@', '\t', '\r']),
                    "{file}: {cell}"
                );
                if cell.contains("HYPERLINK") || cell.contains("SUM(A1)") {
                    names += 1;
                    assert!(cell.starts_with('\''), "{file}: {cell}");
                }
            }
        }
        assert!(names >= 2, "{file}: {csv}");
    }
}

/// Item 18: the pages show a club to strangers only through its public leagues.
#[tokio::test]
async fn pages_hide_clubs_as_the_api_does() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "quiet-club", "owner@example.org").await;
    let stranger = reqwest::Client::new();
    let front = stranger
        .get(app.url("/"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(!front.contains("quiet-club"));
    let res = stranger
        .get(app.url("/clubs/quiet-club"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);
    let mine = owner
        .get(app.url("/"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        mine.contains("/clubs/quiet-club"),
        "members see their clubs"
    );

    let league = json_of(
        owner
            .post(app.url("/api/v1/clubs/quiet-club/leagues"))
            .json(&json!({"name": "Open season", "card": "demo-2026", "ruleset": "nmjl-money", "visibility": "public"}))
            .send()
            .await
            .unwrap(),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let front = stranger
        .get(app.url("/"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(front.contains(&format!("/leagues/{league}")));
    let res = stranger
        .get(app.url("/clubs/quiet-club"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
}

/// Item 19: page forms and player stats tell a stranger nothing about what exists, and a body
/// over the limit is 413.
#[tokio::test]
async fn forms_and_stats_leak_nothing() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "leaks", "owner@example.org").await;
    let t = one_table(&app, &owner, "leaks", &["Ann", "Bea", "Cy", "Di"]).await;
    let stranger = client_from([127, 0, 0, 1]);
    let token = csrf(&app, &stranger, "/login").await;
    let res = stranger
        .post(app.url(&format!("/nights/{}/checkins", t.night)))
        .form(&[
            ("csrf", token.as_str()),
            ("player", &t.players[0].to_string()),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(
        res.status(),
        404,
        "check-in on a night the stranger cannot see"
    );
    let mut statuses = Vec::new();
    for table in [t.table, t.table + 1000] {
        let res = stranger
            .post(app.url(&format!("/tables/{table}/score")))
            .form(&[
                ("csrf", token.as_str()),
                ("key", "k"),
                ("outcome", "nonsense"),
            ])
            .send()
            .await
            .unwrap();
        statuses.push(res.status().as_u16());
    }
    assert_eq!(
        statuses[0], statuses[1],
        "a real table and a missing one answer alike"
    );
    assert_eq!(statuses[0], 404);
    let big = "x".repeat(300 * 1024);
    let res = stranger
        .post(app.url("/login"))
        .form(&[
            ("csrf", token.as_str()),
            ("email", big.as_str()),
            ("password", "x"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 413);
    let anon = reqwest::Client::new();
    let real = anon
        .get(app.url(&format!("/api/v1/players/{}/stats", t.players[0])))
        .send()
        .await
        .unwrap();
    let missing = anon
        .get(app.url("/api/v1/players/999999/stats"))
        .send()
        .await
        .unwrap();
    assert_eq!(real.status(), 404);
    assert_eq!(missing.status(), 404);
}

/// A card file of many lines with every variant: about 38,000 targets from 26 KB.
fn card_bomb() -> String {
    let mut text = String::from("name = \"Bomb\"\nyear = 2026\n");
    for i in 0..200 {
        text.push_str(&format!(
            "\n[[hand]]\nsection = \"S{i}\"\npattern = \"NN EE WW SS 1:a 2:b 3:c 1:a 2:b 3:c\"\nvalue = 25\nsuits = \"any\"\nnumbers = \"any\"\nwinds = \"any\"\n"
        ));
    }
    text
}

/// Item 2: a card that expands past the limit is refused (inline and uploaded), naming it.
#[tokio::test]
async fn card_bombs_are_refused() {
    let app = spawn_app().await;
    let res = app
        .client
        .post(app.url("/api/v1/hands/check"))
        .json(&json!({"card": card_bomb(), "hand": "F F 2B 2B J 2B 4C 4C 6C 6C 8B 8B J 8B"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 422);
    let v = json_of(res).await;
    assert_eq!(v["errors"][0]["field"], "card");
    assert!(
        v["detail"].as_str().unwrap().contains("20000 targets"),
        "{v}"
    );
    let owner = club_owner(&app, "bombs", "owner@example.org").await;
    let res = owner
        .post(app.url("/api/v1/clubs/bombs/cards"))
        .header("Content-Type", "application/toml")
        .body(card_bomb())
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 422);
    let v = json_of(res).await;
    assert_eq!(v["errors"][0]["field"], "source");
    assert!(v["errors"][0]["line"].as_u64().is_some(), "{v}");
    // The service still answers at once.
    let res = app.client.get(app.url("/healthz")).send().await.unwrap();
    assert_eq!(res.status(), 200);
}

/// Item 20: the document says what the answers are, and the answers keep to it.
#[tokio::test]
async fn the_api_document_and_the_answers_agree() {
    let app = spawn_app().await;
    let doc: Value = json_of(
        app.client
            .get(app.url("/api/openapi.json"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    let schemas = &doc["components"]["schemas"];
    assert_eq!(
        schemas["ChosenPassword"]["properties"]["password"]["minLength"],
        10
    );
    assert_eq!(
        schemas["SignUp"]["properties"]["password"]["deprecated"],
        true
    );
    assert!(schemas["LineView"]["properties"]["numbers"]["oneOf"].is_array());
    assert!(schemas["LeagueView"]["properties"]["ruleset"]["oneOf"].is_array());
    let nullable = |v: &Value| {
        v["type"]
            .as_array()
            .is_some_and(|t| t.contains(&json!("null")))
    };
    assert!(nullable(&schemas["NightView"]["properties"]["proposal"]));
    assert!(nullable(&schemas["AuditEntry"]["properties"]["before"]));
    for code in ["400", "401", "403", "404", "409", "422", "503"] {
        assert!(
            doc["paths"]["/api/v1/clubs/{club}/players"]["post"]["responses"][code].is_object(),
            "{code} undocumented"
        );
    }

    let res = app
        .client
        .request(
            reqwest::Method::TRACE,
            app.url("/api/v1/clubs/tuesday-tiles"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 405);
    assert_eq!(res.headers()["allow"], "GET, HEAD, PATCH");

    let owner = club_owner(&app, "docs", "owner@example.org").await;
    let t = one_table(&app, &owner, "docs", &["Ann", "Bea", "Cy", "Di"]).await;
    let res = owner
        .post(app.url(&format!("/api/v1/leagues/{}/nights", t.league)))
        .json(&json!({"date": "+262142-12-31"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 422);
    assert_eq!(field_of(res).await, "date");
    // A whole number written with a fraction is the integer; a body that is not an object is not.
    let players: Vec<f64> = t.players.iter().map(|p| *p as f64).collect();
    let res = owner
        .put(app.url(&format!("/api/v1/nights/{}/tables", t.night)))
        .header("Content-Type", "application/json")
        .body(format!(
            "{{\"tables\": [[{:.1}, {:.1}, {:.1}, {:.1}]]}}",
            players[0], players[1], players[2], players[3]
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let res = owner
        .patch(app.url(&format!("/api/v1/clubs/docs/players/{}", t.players[0])))
        .json(&json!([null, null]))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);
    let res = owner
        .patch(app.url(&format!("/api/v1/leagues/{}", t.league)))
        .json(&json!({"ruleset": {"kind": 0}}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 422);
}

/// Issue 41, item 7: an id that is not a number is named in the problem, not "no route".
#[tokio::test]
async fn an_id_that_is_not_a_number_is_named() {
    let app = spawn_app().await;
    for (path, said) in [
        ("/api/v1/leagues/abc/standings", "`abc` is not a league id"),
        ("/api/v1/games/x1", "`x1` is not a game id"),
        (
            "/api/v1/scheduled-nights/soon",
            "`soon` is not a scheduled night id",
        ),
    ] {
        let res = app.get(path).await;
        assert_eq!(res.status(), 404, "{path}");
        assert_eq!(res.headers()["content-type"], "application/problem+json");
        let p: Value = res.json().await.unwrap();
        let detail = p["detail"].as_str().unwrap();
        assert!(detail.contains(said), "{path}: {detail}");
    }
}
