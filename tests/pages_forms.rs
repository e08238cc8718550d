//! Page forms over plain HTTP: who is calling is known before a form's fields are used.

mod common;

use std::time::Duration;

use common::{club_owner, csrf_of, one_table, spawn_app};

/// A guard against a request that never ends (it is not a speed limit: it fails only on a hang).
async fn answered(req: reqwest::RequestBuilder) -> reqwest::Response {
    tokio::time::timeout(Duration::from_secs(30), req.send())
        .await
        .expect("the server answered")
        .expect("request sent")
}

#[tokio::test]
async fn the_seating_form_asks_who_is_calling_before_it_reads_the_seats() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "seats", "owner@example.org").await;
    let t = one_table(&app, &owner, "seats", &["Ann", "Bea", "Cy", "Di"]).await;
    let huge = u64::MAX.to_string();

    // A stranger with a valid form token (from the login page) and a table number near 2^64.
    let stranger = reqwest::Client::builder()
        .cookie_store(true)
        .build()
        .unwrap();
    let login = answered(stranger.get(app.url("/login"))).await;
    let token = csrf_of(&login.text().await.unwrap());
    let field = format!("t{huge}s0");
    let player = t.players[0].to_string();
    let res = answered(
        stranger
            .post(app.url(&format!("/nights/{}/tables", t.night)))
            .form(&[("csrf", token.as_str()), (field.as_str(), player.as_str())]),
    )
    .await;
    assert_eq!(
        res.status(),
        404,
        "a members' league's night is not shown to strangers"
    );
    assert_eq!(
        seated(&app, &owner, t.night).await,
        t.players,
        "the stranger changed nothing"
    );

    // The organizer's form: seats are taken in table order, then seat order.
    let page = answered(owner.get(app.url(&format!("/nights/{}", t.night)))).await;
    let token = csrf_of(&page.text().await.unwrap());
    let lock = |fields: Vec<(String, String)>| {
        let mut all = vec![("csrf".to_string(), token.clone())];
        all.extend(fields);
        owner
            .post(app.url(&format!("/nights/{}/tables", t.night)))
            .form(&all)
    };
    let reversed: Vec<(String, String)> = t
        .players
        .iter()
        .rev()
        .enumerate()
        .map(|(seat, p)| (format!("t1s{seat}"), p.to_string()))
        .collect();
    let res = answered(lock(reversed)).await;
    assert!(res.status().is_success(), "{}", res.status());
    let want: Vec<i64> = t.players.iter().rev().copied().collect();
    assert_eq!(seated(&app, &owner, t.night).await, want);

    // Numbers the page never offers: a table beyond what 4 players fill, a fifth seat.
    for (table, seat) in [(huge.as_str(), "0"), ("3", "0"), ("1", "4")] {
        let fields = t
            .players
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let s = if i == 0 {
                    seat.to_string()
                } else {
                    i.to_string()
                };
                let tb = if i == 0 { table } else { "1" };
                (format!("t{tb}s{s}"), p.to_string())
            })
            .collect();
        let res = answered(lock(fields)).await;
        assert_eq!(res.status(), 422, "table {table} seat {seat}");
        assert_eq!(seated(&app, &owner, t.night).await, want, "nothing changed");
    }
}

/// Player ids at the night's first table, in seat order.
async fn seated(app: &common::TestApp, client: &reqwest::Client, night: i64) -> Vec<i64> {
    let night: serde_json::Value =
        answered(client.get(app.url(&format!("/api/v1/nights/{night}"))))
            .await
            .json()
            .await
            .unwrap();
    night["tables"][0]["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["player"]["id"].as_i64().unwrap())
        .collect()
}

/// Issue 13, item 6: the scoring form sends the game number it shows, so two scorers entering
/// the same game store one game and the second is told, instead of a game k+1.
#[tokio::test]
async fn two_scorers_on_one_game_store_it_once() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "racing", "owner@example.org").await;
    let t = one_table(&app, &owner, "racing", &["Ann", "Bea", "Cy", "Di"]).await;
    let page = |html: &str, name: &str| {
        html.split(&format!("name=\"{name}\" value=\""))
            .nth(1)
            .and_then(|r| r.split('"').next())
            .unwrap()
            .to_string()
    };
    let mut forms = Vec::new();
    for _ in 0..2 {
        let html = answered(owner.get(app.url(&format!("/tables/{}/score", t.table))))
            .await
            .text()
            .await
            .unwrap();
        forms.push((
            page(&html, "csrf"),
            page(&html, "key"),
            page(&html, "number"),
        ));
    }
    assert_eq!(forms[0].2, "1");
    for (csrf, key, number) in &forms {
        let res = answered(
            owner
                .post(app.url(&format!("/tables/{}/score", t.table)))
                .form(&[
                    ("csrf", csrf.as_str()),
                    ("key", key.as_str()),
                    ("number", number.as_str()),
                    ("won", "wall"),
                ]),
        )
        .await;
        assert!(res.status().is_success(), "{}", res.status());
    }
    let games: i64 = sqlx::query_scalar("SELECT count(*) FROM games")
        .fetch_one(&app.db)
        .await
        .unwrap();
    assert_eq!(
        games, 1,
        "the second scorer's game 1 is not stored as game 2"
    );
}

/// Without JavaScript the scoring screen is a plain form: who won and how are one choice each,
/// the hand and its exposed groups typed; it is checked exactly as the API checks a game, a
/// refusal comes back in words, and a saved game leaves the screen ready for the next one.
#[tokio::test]
async fn the_score_form_works_without_javascript() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "plain", "owner@example.org").await;
    let t = one_table(&app, &owner, "plain", &["Ann", "Bea", "Cy", "Di"]).await;
    let url = app.url(&format!("/tables/{}/score", t.table));
    let html = answered(owner.get(&url)).await.text().await.unwrap();
    let csrf = html
        .split("name=\"csrf\" value=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap()
        .to_string();
    let (ann, bea) = (t.players[0].to_string(), t.players[1].to_string());
    let post = |fields: Vec<(&'static str, String)>| {
        let mut all = vec![("csrf", csrf.clone()), ("number", "1".to_string())];
        all.extend(fields);
        owner.post(&url).form(&all).send()
    };
    // No choice of who won: back to the screen, saying what is missing.
    let res = post(vec![("key", "k0".into())]).await.unwrap();
    assert_eq!(res.status(), 200, "followed back to the screen");
    let body = res.text().await.unwrap();
    assert!(body.contains("choose who won"), "{body}");

    let discard_win = |key: &str, how: String| {
        vec![
            ("key", key.to_string()),
            ("won", ann.clone()),
            ("how", how),
            (
                "hand",
                "2B 2B 2B 4B 4B 4B 6C 6C 6C 6C 8C 8C 8C J".to_string(),
            ),
            ("exposure", "6C 6C 6C 6C".to_string()),
            ("exposure", "8C 8C 8C J".to_string()),
            ("exposure", String::new()),
        ]
    };
    let res = post(discard_win("k1", "discard:nobody".into()))
        .await
        .unwrap();
    let body = res.text().await.unwrap();
    assert!(body.contains("choose a player at the table"), "{body}");
    let res = post(discard_win("k2", format!("discard:{bea}")))
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert!(
        res.url().path().ends_with("/score"),
        "the screen again, for the next game: {}",
        res.url()
    );
    let body = res.text().await.unwrap();
    assert!(body.contains("Saved: game 1"), "{body}");
    assert!(
        body.contains("game <span id=\"game-number\">2</span>"),
        "{body}"
    );
    let (won_by, discarder, exposures): (String, i64, i64) = sqlx::query_as(
        "SELECT won_by, discarder, jsonb_array_length(submitted->'exposures')::bigint FROM games",
    )
    .fetch_one(&app.db)
    .await
    .unwrap();
    assert_eq!(
        (won_by.as_str(), discarder, exposures),
        ("discard", t.players[1], 2)
    );
}

/// Wrong table codes from one address are limited (right ones never count): after 20 wrong
/// codes the form says to wait, and the address's guesses stop being looked up.
#[tokio::test]
async fn wrong_table_codes_are_limited_per_address() {
    let app = spawn_app().await;
    let browser = reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::limited(3))
        .build()
        .unwrap();
    let html = answered(browser.get(app.url("/code")))
        .await
        .text()
        .await
        .unwrap();
    let csrf = html
        .split("name=\"csrf\" value=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap()
        .to_string();
    for i in 0..21 {
        let res = answered(
            browser
                .post(app.url("/code"))
                .header("Origin", app.address.as_str())
                .form(&[("csrf", csrf.as_str()), ("code", "ZZZZ-ZZZ2")]),
        )
        .await;
        let body = res.text().await.unwrap();
        if i < 20 {
            assert!(
                body.contains("this code does not open a table now")
                    && body.contains("while its night is open"),
                "attempt {i}: {body}"
            );
        } else {
            assert!(
                body.contains("too many wrong table codes"),
                "attempt {i}: {body}"
            );
        }
    }
}

/// Tables seated again take their codes with them: a tablet still holding one is a stranger,
/// not a guesser, so it never locks the club's address out of the new codes.
#[tokio::test]
async fn codes_of_reseated_tables_are_closed_not_counted_as_guesses() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "reseat", "owner@example.org").await;
    let t = one_table(&app, &owner, "reseat", &["Ann", "Bea", "Cy", "Di"]).await;
    let open_codes = || async {
        let html = answered(owner.get(app.url(&format!("/nights/{}", t.night))))
            .await
            .text()
            .await
            .unwrap();
        let csrf = html
            .split("name=\"csrf\" value=\"")
            .nth(1)
            .and_then(|r| r.split('"').next())
            .unwrap()
            .to_string();
        let page = answered(
            owner
                .post(app.url(&format!("/nights/{}/codes", t.night)))
                .header("Origin", app.address.as_str())
                .form(&[("csrf", csrf.as_str())]),
        )
        .await
        .text()
        .await
        .unwrap();
        page.split("id=\"code-1\">")
            .nth(1)
            .and_then(|r| r.split('<').next())
            .expect("the page shows table 1's code")
            .replace('-', "")
    };
    let old = open_codes().await;
    // Seated again (no game yet): table 1 is a new table, its old code is closed.
    let res = owner
        .put(app.url(&format!("/api/v1/nights/{}/tables", t.night)))
        .json(&serde_json::json!({"tables": [[t.players[1], t.players[0], t.players[3], t.players[2]]]}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let tablet = reqwest::Client::new();
    for _ in 0..25 {
        let res = answered(
            tablet
                .get(app.url("/api/v1/session"))
                .header("Cookie", format!("ml_table={old}")),
        )
        .await;
        assert_eq!(res.status(), 401, "a closed code is a stranger");
    }
    // New codes still work from the same address.
    let new = open_codes().await;
    let tables: serde_json::Value = owner
        .get(app.url(&format!("/api/v1/nights/{}", t.night)))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let table = tables["tables"][0]["id"].as_i64().unwrap();
    let res = answered(
        tablet
            .post(app.url(&format!("/api/v1/tables/{table}/games")))
            .header("Cookie", format!("ml_table={new}"))
            .header("Origin", app.address.as_str())
            .json(&serde_json::json!({"outcome": "wall"})),
    )
    .await;
    assert_eq!(res.status(), 201, "{}", res.text().await.unwrap());
}

#[tokio::test]
async fn the_door_checks_players_in_by_name_or_badge_without_javascript() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "door", "owner@example.org").await;
    let t = one_table(
        &app,
        &owner,
        "door",
        &["Ann Lee", "Bea Roth", "Cy Anand", "Di Ames"],
    )
    .await;
    let night: serde_json::Value = answered(
        owner
            .post(app.url(&format!("/api/v1/leagues/{}/nights", t.league)))
            .json(&serde_json::json!({"date": "2026-03-10"})),
    )
    .await
    .json()
    .await
    .unwrap();
    let night = night["id"].as_i64().unwrap();
    let door = format!("/nights/{night}/door");
    let page = answered(owner.get(app.url(&door)))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("<strong>0</strong> of 4 checked in"),
        "{page}"
    );
    let csrf = csrf_of(&page);
    let send = |code: String| {
        answered(
            owner
                .post(app.url(&door))
                .form(&[("csrf", csrf.clone()), ("code", code)]),
        )
    };
    // The search box posted as typed: part of one name, a badge's code, an ambiguous part.
    let html = send("roth".into()).await.text().await.unwrap();
    assert!(
        html.contains("Bea Roth checked in. 1 of 4 here, 3 missing."),
        "{html}"
    );
    let html = send(format!("mjl-{}", t.players[3]))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        html.contains("Di Ames checked in. 2 of 4 here, 2 missing."),
        "{html}"
    );
    let html = send("an".into()).await.text().await.unwrap();
    assert!(
        html.contains("2 players match “an” (Cy Anand, Ann Lee)")
            || html.contains("2 players match “an” (Ann Lee, Cy Anand)"),
        "{html}"
    );
    let html = send("zed".into()).await.text().await.unwrap();
    assert!(html.contains("no player is named like “zed”"), "{html}");
    let stored: serde_json::Value =
        answered(owner.get(app.url(&format!("/api/v1/nights/{night}"))))
            .await
            .json()
            .await
            .unwrap();
    let mut ids: Vec<i64> = stored["checkins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_i64().unwrap())
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, vec![t.players[1], t.players[3]]);
}
