//! The season's pictures in a real headless Chromium, as a player uses them: on her phone she
//! opens the league, taps her name in the standings and reads her season; an organizer opens
//! the league's season on a tablet. Every chart fits the screen at 390 and 820 px, draws a
//! mark for every value it names (negative points too), no two labels overlap, each says its
//! numbers in words and as a table, and axe-core finds nothing. The charts are in the HTML the
//! server sends (no script draws them).

#[path = "common/browser.rs"]
mod browser;
mod common;

use browser::*;
use common::{TestApp, club_owner, ok_json as ok, spawn_app};
use serde_json::{Value, json};

const WIN: &str = "F F 2B 2B J 2B 4C 4C 6C 6C 8B 8B J 8B";
const WIN_JOKERLESS: &str = "F F 2B 2B 2B 2B 4C 4C 6C 6C 8B 8B 8B 8B";

/// A public league of eight players over four nights at two tables, each table's four games
/// won in turn by self-pick, on a discard, jokerless, or a wall game: some players end nights
/// below zero.
async fn season(app: &TestApp) -> (i64, Vec<i64>) {
    let owner = club_owner(app, "tiles", "o@example.org").await;
    let mut players = Vec::new();
    for name in [
        "Ann Lee",
        "Bea Castillo",
        "Cy Ito",
        "Dot Moreau",
        "Eve Nakamura",
        "Fay Goldman",
        "Gwen Harper",
        "Hal O'Brien",
    ] {
        let p = ok(owner
            .post(app.url("/api/v1/clubs/tiles/players"))
            .json(&json!({"name": name}))
            .send()
            .await
            .unwrap())
        .await;
        players.push(p["id"].as_i64().unwrap());
    }
    let league = ok(owner
        .post(app.url("/api/v1/clubs/tiles/leagues"))
        .json(&json!({"name": "Tuesday league", "card": "demo-2026", "ruleset": "nmjl-money", "visibility": "public"}))
        .send()
        .await
        .unwrap())
    .await["id"]
        .as_i64()
        .unwrap();
    for night in 0..4usize {
        let n = ok(owner
            .post(app.url(&format!("/api/v1/leagues/{league}/nights")))
            .json(&json!({"date": format!("2026-03-{:02}", 3 + 7 * night)}))
            .send()
            .await
            .unwrap())
        .await["id"]
            .as_i64()
            .unwrap();
        for p in &players {
            ok(owner
                .put(app.url(&format!("/api/v1/nights/{n}/checkins/{p}")))
                .send()
                .await
                .unwrap())
            .await;
        }
        // Tables mixed each night.
        let mut order = players.clone();
        let len = order.len();
        order.rotate_left((night * 3) % len);
        let tables = vec![order[..4].to_vec(), order[4..].to_vec()];
        let locked = ok(owner
            .put(app.url(&format!("/api/v1/nights/{n}/tables")))
            .json(&json!({ "tables": tables }))
            .send()
            .await
            .unwrap())
        .await;
        for (t, seats) in tables.iter().enumerate() {
            let table = locked["tables"][t]["id"].as_i64().unwrap();
            for g in 0..4 {
                let winner = seats[(g + night + t) % 4];
                let body = match (g + night) % 4 {
                    0 => {
                        json!({"outcome": "mahjong", "winner": winner, "hand": WIN, "won_by": "self_pick"})
                    }
                    1 => {
                        json!({"outcome": "mahjong", "winner": winner, "hand": WIN, "won_by": "discard",
                               "discarder": seats[(g + night + t + 1) % 4]})
                    }
                    2 => {
                        json!({"outcome": "mahjong", "winner": winner, "hand": WIN_JOKERLESS, "won_by": "discard",
                               "discarder": seats[(g + night + t + 2) % 4]})
                    }
                    _ => json!({"outcome": "wall"}),
                };
                ok(owner
                    .post(app.url(&format!("/api/v1/tables/{table}/games")))
                    .json(&body)
                    .send()
                    .await
                    .unwrap())
                .await;
            }
        }
    }
    (league, players)
}

/// The page's charts: each one's description, its table's row count, its marks as named.
async fn charts(c: &fantoccini::Client) -> Value {
    c.execute(
        "return Array.from(document.querySelectorAll('figure.chart')).map(f => {
           const svg = f.querySelector('svg');
           // Its own table follows it, or a link to the table it shares with other charts.
           const next = f.nextElementSibling;
           const link = next.matches('p.chart-numbers') ? next.querySelector('a') : null;
           const table = (link ? document.querySelector(link.getAttribute('href')) : next)
             .querySelectorAll('tbody tr').length;
           const title = document.getElementById(f.getAttribute('aria-labelledby')).textContent;
           return [title, svg.querySelector('desc').textContent, table, Number(svg.dataset.marks)];
         });",
        vec![],
    )
    .await
    .unwrap()
}

#[tokio::test]
async fn a_player_reads_her_season_on_her_phone_and_the_league_its_own() {
    let app = spawn_app().await;
    let (league, players) = season(&app).await;
    let (_driver, c) = browser().await;
    c.set_window_size(390, 844).await.unwrap();
    c.goto(&app.url(&format!("/leagues/{league}")))
        .await
        .unwrap();
    // Her name in the standings opens her season.
    let mut hands = Hands::new(&c);
    let first = c
        .execute(
            "return document.querySelector('table.standings tbody th a').textContent",
            vec![],
        )
        .await
        .unwrap();
    let name = first.as_str().unwrap().to_string();
    hands.tap("table.standings tbody th a").await;
    wait_text(&c, "h1", &format!("{name}’s season")).await;
    assert_eq!(hands.taps, 1);
    let url = c.current_url().await.unwrap();
    assert!(
        url.path()
            .starts_with(&format!("/leagues/{league}/players/")),
        "{url}"
    );
    let player: i64 = url.path().rsplit('/').next().unwrap().parse().unwrap();
    let doc = ok(app
        .client
        .get(app.url(&format!("/api/v1/leagues/{league}/players/{player}/season")))
        .send()
        .await
        .unwrap())
    .await;

    // Five pictures, each said in numbers and given as a table.
    let seen = charts(&c).await;
    let seen = seen.as_array().unwrap();
    let titles: Vec<&str> = seen.iter().map(|f| f[0].as_str().unwrap()).collect();
    assert_eq!(
        titles,
        [
            "Points night by night",
            "Place after each night",
            "Rating over the season",
            "Wins by section of the card",
            "How the hands were won"
        ]
    );
    let periods = doc["periods"].as_array().unwrap();
    let last = periods.last().unwrap();
    let said = seen[0][1].as_str().unwrap();
    assert!(
        said.contains(
            &last["total"]
                .as_i64()
                .unwrap()
                .to_string()
                .replace('-', "−")
        ),
        "{said}"
    );
    for f in &seen[..3] {
        assert_eq!(f[2].as_u64(), Some(periods.len() as u64), "{f}");
        assert_eq!(f[3].as_u64(), Some(periods.len() as u64), "{f}");
    }
    let sections = doc["sections"].as_array().unwrap().len() as u64;
    assert_eq!(seen[3][3].as_u64(), Some(sections), "every section drawn");
    let wins = doc["counts"]["wins"].as_i64().unwrap();
    assert!(
        seen[4][1]
            .as_str()
            .unwrap()
            .contains(&format!("{wins} win")),
        "{}",
        seen[4][1]
    );
    // Some nights below zero are drawn too (below the zero line, dashed).
    let below = c
        .execute(
            "return document.querySelectorAll('figure.chart rect.bar.below').length",
            vec![],
        )
        .await
        .unwrap();
    let negative = periods
        .iter()
        .filter(|p| p["points"].as_i64().unwrap() < 0)
        .count();
    assert_eq!(below.as_u64(), Some(negative as u64));
    // Head-to-head: a row per opponent.
    let rows = c
        .execute(
            "return document.querySelectorAll('#head-to-head tbody tr').length",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(
        rows.as_u64(),
        Some(doc["opponents"].as_array().unwrap().len() as u64)
    );
    // ... and it fits the phone's width: nothing to swipe sideways for.
    let overflow = c
        .execute(
            "const s = document.querySelector('#head-to-head .scroll');
             return s.scrollWidth - s.clientWidth;",
            vec![],
        )
        .await
        .unwrap();
    assert!(
        overflow.as_f64().unwrap() <= 0.5,
        "the head-to-head table is {overflow} px wider than a 390-px phone"
    );
    // The three charts over the season share one table, night by night: the link under the
    // first opens it, and its last row is her last night.
    click(&c, "figure.chart + p.chart-numbers a").await;
    let open = c
        .execute(
            "return document.getElementById('by-period').closest('details').open",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(open, json!(true), "the link opens the table");
    let row = c
        .execute(
            "const rows = document.querySelectorAll('#by-period tbody tr');
             return Array.from(rows[rows.length - 1].children).map(c => c.textContent);",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(row[0], last["label"], "{row}");
    assert_eq!(row[3], last["points"].to_string(), "{row}");
    assert_eq!(row[4], last["total"].to_string(), "{row}");
    let whole = charts_whole(&c).await;
    assert!(whole.is_empty(), "her season's charts: {whole:#?}");
    let (rules, found) = axe(&c).await;
    assert!(rules > 10, "axe ran {rules} rules");
    assert_eq!(found, json!([]), "axe on her season");
    shots(&c, "player-season").await;

    // The league's season on a tablet.
    c.set_window_size(820, 1180).await.unwrap();
    c.goto(&app.url(&format!("/leagues/{league}")))
        .await
        .unwrap();
    click(&c, &format!("a[href='/leagues/{league}/season']")).await;
    wait_text(&c, "h1", "the season").await;
    let seen = charts(&c).await;
    let titles: Vec<String> = seen
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f[0].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        titles[..4],
        [
            "Who came, night by night",
            "Wins by section of the card",
            "How games ended",
            "East's wins against a quarter"
        ]
    );
    // Small multiples: the top six, one scale.
    assert_eq!(titles.len(), 4 + 6, "{titles:?}");
    let whole = charts_whole(&c).await;
    assert!(whole.is_empty(), "the league's season: {whole:#?}");
    let (_, found) = axe(&c).await;
    assert_eq!(found, json!([]), "axe on the league's season");
    let never = text_of(&c, "#never-won").await;
    assert!(never.starts_with("Never won this season:"), "{never}");
    shots(&c, "league-season").await;

    // With scripts off the pictures are there: they are in the HTML the server sends.
    for path in [
        format!("/leagues/{league}/players/{}", players[0]),
        format!("/leagues/{league}/season"),
    ] {
        let html = app
            .client
            .get(app.url(&path))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(html.matches("<svg viewBox").count() >= 5, "{path}");
        assert!(html.contains("role=\"img\""));
    }
}

/// A phone on a slow link gets the season pages and the style sheet (which holds back the
/// first paint) gzipped when it takes gzip, and the same bytes unpacked; a client that does
/// not take it gets them as they are.
#[tokio::test]
async fn pages_and_the_style_sheet_go_gzipped_to_a_browser_that_takes_it() {
    use std::io::Read;
    let app = spawn_app().await;
    let (league, players) = season(&app).await;
    for path in [
        "/static/style.css".to_string(),
        "/static/keep.js".to_string(),
        format!("/leagues/{league}/season"),
        format!("/leagues/{league}/players/{}", players[0]),
    ] {
        let plain = app.client.get(app.url(&path)).send().await.unwrap();
        assert_eq!(plain.status(), 200, "{path}");
        assert!(plain.headers().get("content-encoding").is_none(), "{path}");
        let plain = plain.bytes().await.unwrap();
        let packed = app
            .client
            .get(app.url(&path))
            .header("Accept-Encoding", "gzip, deflate, br, zstd")
            .send()
            .await
            .unwrap();
        assert_eq!(packed.status(), 200, "{path}");
        assert_eq!(packed.headers()["content-encoding"], "gzip", "{path}");
        assert_eq!(packed.headers()["vary"], "Accept-Encoding", "{path}");
        let packed = packed.bytes().await.unwrap();
        assert!(
            packed.len() * 2 < plain.len(),
            "{path}: {} bytes gzipped of {}",
            packed.len(),
            plain.len()
        );
        let mut unpacked = Vec::new();
        flate2::read::GzDecoder::new(&packed[..])
            .read_to_end(&mut unpacked)
            .unwrap();
        assert_eq!(unpacked, plain, "{path}");
    }
}
