//! Issue 36 (trust): who the client is behind a proxy and without one, limits no stranger can
//! dodge, and what a stranger never sees. Over real HTTP against the real application and
//! PostgreSQL; each test names the item it covers.

mod common;

use std::time::Duration;

use common::{TestApp, club_owner, one_table, spawn_app, spawn_app_with};
use serde_json::json;

async fn answered(req: reqwest::RequestBuilder) -> reqwest::Response {
    tokio::time::timeout(Duration::from_secs(30), req.send())
        .await
        .expect("the server answered")
        .expect("request sent")
}

fn browser() -> reqwest::Client {
    common::browser_client()
}

fn csrf_in(html: &str) -> String {
    html.split("name=\"csrf\" value=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .expect("a form with a CSRF token")
        .to_string()
}

/// Opens the night's table codes on its page (as an organizer does), with extra headers on the
/// request; the page as HTML.
async fn codes_page(
    app: &TestApp,
    owner: &reqwest::Client,
    night: i64,
    headers: &[(&str, &str)],
) -> String {
    let html = answered(owner.get(app.url(&format!("/nights/{night}"))))
        .await
        .text()
        .await
        .unwrap();
    let mut req = owner
        .post(app.url(&format!("/nights/{night}/codes")))
        .header("Origin", app.address.as_str())
        .form(&[("csrf", csrf_in(&html).as_str())]);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    // Opening the codes goes on to the page that shows them (shown there while the night is
    // open): read it as the organizer's browser does.
    answered(req).await;
    let mut shown = owner.get(app.url(&format!("/nights/{night}/codes")));
    for (k, v) in headers {
        shown = shown.header(*k, *v);
    }
    answered(shown).await.text().await.unwrap()
}

fn first_code(page: &str) -> String {
    page.split("id=\"code-1\">")
        .nth(1)
        .and_then(|r| r.split('<').next())
        .expect("the page shows table 1's code")
        .to_string()
}

/// Types a code on the door's `/code` form from a client the proxy names `client`; the page
/// the form leads to (or the refusal), and the cookie it set.
async fn enter_code(app: &TestApp, client: &str, code: &str) -> (String, Option<String>) {
    let b = browser();
    let html = answered(b.get(app.url("/code")).header("X-Forwarded-For", client))
        .await
        .text()
        .await
        .unwrap();
    let res = answered(
        b.post(app.url("/code"))
            .header("Origin", app.address.as_str())
            .header("X-Forwarded-For", format!("10.9.9.9, {client}"))
            .form(&[("csrf", csrf_in(&html).as_str()), ("code", code)]),
    )
    .await;
    let cookie = res
        .cookies()
        .find(|c| c.name() == "ml_table")
        .map(|c| c.value().to_string());
    let location = res
        .headers()
        .get("location")
        .and_then(|l| l.to_str().ok())
        .unwrap_or("")
        .to_string();
    let body = if location.is_empty() {
        res.text().await.unwrap()
    } else {
        answered(b.get(app.url(&location)).header("X-Forwarded-For", client))
            .await
            .text()
            .await
            .unwrap()
    };
    (body, cookie)
}

/// Item 2: behind the proxy the client is the address the proxy appended. A stranger's made-up
/// code cookies and typed codes count against that address (whatever it puts first), never
/// against the proxy: other clients' codes, and a cookie from a correct entry, keep working.
#[tokio::test]
async fn behind_the_proxy_guesses_count_against_the_guesser_only() {
    let app = spawn_app_with(|s| s.trust_proxy = true).await;
    let owner = club_owner(&app, "proxied", "owner@example.org").await;
    let t = one_table(&app, &owner, "proxied", &["Ann", "Bea", "Cy", "Di"]).await;
    let code = first_code(&codes_page(&app, &owner, t.night, &[]).await);

    // A tablet enters the code before the stranger starts: its cookie is signed.
    let (page, cookie) = enter_code(&app, "198.51.100.8", &code).await;
    assert!(page.contains("table 1"), "{page}");
    let cookie = cookie.expect("a table cookie");

    // The stranger: 25 made-up cookies and 21 typed codes, each with a new first entry.
    let stranger = reqwest::Client::new();
    for i in 0..25 {
        let res = answered(
            stranger
                .get(app.url("/api/v1/session"))
                .header("Cookie", format!("ml_table=ZZZZZZZ{}", i % 10))
                .header("X-Forwarded-For", format!("203.0.113.{i}, 198.51.100.66")),
        )
        .await;
        assert_eq!(res.status(), 401);
    }
    let (refused, _) = enter_code(&app, "198.51.100.66", &code).await;
    assert!(
        refused.contains("too many wrong table codes"),
        "the stranger's own address is limited: {refused}"
    );

    // Another tablet behind the same proxy types its code and is let in.
    let (page, _) = enter_code(&app, "198.51.100.9", &code).await;
    assert!(
        page.contains("table 1") && !page.contains("too many"),
        "{page}"
    );
    // The first tablet's cookie works, even sent from the stranger's address.
    for from in ["198.51.100.8", "198.51.100.66"] {
        let res = answered(
            reqwest::Client::new()
                .post(app.url(&format!("/api/v1/tables/{}/games", t.table)))
                .header("Cookie", format!("ml_table={cookie}"))
                .header("Origin", app.address.as_str())
                .header("X-Forwarded-For", from)
                .json(&json!({"outcome": "wall"})),
        )
        .await;
        assert_eq!(
            res.status(),
            201,
            "from {from}: {}",
            res.text().await.unwrap()
        );
    }
    // A forged signature is a guess like any other.
    let forged = format!(
        "{}.{}",
        &cookie[..cookie.find('.').unwrap()],
        "0".repeat(32)
    );
    let res = answered(
        reqwest::Client::new()
            .get(app.url("/api/v1/session"))
            .header("Cookie", format!("ml_table={forged}"))
            .header("X-Forwarded-For", "198.51.100.66"),
    )
    .await;
    assert_eq!(res.status(), 401);
}

/// Item 2: an IPv6 client counts by its /64, so rotating within it does not dodge the limit.
#[tokio::test]
async fn an_ipv6_client_counts_by_its_64() {
    let app = spawn_app_with(|s| s.trust_proxy = true).await;
    for i in 0..20 {
        let _ = enter_code(&app, &format!("2001:db8:5:6::{i:x}"), "ZZZZ-ZZZ2").await;
    }
    let (refused, _) = enter_code(&app, "2001:db8:5:6:ffff::1", "ZZZZ-ZZZ2").await;
    assert!(refused.contains("too many wrong table codes"), "{refused}");
    let (other, _) = enter_code(&app, "2001:db8:5:7::1", "ZZZZ-ZZZ2").await;
    assert!(
        other.contains("this code does not open a table now"),
        "{other}"
    );
}

/// Item 2: without `--trust-proxy` no forwarded header is believed: not for the limits, not
/// for the host in the table codes' QR links, not for the embed snippet.
#[tokio::test]
async fn without_trust_no_forwarded_header_counts() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "direct", "owner@example.org").await;
    let t = one_table(&app, &owner, "direct", &["Ann", "Bea", "Cy", "Di"]).await;
    let forged = [
        ("X-Forwarded-Host", "evil.example"),
        ("X-Forwarded-Proto", "https"),
        ("Forwarded", "for=192.0.2.1;host=evil.example;proto=https"),
    ];
    let page = codes_page(&app, &owner, t.night, &forged).await;
    let own = format!("{}/t/", app.address);
    assert!(page.contains(&own), "links use the Host header: {page}");
    assert!(!page.contains("evil.example"), "{page}");

    let res = answered(
        owner
            .patch(app.url(&format!("/api/v1/leagues/{}", t.league)))
            .json(&json!({"visibility": "public"})),
    )
    .await;
    assert!(res.status().is_success(), "{}", res.status());
    let mut req = owner.get(app.url(&format!("/leagues/{}", t.league)));
    for (k, v) in forged {
        req = req.header(k, v);
    }
    let league = answered(req).await.text().await.unwrap();
    assert!(
        league.contains(&format!("{}/leagues/{}/embed", app.address, t.league)),
        "the embed snippet names this host"
    );
    assert!(!league.contains("evil.example"));

    // Rotating X-Forwarded-For does not dodge a limit either.
    let app = spawn_app_with(|s| s.api_rate_limit = 3).await;
    let mut statuses = Vec::new();
    for i in 0..4 {
        let res = answered(
            reqwest::Client::new()
                .get(app.url("/api/v1/leagues"))
                .header("X-Forwarded-For", format!("203.0.113.{i}")),
        )
        .await;
        statuses.push(res.status().as_u16());
    }
    assert_eq!(statuses, [200, 200, 200, 429]);
}

/// Item 3: only a cookie that stands for a live session or code lifts the anonymous API limit.
#[tokio::test]
async fn a_made_up_cookie_does_not_lift_the_api_limit() {
    for cookie in [
        "ml_session=x",
        "ml_table=ABCDEFGH",
        "ml_table=ABCDEFGH.0123",
    ] {
        let app = spawn_app_with(|s| s.api_rate_limit = 3).await;
        let mut statuses = Vec::new();
        for _ in 0..4 {
            let res = answered(
                reqwest::Client::new()
                    .get(app.url("/api/v1/leagues"))
                    .header("Cookie", cookie),
            )
            .await;
            statuses.push(res.status().as_u16());
        }
        assert_eq!(statuses, [200, 200, 200, 429], "{cookie}");
    }
    // A real session is not counted (its sign-up was).
    let app = spawn_app_with(|s| s.api_rate_limit = 3).await;
    let owner = club_owner(&app, "limits", "owner@example.org").await;
    for _ in 0..5 {
        let res = answered(owner.get(app.url("/api/v1/leagues"))).await;
        assert_eq!(res.status(), 200);
        assert!(res.headers().get("ratelimit-limit").is_none());
    }
}

/// Item 3: event streams are capped per client address (behind the proxy, the address it
/// names): one address cannot take the process's slots, and others still connect.
#[tokio::test]
async fn event_streams_are_capped_per_address() {
    let app = spawn_app_with(|s| {
        s.trust_proxy = true;
        s.streams_per_address = 3;
    })
    .await;
    let owner = club_owner(&app, "streams", "owner@example.org").await;
    let t = one_table(&app, &owner, "streams", &["Ann", "Bea", "Cy", "Di"]).await;
    let url = app.url(&format!("/api/v1/leagues/{}/events", t.league));
    let open = |from: &'static str| {
        let req = owner
            .get(&url)
            .header("X-Forwarded-For", format!("10.1.1.1, {from}"));
        async move { answered(req).await }
    };
    let mut held = Vec::new();
    for _ in 0..3 {
        let res = open("198.51.100.20").await;
        assert_eq!(res.status(), 200);
        held.push(res);
    }
    let refused = open("198.51.100.20").await;
    assert_eq!(refused.status(), 429);
    assert!(refused.headers().contains_key("retry-after"));
    let text = refused.text().await.unwrap();
    assert!(text.contains("3 event streams"), "{text}");
    let other = open("198.51.100.21").await;
    assert_eq!(other.status(), 200, "another address connects");
    drop(held);
}

/// Item 3: SIGTERM ends open event streams at once; the service exits within 2 s.
#[tokio::test]
async fn sigterm_closes_event_streams_at_once() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "stop", "owner@example.org").await;
    let t = one_table(&app, &owner, "stop", &["Ann", "Bea", "Cy", "Di"]).await;
    let dir = tempfile::tempdir().unwrap();
    let mut served = common::serve_process_on(&app, dir.path()).expect("a second process serves");
    let url = format!("{}/api/v1/leagues/{}/events", served.base, t.league);
    let mut streams = Vec::new();
    for _ in 0..3 {
        let res = answered(owner.get(&url)).await;
        assert_eq!(res.status(), 200);
        streams.push(res);
    }
    let asked = std::time::Instant::now();
    // SAFETY: sends SIGTERM to the child this test started.
    unsafe { libc::kill(served.child.id() as i32, libc::SIGTERM) };
    for mut s in streams {
        let ended = tokio::time::timeout(Duration::from_secs(3), async {
            while let Ok(Some(_)) = s.chunk().await {}
        })
        .await;
        assert!(ended.is_ok(), "the stream ended");
    }
    let status = tokio::task::spawn_blocking(move || served.child.wait().unwrap())
        .await
        .unwrap();
    let took = asked.elapsed();
    assert!(status.success(), "{status:?}");
    assert!(
        took < Duration::from_secs(2),
        "exited {took:?} after SIGTERM"
    );
}

/// Item 5: two instances starting at once on a database that does not exist yet both serve.
#[tokio::test]
async fn two_instances_starting_at_once_on_a_new_database_both_serve() {
    for attempt in 0..3 {
        let mut url = url::Url::parse(&std::env::var("TEST_DATABASE_URL").unwrap()).unwrap();
        url.set_path(&format!("/new_{}", uuid::Uuid::new_v4().simple()));
        let url = url.to_string();
        let starts: Vec<_> = (0..2)
            .map(|_| {
                let url = url.clone();
                std::thread::spawn(move || {
                    let dir = tempfile::tempdir().unwrap();
                    let served = common::serve_with(dir.path(), &["--database-url", &url]);
                    (served, dir)
                })
            })
            .collect();
        for start in starts {
            let (served, _dir) = start.join().unwrap();
            let mut served = served.unwrap_or_else(|e| panic!("attempt {attempt}: {e}"));
            let res = answered(reqwest::Client::new().get(format!("{}/readyz", served.base))).await;
            assert_eq!(res.status(), 200, "attempt {attempt}");
            served.child.kill().unwrap();
            served.child.wait().unwrap();
        }
    }
}

/// Item 7: a table code's holder sees display names in a game's history, never an email; a
/// signed-in stranger's 404 on a members-only league does not name its club (API and page); a
/// public league does not name or link its members-only next season.
#[tokio::test]
async fn strangers_and_code_holders_learn_no_email_club_or_hidden_season() {
    let app = spawn_app().await;
    // An owner whose display name is not their email.
    let owner = browser();
    let res = answered(owner.post(app.url("/api/v1/users")).json(&json!({"email": "owner@example.org", "display_name": "Olive Owner", "password": common::PASSWORD}))).await;
    assert_eq!(res.status(), 202);
    let res = common::finish_sign_up(&app.db, &app.address, &owner, "owner@example.org").await;
    assert_eq!(res.status(), 201);
    let res = answered(
        owner
            .post(app.url("/api/v1/clubs"))
            .json(&json!({"slug": "hidden-club", "name": "Hidden"})),
    )
    .await;
    assert_eq!(res.status(), 201);
    let t = one_table(&app, &owner, "hidden-club", &["Ann", "Bea", "Cy", "Di"]).await;
    let res = answered(
        owner
            .post(app.url(&format!("/api/v1/tables/{}/games", t.table)))
            .json(&json!({"outcome": "wall"})),
    )
    .await;
    assert_eq!(res.status(), 201);
    let game = res.json::<serde_json::Value>().await.unwrap()["id"]
        .as_i64()
        .unwrap();
    // The owner sees the account; the table's tablet sees the name only.
    let page = answered(owner.get(app.url(&format!("/games/{game}/edit"))))
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains("owner@example.org"), "members see accounts");
    let code = first_code(&codes_page(&app, &owner, t.night, &[]).await);
    let (_, cookie) = enter_code(&app, "127.0.0.1", &code).await;
    let tablet = answered(
        reqwest::Client::new()
            .get(app.url(&format!("/games/{game}/edit")))
            .header("Cookie", format!("ml_table={}", cookie.unwrap())),
    )
    .await;
    assert_eq!(tablet.status(), 200);
    let page = tablet.text().await.unwrap();
    assert!(!page.contains("owner@example.org"), "{page}");
    assert!(
        page.contains("Olive Owner recorded"),
        "the history names who: {page}"
    );

    // A signed-in stranger and a members-only league.
    let stranger = common::signed_up(&app, "stranger@example.org").await;
    for path in [
        format!("/api/v1/leagues/{}", t.league),
        format!("/api/v1/leagues/{}/standings", t.league),
        format!("/leagues/{}", t.league),
        format!("/nights/{}", t.night),
    ] {
        let res = answered(stranger.get(app.url(&path))).await;
        assert_eq!(res.status(), 404, "{path}");
        let body = res.text().await.unwrap();
        assert!(!body.contains("hidden-club"), "{path}: {body}");
    }

    // The league made public, its next season members-only.
    let res = answered(
        owner
            .patch(app.url(&format!("/api/v1/leagues/{}", t.league)))
            .json(&json!({"visibility": "public"})),
    )
    .await;
    assert!(res.status().is_success());
    let res = answered(
        owner
            .post(app.url(&format!("/api/v1/leagues/{}/next-season", t.league)))
            .json(&json!({"name": "Secret autumn season"})),
    )
    .await;
    assert_eq!(res.status(), 201);
    let next: serde_json::Value = res.json().await.unwrap();
    let res = answered(
        owner
            .patch(app.url(&format!("/api/v1/leagues/{}", next["id"])))
            .json(&json!({"visibility": "members"})),
    )
    .await;
    assert!(res.status().is_success(), "{}", res.text().await.unwrap());
    let seen: serde_json::Value =
        answered(stranger.get(app.url(&format!("/api/v1/leagues/{}", t.league))))
            .await
            .json()
            .await
            .unwrap();
    assert_eq!(seen["next_season"], serde_json::Value::Null, "{seen}");
    let listed = answered(stranger.get(app.url("/api/v1/clubs/hidden-club/leagues")))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        !listed.contains(&format!("\"next_season\":{}", next["id"])),
        "{listed}"
    );
    let page = answered(stranger.get(app.url(&format!("/leagues/{}", t.league))))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        !page.contains("Secret autumn season"),
        "the page names no hidden season"
    );
    let own: serde_json::Value =
        answered(owner.get(app.url(&format!("/api/v1/leagues/{}", t.league))))
            .await
            .json()
            .await
            .unwrap();
    assert_eq!(own["next_season"], next["id"], "members see it");
}

/// Item 6: one person, one name. Names are stored NFC; invisible characters are refused; the
/// same name in another case or with look-alike letters is the existing player, named in the
/// 409; a file naming the club's "Émile Zoë" in another case or form imports onto that player.
#[tokio::test]
async fn one_person_one_name_in_forms_files_and_balances() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "names", "owner@example.org").await;
    let players = app.url("/api/v1/clubs/names/players");
    let add = |name: &str| {
        let req = owner.post(&players).json(&json!({ "name": name }));
        async move {
            let res = answered(req).await;
            let status = res.status().as_u16();
            (status, res.json::<serde_json::Value>().await.unwrap())
        }
    };
    // Decomposed as typed on some keyboards: stored composed.
    let (status, emile) = add("E\u{301}mile Zoe\u{308}").await;
    assert_eq!(status, 201, "{emile}");
    assert_eq!(emile["name"], "Émile Zoë");
    for same in [
        "ÉMILE ZOË",
        "émile zoë",
        "\u{415}\u{301}mile Zo\u{451}", // Cyrillic Е with an acute, and ё
        "Émile  Zoë",
    ] {
        let (status, body) = add(same).await;
        assert_eq!(status, 409, "{same:?}: {body}");
        assert!(
            body["detail"].as_str().unwrap().contains("Émile Zoë"),
            "names the existing player: {body}"
        );
    }
    for invisible in ["Émile\u{200B}Zoë", "Émile Zoë\u{200D}", "\u{202E}ëoZ elimÉ"] {
        let (status, body) = add(invisible).await;
        assert_eq!(status, 422, "{invisible:?}: {body}");
        assert_eq!(body["errors"][0]["field"], "name");
    }
    // Renaming another player to a look-alike is refused too.
    let (_, ann) = add("Ann Lee").await;
    let res = answered(
        owner
            .patch(app.url(&format!("/api/v1/clubs/names/players/{}", ann["id"])))
            .json(&json!({"name": "ÉMILE ZOË"})),
    )
    .await;
    assert_eq!(res.status(), 409);
    let listed: serde_json::Value = answered(owner.get(&players)).await.json().await.unwrap();
    assert_eq!(listed["players"].as_array().unwrap().len(), 2, "{listed}");

    // A games file and a balance sheet name her as other files do.
    let league: serde_json::Value = answered(
        owner
            .post(app.url("/api/v1/clubs/names/leagues"))
            .json(&json!({"name": "L", "card": "demo-2026", "ruleset": "nmjl-money"})),
    )
    .await
    .json()
    .await
    .unwrap();
    let lg = league["id"].as_i64().unwrap();
    let games = "night,date,table,game,status,outcome,line,value,player,seat,score,role,won_by\n\
        1,2026-02-03,1,1,recorded,mahjong,2468#1,25,ÉMILE ZOË,E,60,winner,self_pick\n\
        1,2026-02-03,1,1,recorded,mahjong,2468#1,25,Bea,S,-20,,self_pick\n\
        1,2026-02-03,1,1,recorded,mahjong,2468#1,25,Cy,W,-20,,self_pick\n\
        1,2026-02-03,1,1,recorded,mahjong,2468#1,25,Dee,N,-20,,self_pick\n";
    let res = answered(
        owner
            .post(app.url(&format!("/api/v1/leagues/{lg}/games.csv")))
            .header("Content-Type", "text/csv")
            .body(games),
    )
    .await;
    let status = res.status().as_u16();
    let report: serde_json::Value = res.json().await.unwrap();
    assert_eq!(status, 201, "{report}");
    let created: Vec<&str> = report["players_created"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(created, ["Bea", "Cy", "Dee"], "Émile is the club's own");
    let balances = |sheet: &'static str| {
        answered(
            owner
                .put(app.url(&format!("/api/v1/leagues/{lg}/opening-balances")))
                .header("Content-Type", "text/csv")
                .body(sheet),
        )
    };
    let res = balances("player,points,games,wins\nE\u{301}MILE ZOE\u{308},100,5,2\n").await;
    let status = res.status().as_u16();
    let set: serde_json::Value = res.json().await.unwrap();
    assert_eq!(status, 200, "{set}");
    assert_eq!(set["players_created"].as_array().unwrap().len(), 0, "{set}");
    let res = balances("player,points,games,wins\nBea\u{200B},10,1,0\n").await;
    assert_eq!(res.status(), 422);
    let text = res.text().await.unwrap();
    assert!(text.contains("U+200B"), "{text}");
    let count: i64 = sqlx::query_scalar("SELECT count(*) FROM players")
        .fetch_one(&app.db)
        .await
        .unwrap();
    assert_eq!(count, 5, "Émile, Ann, Bea, Cy, Dee");
}

/// Item 10: imports are read a few at a time (each holds its file in memory): while two are
/// being read, a third is told to come back (429 with `Retry-After`), before its file is read;
/// once they end, the next goes through.
#[tokio::test]
async fn imports_wait_their_turn() {
    use tokio::io::AsyncWriteExt;
    let app = spawn_app().await;
    let owner = club_owner(&app, "turns", "owner@example.org").await;
    let t = one_table(&app, &owner, "turns", &["Ann", "Bea", "Cy", "Di"]).await;
    let token: serde_json::Value = answered(
        owner
            .post(app.url("/api/v1/clubs/turns/tokens"))
            .json(&json!({"name": "importer", "scopes": ["admin"]})),
    )
    .await
    .json()
    .await
    .unwrap();
    let token = token["token"].as_str().unwrap().to_string();
    let url = app.url(&format!(
        "/api/v1/leagues/{}/games.csv?dry_run=true",
        t.league
    ));
    let header = "night,date,table,game,status,outcome,line,value,player,seat,score,role,won_by\n";
    // Two uploads that send their header and then wait, as a slow connection does.
    let address = app.address.trim_start_matches("http://").to_string();
    let mut slow = Vec::new();
    for _ in 0..2 {
        let mut s = tokio::net::TcpStream::connect(&address).await.unwrap();
        let head = format!(
            "POST /api/v1/leagues/{}/games.csv?dry_run=true HTTP/1.1\r\nHost: {address}\r\n\
             Authorization: Bearer {token}\r\nContent-Type: text/csv\r\nContent-Length: 100000\r\n\r\n{header}",
            t.league
        );
        s.write_all(head.as_bytes()).await.unwrap();
        slow.push(s);
    }
    // Until the two slow uploads hold their turns (a busy machine takes a while to get them
    // there), at most 20 s.
    let mut refused = None;
    let until = std::time::Instant::now() + Duration::from_secs(20);
    while std::time::Instant::now() < until {
        let res = answered(
            reqwest::Client::new()
                .post(&url)
                .bearer_auth(&token)
                .header("Content-Type", "text/csv")
                .body(header),
        )
        .await;
        if res.status() == 429 {
            refused = Some(res);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let refused = refused.expect("a third import at once is refused");
    assert!(refused.headers().contains_key("retry-after"));
    let text = refused.text().await.unwrap();
    assert!(text.contains("other imports"), "{text}");
    drop(slow);
    let mut status = 0;
    for _ in 0..100 {
        let res = answered(
            reqwest::Client::new()
                .post(&url)
                .bearer_auth(&token)
                .header("Content-Type", "text/csv")
                .body(header),
        )
        .await;
        status = res.status().as_u16();
        if status != 429 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_ne!(status, 429, "the turns came back");
}

/// Issue 37, item 1: a table's own stream. The holder of a table's code (on a members-only
/// league) follows that table's games and night, and nothing else: not another table, not the
/// league's stream. Strangers get the table's 404. A table has at most `PER_TABLE` screens
/// following it, held by the table and not by the club's shared address.
#[tokio::test]
async fn a_table_code_follows_its_own_table_and_nothing_more() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "instep", "owner@example.org").await;
    let t = one_table(&app, &owner, "instep", &["Ann", "Bea", "Cy", "Dot"]).await;
    let owner2 = club_owner(&app, "nextdoor", "owner2@example.org").await;
    let other = one_table(&app, &owner2, "nextdoor", &["Eve", "Fay", "Gus", "Hal"]).await;
    let code = first_code(&codes_page(&app, &owner, t.night, &[]).await);
    let (_, cookie) = enter_code(&app, "203.0.113.5", &code).await;
    let cookie = format!("ml_table={}", cookie.expect("the code's cookie"));
    let holder = reqwest::Client::new();
    let url = |table: i64| app.url(&format!("/api/v1/tables/{table}/events"));
    let open = |client: &reqwest::Client, u: String, cookie: Option<&str>| {
        let mut req = client.get(u);
        if let Some(c) = cookie {
            req = req.header("Cookie", c);
        }
        answered(req)
    };
    assert_eq!(
        open(&holder, url(other.table), Some(&cookie))
            .await
            .status(),
        404,
        "another table's stream"
    );
    let league = app.url(&format!("/api/v1/leagues/{}/events", t.league));
    assert_eq!(open(&holder, league, Some(&cookie)).await.status(), 404);
    let stranger = open(&holder, url(t.table), None).await;
    assert_eq!(stranger.status(), 404);
    let problem: serde_json::Value = stranger.json().await.unwrap();
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains(&format!("table {}", t.table))
    );

    let with_cookie = reqwest::Client::builder()
        .default_headers(
            [(reqwest::header::COOKIE, cookie.parse().unwrap())]
                .into_iter()
                .collect(),
        )
        .build()
        .unwrap();
    let mut stream = common::sse::Sse::open(&with_cookie, &url(t.table), None).await;
    let game = |by: &reqwest::Client, table: i64, number: i32| {
        answered(
            by.post(app.url(&format!("/api/v1/tables/{table}/games")))
                .json(&json!({"number": number, "outcome": "wall"})),
        )
    };
    assert_eq!(game(&owner2, other.table, 1).await.status(), 201);
    let mine = game(&owner, t.table, 1).await;
    assert_eq!(mine.status(), 201);
    let id = mine.json::<serde_json::Value>().await.unwrap()["id"]
        .as_i64()
        .unwrap();
    assert_eq!(
        answered(owner.post(app.url(&format!("/api/v1/games/{id}/void"))))
            .await
            .status(),
        200
    );
    for path in ["close", "reopen"] {
        let r = answered(owner.post(app.url(&format!("/api/v1/nights/{}/{path}", t.night)))).await;
        assert_eq!(r.status(), 200, "{path}");
    }
    let seen = stream.drain(Duration::from_secs(1)).await;
    let kinds: Vec<(&str, i64)> = seen
        .iter()
        .map(|e| {
            let data = &e.data["data"];
            let id = if e.kind.starts_with("game.") {
                &data["table"]["id"]
            } else {
                &data["night"]
            };
            (e.kind.as_str(), id.as_i64().unwrap())
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("game.recorded", t.table),
            ("game.voided", t.table),
            ("night.closed", t.night),
            ("night.reopened", t.night)
        ],
        "only this table's games and night, in order"
    );

    // Screens are held by the table: the club's one address is not what runs out.
    let mut held = Vec::new();
    for _ in 1..8 {
        let r = open(&owner, url(t.table), None).await;
        assert_eq!(r.status(), 200);
        held.push(r);
    }
    let ninth = open(&owner, url(t.table), None).await;
    assert_eq!(ninth.status(), 429);
    assert!(ninth.headers().contains_key("retry-after"));
    assert_eq!(open(&owner2, url(other.table), None).await.status(), 200);
    drop(stream);
}

/// Whoever holds a table code scores its table, signed in or not, whatever their role: a member
/// who types the code on their phone while logged in enters the table's games, and only that
/// table's.
#[tokio::test]
async fn a_signed_in_member_holding_a_code_scores_its_table_and_no_other() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "instep", "owner@example.org").await;
    let t = one_table(&app, &owner, "instep", &["Ann", "Bea", "Cy", "Dot"]).await;
    let mia = common::member_of(&app, &owner, "instep", "mia@example.org", "member").await;
    let game = |table: i64, number: i32| {
        answered(
            mia.post(app.url(&format!("/api/v1/tables/{table}/games")))
                .json(&json!({"number": number, "outcome": "wall"})),
        )
    };
    let before = game(t.table, 1).await;
    assert_eq!(before.status(), 403, "a member without the code");
    let code = first_code(&codes_page(&app, &owner, t.night, &[]).await);
    // Mia types the code at /code while logged in, as a person would.
    let html = answered(mia.get(app.url("/code")))
        .await
        .text()
        .await
        .unwrap();
    let res = answered(
        mia.post(app.url("/code"))
            .header("Origin", app.address.as_str())
            .form(&[("csrf", csrf_in(&html).as_str()), ("code", code.as_str())]),
    )
    .await;
    // Her client follows the answer's redirect to the table's scoring screen.
    assert_eq!(res.status(), 200);
    assert_eq!(res.url().path(), format!("/tables/{}/score", t.table));
    let page = res.text().await.unwrap();
    assert!(
        page.contains("<title>Score table 1") && !page.contains(">Log in<"),
        "the table's scoring screen, nothing asking her to log in: {page}"
    );
    assert_eq!(game(t.table, 1).await.status(), 201, "with the code");
    // Another table of the same club (a second night) stays closed to her.
    let other = answered(
        owner
            .post(app.url(&format!("/api/v1/leagues/{}/nights", t.league)))
            .json(&json!({"date": "2026-03-10"})),
    )
    .await
    .json::<serde_json::Value>()
    .await
    .unwrap()["id"]
        .as_i64()
        .unwrap();
    for p in &t.players {
        answered(owner.put(app.url(&format!("/api/v1/nights/{other}/checkins/{p}")))).await;
    }
    let locked: serde_json::Value = answered(
        owner
            .put(app.url(&format!("/api/v1/nights/{other}/tables")))
            .json(&json!({"tables": [t.players.clone()]})),
    )
    .await
    .json()
    .await
    .unwrap();
    let second = locked["tables"][0]["id"].as_i64().unwrap();
    assert_eq!(game(second, 1).await.status(), 403, "only the code's table");
    // Revoked, the code gives nothing more; she is a member again.
    let html = answered(owner.get(app.url(&format!("/nights/{}", t.night))))
        .await
        .text()
        .await
        .unwrap();
    answered(
        owner
            .post(app.url(&format!("/nights/{}/codes/revoke", t.night)))
            .header("Origin", app.address.as_str())
            .form(&[("csrf", csrf_in(&html).as_str())]),
    )
    .await;
    assert_eq!(game(t.table, 2).await.status(), 403, "after the revoke");
}
