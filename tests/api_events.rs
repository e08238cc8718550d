//! League events over real HTTP: the Server-Sent Events stream sees every game within 2 s,
//! resumes after a disconnect with `Last-Event-ID` without missing or repeating anything, and
//! is readable as the league is.

mod common;

use std::time::{Duration, Instant};

use common::sse::Sse;
use common::{TestApp, club_owner, one_table, spawn_app};
use serde_json::{Value, json};

const WIN: &str = "F F 2B 2B J 2B 4C 4C 6C 6C 8B 8B J 8B";

async fn post(client: &reqwest::Client, url: String, body: Value) -> Value {
    let res = client.post(&url).json(&body).send().await.unwrap();
    let status = res.status();
    let answer: Value = res.json().await.unwrap();
    assert!(status.is_success(), "{url}: {status} {answer}");
    answer
}

async fn make_public(app: &TestApp, owner: &reqwest::Client, league: i64) {
    let res = owner
        .patch(app.url(&format!("/api/v1/leagues/{league}")))
        .json(&json!({"visibility": "public"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
}

async fn close_night(app: &TestApp, owner: &reqwest::Client, night: i64) {
    let res = owner
        .post(app.url(&format!("/api/v1/nights/{night}/close")))
        .send()
        .await
        .unwrap();
    assert!(res.status().is_success(), "{}", res.status());
}

#[tokio::test]
async fn a_stream_sees_every_game_within_two_seconds_and_resumes_after_a_disconnect() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "club", "o@example.org").await;
    let t = one_table(&app, &owner, "club", &["Ann", "Bea", "Cy", "Dot"]).await;
    make_public(&app, &owner, t.league).await;
    let events_url = app.url(&format!("/api/v1/leagues/{}/events", t.league));
    let games_url = app.url(&format!("/api/v1/tables/{}/games", t.table));
    // Anyone may follow a public league: a client with no login.
    let anyone = reqwest::Client::new();
    let mut stream = Sse::open(&anyone, &events_url, None).await;

    // Each game arrives within 2 s of its answer, then the standings' change.
    let mut seen = Vec::new();
    let mut last_revision = 0;
    for n in 1..=3 {
        let body = if n == 2 {
            json!({"number": n, "outcome": "wall"})
        } else {
            json!({"number": n, "outcome": "mahjong", "winner": t.players[n as usize], "hand": WIN, "won_by": "self_pick"})
        };
        let game = post(&owner, games_url.clone(), body).await;
        let saved = Instant::now();
        let e = stream
            .next(Duration::from_secs(2))
            .await
            .expect("the game within 2 s");
        assert!(saved.elapsed() < Duration::from_secs(2));
        assert_eq!(e.kind, "game.recorded");
        assert_eq!(e.data["type"], "game.recorded");
        assert_eq!(e.data["league"], t.league);
        assert_eq!(e.data["data"]["id"], game["id"]);
        // The game exactly as the API answered it: one shape for a game everywhere.
        assert_eq!(e.data["data"], game);
        assert_eq!(e.data["data"]["table"]["number"], 1);
        assert_eq!(e.data["data"]["night"]["id"], t.night);
        let s = stream.next(Duration::from_secs(2)).await.unwrap();
        assert_eq!(s.kind, "standings.changed");
        assert!(s.id > e.id);
        let revision = s.data["data"]["revision"].as_i64().unwrap();
        assert!(revision > last_revision, "{revision} after {last_revision}");
        last_revision = revision;
        seen.push(e.id);
        seen.push(s.id);
    }
    let last_seen = stream.last_id.unwrap();
    drop(stream);

    // While nobody listens: an amendment, a void, and the night closed.
    let first = seen[0];
    let g1: Value = owner
        .get(app.url("/api/v1/games/1"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let res = owner
        .put(app.url(&format!("/api/v1/games/{}", g1["id"])))
        .header("if-match", format!("\"{}\"", g1["version"]))
        .json(&json!({"outcome": "mahjong", "winner": t.players[2], "hand": WIN, "won_by": "self_pick"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());
    let res = owner
        .post(app.url("/api/v1/games/2/void"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    close_night(&app, &owner, t.night).await;

    // Reconnecting with the last id it saw, the client gets exactly what it missed, in order.
    let mut stream = Sse::open(&anyone, &events_url, Some(last_seen)).await;
    let missed = stream.drain(Duration::from_millis(700)).await;
    let kinds: Vec<&str> = missed.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "game.amended",
            "standings.changed",
            "game.voided",
            "standings.changed",
            "night.closed"
        ]
    );
    assert!(missed.windows(2).all(|w| w[0].id < w[1].id));
    assert!(missed[0].id > last_seen);
    assert_eq!(missed[0].data["data"]["id"], g1["id"]);
    assert_eq!(missed[0].data["data"]["version"], 2);
    assert!(
        missed[0].data["data"]["players"][2]["score"]
            .as_i64()
            .unwrap()
            > 0
    );
    assert_eq!(missed[2].data["data"]["status"], "voided");
    assert_eq!(missed[4].data["data"]["night"], t.night);
    // From the very start, the query form gives the whole history.
    let mut all = Sse::open(&anyone, &format!("{events_url}?last_event_id=0"), None).await;
    let history = all.drain(Duration::from_millis(700)).await;
    assert_eq!(history.len(), seen.len() + missed.len());
    assert_eq!(history[0].id, first);
}

#[tokio::test]
async fn members_only_leagues_stream_to_members_and_tokens_only_and_bad_ids_are_refused() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "club", "o@example.org").await;
    let t = one_table(&app, &owner, "club", &["Ann", "Bea", "Cy", "Dot"]).await;
    let url = app.url(&format!("/api/v1/leagues/{}/events", t.league));
    let anyone = reqwest::Client::new();
    assert_eq!(anyone.get(&url).send().await.unwrap().status(), 404);
    let token: Value = post(
        &owner,
        app.url("/api/v1/clubs/club/tokens"),
        json!({"name": "scoreboard", "scopes": ["read"]}),
    )
    .await;
    let app_client = reqwest::Client::builder()
        .default_headers(
            [(
                reqwest::header::AUTHORIZATION,
                format!("Bearer {}", token["token"].as_str().unwrap())
                    .parse()
                    .unwrap(),
            )]
            .into_iter()
            .collect(),
        )
        .build()
        .unwrap();
    let mut stream = Sse::open(&app_client, &url, None).await;
    post(
        &owner,
        app.url(&format!("/api/v1/tables/{}/games", t.table)),
        json!({"number": 1, "outcome": "wall"}),
    )
    .await;
    let e = stream.next(Duration::from_secs(2)).await.unwrap();
    assert_eq!(e.kind, "game.recorded");
    for bad in ["abc", "-3", "1e9"] {
        let res = app_client
            .get(&url)
            .header("last-event-id", bad)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 422, "{bad}");
        let problem: Value = res.json().await.unwrap();
        assert!(problem.to_string().contains("Last-Event-ID"), "{problem}");
    }
    let res = anyone
        .get(app.url("/api/v1/leagues/999999/events"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);
}

/// One game, read every way an app can: the answer to recording it, `GET /games/{id}`, the
/// league's and the night's games lists, and the event's data; then the same after an
/// amendment and after the void. Every one is the same JSON.
#[tokio::test]
async fn a_game_is_the_same_object_in_the_answers_the_reads_the_lists_and_the_events() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "club", "o@example.org").await;
    let t = one_table(&app, &owner, "club", &["Ann", "Bea", "Cy", "Dot"]).await;
    let mut stream = Sse::open(
        &owner,
        &app.url(&format!("/api/v1/leagues/{}/events", t.league)),
        None,
    )
    .await;
    let get = |url: String| {
        let owner = owner.clone();
        async move {
            let res = owner.get(&url).send().await.unwrap();
            assert_eq!(res.status(), 200, "{url}");
            res.json::<Value>().await.unwrap()
        }
    };
    let listed = |id: i64, list: Value| {
        list["games"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["id"] == id)
            .cloned()
            .expect("the game is listed")
    };
    // With a dead-hand call the engine judged and an exposure, so every part is there.
    let recorded = post(
        &owner,
        app.url(&format!("/api/v1/tables/{}/games", t.table)),
        json!({"number": 1, "outcome": "mahjong", "winner": t.players[1], "hand": WIN,
               "exposures": ["8B 8B J 8B"], "won_by": "discard", "discarder": t.players[3],
               "dead": [{"player": t.players[2], "called_by": t.players[0], "reason": "exposure fits no line",
                         "exposures": ["3D 3D 3D"], "adjudicate": true}]}),
    )
    .await;
    let id = recorded["id"].as_i64().unwrap();
    for (field, want) in [
        ("winner", json!(t.players[1])),
        ("discarder", json!(t.players[3])),
        ("won_by", json!("discard")),
        (
            "night",
            json!({"id": t.night, "number": 1, "date": "2026-03-03"}),
        ),
    ] {
        assert_eq!(recorded[field], want, "{field}");
    }
    assert_eq!(recorded["table"]["id"], t.table);
    assert_eq!(recorded["players"].as_array().unwrap().len(), 4);
    assert!(recorded["dead"][0]["engine_verdict"]["verdict"].is_string());

    let mut version = 1;
    let mut answer = recorded;
    for step in ["game.recorded", "game.amended", "game.voided"] {
        match step {
            "game.amended" => {
                let res = owner
                    .put(app.url(&format!("/api/v1/games/{id}")))
                    .header("If-Match", format!("\"{version}\""))
                    .json(&json!({"number": 1, "outcome": "mahjong", "winner": t.players[2], "hand": WIN, "won_by": "self_pick"}))
                    .send()
                    .await
                    .unwrap();
                assert_eq!(res.status(), 200);
                answer = res.json().await.unwrap();
            }
            "game.voided" => {
                answer = post(
                    &owner,
                    app.url(&format!("/api/v1/games/{id}/void")),
                    json!({}),
                )
                .await;
            }
            _ => {}
        }
        version += usize::from(step != "game.recorded");
        assert_eq!(answer["version"], version, "{step}");
        let one = get(app.url(&format!("/api/v1/games/{id}"))).await;
        let in_league = listed(
            id,
            get(app.url(&format!("/api/v1/leagues/{}/games", t.league))).await,
        );
        let in_night = listed(
            id,
            get(app.url(&format!("/api/v1/nights/{}/games", t.night))).await,
        );
        // The standings' change that follows a game's event is not about the game.
        let event = loop {
            let e = stream.next(Duration::from_secs(5)).await.expect(step);
            if e.kind.starts_with("game.") {
                break e;
            }
        };
        assert_eq!(event.kind, step);
        assert_eq!(one, answer, "{step}: GET /games/{{id}} and the answer");
        assert_eq!(
            in_league, answer,
            "{step}: the league's list and the answer"
        );
        assert_eq!(in_night, answer, "{step}: the night's list and the answer");
        assert_eq!(
            event.data["data"], answer,
            "{step}: the event and the answer"
        );
    }
    assert_eq!(answer["status"], "voided");
    assert_eq!(answer["winner"], t.players[2]);
}

/// Games and a closed night entered on one instance reach a stream on another: the game through
/// the other's change notice (its league read alone), the night through the hub's sweep of every
/// league followed there.
#[tokio::test]
async fn a_stream_on_another_instance_sees_every_game_and_the_night_closed() {
    let app = spawn_app().await;
    let other = common::another_instance(&app, |_| {}).await;
    let owner = club_owner(&app, "club", "o@example.org").await;
    let t = one_table(&app, &owner, "club", &["Ann", "Bea", "Cy", "Dot"]).await;
    make_public(&app, &owner, t.league).await;
    // A second league followed on the other instance, with no news: it sees nothing.
    let other_owner = club_owner(&app, "quiet", "q@example.org").await;
    let quiet = one_table(&app, &other_owner, "quiet", &["Eve", "Fay", "Gus", "Hal"]).await;
    make_public(&app, &other_owner, quiet.league).await;
    let anyone = reqwest::Client::new();
    let follow = |league: i64| other.url(&format!("/api/v1/leagues/{league}/events"));
    let mut stream = Sse::open(&anyone, &follow(t.league), None).await;
    let mut silent = Sse::open(&anyone, &follow(quiet.league), None).await;
    let games_url = app.url(&format!("/api/v1/tables/{}/games", t.table));
    for n in 1..=4 {
        let game = post(
            &owner,
            games_url.clone(),
            json!({"number": n, "outcome": "mahjong", "winner": t.players[n as usize % 4], "hand": WIN, "won_by": "self_pick"}),
        )
        .await;
        let e = stream
            .next(Duration::from_secs(5))
            .await
            .unwrap_or_else(|| panic!("game {n} never reached the other instance's stream"));
        assert_eq!(e.kind, "game.recorded");
        assert_eq!(e.data["data"], game);
        let s = stream.next(Duration::from_secs(5)).await.unwrap();
        assert_eq!(s.kind, "standings.changed");
    }
    close_night(&app, &owner, t.night).await;
    let e = stream
        .next(Duration::from_secs(5))
        .await
        .expect("the night closed on the other instance's stream");
    assert_eq!(e.kind, "night.closed");
    assert_eq!(e.data["data"]["night"], t.night);
    let nothing = silent.drain(Duration::from_millis(600)).await;
    assert!(
        nothing.is_empty(),
        "a league with no news got {:?}",
        nothing.iter().map(|e| &e.kind).collect::<Vec<_>>()
    );
}
