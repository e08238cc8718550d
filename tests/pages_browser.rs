//! The pages in a real headless Chromium (Debian's chromium and chromedriver, driven over
//! WebDriver): log in, check players in, seat them, score a game through the tile picker, see
//! the standings change. Every page is saved as a screenshot at phone and desktop widths under
//! `target/screenshots/` for a person to look at (not committed).

#[path = "common/browser.rs"]
mod browser;
mod common;

use browser::*;
use common::{PASSWORD, TestApp, club_owner, one_table, signed_up, spawn_app};
use fantoccini::Locator;
use fantoccini::key::Key;
use serde_json::{Value, json};

async fn api_json(app: &TestApp, path: &str) -> Value {
    app.client
        .get(app.url(path))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[tokio::test]
async fn an_organizer_runs_a_night_in_the_browser() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "tuesday", "org@example.org").await;
    let mut ids = Vec::new();
    for name in ["Ann", "Bea", "Cy", "Dot", "Eve"] {
        let p: Value = owner
            .post(app.url("/api/v1/clubs/tuesday/players"))
            .json(&json!({"name": name}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        ids.push(p["id"].as_i64().unwrap());
    }
    let league: Value = owner
        .post(app.url("/api/v1/clubs/tuesday/leagues"))
        .json(&json!({"name": "Tuesday league", "card": "demo-2026", "ruleset": "nmjl-money", "visibility": "public"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let league = league["id"].as_i64().unwrap();

    let (_driver, c) = browser().await;
    let url = |p: &str| app.url(p);

    // Pages anyone may see.
    c.goto(&url("/")).await.unwrap();
    shots(&c, "index").await;
    c.goto(&url("/cards/demo-2026")).await.unwrap();
    assert!(text_of(&c, "h1").await.contains("Demo Card"));
    assert!(
        c.find_all(Locator::Css(".group.c0")).await.unwrap().len() > 10,
        "coloured groups"
    );
    shots(&c, "card").await;
    c.goto(&url("/signup")).await.unwrap();
    shots(&c, "signup").await;

    // Log in.
    c.goto(&url(&format!("/login?next=/leagues/{league}")))
        .await
        .unwrap();
    shots(&c, "login").await;
    fill(&c, "#email", "org@example.org").await;
    fill(&c, "#password", PASSWORD).await;
    click(&c, "form[action='/login'] button[type=submit]").await;
    wait_text(&c, ".flash.ok", "Welcome back").await;
    assert!(
        c.current_url()
            .await
            .unwrap()
            .path()
            .ends_with(&format!("/leagues/{league}"))
    );

    c.goto(&url("/clubs/tuesday")).await.unwrap();
    shots(&c, "club").await;

    // Start a night, check four players in (not Eve), propose and lock tables.
    c.goto(&url(&format!("/leagues/{league}"))).await.unwrap();
    click(&c, "form[action$='/nights'] button[type=submit]").await;
    wait_text(&c, ".flash.ok", "Night 1 started").await;
    for id in &ids[..4] {
        click(&c, &format!("input[name=player][value='{id}']")).await;
    }
    click(&c, "#checkin-form button[name=then][value=propose]").await;
    let flash = wait_text(&c, ".flash.ok", "Tables proposed").await;
    assert!(flash.contains("Check-in saved: 4 players here"), "{flash}");
    shots(&c, "night-proposal").await;
    click(&c, "form[action$='/tables'] button[type=submit]").await;
    wait_text(&c, ".flash.ok", "Tables locked").await;
    let night_url = c.current_url().await.unwrap();

    // Score a game through the tile picker: Ann self-picks 2468#2 with jokers.
    click(&c, "a.button[href$='/score']").await;
    wait_text(&c, "h1", "game 1").await;
    click(&c, &format!("input[name=won][value='{}']", ids[0])).await;
    click(&c, "input[name=how][value=self_pick]").await;
    for tile in [
        "F", "F", "2B", "2B", "J", "2B", "4C", "4C", "6C", "6C", "8B", "8B", "J", "8B",
    ] {
        click(&c, &format!("#picker button[data-tile='{tile}']")).await;
    }
    let verdict = wait_text(&c, "#verdict", "2468#2").await;
    assert!(verdict.contains("Ann: 2468#2 · 25"), "{verdict}");
    let preview = wait_text(&c, "#points", "Ann").await;
    assert!(preview.contains("Ann +"), "{preview}");
    shots(&c, "score").await;
    save(&c).await;
    wait_text(&c, "#sent", "Saved game 1").await;
    wait_text(&c, "h1", "game 2").await;
    c.goto(night_url.as_str()).await.unwrap();
    let table_text = text_of(&c, "#tables").await;
    assert!(table_text.contains("Mah Jongg, 2468#2"), "{table_text}");
    shots(&c, "night-tables").await;

    // The standings page shows what the API computes: Ann first with her points.
    let standings = api_json(&app, &format!("/api/v1/leagues/{league}/standings")).await;
    let first = &standings["standings"][0];
    assert_eq!(first["player"], "Ann");
    let points = first["points"].as_i64().unwrap();
    assert!(points > 0);
    c.goto(&url(&format!("/leagues/{league}"))).await.unwrap();
    let row = text_of(&c, "table.standings tbody tr").await;
    assert!(
        row.contains("Ann") && row.contains(&points.to_string()),
        "{row}"
    );
    // After one night the chart is a bar per player, labelled with names and points.
    let chart = text_of(&c, "figure.chart").await;
    assert!(
        c.find(Locator::Css("figure.chart svg rect.bar"))
            .await
            .is_ok()
            && chart.contains("Ann")
            && chart.contains(&points.to_string()),
        "the first night's points are drawn: {chart}"
    );
    let whole = charts_whole(&c).await;
    assert!(whole.is_empty(), "the first night's chart: {whole:#?}");
    // Its numbers are said with it (the chart's description) and given as a table.
    let said = c
        .execute(
            "return [document.querySelector('figure.chart svg desc').textContent,
                     Array.from(document.querySelectorAll('details.chart-numbers tbody tr'))
                       .map(r => r.textContent.replace(/\\s+/g, ' ').trim())];",
            vec![],
        )
        .await
        .unwrap();
    assert!(
        said[0].as_str().unwrap().contains(&format!("Ann {points}")),
        "{said}"
    );
    assert_eq!(said[1].as_array().unwrap().len(), 4, "{said}");
    c.execute(
        "document.querySelector('figure.chart').scrollIntoView()",
        vec![],
    )
    .await
    .unwrap();
    shots(&c, "first-night-chart").await;
    c.execute("window.scrollTo(0, 0)", vec![]).await.unwrap();
    shots(&c, "standings").await;
    // Sorting by a column puts the lowest player first when ascending.
    click(&c, "th a[href*='sort=points']").await;
    let first_row = text_of(&c, "table.standings tbody tr").await;
    assert!(first_row.contains("Ann"), "points descending: {first_row}");
    click(&c, "th a[href*='sort=points']").await;
    let first_row = text_of(&c, "table.standings tbody tr").await;
    assert!(!first_row.contains("Ann"), "points ascending: {first_row}");

    // The player page draws the winning hand as tiles.
    c.goto(&url(&format!("/players/{}", ids[0]))).await.unwrap();
    assert_eq!(
        c.find_all(Locator::Css("figure.hand .tile"))
            .await
            .unwrap()
            .len(),
        14
    );
    shots(&c, "player").await;

    c.close().await.unwrap();
}

#[tokio::test]
async fn pages_send_security_headers_and_forms_need_the_token() {
    let app = spawn_app().await;
    let res = app.client.get(app.url("/login")).send().await.unwrap();
    let csp = res.headers()["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"));
    assert_eq!(res.headers()["x-content-type-options"], "nosniff");
    assert_eq!(res.headers()["x-frame-options"], "DENY");
    let body = res.text().await.unwrap();
    assert!(!body.contains("<script>"), "no inline scripts");

    // A form without the token is refused; so is one from another site.
    let res = app
        .client
        .post(app.url("/login"))
        .form(&[("email", "a@b.c"), ("password", "x")])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 403);
    let token = body
        .split("name=\"csrf\" value=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap()
        .to_string();
    let res = app
        .client
        .post(app.url("/login"))
        .header("Origin", "http://evil.example")
        .form(&[
            ("csrf", token.as_str()),
            ("email", "a@b.c"),
            ("password", "x"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 403);
    // With the token from this site: a wrong password goes back to the login page.
    let res = app
        .client
        .post(app.url("/login"))
        .header("Origin", app.address.as_str())
        .form(&[
            ("csrf", token.as_str()),
            ("email", "a@b.c"),
            ("password", "x"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 303);
    assert!(
        res.headers()["location"]
            .to_str()
            .unwrap()
            .starts_with("/login")
    );
}

async fn games_stored(app: &TestApp) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM games")
        .fetch_one(&app.db)
        .await
        .unwrap()
}

const BAD_CARD: &str = "name = \"Friday card\"\nyear = 2026\n\n[[hand]]\nsection = \"Winds\"\npattern = \"NNNN EEE WWW SSSS\"\nvalue = 25\n\n[[hand]]\nsection = \"Winds\"\npattern = \"NNNN EEE WWW QQQ\"\nvalue = 30\n\n[[hand]]\nsection = \"Winds\"\npattern = \"NNN EEE WWW SSS\"\nvalue = 35\n";

#[tokio::test]
async fn an_owner_runs_the_club_by_keyboard_and_a_scorer_saves_offline() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "friday", "owner@example.org").await;
    let sam_client = signed_up(&app, "sam@example.org").await;
    let seated = one_table(&app, &owner, "friday", &["Ann", "Bea", "Cy", "Dot"]).await;
    let (ids, table) = (seated.players, seated.table);

    let (_driver, c) = browser().await;
    let url = |p: &str| app.url(p);

    // Log in with the keyboard alone.
    c.goto(&url("/login?next=/clubs/friday")).await.unwrap();
    tab_to(&c, "#email").await;
    type_keys(&c, "owner@example.org").await;
    tab_to(&c, "#password").await;
    type_keys(&c, PASSWORD).await;
    type_keys(&c, &String::from(char::from(Key::Enter))).await;
    wait_text(&c, ".flash.ok", "Welcome back").await;

    // Members and roles: add Sam as a scorer by keyboard, make Sam an organizer, refuse to
    // remove the last owner, remove Sam.
    click(&c, "a[href='/clubs/friday/members']").await;
    wait_text(&c, "h1", "Members and roles").await;
    tab_to(&c, "#member-email").await;
    type_keys(&c, "sam@example.org").await;
    // The role offered first is member; a letter typed on the list picks scorer.
    tab_to(&c, "#member-role").await;
    type_keys(&c, "s").await;
    tab_to(&c, "#add-member button[type=submit]").await;
    type_keys(&c, &String::from(char::from(Key::Enter))).await;
    wait_text(
        &c,
        ".flash.ok",
        "An invitation to join as scorer is on its way to sam@example.org",
    )
    .await;
    wait_text(&c, "#invited", "sam@example.org as scorer").await;
    // Sam follows the mailed link and joins; the page, reloaded, lists Sam as a member.
    let link = common::mailed_path(&app, "invitation", "sam@example.org", "/invitations/").await;
    let res = sam_client
        .post(app.url(&format!("/api/v1{link}")))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    c.refresh().await.unwrap();
    wait_text(&c, "h1", "Members and roles").await;
    let members: Value = owner
        .get(app.url("/api/v1/clubs/friday/members"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let sam = members["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["email"] == "sam@example.org")
        .expect("Sam is a member")["user_id"]
        .as_i64()
        .unwrap();
    c.find(Locator::Css(&format!("#role-{sam}")))
        .await
        .unwrap()
        .select_by_value("organizer")
        .await
        .unwrap();
    click(&c, &format!("form:has(#role-{sam}) button[type=submit]")).await;
    wait_text(&c, ".flash.ok", "sam@example.org is now organizer").await;
    shots(&c, "members").await;
    let owner_id = members["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["email"] == "owner@example.org")
        .unwrap()["user_id"]
        .as_i64()
        .unwrap();
    // Removing asks first: the row's Remove opens a confirmation naming the member.
    click(
        &c,
        &format!("details:has(form[action$='/members/{owner_id}/remove']) summary"),
    )
    .await;
    click(
        &c,
        &format!("form[action$='/members/{owner_id}/remove'] button"),
    )
    .await;
    wait_text(&c, ".flash.bad", "last owner").await;
    click(
        &c,
        &format!("details:has(form[action$='/members/{sam}/remove']) summary"),
    )
    .await;
    let asks = text_of(&c, &format!("form[action$='/members/{sam}/remove']")).await;
    assert!(asks.contains("Yes, remove sam@example.org"), "{asks}");
    click(&c, &format!("form[action$='/members/{sam}/remove'] button")).await;
    wait_text(&c, ".flash.ok", "is no longer a member of friday").await;
    let members: Value = owner
        .get(app.url("/api/v1/clubs/friday/members"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(members["members"].as_array().unwrap().len(), 1, "{members}");
    // Sam opens the club: a page that says so in words, with Sam still logged in.
    let res = sam_client
        .get(app.url("/clubs/friday"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 403);
    let page = res.text().await.unwrap();
    assert!(
        page.contains("You are no longer a member of friday")
            && page.contains("took you out of friday on ")
            && page.contains("action=\"/logout\""),
        "{page}"
    );
    // Once the club shows a league to everyone, Sam sees that page, told first that she left.
    let res = owner
        .patch(app.url(&format!("/api/v1/leagues/{}", seated.league)))
        .json(&json!({"visibility": "public"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let res = sam_client
        .get(app.url("/clubs/friday"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let page = res.text().await.unwrap();
    assert!(
        page.contains("took you out of friday on ")
            && page
                .contains("You are no longer a member: you see only what friday shows everyone."),
        "{page}"
    );

    // API tokens: the secret is shown once, works, and stops working when revoked.
    c.goto(&url("/clubs/friday")).await.unwrap();
    click(&c, "a[href='/clubs/friday/tokens']").await;
    fill(&c, "#token-name", "standings board").await;
    click(&c, "#new-token button[type=submit]").await;
    wait_text(&c, ".secret h2", "standings board").await;
    let secret = c
        .find(Locator::Css("#secret"))
        .await
        .unwrap()
        .prop("value")
        .await
        .unwrap()
        .expect("the secret is shown");
    click(&c, "button[data-copy=secret]").await;
    let said = wait_text(&c, ".secret .copied", ".").await;
    assert!(
        said.starts_with("Copied") || said.starts_with("Selected"),
        "{said}"
    );
    shots(&c, "tokens").await;
    let with_token = |path: &str| {
        reqwest::Client::new()
            .get(app.url(path))
            .bearer_auth(&secret)
            .send()
    };
    assert_eq!(
        with_token("/api/v1/clubs/friday").await.unwrap().status(),
        200
    );
    c.goto(&url("/clubs/friday/tokens")).await.unwrap();
    let source = c.source().await.unwrap();
    assert!(!source.contains(&secret), "the secret is never shown again");
    assert!(source.contains("standings board"));
    click(&c, "form[action$='/revoke'] button").await;
    wait_text(&c, ".flash.ok", "revoked").await;
    assert_eq!(
        with_token("/api/v1/clubs/friday").await.unwrap().status(),
        401
    );

    // Card upload: a file with errors comes back with each error at its line; fixed, it is
    // stored and its page opens.
    c.goto(&url("/clubs/friday/cards")).await.unwrap();
    shots(&c, "cards").await;
    fill(&c, "#card-source", BAD_CARD).await;
    click(&c, "#upload button[type=submit]").await;
    wait_text(&c, ".problems h2", "2 errors").await;
    let line11 = text_of(&c, "#line-11.bad").await;
    assert!(line11.contains("`Q` is not a pattern symbol"), "{line11}");
    let line16 = text_of(&c, "#line-16.bad").await;
    assert!(line16.contains("12 tiles"), "{line16}");
    assert_eq!(
        c.find_all(Locator::Css("ol.source-lines li.bad"))
            .await
            .unwrap()
            .len(),
        2
    );
    let kept = c
        .find(Locator::Css("#card-source"))
        .await
        .unwrap()
        .prop("value")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(kept, BAD_CARD, "the file is kept to fix");
    shots(&c, "cards-errors").await;
    let fixed = BAD_CARD
        .replace("NNNN EEE WWW QQQ", "NNNN EEEE WWW SSS")
        .replace("\"NNN EEE WWW SSS\"", "\"FF NNN EEE WWW SSS\"");
    c.find(Locator::Css("#card-source"))
        .await
        .unwrap()
        .clear()
        .await
        .unwrap();
    fill(&c, "#card-source", &fixed).await;
    click(&c, "#upload button[type=submit]").await;
    wait_text(&c, ".flash.ok", "Friday card 2026 uploaded: 3 lines").await;
    assert!(text_of(&c, "h1").await.contains("Friday card"));
    assert!(c.current_url().await.unwrap().path().starts_with("/cards/"));

    // The scoring screen by keyboard: Tab reaches the picker's tiles and Enter picks one.
    c.goto(&url(&format!("/tables/{table}/score")))
        .await
        .unwrap();
    tab_to(&c, "#picker button[data-tile]").await;
    type_keys(&c, &String::from(char::from(Key::Enter))).await;
    let hand = c
        .find(Locator::Css("#hand"))
        .await
        .unwrap()
        .prop("value")
        .await
        .unwrap()
        .unwrap_or_default();
    assert_eq!(
        hand.split_whitespace().count(),
        1,
        "one tile picked: {hand}"
    );
    click(&c, "#clear").await;

    // Offline: the game stays on the page, says so, and is sent when the network is back.
    click(&c, &format!("input[name=won][value='{}']", ids[1])).await;
    click(&c, "input[name=how][value=self_pick]").await;
    for tile in [
        "F", "F", "2B", "2B", "J", "2B", "4C", "4C", "6C", "6C", "8B", "8B", "J", "8B",
    ] {
        click(&c, &format!("#picker button[data-tile='{tile}']")).await;
    }
    wait_text(&c, "#verdict", "2468#2").await;
    c.issue_cmd(Network { offline: true }).await.unwrap();
    save(&c).await;
    wait_text(&c, "#sent", "Not saved yet").await;
    c.execute(
        "document.getElementById('sent').scrollIntoView({block: 'center'});",
        vec![],
    )
    .await
    .unwrap();
    shots(&c, "score-offline").await;
    assert_eq!(games_stored(&app).await, 0);
    c.issue_cmd(Network { offline: false }).await.unwrap();
    wait_text(&c, "#sent", "Saved game 1").await;
    assert_eq!(games_stored(&app).await, 1, "sent once");

    // The database away: a 503 keeps the game on the device, and it goes again by itself.
    c.goto(&url(&format!("/tables/{table}/score")))
        .await
        .unwrap();
    wait_text(&c, "h1", "game 2").await;
    click(&c, "input[name=won][value=wall]").await;
    common::database_away(&app, true).await;
    save(&c).await;
    wait_text(&c, "#sent", "the server is busy (503)").await;
    common::database_away(&app, false).await;
    wait_text(&c, "#sent", "Saved game 2").await;
    assert_eq!(games_stored(&app).await, 2, "sent once, after the outage");

    c.close().await.unwrap();
}

#[tokio::test]
async fn organizer_pages_are_for_organizers_only() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "friday", "owner@example.org").await;
    let scorer = common::member_of(&app, &owner, "friday", "scorer@example.org", "scorer").await;
    let stranger = signed_up(&app, "stranger@example.org").await;
    for page in ["members", "tokens", "cards"] {
        let path = format!("/clubs/friday/{page}");
        let status = |c: reqwest::Client| {
            let url = app.url(&path);
            async move { c.get(url).send().await.unwrap().status().as_u16() }
        };
        assert_eq!(status(owner.clone()).await, 200, "{path}: owner");
        assert_eq!(status(scorer.clone()).await, 403, "{path}: scorer");
        assert_eq!(status(stranger.clone()).await, 404, "{path}: not a member");
        assert_eq!(
            status(reqwest::Client::new()).await,
            401,
            "{path}: logged out"
        );
        // The refusal is a page whose header shows the scorer logged in, as any page would.
        let refused = scorer.get(app.url(&path)).send().await.unwrap();
        assert_eq!(refused.status(), 403);
        let html = refused.text().await.unwrap();
        assert!(
            html.contains("Not for you")
                && html.contains("action=\"/logout\"")
                && !html.contains(">Log in</a>"),
            "{html}"
        );
    }
}
