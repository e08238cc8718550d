//! League nights over real HTTP: check-in, seating proposals, locking, closing.

mod common;

use std::collections::HashSet;

use common::{TestApp, club_owner, spawn_app};
use serde_json::{Value, json};

struct Setup {
    owner: reqwest::Client,
    league: i64,
    players: Vec<i64>,
}

async fn setup(app: &TestApp, n: usize) -> Setup {
    let owner = club_owner(app, "club", "o@example.org").await;
    let mut players = Vec::new();
    for i in 0..n {
        let p: Value = owner
            .post(app.url("/api/v1/clubs/club/players"))
            .json(&json!({"name": format!("Player {i}")}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        players.push(p["id"].as_i64().unwrap());
    }
    let l: Value = owner
        .post(app.url("/api/v1/clubs/club/leagues"))
        .json(&json!({"name": "L", "card": "demo-2026", "ruleset": "nmjl-money"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    Setup {
        owner,
        league: l["id"].as_i64().unwrap(),
        players,
    }
}

async fn night_with_everyone(app: &TestApp, s: &Setup, date: &str) -> i64 {
    let night: Value = s
        .owner
        .post(app.url(&format!("/api/v1/leagues/{}/nights", s.league)))
        .json(&json!({"date": date}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = night["id"].as_i64().unwrap();
    for p in &s.players {
        let res = s
            .owner
            .put(app.url(&format!("/api/v1/nights/{id}/checkins/{p}")))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
    }
    id
}

fn proposal_tables(night: &Value) -> Vec<Vec<i64>> {
    night["proposal"]["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            t.as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_i64().unwrap())
                .collect()
        })
        .collect()
}

fn pairs(tables: &[Vec<i64>]) -> HashSet<(i64, i64)> {
    let mut out = HashSet::new();
    for t in tables {
        for i in 0..t.len() {
            for j in i + 1..t.len() {
                out.insert((t[i].min(t[j]), t[i].max(t[j])));
            }
        }
    }
    out
}

#[tokio::test]
async fn thirteen_players_are_seated_four_three_three_three() {
    let app = spawn_app().await;
    let s = setup(&app, 13).await;
    let id = night_with_everyone(&app, &s, "2026-03-03").await;
    let night: Value = s
        .owner
        .post(app.url(&format!("/api/v1/nights/{id}/seating")))
        .json(&json!({"seed": 5}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(night["number"], 1);
    let tables = proposal_tables(&night);
    assert_eq!(
        tables.iter().map(Vec::len).collect::<Vec<_>>(),
        [4, 3, 3, 3]
    );
    let seated: HashSet<i64> = tables.iter().flatten().copied().collect();
    assert_eq!(seated, s.players.iter().copied().collect());
    // The same seed and check-ins give the same proposal.
    let again: Value = s
        .owner
        .post(app.url(&format!("/api/v1/nights/{id}/seating")))
        .json(&json!({"seed": 5}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(proposal_tables(&again), tables);

    // The organizer swaps two players across tables, then locks.
    let mut changed = tables.clone();
    let (a, b) = (changed[0][0], changed[1][0]);
    changed[0][0] = b;
    changed[1][0] = a;
    let locked: Value = s
        .owner
        .put(app.url(&format!("/api/v1/nights/{id}/tables")))
        .json(&json!({"tables": changed}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(locked["status"], "seated");
    assert_eq!(locked["tables"][0]["seats"][0]["seat"], "E");
    assert_eq!(locked["tables"][0]["seats"][0]["player"]["id"], b);
    assert_eq!(locked["tables"][1]["seats"][2]["seat"], "W");

    // Bad tables are refused with the reason.
    let mut twice = changed.clone();
    twice[1][1] = twice[0][1];
    for (tables, text) in [
        (json!([s.players.clone()]), "seats 2 to 4"),
        (json!([[s.players[0], s.players[1]]]), "has no seat"),
        (json!(twice), "seated twice"),
        (json!([[s.players[0], 999999]]), "not checked in"),
    ] {
        let res = s
            .owner
            .put(app.url(&format!("/api/v1/nights/{id}/tables")))
            .json(&json!({"tables": tables}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 422);
        let p: Value = res.json().await.unwrap();
        assert!(p["detail"].as_str().unwrap().contains(text), "{p}");
    }
}

#[tokio::test]
async fn the_next_night_avoids_last_nights_pairs() {
    let app = spawn_app().await;
    let s = setup(&app, 16).await;
    let first = night_with_everyone(&app, &s, "2026-03-03").await;
    let night: Value = s
        .owner
        .post(app.url(&format!("/api/v1/nights/{first}/seating")))
        .json(&json!({}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let t1 = proposal_tables(&night);
    s.owner
        .put(app.url(&format!("/api/v1/nights/{first}/tables")))
        .json(&json!({"tables": t1}))
        .send()
        .await
        .unwrap();
    let second = night_with_everyone(&app, &s, "2026-03-10").await;
    let night: Value = s
        .owner
        .post(app.url(&format!("/api/v1/nights/{second}/seating")))
        .json(&json!({}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(night["number"], 2);
    let t2 = proposal_tables(&night);
    assert_eq!(
        pairs(&t1).intersection(&pairs(&t2)).count(),
        0,
        "{t1:?} then {t2:?}"
    );
}

#[tokio::test]
async fn closed_nights_take_no_changes_until_reopened() {
    let app = spawn_app().await;
    let s = setup(&app, 4).await;
    let id = night_with_everyone(&app, &s, "2026-03-03").await;
    let closed: Value = s
        .owner
        .post(app.url(&format!("/api/v1/nights/{id}/close")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(closed["status"], "closed");
    let res = s
        .owner
        .delete(app.url(&format!("/api/v1/nights/{id}/checkins/{}", s.players[0])))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 409);
    let open: Value = s
        .owner
        .post(app.url(&format!("/api/v1/nights/{id}/reopen")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(open["status"], "open");
    let res = s
        .owner
        .delete(app.url(&format!("/api/v1/nights/{id}/checkins/{}", s.players[0])))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let night: Value = s
        .owner
        .post(app.url(&format!("/api/v1/nights/{id}/seating")))
        .json(&json!({}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        proposal_tables(&night)
            .iter()
            .map(Vec::len)
            .collect::<Vec<_>>(),
        [3]
    );
    // Nobody outside the club sees the night; a player who is not in the club cannot be checked in.
    assert_eq!(
        reqwest::get(app.url(&format!("/api/v1/nights/{id}")))
            .await
            .unwrap()
            .status(),
        404
    );
    let res = s
        .owner
        .put(app.url(&format!("/api/v1/nights/{id}/checkins/999999")))
        .send()
        .await
        .unwrap();
    // A player the club does not have, named in the path, is not found (not a field to fix).
    assert_eq!(res.status(), 404);
    let problem: serde_json::Value = res.json().await.unwrap();
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("no player 999999"),
        "{problem}"
    );
}
