//! The standings embed as a club's website shows it, in headless Chromium: a page of another
//! origin frames it in a narrow sidebar and a full column, it draws the standings again by itself
//! when a game is recorded (no reload), and axe-core finds nothing serious in it.

#[path = "common/browser.rs"]
mod browser;
mod common;

use std::time::Duration;

use browser::{axe, browser};
use common::{club_owner, one_table, spawn_app};
use fantoccini::{Client, Locator};
use serde_json::json;

const WIN: &str = "F F 2B 2B J 2B 4C 4C 6C 6C 8B 8B J 8B";

/// A club's website on an origin of its own: one page that frames the embed twice (a 260 px
/// sidebar and a full column).
async fn club_website(embed: String) -> (String, tokio::task::JoinHandle<()>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    let page = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Tuesday Tiles</title></head>\
         <body style=\"margin:0\"><main style=\"display:flex;gap:16px\">\
         <iframe id=\"sidebar\" src=\"{embed}\" title=\"Standings (sidebar)\" width=\"260\" height=\"420\" style=\"border:0\"></iframe>\
         <iframe id=\"column\" src=\"{embed}\" title=\"Standings (column)\" width=\"640\" height=\"420\" style=\"border:0\"></iframe>\
         </main></body></html>"
    );
    let task = tokio::spawn(async move {
        while let Ok((mut conn, _)) = listener.accept().await {
            let page = page.clone();
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                let _ = conn.read(&mut buf).await;
                let reply = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
                    page.len()
                );
                let _ = conn.write_all(reply.as_bytes()).await;
            });
        }
    });
    (address, task)
}

async fn frame_text(c: &Client, frame: u16, css: &str) -> String {
    c.enter_parent_frame().await.unwrap();
    c.enter_frame(frame).await.unwrap();
    let text = match c.find(Locator::Css(css)).await {
        Ok(e) => e.text().await.unwrap_or_default(),
        Err(_) => String::new(),
    };
    c.enter_parent_frame().await.unwrap();
    text
}

#[tokio::test]
async fn a_club_website_frames_the_standings_and_they_follow_each_game() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "tiles", "o@example.org").await;
    let t = one_table(
        &app,
        &owner,
        "tiles",
        &["Ann Adler", "Bea Brown", "Cy Chen", "Dot Diaz"],
    )
    .await;
    let res = owner
        .patch(app.url(&format!("/api/v1/leagues/{}", t.league)))
        .json(&json!({"visibility": "public", "name": "Spring league"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let games = app.url(&format!("/api/v1/tables/{}/games", t.table));
    let res = owner
        .post(&games)
        .json(&json!({"outcome": "mahjong", "winner": t.players[0], "hand": WIN, "won_by": "self_pick"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);

    let embed = app.url(&format!("/leagues/{}/embed", t.league));
    let (site, server) = club_website(embed.clone()).await;
    let (_driver, c) = browser().await;
    c.set_window_size(1000, 700).await.unwrap();
    c.goto(&site).await.unwrap();
    // Both frames show the standings: Ann first with her self-pick.
    for frame in [0, 1] {
        let mut first = String::new();
        for _ in 0..50 {
            first = frame_text(&c, frame, "#embed-rows tr:first-child").await;
            if first.contains("Ann Adler") {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert!(first.contains("Ann Adler"), "frame {frame}: {first}");
    }
    // The sidebar drops Games and Wins; the full column shows them.
    let widths = c
        .execute(
            "return Array.from(document.querySelectorAll('iframe')).map(f => {
               const d = f.contentDocument;
               return d ? Array.from(d.querySelectorAll('thead th')).filter(th => th.offsetWidth > 0).length : -1; });",
            vec![],
        )
        .await
        .unwrap();
    // The frames are of another origin: the site's script cannot look inside them.
    assert_eq!(
        widths,
        json!([-1, -1]),
        "the embed is not readable by the framing site"
    );
    c.enter_frame(0).await.unwrap();
    let narrow = c
        .execute("return [document.documentElement.scrollWidth, window.innerWidth, Array.from(document.querySelectorAll('thead th')).filter(th => th.offsetWidth > 0).length];", vec![])
        .await
        .unwrap();
    c.enter_parent_frame().await.unwrap();
    assert!(
        narrow[0].as_u64() <= narrow[1].as_u64(),
        "no sideways scroll in the sidebar: {narrow}"
    );
    assert_eq!(
        narrow[2], 3,
        "rank, player and points in the sidebar: {narrow}"
    );
    c.enter_frame(1).await.unwrap();
    let wide = c
        .execute("return Array.from(document.querySelectorAll('thead th')).filter(th => th.offsetWidth > 0).length;", vec![])
        .await
        .unwrap();
    c.enter_parent_frame().await.unwrap();
    assert_eq!(wide, 5, "every column in a full column");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("embed-on-a-club-site.png"),
        c.screenshot().await.unwrap(),
    )
    .unwrap();

    // Wait until both frames follow the stream, then Bea wins twice: both frames put her first.
    for frame in [0, 1] {
        let mut live = String::new();
        for _ in 0..50 {
            live = frame_text(&c, frame, "#embed-live").await;
            if live.starts_with("Live") {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert!(live.starts_with("Live"), "frame {frame}: {live}");
    }
    for number in [2, 3] {
        let res = owner
            .post(&games)
            .json(&json!({"number": number, "outcome": "mahjong", "winner": t.players[1], "hand": WIN, "won_by": "self_pick"}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 201);
    }
    for frame in [0, 1] {
        let mut first = String::new();
        for _ in 0..50 {
            first = frame_text(&c, frame, "#embed-rows tr:first-child").await;
            if first.contains("Bea Brown") {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert!(
            first.contains("Bea Brown"),
            "frame {frame} followed the games: {first}"
        );
        assert!(
            frame_text(&c, frame, "#embed-live")
                .await
                .contains("updated")
        );
    }

    // The embed on its own, at a phone's width: nothing serious for axe-core.
    c.set_window_size(390, 844).await.unwrap();
    c.goto(&embed).await.unwrap();
    let (rules, serious) = axe(&c).await;
    assert!(rules > 10, "axe ran");
    assert_eq!(
        serious,
        json!([]),
        "serious accessibility problems on the embed"
    );
    std::fs::write(dir.join("embed-phone.png"), c.screenshot().await.unwrap()).unwrap();
    c.close().await.unwrap();
    server.abort();
}
