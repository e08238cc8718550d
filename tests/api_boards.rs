//! Boards that count some games only, over real HTTP against hand-worked examples: each night's
//! best N game scores, a player's lowest nights dropped (a missed night among them), changing
//! the board recomputes, and the CSV and the league page say what counted and what was dropped;
//! an average board ranks only players with its minimum of games, and the league page shows the
//! others' games of those needed instead of a rank.

mod common;

use common::{TestApp, club_owner, csrf_of, spawn_app};
use serde_json::{Value, json};

/// Games seeded straight into the database (closed nights, scores as given), so the example's
/// figures are exact: (night, [(player, score)] in seat order). The winner is the top score.
async fn seed(app: &TestApp, league: i64, games: &[(i32, Vec<(i64, i64)>)]) {
    let mut tables: std::collections::HashMap<i32, (i64, i32)> = Default::default();
    for (night, seats) in games {
        if !tables.contains_key(night) {
            let table: i64 = sqlx::query_scalar(
                "WITH n AS (INSERT INTO nights (league_id, number, night_date, status) \
                   VALUES ($1, $2, date '2026-01-01' + $2, 'closed') RETURNING id) \
                 INSERT INTO night_tables (night_id, number) SELECT id, 1 FROM n RETURNING id",
            )
            .bind(league)
            .bind(night)
            .fetch_one(&app.db)
            .await
            .unwrap();
            for (seat, (p, _)) in seats.iter().enumerate() {
                sqlx::query(
                    "INSERT INTO table_seats (table_id, seat, player_id) VALUES ($1, $2, $3)",
                )
                .bind(table)
                .bind(seat as i32)
                .bind(p)
                .execute(&app.db)
                .await
                .unwrap();
            }
            tables.insert(*night, (table, 0));
        }
        let entry = tables.get_mut(night).unwrap();
        entry.1 += 1;
        let winner = seats.iter().max_by_key(|s| s.1).unwrap().0;
        let game: i64 = sqlx::query_scalar(
            "INSERT INTO games (table_id, number, east_player, outcome, submitted, engine, winner, won_by, jokerless) \
             VALUES ($1, $2, $3, 'mahjong', '{}', '{}', $4, 'self_pick', false) RETURNING id",
        )
        .bind(entry.0)
        .bind(entry.1)
        .bind(seats[0].0)
        .bind(winner)
        .fetch_one(&app.db)
        .await
        .unwrap();
        for (seat, (p, score)) in seats.iter().enumerate() {
            sqlx::query(
                "INSERT INTO game_scores (game_id, player_id, seat, score, breakdown) VALUES ($1, $2, $3, $4, '')",
            )
            .bind(game)
            .bind(p)
            .bind(["E", "S", "W", "N"][seat])
            .bind(score)
            .execute(&app.db)
            .await
            .unwrap();
        }
    }
    // Written by hand: the totals are rebuilt from the games on the next read.
    sqlx::query("UPDATE leagues SET standings_stale = true, revision = revision + 1")
        .execute(&app.db)
        .await
        .unwrap();
}

/// The club's new players of these names: name → id.
async fn players_of(
    app: &TestApp,
    owner: &reqwest::Client,
    names: &[&'static str],
) -> std::collections::HashMap<&'static str, i64> {
    let mut id = std::collections::HashMap::new();
    for &name in names {
        let (status, p) = send(
            owner
                .post(app.url("/api/v1/clubs/club/players"))
                .json(&json!({ "name": name })),
        )
        .await;
        assert_eq!(status, 201, "{p}");
        id.insert(name, p["id"].as_i64().unwrap());
    }
    id
}

async fn send(req: reqwest::RequestBuilder) -> (u16, Value) {
    let res = req.send().await.unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

/// (player, rank, the figure that counts) in standings order.
fn order(view: &Value) -> Vec<(String, i64, i64)> {
    view["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["player"].as_str().unwrap().to_string(),
                s["rank"].as_i64().unwrap(),
                s["counted_points"]
                    .as_i64()
                    .unwrap_or(s["points"].as_i64().unwrap()),
            )
        })
        .collect()
}

fn row<'a>(view: &'a Value, player: &str) -> &'a Value {
    view["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["player"] == player)
        .unwrap()
}

#[tokio::test]
async fn best_games_of_each_night_count_and_the_lowest_night_is_dropped() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "club", "o@example.org").await;
    let id = players_of(&app, &owner, &["Ann", "Bea", "Cy", "Dee"]).await;
    let (status, league) = send(
        owner
            .post(app.url("/api/v1/clubs/club/leagues"))
            .json(&json!({
                "name": "Thursday league", "card": "demo-2026", "ruleset": "nmjl-money",
                "board": "best_per_night", "best_per_night": 2, "drop_worst_nights": 1
            })),
    )
    .await;
    assert_eq!(status, 201, "{league}");
    assert_eq!(
        (
            &league["board"],
            &league["best_per_night"],
            &league["drop_worst_nights"]
        ),
        (&json!("best_per_night"), &json!(2), &json!(1))
    );
    let lg = league["id"].as_i64().unwrap();
    let (a, b, c, d) = (id["Ann"], id["Bea"], id["Cy"], id["Dee"]);
    // Night 1, three games: Ann 30, -10, 20 (best two 50; all 40); Bea -10, 30, 0 (30; 20);
    // Cy and Dee -10 each game (-20; -30).
    // Night 2, Dee missing, two games: Ann -20, -20 (-40); Bea 40, -20 (20); Cy -20, 40 (20).
    // Night 3, one game: Dee 60, the others -20.
    seed(
        &app,
        lg,
        &[
            (1, vec![(a, 30), (b, -10), (c, -10), (d, -10)]),
            (1, vec![(a, -10), (b, 30), (c, -10), (d, -10)]),
            (1, vec![(a, 20), (b, 0), (c, -10), (d, -10)]),
            (2, vec![(a, -20), (b, 40), (c, -20)]),
            (2, vec![(a, -20), (b, -20), (c, 40)]),
            (3, vec![(d, 60), (a, -20), (b, -20), (c, -20)]),
        ],
    )
    .await;
    let standings = app.url(&format!("/api/v1/leagues/{lg}/standings"));
    let (_, view) = send(owner.get(&standings)).await;
    // Best two a night, lowest night dropped:
    // Ann 50, -40, -20: night 2 dropped, 30 from 3 games.
    // Bea 30, 20, -20: night 3 dropped, 50 from 4 games.
    // Cy -20, 20, -20: two lowest nights equal, the earlier (1) dropped: 0 from 3 games.
    // Dee -20, missed, 60: night 1 dropped (below the missed night's 0): 60 from 1 game.
    assert_eq!(
        order(&view),
        [
            ("Dee".to_string(), 1, 60),
            ("Bea".to_string(), 2, 50),
            ("Ann".to_string(), 3, 30),
            ("Cy".to_string(), 4, 0)
        ]
    );
    assert_eq!(view["board"], "best_per_night");
    assert_eq!(
        view["board_in_words"],
        "Ranked by each night's 2 best game scores, added up over the nights (every game counts when a player played 2 or fewer); each player's lowest night is dropped (a night missed counts 0 and may be the one dropped)."
    );
    let ann = row(&view, "Ann");
    assert_eq!(
        (
            &ann["points"],
            &ann["counted_points"],
            &ann["counted_games"],
            &ann["games"]
        ),
        (&json!(-20), &json!(30), &json!(3), &json!(6))
    );
    assert_eq!(
        ann["nights"],
        json!([
            {"night": 1, "games": 3, "points": 40, "counted": 50, "counted_games": 2, "dropped": false},
            {"night": 2, "games": 2, "points": -40, "counted": 0, "counted_games": 0, "dropped": true},
            {"night": 3, "games": 1, "points": -20, "counted": -20, "counted_games": 1, "dropped": false}
        ])
    );
    let dee_nights: Vec<(i64, i64, bool)> = row(&view, "Dee")["nights"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            (
                n["night"].as_i64().unwrap(),
                n["games"].as_i64().unwrap(),
                n["dropped"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(dee_nights, [(1, 3, true), (2, 0, false), (3, 1, false)]);
    // Dee is above Bea on the board's own figure: the JSON leaves that to the counted points
    // both rows show, the CSV says it.
    assert!(row(&view, "Dee").get("ahead").is_none(), "{view}");

    // The CSV says the same; the league page explains the board and shows what counted.
    let csv = owner
        .get(app.url(&format!("/api/v1/leagues/{lg}/standings.csv")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        csv.lines()
            .any(|l| l.contains("Dee") && l.contains("ahead of Bea on points that count: 60 to 50")),
        "{csv}"
    );
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let cy: Vec<&str> = csv
        .lines()
        .find(|l| l.contains(",Cy,"))
        .unwrap()
        .split(',')
        .collect();
    let col = |name: &str| cy[header.iter().position(|h| *h == name).unwrap()];
    assert_eq!(
        (
            col("counted_points"),
            col("counted_games"),
            col("dropped_nights"),
            col("points")
        ),
        ("0", "3", "1", "-30")
    );
    let page = owner
        .get(app.url(&format!("/leagues/{lg}")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("2 best game scores, added up over the nights"),
        "{page}"
    );
    assert!(page.contains("Counted points"));
    assert!(
        page.contains(r#"<td class="dropped">2 (-40)</td>"#),
        "Ann's dropped night"
    );
    assert!(
        !page.contains("(missed)"),
        "Dee dropped night 1, not the night she missed"
    );
    assert!(
        page.contains(r#"<td class="dropped">1 (-30)</td>"#),
        "Dee's dropped night 1"
    );

    // Changing the board recomputes: nothing dropped, then every game counted.
    let patch = app.url(&format!("/api/v1/leagues/{lg}"));
    let (status, _) = send(owner.patch(&patch).json(&json!({"drop_worst_nights": 0}))).await;
    assert_eq!(status, 200);
    let (_, view) = send(owner.get(&standings)).await;
    // Ann 50 - 40 - 20 = -10; Bea 30 + 20 - 20 = 30; Cy -20 + 20 - 20 = -20; Dee -20 + 60 = 40.
    assert_eq!(
        order(&view),
        [
            ("Dee".to_string(), 1, 40),
            ("Bea".to_string(), 2, 30),
            ("Ann".to_string(), 3, -10),
            ("Cy".to_string(), 4, -20)
        ]
    );
    let (status, _) = send(owner.patch(&patch).json(&json!({"board": "total"}))).await;
    assert_eq!(status, 200);
    let (_, view) = send(owner.get(&standings)).await;
    assert_eq!(
        order(&view),
        [
            ("Dee".to_string(), 1, 30),
            ("Bea".to_string(), 2, 20),
            ("Ann".to_string(), 3, -20),
            ("Cy".to_string(), 4, -30)
        ]
    );
    assert!(row(&view, "Ann")["counted_points"].is_null());
    assert!(row(&view, "Ann")["nights"].is_null());
    // A total board with the lowest night dropped: Ann 40 - 20 (night 2 dropped) = 20; Bea 20 +
    // 20 (night 3 dropped) = 40; Cy -30 dropped: 20 - 20 = 0; Dee -30 dropped: 0 + 60 = 60.
    let (status, _) = send(owner.patch(&patch).json(&json!({"drop_worst_nights": 1}))).await;
    assert_eq!(status, 200);
    let (_, view) = send(owner.get(&standings)).await;
    assert_eq!(
        order(&view),
        [
            ("Dee".to_string(), 1, 60),
            ("Bea".to_string(), 2, 40),
            ("Ann".to_string(), 3, 20),
            ("Cy".to_string(), 4, 0)
        ]
    );
}

#[tokio::test]
async fn board_settings_out_of_range_are_refused_naming_the_field() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "club", "o@example.org").await;
    let base = json!({"name": "L", "card": "demo-2026", "ruleset": "nmjl-money"});
    for (field, value, says) in [
        ("best_per_night", json!(0), "use 1 to 20"),
        ("best_per_night", json!(21), "use 1 to 20"),
        ("drop_worst_nights", json!(-1), "use 0 to 20"),
        ("drop_worst_nights", json!(21), "use 0 to 20"),
        (
            "board",
            json!("best"),
            "use total, average, best_per_night or best_per_week",
        ),
        ("best_per_week", json!(0), "use 1 to 20"),
        ("confirm_hours", json!(0), "use 1 to 336"),
        ("same_table_per_week", json!(21), "use 0 (no limit) to 20"),
        ("kind", json!("casual"), "use league, tournament or open"),
    ] {
        let mut body = base.clone();
        body[field] = value.clone();
        let (status, problem) = send(
            owner
                .post(app.url("/api/v1/clubs/club/leagues"))
                .json(&body),
        )
        .await;
        assert_eq!(status, 422, "{field} = {value}: {problem}");
        let text = problem.to_string();
        assert!(text.contains(field) && text.contains(says), "{text}");
    }
    // Nothing was made.
    let (_, leagues) = send(owner.get(app.url("/api/v1/clubs/club/leagues"))).await;
    assert_eq!(leagues["leagues"].as_array().unwrap().len(), 0);
}

#[tokio::test]
async fn results_follow_the_standings_with_shared_placements_and_the_events_facts() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "club", "o@example.org").await;
    let id = players_of(&app, &owner, &["Ann", "Bea", "Cy", "Dee"]).await;
    // Ranking ids: set for two, one set and then cleared; a blank-only one clears too.
    for (name, rid) in [("Ann", "AMJ-1001"), ("Bea", "AMJ-1002"), ("Cy", "AMJ-9")] {
        let (status, p) = send(
            owner
                .patch(app.url(&format!("/api/v1/clubs/club/players/{}", id[name])))
                .json(&json!({ "ranking_id": rid })),
        )
        .await;
        assert_eq!((status, &p["ranking_id"]), (200, &json!(rid)));
    }
    let (_, cy) = send(
        owner
            .patch(app.url(&format!("/api/v1/clubs/club/players/{}", id["Cy"])))
            .json(&json!({ "ranking_id": "  " })),
    )
    .await;
    assert!(cy["ranking_id"].is_null(), "{cy}");
    let (status, too_long) = send(
        owner
            .patch(app.url(&format!("/api/v1/clubs/club/players/{}", id["Cy"])))
            .json(&json!({ "ranking_id": "x".repeat(101) })),
    )
    .await;
    assert_eq!(status, 422, "{too_long}");
    assert!(too_long.to_string().contains("ranking_id"));

    let (status, league) = send(owner.post(app.url("/api/v1/clubs/club/leagues")).json(&json!({
        "name": "Spring Open", "card": "demo-2026", "ruleset": "tournament", "kind": "tournament",
        "place": "  Grange Hall, Springfield ", "sanctioning_number": "2026-114"
    })))
    .await;
    assert_eq!(status, 201, "{league}");
    assert_eq!(league["place"], "Grange Hall, Springfield");
    let lg = league["id"].as_i64().unwrap();
    let (a, b, c, d) = (id["Ann"], id["Bea"], id["Cy"], id["Dee"]);
    // Ann and Bea each win once and end on 20, having played every game together (head-to-head
    // 20 each): they share first. Cy and Dee end on -20 the same way: they share third.
    seed(
        &app,
        lg,
        &[
            (1, vec![(a, 30), (b, -10), (c, -10), (d, -10)]),
            (2, vec![(b, 30), (a, -10), (c, -10), (d, -10)]),
        ],
    )
    .await;
    let (status, r) = send(owner.get(app.url(&format!("/api/v1/leagues/{lg}/results")))).await;
    assert_eq!(status, 200, "{r}");
    // `club` is the club's slug here as in a league and in discovery; its name beside it.
    let (_, shown) = send(owner.get(app.url(&format!("/api/v1/leagues/{lg}")))).await;
    assert_eq!(r["club"], shown["club"]);
    assert!(r["club_name"].is_string());
    assert_eq!(
        (
            &r["event"],
            &r["kind"],
            &r["place"],
            &r["sanctioning_number"]
        ),
        (
            &json!("Spring Open"),
            &json!("tournament"),
            &json!("Grange Hall, Springfield"),
            &json!("2026-114")
        )
    );
    // No dates were set: the first and last round's.
    assert_eq!(
        (&r["starts_on"], &r["ends_on"]),
        (&json!("2026-01-02"), &json!("2026-01-03"))
    );
    assert_eq!(r["figure_name"], "points");
    let rows: Vec<(Value, bool, String, Value, i64)> = r["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["placement"].clone(),
                x["shared"].as_bool().unwrap(),
                x["player"].as_str().unwrap().to_string(),
                x["ranking_id"].clone(),
                x["figure"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (json!(1), true, "Ann".into(), json!("AMJ-1001"), 20),
            (json!(1), true, "Bea".into(), json!("AMJ-1002"), 20),
            (json!(3), true, "Cy".into(), Value::Null, -20),
            (json!(3), true, "Dee".into(), Value::Null, -20),
        ]
    );
    // The same order and placements as the standings.
    let (_, standings) = send(owner.get(app.url(&format!("/api/v1/leagues/{lg}/standings")))).await;
    let by_standings: Vec<(Value, Value)> = standings["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["player_id"].clone(), s["rank"].clone()))
        .collect();
    let by_results: Vec<(Value, Value)> = r["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["player_id"].clone(), s["placement"].clone()))
        .collect();
    assert_eq!(by_results, by_standings);

    let csv = owner
        .get(app.url(&format!("/api/v1/leagues/{lg}/results.csv")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "placement,shared,player,ranking_id,games,wins,points,figure,figure_name,event,club,club_name,starts_on,ends_on,place,sanctioning_number,tie"
    );
    assert_eq!(
        lines.next().unwrap(),
        "1,true,Ann,AMJ-1001,2,1,20,20,points,Spring Open,club,club,2026-01-02,2026-01-03,\"Grange Hall, Springfield\",2026-114,shared (head-to-head 20)"
    );
    assert_eq!(lines.count(), 3);

    // The printable page says the same; a members-only league's results are not shown to a
    // stranger.
    let page = owner
        .get(app.url(&format!("/leagues/{lg}/results")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains("Final results: Spring Open"));
    assert!(page.contains("Grange Hall, Springfield") && page.contains("2026-114"));
    assert_eq!(page.matches(r#"<td class="num">T1</td>"#).count(), 2);
    // The tie explained as on the league page.
    assert_eq!(page.matches("shared (head-to-head 20)").count(), 2);
    assert!(page.contains("AMJ-1002"));
    // An organizer gives Dee her ranking id on her page; the results carry it.
    let dee_page = owner
        .get(app.url(&format!("/players/{d}")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(dee_page.contains("Ranking id (for tournament results"));
    let res = owner
        .post(app.url(&format!("/players/{d}/ranking")))
        .form(&[
            ("csrf", csrf_of(&dee_page).as_str()),
            ("ranking_id", " AMJ-2044 "),
        ])
        .send()
        .await
        .unwrap();
    let flash = res.text().await.unwrap();
    assert!(
        flash.contains("Dee&#39;s ranking id is AMJ-2044."),
        "{flash}"
    );
    let (_, r) = send(owner.get(app.url(&format!("/api/v1/leagues/{lg}/results")))).await;
    assert_eq!(r["results"][3]["ranking_id"], "AMJ-2044");
    // Anyone but an organizer sees no such form (here: a stranger, who cannot see Dee at all
    // while the league is members-only).
    assert_eq!(app.get(&format!("/players/{d}")).await.status(), 404);
    for path in [
        format!("/api/v1/leagues/{lg}/results"),
        format!("/api/v1/leagues/{lg}/results.csv"),
        format!("/leagues/{lg}/results"),
    ] {
        assert_eq!(app.get(&path).await.status(), 404, "{path}");
    }
}

#[tokio::test]
async fn the_next_season_keeps_the_settings_links_both_ways_and_leaves_the_last_alone() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "club", "o@example.org").await;
    let mut id = std::collections::HashMap::new();
    for name in ["Ann", "Bea", "Cy", "Dee", "Eve"] {
        let (_, p) = send(
            owner
                .post(app.url("/api/v1/clubs/club/players"))
                .json(&json!({ "name": name })),
        )
        .await;
        id.insert(name, p["id"].as_i64().unwrap());
    }
    let (_, spring) = send(
        owner
            .post(app.url("/api/v1/clubs/club/leagues"))
            .json(&json!({
                "name": "Spring 2026", "card": "demo-2026", "ruleset": "bigcard-points",
                "games_per_table": 5, "visibility": "public", "board": "best_per_night",
                "best_per_night": 3, "drop_worst_nights": 1, "place": "Grange Hall",
                "starts_on": "2026-03-01", "ends_on": "2026-05-31"
            })),
    )
    .await;
    let sp = spring["id"].as_i64().unwrap();
    let (a, b, c, d) = (id["Ann"], id["Bea"], id["Cy"], id["Dee"]);
    seed(
        &app,
        sp,
        &[
            (1, vec![(a, 30), (b, -10), (c, -10), (d, -10)]),
            (2, vec![(b, 30), (a, -10), (c, -10), (d, -10)]),
        ],
    )
    .await;
    // Ann, Bea and Cy were checked in at Spring's last night.
    let last: i64 = sqlx::query_scalar("SELECT id FROM nights WHERE league_id = $1 AND number = 2")
        .bind(sp)
        .fetch_one(&app.db)
        .await
        .unwrap();
    for p in [a, b, c] {
        sqlx::query("INSERT INTO checkins (night_id, player_id) VALUES ($1, $2)")
            .bind(last)
            .bind(p)
            .execute(&app.db)
            .await
            .unwrap();
    }
    let spring_url = app.url(&format!("/api/v1/leagues/{sp}/standings"));
    let (_, before) = send(owner.get(&spring_url)).await;

    // The next season: the same settings and scoring, the name and dates given.
    let next_url = app.url(&format!("/api/v1/leagues/{sp}/next-season"));
    let (status, fall) = send(
        owner
            .post(&next_url)
            .json(&json!({"name": "Fall 2026", "starts_on": "2026-09-01"})),
    )
    .await;
    assert_eq!(status, 201, "{fall}");
    for field in [
        "card",
        "ruleset",
        "games_per_table",
        "visibility",
        "board",
        "best_per_night",
        "drop_worst_nights",
        "kind",
        "place",
        "club",
    ] {
        assert_eq!(fall[field], spring[field], "{field}");
    }
    assert_eq!(
        (&fall["name"], &fall["starts_on"], &fall["ends_on"]),
        (&json!("Fall 2026"), &json!("2026-09-01"), &Value::Null)
    );
    let fa = fall["id"].as_i64().unwrap();
    assert_eq!(fall["previous_season"], sp);
    let (_, spring_now) = send(owner.get(app.url(&format!("/api/v1/leagues/{sp}")))).await;
    assert_eq!(spring_now["next_season"], fa);

    // One next season only; a name the club uses is refused; so is a card it cannot use.
    let (status, again) = send(owner.post(&next_url).json(&json!({"name": "Fall bis"}))).await;
    assert_eq!(status, 409);
    assert!(
        again["detail"].as_str().unwrap().contains("Fall 2026"),
        "{again}"
    );
    let after_fall = app.url(&format!("/api/v1/leagues/{fa}/next-season"));
    let (status, taken) = send(
        owner
            .post(&after_fall)
            .json(&json!({"name": "spring 2026"})),
    )
    .await;
    assert_eq!(status, 409, "{taken}");
    let (status, card) = send(
        owner
            .post(&after_fall)
            .json(&json!({"name": "Winter", "card": "99999"})),
    )
    .await;
    assert_eq!(status, 422, "{card}");
    assert!(card.to_string().contains("card"));
    // A stranger cannot start one.
    let stranger = common::signed_up(&app, "s@example.org").await;
    let (status, _) = send(stranger.post(&after_fall).json(&json!({"name": "Winter"}))).await;
    assert!(status == 403 || status == 404, "{status}");

    // The first night of the new season checks in everyone from the last night before.
    let (_, night) = send(
        owner
            .post(app.url(&format!("/api/v1/leagues/{fa}/nights")))
            .json(&json!({"date": "2026-09-01"})),
    )
    .await;
    let night = night["id"].as_i64().unwrap();
    let page = owner
        .get(app.url(&format!("/nights/{night}")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains("Check in everyone from the last night"));
    let flash = owner
        .post(app.url(&format!("/nights/{night}/checkins/previous")))
        .form(&[("csrf", csrf_of(&page).as_str())])
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        flash.contains("3 players from the last night checked in"),
        "{flash}"
    );
    let (_, shown) = send(owner.get(app.url(&format!("/api/v1/nights/{night}")))).await;
    let mut here: Vec<i64> = shown["checkins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_i64().unwrap())
        .collect();
    here.sort_unstable();
    let mut want = vec![a, b, c];
    want.sort_unstable();
    assert_eq!(here, want);

    // Games in the new season leave the old one's standings as they were.
    seed(
        &app,
        fa,
        &[(2, vec![(c, 90), (a, -30), (b, -30), (d, -30)])],
    )
    .await;
    let (_, fall_standings) =
        send(owner.get(app.url(&format!("/api/v1/leagues/{fa}/standings")))).await;
    assert_eq!(fall_standings["standings"][0]["player"], "Cy");
    let (_, after) = send(owner.get(&spring_url)).await;
    assert_eq!(after["standings"], before["standings"]);

    // The pages link the seasons; a player's page lists both.
    let spring_page = owner
        .get(app.url(&format!("/leagues/{sp}")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(spring_page.contains(&format!(
        r#"Next season: <a href="/leagues/{fa}">Fall 2026</a>"#
    )));
    assert!(
        !spring_page.contains("Start the next season"),
        "one next season"
    );
    let fall_page = owner
        .get(app.url(&format!("/leagues/{fa}")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(fall_page.contains(&format!(
        r#"Season before: <a href="/leagues/{sp}">Spring 2026</a>"#
    )));
    let ann = app
        .get(&format!("/players/{a}"))
        .await
        .text()
        .await
        .unwrap();
    let seasons = ann.split("Leagues and seasons").nth(1).unwrap();
    let (f, s) = (
        seasons.find("Fall 2026").unwrap(),
        seasons.find("Spring 2026").unwrap(),
    );
    assert!(f < s, "newest first");

    // The page's form starts a season too, and opens it.
    let res = owner
        .post(app.url(&format!("/leagues/{fa}/next-season")))
        .form(&[
            ("csrf", csrf_of(&fall_page).as_str()),
            ("name", "Winter 2027"),
            ("card", ""),
            ("starts_on", ""),
            ("ends_on", ""),
        ])
        .send()
        .await
        .unwrap();
    let html = res.text().await.unwrap();
    assert!(html.contains("<h1>Winter 2027</h1>"), "{html}");
    assert!(html.contains("Winter 2027 started: the same settings and scoring"));
}

#[tokio::test]
async fn an_average_board_ranks_from_its_minimum_and_the_league_page_shows_how_far_the_rest_are() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "club", "o@example.org").await;
    let id = players_of(&app, &owner, &["Ann", "Bea", "Cy", "Dee", "Eve", "Fay"]).await;
    let (status, league) = send(
        owner
            .post(app.url("/api/v1/clubs/club/leagues"))
            .json(&json!({
                "name": "Weekly league", "card": "demo-2026", "ruleset": "nmjl-money",
                "board": "average", "min_games": 3
            })),
    )
    .await;
    assert_eq!(status, 201, "{league}");
    let lg = league["id"].as_i64().unwrap();
    let p = |n: &str| id[n];
    seed(
        &app,
        lg,
        &[
            (
                1,
                vec![
                    (p("Ann"), 60),
                    (p("Bea"), -20),
                    (p("Cy"), -20),
                    (p("Dee"), -20),
                ],
            ),
            (
                1,
                vec![
                    (p("Ann"), -30),
                    (p("Bea"), 90),
                    (p("Cy"), -30),
                    (p("Dee"), -30),
                ],
            ),
            (
                1,
                vec![
                    (p("Ann"), -10),
                    (p("Bea"), -10),
                    (p("Cy"), 30),
                    (p("Dee"), -10),
                ],
            ),
            (
                2,
                vec![
                    (p("Ann"), -40),
                    (p("Bea"), -40),
                    (p("Eve"), 120),
                    (p("Fay"), -40),
                ],
            ),
        ],
    )
    .await;
    // By hand: Bea (-20 + 90 - 10 - 40) / 4 = 5.0; Ann (60 - 30 - 10 - 40) / 4 = -5.0;
    // Cy (-20 - 30 + 30) / 3 = -6.67; Dee (-20 - 30 - 10) / 3 = -20.0. Eve (+120) and Fay
    // (-40) have 1 game of the 3 needed: no rank, whatever their average.
    let (status, view) = send(owner.get(app.url(&format!("/api/v1/leagues/{lg}/standings")))).await;
    assert_eq!(status, 200, "{view}");
    let ranked: Vec<(String, Option<i64>)> = view["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["player"].as_str().unwrap().to_string(),
                s["rank"].as_i64(),
            )
        })
        .collect();
    assert_eq!(
        ranked,
        [
            ("Bea".to_string(), Some(1)),
            ("Ann".to_string(), Some(2)),
            ("Cy".to_string(), Some(3)),
            ("Dee".to_string(), Some(4)),
            ("Eve".to_string(), None),
            ("Fay".to_string(), None),
        ]
    );
    assert_eq!(row(&view, "Cy")["average"], json!(-6.67));

    // The league page: a rank for the four, "1 of 3" (games played of those needed) for the two.
    let page = owner
        .get(app.url(&format!("/leagues/{lg}")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let row_of = |name: &str| -> String {
        page.split("<tr")
            .find(|r| r.contains(&format!(">{name}</a>")))
            .unwrap_or_else(|| panic!("{name}'s row in {page}"))
            .to_string()
    };
    for name in ["Eve", "Fay"] {
        let r = row_of(name);
        assert!(r.contains(">1 of 3</span>"), "{name}: {r}");
    }
    for (name, rank) in [("Bea", 1), ("Ann", 2), ("Cy", 3), ("Dee", 4)] {
        let r = row_of(name);
        assert!(
            r.contains(&format!("<td class=\"num\">{rank}</td>")),
            "{name}: {r}"
        );
        assert!(!r.contains(" of 3</span>"), "{name}: {r}");
    }
}
