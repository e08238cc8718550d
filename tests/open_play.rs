//! Open play over real HTTP with a real SMTP server: members arrange a match (open, joined,
//! locked and mailed; an emergency leave mails the other three), one of them enters the games
//! and the others confirm or dispute them, an organizer settles a dispute, a game nobody answered
//! counts when its wait runs out, and the board of each calendar week's best two matches is
//! checked against figures worked by hand across a week boundary in the club's time zone, with
//! the season average and its minimum beside it.

mod common;

use chrono::{Datelike, Duration, NaiveDate, Utc};
use common::smtp::SmtpSink;
use common::{TestApp, club_owner, member_as, spawn_app_with};
use mahjong_league::config::Secret;
use serde_json::{Value, json};

/// 2468#2, 25: a self-pick pays the winner 2 × 25 from each of the three others.
const WIN: &str = "F F 2B 2B J 2B 4C 4C 6C 6C 8B 8B J 8B";

async fn json(res: reqwest::Response, status: u16) -> Value {
    let got = res.status().as_u16();
    let body: Value = res.json().await.unwrap_or(Value::Null);
    assert_eq!(got, status, "{body}");
    body
}

async fn post(app: &TestApp, who: &reqwest::Client, path: &str, body: Value) -> reqwest::Response {
    who.post(app.url(path)).json(&body).send().await.unwrap()
}

async fn get(app: &TestApp, who: &reqwest::Client, path: &str) -> Value {
    json(who.get(app.url(path)).send().await.unwrap(), 200).await
}

/// A club in New York with an open-play league (best 2 matches a week, average from 6 games),
/// its owner and five members (Ann, Bea, Cy, Dot, Eve) each linked to a player of that name.
struct Club {
    app: TestApp,
    sink: SmtpSink,
    owner: reqwest::Client,
    league: i64,
    /// (client, player id, email) for Ann, Bea, Cy, Dot, Eve.
    members: Vec<(reqwest::Client, i64, String)>,
}

async fn open_club() -> Club {
    let sink = SmtpSink::start().await;
    let url = sink.url();
    let app = spawn_app_with(move |s| s.smtp_url = Some(Secret::new(url))).await;
    let owner = club_owner(&app, "tiles", "owner@example.org").await;
    sqlx::query("UPDATE clubs SET time_zone = 'America/New_York' WHERE slug = 'tiles'")
        .execute(&app.db)
        .await
        .unwrap();
    let res = post(
        &app,
        &owner,
        "/api/v1/clubs/tiles/leagues",
        json!({"name": "Open play", "card": "demo-2026", "ruleset": "nmjl-money", "kind": "open",
               "board": "best_per_week", "best_per_week": 2, "min_games": 6, "visibility": "public"}),
    )
    .await;
    let league = json(res, 201).await;
    assert_eq!(league["kind"], "open");
    assert_eq!(league["best_per_week"], 2);
    assert_eq!(league["confirm_hours"], 48);
    let mut members = Vec::new();
    for name in ["Ann", "Bea", "Cy", "Dot", "Eve"] {
        let email = format!("{}@example.org", name.to_lowercase());
        let res = post(
            &app,
            &owner,
            "/api/v1/clubs/tiles/players",
            json!({"name": name}),
        )
        .await;
        let player = json(res, 201).await["id"].as_i64().unwrap();
        let client = member_as(&app, &owner, "tiles", &email, player).await;
        members.push((client, player, email));
    }
    // The invitations.
    sink.wait_for(5).await;
    Club {
        league: league["id"].as_i64().unwrap(),
        app,
        sink,
        owner,
        members,
    }
}

/// Mails about matches so far, as (to, subject, text).
fn match_mail(sink: &SmtpSink) -> Vec<(String, String, String)> {
    sink.messages()
        .into_iter()
        .filter(|m| m.kind() == "match")
        .map(|m| {
            let subject = m.parsed().subject().unwrap_or_default().to_string();
            (m.to.join(","), subject, m.text())
        })
        .collect()
}

async fn wait_match_mail(sink: &SmtpSink, n: usize) -> Vec<(String, String, String)> {
    for _ in 0..200 {
        let got = match_mail(sink);
        if got.len() >= n {
            return got;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("{} match mails, expected {n}", match_mail(sink).len());
}

fn names(m: &Value) -> Vec<String> {
    m["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect()
}

async fn kinds_of_events(app: &TestApp, league: i64) -> Vec<String> {
    sqlx::query_scalar("SELECT kind FROM league_events WHERE league_id = $1 ORDER BY id")
        .bind(league)
        .fetch_all(&app.db)
        .await
        .unwrap()
}

#[tokio::test]
async fn four_members_arrange_a_match_it_locks_and_mails_them_and_an_emergency_reopens_a_seat() {
    let c = open_club().await;
    let (app, sink) = (&c.app, &c.sink);
    let [ann, bea, cy, dot, eve] = [0, 1, 2, 3, 4].map(|i| &c.members[i].0);
    let date = (Utc::now() + Duration::days(3)).date_naive();
    let matches = format!("/api/v1/leagues/{}/matches", c.league);

    // A plain league has no matches.
    let res = post(
        app,
        &c.owner,
        "/api/v1/clubs/tiles/leagues",
        json!({"name": "Tuesdays", "card": "demo-2026", "ruleset": "nmjl-money"}),
    )
    .await;
    let plain = json(res, 201).await["id"].as_i64().unwrap();
    let res = post(
        app,
        ann,
        &format!("/api/v1/leagues/{plain}/matches"),
        json!({"date": date, "time": "14:00", "place": "Ann's"}),
    )
    .await;
    let refused = json(res, 409).await;
    assert!(
        refused["detail"]
            .as_str()
            .unwrap()
            .contains("not an open-play league"),
        "{refused}"
    );

    // Bad input is named.
    let res = post(
        app,
        ann,
        &matches,
        json!({"date": date, "time": "2pm", "place": "Ann's"}),
    )
    .await;
    assert_eq!(json(res, 422).await["errors"][0]["field"], "time");
    let res = post(
        app,
        ann,
        &matches,
        json!({"date": date, "time": "14:00", "place": "  "}),
    )
    .await;
    assert_eq!(json(res, 422).await["errors"][0]["field"], "place");
    let res = post(
        app,
        ann,
        &matches,
        json!({"date": date, "time": "14:00", "place": "Ann's", "players": [c.members[1].1]}),
    )
    .await;
    assert_eq!(json(res, 422).await["errors"][0]["field"], "players");

    // Ann proposes an open match.
    let res = post(app, ann, &matches,
        json!({"date": date, "time": "14:00", "place": "Ann's kitchen, 12 Elm St", "note": "I have the tiles"})).await;
    let m = json(res, 201).await;
    let id = m["id"].as_i64().unwrap();
    assert_eq!(
        (
            m["status"].as_str(),
            m["open"].as_bool(),
            m["seats_left"].as_i64()
        ),
        (Some("forming"), Some(true), Some(3))
    );
    assert_eq!(names(&m), ["Ann"]);
    assert_eq!(m["you_are_in"], true);
    assert!(m["when"].as_str().unwrap().contains(", 2:00 PM E"), "{m}");

    // Find a match: Eve sees it, not in it.
    let found = get(app, eve, &matches).await;
    assert_eq!(found["matches"][0]["id"], id);
    assert_eq!(found["matches"][0]["you_are_in"], false);

    // Bea joins, changes her mind (before it locks, no reason needed), joins again.
    let joined = json(
        post(app, bea, &format!("/api/v1/matches/{id}/join"), json!(null)).await,
        200,
    )
    .await;
    assert_eq!(names(&joined), ["Ann", "Bea"]);
    let left = json(
        bea.post(app.url(&format!("/api/v1/matches/{id}/leave")))
            .send()
            .await
            .unwrap(),
        200,
    )
    .await;
    assert_eq!(names(&left), ["Ann"]);
    json(
        post(app, bea, &format!("/api/v1/matches/{id}/join"), json!(null)).await,
        200,
    )
    .await;
    let again = json(
        post(app, bea, &format!("/api/v1/matches/{id}/join"), json!(null)).await,
        200,
    )
    .await;
    assert_eq!(
        names(&again),
        ["Ann", "Bea"],
        "joining twice keeps one seat"
    );
    json(
        post(app, cy, &format!("/api/v1/matches/{id}/join"), json!(null)).await,
        200,
    )
    .await;
    assert!(match_mail(sink).is_empty(), "no mail before the fourth");

    // Dot is the fourth: locked, a night of one table, and all four mailed.
    let locked = json(
        post(app, dot, &format!("/api/v1/matches/{id}/join"), json!(null)).await,
        200,
    )
    .await;
    assert_eq!(locked["status"], "locked");
    assert_eq!(names(&locked), ["Ann", "Bea", "Cy", "Dot"]);
    let (night, table) = (
        locked["night"].as_i64().unwrap(),
        locked["table"].as_i64().unwrap(),
    );
    assert_eq!(locked["night_number"], 1);
    let seats = get(app, &c.owner, &format!("/api/v1/nights/{night}")).await;
    assert_eq!(seats["tables"][0]["id"], table);
    let mail = wait_match_mail(sink, 4).await;
    let mut to: Vec<&str> = mail.iter().map(|m| m.0.as_str()).collect();
    to.sort_unstable();
    assert_eq!(
        to,
        [
            "ann@example.org",
            "bea@example.org",
            "cy@example.org",
            "dot@example.org"
        ]
    );
    for (_, subject, text) in &mail {
        assert!(subject.contains("your match is on"), "{subject}");
        assert!(text.contains("Ann, Bea, Cy and Dot"), "{text}");
        assert!(text.contains("Ann's kitchen, 12 Elm St"), "{text}");
        assert!(text.contains(&format!("/tables/{table}/score")), "{text}");
    }

    // Full: Eve is told so, with who plays.
    let full = json(
        post(app, eve, &format!("/api/v1/matches/{id}/join"), json!(null)).await,
        409,
    )
    .await;
    assert!(full["detail"].as_str().unwrap().contains("full"), "{full}");

    // Locked: Cy may leave only in an emergency, saying why; the other three are mailed.
    let res = post(app, cy, &format!("/api/v1/matches/{id}/leave"), json!({})).await;
    assert_eq!(json(res, 422).await["errors"][0]["field"], "emergency");
    let res = post(
        app,
        cy,
        &format!("/api/v1/matches/{id}/leave"),
        json!({"emergency": true, "reason": "My car broke down"}),
    )
    .await;
    let reopened = json(res, 200).await;
    assert_eq!(reopened["status"], "forming");
    assert_eq!(names(&reopened), ["Ann", "Bea", "Dot"]);
    assert!(reopened["night"].is_null());
    let res = c
        .owner
        .get(app.url(&format!("/api/v1/nights/{night}")))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404, "the match's table went with the seat");
    let mail = wait_match_mail(sink, 7).await;
    let emergency: Vec<_> = mail[4..].iter().collect();
    let mut to: Vec<&str> = emergency.iter().map(|m| m.0.as_str()).collect();
    to.sort_unstable();
    assert_eq!(
        to,
        ["ann@example.org", "bea@example.org", "dot@example.org"]
    );
    for (_, subject, text) in emergency {
        assert!(subject.contains("Cy cannot come"), "{subject}");
        assert!(text.contains("My car broke down"), "{text}");
    }

    // Eve takes the seat: locked again, the four mailed.
    let locked = json(
        post(app, eve, &format!("/api/v1/matches/{id}/join"), json!(null)).await,
        200,
    )
    .await;
    assert_eq!(names(&locked), ["Ann", "Bea", "Dot", "Eve"]);
    assert_eq!(locked["status"], "locked");
    wait_match_mail(sink, 11).await;

    // Three ask for the last two seats of a match at once: two get in, one is told it is full.
    let res = post(
        app,
        eve,
        &matches,
        json!({"date": date, "time": "18:00", "place": "Eve's"}),
    )
    .await;
    let race = json(res, 201).await["id"].as_i64().unwrap();
    json(
        post(
            app,
            ann,
            &format!("/api/v1/matches/{race}/join"),
            json!(null),
        )
        .await,
        200,
    )
    .await;
    let joins = [bea, cy, dot].map(|who| {
        let url = app.url(&format!("/api/v1/matches/{race}/join"));
        async move { who.post(url).send().await.unwrap().status().as_u16() }
    });
    let [a, b, d] = joins;
    let (a, b, d) = tokio::join!(a, b, d);
    let mut got = vec![a, b, d];
    got.sort_unstable();
    assert_eq!(got, [200, 200, 409]);
    let raced = get(app, &c.owner, &format!("/api/v1/matches/{race}")).await;
    assert_eq!(
        (
            raced["status"].as_str(),
            raced["players"].as_array().unwrap().len()
        ),
        (Some("locked"), 4)
    );

    // A match proposed to three named players locks once all three accept, and is closed to
    // others.
    let named = [c.members[1].1, c.members[2].1, c.members[3].1];
    let res = post(app, ann, &matches,
        json!({"date": date + Duration::days(1), "time": "10:30", "place": "Club room", "players": named})).await;
    let made = json(res, 201).await;
    assert_eq!(
        (made["status"].as_str(), made["open"].as_bool()),
        (Some("forming"), Some(false))
    );
    let mut made = made;
    for i in 1..=3 {
        let res = post(
            app,
            &c.members[i].0,
            &format!("/api/v1/matches/{}/accept", made["id"]),
            json!(null),
        )
        .await;
        made = json(res, 200).await;
    }
    assert_eq!(
        (made["status"].as_str(), made["open"].as_bool()),
        (Some("locked"), Some(false))
    );
    let res = post(
        app,
        eve,
        &format!("/api/v1/matches/{}/join", made["id"]),
        json!(null),
    )
    .await;
    assert!(
        json(res, 409).await["detail"]
            .as_str()
            .unwrap()
            .contains("named players")
    );
    wait_match_mail(sink, 15).await;

    let kinds = kinds_of_events(app, c.league).await;
    for k in ["match.opened", "match.changed", "match.locked"] {
        assert!(kinds.iter().any(|x| x == k), "{k} in {kinds:?}");
    }
    // Someone outside the club sees nothing of the matches.
    let stranger = common::signed_up(app, "stranger@example.org").await;
    let res = stranger
        .get(app.url(&format!("/api/v1/matches/{id}")))
        .send()
        .await
        .unwrap();
    assert!(
        res.status() == 404 || res.status() == 200,
        "a public league's match may be read"
    );
    let res = post(
        app,
        &stranger,
        &format!("/api/v1/matches/{id}/join"),
        json!(null),
    )
    .await;
    assert_eq!(res.status(), 404, "only members join");
}

/// A named match of `who` (indexes into the members, the first proposes) on `date` at `time`.
async fn named_match(c: &Club, who: [usize; 4], date: NaiveDate, time: &str) -> (i64, i64) {
    let others: Vec<i64> = who[1..].iter().map(|&i| c.members[i].1).collect();
    let res = post(
        &c.app,
        &c.members[who[0]].0,
        &format!("/api/v1/leagues/{}/matches", c.league),
        json!({"date": date, "time": time, "place": "Club room", "players": others}),
    )
    .await;
    let mut m = json(res, 201).await;
    // Each named player accepts; the last locks it.
    for &i in &who[1..] {
        let res = post(
            &c.app,
            &c.members[i].0,
            &format!("/api/v1/matches/{}/accept", m["id"]),
            json!(null),
        )
        .await;
        m = json(res, 200).await;
    }
    (m["id"].as_i64().unwrap(), m["table"].as_i64().unwrap())
}

/// A game entered by member `by` at `table`: `winner` self-picks WIN, or a wall game.
async fn enter(c: &Club, by: usize, table: i64, number: i32, winner: Option<usize>) -> Value {
    let body = match winner {
        Some(w) => {
            json!({"number": number, "outcome": "mahjong", "winner": c.members[w].1, "hand": WIN, "won_by": "self_pick"})
        }
        None => json!({"number": number, "outcome": "wall"}),
    };
    let res = c.members[by]
        .0
        .post(c.app.url(&format!("/api/v1/tables/{table}/games")))
        .header("Idempotency-Key", format!("t{table}-g{number}"))
        .json(&body)
        .send()
        .await
        .unwrap();
    json(res, 201).await
}

async fn confirm(c: &Club, by: usize, game: i64) -> Value {
    json(
        post(
            &c.app,
            &c.members[by].0,
            &format!("/api/v1/games/{game}/confirm"),
            json!(null),
        )
        .await,
        200,
    )
    .await
}

fn score(g: &Value, player: i64) -> i64 {
    g["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["player"]["id"] == player)
        .unwrap()["score"]
        .as_i64()
        .unwrap()
}

#[tokio::test]
async fn one_enters_four_games_the_others_confirm_or_dispute_and_an_organizer_settles() {
    let c = open_club().await;
    let app = &c.app;
    let date = (Utc::now() - Duration::days(1)).date_naive();
    let (_, table) = named_match(&c, [0, 1, 2, 3], date, "13:00").await;
    let standings = format!("/api/v1/leagues/{}/standings", c.league);

    // Ann enters four games at her table (a member, not a scorer: she sits there).
    let g1 = enter(&c, 0, table, 1, Some(1)).await;
    assert_eq!(g1["awaiting"], "players");
    let g2 = enter(&c, 0, table, 2, Some(0)).await;
    let g3 = enter(&c, 0, table, 3, None).await;
    let g4 = enter(&c, 0, table, 4, Some(2)).await;
    let [g1, g2, g3, g4] = [&g1, &g2, &g3, &g4].map(|g| g["id"].as_i64().unwrap());
    // A retry of the same game with its key is the same game.
    let again = enter(&c, 0, table, 1, Some(1)).await;
    assert_eq!(again["id"], g1);
    // Eve, not at the table, may not enter a game there.
    let res = c.members[4]
        .0
        .post(app.url(&format!("/api/v1/tables/{table}/games")))
        .json(&json!({"number": 1, "outcome": "wall"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 403);

    // Nothing counts yet; the standings say four games wait.
    let s = get(app, &c.owner, &standings).await;
    assert_eq!(
        (s["games_awaiting"].as_i64(), s["games_disputed"].as_i64()),
        (Some(4), Some(0))
    );
    assert!(s["standings"].as_array().unwrap().is_empty(), "{s}");

    // Game 1: Bea, Cy and Dot confirm; it counts with the last of them.
    let checks = confirm(&c, 1, g1).await;
    assert_eq!(checks["awaiting"], "players");
    let waiting: Vec<&str> = checks["waiting_for"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(waiting, ["Cy", "Dot"]);
    let res = post(
        app,
        &c.members[1].0,
        &format!("/api/v1/games/{g1}/confirm"),
        json!(null),
    )
    .await;
    assert_eq!(res.status(), 200, "confirming twice is harmless");
    confirm(&c, 2, g1).await;
    let done = confirm(&c, 3, g1).await;
    assert!(done["awaiting"].is_null(), "{done}");
    let s = get(app, &c.owner, &standings).await;
    assert_eq!(s["games_awaiting"], 3);
    let bea = s["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["player"] == "Bea")
        .unwrap();
    assert_eq!(
        (bea["games"].as_i64(), bea["points"].as_i64()),
        (Some(1), Some(150))
    );
    // The season counts what the standings count: game 1, not the three still waiting; week
    // by week on the club's clock.
    let season = get(
        app,
        &c.owner,
        &format!(
            "/api/v1/leagues/{}/players/{}/season",
            c.league, c.members[1].1
        ),
    )
    .await;
    let counts = &season["counts"];
    assert_eq!(
        (
            counts["games"].as_i64(),
            counts["points"].as_i64(),
            counts["self_picks"].as_i64()
        ),
        (Some(1), Some(150), Some(1)),
        "{season}"
    );
    assert_eq!(season["period"], "week");
    let monday = date - Duration::days(date.weekday().num_days_from_monday() as i64);
    assert_eq!(season["periods"][0]["date"], monday.to_string(), "{season}");
    assert!(season["periods"][0]["night"].is_null(), "{season}");
    let whole = get(
        app,
        &c.owner,
        &format!("/api/v1/leagues/{}/season", c.league),
    )
    .await;
    assert_eq!(
        (whole["games"].as_i64(), whole["how"]["self_pick"].as_i64()),
        (Some(1), Some(1)),
        "{whole}"
    );

    // A player at the table corrects a game only while it waits: game 1 counts, it is the
    // organizers' now.
    let seen = get(app, &c.owner, &format!("/api/v1/games/{g1}")).await;
    let res = c.members[0]
        .0
        .put(app.url(&format!("/api/v1/games/{g1}")))
        .header("If-Match", seen["version"].to_string())
        .json(&json!({"number": 1, "outcome": "wall"}))
        .send()
        .await
        .unwrap();
    assert!(
        json(res, 403).await["detail"]
            .as_str()
            .unwrap()
            .contains("counts already")
    );

    // Eve may not confirm a game she did not play.
    let res = post(
        app,
        &c.members[4].0,
        &format!("/api/v1/games/{g2}/confirm"),
        json!(null),
    )
    .await;
    assert_eq!(res.status(), 403);

    // Game 2: Bea confirms, Cy disputes with a reason; Dot can no longer confirm it.
    confirm(&c, 1, g2).await;
    let res = post(
        app,
        &c.members[2].0,
        &format!("/api/v1/games/{g2}/dispute"),
        json!({"reason": " "}),
    )
    .await;
    assert_eq!(json(res, 422).await["errors"][0]["field"], "reason");
    let res = post(
        app,
        &c.members[2].0,
        &format!("/api/v1/games/{g2}/dispute"),
        json!({"reason": "Ann went out on my discard; it was not self-picked"}),
    )
    .await;
    let disputed = json(res, 200).await;
    assert_eq!(disputed["awaiting"], "organizer");
    let said: Vec<(String, String)> = disputed["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["player"]["name"].as_str().unwrap().to_string(),
                x["answer"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(said.contains(&("Ann".into(), "confirmed".into())));
    assert!(said.contains(&("Bea".into(), "confirmed".into())));
    assert!(said.contains(&("Cy".into(), "disputed".into())));
    let res = post(
        app,
        &c.members[3].0,
        &format!("/api/v1/games/{g2}/confirm"),
        json!(null),
    )
    .await;
    assert!(
        json(res, 409).await["detail"]
            .as_str()
            .unwrap()
            .contains("organizer")
    );
    let s = get(app, &c.owner, &standings).await;
    assert_eq!(
        (s["games_awaiting"].as_i64(), s["games_disputed"].as_i64()),
        (Some(2), Some(1))
    );

    // The games CSV says which games wait; an import refuses them, naming the line, until
    // they are settled.
    let csv_of = async || -> String {
        c.owner
            .get(app.url(&format!("/api/v1/leagues/{}/games.csv", c.league)))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    };
    let exported = csv_of().await;
    assert!(
        exported.contains(",awaiting,") && exported.contains(",disputed,"),
        "{exported}"
    );
    let res = post(app, &c.owner, "/api/v1/clubs/tiles/leagues",
        json!({"name": "Open play, copy", "card": "demo-2026", "ruleset": "nmjl-money", "kind": "open", "board": "best_per_week", "best_per_week": 2})).await;
    let copy = json(res, 201).await["id"].as_i64().unwrap();
    let import = app.url(&format!("/api/v1/leagues/{copy}/games.csv"));
    let res = c
        .owner
        .post(&import)
        .header("Content-Type", "text/csv")
        .body(exported)
        .send()
        .await
        .unwrap();
    let refused = json(res, 422).await;
    assert!(
        refused
            .to_string()
            .contains("still waiting for its players"),
        "{refused}"
    );
    assert!(
        refused
            .to_string()
            .contains("disputed and waiting for an organizer"),
        "{refused}"
    );

    // Nor a disputed one: Ann may not correct game 2 now.
    let seen = get(app, &c.owner, &format!("/api/v1/games/{g2}")).await;
    let res = c.members[0]
        .0
        .put(app.url(&format!("/api/v1/games/{g2}")))
        .header("If-Match", seen["version"].to_string())
        .json(&json!({"number": 2, "outcome": "wall"}))
        .send()
        .await
        .unwrap();
    assert!(
        json(res, 403).await["detail"]
            .as_str()
            .unwrap()
            .contains("disputed")
    );

    // A member may not settle; the organizer corrects the game as Cy said, then counts it.
    let res = post(
        app,
        &c.members[1].0,
        &format!("/api/v1/games/{g2}/settle"),
        json!({"decision": "count"}),
    )
    .await;
    assert_eq!(res.status(), 403);
    let seen = get(app, &c.owner, &format!("/api/v1/games/{g2}")).await;
    let res = c.owner.put(app.url(&format!("/api/v1/games/{g2}")))
        .header("If-Match", seen["version"].to_string())
        .json(&json!({"number": 2, "outcome": "mahjong", "winner": c.members[0].1, "hand": WIN, "won_by": "discard", "discarder": c.members[2].1}))
        .send().await.unwrap();
    let amended = json(res, 200).await;
    assert_eq!(amended["awaiting"], "players", "a correction waits again");
    let settled = json(
        post(
            app,
            &c.owner,
            &format!("/api/v1/games/{g2}/settle"),
            json!({"decision": "count"}),
        )
        .await,
        200,
    )
    .await;
    assert!(settled["awaiting"].is_null());
    let audit = get(app, &c.owner, &format!("/api/v1/games/{g2}/audit")).await;
    assert!(
        audit.to_string().contains("amended"),
        "the dispute's history: {audit}"
    );

    // While a game waits, a player at the table may correct it: Ann says game 4 was won from
    // Dot's discard. It waits again, with Ann's word only.
    json(
        post(
            app,
            &c.members[1].0,
            &format!("/api/v1/games/{g4}/confirm"),
            json!(null),
        )
        .await,
        200,
    )
    .await;
    let seen = get(app, &c.owner, &format!("/api/v1/games/{g4}")).await;
    let res = c.members[0].0.put(app.url(&format!("/api/v1/games/{g4}")))
        .header("If-Match", seen["version"].to_string())
        .json(&json!({"number": 4, "outcome": "mahjong", "winner": c.members[2].1, "hand": WIN, "won_by": "discard", "discarder": c.members[3].1}))
        .send().await.unwrap();
    assert_eq!(json(res, 200).await["awaiting"], "players");
    let said = get(app, &c.owner, &format!("/api/v1/games/{g4}/checks")).await;
    let who: Vec<&str> = said["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["player"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        who,
        ["Ann"],
        "Bea's confirmation was of the game before the correction"
    );

    // Game 4: Dot disputes; the organizer voids it.
    json(
        post(
            app,
            &c.members[3].0,
            &format!("/api/v1/games/{g4}/dispute"),
            json!({"reason": "We never played a fourth game"}),
        )
        .await,
        200,
    )
    .await;
    json(
        post(
            app,
            &c.owner,
            &format!("/api/v1/games/{g4}/settle"),
            json!({"decision": "void"}),
        )
        .await,
        200,
    )
    .await;
    let voided = get(app, &c.owner, &format!("/api/v1/games/{g4}")).await;
    assert_eq!(voided["status"], "voided");

    // Game 3: nobody answers; when its wait has run out it counts by itself.
    sqlx::query("UPDATE games SET updated_at = now() - interval '49 hours' WHERE id = $1")
        .bind(g3)
        .execute(&app.db)
        .await
        .unwrap();
    let mut counted = false;
    for _ in 0..100 {
        let g = get(app, &c.owner, &format!("/api/v1/games/{g3}")).await;
        if g["awaiting"].is_null() {
            counted = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    assert!(counted, "game 3 counted after its wait");

    // The board: game 1 (Bea +150, the others -50) and game 2 as corrected (Ann from Cy's
    // discard: Cy pays 50, Bea and Dot 25) and the wall game count; game 4 does not.
    let g2 = get(app, &c.owner, &format!("/api/v1/games/{g2}")).await;
    assert_eq!(score(&g2, c.members[0].1), 100);
    let s = get(app, &c.owner, &standings).await;
    assert_eq!(
        (s["games_awaiting"].as_i64(), s["games_disputed"].as_i64()),
        (Some(0), Some(0))
    );
    let points = |name: &str| {
        s["standings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["player"] == name)
            .unwrap()["counted_points"]
            .as_i64()
            .unwrap()
    };
    assert_eq!(
        [points("Ann"), points("Bea"), points("Cy"), points("Dot")],
        [-50 + 100, 150 - 25, -50 - 50, -50 - 25]
    );

    let kinds = kinds_of_events(app, c.league).await;
    for k in [
        "game.confirmed",
        "game.disputed",
        "game.voided",
        "standings.changed",
    ] {
        assert!(kinds.iter().any(|x| x == k), "{k} in {kinds:?}");
    }
}

#[tokio::test]
async fn best_two_matches_a_week_by_the_clubs_clock_with_the_season_average_beside() {
    let c = open_club().await;
    let app = &c.app;
    // The next Monday on the club's clock (New York) at least two days ahead.
    let today = Utc::now()
        .with_timezone(&chrono_tz::America::New_York)
        .date_naive();
    let mut monday = today + Duration::days(2);
    while monday.weekday() != chrono::Weekday::Mon {
        monday += Duration::days(1);
    }
    let (ann, bea, cy, dot, eve) = (0, 1, 2, 3, 4);
    // Week 1: Tuesday (Ann wins), Wednesday (Bea wins), and Sunday at 23:30 New York time, which
    // is already Monday in UTC (Ann wins, Eve at the table). Week 2: Monday (Cy wins).
    let plan = [
        (
            [ann, bea, cy, dot],
            monday + Duration::days(1),
            "14:00",
            ann,
        ),
        (
            [ann, bea, cy, dot],
            monday + Duration::days(2),
            "14:00",
            bea,
        ),
        (
            [ann, bea, cy, eve],
            monday + Duration::days(6),
            "23:30",
            ann,
        ),
        ([ann, bea, cy, dot], monday + Duration::days(7), "10:00", cy),
    ];
    for (who, date, time, winner) in plan {
        let (_, table) = named_match(&c, who, date, time).await;
        let g = enter(&c, who[0], table, 1, Some(winner)).await["id"]
            .as_i64()
            .unwrap();
        for &p in &who[1..] {
            confirm(&c, p, g).await;
        }
    }
    let s = get(
        app,
        &c.owner,
        &format!("/api/v1/leagues/{}/standings", c.league),
    )
    .await;
    assert_eq!(s["board"], "best_per_week");
    assert_eq!(s["best_per_week"], 2);
    let rows = s["standings"].as_array().unwrap();
    let row = |name: &str| rows.iter().find(|r| r["player"] == name).unwrap().clone();
    // Worked by hand. Ann: week 1 is 150, -50, 150 → best two 300; week 2 -50: 250. (By UTC
    // weeks it would be 100 + 100 = 200.) Bea: -50, 150, -50 → 100; -50: 50. Cy: -50 ×3 →
    // -100; 150: 50. Dot: -50, -50 → -100; -50: -150. Eve: -50.
    let expect = [
        ("Ann", 250),
        ("Bea", 50),
        ("Cy", 50),
        ("Eve", -50),
        ("Dot", -150),
    ];
    for (name, points) in expect {
        assert_eq!(row(name)["counted_points"], points, "{name}: {}", row(name));
    }
    let order: Vec<&str> = rows.iter().map(|r| r["player"].as_str().unwrap()).collect();
    assert_eq!(order[0], "Ann");
    assert_eq!(&order[3..], ["Eve", "Dot"]);
    // Bea and Cy: 50 each, one win each, no deal-ins, and level head to head: a shared second.
    assert_eq!(
        (row("Bea")["rank"].as_i64(), row("Bea")["shared"].as_bool()),
        (Some(2), Some(true))
    );
    assert_eq!(row("Cy")["rank"], 2);
    let ann_weeks = row("Ann")["weeks"].clone();
    assert_eq!(ann_weeks[0]["week"], json!(monday));
    assert_eq!(
        (
            ann_weeks[0]["matches"].as_i64(),
            ann_weeks[0]["counted"].as_i64(),
            ann_weeks[0]["points"].as_i64()
        ),
        (Some(3), Some(300), Some(250))
    );
    assert_eq!(ann_weeks[1]["counted"], -50);
    assert!(
        s["board_in_words"]
            .as_str()
            .unwrap()
            .contains("2 best match scores"),
        "{}",
        s["board_in_words"]
    );

    // The season average beside it: nobody has 6 games yet, so nobody is ranked: "4 of 6".
    let avg = s["season_average"].as_array().unwrap();
    let ann_avg = avg.iter().find(|r| r["player"] == "Ann").unwrap();
    assert!(ann_avg["rank"].is_null());
    assert_eq!(ann_avg["short"], "4 of 6");
    assert_eq!(ann_avg["average"], 50.0);
    // The page: this week first after the counted points, weeks in words latest first, the
    // chart week by week, ratings in words.
    let page = common::text_at(&c.owner, &app.url(&format!("/leagues/{}", c.league))).await;
    let week = |m: chrono::NaiveDate| {
        let sunday = m + Duration::days(6);
        if sunday.month() == m.month() {
            format!("{}–{}", m.format("%b %-d"), sunday.format("%-d"))
        } else {
            format!("{}–{}", m.format("%b %-d"), sunday.format("%b %-d"))
        }
    };
    let (first, second) = (week(monday), week(monday + Duration::days(7)));
    let heads: Vec<&str> = page
        .split("<th scope=\"col\"")
        .skip(1)
        .take(4)
        .map(|h| h.split("</th>").next().unwrap())
        .collect();
    assert!(heads[2].contains("Counted"), "{heads:?}");
    assert!(heads[3].contains("This week"), "{heads:?}");
    assert!(
        page.contains(&format!("{second}: ")) && page.contains(&format!("{first}: ")),
        "{page}"
    );
    assert!(
        page.find(&format!("{second}: ")) < page.find(&format!("{first}: ")),
        "the latest week first"
    );
    assert!(page.contains("Points week by week"), "{page}");
    assert!(
        page.contains(&format!(">{first}</text>")),
        "the axis says the weeks"
    );
    assert!(!page.contains("μ"), "ratings in words");
    // From 4 games: Ann, Bea and Cy are ranked by average; Dot (3) and Eve (1) are not.
    json(
        c.owner
            .patch(app.url(&format!("/api/v1/leagues/{}", c.league)))
            .json(&json!({"min_games": 4}))
            .send()
            .await
            .unwrap(),
        200,
    )
    .await;
    let s = get(
        app,
        &c.owner,
        &format!("/api/v1/leagues/{}/standings", c.league),
    )
    .await;
    let avg = s["season_average"].as_array().unwrap();
    let got: Vec<(String, Option<i64>, Option<String>)> = avg
        .iter()
        .map(|r| {
            (
                r["player"].as_str().unwrap().to_string(),
                r["rank"].as_i64(),
                r["short"].as_str().map(str::to_string),
            )
        })
        .collect();
    assert_eq!(got[0], ("Ann".to_string(), Some(1), None));
    assert!(
        got.contains(&("Dot".to_string(), None, Some("3 of 4".to_string()))),
        "{got:?}"
    );
    assert!(
        got.contains(&("Eve".to_string(), None, Some("1 of 4".to_string()))),
        "{got:?}"
    );

    // The fairness limit: one counted match a week with the same three opponents. Ann's week 1
    // keeps Tuesday (150) and Sunday (150, another table): 300 still; Bea's Wednesday win
    // (same table as Tuesday) no longer counts: -50 (Tue) + -50 (Sun) = -100, then -50.
    json(
        c.owner
            .patch(app.url(&format!("/api/v1/leagues/{}", c.league)))
            .json(&json!({"same_table_per_week": 1}))
            .send()
            .await
            .unwrap(),
        200,
    )
    .await;
    let s = get(
        app,
        &c.owner,
        &format!("/api/v1/leagues/{}/standings", c.league),
    )
    .await;
    let rows = s["standings"].as_array().unwrap();
    let points = |name: &str| {
        rows.iter().find(|r| r["player"] == name).unwrap()["counted_points"]
            .as_i64()
            .unwrap()
    };
    assert_eq!((points("Ann"), points("Bea")), (250, -150));
    assert_eq!(
        rows.iter().find(|r| r["player"] == "Bea").unwrap()["weeks"][0]["over_limit"],
        1
    );
}

/// Mails of `kind` so far, as (to, subject, text).
fn mail_of(sink: &SmtpSink, kind: &str) -> Vec<(String, String, String)> {
    sink.messages()
        .into_iter()
        .filter(|m| m.kind() == kind)
        .map(|m| {
            let subject = m.parsed().subject().unwrap_or_default().to_string();
            (m.to.join(","), subject, m.text())
        })
        .collect()
}

/// Waits for `n` mails of `kind` in all, and answers them sorted by address.
async fn wait_mail_of(sink: &SmtpSink, kind: &str, n: usize) -> Vec<(String, String, String)> {
    for _ in 0..300 {
        let mut got = mail_of(sink, kind);
        if got.len() >= n {
            got.sort();
            return got;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("{} {kind} mails, expected {n}", mail_of(sink, kind).len());
}

/// The games of a table as entered this long ago (as if the table had been quiet since).
async fn quiet_for(app: &TestApp, table: i64, minutes: i32) {
    sqlx::query(
        "UPDATE games SET updated_at = now() - make_interval(mins => $2) WHERE table_id = $1",
    )
    .bind(table)
    .bind(minutes)
    .execute(&app.db)
    .await
    .unwrap();
}

/// The link to `path_start` in a mail's text.
fn link_in(text: &str, path_start: &str) -> String {
    text.split_whitespace()
        .find(|w| w.starts_with("http") && w.contains(path_start))
        .unwrap_or_else(|| panic!("no link to {path_start} in {text}"))
        .to_string()
}

/// A phone that never logged in, with the page a mail's link opens.
async fn open_link(link: &str) -> (reqwest::Client, String) {
    let phone = reqwest::Client::builder()
        .cookie_store(true)
        .build()
        .unwrap();
    let res = phone.get(link).send().await.unwrap();
    assert_eq!(res.status(), 200, "{link}");
    let page = res.text().await.unwrap();
    (phone, page)
}

/// A page's hidden `games` values (each "id:version") in its first confirm-all form.
fn confirm_all_games(html: &str) -> Vec<String> {
    let form = html
        .split("id=\"your-word\"")
        .nth(1)
        .and_then(|s| s.split("</form>").next())
        .expect("the confirm-all form");
    form.split("name=\"games\" value=\"")
        .skip(1)
        .map(|s| s.split('"').next().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn players_are_mailed_once_the_games_are_in_and_give_their_word_through_the_link() {
    let c = open_club().await;
    let app = &c.app;
    let date = (Utc::now() - Duration::days(1)).date_naive();
    let (match_id, table) = named_match(&c, [0, 1, 2, 3], date, "13:00").await;
    let [g1, g2, g3] = [
        enter(&c, 0, table, 1, Some(1)).await,
        enter(&c, 0, table, 2, Some(0)).await,
        enter(&c, 0, table, 3, None).await,
    ]
    .map(|g| g["id"].as_i64().unwrap());

    // While the table is still entering games, nobody is asked: four sweeps pass.
    common::passes(10).await;
    assert!(mail_of(&c.sink, "match_words").is_empty(), "asked too soon");

    // Quiet for ten minutes: Bea, Cy and Dot are asked once each; Ann entered the games, her
    // word is given.
    quiet_for(app, table, 11).await;
    let asked = wait_mail_of(&c.sink, "match_words", 3).await;
    let to: Vec<&str> = asked.iter().map(|(to, ..)| to.as_str()).collect();
    assert_eq!(to, ["bea@example.org", "cy@example.org", "dot@example.org"]);
    let (_, subject, text) = &asked[0];
    assert!(subject.contains("3 games of your match"), "{subject}");
    assert!(text.contains("Hello bea@example.org,"), "{text}");
    assert!(text.contains("your match at Club room on "), "{text}");
    // Game 1: Bea self-picked 2468 for 25: +150 for her, -50 from each of the others.
    assert!(text.contains("Game 1: Bea went out, self-pick"), "{text}");
    assert!(
        text.contains("Ann -50, Bea +150, Cy -50, Dot -50"),
        "{text}"
    );
    assert!(text.contains("Game 3: wall game"), "{text}");
    assert!(text.contains("Counts by itself"), "{text}");

    // Bea follows her link on a phone that never logged in: the page names her and the three
    // games; one tap confirms them all.
    let bea_link = link_in(text, "/word/");
    let (phone, page) = open_link(&bea_link).await;
    assert!(page.contains("Hello Bea: your word on the games"), "{page}");
    assert!(page.contains("Confirm all 3 games"), "{page}");
    let games = confirm_all_games(&page);
    assert_eq!(games.len(), 3, "{games:?}");
    let res = phone
        .post(&bea_link)
        .form(&[
            ("csrf", common::csrf_of(&page)),
            ("act", "confirm".into()),
            ("games", games[0].clone()),
            ("games", games[1].clone()),
            ("games", games[2].clone()),
        ])
        .send()
        .await
        .unwrap();
    let after = res.text().await.unwrap();
    assert!(after.contains("You confirmed games 1, 2 and 3."), "{after}");
    assert!(
        after.contains("No game of this match waits for your word"),
        "{after}"
    );
    let said = get(app, &c.owner, &format!("/api/v1/games/{g1}/checks")).await;
    let who: Vec<&str> = said["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["player"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(who, ["Ann", "Bea"]);

    // A link with its signature changed, or another match's number, does nothing.
    let forged = format!(
        "{}x",
        bea_link.trim_end_matches(|ch: char| ch.is_ascii_hexdigit())
    );
    let res = phone.get(&forged).send().await.unwrap();
    assert_eq!(res.status(), 404);
    let elsewhere = bea_link.replace(&format!("/matches/{match_id}/"), "/matches/999999/");
    let res = phone.get(&elsewhere).send().await.unwrap();
    assert_eq!(res.status(), 404);

    // Cy opens his page; meanwhile Ann corrects game 2. Cy's tap confirms games 1 and 3 as he
    // saw them, and says game 2 changed: nothing is said on a game he has not seen.
    let cy_link = link_in(&asked[1].2, "/word/");
    let (cy_phone, page) = open_link(&cy_link).await;
    let games = confirm_all_games(&page);
    let seen = get(app, &c.owner, &format!("/api/v1/games/{g2}")).await;
    let res = c.members[0].0.put(app.url(&format!("/api/v1/games/{g2}")))
        .header("If-Match", seen["version"].to_string())
        .json(&json!({"number": 2, "outcome": "mahjong", "winner": c.members[0].1, "hand": WIN, "won_by": "discard", "discarder": c.members[2].1}))
        .send().await.unwrap();
    json(res, 200).await;
    let mut form = vec![
        ("csrf", common::csrf_of(&page)),
        ("act", "confirm".to_string()),
    ];
    form.extend(games.iter().map(|g| ("games", g.clone())));
    let after = cy_phone
        .post(&cy_link)
        .form(&form)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(after.contains("You confirmed games 1 and 3."), "{after}");
    assert!(
        after.contains("Game 2: game 2 was corrected since you looked at it"),
        "{after}"
    );
    let checks = get(app, &c.owner, &format!("/api/v1/games/{g2}/checks")).await;
    let waiting: Vec<&str> = checks["waiting_for"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        waiting,
        ["Bea", "Cy", "Dot"],
        "the correction asks everyone again"
    );

    // Dot disputes game 3 from her link, with a reason: the organizers are mailed.
    let dot_link = link_in(&asked[2].2, "/word/");
    let (dot_phone, page) = open_link(&dot_link).await;
    let g3_version =
        get(app, &c.owner, &format!("/api/v1/games/{g3}")).await["version"].to_string();
    let after = dot_phone
        .post(&dot_link)
        .form(&[
            ("csrf", common::csrf_of(&page)),
            ("act", "dispute".into()),
            ("game", g3.to_string()),
            ("version", g3_version),
            ("reason", "We did not play a third game".into()),
        ])
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(after.contains("Disputed: game 3"), "{after}");
    let to_organizers = wait_mail_of(&c.sink, "match_dispute", 1).await;
    assert!(to_organizers[0].2.contains("We did not play a third game"));
    let game3 = get(app, &c.owner, &format!("/api/v1/games/{g3}")).await;
    assert_eq!(game3["awaiting"], "organizer");

    // The corrected game 2, quiet again, is asked about once more: Bea and Cy for game 2; Dot
    // for games 1 and 2, which still wait for her. Game 3 waits for an organizer now.
    common::passes(10).await;
    assert_eq!(
        mail_of(&c.sink, "match_words").len(),
        3,
        "not before it is quiet"
    );
    quiet_for(app, table, 11).await;
    let all = wait_mail_of(&c.sink, "match_words", 6).await;
    let again: Vec<&(String, String, String)> = all
        .iter()
        .filter(|(_, s, _)| !s.contains("3 games"))
        .collect();
    let to: Vec<&str> = again.iter().map(|(to, ..)| to.as_str()).collect();
    assert_eq!(to, ["bea@example.org", "cy@example.org", "dot@example.org"]);
    assert!(
        again[0].1.contains("a game of your match"),
        "{}",
        again[0].1
    );
    assert!(
        again[0].2.contains("Game 2: Ann went out on Cy's discard"),
        "{}",
        again[0].2
    );
    assert!(!again[0].2.contains("Game 1:"), "{}", again[0].2);
    assert!(
        again[2].1.contains("2 games of your match"),
        "{}",
        again[2].1
    );
    assert!(again[2].2.contains("Game 1:") && again[2].2.contains("Game 2:"));
    assert!(!again[2].2.contains("Game 3:"), "{}", again[2].2);
    common::passes(10).await;
    assert_eq!(
        mail_of(&c.sink, "match_words").len(),
        6,
        "each batch is asked once"
    );
}

#[tokio::test]
async fn organizers_take_a_player_out_of_a_match_and_call_one_off_with_a_reason() {
    let c = open_club().await;
    let app = &c.app;
    let day = (Utc::now() + Duration::days(3)).date_naive();
    let res = post(
        app,
        &c.members[0].0,
        &format!("/api/v1/leagues/{}/matches", c.league),
        json!({"date": day, "time": "19:00", "place": "Club room"}),
    )
    .await;
    let id = json(res, 201).await["id"].as_i64().unwrap();
    let m = format!("/api/v1/matches/{id}");
    json(
        post(app, &c.members[1].0, &format!("{m}/join"), json!(null)).await,
        200,
    )
    .await;

    // Members may not; the reason is needed and the player must be in the match.
    let bea = c.members[1].1;
    let res = post(
        app,
        &c.members[1].0,
        &format!("{m}/remove"),
        json!({"player": bea, "reason": "x"}),
    )
    .await;
    assert_eq!(res.status(), 403);
    let res = post(
        app,
        &c.members[1].0,
        &format!("{m}/cancel"),
        json!({"reason": "x"}),
    )
    .await;
    assert_eq!(res.status(), 403);
    let res = post(
        app,
        &c.owner,
        &format!("{m}/remove"),
        json!({"player": bea, "reason": "  "}),
    )
    .await;
    assert_eq!(json(res, 422).await["errors"][0]["field"], "reason");
    let res = post(
        app,
        &c.owner,
        &format!("{m}/remove"),
        json!({"player": c.members[4].1, "reason": "x"}),
    )
    .await;
    let body = json(res, 422).await;
    assert_eq!(body["errors"][0]["field"], "player", "{body}");

    // Forming: Bea is taken out and told; the others are not mailed about it.
    let res = post(
        app,
        &c.owner,
        &format!("{m}/remove"),
        json!({"player": bea, "reason": "Bea asked us to, she is away"}),
    )
    .await;
    let after = json(res, 200).await;
    assert_eq!(names(&after), ["Ann"]);
    let mails = wait_match_mail(&c.sink, 1).await;
    assert_eq!(mails.len(), 1, "{mails:?}");
    assert_eq!(mails[0].0, "bea@example.org");
    assert!(
        mails[0].1.contains("Bea is out of the match"),
        "{}",
        mails[0].1
    );
    assert!(
        mails[0].2.contains("Bea asked us to, she is away"),
        "{}",
        mails[0].2
    );

    // Cy, Dot and Eve join: it locks (and all four are mailed). Eve is taken out: the match
    // forms again, its table goes, and Eve and the other three are told.
    for i in [2, 3, 4] {
        json(
            post(app, &c.members[i].0, &format!("{m}/join"), json!(null)).await,
            200,
        )
        .await;
    }
    let locked = get(app, &c.owner, &m).await;
    assert_eq!(locked["status"], "locked");
    let night = locked["night"].as_i64().unwrap();
    wait_match_mail(&c.sink, 5).await;
    let res = post(
        app,
        &c.owner,
        &format!("{m}/remove"),
        json!({"player": c.members[4].1, "reason": "Eve has the flu"}),
    )
    .await;
    let after = json(res, 200).await;
    assert_eq!(after["status"], "forming");
    assert!(after["table"].is_null());
    assert_eq!(names(&after), ["Ann", "Cy", "Dot"]);
    let nights: i64 = sqlx::query_scalar("SELECT count(*) FROM nights WHERE id = $1")
        .bind(night)
        .fetch_one(&app.db)
        .await
        .unwrap();
    assert_eq!(nights, 0, "the match's night is gone");
    let mails = wait_match_mail(&c.sink, 9).await;
    let mut told: Vec<&str> = mails[5..].iter().map(|(to, ..)| to.as_str()).collect();
    told.sort();
    assert_eq!(
        told,
        [
            "ann@example.org",
            "cy@example.org",
            "dot@example.org",
            "eve@example.org"
        ]
    );
    assert!(
        mails[5..]
            .iter()
            .all(|(_, _, t)| t.contains("Eve has the flu") && t.contains("open again"))
    );

    // Called off: the three are told why; it leaves the list, and nobody joins it.
    let res = post(app, &c.owner, &format!("{m}/cancel"), json!({})).await;
    let body = json(res, 400).await;
    assert!(body.to_string().contains("reason"), "{body}");
    let res = post(
        app,
        &c.owner,
        &format!("{m}/cancel"),
        json!({"reason": "The club room is closed for the storm"}),
    )
    .await;
    let off = json(res, 200).await;
    assert_eq!(off["status"], "cancelled");
    assert_eq!(
        off["cancel_reason"],
        "The club room is closed for the storm"
    );
    let mails = wait_match_mail(&c.sink, 12).await;
    let mut told: Vec<&str> = mails[9..].iter().map(|(to, ..)| to.as_str()).collect();
    told.sort();
    assert_eq!(
        told,
        ["ann@example.org", "cy@example.org", "dot@example.org"]
    );
    assert!(
        mails[9..]
            .iter()
            .all(|(_, s, t)| s.contains("called off") && t.contains("closed for the storm"))
    );
    let list = get(
        app,
        &c.owner,
        &format!("/api/v1/leagues/{}/matches", c.league),
    )
    .await;
    assert!(
        !list.to_string().contains(&format!("\"id\":{id},")),
        "{list}"
    );
    let res = post(app, &c.members[4].0, &format!("{m}/join"), json!(null)).await;
    assert!(
        json(res, 409).await["detail"]
            .as_str()
            .unwrap()
            .contains("called off")
    );
    let res = post(
        app,
        &c.owner,
        &format!("{m}/cancel"),
        json!({"reason": "again"}),
    )
    .await;
    assert_eq!(res.status(), 409);

    // A match with a game entered stands as played: neither is possible.
    let date = (Utc::now() - Duration::days(1)).date_naive();
    let (played, table) = named_match(&c, [0, 1, 2, 3], date, "13:00").await;
    enter(&c, 0, table, 1, None).await;
    for (path, body) in [
        ("cancel", json!({"reason": "x"})),
        ("remove", json!({"player": c.members[1].1, "reason": "x"})),
    ] {
        let res = post(
            app,
            &c.owner,
            &format!("/api/v1/matches/{played}/{path}"),
            body,
        )
        .await;
        let said = json(res, 409).await;
        assert!(
            said["detail"]
                .as_str()
                .unwrap()
                .contains("stands as played"),
            "{said}"
        );
    }
    let kinds = kinds_of_events(app, c.league).await;
    assert!(
        kinds.iter().filter(|k| *k == "match.changed").count() >= 3,
        "{kinds:?}"
    );
}

/// Waits until `n` requests of the app wait for a lock in its database.
async fn lock_waiters(app: &TestApp, n: i64) {
    for _ in 0..200 {
        let waiting: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
        )
        .fetch_one(&app.db)
        .await
        .unwrap();
        if waiting >= n {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("{n} requests never waited for the league's lock");
}

#[tokio::test]
async fn a_game_sent_as_its_match_is_called_off_gets_409_and_nothing_is_stored() {
    let c = open_club().await;
    let app = &c.app;
    let today = Utc::now().date_naive();
    let (id, table) = named_match(&c, [0, 1, 2, 3], today, "13:00").await;

    // The league's row is held (as by a request in the middle of its work): the organizer's
    // call-off waits for it, then Ann's first game waits behind the call-off.
    let mut hold = app.db.begin().await.unwrap();
    sqlx::query("SELECT id FROM leagues WHERE id = $1 FOR UPDATE")
        .bind(c.league)
        .execute(&mut *hold)
        .await
        .unwrap();
    let cancel = tokio::spawn({
        let owner = c.owner.clone();
        let url = app.url(&format!("/api/v1/matches/{id}/cancel"));
        async move {
            let res = owner
                .post(url)
                .json(&json!({"reason": "The club room is flooded"}))
                .send()
                .await
                .unwrap();
            res.status().as_u16()
        }
    });
    lock_waiters(app, 1).await;
    let game_url = app.url(&format!("/api/v1/tables/{table}/games"));
    let send_game = {
        let ann = c.members[0].0.clone();
        let url = game_url.clone();
        move || {
            let (ann, url) = (ann.clone(), url.clone());
            async move {
                let res = ann
                    .post(url)
                    .header("Idempotency-Key", "flood-g1")
                    .json(&json!({"number": 1, "outcome": "wall"}))
                    .send()
                    .await
                    .unwrap();
                let status = res.status().as_u16();
                (status, res.json::<Value>().await.unwrap_or(Value::Null))
            }
        }
    };
    let game = tokio::spawn(send_game());
    lock_waiters(app, 2).await;
    hold.commit().await.unwrap();

    assert_eq!(cancel.await.unwrap(), 200, "the call-off went first");
    let (status, body) = game.await.unwrap();
    assert_eq!(status, 409, "{body}");
    assert!(
        body["detail"].as_str().unwrap().contains("was taken away"),
        "{body}"
    );
    let stored: i64 = sqlx::query_scalar("SELECT count(*) FROM games")
        .fetch_one(&app.db)
        .await
        .unwrap();
    assert_eq!(stored, 0, "nothing was stored");
    // Sent again with its key, the game finds no table.
    let (status, body) = send_game().await;
    assert_eq!(status, 404, "{body}");
    let m = get(app, &c.owner, &format!("/api/v1/matches/{id}")).await;
    assert_eq!(m["status"], "cancelled");
}

/// Issue 53: an organizer settles a disputed game by correcting it on its page. The correction
/// ends on the match page saying whose word the game now waits for; those players are asked by
/// mail at once, and the one the correction now charges is told so first; one tap counts it as
/// corrected.
#[tokio::test]
async fn a_disputed_game_corrected_by_an_organizer_ends_on_its_match_and_asks_at_once() {
    let c = open_club().await;
    let app = &c.app;
    let date = (Utc::now() - Duration::days(1)).date_naive();
    let (match_id, table) = named_match(&c, [0, 1, 2, 3], date, "13:00").await;
    // Ann enters her self-pick; Cy disputes it: it went out on his discard.
    let g = enter(&c, 0, table, 1, Some(0)).await["id"]
        .as_i64()
        .unwrap();
    let res = post(
        app,
        &c.members[2].0,
        &format!("/api/v1/games/{g}/dispute"),
        json!({"reason": "Ann went out on my discard"}),
    )
    .await;
    assert_eq!(json(res, 200).await["awaiting"], "organizer");
    let before = mail_of(&c.sink, "match_words").len();

    // The organizer corrects it on the correction page.
    let page = common::text_at(&c.owner, &app.url(&format!("/games/{g}/edit"))).await;
    let version = get(app, &c.owner, &format!("/api/v1/games/{g}")).await["version"].to_string();
    let res = c
        .owner
        .post(app.url(&format!("/games/{g}/edit")))
        .form(&[
            ("csrf", common::csrf_of(&page)),
            ("version", version),
            ("won", c.members[0].1.to_string()),
            ("how", format!("discard:{}", c.members[2].1)),
            ("hand", WIN.into()),
        ])
        .send()
        .await
        .unwrap();
    let landed = res.url().clone();
    let text = res.text().await.unwrap();
    assert_eq!(landed.path(), format!("/matches/{match_id}"), "{text}");
    assert!(
        text.contains(
            "Game 1 corrected. It counts once Ann, Bea, Cy and Dot confirm it as corrected (each asked by mail now); an organizer may count it as corrected now."
        ),
        "{text}"
    );
    assert!(
        text.contains("Count game 1 as corrected"),
        "one tap counts it: {text}"
    );
    // Asked at once, not after the quiet wait; Cy, whom it now charges, is told so first.
    let asked = wait_mail_of(&c.sink, "match_words", before + 4).await;
    let cy = asked
        .iter()
        .find(|(to, ..)| to == "cy@example.org")
        .expect("Cy is asked");
    assert!(
        cy.2.contains("Game 1 of your match was corrected by an organizer. It was: ")
            && cy.2.contains(
                "For you, it now names you the discarder and gives you -50 (it gave you -50)."
            ),
        "{}",
        cy.2
    );
    // Everyone asked is told what changed, as it was and as it is; only Cy is told it charges her.
    let bea = asked
        .iter()
        .find(|(to, ..)| to == "bea@example.org")
        .unwrap();
    assert!(
        bea.2
            .contains("Game 1 of your match was corrected by an organizer. It was: ")
            && bea.2.contains(". It is now: ")
            && !bea.2.contains("For you,"),
        "{}",
        bea.2
    );
}
