//! A player's season and the league's over real HTTP: every number worked out here from the
//! league's games as an app reads them (the games API, page by page) and compared with both
//! documents — with a voided game, a wall game with a dead hand, a jokerless self-pick, a win
//! on a discard, a second night with a new player; ranks and ratings against the standings
//! read after each night; zeros for a player with no games; the standings' access and ETags;
//! a new game seen at once.

mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use common::{TestApp, club_owner, ok_json as ok, one_table, spawn_app};
use serde_json::{Value, json};

const WIN: &str = "F F 2B 2B J 2B 4C 4C 6C 6C 8B 8B J 8B"; // 2468#2, not jokerless
const WIN_JOKERLESS: &str = "F F 2B 2B 2B 2B 4C 4C 6C 6C 8B 8B 8B 8B";

async fn game(app: &TestApp, owner: &reqwest::Client, table: i64, body: Value) -> Value {
    ok(owner
        .post(app.url(&format!("/api/v1/tables/{table}/games")))
        .json(&body)
        .send()
        .await
        .unwrap())
    .await
}

/// Every game of the league, as an app pages through them.
async fn all_games(app: &TestApp, owner: &reqwest::Client, league: i64) -> Vec<Value> {
    let mut out = Vec::new();
    let mut url = app.url(&format!("/api/v1/leagues/{league}/games?limit=2"));
    loop {
        let page = ok(owner.get(&url).send().await.unwrap()).await;
        out.extend(page["games"].as_array().unwrap().iter().cloned());
        match page["next"].as_str() {
            Some(next) => {
                url = app.url(&format!(
                    "/api/v1/leagues/{league}/games?limit=2&cursor={next}"
                ))
            }
            None => return out,
        }
    }
}

/// The standings once the ratings are replayed (a void replays them off the request path):
/// player → (rank, rating).
async fn settled_standings(
    app: &TestApp,
    owner: &reqwest::Client,
    league: i64,
) -> HashMap<i64, (Option<u64>, f64)> {
    for _ in 0..100 {
        let s = ok(owner
            .get(app.url(&format!("/api/v1/leagues/{league}/standings")))
            .send()
            .await
            .unwrap())
        .await;
        if s["ratings_updating"] == false {
            return s["standings"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| {
                    (
                        r["player_id"].as_i64().unwrap(),
                        (r["rank"].as_u64(), r["rating"].as_f64().unwrap()),
                    )
                })
                .collect();
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("the ratings were never replayed");
}

/// What one player's numbers are, worked out from the games.
#[derive(Default, Debug)]
struct Worked {
    counts: BTreeMap<&'static str, i64>,
    /// night id → (games, wins, points)
    nights: BTreeMap<i64, (i64, i64, i64)>,
    /// opponent → (games, ahead, behind)
    opponents: BTreeMap<i64, (i64, i64, i64)>,
    /// line → wins
    lines: BTreeMap<String, i64>,
}

fn counted(g: &Value) -> bool {
    g["status"] == "recorded" && g["outcome"] != "redeal" && g["awaiting"].is_null()
}

fn work_out(games: &[Value]) -> HashMap<i64, Worked> {
    let mut out: HashMap<i64, Worked> = HashMap::new();
    for g in games.iter().filter(|g| counted(g)) {
        let seats = g["players"].as_array().unwrap();
        let night = g["night"]["id"].as_i64().unwrap();
        for s in seats {
            let me = s["player"]["id"].as_i64().unwrap();
            let score = s["score"].as_i64().unwrap();
            let w = out.entry(me).or_default();
            let won = g["winner"] == me;
            let self_pick = won
                && ["self_pick", "heavenly", "earthly"].contains(&g["won_by"].as_str().unwrap());
            let dead = g["dead"]
                .as_array()
                .unwrap()
                .iter()
                .any(|d| d["player"] == me && d["upheld"] != false);
            for (k, add) in [
                ("games", true),
                ("wins", won),
                ("self_picks", self_pick),
                ("discard_wins", won && !self_pick),
                ("jokerless_wins", won && g["jokerless"] == true),
                ("deal_ins", g["discarder"] == me),
                ("dead_hands", dead),
                ("wall_games", g["outcome"] == "wall"),
            ] {
                *w.counts.entry(k).or_default() += i64::from(add);
            }
            *w.counts.entry("points").or_default() += score;
            let n = w.nights.entry(night).or_default();
            n.0 += 1;
            n.1 += i64::from(won);
            n.2 += score;
            if won && let Some(line) = g["line"].as_str() {
                *w.lines.entry(line.to_string()).or_default() += 1;
            }
            for o in seats {
                let them = o["player"]["id"].as_i64().unwrap();
                if them == me {
                    continue;
                }
                let theirs = o["score"].as_i64().unwrap();
                let e = w.opponents.entry(them).or_default();
                e.0 += 1;
                e.1 += i64::from(score > theirs);
                e.2 += i64::from(score < theirs);
            }
        }
    }
    out
}

/// The player's season document against what the games say.
fn compare(doc: &Value, worked: &Worked, nights: &[i64]) {
    for (k, v) in &worked.counts {
        assert_eq!(doc["counts"][*k].as_i64(), Some(*v), "{k}: {doc}");
    }
    let periods = doc["periods"].as_array().unwrap();
    let first = nights
        .iter()
        .position(|n| worked.nights.contains_key(n))
        .unwrap();
    assert_eq!(periods.len(), nights.len() - first, "{doc}");
    let mut total = 0;
    for (p, night) in periods.iter().zip(&nights[first..]) {
        let (games, wins, points) = worked.nights.get(night).copied().unwrap_or_default();
        total += points;
        assert_eq!(p["night"].as_i64(), Some(*night));
        assert_eq!(
            (
                p["games"].as_i64(),
                p["wins"].as_i64(),
                p["points"].as_i64(),
                p["total"].as_i64()
            ),
            (Some(games), Some(wins), Some(points), Some(total)),
            "{p}"
        );
    }
    let opponents: BTreeMap<i64, (i64, i64, i64)> = doc["opponents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["player"]["id"].as_i64().unwrap(),
                (
                    o["games"].as_i64().unwrap(),
                    o["ahead"].as_i64().unwrap(),
                    o["behind"].as_i64().unwrap(),
                ),
            )
        })
        .collect();
    assert_eq!(opponents, worked.opponents, "{doc}");
    let lines: BTreeMap<String, i64> = doc["sections"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["lines"].as_array().unwrap().iter())
        .map(|l| {
            (
                l["line"].as_str().unwrap().to_string(),
                l["wins"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(lines, worked.lines, "{doc}");
    let section_sum: i64 = doc["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["wins"].as_i64().unwrap())
        .sum();
    assert_eq!(section_sum, worked.counts["wins"]);
}

#[tokio::test]
async fn a_season_adds_up_from_the_games_an_app_reads() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "tiles", "o@example.org").await;
    let t = one_table(&app, &owner, "tiles", &["Ann", "Bea", "Cy", "Dot"]).await;
    let [ann, bea, cy, dot] = [t.players[0], t.players[1], t.players[2], t.players[3]];
    let league = t.league;

    // Night 1: a game entered and voided, then Bea self-picks, Ann self-picks jokerless, Cy
    // wins on Ann's discard, and a wall game with Dot's hand called dead.
    let voided = game(
        &app,
        &owner,
        t.table,
        json!({"outcome": "mahjong", "winner": dot, "hand": WIN, "won_by": "self_pick"}),
    )
    .await;
    ok(owner
        .post(app.url(&format!("/api/v1/games/{}/void", voided["id"])))
        .send()
        .await
        .unwrap())
    .await;
    for body in [
        json!({"outcome": "mahjong", "winner": bea, "hand": WIN, "won_by": "self_pick"}),
        json!({"outcome": "mahjong", "winner": ann, "hand": WIN_JOKERLESS, "won_by": "self_pick"}),
        json!({"outcome": "mahjong", "winner": cy, "hand": WIN, "won_by": "discard", "discarder": ann}),
        json!({"outcome": "wall", "dead": [{"player": dot, "called_by": cy, "reason": "exposure fits no line",
               "contested": true, "upheld": true, "exposures": ["5B 5B 5B 5B"], "out_of_play": "", "adjudicate": true}]}),
    ] {
        game(&app, &owner, t.table, body).await;
    }
    let after_one = settled_standings(&app, &owner, league).await;

    // Night 2: Eve comes for Dot; Eve wins on Bea's discard, Ann self-picks.
    let eve = ok(owner
        .post(app.url("/api/v1/clubs/tiles/players"))
        .json(&json!({"name": "Eve"}))
        .send()
        .await
        .unwrap())
    .await["id"]
        .as_i64()
        .unwrap();
    let night2 = ok(owner
        .post(app.url(&format!("/api/v1/leagues/{league}/nights")))
        .json(&json!({"date": "2026-03-10"}))
        .send()
        .await
        .unwrap())
    .await["id"]
        .as_i64()
        .unwrap();
    let seats = [ann, bea, cy, eve];
    for p in seats {
        ok(owner
            .put(app.url(&format!("/api/v1/nights/{night2}/checkins/{p}")))
            .send()
            .await
            .unwrap())
        .await;
    }
    let locked = ok(owner
        .put(app.url(&format!("/api/v1/nights/{night2}/tables")))
        .json(&json!({"tables": [seats]}))
        .send()
        .await
        .unwrap())
    .await;
    let table2 = locked["tables"][0]["id"].as_i64().unwrap();
    for body in [
        json!({"outcome": "mahjong", "winner": eve, "hand": WIN, "won_by": "discard", "discarder": bea}),
        json!({"outcome": "mahjong", "winner": ann, "hand": WIN, "won_by": "self_pick"}),
    ] {
        game(&app, &owner, table2, body).await;
    }
    let after_two = settled_standings(&app, &owner, league).await;

    // Every number, from the games as an app reads them.
    let games = all_games(&app, &owner, league).await;
    assert_eq!(games.len(), 7, "six counted games and the voided one");
    let worked = work_out(&games);
    let nights = [t.night, night2];
    for p in [ann, bea, cy, dot, eve] {
        let doc = ok(owner
            .get(app.url(&format!("/api/v1/leagues/{league}/players/{p}/season")))
            .send()
            .await
            .unwrap())
        .await;
        compare(&doc, &worked[&p], &nights);
        // Rank and rating after each night are the standings' as they stood then.
        let periods = doc["periods"].as_array().unwrap();
        let last = periods.last().unwrap();
        assert_eq!(last["rank"].as_u64(), after_two[&p].0, "{p}: {doc}");
        assert!(
            (last["rating"].as_f64().unwrap() - after_two[&p].1).abs() < 0.011,
            "{p}: {doc}"
        );
        if let Some(one) = after_one.get(&p) {
            assert_eq!(periods[0]["rank"].as_u64(), one.0, "{p}: {doc}");
            assert!(
                (periods[0]["rating"].as_f64().unwrap() - one.1).abs() < 0.011,
                "{p}: {doc}"
            );
        }
    }
    // The cases named: Dot's dead hand, Ann's jokerless self-pick, Eve only on night 2.
    assert_eq!(worked[&dot].counts["dead_hands"], 1);
    assert_eq!(worked[&ann].counts["jokerless_wins"], 1);
    assert_eq!(worked[&ann].counts["deal_ins"], 1);

    // The league's season, from the same games.
    let doc = ok(owner
        .get(app.url(&format!("/api/v1/leagues/{league}/season")))
        .send()
        .await
        .unwrap())
    .await;
    let counted_games: Vec<&Value> = games.iter().filter(|g| counted(g)).collect();
    let won: Vec<&&Value> = counted_games
        .iter()
        .filter(|g| !g["winner"].is_null())
        .collect();
    let self_picks = won.iter().filter(|g| g["won_by"] == "self_pick").count() as i64;
    let east_wins = won.iter().filter(|g| g["winner"] == g["east"]).count() as i64;
    let walls = counted_games
        .iter()
        .filter(|g| g["outcome"] == "wall")
        .count() as i64;
    let players: BTreeSet<i64> = worked.keys().copied().collect();
    assert_eq!(
        (
            doc["games"].as_i64(),
            doc["nights"].as_i64(),
            doc["players"].as_i64()
        ),
        (
            Some(counted_games.len() as i64),
            Some(2),
            Some(players.len() as i64)
        ),
        "{doc}"
    );
    assert_eq!(
        doc["how"],
        json!({"self_pick": self_picks, "discard": won.len() as i64 - self_picks, "wall": walls})
    );
    assert_eq!(
        (
            doc["east"]["won_games"].as_i64(),
            doc["east"]["wins"].as_i64()
        ),
        (Some(won.len() as i64), Some(east_wins))
    );
    assert_eq!(doc["east"]["expected"], 0.25);
    for (a, night) in doc["attendance"].as_array().unwrap().iter().zip(nights) {
        let at: Vec<&&Value> = counted_games
            .iter()
            .filter(|g| g["night"]["id"] == night)
            .collect();
        let came: BTreeSet<i64> = at
            .iter()
            .flat_map(|g| g["players"].as_array().unwrap())
            .map(|s| s["player"]["id"].as_i64().unwrap())
            .collect();
        let tables: BTreeSet<i64> = at
            .iter()
            .map(|g| g["table"]["id"].as_i64().unwrap())
            .collect();
        assert_eq!(a["night"].as_i64(), Some(night));
        assert_eq!(
            (a["players"].as_i64(), a["tables"].as_i64()),
            (Some(came.len() as i64), Some(tables.len() as i64)),
            "{a}"
        );
    }
    // Every line of the card is there, those never won with 0.
    let card = ok(owner
        .get(app.url("/api/v1/cards/demo-2026"))
        .send()
        .await
        .unwrap())
    .await;
    let card_lines: usize = card["sections"]
        .as_array()
        .map(|s| s.iter().map(|s| s["lines"].as_array().unwrap().len()).sum())
        .unwrap_or(0);
    let lines: Vec<&Value> = doc["sections"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["lines"].as_array().unwrap())
        .collect();
    assert!(card_lines > 0, "{card}");
    assert_eq!(lines.len(), card_lines, "{doc}");
    let line_wins = |id: &str| {
        lines
            .iter()
            .find(|l| l["line"] == id)
            .map(|l| l["wins"].as_i64().unwrap())
    };
    let by_line = won.iter().filter(|g| g["line"] == "2468#2").count() as i64;
    assert_eq!(line_wins("2468#2"), Some(by_line));
    assert!(
        lines.iter().any(|l| l["wins"] == 0),
        "lines never won are listed"
    );

    // A player with no games: zeros and empty lists, not 404.
    let fay = ok(owner
        .post(app.url("/api/v1/clubs/tiles/players"))
        .json(&json!({"name": "Fay"}))
        .send()
        .await
        .unwrap())
    .await["id"]
        .as_i64()
        .unwrap();
    let none = ok(owner
        .get(app.url(&format!("/api/v1/leagues/{league}/players/{fay}/season")))
        .send()
        .await
        .unwrap())
    .await;
    assert_eq!(none["counts"]["games"], 0);
    assert_eq!(none["periods"], json!([]));
    assert_eq!(none["opponents"], json!([]));
    assert!(
        none["sections"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["wins"] == 0 && s["lines"] == json!([])),
        "{none}"
    );
    // A player of another club is not found here.
    let other = club_owner(&app, "elsewhere", "x@example.org").await;
    let stranger = ok(other
        .post(app.url("/api/v1/clubs/elsewhere/players"))
        .json(&json!({"name": "Zed"}))
        .send()
        .await
        .unwrap())
    .await["id"]
        .as_i64()
        .unwrap();
    let res = owner
        .get(app.url(&format!(
            "/api/v1/leagues/{league}/players/{stranger}/season"
        )))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);
}

#[tokio::test]
async fn the_season_is_read_as_the_standings_are_tagged_and_new_at_once() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "tiles", "o@example.org").await;
    let t = one_table(&app, &owner, "tiles", &["Ann", "Bea", "Cy", "Dot"]).await;
    let league = t.league;
    game(
        &app,
        &owner,
        t.table,
        json!({"outcome": "mahjong", "winner": t.players[1], "hand": WIN, "won_by": "self_pick"}),
    )
    .await;
    let anyone = reqwest::Client::new();
    let paths = [
        format!("/api/v1/leagues/{league}/season"),
        format!("/api/v1/leagues/{league}/players/{}/season", t.players[1]),
        format!("/leagues/{league}/season"),
        format!("/leagues/{league}/players/{}", t.players[1]),
    ];
    // Members only: a stranger gets what the standings give her.
    let standings = anyone
        .get(app.url(&format!("/api/v1/leagues/{league}/standings")))
        .send()
        .await
        .unwrap()
        .status();
    assert!(standings.is_client_error());
    for p in &paths[..2] {
        let got = anyone.get(app.url(p)).send().await.unwrap().status();
        assert_eq!(got, standings, "{p}");
    }
    ok(owner
        .patch(app.url(&format!("/api/v1/leagues/{league}")))
        .json(&json!({"visibility": "public"}))
        .send()
        .await
        .unwrap())
    .await;
    for p in &paths {
        let res = anyone.get(app.url(p)).send().await.unwrap();
        assert_eq!(res.status(), 200, "{p}");
    }
    // An ETag, 304 for it, and a new game seen at once under a new tag.
    let url = app.url(&paths[1]);
    let res = anyone.get(&url).send().await.unwrap();
    let tag = res.headers()["etag"].to_str().unwrap().to_string();
    let before: Value = res.json().await.unwrap();
    let res = anyone
        .get(&url)
        .header("If-None-Match", &tag)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 304);
    // Her page's charts say her wins; drawn once for these numbers, drawn again when they move.
    let page = |app: &TestApp| {
        let url = app.url(&paths[3]);
        async move {
            let res = reqwest::get(url).await.unwrap();
            assert_eq!(res.status(), 200);
            res.text().await.unwrap()
        }
    };
    for _ in 0..2 {
        assert!(page(&app).await.contains("1 win, 1 self-picked"));
    }
    game(
        &app,
        &owner,
        t.table,
        json!({"outcome": "mahjong", "winner": t.players[1], "hand": WIN, "won_by": "self_pick"}),
    )
    .await;
    assert!(page(&app).await.contains("2 wins, 2 self-picked"));
    let res = anyone
        .get(&url)
        .header("If-None-Match", &tag)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_ne!(res.headers()["etag"].to_str().unwrap(), tag);
    let after: Value = res.json().await.unwrap();
    assert_eq!(
        after["counts"]["games"].as_i64(),
        before["counts"]["games"].as_i64().map(|g| g + 1)
    );
    let league_doc = ok(anyone.get(app.url(&paths[0])).send().await.unwrap()).await;
    assert_eq!(league_doc["games"], 2);
    // A change to a game read before (here a void of the first) is seen too, not only games
    // added after it.
    let first = ok(owner
        .get(app.url(&format!("/api/v1/leagues/{league}/games")))
        .send()
        .await
        .unwrap())
    .await["games"][0]["id"]
        .as_i64()
        .unwrap();
    ok(owner
        .post(app.url(&format!("/api/v1/games/{first}/void")))
        .send()
        .await
        .unwrap())
    .await;
    let league_doc = ok(anyone.get(app.url(&paths[0])).send().await.unwrap()).await;
    assert_eq!(league_doc["games"], 1);
    let mine = ok(anyone.get(&url).send().await.unwrap()).await;
    assert_eq!(mine["counts"]["games"], before["counts"]["games"]);
    // And a correction of one (the game left becomes a wall game): her win is gone, the wall
    // game counted.
    let games = ok(owner
        .get(app.url(&format!("/api/v1/leagues/{league}/games")))
        .send()
        .await
        .unwrap())
    .await;
    let left = games["games"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| counted(g))
        .unwrap()
        .clone();
    let res = owner
        .put(app.url(&format!("/api/v1/games/{}", left["id"])))
        .header("If-Match", left["version"].to_string())
        .json(&json!({"outcome": "wall", "number": left["number"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());
    let mine = ok(anyone.get(&url).send().await.unwrap()).await;
    assert!(page(&app).await.contains("0 wins, 0 self-picked"));
    assert_eq!(mine["counts"]["wins"], 0, "{mine}");
    assert_eq!(mine["counts"]["wall_games"], 1, "{mine}");
    assert_eq!(mine["counts"]["points"], 0, "{mine}");
    let league_doc = ok(anyone.get(app.url(&paths[0])).send().await.unwrap()).await;
    assert_eq!(league_doc["how"]["wall"], 1, "{league_doc}");
    assert_eq!(league_doc["how"]["self_pick"], 0, "{league_doc}");
    // Ids out of range are told, not a 500.
    let res = anyone
        .get(app.url(&format!("/api/v1/leagues/{league}/players/0/season")))
        .send()
        .await
        .unwrap();
    assert!(res.status().is_client_error(), "{}", res.status());
}
