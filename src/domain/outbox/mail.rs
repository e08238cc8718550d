//! Club mail: messages written to the outbox in PostgreSQL with what they are about, and a worker
//! that sends them over SMTP (`--smtp-url`) or, with no SMTP server set, writes each as an `.eml`
//! file in `<data-dir>/mail/`. A message is sent once: leased by one worker at a time, marked
//! sent when the server took it, tried again with backoff while the server is away (kept across
//! restarts), and marked failed after two days of trying (an organizer sees it in the club's mail
//! log).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use crate::domain::{AppState, Error, Result};
pub use crate::mail::{header_text, html_escape};
use crate::storage::outbox::mail::{self as stored, NewMail};

/// How long a leased message is another worker's to leave alone.
const LEASE_SECS: i64 = 120;
/// Waits before the next try, by tries made so far; the last is repeated until `GIVE_UP_AFTER`.
const BACKOFF_SECS: [i64; 7] = [10, 30, 60, 300, 900, 1800, 3600];
/// After this long since the first try, a message is marked failed.
const GIVE_UP_AFTER: chrono::Duration = chrono::Duration::hours(48);

/// A message in a plain layout: greeting, paragraphs, button-like links, and closing lines.
pub struct Letter<'a> {
    pub greeting: &'a str,
    pub paragraphs: &'a [String],
    /// Links shown as buttons (label, URL), in order.
    pub actions: &'a [(&'a str, &'a str)],
    pub after: &'a [String],
}

impl Letter<'_> {
    /// The plain text and the HTML of the letter. A paragraph's own line breaks stay line
    /// breaks in the HTML (a list of places, say). Links are the service's own (`service`, its
    /// public URL) and the actions': anything else in the text that a mail program would show
    /// as a link (typed into a name, a place or a note) is written so that it is not one
    /// (`evil[.]example`), and a line of the plain text that would read as a mail header
    /// (`Bcc: …`) is quoted.
    pub fn render(&self, service: &str) -> (String, String) {
        let mut text = String::new();
        let mut html = String::from(
            "<!doctype html><html lang=\"en\"><body style=\"font-family: sans-serif; line-height: 1.5\">\n",
        );
        let paragraph = |text: &mut String, html: &mut String, p: &str| {
            let p = defang(p, service);
            for line in p.split('\n') {
                if reads_as_header(line) {
                    text.push_str("> ");
                }
                text.push_str(line);
                text.push('\n');
            }
            text.push('\n');
            html.push_str(&format!(
                "<p>{}</p>\n",
                html_escape(&p).replace('\n', "<br>\n")
            ));
        };
        paragraph(&mut text, &mut html, self.greeting);
        for p in self.paragraphs {
            paragraph(&mut text, &mut html, p);
        }
        for (label, url) in self.actions {
            text.push_str(&format!("{label}:\n{url}\n\n"));
            html.push_str(&format!(
                "<p><a href=\"{0}\" style=\"display: inline-block; padding: .6em 1.2em; background: #1f5f8b; color: #fff; text-decoration: none; border-radius: .3em\">{1}</a></p>\n<p>Or open this address: {0}</p>\n",
                html_escape(url),
                html_escape(label)
            ));
        }
        for p in self.after {
            paragraph(&mut text, &mut html, p);
        }
        html.push_str("</body></html>\n");
        (text.trim_end().to_string() + "\n", html)
    }
}

/// Header names a line of a message's text must not start with.
const HEADERS: [&str; 16] = [
    "to",
    "cc",
    "bcc",
    "from",
    "sender",
    "reply-to",
    "subject",
    "date",
    "message-id",
    "return-path",
    "content-type",
    "content-transfer-encoding",
    "mime-version",
    "list-unsubscribe",
    "list-unsubscribe-post",
    "received",
];

/// Whether a line starts like a mail header (`Bcc: …`, `X-Anything: …`).
fn reads_as_header(line: &str) -> bool {
    let Some((name, _)) = line.split_once(':') else {
        return false;
    };
    let name = name.to_ascii_lowercase();
    HEADERS.contains(&name.as_str())
        || (name.starts_with("x-") && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
}

/// `text` with every link in it that is not exactly the service's own written so that no mail
/// program makes it a link: `https://evil.example/x` → `https[:]//evil[.]example/x`,
/// `www.evil.example` → `www[.]evil[.]example`, `EVIL.EXAMPLE/reset` → `EVIL[.]EXAMPLE/reset`.
/// Links are found by a maintained link finder (`linkify`), with or without a scheme; a link is
/// the service's own only when it starts with the service's origin exactly (same case, no
/// user-info, same port) followed by its end or a path: `http://own:8080@evil.example` and
/// `http://own:8080.evil.example` are not. Email addresses stay as they are; words with dots that
/// no mail program takes for an address ("St.Mary", "7.30pm") stay too.
fn defang(text: &str, service: &str) -> String {
    let mut finder = linkify::LinkFinder::new();
    finder.url_must_have_scheme(false);
    finder.kinds(&[linkify::LinkKind::Url]);
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for link in finder.links(text) {
        let found = link.as_str();
        out.push_str(&text[last..link.start()]);
        last = link.end();
        if is_own(found, service) || !reads_as_link(found) {
            out.push_str(found);
        } else {
            out.push_str(&found.replacen("://", "[:]//", 1).replace('.', "[.]"));
        }
    }
    out.push_str(&text[last..]);
    out
}

/// Whether `link` is the service's own: its origin exactly, then nothing or a path, a query or
/// a fragment.
fn is_own(link: &str, service: &str) -> bool {
    !service.is_empty()
        && link
            .strip_prefix(service)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['/', '?', '#']))
}

/// Whether a mail program would take what the link finder found for a link: anything with a
/// scheme or `www.`, or a host whose last label is letters all in one case (`evil.example`,
/// `EVIL.EXAMPLE`; not `St.Mary`).
fn reads_as_link(found: &str) -> bool {
    let lower = found.to_ascii_lowercase();
    if lower.contains("://") || lower.starts_with("www.") {
        return true;
    }
    let host = found.split(['/', '?', '#']).next().unwrap_or("");
    let host = host.rsplit('@').next().unwrap_or(host);
    let host = host.split(':').next().unwrap_or(host);
    let top = host.rsplit('.').next().unwrap_or("");
    (2..=24).contains(&top.len())
        && top.chars().all(|c| c.is_ascii_alphabetic())
        && (top.chars().all(|c| c.is_ascii_lowercase())
            || top.chars().all(|c| c.is_ascii_uppercase()))
}

/// Puts `m` in the outbox (in `conn`'s transaction) and wakes the worker once it is committed.
pub async fn enqueue(conn: &mut sqlx::PgConnection, m: &NewMail) -> Result<i64> {
    Ok(stored::enqueue(conn, m).await?)
}

/// A letter to one person, rendered and put in the outbox (in `conn`'s transaction).
pub async fn write_to(
    state: &AppState,
    conn: &mut sqlx::PgConnection,
    kind: &'static str,
    to: (&str, &str),
    subject: &str,
    letter: Letter<'_>,
) -> Result<i64> {
    let envelope = Envelope {
        kind,
        to,
        club_id: None,
        caused_by: None,
        unsubscribe: None,
    };
    write(state, conn, envelope, subject, letter).await
}

/// Who a letter goes to and on whose account: the club whose day it counts in, the account
/// whose action made it (counted against that account), and its one-click stop link.
pub struct Envelope<'a> {
    pub kind: &'static str,
    /// (address, name)
    pub to: (&'a str, &'a str),
    pub club_id: Option<i64>,
    pub caused_by: Option<i64>,
    pub unsubscribe: Option<String>,
}

/// A letter rendered and put in the outbox as its envelope says (in `conn`'s transaction).
pub async fn write(
    state: &AppState,
    conn: &mut sqlx::PgConnection,
    envelope: Envelope<'_>,
    subject: &str,
    letter: Letter<'_>,
) -> Result<i64> {
    let (text_body, html_body) = letter.render(&state.public_url);
    enqueue(
        conn,
        &NewMail {
            kind: envelope.kind,
            club_id: envelope.club_id,
            to_address: envelope.to.0.to_string(),
            to_name: (!envelope.to.1.is_empty()).then(|| envelope.to.1.to_string()),
            subject: subject.to_string(),
            text_body,
            html_body,
            unsubscribe: envelope.unsubscribe,
            caused_by: envelope.caused_by,
        },
    )
    .await
}

/// Wakes this process's mail worker (after a transaction that put mail in the outbox).
pub fn wake(state: &AppState) {
    state.mail_due.notify_one();
}

/// When to try a message again after `tries` failed tries, first tried at `first`: `None` once
/// it has been tried for `GIVE_UP_AFTER`.
fn next_try(
    tries: i32,
    first: chrono::DateTime<chrono::Utc>,
    now: chrono::DateTime<chrono::Utc>,
) -> Option<chrono::DateTime<chrono::Utc>> {
    if now - first >= GIVE_UP_AFTER {
        return None;
    }
    let i = (tries.max(1) as usize - 1).min(BACKOFF_SECS.len() - 1);
    Some(now + chrono::Duration::seconds(BACKOFF_SECS[i]))
}

/// One pass over the due messages: how many were leased.
async fn pass(state: &AppState, mailer: &crate::mail::Mailer) -> Result<usize> {
    let due = stored::lease_due(&state.db, BATCH, LEASE_SECS).await?;
    let limit = i64::from(state.mail_per_club_day);
    for m in &due {
        if let Some(club) = m.club_id
            && stored::sent_today(&state.db, club).await? >= limit
        {
            let why = format!(
                "the club has sent {limit} messages in the last 24 hours, its limit: this one waits"
            );
            stored::hold(&state.db, m.id, m.lease_token, &why).await?;
            continue;
        }
        match mailer.send(m).await {
            Ok(()) => stored::mark_sent(&state.db, m.id, m.lease_token).await?,
            Err(error) => {
                let retry = next_try(m.attempts + 1, m.created_at, chrono::Utc::now());
                tracing::warn!(to = %m.to_address, kind = %m.kind, error = %error,
                    retry_at = ?retry, "mail not sent");
                stored::mark_failed(&state.db, m.id, m.lease_token, &error, retry).await?;
            }
        }
    }
    Ok(due.len())
}

/// Letters the worker writes itself before it sends: password resets asked for, a closed night's
/// mail, a scheduled night's reminder. Each area above the outbox that has such letters gives a
/// writer (`startup` hands them over), so the outbox names none of them.
pub struct Writer {
    /// What waits when the writer fails, for the log: "a night's reminder waits".
    pub what: &'static str,
    /// Writes the next letters; `true` when there may be more right away.
    pub write: WriteFn,
}

/// A writer's step: owns its state so that the worker can hold any number of them.
pub type WriteFn =
    Box<dyn Fn(Arc<AppState>) -> Pin<Box<dyn Future<Output = Result<bool>> + Send>> + Send + Sync>;

/// Messages leased at once by one worker (and requests turned into letters at once).
pub const BATCH: i64 = 20;

/// Sends what the outbox holds, as it comes and at least every pass (2 s; a message written by
/// another process, or due again after a failure), after the `writers` have written what is due.
pub async fn run_worker(state: Arc<AppState>, writers: Vec<Writer>) {
    let Some(mailer) = state.mailer.clone() else {
        return;
    };
    loop {
        let _ = tokio::time::timeout(state.worker_pass, state.mail_due.notified()).await;
        for writer in &writers {
            // At most five steps each per wake, so that what is written is soon sent.
            for _ in 0..5 {
                match (writer.write)(state.clone()).await {
                    Ok(true) => continue,
                    Ok(false) => break,
                    Err(e) => {
                        tracing::warn!(error = %e, "{}", writer.what);
                        break;
                    }
                }
            }
        }
        loop {
            let work = match stored::any_due(&state.db).await {
                Ok(false) => break,
                Ok(true) => pass(&state, &mailer).await,
                Err(e) => Err(Error::from(e)),
            };
            match work {
                Ok(n) if n as i64 == BATCH => continue,
                Ok(_) => break,
                Err(e) => {
                    tracing::warn!(error = %e, "mail paused by a database error");
                    tokio::time::sleep(Duration::from_secs(2)).await;
                    break;
                }
            }
        }
    }
}

/// A message of a club's, as its organizers see it.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct ClubMail {
    pub id: i64,
    /// What it is: `night_results` (a player's night after it closed), …
    pub kind: String,
    pub to: String,
    pub subject: String,
    /// `pending` (waiting, or being tried again), `sent` or `failed` (given up).
    #[schema(schema_with = crate::domain::schemas::mail_status)]
    pub status: String,
    pub attempts: i32,
    /// Why the last try failed.
    #[schema(required = true)]
    pub last_error: Option<String>,
    /// The next try, while pending.
    #[schema(required = true)]
    pub next_try: Option<chrono::DateTime<chrono::Utc>>,
    #[schema(required = true)]
    pub sent_at: Option<chrono::DateTime<chrono::Utc>>,
    pub written_at: chrono::DateTime<chrono::Utc>,
}

impl ClubMail {
    /// Its state in words, on the club's clock: "sent Wed Nov 25, 2026, 4:04 PM EST", "not
    /// sent yet: tried 3 times (refused); next try …", "failed after 40 tries, not sent (…)".
    pub fn in_words(&self, clock: &crate::domain::clock::Clock) -> String {
        let why = self
            .last_error
            .as_deref()
            .map(|e| format!(" ({e})"))
            .unwrap_or_default();
        match self.status.as_str() {
            "sent" => match self.sent_at {
                Some(at) => format!("sent {}", clock.at(at)),
                None => "sent".into(),
            },
            "failed" => format!("failed after {} tries, not sent{why}", self.attempts),
            _ if self.attempts == 0 && self.last_error.is_none() => "waiting to be sent".into(),
            _ if self.attempts == 0 => format!(
                "waiting{why}; next try {}",
                self.next_try.map(|t| clock.at(t)).unwrap_or_default()
            ),
            _ => format!(
                "not sent yet: tried {} {}{why}; next try {}",
                self.attempts,
                if self.attempts == 1 { "time" } else { "times" },
                self.next_try.map(|t| clock.at(t)).unwrap_or_default()
            ),
        }
    }
}

/// The club's latest 50 messages, newest first (organizers).
pub async fn club_log(
    state: &AppState,
    caller: &crate::domain::Caller,
    slug: &str,
) -> Result<Vec<ClubMail>> {
    let club = crate::domain::access::organized(state, caller, slug).await?;
    Ok(stored::club_log(&state.db, club.club().id, 50)
        .await?
        .into_iter()
        .map(|m| ClubMail {
            next_try: (m.status == "pending").then_some(m.retry_at),
            id: m.id,
            kind: m.kind,
            to: m.to_address,
            subject: m.subject,
            status: m.status,
            attempts: m.attempts,
            last_error: m.last_error,
            sent_at: m.sent_at,
            written_at: m.created_at,
        })
        .collect())
}

/// Mail not sent: (pending, failed), for the metrics.
pub async fn outbox_counts(state: &AppState) -> Result<(i64, i64)> {
    Ok(stored::unsent_counts(&state.db).await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tries_back_off_then_stop_after_two_days() {
        let first = chrono::Utc::now();
        let at = |tries, after_secs: i64| {
            let now = first + chrono::Duration::seconds(after_secs);
            next_try(tries, first, now).map(|t| (t - now).num_seconds())
        };
        assert_eq!(at(1, 0), Some(10));
        assert_eq!(at(2, 10), Some(30));
        assert_eq!(at(7, 4000), Some(3600));
        assert_eq!(at(40, 47 * 3600), Some(3600));
        assert_eq!(at(41, 48 * 3600), None);
    }

    #[test]
    fn a_club_message_says_what_became_of_it() {
        let at = chrono::DateTime::parse_from_rfc3339("2026-11-25T21:04:00Z")
            .unwrap()
            .with_timezone(&chrono::Utc);
        let mail = |status: &str, attempts, error: Option<&str>| ClubMail {
            id: 1,
            kind: "night_results".into(),
            to: "ann@example.org".into(),
            subject: "L: night 1 results".into(),
            status: status.into(),
            attempts,
            last_error: error.map(String::from),
            next_try: (status == "pending").then_some(at),
            sent_at: (status == "sent").then_some(at),
            written_at: at,
        };
        // The year is said only when it is not this year: compared without it.
        let utc = crate::domain::clock::Clock::of("UTC");
        assert_eq!(
            mail("sent", 1, None)
                .in_words(&crate::domain::clock::Clock::of("America/New_York"))
                .replace(", 2026", ""),
            "sent Wed Nov 25, 4:04 PM EST"
        );
        assert_eq!(
            mail("pending", 0, None)
                .in_words(&utc)
                .replace(", 2026", ""),
            "waiting to be sent"
        );
        assert_eq!(
            mail("pending", 0, Some("the club has sent 2000 messages in the last 24 hours, its limit: this one waits")).in_words(&utc).replace(", 2026", ""),
            "waiting (the club has sent 2000 messages in the last 24 hours, its limit: this one waits); next try Wed Nov 25, 9:04 PM UTC"
        );
        assert_eq!(
            mail("pending", 3, Some("connection refused"))
                .in_words(&utc)
                .replace(", 2026", ""),
            "not sent yet: tried 3 times (connection refused); next try Wed Nov 25, 9:04 PM UTC"
        );
        assert_eq!(
            mail("failed", 40, Some("mailbox unavailable"))
                .in_words(&utc)
                .replace(", 2026", ""),
            "failed after 40 tries, not sent (mailbox unavailable)"
        );
    }

    #[test]
    fn typed_text_never_reads_as_a_header_or_a_link() {
        let service = "https://league.example";
        let (text, html) = Letter {
            greeting: "Hello Ann Bcc: all@example.org,",
            paragraphs: &[
                "Bcc: all@example.org invites you to Maple https://evil.example/login, see www.evil.example or evil.example/x.".into(),
                format!("Your table: {service}/tables/3/score (St.Mary, 7.30pm, e.g. here)"),
                "Subject: free money\nX-Mailer: nope\nNote: bring tiles".into(),
            ],
            actions: &[("Open", "https://league.example/a")],
            after: &[format!("To stop, open: {service}/unsubscribe/1-2-x")],
        }
        .render(service);
        for line in text.lines() {
            assert!(!reads_as_header(line), "{line:?} in\n{text}");
        }
        assert!(
            text.contains("> Bcc: all@example.org invites you"),
            "{text}"
        );
        assert!(text.contains("https[:]//evil[.]example/login,"), "{text}");
        assert!(
            text.contains("www[.]evil[.]example") && text.contains("evil[.]example/x."),
            "{text}"
        );
        assert!(
            text.contains(&format!("{service}/tables/3/score")),
            "the service's own link stays"
        );
        assert!(text.contains(&format!("{service}/unsubscribe/1-2-x")));
        assert!(
            text.contains("St.Mary, 7.30pm, e.g. here"),
            "words with dots stay: {text}"
        );
        assert!(
            text.contains("Note: bring tiles"),
            "only header names are quoted"
        );
        assert!(!html.contains("https://evil.example"), "{html}");
    }

    #[test]
    fn only_the_services_exact_origin_stays_a_link() {
        let service = "http://127.0.0.1:8080";
        for (typed, want) in [
            ("https://evil.example/x@y", "https[:]//evil[.]example/x@y"),
            (
                "http://127.0.0.1:8080@evil.example/reset",
                "http[:]//127[.]0[.]0[.]1:8080@evil[.]example/reset",
            ),
            (
                "http://127.0.0.1:8080.evil.example/reset",
                "http[:]//127[.]0[.]0[.]1:8080[.]evil[.]example/reset",
            ),
            ("EVIL.EXAMPLE/reset", "EVIL[.]EXAMPLE/reset"),
            ("HTTP://EVIL.EXAMPLE", "HTTP[:]//EVIL[.]EXAMPLE"),
            (
                "http://127.0.0.1:8081/reset",
                "http[:]//127[.]0[.]0[.]1:8081/reset",
            ),
            (
                "HTTP://127.0.0.1:8080/reset",
                "HTTP[:]//127[.]0[.]0[.]1:8080/reset",
            ),
            ("http://127.0.0.1:8080/reset", "http://127.0.0.1:8080/reset"),
            ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
            ("mia@example.org", "mia@example.org"),
        ] {
            let said = format!("Mia {typed} here");
            assert_eq!(
                defang(&said, service),
                format!("Mia {want} here"),
                "{typed}"
            );
        }
    }

    #[test]
    fn a_letter_escapes_what_it_is_given() {
        let (text, html) = Letter {
            greeting: "Hello <Ann>,",
            paragraphs: &["Tea & tiles".into()],
            actions: &[("Open", "https://example.org/?a=1&b=2")],
            after: &[],
        }
        .render("https://league.example");
        assert!(text.contains("Hello <Ann>,") && text.contains("https://example.org/?a=1&b=2"));
        assert!(html.contains("Hello &lt;Ann&gt;,") && html.contains("Tea &amp; tiles"));
        assert!(html.contains("href=\"https://example.org/?a=1&amp;b=2\""));
        let (_, html) = Letter {
            greeting: "Hi,",
            paragraphs: &["The top:\n1. Ann\n2. Bea".into()],
            actions: &[],
            after: &[],
        }
        .render("https://league.example");
        assert!(
            html.contains("<p>The top:<br>\n1. Ann<br>\n2. Bea</p>"),
            "{html}"
        );
    }
}
