//! Open to apps and club websites, over real HTTP: public leagues found without a token, public
//! reads from any origin (CORS) while a session is never readable from another, API tokens from
//! a browser only on the club's listed websites, games as JSON paged by cursor and by change,
//! the framable standings embed, and rate limits an app can see.

mod common;

use std::collections::BTreeSet;

use common::{TestApp, club_owner, csrf_of, one_table, spawn_app, spawn_app_with};
use reqwest::header::{
    ACCESS_CONTROL_ALLOW_CREDENTIALS, ACCESS_CONTROL_ALLOW_ORIGIN, HeaderMap, LINK, ORIGIN,
};
use serde_json::{Value, json};

const WIN: &str = "F F 2B 2B J 2B 4C 4C 6C 6C 8B 8B J 8B";
const SITE: &str = "https://tuesdaytiles.example";

async fn ok_json(res: reqwest::Response) -> Value {
    let status = res.status();
    let text = res.text().await.unwrap();
    assert!(status.is_success(), "{status}: {text}");
    serde_json::from_str(&text).unwrap()
}

async fn league(app: &TestApp, owner: &reqwest::Client, club: &str, name: &str, vis: &str) -> i64 {
    let res = owner
        .post(app.url(&format!("/api/v1/clubs/{club}/leagues")))
        .json(
            &json!({"name": name, "card": "demo-2026", "ruleset": "nmjl-money", "visibility": vis}),
        )
        .send()
        .await
        .unwrap();
    ok_json(res).await["id"].as_i64().unwrap()
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

fn header(h: &HeaderMap, name: impl reqwest::header::AsHeaderName) -> Option<&str> {
    h.get(name).map(|v| v.to_str().unwrap())
}

async fn token(app: &TestApp, owner: &reqwest::Client, club: &str) -> String {
    let res = owner
        .post(app.url(&format!("/api/v1/clubs/{club}/tokens")))
        .json(&json!({"name": "site", "scopes": ["read"]}))
        .send()
        .await
        .unwrap();
    ok_json(res).await["token"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn anyone_finds_a_clubs_public_leagues_and_never_a_members_only_one() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "tiles", "o@example.org").await;
    let open_a = league(&app, &owner, "tiles", "Spring league", "public").await;
    let hidden = league(&app, &owner, "tiles", "Secret league", "members").await;
    let open_b = league(&app, &owner, "tiles", "Summer league", "public").await;
    let other = club_owner(&app, "quiet", "q@example.org").await;
    league(&app, &other, "quiet", "Quiet league", "members").await;
    let anyone = reqwest::Client::new();

    // A club's leagues: anonymous and strangers see its public ones; members see all.
    let seen = ok_json(
        anyone
            .get(app.url("/api/v1/clubs/tiles/leagues"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    let ids: Vec<i64> = seen["leagues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, vec![open_a, open_b]);
    let stranger = ok_json(
        other
            .get(app.url("/api/v1/clubs/tiles/leagues"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        stranger["leagues"].as_array().unwrap().len(),
        2,
        "a member of another club is a stranger here"
    );
    let member = ok_json(
        owner
            .get(app.url("/api/v1/clubs/tiles/leagues"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(member["leagues"].as_array().unwrap().len(), 3);
    // A club with nothing public is not found, as one that does not exist.
    let quiet = anyone
        .get(app.url("/api/v1/clubs/quiet/leagues"))
        .send()
        .await
        .unwrap();
    assert_eq!(quiet.status(), 404);
    assert_eq!(
        anyone
            .get(app.url("/api/v1/clubs/nowhere/leagues"))
            .send()
            .await
            .unwrap()
            .status(),
        404
    );

    // Across clubs: newest first, paged by cursor with a Link header, searchable.
    let first = anyone
        .get(app.url("/api/v1/leagues?limit=1"))
        .send()
        .await
        .unwrap();
    let link = header(first.headers(), LINK).unwrap().to_string();
    let page = ok_json(first).await;
    assert_eq!(page["leagues"][0]["id"], open_b);
    assert_eq!(page["leagues"][0]["club"], "tiles");
    assert_eq!(
        page["leagues"][0]["standings_url"],
        format!("/api/v1/leagues/{open_b}/standings")
    );
    let next = page["next"].as_str().unwrap();
    assert!(
        link.starts_with("</api/v1/leagues?") && link.ends_with(">; rel=\"next\""),
        "{link}"
    );
    assert!(
        link.contains(&format!("cursor={next}")) && link.contains("limit=1"),
        "{link}"
    );
    let second = anyone
        .get(app.url(&format!("/api/v1/leagues?limit=1&cursor={next}")))
        .send()
        .await
        .unwrap();
    assert!(
        second.headers().get(LINK).is_none(),
        "no Link on the last page"
    );
    let second = ok_json(second).await;
    assert_eq!(second["leagues"][0]["id"], open_a);
    assert_eq!(second["leagues"].as_array().unwrap().len(), 1);
    assert_eq!(second["next"], Value::Null);
    let all = ok_json(
        anyone
            .get(app.url("/api/v1/leagues?q=LEAGUE"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    let names: BTreeSet<&str> = all["leagues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        BTreeSet::from(["Spring league", "Summer league"]),
        "{hidden} never listed"
    );
    let summer = ok_json(
        anyone
            .get(app.url("/api/v1/leagues?q=summ"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(summer["leagues"].as_array().unwrap().len(), 1);
    // A wildcard is a character to look for, not a pattern.
    let wild = ok_json(
        anyone
            .get(app.url("/api/v1/leagues?q=%25"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(wild["leagues"], json!([]));
    // Bad paging is a 4xx naming the parameter.
    for bad in ["limit=0", "limit=501", "cursor=bm9wZQ"] {
        let res = anyone
            .get(app.url(&format!("/api/v1/leagues?{bad}")))
            .send()
            .await
            .unwrap();
        assert!(res.status().is_client_error(), "{bad}: {}", res.status());
        let body: Value = res.json().await.unwrap();
        let field = bad.split('=').next().unwrap();
        assert!(
            body["detail"].as_str().unwrap().contains(field),
            "{bad}: {body}"
        );
    }
}

#[tokio::test]
async fn public_reads_answer_any_origin_and_a_session_never_does() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "tiles", "o@example.org").await;
    let t = one_table(&app, &owner, "tiles", &["Ann", "Bea", "Cy", "Dot"]).await;
    make_public(&app, &owner, t.league).await;
    let members_only = league(&app, &owner, "tiles", "Secret league", "members").await;
    let anyone = reqwest::Client::new();
    let standings = app.url(&format!("/api/v1/leagues/{}/standings", t.league));

    // A club website's script: no credentials, any origin.
    for path in [
        format!("/api/v1/leagues/{}/standings", t.league),
        format!("/api/v1/leagues/{}", t.league),
        format!("/api/v1/leagues/{}/nights", t.league),
        format!("/api/v1/leagues/{}/games", t.league),
        format!("/api/v1/nights/{}/games", t.night),
        "/api/v1/clubs/tiles/leagues".to_string(),
        "/api/v1/cards/demo-2026".to_string(),
    ] {
        let res = anyone
            .get(app.url(&path))
            .header(ORIGIN, "https://elsewhere.example")
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200, "{path}");
        assert_eq!(
            header(res.headers(), ACCESS_CONTROL_ALLOW_ORIGIN),
            Some("*"),
            "{path}"
        );
        assert!(
            res.headers()
                .get(ACCESS_CONTROL_ALLOW_CREDENTIALS)
                .is_none(),
            "{path}"
        );
        let exposed = header(res.headers(), "access-control-expose-headers").unwrap();
        assert!(
            exposed.contains("ETag")
                && exposed.contains("Link")
                && exposed.contains("RateLimit-Remaining")
        );
    }
    // A members-only league stays not found, whatever the origin may read.
    let hidden = anyone
        .get(app.url(&format!("/api/v1/leagues/{members_only}/standings")))
        .header(ORIGIN, "https://elsewhere.example")
        .send()
        .await
        .unwrap();
    assert_eq!(hidden.status(), 404);

    // Preflight for a read: any origin.
    let pre = anyone
        .request(reqwest::Method::OPTIONS, &standings)
        .header(ORIGIN, "https://elsewhere.example")
        .header("Access-Control-Request-Method", "GET")
        .header("Access-Control-Request-Headers", "if-none-match")
        .send()
        .await
        .unwrap();
    assert_eq!(pre.status(), 204);
    assert_eq!(
        header(pre.headers(), ACCESS_CONTROL_ALLOW_ORIGIN),
        Some("*")
    );
    assert!(
        header(pre.headers(), "access-control-allow-methods")
            .unwrap()
            .contains("GET")
    );
    assert!(
        header(pre.headers(), "access-control-allow-headers")
            .unwrap()
            .contains("If-None-Match")
    );
    // Preflight for a write without a token, or for a token from a website no club lists: no.
    for (method, headers) in [("POST", "content-type"), ("GET", "authorization")] {
        let pre = anyone
            .request(reqwest::Method::OPTIONS, &standings)
            .header(ORIGIN, SITE)
            .header("Access-Control-Request-Method", method)
            .header("Access-Control-Request-Headers", headers)
            .send()
            .await
            .unwrap();
        assert_eq!(pre.status(), 204);
        assert!(
            pre.headers().get(ACCESS_CONTROL_ALLOW_ORIGIN).is_none(),
            "{method} {headers}"
        );
    }

    // The organizer's own browser session: never readable from another origin, even public data.
    let with_session = owner
        .get(&standings)
        .header(ORIGIN, "https://elsewhere.example")
        .send()
        .await
        .unwrap();
    assert_eq!(with_session.status(), 200);
    assert!(
        with_session
            .headers()
            .get(ACCESS_CONTROL_ALLOW_ORIGIN)
            .is_none()
    );
    let private_read = owner
        .get(app.url(&format!("/api/v1/leagues/{members_only}/standings")))
        .header(ORIGIN, "https://elsewhere.example")
        .send()
        .await
        .unwrap();
    assert_eq!(private_read.status(), 200, "the member reads it");
    assert!(
        private_read
            .headers()
            .get(ACCESS_CONTROL_ALLOW_ORIGIN)
            .is_none(),
        "but no other site can"
    );

    // A token from a browser: refused from a website the club does not list, before it is used.
    let secret = token(&app, &owner, "tiles").await;
    let from_site = |origin: &'static str| {
        anyone
            .get(app.url(&format!("/api/v1/leagues/{members_only}/standings")))
            .bearer_auth(&secret)
            .header(ORIGIN, origin)
    };
    let refused = from_site(SITE).send().await.unwrap();
    assert_eq!(refused.status(), 403);
    assert!(refused.headers().get(ACCESS_CONTROL_ALLOW_ORIGIN).is_none());
    let body: Value = refused.json().await.unwrap();
    assert!(body["detail"].as_str().unwrap().contains(SITE), "{body}");
    // Without an Origin (a server, not a browser) the token works as always.
    let server = anyone
        .get(app.url(&format!("/api/v1/leagues/{members_only}/standings")))
        .bearer_auth(&secret)
        .send()
        .await
        .unwrap();
    assert_eq!(server.status(), 200);

    // The organizer lists the club's website: that origin only.
    let bad = owner
        .put(app.url("/api/v1/clubs/tiles/origins"))
        .json(&json!({"origins": ["https://tuesdaytiles.example/standings"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 422);
    let listed = ok_json(
        owner
            .put(app.url("/api/v1/clubs/tiles/origins"))
            .json(&json!({"origins": ["HTTPS://TuesdayTiles.example/", SITE]}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(listed["origins"], json!([SITE]), "normalised, once");
    let allowed = from_site(SITE).send().await.unwrap();
    assert_eq!(allowed.status(), 200);
    assert_eq!(
        header(allowed.headers(), ACCESS_CONTROL_ALLOW_ORIGIN),
        Some(SITE)
    );
    assert!(
        header(allowed.headers(), "vary")
            .unwrap()
            .contains("Origin")
    );
    assert!(
        allowed
            .headers()
            .get(ACCESS_CONTROL_ALLOW_CREDENTIALS)
            .is_none()
    );
    assert_eq!(
        from_site("https://evil.example")
            .send()
            .await
            .unwrap()
            .status(),
        403
    );
    let pre = anyone
        .request(reqwest::Method::OPTIONS, &standings)
        .header(ORIGIN, SITE)
        .header("Access-Control-Request-Method", "GET")
        .header("Access-Control-Request-Headers", "authorization")
        .send()
        .await
        .unwrap();
    assert_eq!(
        header(pre.headers(), ACCESS_CONTROL_ALLOW_ORIGIN),
        Some(SITE)
    );
    assert!(
        header(pre.headers(), "access-control-allow-headers")
            .unwrap()
            .contains("Authorization")
    );
    // Listing websites is for organizers: a read token may not.
    let by_token = anyone
        .put(app.url("/api/v1/clubs/tiles/origins"))
        .bearer_auth(&secret)
        .json(&json!({"origins": []}))
        .send()
        .await
        .unwrap();
    assert_eq!(by_token.status(), 403);
}

async fn record(client: &reqwest::Client, app: &TestApp, table: i64, winner: i64) -> Value {
    let res = client
        .post(app.url(&format!("/api/v1/tables/{table}/games")))
        .json(&json!({"outcome": "mahjong", "winner": winner, "hand": WIN, "won_by": "self_pick"}))
        .send()
        .await
        .unwrap();
    ok_json(res).await
}

/// Every page of a listing, following `next` (and checking the Link header says the same).
async fn every_page(
    app: &TestApp,
    client: &reqwest::Client,
    first: &str,
) -> (Vec<Value>, Vec<i64>) {
    let mut url = first.to_string();
    let mut games = Vec::new();
    let mut last_events = Vec::new();
    loop {
        let res = client.get(app.url(&url)).send().await.unwrap();
        let link = header(res.headers(), LINK).map(str::to_string);
        let page = ok_json(res).await;
        games.extend(page["games"].as_array().unwrap().iter().cloned());
        last_events.push(page["last_event"].as_i64().unwrap());
        match page["next"].as_str() {
            Some(next) => {
                let link = link.expect("a Link header beside `next`");
                let target = link
                    .trim_start_matches('<')
                    .split('>')
                    .next()
                    .unwrap()
                    .to_string();
                assert!(target.contains(&format!("cursor={next}")), "{link}");
                url = target;
            }
            None => {
                assert!(link.is_none());
                return (games, last_events);
            }
        }
    }
}

#[tokio::test]
async fn a_thousand_games_page_through_with_none_twice_or_missing() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "tiles", "o@example.org").await;
    let t = one_table(&app, &owner, "tiles", &["Ann", "Bea", "Cy", "Dot"]).await;
    make_public(&app, &owner, t.league).await;
    record(&owner, &app, t.table, t.players[1]).await;
    // 999 more games as the service stores them: 249 more tables of the night with 4 games
    // each and games 2 to 4 of the first, copies of the first game's rows.
    sqlx::query(
        "INSERT INTO night_tables (night_id, number) SELECT $1, n FROM generate_series(2, 250) n",
    )
    .bind(t.night)
    .execute(&app.db)
    .await
    .unwrap();
    sqlx::query(
        "WITH g0 AS (SELECT * FROM games WHERE table_id = $2), \
              slots AS (SELECT t.id AS table_id, k FROM night_tables t, generate_series(1, 4) k \
                        WHERE t.night_id = $1 AND NOT (t.id = $2 AND k = 1)), \
              made AS (INSERT INTO games (table_id, number, east_player, outcome, submitted, engine, line_id, line_value, winner, won_by, jokerless) \
                       SELECT s.table_id, s.k, g0.east_player, g0.outcome, g0.submitted, g0.engine, g0.line_id, g0.line_value, g0.winner, g0.won_by, g0.jokerless \
                       FROM slots s, g0 ORDER BY s.table_id, s.k RETURNING id) \
         INSERT INTO game_scores (game_id, player_id, seat, score, breakdown) \
         SELECT m.id, s.player_id, s.seat, s.score, s.breakdown FROM made m, game_scores s, g0 WHERE s.game_id = g0.id",
    )
    .bind(t.night)
    .bind(t.table)
    .execute(&app.db)
    .await
    .unwrap();
    let stored: Vec<i64> = sqlx::query_scalar("SELECT id FROM games ORDER BY id")
        .fetch_all(&app.db)
        .await
        .unwrap();
    assert_eq!(stored.len(), 1000);

    let anyone = reqwest::Client::new();
    let (games, _) = every_page(
        &app,
        &anyone,
        &format!("/api/v1/leagues/{}/games?limit=37", t.league),
    )
    .await;
    let ids: Vec<i64> = games.iter().map(|g| g["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, stored, "every game once, in id order");
    let g = &games[0];
    assert_eq!(g["night"]["id"], t.night);
    assert_eq!(g["table"]["number"], 1);
    assert_eq!(g["outcome"], "mahjong");
    assert_eq!(g["won_by"], "self_pick");
    assert_eq!(g["status"], "recorded");
    assert_eq!(g["line"], "2468#2");
    let seats: Vec<&str> = g["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["seat"].as_str().unwrap())
        .collect();
    assert_eq!(seats, vec!["E", "S", "W", "N"]);
    let total: i64 = g["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["score"].as_i64().unwrap())
        .sum();
    assert_eq!(total, 0, "money scores balance");
    // The night's list is the same games, at the largest page.
    let (night_games, _) = every_page(
        &app,
        &anyone,
        &format!("/api/v1/nights/{}/games?limit=500", t.night),
    )
    .await;
    assert_eq!(night_games.len(), 1000);
}

#[tokio::test]
async fn since_lists_what_was_amended_and_voided_once_each() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "tiles", "o@example.org").await;
    let t = one_table(&app, &owner, "tiles", &["Ann", "Bea", "Cy", "Dot"]).await;
    let first = record(&owner, &app, t.table, t.players[0]).await;
    let second = record(&owner, &app, t.table, t.players[1]).await;
    let third = record(&owner, &app, t.table, t.players[2]).await;
    let url = format!("/api/v1/leagues/{}/games", t.league);
    // A members-only league: not for anyone, yes for a member.
    assert_eq!(
        reqwest::Client::new()
            .get(app.url(&url))
            .send()
            .await
            .unwrap()
            .status(),
        404
    );
    let (all, marks) = every_page(&app, &owner, &format!("{url}?limit=2")).await;
    assert_eq!(all.len(), 3);
    assert!(
        marks.windows(2).all(|w| w[0] == w[1]),
        "one listing is read as of one event"
    );
    let mark = marks[0];
    assert!(mark > 0);
    let nothing = ok_json(
        owner
            .get(app.url(&format!("{url}?since={mark}")))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(nothing["games"], json!([]));
    assert_eq!(nothing["last_event"], mark);

    // Amend the first game (twice), void the second; the third is untouched.
    for winner in [t.players[3], t.players[2]] {
        let version = owner
            .get(app.url(&format!("/api/v1/games/{}", first["id"])))
            .send()
            .await
            .unwrap();
        let etag = version.headers()["etag"].to_str().unwrap().to_string();
        let res = owner
            .put(app.url(&format!("/api/v1/games/{}", first["id"])))
            .header("If-Match", etag)
            .json(&json!({"number": 1, "outcome": "mahjong", "winner": winner, "hand": WIN, "won_by": "self_pick"}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
    }
    let res = owner
        .post(app.url(&format!("/api/v1/games/{}/void", second["id"])))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);

    let (changed, marks) = every_page(&app, &owner, &format!("{url}?since={mark}&limit=1")).await;
    let ids: Vec<i64> = changed.iter().map(|g| g["id"].as_i64().unwrap()).collect();
    assert_eq!(
        ids,
        vec![
            first["id"].as_i64().unwrap(),
            second["id"].as_i64().unwrap()
        ],
        "each changed game once, in the order of its last change"
    );
    assert_eq!(changed[0]["version"], 3);
    assert_eq!(changed[0]["winner"], t.players[2]);
    assert_eq!(changed[1]["status"], "voided");
    assert!(!ids.contains(&third["id"].as_i64().unwrap()));
    let later = marks[0];
    assert!(later > mark);
    let again = ok_json(
        owner
            .get(app.url(&format!("{url}?since={later}")))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(again["games"], json!([]), "nothing after the newest mark");
    // A new game after the mark is the only change then, listed for the night as well.
    let fourth = record(&owner, &app, t.table, t.players[3]).await;
    let night = ok_json(
        owner
            .get(app.url(&format!("/api/v1/nights/{}/games?since={later}", t.night)))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(night["games"].as_array().unwrap().len(), 1);
    assert_eq!(night["games"][0]["id"], fourth["id"]);
}

/// The `next` of a first page of `limit=1`.
async fn first_cursor(app: &TestApp, client: &reqwest::Client, url: &str) -> String {
    let sep = if url.contains('?') { '&' } else { '?' };
    ok_json(
        client
            .get(app.url(&format!("{url}{sep}limit=1")))
            .send()
            .await
            .unwrap(),
    )
    .await["next"]
        .as_str()
        .expect("a next page")
        .to_string()
}

/// The problem a refused request answers, with its status.
async fn refused(res: reqwest::Response) -> (u16, Value) {
    let status = res.status().as_u16();
    (status, res.json().await.unwrap())
}

#[tokio::test]
async fn a_cursor_holds_only_for_the_list_that_gave_it_and_since_only_up_to_the_last_event() {
    use base64::Engine;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let app = spawn_app().await;
    let owner = club_owner(&app, "tiles", "o@example.org").await;
    let t = one_table(&app, &owner, "tiles", &["Ann", "Bea", "Cy", "Dot"]).await;
    let neighbour = club_owner(&app, "dragons", "n@example.org").await;
    let u = one_table(&app, &neighbour, "dragons", &["Eve", "Fay", "Gus", "Hal"]).await;
    for (table, winner) in [(t.table, t.players[0]), (t.table, t.players[1])] {
        record(&owner, &app, table, winner).await;
    }
    for (table, winner) in [(u.table, u.players[0]), (u.table, u.players[1])] {
        record(&neighbour, &app, table, winner).await;
    }
    // Both public, so the owner reads the other club's lists too.
    for (client, id) in [(&owner, t.league), (&neighbour, u.league)] {
        let res = client
            .patch(app.url(&format!("/api/v1/leagues/{id}")))
            .json(&json!({"visibility": "public"}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
    }
    let league = format!("/api/v1/leagues/{}/games", t.league);
    let other_league = format!("/api/v1/leagues/{}/games", u.league);
    let night = format!("/api/v1/nights/{}/games", t.night);
    let other_night = format!("/api/v1/nights/{}/games", u.night);

    // The cursor this list gave reads its next page.
    let cursor = first_cursor(&app, &owner, &league).await;
    let second = ok_json(
        owner
            .get(app.url(&format!("{league}?limit=1&cursor={cursor}")))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(second["games"].as_array().unwrap().len(), 1);
    let last_event = second["last_event"].as_i64().unwrap();

    // Edited: the same text with the event raised, re-encoded. Before cursors were signed this
    // answered 200 with `last_event: 999`, and an app asking `since=999` then missed events.
    let text = String::from_utf8(URL_SAFE_NO_PAD.decode(&cursor).unwrap()).unwrap();
    let parts: Vec<&str> = text.split(':').collect();
    assert_eq!(parts[0], "games");
    let mut raised = parts.clone();
    raised[2] = "999";
    let edited = URL_SAFE_NO_PAD.encode(raised.join(":"));
    let bare = URL_SAFE_NO_PAD.encode(format!("games:{}:999", parts[1]));
    for forged in [edited, bare] {
        let (status, problem) = refused(
            owner
                .get(app.url(&format!("{league}?cursor={forged}")))
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(status, 422, "{problem}");
        assert_eq!(problem["errors"][0]["field"], "cursor", "{problem}");
    }

    // Another list's cursor: the night's on the league's list and on another night's, the
    // league's on the night's list and on another league's, a since-listing's on a plain one.
    let night_cursor = first_cursor(&app, &owner, &night).await;
    let changes_cursor = first_cursor(&app, &owner, &format!("{league}?since=0")).await;
    for (list, foreign) in [
        (&league, &night_cursor),
        (&other_night, &night_cursor),
        (&night, &cursor),
        (&other_league, &cursor),
        (&league, &changes_cursor),
    ] {
        let (status, problem) = refused(
            owner
                .get(app.url(&format!("{list}?cursor={foreign}")))
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(status, 422, "{list}: {problem}");
        assert_eq!(problem["errors"][0]["field"], "cursor");
    }
    // The discovery list's cursors are bound to their search too.
    let found = first_cursor(&app, &owner, "/api/v1/leagues").await;
    let (status, _) = refused(
        owner
            .get(app.url(&format!("/api/v1/leagues?q=L&cursor={found}")))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 422, "a cursor of another search");

    // `since` past the league's last event says so, naming the last one.
    let past = last_event + 1;
    let (status, problem) = refused(
        owner
            .get(app.url(&format!("{league}?since={past}")))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 422);
    assert_eq!(problem["errors"][0]["field"], "since");
    let detail = problem["detail"].as_str().unwrap();
    assert!(
        detail.contains(&format!("last event, {last_event}")),
        "{detail}"
    );
    let current = ok_json(
        owner
            .get(app.url(&format!("{league}?since={last_event}")))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(current["games"], json!([]), "up to date: an empty page");
    let negative = owner
        .get(app.url(&format!("{league}?since=-1")))
        .send()
        .await
        .unwrap();
    assert_eq!(negative.status(), 422);
}

#[tokio::test]
async fn the_embed_may_be_framed_anywhere_and_only_for_a_public_league() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "tiles", "o@example.org").await;
    let public = league(&app, &owner, "tiles", "Spring league", "public").await;
    let members_only = league(&app, &owner, "tiles", "Secret league", "members").await;
    let anyone = reqwest::Client::new();
    let embed = anyone
        .get(app.url(&format!("/leagues/{public}/embed")))
        .send()
        .await
        .unwrap();
    assert_eq!(embed.status(), 200);
    let csp = header(embed.headers(), "content-security-policy")
        .unwrap()
        .to_string();
    assert!(csp.contains("frame-ancestors *"), "{csp}");
    assert!(embed.headers().get("x-frame-options").is_none());
    assert!(embed.text().await.unwrap().contains("Spring league"));
    // Not for a members-only league, even to its owner.
    for client in [&anyone, &owner] {
        let res = client
            .get(app.url(&format!("/leagues/{members_only}/embed")))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 404);
    }
    // Every other page keeps refusing frames.
    let page = anyone
        .get(app.url(&format!("/leagues/{public}")))
        .send()
        .await
        .unwrap();
    assert_eq!(header(page.headers(), "x-frame-options"), Some("DENY"));
    assert!(
        header(page.headers(), "content-security-policy")
            .unwrap()
            .contains("frame-ancestors 'none'")
    );
    // The organizer sees the snippet to copy; strangers do not.
    let mine = owner
        .get(app.url(&format!("/leagues/{public}")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let snippet = mine
        .split("id=\"embed-code\"")
        .nth(1)
        .unwrap_or("")
        .split("</textarea>")
        .next()
        .unwrap();
    assert!(
        snippet.contains(&format!("/leagues/{public}/embed")) && snippet.contains("&#60;iframe"),
        "the snippet, escaped: {snippet}"
    );
    let theirs = anyone
        .get(app.url(&format!("/leagues/{public}")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(!theirs.contains("embed-code"));
}

#[tokio::test]
async fn rate_limits_count_per_token_and_per_address_and_say_so() {
    let app = spawn_app_with(|s| {
        s.api_rate_limit = 3;
        s.token_rate_limit = 2;
    })
    .await;
    let owner = club_owner(&app, "tiles", "o@example.org").await;
    let public = league(&app, &owner, "tiles", "Spring league", "public").await;
    let secret = token(&app, &owner, "tiles").await;
    let anyone = reqwest::Client::new();
    let url = app.url(&format!("/api/v1/leagues/{public}/standings"));
    // Signing up was a request without credentials from this address too: count from what is left.
    let mut remaining = Vec::new();
    loop {
        let res = anyone.get(&url).send().await.unwrap();
        assert_eq!(res.status(), 200);
        assert_eq!(header(res.headers(), "ratelimit-limit"), Some("3"));
        let left: u32 = header(res.headers(), "ratelimit-remaining")
            .unwrap()
            .parse()
            .unwrap();
        let reset: u64 = header(res.headers(), "ratelimit-reset")
            .unwrap()
            .parse()
            .unwrap();
        assert!((1..=60).contains(&reset), "{reset}");
        remaining.push(left);
        if left == 0 {
            break;
        }
        assert!(remaining.len() < 3, "{remaining:?}");
    }
    assert!(
        remaining.windows(2).all(|w| w[1] + 1 == w[0]),
        "{remaining:?}"
    );
    let over = anyone
        .get(&url)
        .header(ORIGIN, "https://elsewhere.example")
        .send()
        .await
        .unwrap();
    assert_eq!(over.status(), 429);
    let wait: u64 = header(over.headers(), "retry-after")
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=21).contains(&wait), "{wait}");
    assert_eq!(
        header(over.headers(), "ratelimit-reset"),
        Some(wait.to_string().as_str()),
        "RateLimit-Reset and Retry-After tell one story"
    );
    assert_eq!(
        header(over.headers(), ACCESS_CONTROL_ALLOW_ORIGIN),
        Some("*"),
        "an app in a browser can read why"
    );
    let body: Value = over.json().await.unwrap();
    assert!(
        body["detail"].as_str().unwrap().contains("per address"),
        "{body}"
    );

    // A token has its own count, whatever the address has used.
    for expected in ["1", "0"] {
        let res = anyone.get(&url).bearer_auth(&secret).send().await.unwrap();
        assert_eq!(res.status(), 200);
        assert_eq!(header(res.headers(), "ratelimit-remaining"), Some(expected));
    }
    let over = anyone.get(&url).bearer_auth(&secret).send().await.unwrap();
    assert_eq!(over.status(), 429);
    assert!(over.headers().contains_key("retry-after"));
    // Pages' own requests (a session) do not count against apps' limits.
    let member = owner.get(&url).send().await.unwrap();
    assert_eq!(member.status(), 200);
    assert!(member.headers().get("ratelimit-limit").is_none());
}

#[tokio::test]
async fn an_organizer_lists_the_clubs_websites_on_the_tokens_page() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "tiles", "o@example.org").await;
    let stored = |owner: reqwest::Client| {
        let url = app.url("/api/v1/clubs/tiles/origins");
        async move { ok_json(owner.get(url).send().await.unwrap()).await["origins"].clone() }
    };
    let page = owner
        .get(app.url("/clubs/tiles/tokens"))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(html.contains("Websites that may use a token"), "{html}");
    let csrf = csrf_of(&html);

    // A line that is not a website: the page comes back with what was typed and the line named;
    // nothing is stored.
    let typed = "https://tuesdaytiles.example\ntuesdaytiles.example/standings";
    let res = owner
        .post(app.url("/clubs/tiles/origins"))
        .form(&[("csrf", csrf.as_str()), ("websites", typed)])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 422);
    let html = res.text().await.unwrap();
    assert!(html.contains("Line 2:"), "{html}");
    assert!(
        html.contains("https://tuesdaytiles.example\ntuesdaytiles.example/standings</textarea>"),
        "what was typed is kept: {html}"
    );
    assert_eq!(stored(owner.clone()).await, json!([]));

    // Fixed: stored as browsers send them (lowercase, no trailing slash), blank lines skipped.
    let res = owner
        .post(app.url("/clubs/tiles/origins"))
        .form(&[
            ("csrf", csrf.as_str()),
            (
                "websites",
                "https://TuesdayTiles.example/\n\nhttp://localhost:3000\n",
            ),
        ])
        .send()
        .await
        .unwrap();
    // The owner's client follows the redirect back to the page, where the result stays.
    assert_eq!(res.status(), 200);
    assert_eq!(res.url().path(), "/clubs/tiles/tokens");
    let html = res.text().await.unwrap();
    assert!(
        html.contains("Saved: 2 websites"),
        "the result stays on screen: {html}"
    );
    assert_eq!(
        stored(owner.clone()).await,
        json!(["https://tuesdaytiles.example", "http://localhost:3000"])
    );
    assert!(
        html.contains("https://tuesdaytiles.example\nhttp://localhost:3000</textarea>"),
        "{html}"
    );

    // A token sent from a page of that website now works there, and only there.
    let secret = token(&app, &owner, "tiles").await;
    let from = |origin: &'static str| {
        reqwest::Client::new()
            .get(app.url("/api/v1/clubs/tiles"))
            .bearer_auth(&secret)
            .header(ORIGIN, origin)
            .send()
    };
    let res = from(SITE).await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(
        header(res.headers(), ACCESS_CONTROL_ALLOW_ORIGIN),
        Some(SITE)
    );
    assert_eq!(
        from("https://elsewhere.example").await.unwrap().status(),
        403
    );

    // Emptied: no website may send a token any more.
    let res = owner
        .post(app.url("/clubs/tiles/origins"))
        .form(&[("csrf", csrf.as_str()), ("websites", "  \n")])
        .send()
        .await
        .unwrap();
    assert!(res.text().await.unwrap().contains("No websites listed"));
    assert_eq!(stored(owner.clone()).await, json!([]));
    assert_eq!(from(SITE).await.unwrap().status(), 403);
}

/// What an app reads to stay current, without credentials on a public league: the standings
/// carry the revision of the last `standings.changed` they include; the league, its games and
/// the standings answer 304 to their own `ETag` until something changes; the league says its
/// club's time zone; `HEAD` answers as `GET` does, without the body; the engine's endpoints tell
/// their limit with the same headers.
#[tokio::test]
async fn standings_line_up_with_events_tags_hold_and_head_and_the_engine_say_their_headers() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "tiles", "o@example.org").await;
    let t = one_table(&app, &owner, "tiles", &["Ann", "Bea", "Cy", "Dot"]).await;
    make_public(&app, &owner, t.league).await;
    let anyone = reqwest::Client::new();
    let get = |path: String, tag: Option<String>| {
        let mut req = anyone.get(app.url(&path));
        if let Some(tag) = tag {
            req = req.header("If-None-Match", tag);
        }
        req.send()
    };
    let league_url = format!("/api/v1/leagues/{}", t.league);
    let urls = [
        league_url.clone(),
        format!("/api/v1/leagues/{}/games", t.league),
        format!("/api/v1/nights/{}/games", t.night),
        format!("/api/v1/leagues/{}/standings", t.league),
    ];
    let mut tags = Vec::new();
    for url in &urls {
        let res = get(url.clone(), None).await.unwrap();
        assert_eq!(res.status(), 200, "{url}");
        let tag = header(res.headers(), "etag").expect(url).to_string();
        let again = get(url.clone(), Some(tag.clone())).await.unwrap();
        assert_eq!(again.status(), 304, "{url}: its own tag");
        assert!(again.bytes().await.unwrap().is_empty());
        // If-None-Match compares weakly (RFC 9110): the tag marked weak, among others, holds.
        let listed = format!("\"other\", W/{tag}");
        let weak = get(url.clone(), Some(listed)).await.unwrap();
        assert_eq!(weak.status(), 304, "{url}: W/ its tag");
        let other = get(url.clone(), Some("\"other\"".into())).await.unwrap();
        assert_eq!(other.status(), 200, "{url}: another tag");
        tags.push(tag);
    }
    let league = ok_json(get(league_url.clone(), None).await.unwrap()).await;
    let club = ok_json(
        owner
            .get(app.url("/api/v1/clubs/tiles"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert!(club["time_zone"].is_string(), "{club}");
    assert_eq!(
        league["time_zone"], club["time_zone"],
        "read without credentials"
    );

    // A game: the games and standings change their tags; the league's settings did not change.
    record(&owner, &app, t.table, t.players[0]).await;
    for (url, tag) in urls.iter().zip(&tags) {
        let res = get(url.clone(), Some(tag.clone())).await.unwrap();
        let want = if *url == league_url { 304 } else { 200 };
        assert_eq!(res.status(), want, "{url} after a game");
    }
    // The standings include the revision the event announced.
    let mut stream = common::sse::Sse::open(
        &anyone,
        &app.url(&format!(
            "/api/v1/leagues/{}/events?last_event_id=0",
            t.league
        )),
        None,
    )
    .await;
    let changed = loop {
        let e = stream
            .next(std::time::Duration::from_secs(5))
            .await
            .unwrap();
        if e.kind == "standings.changed" {
            break e;
        }
    };
    let standings = ok_json(
        get(format!("/api/v1/leagues/{}/standings", t.league), None)
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(standings["revision"], changed.data["data"]["revision"]);

    // HEAD: the GET's status and headers, no body.
    for url in &urls {
        let head = anyone.head(app.url(url)).send().await.unwrap();
        assert_eq!(head.status(), 200, "HEAD {url}");
        let got = get(url.clone(), None).await.unwrap();
        assert_eq!(
            header(head.headers(), "etag"),
            header(got.headers(), "etag"),
            "HEAD {url}"
        );
        assert_eq!(
            header(head.headers(), ACCESS_CONTROL_ALLOW_ORIGIN),
            Some("*")
        );
        assert!(head.bytes().await.unwrap().is_empty(), "HEAD {url}");
    }

    // The engine: the same headers, counted per address.
    let mut left = Vec::new();
    for _ in 0..10 {
        let res = anyone
            .post(app.url("/api/v1/hands/check"))
            .json(&json!({"card": "demo-2026", "hand": WIN}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
        assert_eq!(header(res.headers(), "ratelimit-limit"), Some("120"));
        let reset: u64 = header(res.headers(), "ratelimit-reset")
            .unwrap()
            .parse()
            .unwrap();
        assert!((1..=6).contains(&reset), "{reset}");
        left.push(
            header(res.headers(), "ratelimit-remaining")
                .unwrap()
                .parse::<u32>()
                .unwrap(),
        );
    }
    // Each request counts; the allowance also comes back one every 50 ms, so on a busy machine
    // two requests in a row may show the same number: at least one pair shows the count.
    assert!(left.windows(2).any(|w| w[1] + 1 == w[0]), "{left:?}");
}

/// What the API guide promises an app, held against the service: unknown fields in a body are
/// refused naming the field (a preview's `result`, read as the CLI reads one, ignores them, as
/// the document says); discovery's `board` takes every board, as the document's enum lists
/// them; every list is an object with its items and `next`.
#[tokio::test]
async fn the_api_guide_promises_hold() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "tiles", "o@example.org").await;
    let t = one_table(&app, &owner, "tiles", &["Ann", "Bea", "Cy", "Dot"]).await;
    let res = owner
        .post(app.url(&format!("/api/v1/tables/{}/games", t.table)))
        .json(&json!({"outcome": "wall", "colour": "blue"}))
        .send()
        .await
        .unwrap();
    assert_eq!(
        res.status(),
        400,
        "a body that cannot be read as this operation's"
    );
    let problem: Value = res.json().await.unwrap();
    assert!(problem.to_string().contains("colour"), "{problem}");
    let res = app
        .client
        .post(app.url("/api/v1/scores/preview"))
        .json(&json!({"card": "demo-2026", "ruleset": "nmjl-money",
                      "result": {"seats": ["E", "S", "W", "N"], "outcome": "wall", "colour": "blue"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "a result's unknown fields are ignored");

    // Every board, in discovery and in the document.
    let doc: Value = app
        .client
        .get(app.url("/api/openapi.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let boards = &doc["components"]["schemas"]["LeagueListing"]["properties"]["board"]["enum"];
    assert_eq!(
        boards,
        &json!(["total", "average", "best_per_night", "best_per_week"])
    );
    for board in ["total", "average", "best_per_night", "best_per_week"] {
        let res = owner
            .post(app.url("/api/v1/clubs/tiles/leagues"))
            .json(
                &json!({"name": format!("By {board}"), "card": "demo-2026", "ruleset": "nmjl-money",
                          "visibility": "public", "board": board}),
            )
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 201);
    }
    let found = ok_json(
        app.client
            .get(app.url("/api/v1/leagues?q=By"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    let mut listed: Vec<&str> = found["leagues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["board"].as_str().unwrap())
        .collect();
    listed.sort_unstable();
    assert_eq!(
        listed,
        ["average", "best_per_night", "best_per_week", "total"]
    );

    // Lists: an object with the items and `next`, in the answers and in the document.
    for (path, items) in [
        ("/api/v1/clubs/tiles/leagues", "leagues"),
        (&*format!("/api/v1/leagues/{}/nights", t.league), "nights"),
        ("/api/v1/clubs/tiles/players", "players"),
        ("/api/v1/clubs/tiles/members", "members"),
    ] {
        let list = ok_json(owner.get(app.url(path)).send().await.unwrap()).await;
        assert!(list[items].is_array(), "{path}: {list}");
        assert_eq!(list["next"], Value::Null, "{path}");
    }
    for (path, op) in doc["paths"].as_object().unwrap() {
        for (method, op) in op.as_object().unwrap() {
            let Some(schema) = op.pointer("/responses/200/content/application~1json/schema") else {
                continue;
            };
            assert_ne!(
                schema["type"], "array",
                "{method} {path} answers a bare array"
            );
        }
    }
}

/// Every item of a list of `field`, page by page at `limit` items, following the `Link` header
/// (which must agree with `next`).
async fn walk(
    app: &TestApp,
    client: &reqwest::Client,
    path: &str,
    field: &str,
    limit: usize,
) -> Vec<Value> {
    let sep = if path.contains('?') { '&' } else { '?' };
    let mut url = format!("{path}{sep}limit={limit}");
    let mut items = Vec::new();
    loop {
        let res = client.get(app.url(&url)).send().await.unwrap();
        let link = header(res.headers(), LINK).map(str::to_string);
        let page = ok_json(res).await;
        let got = page[field].as_array().unwrap();
        assert!(got.len() <= limit, "{url}: {} items", got.len());
        items.extend(got.iter().cloned());
        match page["next"].as_str() {
            Some(next) => {
                let link = link.expect("a Link header beside `next`");
                let target = link.trim_start_matches('<').split('>').next().unwrap();
                assert!(target.contains(&format!("cursor={next}")), "{link}");
                url = target.to_string();
            }
            None => {
                assert!(link.is_none(), "{url}");
                return items;
            }
        }
    }
}

/// Issue 54: every list pages as the games list does. A club's players, members, nights,
/// seats, invitations and cards walked two at a time give each item once, in the order of the
/// whole list; an item removed between pages does not lose the next ones; a cursor holds only
/// for the list that gave it.
#[tokio::test]
async fn every_list_pages_with_a_signed_cursor_and_loses_nothing() {
    let app = spawn_app().await;
    let owner = club_owner(&app, "pages", "owner@example.org").await;
    let t = one_table(&app, &owner, "pages", &["Ann", "Bea", "Cy", "Di"]).await;
    for name in ["Eve", "Flo", "Gus"] {
        ok_json(
            owner
                .post(app.url("/api/v1/clubs/pages/players"))
                .json(&json!({"name": name}))
                .send()
                .await
                .unwrap(),
        )
        .await;
    }
    for i in 0..5 {
        ok_json(
            owner
                .put(app.url("/api/v1/clubs/pages/members"))
                .json(&json!({"email": format!("guest{i}@example.org"), "role": "member"}))
                .send()
                .await
                .unwrap(),
        )
        .await;
    }
    let lists = [
        ("/api/v1/clubs/pages/players".to_string(), "players"),
        ("/api/v1/clubs/pages/invitations".to_string(), "invitations"),
        (format!("/api/v1/nights/{}/seats", t.night), "seats"),
        ("/api/v1/cards".to_string(), "cards"),
        (format!("/api/v1/leagues/{}/nights", t.league), "nights"),
        ("/api/v1/clubs/pages/members".to_string(), "members"),
    ];
    for (path, field) in &lists {
        let whole = ok_json(owner.get(app.url(path)).send().await.unwrap()).await;
        assert!(whole["next"].is_null(), "{path}: whole at the default size");
        let whole = whole[*field].as_array().unwrap().clone();
        assert_eq!(walk(&app, &owner, path, field, 2).await, whole, "{path}");
    }

    // An invitation withdrawn after the first page, the last one that page gave: the next page
    // starts where it stood.
    let path = "/api/v1/clubs/pages/invitations";
    let first = ok_json(
        owner
            .get(app.url(&format!("{path}?limit=2")))
            .send()
            .await
            .unwrap(),
    )
    .await;
    let gone = first["invitations"][1]["id"].as_i64().unwrap();
    let res = owner
        .delete(app.url(&format!("{path}/{gone}")))
        .send()
        .await
        .unwrap();
    assert!(res.status().is_success(), "{}", res.status());
    let next = first["next"].as_str().unwrap();
    let second = ok_json(
        owner
            .get(app.url(&format!("{path}?limit=2&cursor={next}")))
            .send()
            .await
            .unwrap(),
    )
    .await;
    let all = ok_json(owner.get(app.url(path)).send().await.unwrap()).await;
    let ids = |v: &Value, f: &str| -> Vec<i64> {
        v[f].as_array()
            .unwrap()
            .iter()
            .map(|i| i["id"].as_i64().unwrap())
            .collect()
    };
    let after_first: Vec<i64> = ids(&all, "invitations")
        .into_iter()
        .filter(|id| !ids(&first, "invitations").contains(id))
        .take(2)
        .collect();
    assert_eq!(ids(&second, "invitations"), after_first);

    // Another list's cursor, or an edited one: 422 naming `cursor`.
    let players_next = ok_json(
        owner
            .get(app.url("/api/v1/clubs/pages/players?limit=1"))
            .send()
            .await
            .unwrap(),
    )
    .await["next"]
        .as_str()
        .unwrap()
        .to_string();
    for cursor in [players_next.clone(), format!("{players_next}x")] {
        let (status, problem) = refused(
            owner
                .get(app.url(&format!("{path}?cursor={cursor}")))
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(status, 422, "{problem}");
        assert_eq!(problem["errors"][0]["field"], "cursor", "{problem}");
    }
    let (status, problem) = refused(
        owner
            .get(app.url("/api/v1/clubs/pages/players?limit=501"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        (status, &problem["errors"][0]["field"]),
        (422, &json!("limit"))
    );
}
