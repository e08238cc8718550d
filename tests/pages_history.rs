//! History in, in headless Chromium at phone size, as an organizer of a club moving in would
//! use it: pick the other server's games.csv, check it (nothing stored), import it, see the
//! standings; a bad file is refused with its line and column on the same page; opening
//! balances pasted, checked and saved show on the league page as carried in.

#[path = "common/browser.rs"]
mod browser;
mod common;

use browser::{axe, browser, click, log_in, shots, text_of, wait_text};
use common::{PASSWORD, club_owner, spawn_app};
use fantoccini::Locator;
use mahjong_league::domain::{AppState, history::demo};
use serde_json::{Value, json};

#[tokio::test]
async fn an_organizer_checks_and_imports_a_games_file_and_sets_balances() {
    let app = spawn_app().await;
    let state = AppState::new(app.db.clone(), &"k".repeat(64));
    demo::ensure(&state).await.unwrap();
    let demo_id: i64 = sqlx::query_scalar("SELECT id FROM leagues WHERE kind = 'league'")
        .fetch_one(&app.db)
        .await
        .unwrap();
    let exported = reqwest::get(app.url(&format!("/api/v1/leagues/{demo_id}/games.csv")))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("games.csv");
    std::fs::write(&good, &exported).unwrap();
    // The same file with one bad date, far down.
    let mut lines: Vec<&str> = exported.lines().collect();
    let bad_line = lines.len() - 5;
    let broken = lines[bad_line - 1].replacen(",20", ",2O", 1);
    lines[bad_line - 1] = &broken;
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, lines.join("\n")).unwrap();

    let owner = club_owner(&app, "movers", "mover@example.org").await;
    let league: Value = owner
        .post(app.url("/api/v1/clubs/movers/leagues"))
        .json(&json!({"name": "Moved league", "card": "demo-2026", "ruleset": "nmjl-money"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let lg = league["id"].as_i64().unwrap();
    let games = || async {
        sqlx::query_scalar::<_, i64>(
            "SELECT count(*) FROM games g JOIN night_tables t ON t.id = g.table_id JOIN nights n ON n.id = t.night_id WHERE n.league_id = $1",
        )
        .bind(lg)
        .fetch_one(&app.db)
        .await
        .unwrap()
    };

    let (_driver, c) = browser().await;
    c.set_window_size(390, 844).await.unwrap();
    log_in(
        &c,
        &app.address,
        "mover@example.org",
        PASSWORD,
        &format!("/leagues/{lg}"),
    )
    .await;
    // From the league page to the import page: one tap on its link.
    click(&c, &format!("a[href='/leagues/{lg}/import']")).await;
    wait_text(&c, "h1", "History in").await;

    // A bad file: refused on the page, the problem by line and column; nothing stored.
    let file = c.find(Locator::Css("#games-file")).await.unwrap();
    file.send_keys(bad.to_str().unwrap()).await.unwrap();
    click(&c, "#games button[value=check]").await;
    let refused = wait_text(&c, "#games [role=alert]", "nothing was stored").await;
    assert!(refused.contains(&format!("line {bad_line}")), "{refused}");
    let row = text_of(&c, "#games table.problems tbody tr").await;
    assert!(
        row.starts_with(&bad_line.to_string()) && row.contains("date"),
        "{row}"
    );
    assert_eq!(games().await, 0);

    // The good file, checked: what would be stored, and still nothing stored.
    let file = c.find(Locator::Css("#games-file")).await.unwrap();
    file.send_keys(good.to_str().unwrap()).await.unwrap();
    click(&c, "#games button[value=check]").await;
    let checked = wait_text(&c, "#games [role=status]", "Checked, nothing stored").await;
    assert!(
        checked.contains("Players the club does not have yet"),
        "{checked}"
    );
    assert_eq!(games().await, 0);
    let (rules, found) = axe(&c).await;
    assert!(rules > 10);
    assert_eq!(found, json!([]), "axe on the checked import");

    // Imported: the answer stays on screen, then the standings.
    let file = c.find(Locator::Css("#games-file")).await.unwrap();
    file.send_keys(good.to_str().unwrap()).await.unwrap();
    click(&c, "#games button[value=import]").await;
    let done = wait_text(&c, "#games [role=status]", "Imported:").await;
    let stored = games().await;
    assert!(
        done.contains(&format!("Imported: {stored} games")),
        "{done}"
    );
    assert!(stored > 0);
    shots(&c, "import-done").await;
    // An imported game's page says where it came from.
    let game: i64 = sqlx::query_scalar(
        "SELECT g.id FROM games g JOIN night_tables t ON t.id = g.table_id JOIN nights n ON n.id = t.night_id \
         WHERE n.league_id = $1 AND g.outcome = 'mahjong' ORDER BY g.id LIMIT 1",
    )
    .bind(lg)
    .fetch_one(&app.db)
    .await
    .unwrap();
    c.goto(&app.url(&format!("/games/{game}/edit")))
        .await
        .unwrap();
    wait_text(&c, "main", "imported from a games.csv, line").await;
    c.goto(&app.url(&format!("/leagues/{lg}/import")))
        .await
        .unwrap();

    // Opening balances pasted and saved: on the league page as carried in.
    c.set_window_size(390, 844).await.unwrap();
    let area = c.find(Locator::Css("#balances-text")).await.unwrap();
    area.clear().await.unwrap();
    area.send_keys("player,points,games,wins\nNew Arrival,75,3,1\n")
        .await
        .unwrap();
    click(&c, "#balances button[value=import]").await;
    wait_text(&c, "#balances [role=status]", "Saved: 1 balances").await;
    c.goto(&app.url(&format!("/leagues/{lg}"))).await.unwrap();
    let standings = text_of(&c, "#standings").await;
    assert!(
        standings.contains("75 points over 3 games (1 win) carried in"),
        "{standings}"
    );
}

/// Issue 37, item 3: the balances box keeps what was typed through a check, so Save stores
/// exactly what was checked; each problem names the line as the box counts it (the header is
/// line 1).
#[tokio::test]
async fn opening_balances_checked_then_saved_keep_what_was_typed() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "carry", "carry@example.org").await;
    let t = common::one_table(&app, &owner, "carry", &["Ann", "Bea", "Cy", "Dot"]).await;
    let lg = t.league;
    let (_driver, c) = browser().await;
    c.set_window_size(390, 844).await.unwrap();
    log_in(
        &c,
        &app.address,
        "carry@example.org",
        PASSWORD,
        &format!("/leagues/{lg}/import"),
    )
    .await;
    let typed = |text: &'static str| {
        let c = c.clone();
        async move {
            let area = c.find(Locator::Css("#balances-text")).await.unwrap();
            area.clear().await.unwrap();
            area.send_keys(text).await.unwrap();
        }
    };
    let boxed = || async {
        c.find(Locator::Css("#balances-text"))
            .await
            .unwrap()
            .prop("value")
            .await
            .unwrap()
            .unwrap_or_default()
            .replace("\r\n", "\n")
    };
    let stored = || async {
        sqlx::query_as::<_, (String, i64)>(
            "SELECT p.name, b.points FROM opening_balances b JOIN players p ON p.id = b.player_id \
             WHERE b.league_id = $1 ORDER BY p.name",
        )
        .bind(lg)
        .fetch_all(&app.db)
        .await
        .unwrap()
    };
    // What the club carried in, saved once.
    typed("player,points,games,wins\nAnn,40,3,1\nBea,20,2,0").await;
    click(&c, "#balances button[value=import]").await;
    wait_text(&c, "#balances [role=status]", "Saved: 2 balances").await;
    assert_eq!(
        stored().await,
        vec![("Ann".to_string(), 40), ("Bea".to_string(), 20)]
    );

    // Ann's 40 becomes 45 and Cy is added with a mistake on the box's line 4: the check names
    // line 4, and the box still holds what was typed.
    const WRONG: &str = "player,points,games,wins\nAnn,45,3,1\nBea,20,2,0\nCy,lots,1,0";
    typed(WRONG).await;
    click(&c, "#balances button[value=check]").await;
    wait_text(&c, "#balances [role=alert]", "nothing was stored").await;
    let row = text_of(&c, "#balances table.problems tbody tr").await;
    assert!(
        row.starts_with("4"),
        "the problem is on the box's line 4: {row}"
    );
    assert!(row.contains("points"), "{row}");
    assert_eq!(
        boxed().await.trim_end(),
        WRONG,
        "the box keeps the text checked"
    );

    // Fixed in the box and checked: still what was typed; Save then stores exactly that.
    let area = c.find(Locator::Css("#balances-text")).await.unwrap();
    let fixed = WRONG.replace("lots", "30");
    area.clear().await.unwrap();
    area.send_keys(&fixed).await.unwrap();
    click(&c, "#balances button[value=check]").await;
    wait_text(&c, "#balances [role=status]", "3 balances would be saved").await;
    assert_eq!(boxed().await.trim_end(), fixed);
    assert_eq!(stored().await.len(), 2, "a check stores nothing");
    click(&c, "#balances button[value=import]").await;
    wait_text(&c, "#balances [role=status]", "Saved: 3 balances").await;
    assert_eq!(
        stored().await,
        vec![
            ("Ann".to_string(), 45),
            ("Bea".to_string(), 20),
            ("Cy".to_string(), 30)
        ]
    );
    let (_, found) = axe(&c).await;
    assert_eq!(found, json!([]), "the saved balances pass axe");
}
