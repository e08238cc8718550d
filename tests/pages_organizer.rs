//! An organizer's league night on the pages, in headless Chromium: fixing and voiding a game
//! from the night page, a late arrival, seats kept after a refused lock, players added in bulk,
//! league settings, table codes end to end; and every page fits a phone's width.

#[path = "common/browser.rs"]
mod browser;
mod common;

use browser::*;
use common::{PASSWORD, TestApp, club_owner, one_table, spawn_app};
use fantoccini::{Client, Locator};
use serde_json::{Value, json};

async fn api(client: &reqwest::Client, app: &TestApp, path: &str) -> Value {
    client
        .get(app.url(path))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

async fn selected(c: &Client, css: &str) -> String {
    c.find(Locator::Css(css))
        .await
        .unwrap()
        .prop("value")
        .await
        .unwrap()
        .unwrap_or_default()
}

const WIN: &str = "F F 2B 2B 2B 2B 4C 4C 6C 6C 8B 8B 8B 8B";

/// Game 1 at `table`: `winner`'s self-picked `WIN`, entered through the API; its id.
async fn self_pick(app: &TestApp, owner: &reqwest::Client, table: i64, winner: i64) -> i64 {
    let game: Value = owner
        .post(app.url(&format!("/api/v1/tables/{table}/games")))
        .json(&json!({"outcome": "mahjong", "winner": winner, "hand": WIN, "won_by": "self_pick"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    game["id"].as_i64().unwrap()
}

#[tokio::test]
async fn a_game_is_fixed_and_voided_from_the_night_page() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "fix", "org@example.org").await;
    let t = one_table(&app, &owner, "fix", &["Ann", "Bea", "Cy", "Dot"]).await;
    let (ann, bea) = (t.players[0], t.players[1]);
    let id = self_pick(&app, &owner, t.table, ann).await;

    let (_driver, c) = browser().await;
    log_in(&c, &app.address, "org@example.org", PASSWORD, "/").await;
    // Fix is a table's action: a 44 × 44 px target on a phone and on a tablet, and the table's
    // four player columns fit a tablet's card without a sideways scroll.
    for (w, h) in [(390, 844), (820, 1180)] {
        c.set_window_size(w, h).await.unwrap();
        c.goto(&app.url(&format!("/nights/{}", t.night)))
            .await
            .unwrap();
        let m = c
            .execute(
                "const r = document.querySelector('a.fix').getBoundingClientRect();
                 const box = document.querySelector('table.games').closest('.scroll');
                 const last = document.querySelector('table.games thead th:last-child').getBoundingClientRect();
                 return [r.width, r.height, last.right <= box.getBoundingClientRect().right + 0.5];",
                vec![],
            )
            .await
            .unwrap();
        assert!(
            m[0].as_f64().unwrap() >= 44.0 && m[1].as_f64().unwrap() >= 44.0,
            "{w} px: Fix is {} × {}",
            m[0],
            m[1]
        );
        if w == 820 {
            assert_eq!(
                m[2],
                json!(true),
                "the 4th player's column is cut off at {w} px"
            );
        }
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join(format!("night-fix-{w}px.png")),
            c.screenshot().await.unwrap(),
        )
        .unwrap();
    }
    click(&c, &format!("#game-{id} a.fix")).await;
    let now = wait_text(&c, ".now", "Mah Jongg by Ann").await;
    assert!(
        now.contains("self-picked") && now.contains("2468#2"),
        "{now}"
    );
    // It was Bea's hand, won on Cy's discard.
    click(&c, &format!("input[name=won][value='{bea}']")).await;
    click(
        &c,
        &format!("input[name=how][value='discard:{}']", t.players[2]),
    )
    .await;
    click(&c, "form.fix button[type=submit]").await;
    wait_text(&c, ".flash.ok", "Game 1 at table 1 corrected (version 2)").await;
    let row = text_of(&c, &format!("#game-{id}")).await;
    assert!(row.contains("Mah Jongg"), "{row}");
    let stored = api(&owner, &app, &format!("/api/v1/games/{id}")).await;
    assert_eq!(stored["winner"], json!(bea));
    assert_eq!(stored["discarder"], json!(t.players[2]));

    // Changed elsewhere while the page was open: told, and shown the game as it is now.
    click(&c, &format!("#game-{id} a.fix")).await;
    wait_text(&c, ".now", "Mah Jongg by Bea on Cy's discard").await;
    let res = owner
        .put(app.url(&format!("/api/v1/games/{id}")))
        .header("If-Match", "\"2\"")
        .json(&json!({"outcome": "wall"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    click(&c, "form.fix button[type=submit]").await;
    let flash = wait_text(&c, ".flash.bad", "while you were fixing it").await;
    assert!(flash.contains("game 1 at table 1"), "{flash}");
    wait_text(&c, ".now", "Wall game").await;
    let history = text_of(&c, "ol.audit").await;
    assert_eq!(
        history.lines().count(),
        3,
        "recorded, amended twice: {history}"
    );
    assert!(
        history.contains("org@example.org") && history.contains("amended: Wall game"),
        "{history}"
    );
    shots(&c, "game-fix").await;

    // Voiding asks first (a second tap), then the night shows the game voided.
    click(&c, "details.danger summary").await;
    click(&c, "details.danger button.danger").await;
    wait_text(&c, ".flash.ok", "Game 1 at table 1 voided").await;
    let row = text_of(&c, &format!("#game-{id}")).await;
    assert!(row.contains("(voided)"), "{row}");
    assert_eq!(
        api(&owner, &app, &format!("/api/v1/games/{id}")).await["status"],
        "voided"
    );
    c.close().await.unwrap();
}

/// Issue 37, item 4: two organizers fix the same game at once. The one who saves second is
/// not saved over the first: the page names who changed it and both results in words, the form
/// holds the game as stored (not the stale choice), and a Save from there keeps the other's fix.
#[tokio::test]
async fn a_game_fixed_by_another_organizer_meanwhile_is_shown_as_stored_not_overwritten() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "twofix", "rose@example.org").await;
    let t = one_table(&app, &owner, "twofix", &["Ann", "Bea", "Cy", "Dot"]).await;
    let (ann, bea, cy) = (t.players[0], t.players[1], t.players[2]);
    common::member_of(&app, &owner, "twofix", "sam@example.org", "organizer").await;
    let id = self_pick(&app, &owner, t.table, ann).await;
    let edit = app.url(&format!("/games/{id}/edit"));
    for (email, name) in [("rose@example.org", "Rose"), ("sam@example.org", "Sam")] {
        sqlx::query("UPDATE users SET display_name = $2 WHERE email = $1")
            .bind(email)
            .bind(name)
            .execute(&app.db)
            .await
            .unwrap();
    }

    // Rose and Sam open the game on their phones at the same time.
    let (_dr, rose) = browser().await;
    let (_ds, sam) = browser().await;
    for c in [&rose, &sam] {
        c.set_window_size(390, 844).await.unwrap();
    }
    log_in(&rose, &app.address, "rose@example.org", PASSWORD, "/").await;
    log_in(&sam, &app.address, "sam@example.org", PASSWORD, "/").await;
    for c in [&rose, &sam] {
        c.goto(&edit).await.unwrap();
        wait_text(c, ".now", "Mah Jongg by Ann").await;
    }
    // Rose: it was Bea's hand. Saved.
    click(&rose, &format!("input[name=won][value='{bea}']")).await;
    click(&rose, "form.fix button[type=submit]").await;
    wait_text(&rose, ".flash.ok", "corrected (version 2)").await;
    // Sam, on the page read before Rose's fix: he thinks it was Cy's. Not saved.
    click(&sam, &format!("input[name=won][value='{cy}']")).await;
    click(&sam, "form.fix button[type=submit]").await;
    let flash = wait_text(&sam, ".flash.bad", "Not saved").await;
    assert!(flash.contains("game 1 at table 1"), "{flash}");
    assert!(
        flash.contains("changed by Rose"),
        "who changed it, by name: {flash}"
    );
    assert!(
        flash.contains("Mah Jongg by Bea"),
        "what is stored, in words: {flash}"
    );
    assert!(flash.contains("You had chosen: Mah Jongg by Cy"), "{flash}");
    assert!(!flash.contains("@"), "no email in the message: {flash}");
    // The form holds the stored game and the new version, not Sam's stale choice.
    let checked = selected(&sam, "input[name=won]:checked").await;
    assert_eq!(
        checked,
        bea.to_string(),
        "the form is refilled with the stored game"
    );
    assert_eq!(selected(&sam, "input[name=version]").await, "2");
    let (_, found) = axe(&sam).await;
    assert_eq!(found, json!([]), "the refused fix passes axe");
    shots(&sam, "game-fix-stale").await;
    // One more tap on Save keeps Rose's fix.
    click(&sam, "form.fix button[type=submit]").await;
    wait_text(&sam, ".flash.ok", "corrected").await;
    let stored = api(&owner, &app, &format!("/api/v1/games/{id}")).await;
    assert_eq!(stored["winner"], json!(bea), "Rose's fix stands");
    rose.close().await.unwrap();
    sam.close().await.unwrap();
}

/// A league on the demo card with one open night; the night's id.
async fn open_night(app: &TestApp, owner: &reqwest::Client, slug: &str) -> i64 {
    let post = |path: String, body: Value| async move {
        let v: Value = owner
            .post(app.url(&path))
            .json(&body)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        v["id"].as_i64().unwrap()
    };
    let league = post(
        format!("/api/v1/clubs/{slug}/leagues"),
        json!({"name": "L", "card": "demo-2026", "ruleset": "nmjl-money"}),
    )
    .await;
    post(
        format!("/api/v1/leagues/{league}/nights"),
        json!({"date": "2026-03-03"}),
    )
    .await
}

async fn add_players(
    app: &TestApp,
    owner: &reqwest::Client,
    slug: &str,
    names: &[&str],
) -> Vec<i64> {
    let mut ids = Vec::new();
    for n in names {
        let p: Value = owner
            .post(app.url(&format!("/api/v1/clubs/{slug}/players")))
            .json(&json!({"name": n}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        ids.push(p["id"].as_i64().unwrap());
    }
    ids
}

#[tokio::test]
async fn seats_survive_a_refused_lock_and_a_late_arrival_gets_a_seat() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "late", "org@example.org").await;
    let names = ["Ann", "Bea", "Cy", "Dot", "Eve", "Fay", "Gus", "Hal", "Ivy"];
    let ids = add_players(&app, &owner, "late", &names).await;
    let night = open_night(&app, &owner, "late").await;

    let (_driver, c) = browser().await;
    log_in(
        &c,
        &app.address,
        "org@example.org",
        PASSWORD,
        &format!("/nights/{night}"),
    )
    .await;
    // The search box narrows the list; Enter ticks the only player left.
    click(&c, "#checkin-search").await;
    type_keys(&c, "ann").await;
    let shown = c
        .execute(
            "return Array.from(document.querySelectorAll('#checkin-form label.check'))
               .filter(l => !l.hidden).map(l => l.textContent.trim());",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(shown, json!(["Ann"]));
    type_keys(&c, &String::from(char::from(fantoccini::key::Key::Enter))).await;
    wait_text(&c, "#checkin-count", "1 of 9 ticked; 8 not here yet").await;
    // Seven more tick in; one tap saves the check-in and proposes the tables.
    for id in &ids[1..8] {
        click(&c, &format!("input[name=player][value='{id}']")).await;
    }
    click(&c, "#checkin-form button[name=then]").await;
    wait_text(&c, ".flash.ok", "Tables proposed").await;
    // A swap that seats someone twice is refused, and every seat stays as chosen.
    let first = selected(&c, "#t1s1").await;
    c.find(Locator::Css("#t1s0"))
        .await
        .unwrap()
        .select_by_value(&first)
        .await
        .unwrap();
    let second = selected(&c, "#t2s3").await;
    click(&c, "#proposal button[type=submit]").await;
    let flash = wait_text(&c, ".flash.bad", "Not locked").await;
    let who = names[ids.iter().position(|i| i.to_string() == first).unwrap()];
    assert!(
        flash.contains(&format!("{who} has two seats at table 1")),
        "{flash}"
    );
    assert_eq!(selected(&c, "#t1s0").await, first, "the swap is kept");
    assert_eq!(selected(&c, "#t2s3").await, second);
    shots(&c, "night-lock-refused").await;
    // Fixed by giving the first seat back to whoever is not seated.
    let seated: Vec<String> = {
        let mut v = Vec::new();
        for t in 1..=2 {
            for s in 0..4 {
                v.push(selected(&c, &format!("#t{t}s{s}")).await);
            }
        }
        v
    };
    let missing = ids[..8]
        .iter()
        .find(|i| !seated.contains(&i.to_string()))
        .unwrap();
    c.find(Locator::Css("#t1s0"))
        .await
        .unwrap()
        .select_by_value(&missing.to_string())
        .await
        .unwrap();
    click(&c, "#proposal button[type=submit]").await;
    wait_text(&c, ".flash.ok", "Tables locked").await;
    assert!(
        c.find(Locator::Css("#proposal")).await.is_err(),
        "the proposal is gone once locked"
    );

    // A game starts at table 1; Ivy arrives late.
    let tables = api(&owner, &app, &format!("/api/v1/nights/{night}")).await;
    let table1 = tables["tables"][0]["id"].as_i64().unwrap();
    let res = owner
        .post(app.url(&format!("/api/v1/tables/{table1}/games")))
        .json(&json!({"outcome": "wall"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    c.refresh().await.unwrap();
    click(&c, &format!("input[name=player][value='{}']", ids[8])).await;
    click(&c, "#checkin-form button[type=submit]:not([name])").await;
    let flash = wait_text(&c, ".flash.ok", "Check-in saved: 9 players here").await;
    assert!(flash.contains("Ivy has no seat yet"), "{flash}");
    let late = text_of(&c, "#late").await;
    assert!(
        late.contains("Ivy") && late.contains("Re-seat table 2 (no games yet)"),
        "{late}"
    );
    shots(&c, "night-late").await;
    click(&c, "#late form:last-of-type button").await;
    wait_text(
        &c,
        ".flash.ok",
        "Re-seated table 2 with Ivy: now tables 2, 3",
    )
    .await;
    let after = api(&owner, &app, &format!("/api/v1/nights/{night}")).await;
    let sizes: Vec<usize> = after["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["seats"].as_array().unwrap().len())
        .collect();
    assert_eq!(sizes, vec![4, 3, 2], "table 1 untouched: {after}");
    assert_eq!(after["tables"][0]["id"].as_i64(), Some(table1));
    assert!(
        c.find(Locator::Css("#late")).await.is_err(),
        "nobody waits any more"
    );
    c.close().await.unwrap();
}

#[tokio::test]
async fn players_come_in_bulk_and_league_settings_are_on_the_pages() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "bulk", "org@example.org").await;
    let (_driver, c) = browser().await;
    log_in(&c, &app.address, "org@example.org", PASSWORD, "/clubs/bulk").await;
    fill(&c, "#player-names", "Ann Lee\nBea\n\nCy\nann lee\n").await;
    click(&c, "#add-players button").await;
    wait_text(&c, ".flash.ok", "3 players added: Ann Lee, Bea, Cy.").await;
    fill(
        &c,
        "#player-names",
        "name,email\n\"Ng, Kit\",k@example.org\nBea\n",
    )
    .await;
    click(&c, "#add-players button").await;
    let flash = wait_text(&c, ".flash.ok", "Ng, Kit joined").await;
    assert!(
        flash.contains("Not added: Bea (already a player of the club)"),
        "{flash}"
    );
    let players = api(&owner, &app, "/api/v1/clubs/bulk/players").await;
    assert_eq!(players["players"].as_array().unwrap().len(), 4, "{players}");

    // A league with its games per table, board and dates from the form.
    fill(&c, "#league-name", "Spring").await;
    c.find(Locator::Css("#league-games"))
        .await
        .unwrap()
        .clear()
        .await
        .unwrap();
    fill(&c, "#league-games", "3").await;
    c.find(Locator::Css("#league-board"))
        .await
        .unwrap()
        .select_by_value("average")
        .await
        .unwrap();
    c.find(Locator::Css("#league-min"))
        .await
        .unwrap()
        .clear()
        .await
        .unwrap();
    fill(&c, "#league-min", "6").await;
    c.execute(
        "document.getElementById('league-starts').value = '2026-03-03';
         document.getElementById('league-ends').value = '2026-06-30';",
        vec![],
    )
    .await
    .unwrap();
    click(&c, "#new-league button[type=submit]").await;
    wait_text(&c, ".flash.ok", "League created").await;
    let path = c.current_url().await.unwrap().path().to_string();
    let league = api(&owner, &app, &format!("/api/v1{path}")).await;
    assert_eq!(
        (
            league["games_per_table"].as_i64(),
            league["board"].as_str(),
            league["min_games"].as_i64()
        ),
        (Some(3), Some("average"), Some(6)),
        "{league}"
    );
    assert_eq!(league["starts_on"], "2026-03-03");
    assert_eq!(league["ends_on"], "2026-06-30");
    // Settings later: five games a table; a last night before the first is refused.
    click(&c, "#settings summary").await;
    c.find(Locator::Css("#settings #league-games"))
        .await
        .unwrap()
        .clear()
        .await
        .unwrap();
    fill(&c, "#settings #league-games", "5").await;
    click(&c, "#settings button[type=submit]").await;
    wait_text(&c, ".flash.ok", "Spring saved: 5 games a table").await;
    click(&c, "#settings summary").await;
    c.execute(
        "document.querySelector('#settings #league-ends').value = '2026-01-01';",
        vec![],
    )
    .await
    .unwrap();
    click(&c, "#settings button[type=submit]").await;
    wait_text(&c, ".flash.bad", "comes before the first").await;
    let league = api(&owner, &app, &format!("/api/v1{path}")).await;
    assert_eq!(league["games_per_table"], 5);
    c.close().await.unwrap();
}

#[tokio::test]
async fn a_table_code_scores_its_table_without_an_account_and_nothing_else() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "codes", "org@example.org").await;
    let ids = add_players(
        &app,
        &owner,
        "codes",
        &["Ann", "Bea", "Cy", "Dot", "Eve", "Fay", "Gus", "Hal"],
    )
    .await;
    let night = open_night(&app, &owner, "codes").await;
    for p in &ids {
        owner
            .put(app.url(&format!("/api/v1/nights/{night}/checkins/{p}")))
            .send()
            .await
            .unwrap();
    }
    let locked: Value = owner
        .put(app.url(&format!("/api/v1/nights/{night}/tables")))
        .json(&json!({"tables": [ids[..4].to_vec(), ids[4..].to_vec()]}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let (t1, t2) = (
        locked["tables"][0]["id"].as_i64().unwrap(),
        locked["tables"][1]["id"].as_i64().unwrap(),
    );

    let (_driver, c) = browser().await;
    log_in(
        &c,
        &app.address,
        "org@example.org",
        PASSWORD,
        &format!("/nights/{night}"),
    )
    .await;
    click(&c, "#codes button").await;
    wait_text(&c, "h1", "Table codes for tonight").await;
    let code = text_of(&c, "#code-1").await;
    assert_eq!(code.len(), 9, "{code}");
    assert_eq!(
        c.find_all(Locator::Css("figure.qr svg"))
            .await
            .unwrap()
            .len(),
        2,
        "a QR code per table"
    );
    shots(&c, "table-codes").await;
    let source = c.source().await.unwrap();
    assert!(
        source.contains(&format!("/t/{}", code.replace('-', ""))),
        "the QR link"
    );

    // Logged out, the code (typed loosely) opens table 1's scoring screen.
    c.goto(&app.url("/")).await.unwrap();
    click(&c, "form[action='/logout'] button").await;
    wait_text(&c, ".flash.ok", "logged out").await;
    c.goto(&app.url("/code")).await.unwrap();
    wait_for(&c, "form[action='/code'] button").await;
    fill(&c, "#code", &code.to_lowercase().replace('-', " ")).await;
    click(&c, "form[action='/code'] button").await;
    wait_text(&c, ".flash.ok", "This device scores table 1 tonight").await;
    wait_text(&c, "h1", "Table 1").await;
    click(&c, "input[name=won][value=wall]").await;
    save(&c).await;
    wait_text(&c, "#sent", "Saved game 1").await;
    let games: Vec<(i64, String)> = sqlx::query_as(
        "SELECT g.table_id, a.actor FROM games g JOIN game_audit a ON a.game_id = g.id",
    )
    .fetch_all(&app.db)
    .await
    .unwrap();
    assert_eq!(games, vec![(t1, "table 1 code".to_string())]);

    // Not another table: its screen and its API are not found.
    c.goto(&app.url(&format!("/tables/{t2}/score")))
        .await
        .unwrap();
    wait_text(&c, "h1", "404").await;
    let status = c
        .execute_async(
            "const done = arguments[arguments.length - 1];
             fetch(arguments[0], {method: 'POST', credentials: 'same-origin',
               headers: {'Content-Type': 'application/json'}, body: JSON.stringify({outcome: 'wall'})})
               .then(r => done(r.status));",
            vec![json!(format!("/api/v1/tables/{t2}/games"))],
        )
        .await
        .unwrap();
    assert_eq!(status, 404);
    // Nor the club's organizer pages.
    c.goto(&app.url("/clubs/codes/members")).await.unwrap();
    wait_text(&c, "h1", "").await;
    assert!(!text_of(&c, "main").await.contains("Members and roles"));
    // Nor the codes: those are shown to the club's organizers only.
    for path in [
        format!("/nights/{night}/codes"),
        format!("/nights/{night}/print?what=tents"),
    ] {
        c.goto(&app.url(&path)).await.unwrap();
        wait_text(&c, "h1", "").await;
        let seen = c.source().await.unwrap();
        assert!(!seen.contains(&code), "{path} shows a table code");
    }

    // Revoked by the organizer, the code no longer works.
    c.goto(&app.url("/")).await.unwrap();
    click(&c, "form[action='/logout'] button").await;
    wait_text(&c, ".flash.ok", "logged out").await;
    log_in(
        &c,
        &app.address,
        "org@example.org",
        PASSWORD,
        &format!("/nights/{night}"),
    )
    .await;
    wait_text(&c, "#codes", "Codes are open").await;
    // The codes page was left: the organizer sees the same codes again, nothing new is made,
    // and the tent cards carry each table's code and QR code.
    click(&c, "#codes a.button").await;
    wait_text(&c, "h1", "Table codes for tonight").await;
    assert_eq!(text_of(&c, "#code-1").await, code, "the same code again");
    let (_, found) = axe(&c).await;
    assert_eq!(found, json!([]), "the codes page passes axe");
    let made: i64 = sqlx::query_scalar("SELECT count(*) FROM table_codes")
        .fetch_one(&app.db)
        .await
        .unwrap();
    assert_eq!(made, 2, "showing the codes again makes none");
    click(&c, "a[href$='print?what=tents']").await;
    wait_for(&c, ".tent").await;
    let tents = text_of(&c, "main").await;
    assert!(tents.contains(&code), "{tents}");
    assert_eq!(
        c.find_all(Locator::Css(".tent-code figure.qr svg"))
            .await
            .unwrap()
            .len(),
        2,
        "a QR code on each table's tent card"
    );
    shots(&c, "tent-cards-with-codes").await;
    c.goto(&app.url(&format!("/nights/{night}"))).await.unwrap();
    wait_text(&c, "#codes", "Codes are open").await;
    click(&c, "form[action$='/codes/revoke'] button").await;
    wait_text(&c, ".flash.ok", "2 table codes revoked").await;
    click(&c, "form[action='/logout'] button").await;
    wait_text(&c, ".flash.ok", "logged out").await;
    c.goto(&app.url(&format!("/t/{}", code.replace('-', ""))))
        .await
        .unwrap();
    wait_for(&c, "form[action='/code'] button").await;
    click(&c, "form[action='/code'] button").await;
    wait_text(&c, ".flash.bad", "this code does not open a table now").await;
    c.close().await.unwrap();
}

#[tokio::test]
async fn every_page_fits_a_phone_and_a_tablet_and_passes_axe() {
    let app = spawn_app().await;
    let state = mahjong_league::domain::AppState::new(app.db.clone(), &"k".repeat(64));
    let login = mahjong_league::domain::history::demo::ensure(&state)
        .await
        .unwrap()
        .unwrap();
    let (league, night, table, game, player): (i64, i64, i64, i64, i64) = sqlx::query_as(
        "SELECT l.id, n.id, t.id, g.id, s.player_id FROM leagues l JOIN nights n ON n.league_id = l.id \
         JOIN night_tables t ON t.night_id = n.id JOIN games g ON g.table_id = t.id \
         JOIN game_scores s ON s.game_id = g.id ORDER BY n.number DESC, g.id LIMIT 1",
    )
    .fetch_one(&app.db)
    .await
    .unwrap();
    // An open night too, so the check-in and its tools are on the page.
    let api = reqwest::Client::builder()
        .cookie_store(true)
        .build()
        .unwrap();
    let res = api
        .post(app.url("/api/v1/session"))
        .json(&json!({"email": login.email, "password": login.password}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let open: Value = api
        .post(app.url(&format!("/api/v1/leagues/{league}/nights")))
        .json(&json!({"date": "2026-12-01"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    // A pending invitation, on the members page and behind its link.
    let res = api
        .put(app.url("/api/v1/clubs/demo/members"))
        .json(&json!({"email": "guest@example.org", "role": "member"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 202);
    let invited =
        common::mailed_path(&app, "invitation", "guest@example.org", "/invitations/").await;
    let (_driver, c) = browser().await;
    log_in(&c, &app.address, &login.email, &login.password, "/").await;
    let pages = [
        "/".to_string(),
        "/clubs/demo".into(),
        "/clubs/demo/members".into(),
        "/clubs/demo/tokens".into(),
        "/clubs/demo/cards".into(),
        format!("/leagues/{league}"),
        format!("/leagues/{league}/embed"),
        format!("/leagues/{league}/results"),
        format!("/leagues/{league}/import"),
        format!("/leagues/{league}/screen"),
        format!("/leagues/{league}/badges"),
        format!("/nights/{night}"),
        format!("/nights/{night}/seats"),
        format!("/nights/{night}/print"),
        format!("/nights/{night}/status"),
        format!("/nights/{}/door", open["id"]),
        format!("/nights/{}", open["id"]),
        format!("/games/{game}/edit"),
        format!("/tables/{table}/score"),
        format!("/players/{player}"),
        "/me".into(),
        "/cards/demo-2026".into(),
        "/code".into(),
        "/login".into(),
        "/signup".into(),
        "/account".into(),
        "/forgot".into(),
        "/reset/no-such-link".into(),
        "/unsubscribe/1-1-not-signed".into(),
        invited,
        "/invitations/no-such-link".into(),
    ];
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    let (mut wide, mut serious, mut titles, mut tiny) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for p in &pages {
        c.set_window_size(390, 844).await.unwrap();
        c.goto(&app.url(p)).await.unwrap();
        let title = c.title().await.unwrap();
        if title.contains('<') || title.chars().count() > 120 {
            titles.push(format!("{p}: {title}"));
        }
        let (rules, found) = axe(&c).await;
        assert!(rules > 10, "axe ran its rules on {p}");
        if found != json!([]) {
            serious.push(format!("{p}: {found}"));
        }
        let name = p.trim_matches('/').replace('/', "-");
        let name = if name.is_empty() {
            "index".to_string()
        } else {
            name
        };
        for (label, w, h) in [("phone", 390, 844), ("tablet", 820, 1180)] {
            c.set_window_size(w, h).await.unwrap();
            let m = c
                .execute(
                    "return [document.documentElement.scrollWidth, window.innerWidth,
                       Array.from(document.querySelectorAll('body *')).filter(e => {
                         const r = e.getBoundingClientRect();
                         const p = e.parentElement.getBoundingClientRect();
                         return r.width > 0 && r.right > window.innerWidth + 1 && p.right <= window.innerWidth + 1;
                       }).slice(0, 4).map(e => e.tagName + '.' + e.className + '#' + e.id)];",
                    vec![],
                )
                .await
                .unwrap();
            if m[0].as_u64() > m[1].as_u64() {
                wide.push(format!("{p} ({label}): {} > {} ({})", m[0], m[1], m[2]));
            }
            // Controls a finger can hit: no link or control under 24 px tall anywhere on the
            // page (navigation and links in a sentence included), none under 24 px wide but a
            // link in running text, and a checkbox or radio counts by its label.
            let small = c
                .execute(
                    "const out = [];
                     document.querySelectorAll('body a[href], body button, body input:not([type=hidden]), body select, body summary, body textarea').forEach(el => {
                       let r = el.getBoundingClientRect();
                       if (r.width === 0 || r.height === 0 || el.closest('[hidden]')) return;
                       if ((el.type === 'checkbox' || el.type === 'radio') && el.closest('label')) r = el.closest('label').getBoundingClientRect();
                       const inline = el.tagName === 'A' && getComputedStyle(el).display === 'inline';
                       if (r.height < 23.5 || (!inline && r.width < 23.5)) out.push(el.tagName + ' [' + (el.textContent || el.value || el.name || '').trim().slice(0, 20) + '] ' + Math.round(r.width) + '×' + Math.round(r.height));
                     });
                     return out.slice(0, 5);",
                    vec![],
                )
                .await
                .unwrap();
            if small != json!([]) {
                tiny.push(format!("{p} ({label}): {small}"));
            }
            if *p == format!("/leagues/{league}") {
                // The figure the ranking is by is on screen without a swipe, and the chart's
                // names are whole and its players' colours all different.
                let seen = c
                    .execute(
                        "const box = document.querySelector('#standings .scroll').getBoundingClientRect();
                         const points = (document.querySelector(\"th a[href*='sort=counted']\")
                           || document.querySelector(\"th a[href*='sort=points']\")).getBoundingClientRect();
                         const svg = document.querySelector('figure.chart svg');
                         const vb = svg.viewBox.baseVal;
                         const cut = Array.from(svg.querySelectorAll('text.end-label, text.bar-name'))
                           .filter(t => { const b = t.getBBox(); return b.x < 0 || b.x + b.width > vb.width + 0.5; })
                           .map(t => t.textContent);
                         const colours = Array.from(svg.querySelectorAll('polyline.series, rect.bar'))
                           .map(e => Array.from(e.classList).find(k => /^s[0-9]$/.test(k)));
                         const tallest = Math.max(...Array.from(document.querySelectorAll('table.standings tbody tr'))
                           .map(r => r.getBoundingClientRect().height));
                         const tall = Array.from(document.querySelectorAll('table.standings tbody tr'))
                           .find(r => r.getBoundingClientRect().height === tallest);
                         const cells = Array.from(tall.children).map(td => Math.round(td.getBoundingClientRect().height) + ':' + td.textContent.trim().slice(0, 30)).join(' | ');
                         return [points.right <= box.right + 0.5, cut, colours.length, new Set(colours).size, tallest, cells];",
                        vec![],
                    )
                    .await
                    .unwrap();
                assert_eq!(
                    seen[0],
                    json!(true),
                    "{label}: the ranking figure is cut off on the league page"
                );
                assert_eq!(seen[1], json!([]), "{label}: chart names cut off");
                assert!(
                    seen[2].as_u64().unwrap() >= 2,
                    "{label}: the chart draws players"
                );
                assert_eq!(seen[2], seen[3], "{label}: two players share a colour");
                assert!(
                    seen[4].as_f64().unwrap() < 72.0,
                    "{label}: a standings row wraps to {} px: {}",
                    seen[4],
                    seen[5]
                );
                let whole = charts_whole(&c).await;
                assert!(whole.is_empty(), "the league's chart: {whole:#?}");
                c.set_window_size(w, h).await.unwrap();
                c.execute(
                    "document.querySelector('figure.chart').scrollIntoView()",
                    vec![],
                )
                .await
                .unwrap();
                std::fs::write(
                    dir.join(format!("{label}-league-chart.png")),
                    c.screenshot().await.unwrap(),
                )
                .unwrap();
                c.execute("window.scrollTo(0, 0)", vec![]).await.unwrap();
            }
            std::fs::write(
                dir.join(format!("{label}-{name}.png")),
                c.screenshot().await.unwrap(),
            )
            .unwrap();
        }
    }
    assert!(
        wide.is_empty() && tiny.is_empty(),
        "pages wider than the screen: {wide:#?}; controls under 24 px: {tiny:#?}"
    );
    assert!(
        serious.is_empty(),
        "serious accessibility problems: {serious:#?}"
    );
    assert!(
        titles.is_empty(),
        "page titles that hold markup: {titles:#?}"
    );
    c.close().await.unwrap();
}

#[tokio::test]
async fn a_member_claims_a_player_and_sees_my_games_once_confirmed() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "mine", "org@example.org").await;
    common::member_of(&app, &owner, "mine", "rose@example.org", "member").await;
    let t = one_table(&app, &owner, "mine", &["Rose Adler", "Bea", "Cy", "Dot"]).await;
    let rose = t.players[0];
    owner
        .post(app.url(&format!("/api/v1/tables/{}/games", t.table)))
        .json(&json!({"outcome": "mahjong", "winner": rose, "hand": WIN, "won_by": "self_pick"}))
        .send()
        .await
        .unwrap();

    let (_driver, c) = browser().await;
    log_in(
        &c,
        &app.address,
        "rose@example.org",
        PASSWORD,
        &format!("/players/{rose}"),
    )
    .await;
    click(&c, &format!("form[action='/players/{rose}/claim'] button")).await;
    wait_text(&c, ".flash.ok", "Asked: the organizers of mine have a mail").await;
    wait_text(&c, "main", "You said this player is you").await;
    // Until then she is the player made under her name when she joined.
    c.goto(&app.url("/me")).await.unwrap();
    wait_text(&c, "main", "rose@example.org").await;
    click(&c, "form[action='/logout'] button").await;
    wait_text(&c, ".flash.ok", "logged out").await;

    log_in(
        &c,
        &app.address,
        "org@example.org",
        PASSWORD,
        "/clubs/mine/members",
    )
    .await;
    let claim = wait_text(&c, "#claims", "says they are Rose Adler").await;
    assert!(claim.contains("rose@example.org"), "{claim}");
    click(&c, "#claims button[value=confirm]").await;
    wait_text(&c, ".flash.ok", "Confirmed").await;
    click(&c, "form[action='/logout'] button").await;
    wait_text(&c, ".flash.ok", "logged out").await;

    log_in(&c, &app.address, "rose@example.org", PASSWORD, "/").await;
    click(&c, "a[href='/me']").await;
    click(&c, &format!("a[href='/players/{rose}']")).await;
    wait_text(&c, "main", "This is you").await;
    // The player made for her on joining, never played, gave way.
    let (linked, active): (i64, bool) = sqlx::query_as(
        "SELECT (SELECT count(*) FROM players WHERE user_id = u.id), \
                (SELECT active FROM players WHERE name = 'rose@example.org') \
         FROM users u WHERE email = 'rose@example.org'",
    )
    .fetch_one(&app.db)
    .await
    .unwrap();
    assert_eq!((linked, active), (1, false));
    let history = text_of(&c, "#games").await;
    assert!(history.contains("Won 2468#2"), "game by game: {history}");
    let best = text_of(&c, "figure.hand figcaption").await;
    assert!(best.contains("jokerless"), "{best}");
    c.close().await.unwrap();
}

#[tokio::test]
async fn an_organizer_lists_the_clubs_websites_and_fixes_a_wrong_line() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "sites", "sites@example.org").await;
    let (_driver, c) = browser().await;
    c.set_window_size(390, 844).await.unwrap();
    log_in(
        &c,
        &app.address,
        "sites@example.org",
        PASSWORD,
        "/clubs/sites/tokens",
    )
    .await;
    let mut hands = Hands::new(&c);
    hands
        .type_into(
            "#websites-box",
            "https://tuesdaytiles.example\nclub.example/standings",
        )
        .await;
    hands.tap("#websites button[type=submit]").await;
    // Refused: the line is named, what was typed is still there to fix, and axe finds nothing.
    wait_for(&c, "#websites-error").await;
    let error = text_of(&c, "#websites-error").await;
    assert!(error.starts_with("Line 2:"), "{error}");
    assert!(
        hands.on_screen("#websites-error").await,
        "the refusal is on screen, without a scroll"
    );
    assert_eq!(
        selected(&c, "#websites-box").await,
        "https://tuesdaytiles.example\nclub.example/standings"
    );
    let (_, found) = axe(&c).await;
    assert_eq!(found, json!([]), "the refused form passes axe");
    // Fix the second line (select it all, type it again) and save.
    hands.tap("#websites-box").await;
    c.execute(
        "const b = document.getElementById('websites-box'); b.setSelectionRange(b.value.indexOf('\\n') + 1, b.value.length);",
        vec![],
    )
    .await
    .unwrap();
    type_keys(&c, "https://club.example").await;
    hands.tap("#websites button[type=submit]").await;
    wait_text(&c, "#websites .flash.ok", "Saved: 2 websites").await;
    assert!(
        hands.on_screen("#websites .flash.ok").await,
        "the result is on screen beside the box"
    );
    assert!(
        c.find(Locator::Css("main > .flash")).await.is_err(),
        "and not also at the top of the page"
    );
    assert_eq!(
        selected(&c, "#websites-box").await,
        "https://tuesdaytiles.example\nhttps://club.example"
    );
    let stored = api(&owner, &app, "/api/v1/clubs/sites/origins").await;
    assert_eq!(
        stored["origins"],
        json!(["https://tuesdaytiles.example", "https://club.example"])
    );
    assert!(
        hands.taps <= 5 && hands.scrolls <= 3,
        "{} taps, {} scrolls",
        hands.taps,
        hands.scrolls
    );
    let m = c
        .execute(
            "return [document.documentElement.scrollWidth, window.innerWidth];",
            vec![],
        )
        .await
        .unwrap();
    assert!(m[0].as_u64() <= m[1].as_u64(), "wider than the phone: {m}");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("phone-websites.png"),
        c.screenshot().await.unwrap(),
    )
    .unwrap();
    c.close().await.unwrap();
}

/// Sets a field's value as a browser's date picker or number box would, without the keyboard
/// layout of the locale.
async fn set_value(c: &Client, css: &str, value: &str) {
    c.execute(
        "document.querySelector(arguments[0]).value = arguments[1];",
        vec![json!(css), json!(value)],
    )
    .await
    .unwrap();
}

/// After a refused form: the refusal is said beside the form, on screen.
async fn refused_beside_the_form(c: &Client, want: &str) -> String {
    let note = wait_text(c, ".kept-note", want).await;
    assert!(
        Hands::new(c).on_screen(".kept-note").await,
        "the refusal is on screen: {note}"
    );
    note
}

#[tokio::test]
async fn organizer_forms_keep_what_was_typed_when_the_server_refuses_it() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "keep", "keep@example.org").await;
    let t = one_table(&app, &owner, "keep", &["Ann", "Bea", "Cy", "Dot"]).await;
    let (_driver, c) = browser().await;
    c.set_window_size(390, 844).await.unwrap();
    log_in(
        &c,
        &app.address,
        "keep@example.org",
        PASSWORD,
        "/clubs/keep",
    )
    .await;

    // Players: Eve is added, Ann (already a player) is left in the box with the reason.
    wait_for(&c, "#player-names").await;
    fill(&c, "#player-names", "Ann\nEve").await;
    click(&c, "#add-players button[type=submit]").await;
    let said = wait_text(&c, ".flash", "Eve joined").await;
    assert!(said.contains("Not added: Ann"), "{said}");
    assert_eq!(selected(&c, "#player-names").await, "Ann");

    // A league named like one the club has: refused naming it, everything typed kept.
    c.goto(&app.url("/clubs/keep")).await.unwrap();
    fill(&c, "#new-league #league-name", "l").await;
    set_value(&c, "#new-league #league-games", "5").await;
    click(&c, "#new-league button[type=submit]").await;
    refused_beside_the_form(&c, "already has a league named “L”").await;
    assert_eq!(selected(&c, "#new-league #league-name").await, "l");
    assert_eq!(selected(&c, "#new-league #league-games").await, "5");

    // League settings: a last night before the first, refused; both dates kept.
    c.goto(&app.url(&format!("/leagues/{}", t.league)))
        .await
        .unwrap();
    click(&c, "#settings summary").await;
    set_value(&c, "#settings #league-starts", "2026-05-01").await;
    set_value(&c, "#settings #league-ends", "2026-04-01").await;
    click(&c, "#settings button[type=submit]").await;
    refused_beside_the_form(&c, "").await;
    assert_eq!(selected(&c, "#settings #league-starts").await, "2026-05-01");
    assert_eq!(selected(&c, "#settings #league-ends").await, "2026-04-01");

    // A night's date out of range: refused, and the date typed is kept (not today's again).
    c.goto(&app.url(&format!("/leagues/{}", t.league)))
        .await
        .unwrap();
    set_value(&c, "#night-date", "1850-01-01").await;
    click(&c, "#new-night button[type=submit]").await;
    refused_beside_the_form(&c, "").await;
    assert_eq!(selected(&c, "#night-date").await, "1850-01-01");

    // An invitation to an address too long to be one: refused, and the address kept.
    c.goto(&app.url("/clubs/keep/members")).await.unwrap();
    let long = format!("{}@example.org", "x".repeat(250));
    fill(&c, "#member-email", &long).await;
    click(&c, "#add-member button[type=submit]").await;
    refused_beside_the_form(&c, "an email address has at most 254 characters").await;
    assert_eq!(selected(&c, "#member-email").await, long);

    // An API token with no scope ticked: refused; its name kept, the scopes as they were.
    c.goto(&app.url("/clubs/keep/tokens")).await.unwrap();
    fill(&c, "#token-name", "scoreboard").await;
    click(&c, "#new-token input[value=read]").await;
    click(&c, "#new-token button[type=submit]").await;
    refused_beside_the_form(&c, "give at least one of read, score, admin").await;
    assert_eq!(selected(&c, "#token-name").await, "scoreboard");
    let read_ticked = c
        .execute(
            "return document.querySelector('#new-token input[value=read]').checked;",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(read_ticked, json!(false));
    let (_, found) = axe(&c).await;
    assert_eq!(found, json!([]), "a kept form passes axe");

    // A success shows the page as it now is: nothing is filled in again.
    click(&c, "#new-token input[value=read]").await;
    click(&c, "#new-token button[type=submit]").await;
    wait_text(&c, "#secret-title", "scoreboard").await;
    c.goto(&app.url("/clubs/keep/tokens")).await.unwrap();
    assert_eq!(selected(&c, "#token-name").await, "");
    c.close().await.unwrap();
}

/// The league form shows the fields of the kind chosen: open play comes with the weekly board
/// and its own fields, a league with total points and the nights dropped; a board's number shows
/// with its board. The open-play league made from it ranks by the week.
#[tokio::test]
async fn the_league_form_shows_the_kind_it_makes() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "forms", "org@example.org").await;
    let (_driver, c) = browser().await;
    log_in(
        &c,
        &app.address,
        "org@example.org",
        PASSWORD,
        "/clubs/forms",
    )
    .await;
    wait_for(&c, "#new-league #league-kind").await;
    let seen = async |c: &Client| {
        c.execute(
            "const f = document.querySelector('#new-league');
             const shown = id => { const e = f.querySelector('#' + id); return e.offsetParent !== null; };
             return [f.querySelector('#league-board').value,
                     ['league-confirm', 'league-same', 'league-drop', 'league-min', 'league-best', 'league-best-week'].filter(shown)];",
            vec![],
        )
        .await
        .unwrap()
    };
    assert_eq!(
        seen(&c).await,
        json!(["total", ["league-drop"]]),
        "a league starts on total points"
    );
    let pick = async |c: &Client, css: &str, value: &str| {
        c.find(Locator::Css(css))
            .await
            .unwrap()
            .select_by_value(value)
            .await
            .unwrap();
    };
    pick(&c, "#new-league #league-kind", "open").await;
    assert_eq!(
        seen(&c).await,
        json!([
            "best_per_week",
            ["league-confirm", "league-same", "league-best-week"]
        ]),
        "open play comes with the weekly board and its own fields"
    );
    pick(&c, "#new-league #league-board", "average").await;
    assert_eq!(
        seen(&c).await,
        json!(["average", ["league-confirm", "league-same", "league-min"]])
    );
    pick(&c, "#new-league #league-kind", "tournament").await;
    assert_eq!(seen(&c).await, json!(["total", ["league-drop"]]));
    pick(&c, "#new-league #league-kind", "open").await;
    fill(&c, "#new-league #league-name", "Open play").await;
    click(&c, "#new-league button[type=submit]").await;
    wait_text(&c, ".flash.ok", "League created").await;
    let leagues: Value = owner
        .get(app.url("/api/v1/clubs/forms/leagues"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let made = &leagues["leagues"][0];
    assert_eq!(
        (made["kind"].as_str(), made["board"].as_str()),
        (Some("open"), Some("best_per_week")),
        "{leagues}"
    );
    // A league's own form never changes its stored board by being opened, whatever the kind.
    let odd: Value = owner
        .post(app.url("/api/v1/clubs/forms/leagues"))
        .json(
            &json!({"name": "Weekly by the week", "card": "demo-2026", "ruleset": "nmjl-money",
                      "board": "best_per_week", "best_per_week": 2}),
        )
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    c.goto(&app.url(&format!("/leagues/{}", odd["id"])))
        .await
        .unwrap();
    wait_for(&c, "#league-board").await;
    let kept = c
        .execute(
            "return [document.querySelector('#league-kind').value, document.querySelector('#league-board').value];",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(kept, json!(["league", "best_per_week"]), "{odd}");
    c.close().await.unwrap();
}
