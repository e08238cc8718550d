//! The scoring screen as a scorer uses it, in headless Chromium at tablet (820×1180) and phone
//! (390×844) sizes: taps and scrolls counted for the common games, Save held back until the
//! engine accepts the game, games kept on the tablet while the network is away (across a
//! reload) and sent once each when it is back, and axe-core run on the screen.

#[path = "common/browser.rs"]
mod browser;
mod common;

use std::time::Duration;

use browser::*;
use common::{PASSWORD, TestApp, club_owner, one_table, spawn_app};
use fantoccini::{Client, Locator};
use serde_json::{Value, json};

const TABLET: (u32, u32) = (820, 1180);
const PHONE: (u32, u32) = (390, 844);

/// Sets the size of the page's viewport (not of the window around it).
async fn viewport(c: &Client, (w, h): (u32, u32)) {
    c.set_window_size(w, h).await.unwrap();
    let inner = c
        .execute("return [window.innerWidth, window.innerHeight];", vec![])
        .await
        .unwrap();
    let (iw, ih) = (
        inner[0].as_u64().unwrap() as u32,
        inner[1].as_u64().unwrap() as u32,
    );
    c.set_window_size(w + (w - iw.min(w)), h + (h - ih.min(h)))
        .await
        .unwrap();
}

async fn shot(c: &Client, name: &str) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join(format!("{name}.png")),
        c.screenshot().await.unwrap(),
    )
    .unwrap();
}

async fn games(app: &TestApp, owner: &reqwest::Client, table: i64) -> Vec<Value> {
    let rows: Vec<(i64,)> =
        sqlx::query_as("SELECT id FROM games WHERE table_id = $1 ORDER BY number, id")
            .bind(table)
            .fetch_all(&app.db)
            .await
            .unwrap();
    let mut out = Vec::new();
    for (id,) in rows {
        let g: Value = owner
            .get(app.url(&format!("/api/v1/games/{id}")))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        out.push(g);
    }
    out
}

/// Opens the scoring screen at the top and waits until the script has set it up.
/// Whether the service worker keeps the page at `path` in its cache.
async fn kept(c: &Client, path: &str) -> bool {
    c.execute_async(
        "const done = arguments[arguments.length - 1];
         caches.match(arguments[0]).then(r => done(!!r)).catch(() => done(false));",
        vec![json!(path)],
    )
    .await
    .unwrap()
        == json!(true)
}

/// Whether the service worker serves the page.
async fn controlled(c: &Client) -> bool {
    c.execute("return !!navigator.serviceWorker.controller;", vec![])
        .await
        .unwrap()
        == json!(true)
}

async fn open(c: &Client, url: &str, game: u32) {
    c.goto(url).await.unwrap();
    wait_text(c, "h1", &format!("game {game}")).await;
    wait_for(c, "#score[data-table] .entry-modes:not([hidden])").await;
}

/// Waits until game `game` is saved, then checks the screen as the scorer goes on without a
/// reload: the fixed bar stays small, the page never scrolls sideways, Save (or, after the last
/// game, the "all entered" note) is on screen, and the answer is whole and readable.
async fn saved(c: &Client, game: u32) {
    wait_text(c, "#sent", &format!("Saved game {game}")).await;
    let m = c
        .execute(
            "const bar = document.getElementById('score-bar').getBoundingClientRect();
             const sent = document.getElementById('sent').getBoundingClientRect();
             return [bar.height, window.innerHeight, document.documentElement.scrollWidth,
                     window.innerWidth, sent.left, sent.right, sent.width,
                     document.getElementById('score-bar').innerText];",
            vec![],
        )
        .await
        .unwrap();
    let f = |i: usize| m[i].as_f64().unwrap();
    let (bar, high, page_w, wide) = (f(0), f(1), f(2), f(3));
    shot(c, &format!("score-saved-game{game}-{wide}px")).await;
    assert!(
        bar < high * 0.22,
        "after game {game} the bar is {bar} px of a {high} px screen: {}",
        m[7]
    );
    assert!(
        page_w <= wide,
        "after game {game} the page is {page_w} px wide on a {wide} px screen"
    );
    assert!(
        f(4) >= 0.0 && f(5) <= wide + 0.5 && f(6) >= 150.0_f64.min(wide / 2.0),
        "after game {game} the answer is squeezed or cut: left {} right {} width {}",
        f(4),
        f(5),
        f(6)
    );
    let h = Hands::new(c);
    let last = c
        .find(Locator::Css("#all-played:not([hidden])"))
        .await
        .is_ok();
    if last {
        assert!(h.on_screen("#all-played").await);
    } else {
        // The next game's form is empty: no verdict or points of the game just saved (a check
        // of it may still have been on its way), and Save waits for a winner.
        tokio::time::sleep(Duration::from_millis(400)).await;
        assert_eq!(
            text_of(c, "#verdict").await,
            "Tap who won, or Wall game.",
            "after game {game}"
        );
        assert_eq!(text_of(c, "#points").await, "", "after game {game}");
        assert!(
            c.find(Locator::Css("#save[disabled]")).await.is_ok(),
            "after game {game} Save is enabled on an empty form"
        );
        assert!(
            h.on_screen("#save").await,
            "after game {game} Save is not on screen"
        );
        assert!(
            h.on_screen(".who-won").await,
            "after game {game} the next game starts at the top"
        );
    }
}

async fn seat_ids(app: &TestApp, slug: &str) -> (reqwest::Client, common::OneTable) {
    let owner = club_owner(app, slug, "scorer@example.org").await;
    let t = one_table(app, &owner, slug, &["Ann", "Bea", "Cy", "Dot"]).await;
    (owner, t)
}

const SELF_PICK: [&str; 14] = [
    "F", "F", "2B", "2B", "J", "2B", "4C", "4C", "6C", "6C", "8B", "8B", "J", "8B",
];
/// 2468#1 as 222 444 Bams, 6666 8888 Craks, a joker in the 8s.
const EXPOSED: [&str; 14] = [
    "2B", "2B", "2B", "4B", "4B", "4B", "6C", "6C", "6C", "6C", "8C", "8C", "8C", "J",
];

/// The four common games at one size; returns (taps, scrolls) for each.
async fn four_games(size: (u32, u32), label: &str) -> Vec<(&'static str, u32, u32, u32)> {
    let app = spawn_app().await;
    let (owner, t) = seat_ids(&app, "thursday").await;
    let (ann, bea, cy) = (t.players[0], t.players[1], t.players[2]);
    let (_driver, c) = browser().await;
    log_in(&c, &app.address, "scorer@example.org", PASSWORD, "/").await;
    viewport(&c, size).await;
    let score = app.url(&format!("/tables/{}/score", t.table));
    let mut counts = Vec::new();

    // (a) A concealed self-pick: the winner, how she won, 14 tiles, Save. *How?* starts with
    // nothing chosen (a self-pick assumed would make the other three pay double).
    open(&c, &score, 1).await;
    assert!(
        c.find(Locator::Css("input[name=how]:checked"))
            .await
            .is_err(),
        "nothing is chosen for the scorer"
    );
    // A scorer who skips *How?* is told, after the hand is checked, and Save waits.
    click(&c, &format!("input[name=won][value='{ann}']")).await;
    for tile in SELF_PICK {
        click(&c, &format!("#picker button[data-tile='{tile}']")).await;
    }
    let v = wait_text(
        &c,
        "#verdict",
        "Say how Ann won: self-pick, or whose discard.",
    )
    .await;
    assert!(v.contains("Ann: 2468#2"), "the hand is checked first: {v}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(c.find(Locator::Css("#save[disabled]")).await.is_ok());
    // As a scorer does it, counted from a fresh screen: who won, how, the tiles, Save.
    open(&c, &score, 1).await;
    let mut h = Hands::new(&c);
    h.tap(&format!("input[name=won][value='{ann}']")).await;
    h.tap("input[name=how][value=self_pick]").await;
    for (i, tile) in SELF_PICK.iter().enumerate() {
        h.tap(&format!("#picker button[data-tile='{tile}']")).await;
        if i == 12 {
            let v = wait_text(&c, "#verdict", "13 of 14").await;
            assert!(v.contains("Ann's hand"), "{v}");
            assert!(c.find(Locator::Css("#save[disabled]")).await.is_ok());
        }
    }
    let v = wait_text(&c, "#verdict", "2468#2").await;
    assert!(v.contains("Ann: 2468#2 · 25"), "{v}");
    let pts = wait_text(&c, "#points", "Ann +").await;
    assert!(pts.contains("Bea −") && pts.contains("Cy −"), "{pts}");
    assert!(h.on_screen("#verdict").await && h.on_screen("#points").await);
    shot(&c, &format!("score-selfpick-{label}")).await;
    wait_for(&c, "#save:not([disabled])").await;
    h.tap("#save").await;
    saved(&c, 1).await;
    counts.push(("concealed self-pick", h.taps, h.scrolls, h.blocked));
    // The next game is ready at once, with the night's points so far.
    wait_text(&c, "h1", "game 2").await;
    let totals = text_of(&c, ".totals").await;
    assert!(totals.contains("Ann"), "{totals}");
    assert_ne!(
        text_of(&c, &format!("[data-total-of='{ann}']")).await,
        "0",
        "Ann's points for the night are on the screen"
    );

    // (b) A discard win with two exposures: Bea went out on Cy's discard, her two kongs exposed.
    // No reload between games, as at a real table.
    let mut h = Hands::new(&c);
    h.tap(&format!("input[name=won][value='{bea}']")).await;
    assert!(
        !c.find(Locator::Css(&format!("[data-discarder='{bea}']")))
            .await
            .unwrap()
            .is_displayed()
            .await
            .unwrap(),
        "the winner is not offered as the discarder"
    );
    h.tap(&format!("input[name=how][value='discard:{cy}']"))
        .await;
    for tile in EXPOSED {
        h.tap(&format!("#picker button[data-tile='{tile}']")).await;
    }
    wait_text(&c, "#verdict", "2468#1").await;
    wait_for(&c, "#hand-view button.group:nth-of-type(3)").await;
    // Tap the two kongs in the hand to mark them exposed.
    h.tap("#hand-view button.group:nth-of-type(3)").await;
    h.tap("#hand-view button.group:nth-of-type(4)").await;
    let v = wait_text(&c, "#verdict", "2 exposures").await;
    assert!(v.contains("Bea: 2468#1"), "{v}");
    assert_eq!(
        c.find_all(Locator::Css("#hand-view .group.exposed"))
            .await
            .unwrap()
            .len(),
        2
    );
    wait_text(&c, "#points", "Cy −").await;
    shot(&c, &format!("score-exposed-{label}")).await;
    wait_for(&c, "#save:not([disabled])").await;
    h.tap("#save").await;
    saved(&c, 2).await;
    counts.push(("discard win, two exposures", h.taps, h.scrolls, h.blocked));

    // (c) A wall game with a dead hand called.
    wait_text(&c, "h1", "game 3").await;
    let mut h = Hands::new(&c);
    h.tap("input[name=won][value=wall]").await;
    h.tap("#rare summary").await;
    h.choose("#dead0", &cy.to_string()).await;
    h.choose("#caller0", &ann.to_string()).await;
    wait_text(&c, "#verdict", "Wall game").await;
    wait_for(&c, "#save:not([disabled])").await;
    h.tap("#save").await;
    saved(&c, 3).await;
    counts.push(("wall game, dead hand", h.taps, h.scrolls, h.blocked));

    // (d) Line first: Dot (East in game 4) won 2468#1 from the card; a joker in one kong.
    wait_text(&c, "h1", "game 4").await;
    let mut h = Hands::new(&c);
    let dot = t.players[3];
    h.tap(&format!("input[name=won][value='{dot}']")).await;
    h.tap("input[name=how][value=self_pick]").await;
    assert!(
        c.find(Locator::Css(".east-only"))
            .await
            .unwrap()
            .is_displayed()
            .await
            .unwrap(),
        "heavenly and earthly are offered when East won"
    );
    h.tap("#by-card").await;
    wait_for(&c, "#card-lines button.line").await;
    h.type_into("#line-search", "2468").await;
    wait_for(&c, "#card-lines button[data-line='2468#1']").await;
    // Each line is drawn in its suits, as printed, and said in words.
    let drawn = c
        .execute(
            "const b = document.querySelector(\"#card-lines button[data-line='2468#1']\");
             const suits = Array.from(document.querySelectorAll('#picker .tile.bam, #picker .tile.crak, #picker .tile.dot'))
               .map(t => getComputedStyle(t).color);
             const inks = Array.from(b.querySelectorAll('.sk-group:not(.plain)')).map(g => getComputedStyle(g).color);
             return [b.querySelectorAll('.sk-group').length, b.querySelector('.line-said').textContent,
                     b.querySelector('.line-head').textContent, inks.filter(i => suits.includes(i)), inks.length, new Set(suits).size];",
            vec![],
        )
        .await
        .unwrap();
    // Named as the printed card names it, in inks that are none of the tile picker's suits.
    assert!(
        drawn[2].as_str().unwrap().starts_with("2468 · line 1 · "),
        "{drawn}"
    );
    assert!(drawn[4].as_u64().unwrap() >= 2, "{drawn}");
    assert_eq!(drawn[5], 3, "the picker's three suit colours: {drawn}");
    assert_eq!(
        drawn[3],
        json!([]),
        "a line drawn in a suit's colour: {drawn}"
    );
    assert!(drawn[0].as_u64().unwrap() >= 3, "groups drawn: {drawn}");
    assert!(
        drawn[1].as_str().unwrap().contains(" of "),
        "in words: {drawn}"
    );
    shot(&c, &format!("score-from-card-{label}")).await;
    h.tap("#card-lines button[data-line='2468#1']").await;
    wait_text(
        &c,
        "#target-list",
        "222 Bam · 444 Bam · 6666 Crak · 8888 Crak",
    )
    .await;
    let pick = c
        .execute(
            "const b = Array.from(document.querySelectorAll('#target-list button'))
               .findIndex(b => b.textContent === '222 Bam · 444 Bam · 6666 Crak · 8888 Crak');
             return b + 1;",
            vec![],
        )
        .await
        .unwrap();
    h.tap(&format!("#target-list li:nth-child({pick}) button"))
        .await;
    // The card's tiles are all naturals: the screen asks about jokers before anything is saved.
    wait_text(&c, "#verdict", "Jokers in Dot's hand?").await;
    assert!(c.find(Locator::Css("#save[disabled]")).await.is_ok());
    wait_for(&c, "#jokers-ask:not([hidden])").await;
    h.tap("#hand-view button.group:nth-of-type(4)").await;
    wait_text(&c, "#hand-view", "Joker").await;
    until("the hand is checked again with its joker", async || {
        let v = text_of(&c, "#verdict").await;
        v.contains("Dot: 2468#1") && !v.contains("jokerless")
    })
    .await;
    wait_for(&c, "#save:not([disabled])").await;
    h.tap("#save").await;
    saved(&c, 4).await;
    counts.push(("line first, one joker", h.taps, h.scrolls, h.blocked));

    // All four games played: the screen says so instead of offering game 5.
    let done = wait_text(&c, "#all-played", "entered all 4 games").await;
    assert!(done.contains("Table 1"), "{done}");
    let heading = text_of(&c, "h1").await;
    assert_eq!(heading, "Table 1 · all 4 games entered");
    for p in &t.players {
        assert!(
            !c.find(Locator::Css(&format!("[data-wind-of='{p}']")))
                .await
                .unwrap()
                .is_displayed()
                .await
                .unwrap(),
            "no winds for a game that is not played"
        );
    }
    assert!(
        !c.find(Locator::Css("#score"))
            .await
            .unwrap()
            .is_displayed()
            .await
            .unwrap()
    );

    // What was stored is what was entered.
    let g = games(&app, &owner, t.table).await;
    assert_eq!(g.len(), 4, "{g:?}");
    assert_eq!(
        (g[0]["line"].as_str(), g[0]["won_by"].as_str()),
        (Some("2468#2"), Some("self_pick"))
    );
    assert_eq!(g[1]["line"], "2468#1");
    assert_eq!(g[1]["won_by"], "discard");
    assert_eq!(g[1]["discarder"], json!(cy));
    assert_eq!(g[1]["exposures"].as_array().unwrap().len(), 2, "{}", g[1]);
    assert_eq!(g[2]["outcome"], "wall");
    assert_eq!(g[2]["dead"][0]["player"], json!(cy));
    assert_eq!(g[3]["line"], "2468#1");
    assert!(g[3]["hand"].as_str().unwrap().contains('J'), "{}", g[3]);
    c.close().await.unwrap();
    counts
}

fn report(label: &str, counts: &[(&str, u32, u32, u32)]) {
    for (what, taps, scrolls, blocked) in counts {
        println!("{label}: {what}: {taps} taps, {scrolls} scrolls ({blocked} under the score bar)");
    }
}

#[tokio::test]
async fn a_tablet_scores_the_common_games_in_few_taps_and_no_scrolls() {
    let counts = four_games(TABLET, "tablet").await;
    report("tablet 820x1180", &counts);
    let [a, b, w, d] = counts.as_slice() else {
        panic!("{counts:?}")
    };
    assert!(a.1 <= 17 && a.2 == 0, "concealed self-pick: {a:?}");
    assert!(b.1 <= 20 && b.2 == 0, "exposed discard win: {b:?}");
    assert!(w.1 <= 8 && w.2 == 0, "wall game with a dead hand: {w:?}");
    assert!(d.1 <= 9 && d.2 == 0, "line first: {d:?}");
}

#[tokio::test]
async fn a_phone_scores_the_common_games_in_few_taps_and_scrolls() {
    let counts = four_games(PHONE, "phone").await;
    report("phone 390x844", &counts);
    let [a, b, w, d] = counts.as_slice() else {
        panic!("{counts:?}")
    };
    assert!(a.1 <= 17 && a.2 <= 1, "concealed self-pick: {a:?}");
    assert!(b.1 <= 20 && b.2 <= 2, "exposed discard win: {b:?}");
    assert!(w.1 <= 8 && w.2 <= 2, "wall game with a dead hand: {w:?}");
    assert!(d.1 <= 9 && d.2 <= 2, "line first: {d:?}");
    // Nothing that is tapped next is ever under the score bar: it comes up above it.
    for c in &counts {
        assert_eq!(c.3, 0, "taps the score bar covered: {c:?}");
    }
}

/// How many games wait on this page's tablet for its table.
async fn waiting(c: &Client) -> usize {
    c.execute(
        "const k = Object.keys(localStorage).find(k => k.startsWith('mahjong-league:queue:'));
         return k ? JSON.parse(localStorage.getItem(k)).length : 0;",
        vec![],
    )
    .await
    .unwrap()
    .as_u64()
    .unwrap() as usize
}

async fn until(what: &str, mut f: impl AsyncFnMut() -> bool) {
    for _ in 0..300 {
        if f().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("never: {what}");
}

#[tokio::test]
async fn games_kept_offline_survive_a_reload_and_are_each_saved_once() {
    let app = spawn_app().await;
    let (owner, t) = seat_ids(&app, "offline").await;
    let (ann, bea) = (t.players[0], t.players[1]);
    let gate = Gate::to(&app.address).await;
    let (_driver, c) = browser().await;
    viewport(&c, TABLET).await;
    log_in(&c, &gate.address, "scorer@example.org", PASSWORD, "/").await;
    // Online first: the night page and the scoring screen, which the service worker keeps.
    c.goto(&gate.url(&format!("/nights/{}", t.night)))
        .await
        .unwrap();
    let score = gate.url(&format!("/tables/{}/score", t.table));
    open(&c, &score, 1).await;
    let here = c.current_url().await.unwrap().path().to_string();
    until("the service worker keeps the screen", async || {
        kept(&c, &here).await
    })
    .await;
    c.goto(&gate.url(&format!("/nights/{}", t.night)))
        .await
        .unwrap();
    open(&c, &score, 1).await;
    until("the service worker serves the screen", async || {
        controlled(&c).await
    })
    .await;

    // A hand that matches nothing is not saved, and the screen says why in words.
    click(&c, &format!("input[name=won][value='{ann}']")).await;
    let mut wrong = SELF_PICK;
    wrong[13] = "9D";
    for tile in wrong {
        click(&c, &format!("#picker button[data-tile='{tile}']")).await;
    }
    let v = wait_text(&c, "#verdict", "matches no line").await;
    assert!(
        v.contains("Ann's hand matches no line; nearest: 2468#2, needs 8B"),
        "{v}"
    );
    assert!(
        c.find(Locator::Css("#save[disabled]")).await.is_ok(),
        "Save waits for a hand that stands"
    );
    click(&c, "#clear").await;

    // The network goes. Three games are entered: game 2 is wrong in a way only the server sees.
    gate.set_open(false);
    for (i, tile_list) in [Some(SELF_PICK), Some(wrong), None].into_iter().enumerate() {
        let n = i + 1;
        wait_text(&c, "#save", &format!("Save game {n}")).await;
        match tile_list {
            Some(tiles) => {
                click(
                    &c,
                    &format!(
                        "input[name=won][value='{}']",
                        if n == 1 { ann } else { bea }
                    ),
                )
                .await;
                click(&c, "input[name=how][value=self_pick]").await;
                for tile in tiles {
                    click(&c, &format!("#picker button[data-tile='{tile}']")).await;
                }
                wait_text(&c, "#verdict", "Not checked: no network").await;
            }
            None => click(&c, "input[name=won][value=wall]").await,
        }
        save(&c).await;
        wait_text(&c, "#queue-title", &format!("{n} game")).await;
    }
    wait_text(&c, "#queue-title", "3 games waiting on this device").await;
    wait_text(&c, "#sent", "Not saved yet: no network").await;
    assert_eq!(waiting(&c).await, 3);
    shot(&c, "score-queue-tablet").await;

    // Reloaded without network: the service worker opens the screen, the queue is still there,
    // and the screen is on game 4.
    c.refresh().await.unwrap();
    wait_text(&c, "#queue-title", "3 games waiting on this device").await;
    wait_text(&c, "h1", "game 4").await;
    c.goto(&gate.url(&format!("/nights/{}", t.night)))
        .await
        .unwrap();
    wait_text(&c, ".waiting", "3 games waiting on this device").await;
    assert_eq!(
        games(&app, &owner, t.table).await.len(),
        0,
        "nothing reached the server"
    );
    open(&c, &score, 4).await;

    // The network is back: games 1 and 3 are saved, game 2 is refused and stays to be fixed.
    gate.set_open(true);
    until("game 2 refused", async || {
        text_of(&c, "#queue-list").await.contains("refused")
    })
    .await;
    until("games 1 and 3 saved", async || {
        games(&app, &owner, t.table).await.len() == 2
    })
    .await;
    let q = text_of(&c, "#queue-list").await;
    assert!(q.contains("Game 2") && q.contains("matches no line"), "{q}");
    assert_eq!(waiting(&c).await, 1);
    click(&c, "#queue-list button").await; // Fix game 2
    wait_text(&c, "#save", "Save game 2").await;
    // A send of the queue meanwhile (the network coming back, say) leaves the number alone.
    c.execute("window.dispatchEvent(new Event('online'));", vec![])
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(text_of(&c, "#save").await.contains("Save game 2"));
    click(&c, "input[name=won][value=wall]").await;
    save(&c).await;
    saved(&c, 2).await;
    until("the queue is empty", async || waiting(&c).await == 0).await;
    let g = games(&app, &owner, t.table).await;
    let numbers: Vec<i64> = g.iter().map(|g| g["number"].as_i64().unwrap()).collect();
    assert_eq!(numbers, vec![1, 2, 3], "each game saved once: {g:?}");
    assert_eq!(g[1]["outcome"], "wall");
    assert_eq!(g[2]["outcome"], "wall");
    wait_text(&c, "#all-played", "").await;
    c.close().await.unwrap();
}

#[tokio::test]
async fn the_scoring_screen_passes_axe_and_works_by_keyboard() {
    let app = spawn_app().await;
    let (owner, t) = seat_ids(&app, "axe").await;
    let (_driver, c) = browser().await;
    log_in(&c, &app.address, "scorer@example.org", PASSWORD, "/").await;
    let score = app.url(&format!("/tables/{}/score", t.table));
    for size in [TABLET, PHONE] {
        viewport(&c, size).await;
        open(&c, &score, 1).await;
        // A hand on the screen, the card entry open, the rare options unfolded: all checked.
        click(&c, &format!("input[name=won][value='{}']", t.players[0])).await;
        click(&c, "input[name=how][value=self_pick]").await;
        for tile in SELF_PICK {
            click(&c, &format!("#picker button[data-tile='{tile}']")).await;
        }
        wait_text(&c, "#points", "+").await;
        click(&c, "#rare summary").await;
        let (rules, serious) = axe(&c).await;
        assert!(rules > 10, "axe ran its rules: {rules}");
        assert_eq!(
            serious,
            json!([]),
            "serious accessibility problems at {size:?}"
        );
        click(&c, "#by-card").await;
        wait_for(&c, "#card-lines button.line").await;
        let (_, serious) = axe(&c).await;
        assert_eq!(serious, json!([]), "with the card open at {size:?}");
    }

    // The keyboard: the picker is one Tab stop, arrow keys move inside it, Enter picks.
    viewport(&c, TABLET).await;
    open(&c, &score, 1).await;
    tab_to(&c, "#picker button[data-tile]").await;
    let right = String::from(char::from(fantoccini::key::Key::Right));
    let down = String::from(char::from(fantoccini::key::Key::Down));
    type_keys(&c, &right).await;
    type_keys(&c, &down).await;
    let focused = c
        .execute("return document.activeElement.textContent;", vec![])
        .await
        .unwrap();
    assert_eq!(
        focused, "2 Crak",
        "right then down from 1 Bam; the name is what the tile shows"
    );
    type_keys(&c, &String::from(char::from(fantoccini::key::Key::Enter))).await;
    wait_text(&c, "#hand-view", "1/14").await;
    // Enter in a text box never sends a half-entered game.
    click(&c, "#typed summary").await;
    click(&c, "#hand").await;
    type_keys(&c, " 2C 2C").await;
    type_keys(&c, &String::from(char::from(fantoccini::key::Key::Enter))).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(games(&app, &owner, t.table).await.len(), 0);
    wait_text(&c, "#hand-view", "3/14").await;
    // The focus ring is drawn at least 3:1 against the page.
    let ring = c
        .execute(
            "const s = getComputedStyle(document.activeElement);
             return [s.outlineStyle, s.outlineColor, getComputedStyle(document.body).backgroundColor];",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(ring[0], "solid", "{ring}");
    let ratio = contrast(ring[1].as_str().unwrap(), ring[2].as_str().unwrap());
    assert!(ratio >= 3.0, "focus ring contrast {ratio:.2}: {ring}");
    c.close().await.unwrap();
}

/// WCAG contrast ratio of two `rgb(r, g, b)` colours.
fn contrast(a: &str, b: &str) -> f64 {
    let lum = |s: &str| {
        let v: Vec<f64> = s
            .trim_start_matches("rgba(")
            .trim_start_matches("rgb(")
            .trim_end_matches(')')
            .split(',')
            .take(3)
            .map(|x| x.trim().parse::<f64>().unwrap() / 255.0)
            .map(|c| {
                if c <= 0.03928 {
                    c / 12.92
                } else {
                    ((c + 0.055) / 1.055).powf(2.4)
                }
            })
            .collect();
        0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]
    };
    let (x, y) = (lum(a), lum(b));
    (x.max(y) + 0.05) / (x.min(y) + 0.05)
}

/// Taps the winner and the 14 tiles of `SELF_PICK`, then Save (on a tablet without network, once
/// the screen says the game cannot be checked).
async fn self_pick(c: &Client, winner: i64, offline: bool) {
    click(c, &format!("input[name=won][value='{winner}']")).await;
    click(c, "input[name=how][value=self_pick]").await;
    for tile in SELF_PICK {
        click(c, &format!("#picker button[data-tile='{tile}']")).await;
    }
    if offline {
        wait_text(c, "#verdict", "Not checked: no network").await;
    }
    save(c).await;
}

/// Each player's points tonight as the scoring screen shows them.
async fn shown_totals(c: &Client, players: &[i64]) -> Vec<i64> {
    let mut out = Vec::new();
    for p in players {
        let t = text_of(c, &format!("[data-total-of='{p}']")).await;
        out.push(t.trim().parse().unwrap());
    }
    out
}

/// Each player's points at the table as stored.
async fn stored_totals(
    app: &TestApp,
    owner: &reqwest::Client,
    table: i64,
    players: &[i64],
) -> Vec<i64> {
    let g = games(app, owner, table).await;
    players
        .iter()
        .map(|p| {
            g.iter()
                .filter(|g| g["status"] == "recorded")
                .flat_map(|g| g["players"].as_array().unwrap().iter())
                .filter(|s| s["player"]["id"] == *p)
                .map(|s| s["score"].as_i64().unwrap())
                .sum()
        })
        .collect()
}

#[tokio::test]
async fn two_tablets_at_one_table_a_taken_number_is_resolved_both_ways() {
    let app = spawn_app().await;
    let (owner, t) = seat_ids(&app, "twotabs").await;
    let (ann, bea) = (t.players[0], t.players[1]);
    // Tablet A (a tablet, on a network that drops) and tablet B (a phone), the same scorer.
    let gate = Gate::to(&app.address).await;
    let (_da, a) = browser().await;
    let (_db, b) = browser().await;
    viewport(&a, TABLET).await;
    viewport(&b, PHONE).await;
    log_in(&a, &gate.address, "scorer@example.org", PASSWORD, "/").await;
    log_in(&b, &app.address, "scorer@example.org", PASSWORD, "/").await;
    open(&a, &gate.url(&format!("/tables/{}/score", t.table)), 1).await;
    open(&b, &app.url(&format!("/tables/{}/score", t.table)), 1).await;

    // A loses the network and keeps two games: 1, a wall game; 2, Ann's self-pick.
    gate.set_open(false);
    click(&a, "input[name=won][value=wall]").await;
    save(&a).await;
    wait_text(&a, "#save", "Save game 2").await;
    self_pick(&a, ann, true).await;
    wait_text(&a, "#queue-title", "2 games waiting on this device").await;

    // B meanwhile stores game 1, the same wall game, and game 2, Bea's self-pick.
    click(&b, "input[name=won][value=wall]").await;
    save(&b).await;
    saved(&b, 1).await;
    self_pick(&b, bea, false).await;
    saved(&b, 2).await;

    // A's network is back: both of its games are refused, each shown beside the stored one in
    // words, with the two ways out; the totals and games are the server's.
    gate.set_open(true);
    until("both of A's games are refused", async || {
        text_of(&a, "#queue-list")
            .await
            .matches("Keep mine as the next game")
            .count()
            == 2
    })
    .await;
    let q = text_of(&a, "#queue-list").await;
    assert!(
        q.contains("Game 1 was entered on another device: wall game. Yours: wall game."),
        "{q}"
    );
    assert!(
        q.contains("Game 2 was entered on another device: Bea went out, self-pick: 2468#2 (25). Yours: Ann went out, self-pick."),
        "{q}"
    );
    assert!(!q.contains("/api/"), "no API path on the screen: {q}");
    until("A shows the table as the server has it", async || {
        shown_totals(&a, &t.players).await == stored_totals(&app, &owner, t.table, &t.players).await
    })
    .await;
    wait_text(&a, "h1", "game 3").await;
    wait_text(&a, "#played-count", "2").await;
    let s = text_of(&a, "#sent").await;
    assert!(
        s.starts_with("Not saved"),
        "the refusal stays on the status line: {s}"
    );
    let (_, found) = axe(&a).await;
    assert_eq!(found, json!([]), "the refused games pass axe");
    shot(&a, "score-two-tablets-clash-tablet").await;

    // Game 1 is the same game: A drops its copy. Game 2 is another game: A keeps it as game 3.
    click(&a, "#queue-list li:nth-child(1) button.secondary").await;
    until("A's game 1 dropped", async || waiting(&a).await == 1).await;
    let s = text_of(&a, "#sent").await;
    assert!(s.contains("game 2"), "game 2 still needs the scorer: {s}");
    click(&a, "#queue-list li:nth-child(1) button:not(.secondary)").await;
    saved(&a, 3).await;
    until("the queue is empty", async || waiting(&a).await == 0).await;
    let g = games(&app, &owner, t.table).await;
    let kept: Vec<(i64, &str)> = g
        .iter()
        .map(|g| {
            (
                g["number"].as_i64().unwrap(),
                g["outcome"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(kept, vec![(1, "wall"), (2, "mahjong"), (3, "mahjong")]);
    assert_eq!(g[1]["winner"], json!(bea));
    assert_eq!(g[2]["winner"], json!(ann));
    until("A's totals are the server's", async || {
        shown_totals(&a, &t.players).await == stored_totals(&app, &owner, t.table, &t.players).await
    })
    .await;
    wait_text(&a, "h1", "game 4").await;
    wait_text(&a, "#played-count", "3").await;

    // B follows the table: A's game 3 reached it without a reload, so its next game goes as
    // game 4 with no clash.
    wait_text(&b, "h1", "game 4").await;
    self_pick(&b, bea, false).await;
    saved(&b, 4).await;
    assert_eq!(waiting(&b).await, 0);
    until("B's totals are the server's", async || {
        shown_totals(&b, &t.players).await == stored_totals(&app, &owner, t.table, &t.players).await
    })
    .await;
    wait_text(&b, "#played-count", "4").await;
    a.close().await.unwrap();
    b.close().await.unwrap();
}

/// Opens the table's scoring screen with its code, as a player with the code's link does.
async fn with_code(c: &Client, base: &str, code: &str) {
    c.goto(&format!(
        "{}/t/{}",
        base.trim_end_matches('/'),
        code.replace('-', "")
    ))
    .await
    .unwrap();
    click(c, "form[action='/code'] button").await;
    wait_for(c, "#score[data-table] .entry-modes:not([hidden])").await;
}

/// Waits until `css` holds `want`, at most `within`; returns how long it took.
async fn within(c: &Client, css: &str, want: &str, within: Duration) -> Duration {
    let t0 = std::time::Instant::now();
    loop {
        let now = c
            .find(Locator::Css(css))
            .await
            .ok()
            .map(|e| async move { e.text().await.unwrap_or_default() });
        let text = match now {
            Some(f) => f.await,
            None => String::new(),
        };
        if text.contains(want) {
            return t0.elapsed();
        }
        assert!(
            t0.elapsed() < within,
            "{css} does not say {want:?} within {within:?}: {text:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The fixed bar's height while the next game is entered, and the screen's.
async fn bar_height(c: &Client) -> (f64, f64) {
    let m = c
        .execute(
            "return [document.getElementById('score-bar').getBoundingClientRect().height, window.innerHeight];",
            vec![],
        )
        .await
        .unwrap();
    (m[0].as_f64().unwrap(), m[1].as_f64().unwrap())
}

#[tokio::test]
async fn two_phones_at_one_table_follow_each_other_without_a_reload() {
    let app = spawn_app().await;
    let (owner, t) = seat_ids(&app, "twophones").await;
    let (ann, bea) = (t.players[0], t.players[1]);
    let code = common::table_code(&app, &owner, t.night).await;
    // Phone A: a scorer signed in. Phone B: a player with the table's code on a members-only
    // league, on a Wi-Fi that drops.
    let gate = Gate::to(&app.address).await;
    let (_da, a) = browser().await;
    let (_db, b) = browser().await;
    viewport(&a, PHONE).await;
    viewport(&b, PHONE).await;
    log_in(&a, &app.address, "scorer@example.org", PASSWORD, "/").await;
    open(&a, &app.url(&format!("/tables/{}/score", t.table)), 1).await;
    with_code(&b, &gate.address, &code).await;
    wait_text(&b, "h1", "game 1").await;
    let fresh = |c: &Client| {
        let c = c.clone();
        let (app, owner, players, table) = (&app, &owner, t.players.clone(), t.table);
        async move {
            shown_totals(&c, &players).await == stored_totals(app, owner, table, &players).await
        }
    };

    // A saves game 1: B shows it within 2 s, without a reload, and says it came from A.
    click(&a, "input[name=won][value=wall]").await;
    save(&a).await;
    saved(&a, 1).await;
    let took = within(&b, "h1", "game 2", Duration::from_secs(2)).await;
    println!("phone B showed phone A's game 1 after {took:?}");
    wait_text(&b, "#played-count", "1").await;
    let s = wait_text(&b, "#sent", "entered on another device").await;
    assert!(s.contains("Game 1: Wall game"), "{s}");
    assert!(fresh(&b).await);

    // B starts game 2 (Bea won) while A saves game 2 (Ann's self-pick): B's game becomes game
    // 3 before it is sent, and B is told so in words.
    click(&b, &format!("input[name=won][value='{bea}']")).await;
    self_pick(&a, ann, false).await;
    saved(&a, 2).await;
    within(&b, "h1", "game 3", Duration::from_secs(2)).await;
    let s = wait_text(&b, "#sent", "Yours is now game 3").await;
    assert!(s.contains("Game 2: Mah Jongg"), "{s}");
    until("B's totals are the stored ones", async || fresh(&b).await).await;
    for tile in &SELF_PICK[..6] {
        click(&b, &format!("#picker button[data-tile='{tile}']")).await;
    }
    let s = text_of(&b, "#sent").await;
    assert_eq!(
        s, "Yours is now game 3.",
        "once B goes on, the news is short"
    );
    let (bar, high) = bar_height(&b).await;
    println!("while game 3 is entered the bar is {bar} px of {high}");
    shot(&b, "score-follow-phone").await;
    assert!(
        bar < high * 0.22,
        "while the next game is entered the bar is {bar} px of {high}"
    );

    // An organizer voids game 2: both phones show it voided and the totals without it.
    let g2 = games(&app, &owner, t.table).await[1]["id"]
        .as_i64()
        .unwrap();
    let r = owner
        .post(app.url(&format!("/api/v1/games/{g2}/void")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let t0 = std::time::Instant::now();
    for c in [&a, &b] {
        until("game 2 shown voided", async || {
            c.execute(
                "return document.getElementById('played').textContent;",
                vec![],
            )
            .await
            .unwrap()
            .as_str()
            .unwrap()
            .contains("(voided)")
        })
        .await;
        assert!(
            t0.elapsed() < Duration::from_secs(2),
            "the void shown after {:?}",
            t0.elapsed()
        );
        until("the totals without the voided game", async || {
            fresh(c).await
        })
        .await;
    }
    assert_eq!(shown_totals(&b, &t.players).await, vec![0, 0, 0, 0]);

    // The voided game's number is played again: B enters game 2 again, A game 3. B then loses
    // the network and saves its game 4 while A saves game 4: the table is then full, so B is
    // not offered to keep its game as game 5; it is told to drop it if it is the same game or
    // show it to an organizer.
    within(&b, "h1", "game 2", Duration::from_secs(2)).await;
    click(&b, "input[name=won][value=wall]").await;
    save(&b).await;
    saved(&b, 2).await;
    within(&a, "h1", "game 3", Duration::from_secs(2)).await;
    click(&a, "input[name=won][value=wall]").await;
    save(&a).await;
    saved(&a, 3).await;
    within(&b, "h1", "game 4", Duration::from_secs(2)).await;
    gate.set_open(false);
    click(&b, "input[name=won][value=wall]").await;
    save(&b).await;
    wait_text(&b, "#queue-title", "1 game waiting on this device").await;
    self_pick(&a, bea, false).await;
    saved(&a, 4).await;
    gate.set_open(true);
    let q = within(
        &b,
        "#queue-list",
        "show this screen to an organizer",
        Duration::from_secs(20),
    )
    .await;
    let _ = q;
    let list = text_of(&b, "#queue-list").await;
    assert!(
        list.contains("Game 4 was entered on another device: Bea went out, self-pick"),
        "{list}"
    );
    assert!(
        !list.contains("Keep mine"),
        "no option that must fail: {list}"
    );
    let s = text_of(&b, "#sent").await;
    assert!(!s.contains("keep yours"), "{s}");
    wait_for(&b, "#all-played:not([hidden])").await;
    let (_, found) = axe(&b).await;
    assert_eq!(found, json!([]), "the full table's clash passes axe");
    shot(&b, "score-follow-full-phone").await;
    click(&b, "#queue-list li:nth-child(1) button.secondary").await;
    until("B's game 4 dropped", async || waiting(&b).await == 0).await;
    until("B shows the table as stored", async || fresh(&b).await).await;
    wait_text(&b, "#played-count", "5").await;
    wait_for(&a, "#all-played:not([hidden])").await;
    let g = games(&app, &owner, t.table).await;
    let numbers: Vec<(i64, &str)> = g
        .iter()
        .map(|g| (g["number"].as_i64().unwrap(), g["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        numbers,
        vec![
            (1, "recorded"),
            (2, "voided"),
            (2, "recorded"),
            (3, "recorded"),
            (4, "recorded")
        ],
        "nothing stored past the table's games"
    );
    a.close().await.unwrap();
    b.close().await.unwrap();
}

#[tokio::test]
async fn a_night_closed_while_a_table_scores_keeps_the_game_until_it_is_reopened() {
    let app = spawn_app().await;
    let (owner, t) = seat_ids(&app, "closing").await;
    let ann = t.players[0];
    let code = common::table_code(&app, &owner, t.night).await;

    // A phone scores table 1 with the code, on a Wi-Fi that drops; the organizer is on a
    // tablet.
    let gate = Gate::to(&app.address).await;
    let (_dh, holder) = browser().await;
    let (_do, org) = browser().await;
    viewport(&holder, PHONE).await;
    viewport(&org, TABLET).await;
    with_code(&holder, &gate.address, &code).await;
    click(&holder, "input[name=won][value=wall]").await;
    save(&holder).await;
    saved(&holder, 1).await;
    // The phone loses the network and keeps game 2.
    gate.set_open(false);
    self_pick(&holder, ann, true).await;
    wait_text(&holder, "#queue-title", "1 game waiting on this device").await;

    // The organizer closes the night: the page names the table short of games and asks first.
    log_in(
        &org,
        &app.address,
        "scorer@example.org",
        PASSWORD,
        &format!("/nights/{}", t.night),
    )
    .await;
    click(&org, "#close-night summary").await;
    let short = wait_text(&org, "#short-tables", "Table 1 has 1 of 4").await;
    assert!(short.contains("the league plays 4 a table"), "{short}");
    let button = text_of(&org, "#close-night button").await;
    assert_eq!(button, "Close night 1 anyway");
    let (_, found) = axe(&org).await;
    assert_eq!(found, json!([]), "the close step passes axe");
    click(&org, "#close-night button").await;
    wait_text(&org, ".flash.ok", "Night closed").await;

    // The network is back and the phone sends game 2: refused because the night is closed, said
    // in words, kept on the phone and not sent again and again; the screen follows the night
    // and shows it closed.
    gate.set_open(true);
    let s = wait_text(&holder, "#sent", "night 1 is closed").await;
    assert!(s.contains("Game 2 stays on this device"), "{s}");
    let q = wait_text(&holder, "#queue-list", "kept: night 1 is closed").await;
    assert!(
        q.contains("sent by itself once an organizer reopens it"),
        "{q}"
    );
    assert!(
        !s.contains("log in") && !q.contains("log in"),
        "a code holder has no login: {s} {q}"
    );
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(waiting(&holder).await, 1);
    assert_eq!(games(&app, &owner, t.table).await.len(), 1);
    wait_text(&holder, "#night-closed", "Night 1 is closed").await;
    shot(&holder, "score-night-closed-phone").await;

    // Reopened on the phone meanwhile: the night says it is closed (not the API's 401), and the
    // kept game is still listed.
    holder.refresh().await.unwrap();
    let banner = wait_text(&holder, "#night-closed", "Night 1 is closed").await;
    assert!(banner.contains("sent by themselves"), "{banner}");
    wait_text(&holder, "#queue-list", "Game 2").await;
    assert!(!text_of(&holder, "main").await.contains("401"));
    let (_, found) = axe(&holder).await;
    assert_eq!(found, json!([]), "the closed screen passes axe");

    // The organizer reopens the night: the kept game goes by itself, and the screen is open again.
    click(&org, "form[action$='/reopen'] button").await;
    wait_text(&org, ".flash.ok", "Night reopened").await;
    until("the kept game is stored", async || {
        games(&app, &owner, t.table).await.len() == 2
    })
    .await;
    wait_text(&holder, "h1", "game 3").await;
    until("the queue is empty", async || waiting(&holder).await == 0).await;
    let g = games(&app, &owner, t.table).await;
    assert_eq!(g[1]["number"], 2);
    assert_eq!(g[1]["winner"], json!(ann));
    let actors: Vec<(String,)> = sqlx::query_as(
        "SELECT a.actor FROM game_audit a JOIN games g ON g.id = a.game_id ORDER BY g.number",
    )
    .fetch_all(&app.db)
    .await
    .unwrap();
    assert_eq!(
        actors,
        vec![("table 1 code".to_string(),), ("table 1 code".to_string(),)]
    );
    holder.close().await.unwrap();
    org.close().await.unwrap();
}

#[tokio::test]
async fn a_hand_from_the_card_asks_about_jokers_and_none_is_an_answer() {
    let app = spawn_app().await;
    let (owner, t) = seat_ids(&app, "jokers").await;
    let (_driver, c) = browser().await;
    log_in(&c, &app.address, "scorer@example.org", PASSWORD, "/").await;
    viewport(&c, PHONE).await;
    open(&c, &app.url(&format!("/tables/{}/score", t.table)), 1).await;
    let mut h = Hands::new(&c);
    h.tap(&format!("input[name=won][value='{}']", t.players[1]))
        .await;
    h.tap("input[name=how][value=self_pick]").await;
    h.tap("#by-card").await;
    h.type_into("#line-search", "2468").await;
    wait_for(&c, "#card-lines button[data-line='2468#1']").await;
    h.tap("#card-lines button[data-line='2468#1']").await;
    wait_for(&c, "#target-list button").await;
    h.tap("#target-list li:nth-child(1) button").await;
    // Asked, and Save waits for the answer.
    wait_text(&c, "#verdict", "Jokers in Bea's hand?").await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert!(
        c.find(Locator::Css("#save[disabled]")).await.is_ok(),
        "Save waits for the answer"
    );
    // No jokers is an answer of its own: the hand is then checked, jokerless.
    h.tap("#no-jokers").await;
    let v = wait_text(&c, "#verdict", "Bea: 2468#1").await;
    assert!(v.contains("jokerless"), "{v}");
    assert!(
        text_of(&c, "#jokers-ask").await.is_empty()
            || !c
                .find(Locator::Css("#jokers-ask"))
                .await
                .unwrap()
                .is_displayed()
                .await
                .unwrap()
    );
    save(&c).await;
    saved(&c, 1).await;
    let g = games(&app, &owner, t.table).await;
    assert_eq!(g.len(), 1);
    assert!(!g[0]["hand"].as_str().unwrap().contains('J'), "{}", g[0]);
    let (_, found) = axe(&c).await;
    assert_eq!(found, json!([]));
    c.close().await.unwrap();
}

/// Issue 36, item 8: a shared tablet. Logging out answers `Clear-Site-Data`, and the service
/// worker forgets the pages it kept: offline, the next person sees no members-only page.
#[tokio::test]
async fn after_log_out_a_shared_tablet_keeps_no_members_only_page() {
    let app = spawn_app().await;
    let (_owner, t) = seat_ids(&app, "shared").await;
    let gate = Gate::to(&app.address).await;
    let (_driver, c) = browser().await;
    viewport(&c, TABLET).await;
    log_in(&c, &gate.address, "scorer@example.org", PASSWORD, "/").await;
    let night = gate.url(&format!("/nights/{}", t.night));
    c.goto(&night).await.unwrap();
    let score = gate.url(&format!("/tables/{}/score", t.table));
    open(&c, &score, 1).await;
    let night_path = format!("/nights/{}", t.night);
    let score_path = format!("/tables/{}/score", t.table);
    // Once the worker keeps the screen, a page loaded after it is served by it (the first
    // page may stay uncontrolled on a busy machine until it is loaded again).
    until("the service worker keeps the screen", async || {
        kept(&c, &score_path).await
    })
    .await;
    c.goto(&night).await.unwrap();
    open(&c, &score, 1).await;
    until("the service worker serves the screen", async || {
        controlled(&c).await
    })
    .await;
    c.goto(&night).await.unwrap();
    until("the night page is kept", async || {
        kept(&c, &night_path).await
    })
    .await;
    until("the scoring screen is kept", async || {
        kept(&c, &score_path).await
    })
    .await;

    click(&c, "form[action='/logout'] button").await;
    wait_text(&c, ".flash.ok", "logged out").await;
    until("the kept pages are forgotten", async || {
        !kept(&c, &night_path).await && !kept(&c, &score_path).await
    })
    .await;
    gate.set_open(false);
    c.goto(&night).await.unwrap();
    let shown = text_of(&c, "h1").await;
    assert_eq!(shown, "No network", "offline, the night page is not shown");
    gate.set_open(true);
    c.close().await.unwrap();

    // The answers themselves, from the page's form and from the API.
    let api = common::signed_up(&app, "api@example.org").await;
    let res = api.delete(app.url("/api/v1/session")).send().await.unwrap();
    assert_eq!(res.status(), 204);
    assert_eq!(res.headers()["clear-site-data"], "\"cache\"");
    let door = reqwest::Client::new()
        .get(app.url(&format!("/nights/{}/door", t.night)))
        .send()
        .await
        .unwrap();
    assert!(
        door.headers()["permissions-policy"]
            .to_str()
            .unwrap()
            .contains("camera=(self)"),
        "the door may use the camera"
    );
    let other = reqwest::Client::new()
        .get(app.url("/"))
        .send()
        .await
        .unwrap();
    assert!(
        other.headers()["permissions-policy"]
            .to_str()
            .unwrap()
            .contains("camera=()")
    );
}
