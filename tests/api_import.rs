//! History in, over real HTTP: the demo league exported as games.csv and imported into a league
//! of another club gives the same standings player by player (and the same file back); a dry
//! run stores nothing; a bad row is refused with its line and column and nothing is stored; a
//! night already in the league is refused whole; opening balances count and show as carried in.

mod common;

use common::{TestApp, club_owner, spawn_app};
use mahjong_league::domain::{AppState, history::demo};
use serde_json::{Value, json};

async fn send(req: reqwest::RequestBuilder) -> (u16, Value) {
    let res = req.send().await.unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

/// A league's standings once its ratings are settled (a correction or an import replays them
/// off the request path; until then the answer says `ratings_updating` and shows the old ones).
async fn settled_standings(client: &reqwest::Client, url: String) -> Value {
    for _ in 0..200 {
        let (status, view) = send(client.get(&url)).await;
        assert_eq!(status, 200, "{view}");
        if view["ratings_updating"] == false {
            return view;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("the ratings of {url} never settled");
}

async fn post_csv(client: &reqwest::Client, url: String, body: String) -> (u16, Value) {
    send(
        client
            .post(url)
            .header("Content-Type", "text/csv")
            .body(body),
    )
    .await
}

/// What the database holds of a league and a club: (nights, games, scores, club players).
async fn counts(app: &TestApp, league: i64, club: &str) -> (i64, i64, i64, i64) {
    sqlx::query_as(
        "SELECT (SELECT count(*) FROM nights WHERE league_id = $1), \
                (SELECT count(*) FROM games g JOIN night_tables t ON t.id = g.table_id JOIN nights n ON n.id = t.night_id WHERE n.league_id = $1), \
                (SELECT count(*) FROM game_scores s JOIN games g ON g.id = s.game_id JOIN night_tables t ON t.id = g.table_id JOIN nights n ON n.id = t.night_id WHERE n.league_id = $1), \
                (SELECT count(*) FROM players p JOIN clubs c ON c.id = p.club_id WHERE c.slug = $2)",
    )
    .bind(league)
    .bind(club)
    .fetch_one(&app.db)
    .await
    .unwrap()
}

/// The standings by player name, ids taken out (they differ between leagues).
fn by_player(view: &Value) -> std::collections::BTreeMap<String, Value> {
    view["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let mut s = s.clone();
            s.as_object_mut().unwrap().remove("player_id");
            if let Some(a) = s["ahead"].as_object_mut() {
                a.remove("next_player_id");
            }
            (s["player"].as_str().unwrap().to_string(), s)
        })
        .collect()
}

/// A games.csv without its id columns, for comparing files of two leagues.
fn without_ids(csv: &str) -> Vec<String> {
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let header = reader.headers().unwrap().clone();
    let keep: Vec<usize> = header
        .iter()
        .enumerate()
        .filter(|(_, h)| !h.ends_with("_id"))
        .map(|(i, _)| i)
        .collect();
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            keep.iter().map(|i| &r[*i]).collect::<Vec<_>>().join(",")
        })
        .collect()
}

#[tokio::test]
async fn the_demo_league_exported_and_imported_elsewhere_has_the_same_standings() {
    let app = spawn_app().await;
    let state = AppState::new(app.db.clone(), &"k".repeat(64));
    demo::ensure(&state).await.unwrap();
    let demo_id: i64 = sqlx::query_scalar("SELECT id FROM leagues WHERE kind = 'league'")
        .fetch_one(&app.db)
        .await
        .unwrap();
    let anyone = reqwest::Client::new();
    let exported = anyone
        .get(app.url(&format!("/api/v1/leagues/{demo_id}/games.csv")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let (_, demo_league) = send(anyone.get(app.url(&format!("/api/v1/leagues/{demo_id}")))).await;
    let demo_standings = settled_standings(
        &anyone,
        app.url(&format!("/api/v1/leagues/{demo_id}/standings")),
    )
    .await;
    let in_demo = "FROM games g JOIN night_tables t ON t.id = g.table_id JOIN nights n ON n.id = t.night_id WHERE n.league_id = $1";
    let demo_games: i64 =
        sqlx::query_scalar(sqlx::AssertSqlSafe(format!("SELECT count(*) {in_demo}")))
            .bind(demo_id)
            .fetch_one(&app.db)
            .await
            .unwrap();
    let voided: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT count(*) {in_demo} AND g.status = 'voided'"
    )))
    .bind(demo_id)
    .fetch_one(&app.db)
    .await
    .unwrap();
    assert!(voided > 0, "the demo has a voided game to carry over");

    // Another club, with one of the demo's players already (matched by name, any case).
    let owner = club_owner(&app, "elsewhere", "o@example.org").await;
    let first = demo_standings["standings"][0]["player"]
        .as_str()
        .unwrap()
        .to_string();
    let (status, _) = send(
        owner
            .post(app.url("/api/v1/clubs/elsewhere/players"))
            .json(&json!({ "name": first.to_uppercase() })),
    )
    .await;
    assert_eq!(status, 201);
    let (status, league) = send(
        owner
            .post(app.url("/api/v1/clubs/elsewhere/leagues"))
            .json(&json!({
                "name": "Imported league", "card": demo_league["card"], "ruleset": demo_league["ruleset"],
                "board": demo_league["board"], "best_per_night": demo_league["best_per_night"],
                "drop_worst_nights": demo_league["drop_worst_nights"],
                "games_per_table": demo_league["games_per_table"], "min_games": demo_league["min_games"],
            })),
    )
    .await;
    assert_eq!(status, 201, "{league}");
    let lg = league["id"].as_i64().unwrap();
    let import = app.url(&format!("/api/v1/leagues/{lg}/games.csv"));

    // Strangers may not import (nor learn that this members-only league exists).
    let (status, _) = post_csv(&anyone, import.clone(), exported.clone()).await;
    assert_eq!(status, 404);

    // A dry run says what would be stored and stores nothing.
    let before = counts(&app, lg, "elsewhere").await;
    let (status, dry) = post_csv(&owner, format!("{import}?dry_run=true"), exported.clone()).await;
    assert_eq!(status, 200, "{dry}");
    assert_eq!(dry["dry_run"], true);
    assert_eq!(dry["games"], demo_games);
    assert_eq!(dry["voided"], voided);
    assert_eq!(dry["players_matched"].as_array().unwrap().len(), 1, "{dry}");
    assert_eq!(
        dry["players_created"].as_array().unwrap().len(),
        15,
        "{dry}"
    );
    assert_eq!(counts(&app, lg, "elsewhere").await, before);

    // The import stores it all.
    let (status, report) = post_csv(&owner, import.clone(), exported.clone()).await;
    assert_eq!(status, 201, "{report}");
    assert_eq!(report["dry_run"], false);
    assert_eq!(report["games"], demo_games);
    assert_eq!(report["nights"], dry["nights"]);
    assert_eq!(
        report["players_matched"][0]["name"],
        json!(first.to_uppercase()),
        "the name as the club has it"
    );
    let standings =
        settled_standings(&owner, app.url(&format!("/api/v1/leagues/{lg}/standings"))).await;
    let (mine, theirs) = (by_player(&standings), by_player(&demo_standings));
    assert_eq!(mine.len(), 16);
    for (name, row) in &theirs {
        // The one player matched by name is called as the club calls them.
        let key = if *name == first {
            first.to_uppercase()
        } else {
            name.clone()
        };
        let mut got = mine[&key].clone();
        got["player"] = json!(name);
        if let Some(words) = got["ahead"]["words"].as_str() {
            got["ahead"]["words"] = json!(words.replace(&first.to_uppercase(), &first));
        }
        assert_eq!(&got, row, "{name}");
    }
    // And the league gives the same file back (ids and the matched name aside).
    let again = owner
        .get(app.url(&format!("/api/v1/leagues/{lg}/games.csv")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(
        without_ids(&again.replace(&first.to_uppercase(), &first)),
        without_ids(&exported)
    );

    // The same file again: its nights are in the league now. Refused whole, nothing stored.
    let before = counts(&app, lg, "elsewhere").await;
    let (status, refused) = post_csv(&owner, import.clone(), exported.clone()).await;
    assert_eq!(status, 409, "{refused}");
    let detail = refused["detail"].as_str().unwrap();
    // Said once, with when the nights came in and how many games they hold; not night by night.
    let today = chrono::Utc::now().date_naive();
    assert!(
        detail.contains(&format!(
            "line 2: all 6 of this file's nights are in this league already: imported on {today} with {demo_games} games"
        )),
        "{detail}"
    );
    assert_eq!(detail.matches("already").count(), 1, "said once: {detail}");
    assert_eq!(counts(&app, lg, "elsewhere").await, before);

    // A bad cell far down the file: refused with its line and column; nothing stored, not
    // even the players the file would have added.
    let (_, fresh) = send(
        owner
            .post(app.url("/api/v1/clubs/elsewhere/leagues"))
            .json(&json!({ "name": "Second try", "card": "demo-2026", "ruleset": "nmjl-money" })),
    )
    .await;
    let lg2 = fresh["id"].as_i64().unwrap();
    let mut lines: Vec<String> = exported.lines().map(str::to_string).collect();
    let bad_line = lines.len() - 3;
    let mut cells: Vec<String> = lines[bad_line - 1].split(',').map(str::to_string).collect();
    cells[12] = "lots".into(); // score
    lines[bad_line - 1] = cells.join(",");
    let mut renamed = lines.join("\n");
    renamed = renamed.replace(&first, "Someone New");
    let before = counts(&app, lg2, "elsewhere").await;
    let (status, refused) = post_csv(
        &owner,
        app.url(&format!("/api/v1/leagues/{lg2}/games.csv")),
        renamed,
    )
    .await;
    assert_eq!(status, 422, "{refused}");
    assert_eq!(refused["errors"][0]["line"], bad_line, "{refused}");
    assert_eq!(refused["errors"][0]["field"], "score", "{refused}");
    assert!(
        refused["detail"]
            .as_str()
            .unwrap()
            .contains("nothing was stored"),
        "{refused}"
    );
    assert_eq!(counts(&app, lg2, "elsewhere").await, before);
}

#[tokio::test]
async fn opening_balances_count_in_full_and_show_as_carried_in() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "club", "o@example.org").await;
    let (_, league) = send(
        owner
            .post(app.url("/api/v1/clubs/club/leagues"))
            .json(&json!({
                "name": "Switching league", "card": "demo-2026", "ruleset": "nmjl-money",
                "board": "best_per_night", "best_per_night": 1
            })),
    )
    .await;
    let lg = league["id"].as_i64().unwrap();
    // Two games of one night, written by hand: Ann wins the first (+60), Bea the second (+30).
    let games = "night,date,table,game,status,outcome,line,value,player,seat,score,role,won_by\n\
        1,2026-02-03,1,1,recorded,mahjong,2468#1,25,Ann,E,60,winner,self_pick\n\
        1,2026-02-03,1,1,recorded,mahjong,2468#1,25,Bea,S,-20,,self_pick\n\
        1,2026-02-03,1,1,recorded,mahjong,2468#1,25,Cy,W,-20,,self_pick\n\
        1,2026-02-03,1,1,recorded,mahjong,2468#1,25,Dee,N,-20,,self_pick\n\
        1,2026-02-03,1,2,recorded,mahjong,2468#1,25,Ann,N,-10,discarder,discard\n\
        1,2026-02-03,1,2,recorded,mahjong,2468#1,25,Bea,E,30,winner,discard\n\
        1,2026-02-03,1,2,recorded,mahjong,2468#1,25,Cy,S,-10,,discard\n\
        1,2026-02-03,1,2,recorded,mahjong,2468#1,25,Dee,W,-10,,discard\n";
    let (status, report) = post_csv(
        &owner,
        app.url(&format!("/api/v1/leagues/{lg}/games.csv")),
        games.into(),
    )
    .await;
    assert_eq!(status, 201, "{report}");
    assert_eq!(report["players_created"].as_array().unwrap().len(), 4);
    let standings = app.url(&format!("/api/v1/leagues/{lg}/standings"));
    let (_, view) = send(owner.get(&standings)).await;
    let row = |view: &Value, name: &str| -> Value {
        view["standings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["player"] == name)
            .cloned()
            .unwrap()
    };
    // Best game of the night: Ann 60, Bea 30, Cy and Dee -10.
    assert_eq!(row(&view, "Ann")["counted_points"], 60);
    assert_eq!(row(&view, "Ann")["deal_ins"], 1);
    assert_eq!(row(&view, "Bea")["counted_points"], 30);

    // Balances from the paper sheet: Bea carries 100 over 5 games with 2 wins; Zoe, new to the
    // club, 15 over 1 game.
    let url = app.url(&format!("/api/v1/leagues/{lg}/opening-balances"));
    let sheet = "player,points,games,wins\nbea,100,5,2\nZoe,15,1,\n";
    let (status, set) = send(
        owner
            .put(format!("{url}?dry_run=true"))
            .header("Content-Type", "text/csv")
            .body(sheet),
    )
    .await;
    assert_eq!(status, 200, "{set}");
    assert_eq!(set["players_created"][0]["name"], "Zoe");
    let (_, unchanged) = send(owner.get(&standings)).await;
    assert_eq!(
        row(&unchanged, "Bea")["points"],
        10,
        "a dry run changes nothing"
    );
    let (status, set) = send(
        owner
            .put(&url)
            .header("Content-Type", "text/csv")
            .body(sheet),
    )
    .await;
    assert_eq!(status, 200, "{set}");
    assert_eq!(set["balances"].as_array().unwrap().len(), 2);
    let (_, view) = send(owner.get(&standings)).await;
    let bea = row(&view, "Bea");
    // Bea: games -20 and 30 (10), best game 30; carried 100 over 5 games, 2 wins.
    assert_eq!(
        (
            &bea["points"],
            &bea["games"],
            &bea["wins"],
            &bea["counted_points"],
            &bea["counted_games"]
        ),
        (&json!(110), &json!(7), &json!(3), &json!(130), &json!(6))
    );
    assert_eq!(
        bea["carried"],
        json!({"points": 100, "games": 5, "wins": 2})
    );
    assert_eq!(bea["rank"], 1, "130 counted, ahead of Ann's 60");
    let zoe = row(&view, "Zoe");
    assert_eq!(
        (&zoe["points"], &zoe["games"], &zoe["counted_points"]),
        (&json!(15), &json!(1), &json!(15))
    );
    assert_eq!(row(&view, "Ann")["carried"], Value::Null);
    assert!(
        view["board_in_words"]
            .as_str()
            .unwrap()
            .contains("carried in from before"),
        "{view}"
    );
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
            .next()
            .unwrap()
            .ends_with("carried_points,carried_games,carried_wins,weeks")
    );
    assert!(
        csv.lines()
            .any(|l| l.contains(",Bea,") && l.ends_with(",100,5,2,")),
        "{csv}"
    );
    let (_, listed) = send(owner.get(&url)).await;
    assert_eq!(listed["balances"].as_array().unwrap().len(), 2);

    // A bad sheet: refused with the line and column, the balances as they were.
    let (status, refused) = send(
        owner
            .put(&url)
            .header("Content-Type", "text/csv")
            .body("player,points,games,wins\nAnn,10,2,1\nCy,5,1,3\n"),
    )
    .await;
    assert_eq!(status, 422, "{refused}");
    assert_eq!(
        (
            &refused["errors"][0]["line"],
            &refused["errors"][0]["field"]
        ),
        (&json!(3), &json!("wins"))
    );
    let (_, view) = send(owner.get(&standings)).await;
    assert_eq!(row(&view, "Bea")["points"], 110);

    // The header alone clears them.
    let (status, _) = send(
        owner
            .put(&url)
            .header("Content-Type", "text/csv")
            .body("player,points,games\n"),
    )
    .await;
    assert_eq!(status, 200);
    let (_, view) = send(owner.get(&standings)).await;
    assert_eq!(row(&view, "Bea")["points"], 10);
    assert_eq!(row(&view, "Bea")["carried"], Value::Null);
    assert!(
        view["standings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["player"] != "Zoe"),
        "Zoe has no game and nothing carried: not on the board"
    );
}
