//! A club set up for writers of games through the API (crash trials, the failover drill):
//! an admin token, `TABLES × 4` players, a league of 32 games a table, and nights with every
//! player seated.

use serde_json::{Value, json};

/// Tables a night of the club has.
pub const TABLES: usize = 20;

/// A club of the service, through its admin token.
pub struct Club {
    pub token: String,
    pub league: i64,
    pub players: Vec<i64>,
}

pub async fn call(base: &str, token: &str, method: &str, path: &str, body: Option<Value>) -> Value {
    let client = reqwest::Client::new();
    let mut req = client
        .request(method.parse().unwrap(), format!("{base}{path}"))
        .bearer_auth(token);
    if let Some(b) = body {
        req = req.json(&b);
    }
    let res = req.send().await.unwrap();
    assert!(
        res.status().is_success(),
        "{method} {path}: {}",
        res.status()
    );
    res.json().await.unwrap_or(Value::Null)
}

pub async fn set_up(served: &super::Served) -> Club {
    let base = &served.base;
    let browser = reqwest::Client::builder()
        .cookie_store(true)
        .build()
        .unwrap();
    served.sign_up(&browser, "trials@example.org").await;
    browser
        .post(format!("{base}/api/v1/clubs"))
        .json(&json!({"slug": "trials", "name": "Trials"}))
        .send()
        .await
        .unwrap();
    let token: Value = browser
        .post(format!("{base}/api/v1/clubs/trials/tokens"))
        .json(&json!({"name": "trials", "scopes": ["admin"]}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let token = token["token"].as_str().unwrap().to_string();
    let mut players = Vec::new();
    for i in 0..TABLES * 4 {
        let p = call(
            base,
            &token,
            "POST",
            "/api/v1/clubs/trials/players",
            Some(json!({"name": format!("P{i}")})),
        )
        .await;
        players.push(p["id"].as_i64().unwrap());
    }
    let league = call(
        base,
        &token,
        "POST",
        "/api/v1/clubs/trials/leagues",
        Some(json!({"name": "Trials", "card": "demo-2026", "ruleset": "nmjl-money", "games_per_table": 32})),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    Club {
        token,
        league,
        players,
    }
}

/// A night with every player seated: its table ids.
pub async fn night(base: &str, club: &Club) -> (i64, Vec<i64>) {
    let n = call(
        base,
        &club.token,
        "POST",
        &format!("/api/v1/leagues/{}/nights", club.league),
        Some(json!({"date": "2026-06-01"})),
    )
    .await;
    let id = n["id"].as_i64().unwrap();
    for p in &club.players {
        call(
            base,
            &club.token,
            "PUT",
            &format!("/api/v1/nights/{id}/checkins/{p}"),
            None,
        )
        .await;
    }
    let tables: Vec<Vec<i64>> = club.players.chunks(4).map(|c| c.to_vec()).collect();
    let locked = call(
        base,
        &club.token,
        "PUT",
        &format!("/api/v1/nights/{id}/tables"),
        Some(json!({"tables": tables})),
    )
    .await;
    let ids = locked["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_i64().unwrap())
        .collect();
    (id, ids)
}
