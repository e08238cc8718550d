//! The club's clock, said one way (issue 63): a club on New York's clock goes through a week —
//! a weekly night with a game, closed and mailed; a night ahead with its mail, reply page and
//! calendar; open play with a proposed match; an invitation — and then every page a member and
//! an organizer read, and every mail the week sent (subject and text), are searched for a time of
//! day that is bare (no AM/PM), a time without its zone's abbreviation, or a date written as
//! 2026-12-01. Pages that show a count-down (the tournament's timer) are not times of day.

mod common;

use chrono::{Duration, Utc};
use common::smtp::SmtpSink;
use common::{TestApp, club_owner, member_as, one_table, spawn_app_with, text_at};
use mahjong_league::config::Secret;
use regex::Regex;
use serde_json::{Value, json};

async fn call(
    app: &TestApp,
    who: &reqwest::Client,
    method: reqwest::Method,
    path: &str,
    body: Value,
) -> Value {
    let res = who
        .request(method, app.url(path))
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = res.status();
    let answer: Value = res.json().await.unwrap_or(Value::Null);
    assert!(status.is_success(), "{path}: {status} {answer}");
    answer
}

/// The text a person reads on a page: no scripts, styles or tags; entities a time could hide
/// behind are unescaped.
fn readable(html: &str) -> String {
    let blocks = Regex::new(r"(?is)<(script|style|svg)\b.*?</(script|style|svg)>").unwrap();
    let tags = Regex::new(r"(?s)<[^>]*>").unwrap();
    let text = blocks.replace_all(html, " ");
    tags.replace_all(&text, " ")
        .replace("&nbsp;", " ")
        .replace("&#x20;", " ")
        .replace("&amp;", "&")
}

/// Every way `text` writes a time or a date that people cannot read as the club's clock: an ISO
/// date, a time without AM/PM, a time without the zone's abbreviation.
fn misread(text: &str) -> Vec<String> {
    let iso = Regex::new(r"\b\d{4}-\d{2}-\d{2}\b").unwrap();
    let time = Regex::new(r"\b\d{1,2}:\d{2}\b(\s*[AP]M)?(\s+[A-Z]{2,5}\b)?").unwrap();
    let mut wrong: Vec<String> = iso
        .find_iter(text)
        .map(|m| m.as_str().to_string())
        .collect();
    for c in time.captures_iter(text) {
        if c.get(1).is_none() || c.get(2).is_none() {
            let at = c.get(0).unwrap();
            let from = text[..at.start()]
                .char_indices()
                .rev()
                .nth(40)
                .map_or(0, |(i, _)| i);
            let to = (at.end() + 20).min(text.len());
            let to = (to..=text.len())
                .find(|i| text.is_char_boundary(*i))
                .unwrap();
            wrong.push(format!("“{}” in “…{}…”", at.as_str(), &text[from..to]));
        }
    }
    wrong
}

#[test]
fn the_search_finds_what_it_looks_for() {
    assert!(misread("Tue Dec 1, 7:00 PM EST, at the club").is_empty());
    assert!(misread("a score of 25 and a night on Tue Dec 1").is_empty());
    assert_eq!(misread("on 2026-12-01").len(), 1);
    assert_eq!(misread("Tue Dec 1, 19:00").len(), 1);
    assert_eq!(misread("Tue Dec 1 at 7:00 PM.").len(), 1);
    assert_eq!(misread("at 7:00 PM (America/New_York)").len(), 1);
}

#[tokio::test]
async fn every_page_and_mail_of_a_week_says_times_on_the_clubs_clock() {
    let sink = SmtpSink::start().await;
    let url = sink.url();
    let app = spawn_app_with(move |s| s.smtp_url = Some(Secret::new(url))).await;
    let owner = club_owner(&app, "clock", "owner@example.org").await;
    sqlx::query("UPDATE clubs SET time_zone = 'America/New_York' WHERE slug = 'clock'")
        .execute(&app.db)
        .await
        .unwrap();
    let t = one_table(&app, &owner, "clock", &["Ann", "Bea", "Cy", "Dot"]).await;
    let ann = member_as(&app, &owner, "clock", "ann@example.org", t.players[0]).await;
    let bea = member_as(&app, &owner, "clock", "bea@example.org", t.players[1]).await;
    member_as(&app, &owner, "clock", "cy@example.org", t.players[2]).await;
    member_as(&app, &owner, "clock", "dot@example.org", t.players[3]).await;
    use reqwest::Method;

    // A weekly night: a game, the night closed, its results mailed.
    let game = call(
        &app,
        &owner,
        Method::POST,
        &format!("/api/v1/tables/{}/games", t.table),
        json!({"outcome": "wall"}),
    )
    .await;
    let game = game["id"].as_i64().unwrap();
    call(
        &app,
        &owner,
        Method::POST,
        &format!("/api/v1/nights/{}/close", t.night),
        json!(null),
    )
    .await;

    // A night ahead at 7 pm: every member asked by mail, Ann's reply page from her mail.
    let date = (Utc::now() + Duration::days(8)).date_naive();
    let ahead = call(
        &app,
        &owner,
        Method::POST,
        &format!("/api/v1/leagues/{}/schedule", t.league),
        json!({"date": date, "time": "19:00", "place": "Club room", "tables": 1}),
    )
    .await["id"]
        .as_i64()
        .unwrap();

    // Open play: Ann proposes a match naming Bea.
    let open = call(
        &app,
        &owner,
        Method::POST,
        "/api/v1/clubs/clock/leagues",
        json!({"name": "Open play", "card": "demo-2026", "ruleset": "nmjl-money", "kind": "open",
               "board": "best_per_week", "best_per_week": 2}),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let soon = (Utc::now() + Duration::days(3)).date_naive();
    let proposed = call(
        &app,
        &ann,
        Method::POST,
        &format!("/api/v1/leagues/{open}/matches"),
        json!({"date": soon, "time": "14:00", "place": "Ann's", "players": t.players[1..].to_vec()}),
    )
    .await["id"]
        .as_i64()
        .unwrap();

    // Every mail so far: invitations, the results, the night ahead, the match.
    let mails = sink.wait_for(16).await;
    let reply = mails
        .iter()
        .find(|m| m.to == ["ann@example.org"] && m.text().contains("/replies/"))
        .expect("Ann is asked about the night ahead")
        .link("/replies/");
    let mut wrong: Vec<String> = Vec::new();
    for m in &mails {
        let subject = m.parsed().subject().unwrap_or_default().to_string();
        for w in misread(&subject).into_iter().chain(misread(&m.text())) {
            wrong.push(format!("mail “{subject}” to {}: {w}", m.to.join(",")));
        }
    }
    for kind in ["results", "ahead", "match"] {
        assert!(
            mails.iter().any(|m| m.kind().contains(kind)),
            "a {kind} mail among {:?}",
            mails.iter().map(|m| m.kind()).collect::<Vec<_>>()
        );
    }

    let organizer_pages = [
        "/".to_string(),
        "/me".into(),
        "/account".into(),
        "/clubs/clock".into(),
        "/clubs/clock/members".into(),
        "/clubs/clock/tokens".into(),
        "/clubs/clock/cards".into(),
        "/clubs/clock/cards/new".into(),
        format!("/leagues/{}", t.league),
        format!("/leagues/{}/results", t.league),
        format!("/leagues/{}/import", t.league),
        format!("/leagues/{open}"),
        format!("/leagues/{open}/matches"),
        format!("/nights/{}", t.night),
        format!("/nights/{}/print", t.night),
        format!("/nights/{}/print?what=tents", t.night),
        format!("/nights/{}/seats", t.night),
        format!("/ahead/{ahead}"),
        format!("/matches/{proposed}"),
        format!("/players/{}", t.players[0]),
        format!("/games/{game}/edit"),
    ];
    let mut seen = 0;
    for (who, name, pages) in [
        (&owner, "the organizer", organizer_pages.to_vec()),
        (
            &ann,
            "Ann",
            vec![
                reply.clone(),
                format!("/matches/{proposed}"),
                format!("/leagues/{open}/matches"),
                format!("/ahead/{ahead}"),
                format!("/leagues/{}", t.league),
            ],
        ),
        (&bea, "Bea", vec![format!("/matches/{proposed}")]),
    ] {
        for page in pages {
            let url = if page.starts_with("http") {
                page.clone()
            } else {
                app.url(&page)
            };
            let html = text_at(who, &url).await;
            assert!(html.contains("</html>"), "{page} for {name}");
            seen += 1;
            for w in misread(&readable(&html)) {
                wrong.push(format!("{page} for {name}: {w}"));
            }
        }
    }
    // The calendar's summaries and descriptions are read by people too (its DTSTART is data).
    let ics = text_at(
        &owner,
        &app.url(&format!("/api/v1/leagues/{}/calendar.ics", t.league)),
    )
    .await
    .replace("\r\n ", "");
    let described: Vec<&str> = ics
        .lines()
        .filter(|l| l.starts_with("SUMMARY") || l.starts_with("DESCRIPTION"))
        .collect();
    assert!(!described.is_empty(), "{ics}");
    for l in described {
        for w in misread(&l.replace("\\,", ",").replace("\\n", " ")) {
            wrong.push(format!("the calendar: {w}"));
        }
    }
    assert!(seen >= 27, "{seen} pages read");
    println!(
        "read {seen} pages, {} mails and the calendar: {} times misread",
        mails.len(),
        wrong.len()
    );
    assert!(
        wrong.is_empty(),
        "{} times misread:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
