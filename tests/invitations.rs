//! Invitations through a real SMTP server: every add by email is an invitation answered alike
//! whether or not the address has an account; the mailed link signs up and joins, or joins an
//! account in one tap; organizers list and withdraw what is pending.

mod common;

use common::smtp::SmtpSink;
use common::{
    PASSWORD, TestApp, club_owner, csrf_of, one_table, signed_up, spawn_app_with, text_at,
};
use mahjong_league::config::Secret;
use serde_json::{Value, json};

async fn app_mailing_to(sink: &SmtpSink) -> TestApp {
    let url = sink.url();
    spawn_app_with(move |s| s.smtp_url = Some(Secret::new(url))).await
}

fn browser() -> reqwest::Client {
    common::browser_client()
}

async fn invite(app: &TestApp, by: &reqwest::Client, email: &str, role: &str) -> (u16, Value) {
    let res = by
        .put(app.url("/api/v1/clubs/tiles/members"))
        .json(&json!({ "email": email, "role": role }))
        .send()
        .await
        .unwrap();
    (res.status().as_u16(), res.json().await.unwrap())
}

async fn members(app: &TestApp, owner: &reqwest::Client) -> Vec<(String, String)> {
    let list: Value = owner
        .get(app.url("/api/v1/clubs/tiles/members"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    list["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["email"].as_str().unwrap().to_string(),
                m["role"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[tokio::test]
async fn an_address_without_an_account_signs_up_through_the_mailed_link_and_joins() {
    let sink = SmtpSink::start().await;
    let app = app_mailing_to(&sink).await;
    let owner = club_owner(&app, "tiles", "ann@example.org").await;
    let t = one_table(&app, &owner, "tiles", &["Rose Adler", "Bea", "Cy", "Dot"]).await;
    signed_up(&app, "sam@example.org").await;

    // An address with an account and one without get the same answer, in the same words.
    let (known_status, known) = invite(&app, &owner, "sam@example.org", "scorer").await;
    let (new_status, new) = invite(&app, &owner, "Rose@Example.org", "scorer").await;
    assert_eq!((known_status, new_status), (202, 202));
    assert_eq!(
        known["message"]
            .as_str()
            .unwrap()
            .replace("sam@example.org", "…"),
        new["message"]
            .as_str()
            .unwrap()
            .replace("Rose@Example.org", "…"),
    );
    let keys = |v: &Value| {
        let mut k: Vec<String> = v["invitation"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        k.sort();
        k
    };
    assert_eq!(keys(&known), keys(&new));

    // Both get a mail; Rose's link, followed in a browser, offers to sign up.
    let got = sink.wait_for(2).await;
    let mail = got
        .iter()
        .find(|m| m.to == ["Rose@Example.org"])
        .expect("a mail to Rose");
    let parsed = mail.parsed();
    assert_eq!(
        parsed.subject(),
        Some("ann@example.org invites you to tiles")
    );
    let text = mail.text();
    assert!(
        text.contains("as a scorer (who records games)") && text.contains("works for 14 days"),
        "{text}"
    );
    assert!(mail.html().contains("Join tiles</a>"));
    let link = mail.link("/invitations/");
    assert!(link.starts_with(&app.address), "{link}");
    let rose = browser();
    let page = text_at(&rose, &link).await;
    assert!(
        page.contains("New here?") && page.contains("Rose@Example.org"),
        "{page}"
    );
    assert!(
        page.contains(&format!(
            "<option value=\"{}\">Rose Adler (an organizer confirms it)</option>",
            t.players[0]
        )),
        "the club's players are offered: {page}"
    );
    // The header's Log in comes back to the invitation.
    let path = link.trim_start_matches(&app.address);
    let back = format!(
        "href=\"/login?next={}\">Log in</a>",
        path.replace('/', "%2F")
    );
    assert!(page.contains(&back), "{back} in {page}");

    // A too-short password is refused on the same page, saying why.
    let res = rose
        .post(format!("{link}/account"))
        .form(&[
            ("csrf", csrf_of(&page).as_str()),
            ("display_name", "Rose"),
            ("password", "short"),
            ("player", ""),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 303);
    assert_eq!(
        res.headers()["location"],
        link.trim_start_matches(&app.address)
    );

    // Signing up with a name, a password and the player Rose is.
    let res = rose
        .post(format!("{link}/account"))
        .form(&[
            ("csrf", csrf_of(&page).as_str()),
            ("display_name", "Rose Adler"),
            ("password", PASSWORD),
            ("player", &t.players[0].to_string()),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 303);
    assert_eq!(res.headers()["location"], "/clubs/tiles");
    let club_page = text_at(&rose, &app.url("/clubs/tiles")).await;
    assert!(
        club_page.contains("Welcome to tiles: you are a scorer.")
            && club_page.contains("An organizer of tiles confirms that you are Rose Adler"),
        "{club_page}"
    );
    let me: Value = rose
        .get(app.url("/api/v1/session"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(me["email"], "Rose@Example.org");
    assert!(
        members(&app, &owner)
            .await
            .contains(&("Rose@Example.org".to_string(), "scorer".to_string()))
    );
    let claims: i64 =
        sqlx::query_scalar("SELECT count(*) FROM players WHERE claimed_by IS NOT NULL")
            .fetch_one(&app.db)
            .await
            .unwrap();
    assert_eq!(claims, 1, "an organizer confirms who Rose is");

    // The link works once; the page and the API say so in words.
    let again = text_at(&browser(), &link).await;
    assert!(again.contains("was used already"), "{again}");
    let token = link.rsplit('/').next().unwrap();
    let res = reqwest::Client::new()
        .get(app.url(&format!("/api/v1/invitations/{token}")))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);

    // Sam, who has an account, logs in from the link's page and joins with one tap.
    let sam_mail = got.iter().find(|m| m.to == ["sam@example.org"]).unwrap();
    let sam_link = sam_mail.link("/invitations/");
    let sam = browser();
    let page = text_at(&sam, &sam_link).await;
    let login = format!("/login?next={}", sam_link.trim_start_matches(&app.address));
    assert!(page.contains(&format!("href=\"{login}\"")), "{page}");
    let login_page = text_at(&sam, &app.url(&login)).await;
    let res = sam
        .post(app.url("/login"))
        .form(&[
            ("csrf", csrf_of(&login_page).as_str()),
            ("email", "sam@example.org"),
            ("password", PASSWORD),
            ("next", sam_link.trim_start_matches(&app.address)),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 303);
    assert_eq!(
        res.headers()["location"],
        sam_link.trim_start_matches(&app.address)
    );
    let page = text_at(&sam, &sam_link).await;
    assert!(page.contains("Join tiles</button>"), "{page}");
    assert!(
        !page.contains("Rose Adler</option>"),
        "a claimed player is not offered again"
    );
    let res = sam
        .post(&sam_link)
        .form(&[("csrf", csrf_of(&page).as_str()), ("player", "")])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 303);
    assert_eq!(res.headers()["location"], "/clubs/tiles");
    assert!(
        members(&app, &owner)
            .await
            .contains(&("sam@example.org".to_string(), "scorer".to_string()))
    );
    let open: Value = owner
        .get(app.url("/api/v1/clubs/tiles/invitations"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(open["invitations"], json!([]), "both invitations were used");
}

#[tokio::test]
async fn organizers_list_renew_and_withdraw_invitations() {
    let sink = SmtpSink::start().await;
    let app = app_mailing_to(&sink).await;
    let owner = club_owner(&app, "tiles", "ann@example.org").await;
    let organizer = common::member_of(&app, &owner, "tiles", "org@example.org", "organizer").await;

    // Only owners invite owners.
    let (status, problem) = invite(&app, &organizer, "dot@example.org", "owner").await;
    assert_eq!(status, 403, "{problem}");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("only an owner")
    );

    // Inviting the same address again sends nothing (its role changes); *Send again*, a day
    // after the last send, mails a new link and the first stops working.
    let (status, first) = invite(&app, &organizer, "dot@example.org", "member").await;
    assert_eq!(status, 202);
    let first_link =
        common::mailed_path(&app, "invitation", "dot@example.org", "/invitations/").await;
    let (status, second) = invite(&app, &organizer, "DOT@example.org", "scorer").await;
    assert_eq!(status, 202);
    assert_eq!(second["sent"], false, "{second}");
    assert_eq!(first["invitation"]["id"], second["invitation"]["id"]);
    assert_eq!(
        common::mailed_path(&app, "invitation", "dot@example.org", "/invitations/").await,
        first_link,
        "nothing new was mailed"
    );
    // A day later (the invitation, and the mail where it landed).
    for sql in [
        "UPDATE invitations SET sent_at = now() - interval '1 day 1 minute'",
        "UPDATE address_mail SET at = at - interval '1 day 1 minute'",
    ] {
        sqlx::query(sql).execute(&app.db).await.unwrap();
    }
    let res = organizer
        .post(app.url(&format!(
            "/api/v1/clubs/tiles/invitations/{}/send-again",
            first["invitation"]["id"]
        )))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 202);
    let second_link = {
        let mut link = first_link.clone();
        for _ in 0..100 {
            link =
                common::mailed_path(&app, "invitation", "dot@example.org", "/invitations/").await;
            if link != first_link {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        link
    };
    assert_ne!(first_link, second_link);
    let anon = reqwest::Client::new();
    let res = anon
        .get(app.url(&format!("/api/v1{first_link}")))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);
    let shown: Value = anon
        .get(app.url(&format!("/api/v1{second_link}")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(shown["role"], "scorer");
    assert_eq!(shown["club"], "tiles");
    assert_eq!(shown["invited_by"], "org@example.org");

    // The pending invitation is on the members page and in the API, and can be withdrawn.
    let page = text_at(&owner, &app.url("/clubs/tiles/members")).await;
    assert!(
        page.contains("Invited, not joined yet")
            && page.contains("dot@example.org</strong> as scorer")
            && page.contains("Send again"),
        "{page}"
    );
    let open: Value = owner
        .get(app.url("/api/v1/clubs/tiles/invitations"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(open["invitations"].as_array().unwrap().len(), 1, "{open}");
    let id = open["invitations"][0]["id"].as_i64().unwrap();
    let res = organizer
        .delete(app.url(&format!("/api/v1/clubs/tiles/invitations/{id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 204);
    let res = organizer
        .delete(app.url(&format!("/api/v1/clubs/tiles/invitations/{id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404, "withdrawn once");
    let page = text_at(&browser(), &app.url(&second_link)).await;
    assert!(page.contains("was withdrawn"), "{page}");
    let dot = signed_up(&app, "dot@example.org").await;
    let res = dot
        .post(app.url(&format!("/api/v1{second_link}")))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);
    assert!(
        !members(&app, &owner)
            .await
            .iter()
            .any(|(e, _)| e == "dot@example.org")
    );

    // A member's address changes their role at once (the organizer sees the list anyway).
    let (status, list) = invite(&app, &owner, "org@example.org", "scorer").await;
    assert_eq!(status, 200, "{list}");

    // Who is not an organizer sees no invitations; a token never invites.
    let outsider = signed_up(&app, "eve@example.org").await;
    let res = outsider
        .get(app.url("/api/v1/clubs/tiles/invitations"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);
    let (status, _) = invite(&app, &outsider, "x@example.org", "member").await;
    assert_eq!(status, 404);
}
