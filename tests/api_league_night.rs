//! A whole league night end to end over HTTP: 13 players, tables of 4, 3, 3, 3, four games at
//! each table with every kind of event, a correction and a void; every standing is checked
//! against numbers worked out by hand below.

mod common;

use common::{club_owner, spawn_app};
use serde_json::{Value, json};

const WIN: &str = "F F 2B 2B J 2B 4C 4C 6C 6C 8B 8B J 8B"; // 2468#2, value 25, with jokers
const WIN_JL: &str = "F F 2B 2B 2B 2B 4C 4C 6C 6C 8B 8B 8B 8B"; // the same line, jokerless

#[tokio::test]
async fn a_whole_night() {
    let app = spawn_app().await;
    let org = club_owner(&app, "club", "org@example.org").await;
    let names = [
        "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m",
    ];
    let mut id = std::collections::HashMap::new();
    for n in names {
        let p: Value = org
            .post(app.url("/api/v1/clubs/club/players"))
            .json(&json!({"name": n}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        id.insert(n, p["id"].as_i64().unwrap());
    }
    let p = |n: &str| id[n];
    let league: Value = org
        .post(app.url("/api/v1/clubs/club/leagues"))
        .json(&json!({"name": "Tuesday", "card": "demo-2026", "ruleset": "nmjl-money"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let night: Value = org
        .post(app.url(&format!("/api/v1/leagues/{}/nights", league["id"])))
        .json(&json!({"date": "2026-03-03"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let night = night["id"].as_i64().unwrap();
    for n in names {
        assert_eq!(
            org.put(app.url(&format!("/api/v1/nights/{night}/checkins/{}", p(n))))
                .send()
                .await
                .unwrap()
                .status(),
            200
        );
    }
    let proposal: Value = org
        .post(app.url(&format!("/api/v1/nights/{night}/seating")))
        .json(&json!({"seed": 1}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let sizes: Vec<usize> = proposal["proposal"]["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_array().unwrap().len())
        .collect();
    assert_eq!(sizes, [4, 3, 3, 3]);
    // The organizer seats the night by hand (same sizes).
    let tables = json!([
        [p("a"), p("b"), p("c"), p("d")],
        [p("e"), p("f"), p("g")],
        [p("h"), p("i"), p("j")],
        [p("k"), p("l"), p("m")]
    ]);
    let locked: Value = org
        .put(app.url(&format!("/api/v1/nights/{night}/tables")))
        .json(&json!({"tables": tables}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let table_ids: Vec<i64> = locked["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_i64().unwrap())
        .collect();

    let post = |table: usize, body: Value| {
        let url = app.url(&format!("/api/v1/tables/{}/games", table_ids[table]));
        let org = org.clone();
        async move {
            let res = org.post(url).json(&body).send().await.unwrap();
            assert_eq!(res.status(), 201, "{body}");
            res.json::<Value>().await.unwrap()
        }
    };

    // Table 1 (a b c d):
    post(
        0,
        json!({"outcome": "mahjong", "winner": p("b"), "hand": WIN, "won_by": "self_pick"}),
    )
    .await; // b +150, others −50
    post(0, json!({"outcome": "mahjong", "winner": p("a"), "hand": WIN_JL, "won_by": "discard", "discarder": p("d")})).await; // a +200, d −100, b c −50
    post(0, json!({"outcome": "redeal"})).await; // nothing
    post(0, json!({"outcome": "wall", "dead": [{"player": p("d"), "called_by": p("c"), "reason": "exposure fits no line", "contested": true, "upheld": true}]})).await; // d pays c 25
    post(0, json!({"outcome": "mahjong", "winner": p("c"), "hand": WIN, "won_by": "discard", "discarder": p("a")})).await; // c +100, a −50, b d −25
    // Table 2 (e f g):
    post(
        1,
        json!({"outcome": "mahjong", "winner": p("e"), "hand": WIN_JL, "won_by": "self_pick"}),
    )
    .await; // e +200, f g −100
    let wrong = post(1, json!({"outcome": "mahjong", "winner": p("f"), "hand": WIN, "won_by": "discard", "discarder": p("g")})).await;
    post(1, json!({"outcome": "wall"})).await;
    post(
        1,
        json!({"outcome": "mahjong", "winner": p("g"), "hand": WIN, "won_by": "self_pick"}),
    )
    .await; // g +100, e f −50
    // Correction: game 2 was won from e's discard, not g's: f +75, e −50, g −25.
    let res = org
        .put(app.url(&format!("/api/v1/games/{}", wrong["id"])))
        .header("If-Match", wrong["version"].to_string())
        .json(&json!({"outcome": "mahjong", "winner": p("f"), "hand": WIN, "won_by": "discard", "discarder": p("e")}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    // Table 3 (h i j):
    post(2, json!({"outcome": "mahjong", "winner": p("h"), "hand": WIN, "won_by": "discard", "discarder": p("i")})).await; // h +75, i −50, j −25
    post(
        2,
        json!({"outcome": "mahjong", "winner": p("i"), "hand": WIN, "won_by": "self_pick"}),
    )
    .await; // i +100, h j −50
    let voided = post(2, json!({"outcome": "mahjong", "winner": p("j"), "hand": WIN, "won_by": "discard", "discarder": p("h")})).await;
    post(2, json!({"outcome": "wall"})).await;
    let res = org
        .post(app.url(&format!("/api/v1/games/{}/void", voided["id"])))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    // Table 4 (k l m):
    post(
        3,
        json!({"outcome": "mahjong", "winner": p("k"), "hand": WIN_JL, "won_by": "self_pick"}),
    )
    .await; // k +200, l m −100
    for _ in 0..3 {
        post(3, json!({"outcome": "wall"})).await;
    }

    let v: Value = org
        .get(app.url(&format!("/api/v1/leagues/{}/standings", league["id"])))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    // (player, rank, shared, games, wins, points, self-picks, jokerless wins, deal-ins, dead hands, wall games)
    #[rustfmt::skip]
    let want = [
        ("k", 1, false, 4, 1, 200, 1, 1, 0, 0, 3),
        ("a", 2, true, 4, 1, 100, 0, 1, 1, 0, 1),
        ("e", 2, true, 4, 1, 100, 1, 1, 1, 0, 1),
        ("b", 4, false, 4, 1, 75, 1, 0, 0, 0, 1),
        ("i", 5, false, 3, 1, 50, 1, 0, 1, 0, 1),
        ("c", 6, true, 4, 1, 25, 0, 0, 0, 0, 1),
        ("h", 6, true, 3, 1, 25, 0, 0, 0, 0, 1),
        ("g", 8, false, 4, 1, -25, 1, 0, 0, 0, 1),
        ("f", 9, false, 4, 1, -75, 0, 0, 0, 0, 1),
        ("j", 10, false, 3, 0, -75, 0, 0, 0, 0, 1),
        ("l", 11, true, 4, 0, -100, 0, 0, 0, 0, 3),
        ("m", 11, true, 4, 0, -100, 0, 0, 0, 0, 3),
        ("d", 13, false, 4, 0, -200, 0, 0, 1, 1, 1),
    ];
    let rows = v["standings"].as_array().unwrap();
    assert_eq!(rows.len(), 13);
    for (row, w) in rows.iter().zip(want) {
        let n = |k: &str| row[k].as_i64().unwrap();
        let got = (
            row["player"].as_str().unwrap(),
            n("rank"),
            row["shared"].as_bool().unwrap(),
            n("games"),
            n("wins"),
            n("points"),
            n("self_picks"),
            n("jokerless_wins"),
            n("deal_ins"),
            n("dead_hands"),
            n("wall_games"),
        );
        assert_eq!(got, w, "{row}");
    }
}

#[tokio::test]
async fn a_league_name_the_club_already_uses_is_refused_naming_the_other() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "names", "n@example.org").await;
    let other = club_owner(&app, "elsewhere", "e@example.org").await;
    let url = app.url("/api/v1/clubs/names/leagues");
    let make = |client: &reqwest::Client, url: String, name: &str| {
        client
            .post(url)
            .json(&json!({"name": name, "card": "demo-2026", "ruleset": "nmjl-money"}))
            .send()
    };
    let first: Value = make(&owner, url.clone(), "Spring league")
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    // The same name in any case: 409 naming the league that has it.
    let res = make(&owner, url.clone(), "spring LEAGUE").await.unwrap();
    assert_eq!(res.status(), 409);
    let p: Value = res.json().await.unwrap();
    let detail = p["detail"].as_str().unwrap();
    assert!(
        detail.contains("“Spring league”") && detail.contains(&format!("league {}", first["id"])),
        "{detail}"
    );
    // Another club may use it; and a rename onto a taken name is refused too.
    let res = make(
        &other,
        app.url("/api/v1/clubs/elsewhere/leagues"),
        "Spring league",
    )
    .await
    .unwrap();
    assert_eq!(res.status(), 201);
    let second: Value = make(&owner, url.clone(), "Summer league")
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let res = owner
        .patch(app.url(&format!("/api/v1/leagues/{}", second["id"])))
        .json(&json!({"name": "Spring League"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 409);
    // Keeping its own name on an edit is fine.
    let res = owner
        .patch(app.url(&format!("/api/v1/leagues/{}", second["id"])))
        .json(&json!({"name": "Summer league", "min_games": 2}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    // Two at once with one name: one is stored.
    let (a, b) = tokio::join!(
        make(&owner, url.clone(), "Autumn"),
        make(&owner, url.clone(), "Autumn")
    );
    let mut statuses = [a.unwrap().status().as_u16(), b.unwrap().status().as_u16()];
    statuses.sort_unstable();
    assert_eq!(statuses, [201, 409]);
}
