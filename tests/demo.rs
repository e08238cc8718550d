//! The demo club `serve --demo` fills: a living public league a newcomer can look at and an
//! owner login to try the organizer pages, created once.

mod common;

use common::spawn_app;
use mahjong_league::domain::{AppState, history::demo};
use serde_json::{Value, json};

#[tokio::test]
async fn the_demo_league_has_standings_and_every_kind_of_game_once() {
    let app = spawn_app().await;
    let state = AppState::new(app.db.clone(), &"k".repeat(64));
    let started = std::time::Instant::now();
    let login = demo::ensure(&state)
        .await
        .unwrap()
        .expect("the first start creates the demo");
    println!("demo filled in {:?}", started.elapsed());
    assert_eq!(login.email, demo::EMAIL);
    assert!(login.password.len() >= 12);

    // Anyone sees the club through its public league, with standings for all 16 players.
    let front = app.get("/").await.text().await.unwrap();
    assert!(
        front.contains("Demo league"),
        "the start page lists it: {front}"
    );
    let league: i64 = sqlx::query_scalar("SELECT id FROM leagues WHERE kind = 'league'")
        .fetch_one(&app.db)
        .await
        .unwrap();
    let shown: Value = app
        .get(&format!("/api/v1/leagues/{league}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(shown["visibility"], "public", "{shown}");
    let standings: Value = app
        .get(&format!("/api/v1/leagues/{league}/standings"))
        .await
        .json()
        .await
        .unwrap();
    let rows = standings["standings"].as_array().unwrap();
    assert_eq!(rows.len(), 16, "{standings}");
    assert!(
        rows.iter().all(|r| r["games"].as_i64().unwrap() >= 20),
        "{standings}"
    );
    assert!(rows[0]["points"].as_i64().unwrap() > 0);
    // It keeps an American league's board: each night's 3 best games, the lowest night dropped;
    // the rows are in the order of what counts, and each says which night it dropped.
    assert_eq!(
        (
            &shown["board"],
            &shown["best_per_night"],
            &shown["drop_worst_nights"]
        ),
        (&json!("best_per_night"), &json!(3), &json!(1))
    );
    let counted: Vec<i64> = rows
        .iter()
        .map(|r| r["counted_points"].as_i64().unwrap())
        .collect();
    assert!(counted.windows(2).all(|w| w[0] >= w[1]), "{counted:?}");
    assert!(rows.iter().all(|r| {
        let nights = r["nights"].as_array().unwrap();
        nights.len() == 6 && nights.iter().filter(|n| n["dropped"] == true).count() == 1
    }));
    let nights: Value = app
        .get(&format!("/api/v1/leagues/{league}/nights"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(nights["nights"].as_array().unwrap().len(), 6);
    assert!(
        nights["nights"]
            .as_array()
            .unwrap()
            .iter()
            .all(|n| n["status"] == "closed"),
        "{nights}"
    );

    // The games show each kind of result, all entered through the engine.
    let kinds: (i64, i64, i64, i64, i64, i64, i64, i64) = sqlx::query_as(
        "SELECT count(*), \
                count(*) FILTER (WHERE g.outcome = 'wall'), \
                count(*) FILTER (WHERE g.won_by = 'self_pick'), \
                count(*) FILTER (WHERE g.won_by = 'discard' AND jsonb_array_length(g.submitted->'exposures') > 0), \
                count(*) FILTER (WHERE g.jokerless), \
                count(*) FILTER (WHERE jsonb_array_length(g.submitted->'dead') > 0), \
                count(*) FILTER (WHERE g.version > 1 AND g.status = 'recorded'), \
                count(*) FILTER (WHERE g.status = 'voided') \
         FROM games g JOIN night_tables t ON t.id = g.table_id JOIN nights n ON n.id = t.night_id \
         WHERE n.league_id = $1",
    )
    .bind(league)
    .fetch_one(&app.db)
    .await
    .unwrap();
    let (all, wall, self_pick, exposed, jokerless, dead, corrected, voided) = kinds;
    assert_eq!(all, 6 * 4 * 4 + 1, "96 games and one voided");
    assert!(
        wall > 0 && self_pick > 0 && exposed > 0 && jokerless > 0,
        "{kinds:?}"
    );
    assert_eq!((dead, corrected, voided), (1, 1, 1), "{kinds:?}");

    // The owner logs in with what was shown.
    let owner = reqwest::Client::builder()
        .cookie_store(true)
        .build()
        .unwrap();
    let res = owner
        .post(app.url("/api/v1/session"))
        .json(&json!({"email": login.email, "password": login.password}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let members: Value = owner
        .get(app.url("/api/v1/clubs/demo/members"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(members["members"][0]["role"], "owner", "{members}");

    // Beside it, open play: three weeks of matches, some games waiting for their players, one
    // disputed, and open matches ahead on Find a match.
    let open: i64 = sqlx::query_scalar("SELECT id FROM leagues WHERE kind = 'open'")
        .fetch_one(&app.db)
        .await
        .unwrap();
    let board: Value = app
        .get(&format!("/api/v1/leagues/{open}/standings"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(board["board"], "best_per_week");
    assert!(board["games_awaiting"].as_i64().unwrap() > 0, "{board}");
    assert_eq!(board["games_disputed"], 1, "{board}");
    let rows = board["standings"].as_array().unwrap();
    assert!(rows.len() >= 8, "{board}");
    assert!(
        rows.iter()
            .all(|r| !r["weeks"].as_array().unwrap().is_empty())
    );
    assert_eq!(
        board["season_average"].as_array().unwrap().len(),
        rows.len()
    );
    let ahead: Value = owner
        .get(app.url(&format!("/api/v1/leagues/{open}/matches")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let forming = ahead["matches"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["status"] == "forming")
        .count();
    assert_eq!(forming, 2, "{ahead}");

    // A second start adds nothing.
    let before: i64 = sqlx::query_scalar("SELECT count(*) FROM games")
        .fetch_one(&app.db)
        .await
        .unwrap();
    assert!(demo::ensure(&state).await.unwrap().is_none());
    let again: i64 = sqlx::query_scalar("SELECT count(*) FROM games")
        .fetch_one(&app.db)
        .await
        .unwrap();
    assert_eq!(again, before);
}
