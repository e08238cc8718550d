//! A league's nights ahead as an iCalendar feed for phone calendars, behind a signed key: each
//! night with its time on the club's clock, place and tables.

use super::*;

/// How long a night lasts in calendars (the service does not know when a night ends).
pub(super) const CALENDAR_HOURS: i64 = 3;

/// A league's calendar holds nights from this many days back.
pub(super) const CALENDAR_DAYS_BACK: i64 = 60;

/// A league's calendar feed, for whoever may read the league, or with a member's calendar key
/// for a members-only league.
pub async fn calendar(
    state: &AppState,
    caller: &Caller,
    league_id: i64,
    key: Option<&str>,
) -> Result<String> {
    let (league, club) = match key {
        Some(k) => {
            let (league, club) = crate::storage::seasons::leagues::with_club(&state.db, league_id)
                .await?
                .ok_or_else(|| Error::NotFound(format!("no league {league_id}")))?;
            let user = read_calendar_key(state, league_id, k)
                .ok_or_else(|| Error::NotFound(format!("no league {league_id}")))?;
            if league.visibility != "public"
                && !stored::is_member(&state.db, league_id, user).await?
            {
                return Err(Error::NotFound(format!("no league {league_id}")));
            }
            (league, club)
        }
        None => caller.league(state, league_id, Need::Read).await?,
    };
    let since = Utc::now() - chrono::Duration::days(CALENDAR_DAYS_BACK);
    let host = url::Url::parse(&state.public_url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_else(|| "mahjong-league".into());
    let mut all = stored::of_league(&state.db, league.id, since, LISTED).await?;
    all.retain(|s| s.cancelled_at.is_none());
    Ok(ics(
        &league,
        &club,
        &all,
        &host,
        &state.public_url,
        Utc::now(),
    ))
}

/// A member's private key to a league's calendar (for a members-only league).
pub fn calendar_key(state: &AppState, league: i64, user: i64) -> String {
    format!(
        "{user}-{}",
        state.keys.sign(&format!("calendar {league} {user}"))
    )
}

pub(super) fn read_calendar_key(state: &AppState, league: i64, key: &str) -> Option<i64> {
    let (user, sig) = key.split_once('-')?;
    let user: i64 = user.parse().ok()?;
    state
        .keys
        .signed(&format!("calendar {league} {user}"), sig)
        .then_some(user)
}

/// Escapes a TEXT value (RFC 5545 §3.3.11).
pub(super) fn ics_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            ';' => out.push_str("\\;"),
            ',' => out.push_str("\\,"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// A content line folded at 75 octets (RFC 5545 §3.1), never inside a character, ending CRLF.
pub(super) fn ics_line(out: &mut String, line: &str) {
    let mut width = 0;
    for c in line.chars() {
        let n = c.len_utf8();
        if width + n > 75 {
            out.push_str("\r\n ");
            width = 1;
        }
        out.push(c);
        width += n;
    }
    out.push_str("\r\n");
}

pub(super) fn ics_time(t: DateTime<Utc>) -> String {
    t.format("%Y%m%dT%H%M%SZ").to_string()
}

/// The calendar of a league's scheduled nights (times in UTC, so no time zone table is needed).
pub(super) fn ics(
    league: &League,
    club: &Club,
    nights: &[Scheduled],
    host: &str,
    base: &str,
    now: DateTime<Utc>,
) -> String {
    let mut out = String::new();
    for l in [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//mahjong-league//Nights ahead//EN",
        "CALSCALE:GREGORIAN",
        "METHOD:PUBLISH",
    ] {
        ics_line(&mut out, l);
    }
    ics_line(
        &mut out,
        &format!(
            "X-WR-CALNAME:{}",
            ics_text(&format!("{} · {}", league.name, club.name))
        ),
    );
    for s in nights {
        let url = format!("{base}/ahead/{}", s.id);
        ics_line(&mut out, "BEGIN:VEVENT");
        ics_line(
            &mut out,
            &format!("UID:scheduled-night-{}@{}", s.id, ics_text(host)),
        );
        ics_line(&mut out, &format!("DTSTAMP:{}", ics_time(now)));
        ics_line(&mut out, &format!("DTSTART:{}", ics_time(s.starts_at)));
        ics_line(
            &mut out,
            &format!(
                "DTEND:{}",
                ics_time(s.starts_at + chrono::Duration::hours(CALENDAR_HOURS))
            ),
        );
        ics_line(&mut out, &format!("SUMMARY:{}", ics_text(&league.name)));
        ics_line(&mut out, &format!("LOCATION:{}", ics_text(&s.place)));
        ics_line(
            &mut out,
            &format!(
                "DESCRIPTION:{}",
                ics_text(&format!(
                    "{} ({} seats). Reply and see who is coming: {url}",
                    tables_words(s.tables),
                    seats(s)
                ))
            ),
        );
        ics_line(&mut out, &format!("URL:{url}"));
        ics_line(&mut out, "STATUS:CONFIRMED");
        ics_line(&mut out, "END:VEVENT");
    }
    ics_line(&mut out, "END:VCALENDAR");
    out
}
