//! Players, cards and leagues over real HTTP.

mod common;

use common::{club_owner, spawn_app};
use serde_json::{Value, json};

const EXAMPLE: &str = include_str!("fixtures/example.toml");

#[tokio::test]
async fn players_are_created_renamed_and_deactivated() {
    let app = spawn_app().await;
    let o = club_owner(&app, "club", "o@example.org").await;
    let url = app.url("/api/v1/clubs/club/players");
    let rose: Value = o
        .post(&url)
        .json(&json!({"name": "  Rose   Adler "}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(rose["name"], "Rose Adler");
    let dup = o
        .post(&url)
        .json(&json!({"name": "rose adler"}))
        .send()
        .await
        .unwrap();
    assert_eq!(dup.status(), 409);
    o.post(&url)
        .json(&json!({"name": "Sam"}))
        .send()
        .await
        .unwrap();
    let id = rose["id"].as_i64().unwrap();
    let renamed: Value = o
        .patch(format!("{url}/{id}"))
        .json(&json!({"name": "Rose A."}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(renamed["name"], "Rose A.");
    assert_eq!(
        o.patch(format!("{url}/{id}"))
            .json(&json!({"name": "Sam"}))
            .send()
            .await
            .unwrap()
            .status(),
        409
    );
    let off: Value = o
        .patch(format!("{url}/{id}"))
        .json(&json!({"active": false}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(off["active"], false);
    let active: Value = o.get(&url).send().await.unwrap().json().await.unwrap();
    let active = active["players"].as_array().unwrap();
    assert_eq!(
        active
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["Sam"]
    );
    let all: Value = o
        .get(format!("{url}?all=true"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let all = all["players"].as_array().unwrap();
    assert_eq!(all.len(), 2);
    assert_eq!(
        o.patch(format!("{url}/999999"))
            .json(&json!({"active": true}))
            .send()
            .await
            .unwrap()
            .status(),
        404
    );
    let res = o
        .post(&url)
        .json(&json!({"name": ""}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 422);
}

#[tokio::test]
async fn cards_upload_with_line_numbered_errors_and_visibility() {
    let app = spawn_app().await;
    let a = club_owner(&app, "a-club", "a@example.org").await;
    let b = club_owner(&app, "b-club", "b@example.org").await;
    // Raw TOML upload.
    let res = a
        .post(app.url("/api/v1/clubs/a-club/cards"))
        .header("content-type", "application/toml")
        .body(EXAMPLE)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    let card: Value = res.json().await.unwrap();
    assert_eq!(
        (card["hands"].as_u64(), card["targets"].as_u64()),
        (Some(4), Some(35))
    );
    let id = card["id"].as_str().unwrap().to_string();
    assert_eq!(card["sections"][0]["lines"][0]["id"], "2468#1");

    // Errors come with their lines and hands.
    let bad = EXAMPLE
        .replace("FF 222:g 4444:g 666:r 88:r", "FF 222:g 4444:g 666:r 8:r")
        .replace("value = 35", "value = 0");
    let res = a
        .post(app.url("/api/v1/clubs/a-club/cards"))
        .json(&json!({"source": bad}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 422);
    let p: Value = res.json().await.unwrap();
    let errors = p["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 2, "{p}");
    assert_eq!(errors[0]["line"], 7);
    assert_eq!(errors[0]["hand"], "2468#1");
    assert_eq!(
        errors[0]["message"],
        "pattern has 13 tiles, a hand needs 14"
    );
    assert_eq!(errors[1]["hand"], "Winds#1");

    // The club's card is visible to its members, hidden from others; built-ins to all.
    assert_eq!(
        a.get(app.url(&format!("/api/v1/cards/{id}")))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
    assert_eq!(
        b.get(app.url(&format!("/api/v1/cards/{id}")))
            .send()
            .await
            .unwrap()
            .status(),
        404
    );
    assert_eq!(
        reqwest::get(app.url("/api/v1/cards/demo-2026"))
            .await
            .unwrap()
            .status(),
        200
    );
    let listed: Value = reqwest::get(app.url("/api/v1/cards"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(
        listed["cards"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["id"] != id.as_str())
    );
    let public: Value = a
        .post(app.url("/api/v1/clubs/a-club/cards"))
        .json(&json!({"source": EXAMPLE, "public": true}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let listed: Value = reqwest::get(app.url("/api/v1/cards"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let listed = listed["cards"].as_array().unwrap();
    assert!(listed.iter().any(|c| c["id"] == public["id"]));
    let club_cards: Value = a
        .get(app.url("/api/v1/clubs/a-club/cards"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let club_cards = club_cards["cards"].as_array().unwrap();
    let builtin = mahjong_league::rules::builtin::names().count();
    assert_eq!(
        club_cards.len(),
        2 + builtin,
        "two uploads and the built-in cards"
    );
    assert!(club_cards[..2].iter().all(|c| c["builtin"] == false));

    // Another club cannot build a league on a private card, but can on a public one.
    let res = b
        .post(app.url("/api/v1/clubs/b-club/leagues"))
        .json(&json!({"name": "L", "card": id, "ruleset": "nmjl-money"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 422);
    let res = b
        .post(app.url("/api/v1/clubs/b-club/leagues"))
        .json(&json!({"name": "L", "card": public["id"], "ruleset": "nmjl-money"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
}

#[tokio::test]
async fn leagues_take_presets_or_their_own_ruleset() {
    let app = spawn_app().await;
    let o = club_owner(&app, "club", "o@example.org").await;
    let url = app.url("/api/v1/clubs/club/leagues");
    let custom = json!({"kind": "points", "name": "house", "self_pick": 15, "jokerless": 25});
    let res = o.post(&url).json(&json!({"name": "House rules", "card": "demo-2026", "ruleset": custom, "board": "average", "min_games": 8, "starts_on": "2026-03-01", "ends_on": "2026-06-30"})).send().await.unwrap();
    assert_eq!(res.status(), 201);
    let league: Value = res.json().await.unwrap();
    assert_eq!(league["ruleset"]["self_pick"], 15);
    assert_eq!(league["visibility"], "members");
    assert_eq!(league["games_per_table"], 4);
    let id = league["id"].as_i64().unwrap();

    for (body, field) in [
        (
            json!({"name": "X", "card": "demo-2026", "ruleset": "house-money"}),
            "ruleset",
        ),
        (
            json!({"name": "X", "card": "demo-2026", "ruleset": {"kind": "points", "self_pik": 5}}),
            "ruleset",
        ),
        (
            json!({"name": "X", "card": "no-such-card", "ruleset": "tournament"}),
            "card",
        ),
        (json!({"name": "X", "card": "demo-2026"}), "ruleset"),
        (
            json!({"name": "X", "card": "demo-2026", "ruleset": "tournament", "games_per_table": 0}),
            "games_per_table",
        ),
        (
            json!({"name": "X", "card": "demo-2026", "ruleset": "tournament", "starts_on": "2026-05-01", "ends_on": "2026-04-01"}),
            "ends_on",
        ),
        (
            json!({"name": "X", "card": "demo-2026", "ruleset": "tournament", "starts_on": "May 1"}),
            "starts_on",
        ),
    ] {
        let res = o.post(&url).json(&body).send().await.unwrap();
        assert!(res.status().is_client_error(), "{body}");
        let p: Value = res.json().await.unwrap();
        assert_eq!(p["errors"][0]["field"], field, "{body}: {p}");
    }

    // Members-only leagues are invisible to anyone else; public ones are open.
    let anon = reqwest::Client::new();
    assert_eq!(
        anon.get(app.url(&format!("/api/v1/leagues/{id}")))
            .send()
            .await
            .unwrap()
            .status(),
        404
    );
    let edited: Value = o
        .patch(app.url(&format!("/api/v1/leagues/{id}")))
        .json(&json!({"visibility": "public", "ruleset": "tournament"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(edited["ruleset"], "tournament");
    assert_eq!(edited["board"], "average", "fields not sent are kept");
    let seen: Value = anon
        .get(app.url(&format!("/api/v1/leagues/{id}")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(seen["name"], "House rules");
    assert_eq!(
        anon.patch(app.url(&format!("/api/v1/leagues/{id}")))
            .json(&json!({"name": "Mine"}))
            .send()
            .await
            .unwrap()
            .status(),
        401
    );
    let list: Value = o.get(&url).send().await.unwrap().json().await.unwrap();
    assert_eq!(list["leagues"].as_array().unwrap().len(), 1);
}

/// A line's targets, for entering a hand from the card: every concrete way to make it, its
/// groups in order; the hand each one describes is a winning hand on that line.
#[tokio::test]
async fn a_lines_targets_are_listed_and_each_one_wins_on_it() {
    let app = spawn_app().await;
    let a = club_owner(&app, "a-club", "a@example.org").await;
    let b = club_owner(&app, "b-club", "b@example.org").await;
    // `#` in a line id is sent percent-encoded.
    let line: Value = reqwest::get(app.url("/api/v1/cards/demo-2026/lines/2468%231"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(line["id"], "2468#1");
    assert_eq!(line["concealed"], false);
    let targets = line["targets"].as_array().unwrap();
    // 222:g 444:g 6666:r 8888:r with distinct suits: 3 × 2 suit choices.
    assert_eq!(targets.len(), 6, "{line}");
    for t in targets {
        let tiles: Vec<&str> = t["tiles"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap())
            .collect();
        assert_eq!(tiles.len(), 14);
        assert_eq!(t["groups"], json!([3, 3, 4, 4]), "{t}");
        let check: Value = reqwest::Client::new()
            .post(app.url("/api/v1/hands/check"))
            .json(&json!({"card": "demo-2026", "hand": tiles.join(" ")}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(check["best"]["id"], "2468#1", "{check}");
    }
    // Decoration tokens are not groups; alternatives each keep their own groups.
    let plus: Value = reqwest::get(app.url("/api/v1/cards/demo-2026/lines/Addition%231"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        plus["targets"][0]["groups"],
        json!([2, 2, 2, 4, 4]),
        "{plus}"
    );

    let res = reqwest::get(app.url("/api/v1/cards/demo-2026/lines/nope%231"))
        .await
        .unwrap();
    assert_eq!(res.status(), 404);
    let p: Value = res.json().await.unwrap();
    assert!(
        p["detail"].as_str().unwrap().contains("no line `nope#1`"),
        "{p}"
    );

    // An uploaded card's lines are for those who may see the card.
    let card: Value = a
        .post(app.url("/api/v1/clubs/a-club/cards"))
        .header("content-type", "application/toml")
        .body(EXAMPLE)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let path = format!(
        "/api/v1/cards/{}/lines/2468%231",
        card["id"].as_str().unwrap()
    );
    let status = |c: reqwest::Client| {
        let url = app.url(&path);
        async move { c.get(url).send().await.unwrap().status().as_u16() }
    };
    assert_eq!(status(a.clone()).await, 200);
    assert_eq!(status(b.clone()).await, 404);
    assert_eq!(status(reqwest::Client::new()).await, 404);
}
