//! A simulated tournament day through the API, as the staff and the tablets would run it: 200
//! players checked in, four rounds (avoiding repeat meetings for rounds 1–2, Swiss by standings
//! for rounds 3–4), four engine-checked games at every table each round, entered by the tables
//! in parallel, with a projector's event stream following every game.

mod common;

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use common::sse::Sse;
use common::{TestApp, club_owner, spawn_app};
use futures_util::StreamExt;
use serde_json::{Value, json};

const WIN: &str = "F F 2B 2B J 2B 4C 4C 6C 6C 8B 8B J 8B";
const WIN_JOKERLESS: &str = "F F 2B 2B 2B 2B 4C 4C 6C 6C 8B 8B 8B 8B";
const PLAYERS: usize = 200;
const ROUNDS: usize = 4;

async fn ok(req: reqwest::RequestBuilder) -> Value {
    let res = req.send().await.unwrap();
    let status = res.status();
    let text = res.text().await.unwrap();
    assert!(status.is_success(), "{status}: {text}");
    serde_json::from_str(&text).unwrap_or(Value::Null)
}

/// The four games of a table: a self-pick, a discard win, a wall game and a jokerless win.
fn games_of(table: &[i64]) -> Vec<Value> {
    let seat = |i: usize| table[i % table.len()];
    vec![
        json!({"number": 1, "outcome": "mahjong", "winner": seat(0), "hand": WIN, "won_by": "self_pick"}),
        json!({"number": 2, "outcome": "mahjong", "winner": seat(1), "hand": WIN, "won_by": "discard", "discarder": seat(2)}),
        json!({"number": 3, "outcome": "wall"}),
        json!({"number": 4, "outcome": "mahjong", "winner": seat(3), "hand": WIN_JOKERLESS, "won_by": "self_pick"}),
    ]
}

fn pairs(tables: &[Vec<i64>]) -> Vec<(i64, i64)> {
    let mut out = Vec::new();
    for t in tables {
        for (i, &a) in t.iter().enumerate() {
            for &b in &t[i + 1..] {
                out.push((a.min(b), a.max(b)));
            }
        }
    }
    out
}

#[tokio::test]
async fn a_two_hundred_player_tournament_runs_through_the_api() {
    let app: TestApp = spawn_app().await;
    let owner = club_owner(&app, "open", "director@example.org").await;
    let mut players = Vec::new();
    for i in 0..PLAYERS {
        let p = ok(owner
            .post(app.url("/api/v1/clubs/open/players"))
            .json(&json!({"name": format!("Player {i:03}")})))
        .await;
        players.push(p["id"].as_i64().unwrap());
    }
    let league = ok(owner.post(app.url("/api/v1/clubs/open/leagues")).json(&json!({
        "name": "Spring Open", "card": "demo-2026", "ruleset": "tournament", "visibility": "public"
    })))
    .await["id"]
        .as_i64()
        .unwrap();
    // The projector follows the tournament from the start.
    let anyone = reqwest::Client::new();
    let mut stream = Sse::open(
        &anyone,
        &app.url(&format!("/api/v1/leagues/{league}/events")),
        None,
    )
    .await;

    let mut met: HashSet<(i64, i64)> = HashSet::new();
    let mut recorded: Vec<i64> = Vec::new();
    let mut worst_latency = Duration::ZERO;
    for round in 1..=ROUNDS {
        let night = ok(owner
            .post(app.url(&format!("/api/v1/leagues/{league}/nights")))
            .json(&json!({"date": format!("2026-05-0{round}")})))
        .await["id"]
            .as_i64()
            .unwrap();
        // Check-in at the door, a few at a time as the staff would.
        futures_util::stream::iter(players.iter().map(|p| {
            owner
                .put(app.url(&format!("/api/v1/nights/{night}/checkins/{p}")))
                .send()
        }))
        .buffer_unordered(8)
        .for_each(|r| async move {
            assert!(r.unwrap().status().is_success());
        })
        .await;
        let method = if round >= 3 { "swiss" } else { "avoid_repeats" };
        let standings_before =
            ok(anyone.get(app.url(&format!("/api/v1/leagues/{league}/standings")))).await;
        let proposed = ok(owner
            .post(app.url(&format!("/api/v1/nights/{night}/seating")))
            .json(&json!({"method": method})))
        .await;
        assert_eq!(proposed["proposal"]["method"], method);
        let tables: Vec<Vec<i64>> =
            serde_json::from_value(proposed["proposal"]["tables"].clone()).unwrap();
        assert_eq!(tables.len(), PLAYERS / 4);
        let mut seated: Vec<i64> = tables.concat();
        seated.sort_unstable();
        let mut everyone = players.clone();
        everyone.sort_unstable();
        assert_eq!(seated, everyone, "round {round}: everyone seated once");
        let repeats = pairs(&tables).iter().filter(|p| met.contains(p)).count();
        assert_eq!(repeats, 0, "round {round} ({method}) repeats no meeting");
        if method == "swiss" {
            // Similar standing together: each table's players are close in the standings
            // (table 1 holds the leader), and tables go down the standings in order.
            let place: HashMap<i64, usize> = standings_before["standings"]
                .as_array()
                .unwrap()
                .iter()
                .enumerate()
                .map(|(i, s)| (s["player_id"].as_i64().unwrap(), i))
                .collect();
            let leader = standings_before["standings"][0]["player_id"]
                .as_i64()
                .unwrap();
            assert!(
                tables[0].contains(&leader),
                "round {round}: the leader at table 1"
            );
            let means: Vec<f64> = tables
                .iter()
                .map(|t| t.iter().map(|p| place[p] as f64).sum::<f64>() / t.len() as f64)
                .collect();
            for (i, t) in tables.iter().enumerate() {
                let spread = t.iter().map(|p| place[p]).max().unwrap()
                    - t.iter().map(|p| place[p]).min().unwrap();
                assert!(
                    spread <= 12,
                    "round {round} table {}: places {spread} apart",
                    i + 1
                );
            }
            let descending = means.windows(2).filter(|w| w[1] < w[0]).count();
            assert!(
                descending <= 2,
                "round {round}: tables follow the standings {means:?}"
            );
        }
        met.extend(pairs(&tables));
        let locked = ok(owner
            .put(app.url(&format!("/api/v1/nights/{night}/tables")))
            .json(&json!({ "tables": tables })))
        .await;
        let table_ids: Vec<(i64, Vec<i64>)> = locked["tables"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                (
                    t["id"].as_i64().unwrap(),
                    t["seats"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|s| s["player"]["id"].as_i64().unwrap())
                        .collect(),
                )
            })
            .collect();
        // Where do I sit: everyone, alphabetically.
        let seats = ok(anyone.get(app.url(&format!("/api/v1/nights/{night}/seats")))).await;
        let names: Vec<&str> = seats["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["player"].as_str().unwrap())
            .collect();
        assert_eq!(names.len(), PLAYERS);
        assert!(
            names
                .windows(2)
                .all(|w| w[0].to_lowercase() <= w[1].to_lowercase())
        );

        ok(owner
            .put(app.url(&format!("/api/v1/nights/{night}/timer")))
            .json(&json!({"action": "start", "minutes": 120})))
        .await;
        // Every table enters its games in order; the tables side by side.
        let results: Vec<(Vec<i64>, Instant)> =
            futures_util::stream::iter(table_ids.iter().map(|(id, seats)| {
                let owner = owner.clone();
                let url = app.url(&format!("/api/v1/tables/{id}/games"));
                let games = games_of(seats);
                async move {
                    let mut ids = Vec::new();
                    let mut last = Instant::now();
                    for g in games {
                        let game = ok(owner.post(&url).json(&g)).await;
                        ids.push(game["id"].as_i64().unwrap());
                        last = Instant::now();
                    }
                    (ids, last)
                }
            }))
            .buffer_unordered(8)
            .collect()
            .await;
        let entered_at: Instant = results.iter().map(|r| r.1).max().unwrap();
        let round_games: Vec<i64> = results.into_iter().flat_map(|r| r.0).collect();
        assert_eq!(round_games.len(), PLAYERS / 4 * 4);
        // The stream has every game of the round within 2 s of the last one saved.
        let mut seen: HashSet<i64> = HashSet::new();
        while seen.len() < round_games.len() {
            let e = stream
                .next(Duration::from_secs(2))
                .await
                .unwrap_or_else(|| {
                    panic!(
                        "round {round}: {} of {} games on the stream",
                        seen.len(),
                        round_games.len()
                    )
                });
            if e.kind == "game.recorded" {
                seen.insert(e.data["data"]["id"].as_i64().unwrap());
            }
        }
        worst_latency = worst_latency.max(entered_at.elapsed());
        assert_eq!(seen, round_games.iter().copied().collect::<HashSet<_>>());
        recorded.extend(round_games);

        // The officials' view: every table done, none behind.
        let status = ok(anyone.get(app.url(&format!("/api/v1/nights/{night}/status")))).await;
        assert_eq!(status["done"], PLAYERS / 4);
        assert_eq!(status["behind"], 0);
        assert_eq!(status["timer"]["state"], "running");
        ok(owner.post(app.url(&format!("/api/v1/nights/{night}/close")))).await;
        let closed = stream.next(Duration::from_secs(2)).await;
        let closed = std::iter::successors(closed, |_| None)
            .chain(stream.drain(Duration::from_millis(300)).await);
        assert!(
            closed
                .into_iter()
                .any(|e| e.kind == "night.closed" && e.data["data"]["night"] == night),
            "round {round}: night.closed on the stream"
        );
    }
    assert!(worst_latency < Duration::from_secs(2), "{worst_latency:?}");
    assert_eq!(recorded.len(), PLAYERS * ROUNDS);

    // Everyone played 16 games; the standings add up to what the games say.
    let standings = ok(anyone.get(app.url(&format!("/api/v1/leagues/{league}/standings")))).await;
    let rows = standings["standings"].as_array().unwrap();
    assert_eq!(rows.len(), PLAYERS);
    assert!(rows.iter().all(|r| r["games"] == 16), "16 games each");
    let points: i64 = rows.iter().map(|r| r["points"].as_i64().unwrap()).sum();
    let from_games: i64 =
        sqlx::query_scalar("SELECT coalesce(sum(score), 0)::BIGINT FROM game_scores")
            .fetch_one(&app.db)
            .await
            .unwrap();
    assert_eq!(points, from_games);
    let wins: i64 = rows.iter().map(|r| r["wins"].as_i64().unwrap()).sum();
    assert_eq!(
        wins as usize,
        PLAYERS / 4 * 3 * ROUNDS,
        "three wins a table a round"
    );
}
