//! Tournament-day pages in a real headless Chromium, driven as staff and players would: check-in
//! at the door for 300 players (search, one tap each, a scanner typing a badge code, a late
//! registration), where do I sit on a phone and on the projector, the live standings projector
//! updating by itself and catching up after the network drops, the officials' round status and
//! timer, printing and badges. axe-core runs on every page.

#[path = "common/browser.rs"]
mod browser;
mod common;

use std::time::{Duration, Instant};

use browser::{
    Gate, Hands, axe, browser, click, fill, log_in, printed_pages, shots, text_of, type_keys,
    wait_text,
};
use common::{PASSWORD, TestApp, club_owner, spawn_app};
use fantoccini::{Client, Locator};
use serde_json::{Value, json};

const WIN: &str = "F F 2B 2B J 2B 4C 4C 6C 6C 8B 8B J 8B";

async fn ok(req: reqwest::RequestBuilder) -> Value {
    let res = req.send().await.unwrap();
    let status = res.status();
    let text = res.text().await.unwrap();
    assert!(status.is_success(), "{status}: {text}");
    serde_json::from_str(&text).unwrap_or(Value::Null)
}

struct Day {
    owner: reqwest::Client,
    league: i64,
    night: i64,
    players: Vec<(i64, String)>,
}

/// A public tournament of `n` registered players with its first round started.
async fn tournament(app: &TestApp, n: usize) -> Day {
    let owner = club_owner(app, "open", "director@example.org").await;
    let mut players = Vec::new();
    for i in 1..=n {
        let name = format!("Player {i:03}");
        let p = ok(owner
            .post(app.url("/api/v1/clubs/open/players"))
            .json(&json!({ "name": name })))
        .await;
        players.push((p["id"].as_i64().unwrap(), name));
    }
    let league = ok(owner.post(app.url("/api/v1/clubs/open/leagues")).json(&json!({
        "name": "Spring Open", "card": "demo-2026", "ruleset": "tournament", "visibility": "public",
        "kind": "tournament"
    })))
    .await["id"]
        .as_i64()
        .unwrap();
    let night = ok(owner
        .post(app.url(&format!("/api/v1/leagues/{league}/nights")))
        .json(&json!({"date": "2026-05-02"})))
    .await["id"]
        .as_i64()
        .unwrap();
    Day {
        owner,
        league,
        night,
        players,
    }
}

async fn no_serious_problems(c: &Client, page: &str) {
    let (rules, serious) = axe(c).await;
    assert!(rules > 10, "axe ran its rules on {page}");
    assert_eq!(
        serious,
        json!([]),
        "serious accessibility problems on {page}"
    );
}

/// The page at a tablet's width (820×1180) too: a screenshot to look at, and axe again there.
async fn at_tablet_width(c: &Client, name: &str) {
    c.set_window_size(820, 1180).await.unwrap();
    let png = c.screenshot().await.unwrap();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("{name}-tablet.png")), png).unwrap();
    no_serious_problems(c, &format!("{name} at 820 px")).await;
}

/// The pages of a PDF (each page object says `/Type /Page`; the tree says `/Type /Pages`).
async fn visible_rows(c: &Client, css: &str) -> usize {
    c.execute(
        "return Array.from(document.querySelectorAll(arguments[0])).filter(e => !e.hidden && e.offsetParent !== null).length;",
        vec![json!(css)],
    )
    .await
    .unwrap()
    .as_u64()
    .unwrap() as usize
}

async fn checked_in(app: &TestApp, day: &Day) -> Vec<i64> {
    let night = ok(day
        .owner
        .get(app.url(&format!("/api/v1/nights/{}", day.night))))
    .await;
    night["checkins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_i64().unwrap())
        .collect()
}

#[tokio::test]
async fn check_in_at_the_door_takes_one_tap_per_player_for_three_hundred() {
    let app = spawn_app().await;
    let day = tournament(&app, 300).await;
    let (_driver, c) = browser().await;
    c.set_window_size(390, 844).await.unwrap();
    log_in(
        &c,
        &app.address,
        "director@example.org",
        PASSWORD,
        &format!("/nights/{}/door", day.night),
    )
    .await;
    assert!(
        text_of(&c, "#door-count")
            .await
            .contains("0 of 300 checked in · 300 still missing")
    );
    shots(&c, "door").await;
    at_tablet_width(&c, "door").await;
    c.set_window_size(390, 844).await.unwrap();
    no_serious_problems(&c, "the door").await;

    // Search as you type: a name narrows 300 to one; Enter checks that one in.
    let mut hands = Hands::new(&c);
    hands.type_into("#door-search", "player 123").await;
    assert_eq!(visible_rows(&c, "#door-list li").await, 1);
    type_keys(&c, "\u{E007}").await; // Enter
    wait_text(&c, "#door-count", "Player 123 checked in.").await;
    assert!(
        text_of(&c, "#door-count")
            .await
            .contains("1 of 300 checked in · 299 still missing")
    );
    // The box is cleared for the next arrival and the list is whole again.
    assert_eq!(visible_rows(&c, "#door-list li").await, 300);

    // One tap on a name in the list, narrowed by part of the name.
    hands.type_into("#door-search", "045").await;
    let target = day.players[44].0; // Player 045
    hands
        .tap(&format!("#door-list li[data-player='{target}'] button"))
        .await;
    wait_text(&c, "#door-count", "Player 045 checked in.").await;
    assert_eq!(
        text_of(&c, &format!("#door-list li[data-player='{target}'] .state")).await,
        "checked in"
    );

    // The box is empty and has the focus again, ready for the next arrival: a USB scanner types
    // a badge's code and Enter.
    assert_eq!(
        c.execute(
            "return document.activeElement.id + '|' + document.activeElement.value;",
            vec![]
        )
        .await
        .unwrap(),
        json!("door-search|")
    );
    let badge = day.players[199].0;
    type_keys(&c, &format!("MJL-{badge}\u{E007}")).await;
    wait_text(&c, "#door-count", "Player 200 checked in.").await;
    assert!(text_of(&c, "#door-count").await.contains("3 of 300"));
    // The same badge twice does not count twice.
    type_keys(&c, &format!("MJL-{badge}\u{E007}")).await;
    wait_text(&c, "#door-count", "already checked in").await;
    // A badge of no player here: said so, and the next scan is read alone, not added to it.
    type_keys(&c, "MJL-999999\u{E007}").await;
    wait_text(
        &c,
        "#door-count",
        "Badge MJL-999999 is not a player of this club",
    )
    .await;
    let next = day.players[200].0;
    type_keys(&c, &format!("MJL-{next}\u{E007}")).await;
    wait_text(&c, "#door-count", "Player 201 checked in.").await;
    click(&c, &format!("#door-list li[data-player='{next}'] button")).await;
    wait_text(&c, "#door-count", "Player 201 checked out.").await;
    click(&c, "#door-search").await;
    let mut stored = checked_in(&app, &day).await;
    stored.sort_unstable();
    let mut want = vec![day.players[122].0, target, badge];
    want.sort_unstable();
    assert_eq!(stored, want, "the three check-ins are stored");
    // Each arrival took at most two taps (the box and the name) and no scroll.
    assert!(hands.taps <= 3, "taps: {}", hands.taps);
    assert_eq!(hands.scrolls, 0);

    // Who is still missing: the three are not listed.
    click(&c, "input[name=show][value=missing]").await;
    assert_eq!(visible_rows(&c, "#door-list li").await, 297);
    click(&c, "input[name=show][value=in]").await;
    assert_eq!(visible_rows(&c, "#door-list li").await, 3);

    // A tap on someone checked in by mistake checks them out again.
    click(&c, &format!("#door-list li[data-player='{badge}'] button")).await;
    wait_text(&c, "#door-count", "Player 200 checked out.").await;
    assert!(text_of(&c, "#door-count").await.contains("2 of 300"));

    // Late registration from the same screen.
    fill(&c, "#register-name", "Walk-in Wanda").await;
    click(&c, "#register button[type=submit]").await;
    wait_text(&c, ".flash.ok", "Walk-in Wanda registered and checked in.").await;
    assert!(
        text_of(&c, "#door-count")
            .await
            .contains("3 of 301 checked in · 298 still missing")
    );
    no_serious_problems(&c, "the door after a registration").await;

    // Badges: one per player with a QR code drawn as SVG, its code beside it.
    c.goto(&app.url(&format!("/leagues/{}/badges", day.league)))
        .await
        .unwrap();
    let badges = c
        .find_all(Locator::Css(".badge .badge-qr svg"))
        .await
        .unwrap();
    assert_eq!(badges.len(), 301);
    assert!(
        text_of(&c, ".badges")
            .await
            .contains(&format!("MJL-{}", day.players[0].0))
    );
    no_serious_problems(&c, "badges").await;
    at_tablet_width(&c, "badges").await;
    // Printed, eight badges to every page, on Letter and on A4: 301 badges are 38 pages.
    for (paper, size) in [
        ("Letter", fantoccini::wd::PrintSize::US_LETTER),
        ("A4", fantoccini::wd::PrintSize::A4),
    ] {
        assert_eq!(
            printed_pages(&c, size).await,
            301usize.div_ceil(8),
            "{paper}"
        );
    }
    c.close().await.unwrap();
}

#[tokio::test]
async fn players_find_their_seat_and_the_projector_follows_every_game() {
    let app = spawn_app().await;
    let day = tournament(&app, 16).await;
    for (p, _) in &day.players {
        ok(day
            .owner
            .put(app.url(&format!("/api/v1/nights/{}/checkins/{p}", day.night))))
        .await;
    }
    let proposed = ok(day
        .owner
        .post(app.url(&format!("/api/v1/nights/{}/seating", day.night)))
        .json(&json!({})))
    .await;
    let locked = ok(day
        .owner
        .put(app.url(&format!("/api/v1/nights/{}/tables", day.night)))
        .json(&json!({"tables": proposed["proposal"]["tables"]})))
    .await;
    let tables: Vec<(i64, Vec<i64>)> = locked["tables"]
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
    let (_driver, c) = browser().await;

    // A player on a phone, not logged in: types their name, sees table and seat.
    c.set_window_size(390, 844).await.unwrap();
    c.goto(&app.url(&format!("/nights/{}/seats", day.night)))
        .await
        .unwrap();
    let mut hands = Hands::new(&c);
    hands.type_into("#seat-search", "007").await;
    assert_eq!(visible_rows(&c, "#seat-list li").await, 1);
    let mine = text_of(&c, "#seat-list li:not([hidden])").await;
    let seven = day.players[6].0;
    let (number, seat) = locked["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|t| {
            t["seats"]
                .as_array()
                .unwrap()
                .iter()
                .find(|s| s["player"]["id"] == seven)
                .map(|s| {
                    (
                        t["number"].as_i64().unwrap(),
                        s["seat"].as_str().unwrap().to_string(),
                    )
                })
        })
        .unwrap();
    assert!(
        mine.contains("Player 007") && mine.contains(&format!("Table {number} · seat {seat}")),
        "{mine}"
    );
    assert_eq!((hands.taps, hands.scrolls), (1, 0));
    shots(&c, "seats").await;
    c.set_window_size(390, 844).await.unwrap();
    no_serious_problems(&c, "where do I sit").await;
    at_tablet_width(&c, "seats").await;

    // The seats on the projector: large type, turning pages by itself when they do not fit.
    c.set_window_size(1280, 500).await.unwrap();
    c.goto(&app.url(&format!("/nights/{}/seats?screen=1", day.night)))
        .await
        .unwrap();
    wait_text(&c, "#pager-status", "Page 1 of").await;
    let first = visible_rows(&c, "#pager-items li").await;
    assert!(first > 0 && first < 16, "{first} names on the first page");
    wait_text(&c, "#pager-status", "Page 2 of").await;
    shots(&c, "seats-screen").await;
    no_serious_problems(&c, "the seats projector").await;

    // The officials start the round timer on the status page.
    log_in(
        &c,
        &app.address,
        "director@example.org",
        PASSWORD,
        &format!("/nights/{}/status", day.night),
    )
    .await;
    assert!(
        text_of(&c, "#status-summary")
            .await
            .contains("0 of 4 tables done")
    );
    c.find(Locator::Css("#timer-minutes"))
        .await
        .unwrap()
        .clear()
        .await
        .unwrap();
    fill(&c, "#timer-minutes", "75").await;
    click(&c, "#timer form.row button[type=submit]").await;
    wait_text(&c, ".flash.ok", "Timer running").await;
    wait_text(&c, "#round-timer", "left").await;
    shots(&c, "round-status").await;
    no_serious_problems(&c, "round status").await;
    at_tablet_width(&c, "round-status").await;

    // The standings projector, through a link that can be cut like a venue's Wi-Fi.
    let gate = Gate::to(&app.address).await;
    c.set_window_size(1280, 720).await.unwrap();
    c.goto(&gate.url(&format!("/leagues/{}/screen", day.league)))
        .await
        .unwrap();
    wait_text(&c, "#live", "Live").await;
    wait_text(&c, "#round-timer", "Round 1 · 1:1").await;
    let game = |t: usize, n: i64| {
        let (id, seats) = &tables[t];
        day.owner
            .post(app.url(&format!("/api/v1/tables/{id}/games")))
            .json(&json!({"number": n, "outcome": "mahjong", "winner": seats[1], "hand": WIN, "won_by": "self_pick"}))
    };
    let winner_of = |t: usize| {
        let id = tables[t].1[1];
        day.players.iter().find(|p| p.0 == id).unwrap().1.clone()
    };
    ok(game(0, 1)).await;
    let saved = Instant::now();
    wait_text(&c, "#latest", &format!("game 1: {} won", winner_of(0))).await;
    wait_text(&c, "#pager-items tr:first-child th", &winner_of(0)).await;
    assert!(
        saved.elapsed() < Duration::from_secs(2),
        "on screen {:?} after saving",
        saved.elapsed()
    );
    shots(&c, "standings-screen").await;
    no_serious_problems(&c, "the standings projector").await;

    // The network drops; a game is saved meanwhile; when it is back, the screen catches up by
    // itself (the stream resumes from the last event it had).
    gate.set_open(false);
    wait_text(&c, "#live", "Reconnecting").await;
    ok(game(1, 1)).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    gate.set_open(true);
    wait_text(
        &c,
        "#latest",
        &format!("Table {}, game 1: {} won", 2, winner_of(1)),
    )
    .await;
    let leaders = wait_text(&c, "#pager-items", &winner_of(1)).await;
    assert!(
        leaders.contains(&winner_of(0)) && leaders.contains(&winner_of(1)),
        "{leaders}"
    );
    // The two winners are equal on points, wins and deal-ins and never met: the projector
    // (redrawn from the stream) says their rank is shared and why.
    for row in 1..=2 {
        let css = format!("#pager-items tr:nth-child({row})");
        let tie = wait_text(&c, &format!("{css} td.tie"), "shared").await;
        assert_eq!(tie, "shared (head-to-head 0)");
        assert!(text_of(&c, &format!("{css} td")).await.starts_with("T1"));
    }

    // Score sheets and tent cards: one table to a printed page.
    c.goto(&app.url(&format!("/nights/{}/print", day.night)))
        .await
        .unwrap();
    assert_eq!(
        c.find_all(Locator::Css("article.score-sheet"))
            .await
            .unwrap()
            .len(),
        4
    );
    no_serious_problems(&c, "score sheets").await;
    at_tablet_width(&c, "score-sheets").await;
    c.goto(&app.url(&format!("/nights/{}/print?what=tents", day.night)))
        .await
        .unwrap();
    assert_eq!(
        c.find_all(Locator::Css("article.tent"))
            .await
            .unwrap()
            .len(),
        4
    );
    shots(&c, "tent-cards").await;
    no_serious_problems(&c, "tent cards").await;
    c.close().await.unwrap();
}

/// Every page of a night and its messages call it by the league's word: "Round 1" in a
/// tournament, "Night 1" in a league — never the other.
#[tokio::test]
async fn a_tournament_says_round_and_a_league_says_night_on_every_page() {
    let app = spawn_app().await;
    let day = tournament(&app, 8).await;
    let league = ok(day
        .owner
        .post(app.url("/api/v1/clubs/open/leagues"))
        .json(&json!({"name": "Tuesday league", "card": "demo-2026", "ruleset": "nmjl-money"})))
    .await;
    assert_eq!(league["kind"], "league", "a league unless told: {league}");
    let weekly = league["id"].as_i64().unwrap();
    let weekly_night = ok(day
        .owner
        .post(app.url(&format!("/api/v1/leagues/{weekly}/nights")))
        .json(&json!({"date": "2026-05-05"})))
    .await["id"]
        .as_i64()
        .unwrap();
    let shown = ok(day
        .owner
        .get(app.url(&format!("/api/v1/leagues/{}", day.league))))
    .await;
    assert_eq!(shown["kind"], "tournament");
    // The same players in both, seated, a table each to score at.
    let mut tables = Vec::new();
    for (league, night) in [(day.league, day.night), (weekly, weekly_night)] {
        for (p, _) in &day.players {
            ok(day
                .owner
                .put(app.url(&format!("/api/v1/nights/{night}/checkins/{p}"))))
            .await;
        }
        let proposed = ok(day
            .owner
            .post(app.url(&format!("/api/v1/nights/{night}/seating")))
            .json(&json!({})))
        .await;
        let locked = ok(day
            .owner
            .put(app.url(&format!("/api/v1/nights/{night}/tables")))
            .json(&json!({"tables": proposed["proposal"]["tables"]})))
        .await;
        tables.push((league, night, locked["tables"][0]["id"].as_i64().unwrap()));
    }
    for (league, night, table) in tables {
        let (word, other) = if league == day.league {
            ("Round", "Night")
        } else {
            ("Night", "Round")
        };
        for path in [
            format!("/nights/{night}"),
            format!("/nights/{night}/door"),
            format!("/nights/{night}/status"),
            format!("/nights/{night}/seats"),
            format!("/nights/{night}/seats?screen=1"),
            format!("/nights/{night}/print"),
            format!("/leagues/{league}"),
            format!("/tables/{table}/score"),
        ] {
            let res = day.owner.get(app.url(&path)).send().await.unwrap();
            assert!(res.status().is_success(), "{path}: {}", res.status());
            let html = res.text().await.unwrap();
            assert!(html.contains(&format!("{word} 1")), "{path} says {word} 1");
            assert!(
                !html.contains(&format!("{other} 1"))
                    && !html.contains(&format!("{} 1", other.to_lowercase())),
                "{path} never says {other} 1"
            );
        }
        // Closed, a game sent to it is refused in the same words.
        ok(day
            .owner
            .post(app.url(&format!("/api/v1/nights/{night}/close"))))
        .await;
        let res = day
            .owner
            .post(app.url(&format!("/api/v1/tables/{table}/games")))
            .json(&json!({"number": 1, "outcome": "wall"}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 409);
        let problem: Value = res.json().await.unwrap();
        assert!(
            problem["detail"]
                .as_str()
                .unwrap()
                .starts_with(&format!("{word} 1 is closed")),
            "{problem}"
        );
        assert_eq!(problem["night_closed"]["number"], 1);
        let page = day
            .owner
            .get(app.url(&format!("/tables/{table}/score")))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(page.contains(&format!("{word} 1 is closed")), "{word}");
    }
    // Settings change the word: the tournament made a league reads "Night 1".
    let changed = ok(day
        .owner
        .patch(app.url(&format!("/api/v1/leagues/{}", day.league)))
        .json(&json!({"kind": "league"})))
    .await;
    assert_eq!(changed["kind"], "league");
    let html = day
        .owner
        .get(app.url(&format!("/nights/{}", day.night)))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(html.contains("<h1>Night 1</h1>"), "{html}");
    // Anything else is refused, naming the field.
    let res = day
        .owner
        .patch(app.url(&format!("/api/v1/leagues/{}", day.league)))
        .json(&json!({"kind": "cup"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 422);
    let problem: Value = res.json().await.unwrap();
    assert!(
        problem.to_string().contains("league, tournament or open"),
        "{problem}"
    );
}
