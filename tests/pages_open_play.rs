//! Open play as its members use it, in headless Chromium on phones (390×844) and an organizer's
//! tablet (820×1180): Ann proposes a match on *Find a match*, Bea, Cy and Dot each join it from
//! their own phone with one tap, the fourth locks it and all four are mailed; Ann enters the
//! four games on the scoring screen (one of them while her phone has no network); Bea and Cy
//! confirm or dispute each game on the match's page, and Dot, who never logs in, confirms the
//! three left from the mail's link with one tap; the league page says how many games wait; an
//! organizer settles the dispute, then takes a player out of another match and calls it off;
//! the season average shows "3 of 6" under its minimum; and axe-core runs on every page at both
//! widths.

#[path = "common/browser.rs"]
mod browser;
mod common;

use browser::*;
use chrono::{Duration, Utc};
use common::{PASSWORD, club_owner, member_as, spawn_app};
use fantoccini::{Client, Locator};
use serde_json::{Value, json};

const PHONE: (u32, u32) = (390, 844);
const TABLET: (u32, u32) = (820, 1180);
/// 2468#2 self-picked, concealed: 25 from each of the three others, twice.
const SELF_PICK: [&str; 14] = [
    "F", "F", "2B", "2B", "2B", "2B", "4C", "4C", "6C", "6C", "8B", "8B", "8B", "8B",
];

async fn check_axe(c: &Client, at: &str) {
    let (rules, found) = axe(c).await;
    assert!(rules > 10, "axe ran ({rules} rules)");
    assert_eq!(found, json!([]), "axe at {at}");
}

/// Screenshots and axe at tablet and phone widths; the window is `back` afterwards.
async fn look(c: &Client, name: &str, back: (u32, u32)) {
    shots(c, name).await;
    for (w, h) in [TABLET, PHONE] {
        c.set_window_size(w, h).await.unwrap();
        let shot = c.screenshot().await.unwrap();
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
        std::fs::write(dir.join(format!("{name}-{w}.png")), shot).unwrap();
        check_axe(c, &format!("{name} at {w} px")).await;
    }
    c.set_window_size(back.0, back.1).await.unwrap();
}

/// Another person's phone: a browser with nobody's cookies, logged in as `email`.
async fn phone_of(c: &Client, base: &str, email: &str, next: &str) {
    c.delete_all_cookies().await.unwrap();
    c.set_window_size(PHONE.0, PHONE.1).await.unwrap();
    log_in(c, base, email, PASSWORD, next).await;
}

/// Ann, Bea, Cy and Dot: members of `tiles` by invitation, each linked to a player of that name
/// (their clients, and the players' ids in that order).
async fn four_members(
    app: &common::TestApp,
    owner: &reqwest::Client,
) -> (Vec<reqwest::Client>, Vec<i64>) {
    let mut ids = Vec::new();
    let mut clients = Vec::new();
    for name in ["Ann", "Bea", "Cy", "Dot"] {
        let email = format!("{}@example.org", name.to_lowercase());
        let p: Value = owner
            .post(app.url("/api/v1/clubs/tiles/players"))
            .json(&json!({ "name": name }))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let id = p["id"].as_i64().unwrap();
        clients.push(member_as(app, owner, "tiles", &email, id).await);
        ids.push(id);
    }
    (clients, ids)
}

async fn flash(c: &Client, want: &str) -> String {
    wait_text(c, ".flash.ok", want).await
}

#[tokio::test]
async fn members_arrange_a_match_one_enters_the_games_the_others_confirm_and_an_organizer_settles()
{
    let app = spawn_app().await;
    let owner = club_owner(&app, "tiles", "owner@example.org").await;
    sqlx::query("UPDATE clubs SET time_zone = 'America/New_York' WHERE slug = 'tiles'")
        .execute(&app.db)
        .await
        .unwrap();
    let league: Value = owner
        .post(app.url("/api/v1/clubs/tiles/leagues"))
        .json(&json!({"name": "Open play", "card": "demo-2026", "ruleset": "nmjl-money", "kind": "open",
                      "board": "best_per_week", "best_per_week": 2, "min_games": 6, "visibility": "public"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let league = league["id"].as_i64().unwrap();
    let (clients, ids) = four_members(&app, &owner).await;
    let (ann, bea, cy) = (ids[0], ids[1], ids[2]);
    let base = app.address.clone();
    let (_driver, c) = browser().await;

    // Ann, on her phone: the league page leads to Find a match, where she proposes one.
    phone_of(&c, &base, "ann@example.org", &format!("/leagues/{league}")).await;
    let mut h = Hands::new(&c);
    h.tap("a.button[href$='/matches']").await;
    wait_text(&c, "h1", "Find a match").await;
    wait_text(&c, "#open", "No open matches").await;
    let day = (Utc::now() + Duration::days(2)).date_naive();
    c.execute(
        "document.getElementById('m-date').value = arguments[0];",
        vec![json!(day.to_string())],
    )
    .await
    .unwrap();
    h.type_into("#m-place", "Ann's kitchen, 12 Elm St").await;
    h.tap("#propose button[type=submit]").await;
    let said = flash(&c, "is open").await;
    assert!(said.contains("Ann's kitchen"), "{said}");
    wait_text(&c, "#match-status", "3 seats open").await;
    let match_id: i64 = c
        .current_url()
        .await
        .unwrap()
        .path()
        .trim_start_matches("/matches/")
        .parse()
        .unwrap();
    look(&c, "open-match-forming", PHONE).await;

    // Bea, Cy and Dot each find it on their own phone and join with one tap.
    for (i, email) in ["bea@example.org", "cy@example.org", "dot@example.org"]
        .iter()
        .enumerate()
    {
        phone_of(&c, &base, email, &format!("/leagues/{league}/matches")).await;
        let item = format!("#match-{match_id}");
        let text = wait_text(&c, &item, "Ann's kitchen").await;
        assert!(text.contains("14:00"), "{text}");
        if i == 0 {
            look(&c, "find-a-match", PHONE).await;
        }
        let mut h = Hands::new(&c);
        h.tap(&format!("{item} button[type=submit]")).await;
        assert_eq!(h.taps, 1, "one tap to join");
        if i < 2 {
            flash(&c, "You are in").await;
        } else {
            let full = flash(&c, "the table is full").await;
            assert!(full.contains("Ann, Bea, Cy and Dot"), "{full}");
        }
    }
    wait_text(&c, "#match-status", "Full: the match is on").await;
    // All four are mailed.
    let mailed: Vec<String> = sqlx::query_scalar(
        "SELECT to_address FROM mail_outbox WHERE kind = 'match' ORDER BY to_address",
    )
    .fetch_all(&app.db)
    .await
    .unwrap();
    assert_eq!(
        mailed,
        [
            "ann@example.org",
            "bea@example.org",
            "cy@example.org",
            "dot@example.org"
        ]
    );

    // Ann enters the four games on her phone from the match's page. Game 2 goes while her
    // phone has no network: kept on the phone, and sent once when the network is back.
    let table = owner
        .get(app.url(&format!("/api/v1/matches/{match_id}")))
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap()["table"]
        .as_i64()
        .unwrap();
    let stored = async || -> i64 {
        sqlx::query_scalar("SELECT count(*) FROM games WHERE table_id = $1")
            .bind(table)
            .fetch_one(&app.db)
            .await
            .unwrap()
    };
    phone_of(
        &c,
        &base,
        "ann@example.org",
        &format!("/matches/{match_id}"),
    )
    .await;
    click(&c, "a.button[href$='/score']").await;
    wait_text(&c, "h1", "game 1").await;
    wait_for(&c, "#score[data-table] .entry-modes:not([hidden])").await;
    let winners = [Some(ann), Some(bea), None, Some(cy)];
    for (i, winner) in winners.iter().enumerate() {
        let n = i + 1;
        wait_text(&c, "h1", &format!("game {n}")).await;
        let offline = n == 2;
        if offline {
            c.issue_cmd(Network { offline: true }).await.unwrap();
        }
        match winner {
            Some(w) => {
                click(&c, &format!("input[name=won][value='{w}']")).await;
                click(&c, "input[name=how][value=self_pick]").await;
                for tile in SELF_PICK {
                    click(&c, &format!("#picker button[data-tile='{tile}']")).await;
                }
            }
            None => click(&c, "input[name=won][value=wall]").await,
        }
        if offline {
            wait_text(&c, "#verdict", "Not checked: no network").await;
            save(&c).await;
            wait_text(&c, "#queue-title", "1 game").await;
            assert_eq!(stored().await, 1, "nothing reached the server");
            c.issue_cmd(Network { offline: false }).await.unwrap();
            c.execute("window.dispatchEvent(new Event('online'));", vec![])
                .await
                .unwrap();
            for _ in 0..100 {
                if stored().await == 2 {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
            assert_eq!(stored().await, 2, "the kept game was sent");
        } else {
            save(&c).await;
            wait_text(&c, "#sent", &format!("Saved game {n}")).await;
        }
    }
    let all = wait_text(&c, "#all-played", "match's page").await;
    assert!(all.contains("confirm"), "{all}");
    assert_eq!(stored().await, 4, "each game stored once");

    // Bea confirms games 1 to 3 and disputes game 4, on the match's page: the league page
    // tells her four games wait for her, and takes her there.
    phone_of(&c, &base, "bea@example.org", &format!("/leagues/{league}")).await;
    let told = wait_text(&c, "#to-answer", "4 games of your match").await;
    assert!(told.contains("Ann's kitchen"), "{told}");
    click(&c, "#to-answer a").await;
    wait_text(&c, "h1", "Match:").await;
    look(&c, "open-match-games", PHONE).await;
    for n in 1..=3 {
        let mut h = Hands::new(&c);
        let button = "form[action$='/confirm'] button";
        wait_for(&c, button).await;
        let label = text_of(&c, button).await;
        assert_eq!(label, format!("Confirm game {n}"));
        h.tap(button).await;
        let said = flash(&c, &format!("Confirmed. Game {n} ")).await;
        assert!(said.contains("still waits for"), "{said}");
        assert!(h.scrolls <= 1, "game {n}: {} scrolls to confirm", h.scrolls);
    }
    let mut h = Hands::new(&c);
    h.tap("details:has(form[action$='/dispute']) summary").await;
    h.type_into(
        "form[action$='/dispute'] textarea",
        "Cy went out on my discard, it was not self-picked",
    )
    .await;
    h.tap("form[action$='/dispute'] button").await;
    let said = flash(&c, "Disputed").await;
    assert!(said.contains("Game 4"), "{said}");
    wait_text(&c, "main", "waits for an organizer").await;

    // Cy confirms what he agrees with on the match's page.
    phone_of(&c, &base, "cy@example.org", &format!("/matches/{match_id}")).await;
    for n in 1..=3 {
        let button = "form[action$='/confirm'] button";
        wait_for(&c, button).await;
        click(&c, button).await;
        flash(&c, &format!("Confirmed. Game {n} ")).await;
    }
    assert!(
        c.find(Locator::Css("form[action$='/confirm'] button"))
            .await
            .is_err(),
        "nothing left to confirm"
    );

    // Dot never logs in: once the table has been quiet a while, she is mailed a link, and on
    // her phone one tap confirms the three games waiting for her; with it they count.
    sqlx::query("UPDATE games SET updated_at = now() - interval '11 minutes' WHERE table_id = $1")
        .bind(table)
        .execute(&app.db)
        .await
        .unwrap();
    let mut asked: Vec<(String, String)> = Vec::new();
    for _ in 0..150 {
        asked = sqlx::query_as(
            "SELECT to_address, text_body FROM mail_outbox WHERE kind = 'match_words' ORDER BY id",
        )
        .fetch_all(&app.db)
        .await
        .unwrap();
        if !asked.is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(asked.len(), 1, "only Dot has games to answer: {asked:?}");
    assert_eq!(asked[0].0, "dot@example.org");
    let link = asked[0]
        .1
        .split_whitespace()
        .find(|w| w.contains("/word/"))
        .expect("the link in the mail")
        .to_string();
    c.delete_all_cookies().await.unwrap();
    c.set_window_size(PHONE.0, PHONE.1).await.unwrap();
    c.goto(&link).await.unwrap();
    wait_text(&c, "#your-word", "Hello Dot").await;
    look(&c, "open-match-word-link", PHONE).await;
    let mut h = Hands::new(&c);
    h.tap("#your-word button[value=confirm]").await;
    let said = flash(&c, "You confirmed games 1, 2 and 3.").await;
    assert!(said.contains("count now"), "{said}");
    assert_eq!((h.taps, h.scrolls), (1, 0), "one tap, nothing to scroll");
    wait_text(
        &c,
        "#your-word",
        "No game of this match waits for your word",
    )
    .await;

    // The league page: one game waits for an organizer; the board counts the other three.
    c.goto(&app.url(&format!("/leagues/{league}")))
        .await
        .unwrap();
    let waiting = wait_text(&c, "#awaiting", "1 disputed game waits for an organizer").await;
    assert!(!waiting.contains("confirm them"), "{waiting}");
    // The season average: nobody has 6 games, so each shows how many they have.
    let avg = text_of(&c, "#season-average").await;
    assert!(avg.contains("3 of 6"), "{avg}");
    look(&c, "open-league", PHONE).await;
    // On a phone the weekly board's first columns are rank, player, counted points and this
    // week, all on screen without a swipe.
    c.set_window_size(PHONE.0, PHONE.1).await.unwrap();
    c.execute(
        "document.getElementById('standings').scrollIntoView();",
        vec![],
    )
    .await
    .unwrap();
    let fits = c
        .execute(
            "const th = document.querySelectorAll('#standings thead th')[3];
             const r = th.getBoundingClientRect();
             return [th.textContent, r.right <= window.innerWidth];",
            vec![],
        )
        .await
        .unwrap();
    assert!(fits[0].as_str().unwrap().contains("This week"), "{fits}");
    assert_eq!(
        fits[1],
        json!(true),
        "this week's column is on a phone's screen: {fits}"
    );
    std::fs::write(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("target/screenshots/open-board-phone.png"),
        c.screenshot().await.unwrap(),
    )
    .unwrap();
    // A club website's embed says so too.
    c.goto(&app.url(&format!("/leagues/{league}/embed")))
        .await
        .unwrap();
    wait_text(&c, "#embed-waiting", "1 game is not counted yet").await;

    // The organizer, on a tablet, sees the dispute with Bea's reason and voids game 4.
    c.delete_all_cookies().await.unwrap();
    c.set_window_size(TABLET.0, TABLET.1).await.unwrap();
    log_in(
        &c,
        &base,
        "owner@example.org",
        PASSWORD,
        &format!("/matches/{match_id}"),
    )
    .await;
    let game4 = text_of(&c, "li.game-item:last-child").await;
    assert!(game4.contains("Disputed"), "{game4}");
    assert!(game4.contains("Bea: ✗ disputed"), "{game4}");
    assert!(game4.contains("not self-picked"), "{game4}");
    look(&c, "open-match-dispute", TABLET).await;
    // The organizer corrects it: the correction ends back on the match, saying whose word it
    // waits for now, with one tap to count it as corrected.
    let mut h = Hands::new(&c);
    h.tap("li.game-item:last-child a[href$='/edit']").await;
    wait_text(&c, "h1", "game 4").await;
    h.tap("form button.big[type=submit]").await;
    let said = flash(&c, "Game 4 corrected. It counts once").await;
    assert!(said.contains("(each asked by mail now)"), "{said}");
    assert_eq!(
        c.current_url().await.unwrap().path(),
        format!("/matches/{match_id}")
    );
    wait_text(
        &c,
        "li.game-item:last-child button[value=count]",
        "Count game 4 as corrected",
    )
    .await;
    assert_eq!(h.taps, 2, "two taps from the match to the match again");
    look(&c, "open-match-corrected", TABLET).await;
    click(&c, "li.game-item:last-child button[value=void]").await;
    let said = flash(&c, "Voided").await;
    assert!(said.contains("Game 4"), "{said}");
    c.goto(&app.url(&format!("/leagues/{league}")))
        .await
        .unwrap();
    wait_for(&c, "#standings").await;
    assert!(
        c.find(Locator::Css("#awaiting")).await.is_err(),
        "nothing waits any more"
    );
    let standings = text_of(&c, "#standings").await;
    assert!(standings.contains("Weeks"), "{standings}");

    // Another match forms (Bea and Cy); on the tablet the organizer takes Cy out of it, then
    // calls it off: each time the players are mailed the reason, and the page says so.
    let other: Value = clients[1]
        .post(app.url(&format!("/api/v1/leagues/{league}/matches")))
        .json(&json!({"date": day, "time": "19:30", "place": "Club room"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let other = other["id"].as_i64().unwrap();
    let res = clients[2]
        .post(app.url(&format!("/api/v1/matches/{other}/join")))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "Cy joins");
    c.goto(&app.url(&format!("/matches/{other}")))
        .await
        .unwrap();
    wait_text(&c, "#organize", "For organizers").await;
    let mut h = Hands::new(&c);
    h.tap("#organize details:first-of-type summary").await;
    h.tap(&format!("#organize input[name=player][value='{cy}']"))
        .await;
    h.type_into("#remove-reason", "Cy asked us to: he is away that week")
        .await;
    h.tap("#organize form[action$='/remove'] button").await;
    let said = flash(&c, "Cy is out of the match").await;
    assert!(said.contains("told by mail"), "{said}");
    let players = text_of(&c, "#players").await;
    assert!(!players.contains("Cy"), "{players}");
    look(&c, "open-match-organizer", TABLET).await;
    let mut h = Hands::new(&c);
    h.tap("#organize details:last-of-type summary").await;
    h.type_into("#cancel-reason", "The club room is closed for the storm")
        .await;
    h.tap("#organize form[action$='/cancel'] button").await;
    flash(&c, "is called off").await;
    let status = wait_text(&c, "#match-status", "Called off").await;
    assert!(status.contains("closed for the storm"), "{status}");
    assert!(
        c.find(Locator::Css("#organize")).await.is_err(),
        "nothing left to do on a called-off match"
    );
    let told: Vec<String> = sqlx::query_scalar(
        "SELECT to_address FROM mail_outbox WHERE kind = 'match' AND subject LIKE '%called off%' ORDER BY to_address",
    )
    .fetch_all(&app.db)
    .await
    .unwrap();
    assert_eq!(
        told,
        ["bea@example.org"],
        "Bea, the one left in it, is told"
    );
}

/// Consent before a match (issue 51), on phones: Ann proposes a match to Bea, Cy and Dot on
/// *Find a match*; it waits, saying for whom; Bea accepts from her mail's link without logging
/// in (one tap), Cy on the match's page after logging in, and Dot's accept locks it. No table
/// (so no scoring) until then. axe at both widths on each page.
#[tokio::test]
async fn a_match_proposed_to_three_players_is_on_once_each_accepts() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "tiles", "owner@example.org").await;
    let league: Value = owner
        .post(app.url("/api/v1/clubs/tiles/leagues"))
        .json(&json!({"name": "Open play", "card": "demo-2026", "ruleset": "nmjl-money", "kind": "open"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let league = league["id"].as_i64().unwrap();
    let (_, ids) = four_members(&app, &owner).await;
    let base = app.address.clone();
    let (_driver, c) = browser().await;

    phone_of(
        &c,
        &base,
        "ann@example.org",
        &format!("/leagues/{league}/matches"),
    )
    .await;
    wait_text(&c, "h1", "Find a match").await;
    let day = (Utc::now() + Duration::days(3)).date_naive();
    c.execute(
        "document.getElementById('m-date').value = arguments[0];",
        vec![json!(day.to_string())],
    )
    .await
    .unwrap();
    let mut h = Hands::new(&c);
    h.type_into("#m-place", "Ann's kitchen").await;
    h.tap("input[name=kind][value=named]").await;
    for (i, id) in ids[1..].iter().enumerate() {
        c.find(Locator::Css(&format!("#m-player-{}", i + 1)))
            .await
            .unwrap()
            .select_by_value(&id.to_string())
            .await
            .unwrap();
    }
    h.tap("#propose button[type=submit]").await;
    let said = flash(&c, "is proposed to Bea, Cy and Dot").await;
    assert!(said.contains("each has a mail"), "{said}");
    let status = wait_text(&c, "#match-status", "Proposed").await;
    assert!(status.contains("Bea, Cy and Dot"), "{status}");
    assert!(
        c.find(Locator::Css("a[href$='/score']")).await.is_err(),
        "no scoring screen before it is on"
    );
    look(&c, "match-proposed", PHONE).await;
    let match_id: i64 = c
        .current_url()
        .await
        .unwrap()
        .path()
        .trim_start_matches("/matches/")
        .parse()
        .unwrap();

    let link_of = |to: &'static str| {
        let db = app.db.clone();
        async move {
            let body: String = sqlx::query_scalar(
                "SELECT text_body FROM mail_outbox WHERE kind = 'match_proposed' AND to_address = $1",
            )
            .bind(to)
            .fetch_one(&db)
            .await
            .unwrap();
            body.split_whitespace()
                .find(|w| w.contains("/accept/"))
                .expect("the accept link in the mail")
                .to_string()
        }
    };
    // Bea, from her mail, not logged in: one tap.
    c.delete_all_cookies().await.unwrap();
    c.goto(&link_of("bea@example.org").await).await.unwrap();
    wait_text(&c, "#accept", "Accept: I play").await;
    look(&c, "match-accept-link", PHONE).await;
    let mut h = Hands::new(&c);
    h.tap("#accept button").await;
    let said = flash(&c, "You accepted").await;
    assert!(said.contains("Cy and Dot accept too"), "{said}");
    assert_eq!((h.taps, h.scrolls), (1, 0), "one tap from the mail");

    // Cy, logged in, on the match's page.
    phone_of(&c, &base, "cy@example.org", &format!("/matches/{match_id}")).await;
    wait_text(&c, "#players", "has not accepted yet").await;
    let mut h = Hands::new(&c);
    h.tap("#accept button").await;
    let said = flash(&c, "You accepted").await;
    assert!(said.contains("Dot accepts too"), "{said}");

    // Dot's accept locks it: the table is made, and the page says the match is on.
    c.delete_all_cookies().await.unwrap();
    c.goto(&link_of("dot@example.org").await).await.unwrap();
    let mut h = Hands::new(&c);
    h.tap("#accept button").await;
    let said = flash(&c, "all four have").await;
    assert!(said.contains("Ann, Bea, Cy and Dot"), "{said}");
    wait_text(&c, "#match-status", "the match is on").await;
    look(&c, "match-accepted", PHONE).await;
    let locked: (String, Option<i64>) =
        sqlx::query_as("SELECT status, night_id FROM matches WHERE id = $1")
            .bind(match_id)
            .fetch_one(&app.db)
            .await
            .unwrap();
    assert_eq!(locked.0, "locked");
    assert!(locked.1.is_some());
    c.close().await.unwrap();
}
