//! The card editor over real HTTP and a real PostgreSQL: every built-in card's file round-trips
//! through `GET …/source` and an upload; a pasted card fills a draft, its unreadable lines kept
//! and marked; two devices saving one draft never overwrite each other; a line is checked alone;
//! and the version rule: a league keeps the version it plays when its card changes, until an
//! organizer moves it, and its stored games keep their scores.

mod common;

use common::{club_owner, one_table, spawn_app};
use reqwest::Method;
use serde_json::{Value, json};

/// `who` sends `body` (JSON) with `method` to `url`; the JSON answer, its status checked.
async fn call(
    who: &reqwest::Client,
    method: Method,
    url: &str,
    body: Option<Value>,
    want: u16,
) -> Value {
    let mut req = who.request(method, url);
    if let Some(b) = body {
        req = req.json(&b);
    }
    ok_json(req.send().await.unwrap(), want).await
}

async fn ok_json(res: reqwest::Response, want: u16) -> Value {
    let status = res.status().as_u16();
    let body = res.text().await.unwrap();
    assert_eq!(status, want, "{body}");
    serde_json::from_str(&body).unwrap()
}

/// The hands of a card as the API shows them: (id, patterns, value, concealed, targets).
fn hands(card: &Value) -> Vec<Value> {
    card["sections"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["lines"].as_array().unwrap().clone())
        .map(|l| {
            json!([
                l["id"],
                l["patterns"],
                l["value"],
                l["concealed"],
                l["suits"],
                l["numbers"],
                l["winds"],
                l["targets"]
            ])
        })
        .collect()
}

#[tokio::test]
async fn every_builtin_card_round_trips_through_its_source() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "tiles", "owner@example.org").await;
    let listed = ok_json(app.get("/api/v1/cards").await, 200).await;
    let builtins: Vec<String> = listed["cards"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["builtin"] == true)
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect();
    assert!(builtins.len() >= 2, "{listed}");
    for name in builtins {
        let res = app.get(&format!("/api/v1/cards/{name}/source")).await;
        assert_eq!(res.status(), 200);
        assert!(
            res.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("application/toml")
        );
        let source = res.text().await.unwrap();
        let uploaded = ok_json(
            owner
                .post(app.url("/api/v1/clubs/tiles/cards"))
                .header("Content-Type", "application/toml")
                .body(source.clone())
                .send()
                .await
                .unwrap(),
            201,
        )
        .await;
        let original = ok_json(app.get(&format!("/api/v1/cards/{name}")).await, 200).await;
        assert_eq!(hands(&uploaded), hands(&original), "{name}");
        assert_eq!(uploaded["targets"], original["targets"], "{name}");
        // The uploaded copy's own file is what was sent, for its club.
        let id = uploaded["id"].as_str().unwrap();
        let again = owner
            .get(app.url(&format!("/api/v1/cards/{id}/source")))
            .send()
            .await
            .unwrap();
        assert_eq!(again.text().await.unwrap(), source);
        // Another club's private card is not anyone's to read.
        let stranger = app.get(&format!("/api/v1/cards/{id}/source")).await;
        assert_eq!(stranger.status(), 404);
    }
}

#[tokio::test]
async fn a_pasted_card_fills_the_draft_and_keeps_what_it_cannot_read() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "tiles", "owner@example.org").await;
    let drafts = app.url("/api/v1/clubs/tiles/card-drafts");
    let d = ok_json(owner.post(&drafts).send().await.unwrap(), 201).await;
    let id = d["id"].as_i64().unwrap();
    assert_eq!(d["lines"], json!([]));
    let text = "# Typed from our card\n\
        2468 | FF 2222:g 44:r 66:r 8888:g | 25 | X\n\
        2468 | 222:g 444:g 6666:r 8888:r | 25 | x\n\
        Winds\n\
        NNNN EEE WWW SSSS | 25 | C\n\
        NN EE WW SS 11 22 33 FF | 50 | C\n\
        Like Numbers\tFF 1111:g 1111:r 1111:b\t30\tX\tany numbers\n\
        Quints | FF 11111:g 22222:r 33:b | 40 | Q\n";
    let pasted = call(
        &owner,
        Method::POST,
        &format!("{drafts}/{id}/paste"),
        Some(json!({"revision": d["revision"], "text": text})),
        200,
    )
    .await;
    let lines = pasted["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 6, "{pasted}");
    assert_eq!(lines[2]["section"], "Winds");
    assert_eq!(lines[2]["concealed"], true);
    assert_eq!(lines[4]["numbers"], "any");
    // The 16-tile Winds line reads but is wrong; the Q line could not be read: both kept, marked.
    let problems = pasted["line_problems"].as_array().unwrap();
    let marked: Vec<usize> = (0..6)
        .filter(|&i| !problems[i].as_array().unwrap().is_empty())
        .collect();
    assert_eq!(marked, [3, 5], "{pasted}");
    assert!(
        problems[3][0].as_str().unwrap().contains("16 tiles"),
        "{pasted}"
    );
    assert_eq!(
        lines[5]["pattern"],
        "Quints | FF 11111:g 22222:r 33:b | 40 | Q"
    );
    assert!(
        problems[5][0]
            .as_str()
            .unwrap()
            .starts_with("pasted line 8: the part after the value must be X"),
        "{pasted}"
    );
    assert_eq!(pasted["ready"], false);
    // A hand is tried only on a card without problems: the answer names them.
    let tried = call(
        &owner,
        Method::POST,
        &format!("{drafts}/{id}/try"),
        Some(json!({"hand": "F F 2B 2B 2B 2B 4C 4C 6C 6C 8B 8B 8B 8B"})),
        422,
    )
    .await;
    assert!(
        tried["detail"].as_str().unwrap().contains("Winds, line 2"),
        "{tried}"
    );
    // The card has no name yet: a hand is tried on its lines all the same.
    assert!(
        !tried["detail"].as_str().unwrap().contains("name"),
        "{tried}"
    );
    // Publishing now is refused, naming each line by its section and place.
    let refused = call(
        &owner,
        Method::POST,
        &format!("{drafts}/{id}/publish"),
        Some(json!({"revision": pasted["revision"]})),
        422,
    )
    .await;
    let detail = refused["detail"].as_str().unwrap();
    assert!(
        detail.contains("Winds, line 2: pattern has 16 tiles"),
        "{detail}"
    );
    assert!(detail.contains("give the card a name"), "{detail}");
}

#[tokio::test]
async fn two_devices_never_overwrite_each_other_and_a_line_is_checked_alone() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "tiles", "owner@example.org").await;
    let drafts = app.url("/api/v1/clubs/tiles/card-drafts");
    let d = call(
        &owner,
        Method::POST,
        &drafts,
        Some(json!({"from": "demo-2026"})),
        201,
    )
    .await;
    let id = d["id"].as_i64().unwrap();
    assert_eq!(d["ready"], true, "a built-in card starts right: {d}");
    let r0 = d["revision"].as_i64().unwrap();
    let mut laptop = d.clone();
    laptop["head"]["name"] = json!("Laptop's name");
    let body = |v: &Value, rev: i64| json!({"revision": rev, "head": v["head"], "lines": v["lines"], "public": false});
    let saved = call(
        &owner,
        Method::PUT,
        &format!("{drafts}/{id}"),
        Some(body(&laptop, r0)),
        200,
    )
    .await;
    assert_eq!(saved["revision"].as_i64(), Some(r0 + 1));
    // The tablet still has revision r0: its save is refused, and the laptop's stays.
    let mut tablet = d.clone();
    tablet["head"]["name"] = json!("Tablet's name");
    let refused = call(
        &owner,
        Method::PUT,
        &format!("{drafts}/{id}"),
        Some(body(&tablet, r0)),
        409,
    )
    .await;
    assert!(
        refused["detail"]
            .as_str()
            .unwrap()
            .contains("saved from another device"),
        "{refused}"
    );
    let now = ok_json(
        owner.get(format!("{drafts}/{id}")).send().await.unwrap(),
        200,
    )
    .await;
    assert_eq!(now["head"]["name"], "Laptop's name");
    // Someone else's club: not found, and nothing said about the draft.
    let other = club_owner(&app, "other", "other@example.org").await;
    let res = other.get(format!("{drafts}/{id}")).send().await.unwrap();
    assert_eq!(res.status(), 404);
    // The tablet cannot publish what it has not seen either.
    let stale = call(
        &owner,
        Method::POST,
        &format!("{drafts}/{id}/publish"),
        Some(json!({"revision": r0})),
        409,
    )
    .await;
    assert!(
        stale["detail"].as_str().unwrap().contains("revision"),
        "{stale}"
    );
    // Thrown away, it is gone.
    let res = owner.delete(format!("{drafts}/{id}")).send().await.unwrap();
    assert_eq!(res.status(), 204);
    let res = owner.get(format!("{drafts}/{id}")).send().await.unwrap();
    assert_eq!(res.status(), 404);

    // One line alone: its problems in words, or its targets, and its drawing.
    let check = |line: Value| {
        let app = &app;
        async move {
            ok_json(
                reqwest::Client::new()
                    .post(app.url("/api/v1/lines/check"))
                    .json(&json!({ "line": line }))
                    .send()
                    .await
                    .unwrap(),
                200,
            )
            .await
        }
    };
    let bad =
        check(json!({"section": "2468", "pattern": "FF 2222:g 44:r 66:r 888:g", "value": "25"}))
            .await;
    assert_eq!(
        bad["problems"],
        json!(["pattern has 13 tiles, a hand needs 14"])
    );
    assert_eq!(
        bad["drawing"][0][1],
        json!({"symbols": "2222", "letter": "g", "colour": 0})
    );
    assert_eq!(bad["drawing"][0][2]["colour"], 1);
    let good =
        check(json!({"section": "2468", "pattern": "FF 2222:g 44:r 66:r 8888:g", "value": "25"}))
            .await;
    assert_eq!(good["problems"], json!([]));
    assert_eq!(good["targets"], 6, "3 suits for g, 2 left for r");
    let value =
        check(json!({"section": "2468", "pattern": "FF 2222:g 44:r 66:r 8888:g", "value": "2S"}))
            .await;
    assert_eq!(
        value["problems"],
        json!(["value: `2S` is not a whole number; write a number such as 25"])
    );
    let huge = reqwest::Client::new()
        .post(app.url("/api/v1/lines/check"))
        .json(&json!({"line": {"pattern": "1".repeat(400)}}))
        .send()
        .await
        .unwrap();
    assert_eq!(huge.status(), 422);
}

/// Stores one self-picked game of `hand` at the table; its answer.
async fn game(
    app: &common::TestApp,
    owner: &reqwest::Client,
    table: i64,
    winner: i64,
    hand: &str,
) -> reqwest::Response {
    owner
        .post(app.url(&format!("/api/v1/tables/{table}/games")))
        .json(&json!({"outcome": "mahjong", "winner": winner, "hand": hand, "won_by": "self_pick"}))
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_league_keeps_its_version_until_an_organizer_moves_it() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "tiles", "owner@example.org").await;
    let s = one_table(&app, &owner, "tiles", &["Ann", "Bea", "Cy", "Dot"]).await;
    let drafts = app.url("/api/v1/clubs/tiles/card-drafts");
    // A club card typed in: two lines.
    let d = ok_json(owner.post(&drafts).send().await.unwrap(), 201).await;
    let id = d["id"].as_i64().unwrap();
    let lines = json!([
        {"section": "2468", "pattern": "FF 2222:g 44:r 66:r 8888:g", "value": "25"},
        {"section": "Winds", "pattern": "NNNN EEE WWW SSSS", "value": "25", "concealed": true}
    ]);
    let saved = call(&owner, Method::PUT, &format!("{drafts}/{id}"), Some(json!({"revision": d["revision"], "head": {"name": "Club card", "year": "2027"}, "lines": lines})), 200).await;
    assert_eq!(saved["ready"], true, "{saved}");
    let v1 = call(
        &owner,
        Method::POST,
        &format!("{drafts}/{id}/publish"),
        Some(json!({"revision": saved["revision"]})),
        201,
    )
    .await;
    assert_eq!(v1["version"], 1);
    let v1_id = v1["id"].as_str().unwrap().to_string();
    // The draft is gone once published.
    let gone = owner.get(format!("{drafts}/{id}")).send().await.unwrap();
    assert_eq!(gone.status(), 404);
    // The league plays it; a game on the 2468 line at 25.
    let res = owner
        .patch(app.url(&format!("/api/v1/leagues/{}", s.league)))
        .json(&json!({"card": v1_id}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let hand = "F F 2B 2B 2B 2B 4C 4C 6C 6C 8B 8B 8B 8B";
    let g1 = ok_json(game(&app, &owner, s.table, s.players[1], hand).await, 201).await;
    let before = g1["players"].clone();

    // The organizer changes the card: the 2468 line is now worth 50. Publishing makes version 2.
    let d2 = call(
        &owner,
        Method::POST,
        &drafts,
        Some(json!({"from": v1_id, "as": "version"})),
        201,
    )
    .await;
    assert_eq!(
        d2["replaces"].as_i64().map(|r| r.to_string()),
        Some(v1_id.clone())
    );
    let mut lines2 = d2["lines"].clone();
    lines2[0]["value"] = json!("50");
    let d2id = d2["id"].as_i64().unwrap();
    let saved2 = call(
        &owner,
        Method::PUT,
        &format!("{drafts}/{d2id}"),
        Some(json!({"revision": d2["revision"], "head": d2["head"], "lines": lines2})),
        200,
    )
    .await;
    let v2 = call(
        &owner,
        Method::POST,
        &format!("{drafts}/{d2id}/publish"),
        Some(json!({"revision": saved2["revision"]})),
        201,
    )
    .await;
    assert_eq!(v2["version"], 2);
    let v2_id = v2["id"].as_str().unwrap().to_string();
    let shown = call(
        &owner,
        Method::GET,
        &app.url(&format!("/api/v1/cards/{v2_id}")),
        None,
        200,
    )
    .await;
    let versions: Vec<i64> = shown["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["version"].as_i64().unwrap())
        .collect();
    assert_eq!(versions, [1, 2]);

    // The league still plays version 1: a new game is still worth 25, and its page offers the move.
    let league = call(
        &owner,
        Method::GET,
        &app.url(&format!("/api/v1/leagues/{}", s.league)),
        None,
        200,
    )
    .await;
    assert_eq!(league["card"], v1_id);
    let g2 = ok_json(game(&app, &owner, s.table, s.players[2], hand).await, 201).await;
    assert_eq!(g2["value"], 25, "{g2}");
    let page = owner
        .get(app.url(&format!("/leagues/{}", s.league)))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("Move L to version 2"),
        "the league page offers the move"
    );
    assert!(page.contains("games already stored keep their scores"));

    // Moved: stored games keep their scores; the next game is checked against version 2.
    let html = owner
        .get(app.url(&format!("/leagues/{}", s.league)))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let csrf = common::csrf_of(&html);
    let res = owner
        .post(app.url(&format!("/leagues/{}/card", s.league)))
        .form(&[("csrf", csrf.as_str()), ("card", v2_id.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "the league page after the redirect");
    let moved = res.text().await.unwrap();
    assert!(
        moved.contains(
            "L now plays Club card 2027, version 2. Games already stored keep their scores"
        ),
        "the flash names the card and its version"
    );
    let league = call(
        &owner,
        Method::GET,
        &app.url(&format!("/api/v1/leagues/{}", s.league)),
        None,
        200,
    )
    .await;
    assert_eq!(league["card"], v2_id);
    let g1_now = call(
        &owner,
        Method::GET,
        &app.url(&format!("/api/v1/games/{}", g1["id"])),
        None,
        200,
    )
    .await;
    assert_eq!(g1_now["players"], before, "a stored game keeps its scores");
    let g3 = ok_json(game(&app, &owner, s.table, s.players[3], hand).await, 201).await;
    assert_eq!(g3["value"], 50, "{g3}");
    // The compare page says what changed, side by side.
    let cmp = owner
        .get(app.url(&format!("/cards/compare?a={v1_id}&b={v2_id}")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(cmp.contains("1 line differs; 1 is the same"), "{cmp}");
    assert!(cmp.contains("~ changed"));
}

/// The card as printed (issue 53): a line says in words how it reads — one typed without
/// colours is one suit — its options are said in words on the card page and the print, the
/// title says its year once, a new league's form offers the club's newest card first, and the
/// league page names its card.
#[tokio::test]
async fn a_card_reads_as_printed_in_words_and_a_league_names_its_card() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "maple", "owner@example.org").await;
    let check_url = app.url("/api/v1/lines/check");
    let check = |pattern: &'static str| {
        call(
            &owner,
            Method::POST,
            &check_url,
            Some(json!({"line": {"section": "2026", "pattern": pattern, "value": "25"}})),
            200,
        )
    };
    assert_eq!(
        check("FFFF 2026 222 222").await["words"],
        "four flowers, 2026 and two pungs of 2, all in one suit"
    );
    assert_eq!(
        check("FFFF 2026:g 222:r 222:b").await["words"],
        "four flowers, 2026 (suit A), a pung of 2 (suit B) and a pung of 2 (suit C), three different suits"
    );
    assert_eq!(
        check("FFFF 2026 222").await["words"],
        Value::Null,
        "wrong lines say nothing"
    );

    let source = "name = \"Maple Street 2026\"\nyear = 2026\n\n[[hand]]\nsection = \"Consecutive\"\npattern = \"11 222 3333 444 55\"\nvalue = 25\nnumbers = \"any\"\n";
    for _ in 0..2 {
        call(
            &owner,
            Method::POST,
            &app.url("/api/v1/clubs/maple/cards"),
            Some(json!({"source": source})),
            201,
        )
        .await;
    }
    let newest: i64 = sqlx::query_scalar("SELECT max(id) FROM cards")
        .fetch_one(&app.db)
        .await
        .unwrap();
    let card = call(
        &owner,
        Method::GET,
        &app.url(&format!("/api/v1/cards/{newest}")),
        None,
        200,
    )
    .await;
    let line = &card["sections"][0]["lines"][0];
    assert_eq!(
        line["words"],
        "a pair of 1, a pung of 2, a kong of 3, a pung of 4 and a pair of 5, all in one suit"
    );
    assert!(
        line["options"][0]
            .as_str()
            .unwrap()
            .starts_with("Any numbers: every number moves up or down by the same step"),
        "{line}"
    );
    let page = common::text_at(&owner, &app.url(&format!("/cards/{newest}"))).await;
    assert!(page.contains("<h1>Maple Street 2026</h1>"), "{page}");
    assert!(!page.contains("2026 2026"), "the year once");
    assert!(page.contains("Any numbers: every number moves"), "{page}");
    let print = common::text_at(&owner, &app.url(&format!("/cards/{newest}/print"))).await;
    assert!(
        print.contains("<span class=\"opt\">any numbers</span>"),
        "{print}"
    );

    // The club's newest card is the new league's first choice; the league page names it.
    let club = common::text_at(&owner, &app.url("/clubs/maple")).await;
    let form = &club[club.find("id=\"league-card\"").unwrap()..];
    let first = form.split("<option value=\"").nth(1).unwrap();
    assert!(first.starts_with(&format!("{newest}\"")), "{form}");
    assert!(
        first.contains("Maple Street 2026 (card"),
        "the year once: {first}"
    );
    let league = call(
        &owner,
        Method::POST,
        &app.url("/api/v1/clubs/maple/leagues"),
        Some(json!({"name": "Spring", "card": newest.to_string(), "ruleset": "nmjl-money"})),
        201,
    )
    .await;
    let page = common::text_at(
        &owner,
        &app.url(&format!("/leagues/{}", league["id"].as_i64().unwrap())),
    )
    .await;
    assert!(
        page.contains(&format!(
            "Played on the card <a href=\"/cards/{newest}\">Maple Street 2026, version 1</a>."
        )),
        "{page}"
    );
}
