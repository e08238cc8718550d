//! The club's clock. A club keeps its time zone as an IANA name (`America/New_York`), picked
//! from a list where the United States' zones come first; anything else is refused with 422
//! naming `time_zone` and, where the meaning is plain, the name meant (`Eastern` →
//! `America/New_York`). Every time a club's pages, mail and calendar show is on this clock and
//! names it ("7:30 PM EST").

use std::borrow::Borrow;

use chrono::{DateTime, Datelike, NaiveDate, NaiveTime, TimeZone, Utc};
use chrono_tz::Tz;

use crate::domain::{Error, FieldError, Result};

/// The United States' zones, first in the picker: (IANA name, words).
pub const US_ZONES: &[(&str, &str)] = &[
    ("America/New_York", "Eastern (New York)"),
    ("America/Chicago", "Central (Chicago)"),
    ("America/Denver", "Mountain (Denver)"),
    (
        "America/Phoenix",
        "Mountain without daylight saving (Phoenix)",
    ),
    ("America/Los_Angeles", "Pacific (Los Angeles)"),
    ("America/Anchorage", "Alaska (Anchorage)"),
    ("Pacific/Honolulu", "Hawaii (Honolulu)"),
    ("America/Puerto_Rico", "Atlantic (Puerto Rico)"),
];

/// What people write for a zone that is not its name, and the zone they mean. The migration
/// that maps the clubs stored before names were checked (`0036_one_roster.sql`) uses the same
/// words.
const SPOKEN: &[(&[&str], &str)] = &[
    (
        &["eastern", "et", "est", "edt", "est5edt"],
        "America/New_York",
    ),
    (
        &["central", "ct", "cst", "cdt", "cst6cdt"],
        "America/Chicago",
    ),
    (
        &["mountain", "mt", "mst", "mdt", "mst7mdt"],
        "America/Denver",
    ),
    (&["arizona"], "America/Phoenix"),
    (
        &["pacific", "pt", "pst", "pdt", "pst8pdt"],
        "America/Los_Angeles",
    ),
    (&["alaska", "akst", "akdt"], "America/Anchorage"),
    (&["hawaii", "hst"], "Pacific/Honolulu"),
    (&["gmt", "z", "zulu", "utc", "universal"], "UTC"),
];

/// The areas whose zones the picker lists (the rest of the database is old aliases).
const AREAS: &[&str] = &[
    "Africa/",
    "America/",
    "Antarctica/",
    "Asia/",
    "Atlantic/",
    "Australia/",
    "Europe/",
    "Indian/",
    "Pacific/",
];

/// Every zone the picker offers: the United States' first (with words), then the world's by
/// name, then UTC: (IANA name, words).
pub fn picker() -> &'static [(String, String)] {
    static ZONES: std::sync::LazyLock<Vec<(String, String)>> = std::sync::LazyLock::new(zones);
    &ZONES
}

fn zones() -> Vec<(String, String)> {
    let mut all: Vec<(String, String)> = US_ZONES
        .iter()
        .map(|(name, words)| (name.to_string(), format!("{words} · {name}")))
        .collect();
    let mut world: Vec<&str> = chrono_tz::TZ_VARIANTS
        .iter()
        .map(|tz| tz.name())
        .filter(|n| is_name(n))
        .filter(|n| !US_ZONES.iter().any(|(us, _)| us == n))
        .collect();
    world.sort_unstable();
    all.extend(
        world
            .into_iter()
            .map(|n| (n.to_string(), n.replace('_', " "))),
    );
    all.push(("UTC".into(), "UTC (no clock changes)".into()));
    all
}

/// `typed` as a stored zone name, or the 422 naming `time_zone`, with what was probably meant.
pub fn zone_name(typed: &str) -> Result<String> {
    let t = typed.trim();
    if t.is_empty() {
        return Err(Error::invalid(
            "time_zone",
            "pick the club's time zone, such as America/New_York",
        ));
    }
    if t.chars().count() <= 64 && is_name(t) {
        return Ok(t.to_string());
    }
    let shown: String = t.chars().take(64).collect();
    let (message, suggestion) = match meant(t) {
        Some(zone) => (
            format!(
                "“{shown}” is not a time zone's name: did you mean {zone}? Pick the club's zone from the list"
            ),
            Some(zone),
        ),
        None => (
            format!(
                "“{shown}” is not a time zone's name: type a city, or pick one from the list, such as America/New_York or Europe/London"
            ),
            None,
        ),
    };
    let mut e = FieldError::new("time_zone", message.clone());
    e.suggestion = suggestion;
    Err(Error::Invalid {
        detail: format!("time_zone: {message}"),
        errors: vec![e],
    })
}

/// A zone as people say it: "Eastern Time (New York)" for the United States' zones, else its
/// place and area ("London, Europe").
pub fn said(zone: &str) -> String {
    let us = match zone {
        "America/New_York" => Some("Eastern Time"),
        "America/Chicago" => Some("Central Time"),
        "America/Denver" => Some("Mountain Time"),
        "America/Phoenix" => Some("Mountain Time, no daylight saving"),
        "America/Los_Angeles" => Some("Pacific Time"),
        "America/Anchorage" => Some("Alaska Time"),
        "Pacific/Honolulu" => Some("Hawaii Time"),
        _ => None,
    };
    let place = zone.rsplit('/').next().unwrap_or(zone).replace('_', " ");
    match (us, zone.split_once('/')) {
        (Some(name), _) => format!("{name} ({place})"),
        (None, Some((area, _))) => format!("{place}, {}", area.replace('_', " ")),
        (None, None) if zone == "UTC" => "UTC (no clock changes)".into(),
        (None, None) => zone.to_string(),
    }
}

/// Whether `name` is a zone's IANA name as stored: `Area/Place` in one of the picker's areas
/// (or `UTC`), spelled exactly. Abbreviations (`EST`), old aliases (`US/Eastern`) and the
/// `Etc/GMT+5` zones, whose sign reads backwards, are not: each has a name of its place.
pub fn is_name(name: &str) -> bool {
    name == "UTC" || (AREAS.iter().any(|a| name.starts_with(a)) && name.parse::<Tz>().is_ok())
}

/// The zone `typed` probably means: the same name in another case, a word people use for a
/// zone (`Eastern`, `PST`), or a place whose zone has its name (`new york`).
pub fn meant(typed: &str) -> Option<String> {
    let t = typed.trim();
    if let Some(tz) = chrono_tz::TZ_VARIANTS
        .iter()
        .find(|tz| tz.name().eq_ignore_ascii_case(t) && is_name(tz.name()))
    {
        return Some(tz.name().to_string());
    }
    let word = t
        .to_lowercase()
        .replace(['.', ','], "")
        .replace(" standard time", "")
        .replace(" daylight time", "")
        .replace(" time", "")
        .replace("us/", "")
        .trim()
        .to_string();
    if let Some((_, zone)) = SPOKEN
        .iter()
        .find(|(words, _)| words.contains(&word.as_str()))
    {
        return Some(zone.to_string());
    }
    let place = word.replace(' ', "_");
    chrono_tz::TZ_VARIANTS
        .iter()
        .map(|tz| tz.name())
        .filter(|n| AREAS.iter().any(|a| n.starts_with(a)))
        .find(|n| {
            n.rsplit('/')
                .next()
                .is_some_and(|last| last.eq_ignore_ascii_case(&place))
        })
        .map(str::to_string)
}

/// A day of a calendar as people write it, "Tue Dec 1" ("Tue Dec 1, 2025" when not this year
/// in UTC: a page that has no club's clock at hand, such as an import's preview).
pub fn day(date: impl Borrow<NaiveDate>) -> String {
    written_day(*date.borrow(), Utc::now().year())
}

fn written_day(date: NaiveDate, this_year: i32) -> String {
    if date.year() == this_year {
        date.format("%a %b %-d").to_string()
    } else {
        date.format("%a %b %-d, %Y").to_string()
    }
}

/// A club's clock: its zone (UTC for a name that is none, which the club's owner is asked to
/// fix).
#[derive(Debug, Clone, Copy)]
pub struct Clock(pub Tz);

impl Clock {
    pub fn of(zone: &str) -> Clock {
        Clock(if is_name(zone) {
            zone.parse().unwrap_or(chrono_tz::UTC)
        } else {
            chrono_tz::UTC
        })
    }

    /// A moment as the service writes every time people read, on pages and in mail: the day,
    /// the 12-hour time and the zone's abbreviation, "Tue Dec 1, 7:00 PM EST"; the year is said
    /// when it is not this year on the club's clock ("Tue Dec 1, 2025, 7:00 PM EST").
    pub fn at(&self, at: impl Borrow<DateTime<Utc>>) -> String {
        self.written(at.borrow().with_timezone(&self.0), Utc::now())
    }

    /// A time on the club's wall clock, `date` at `time`, written as `at` writes a moment (the
    /// earlier of two in a repeated hour; an hour the clocks skip is written as the time after).
    pub fn local(&self, date: NaiveDate, time: NaiveTime) -> String {
        let wall = date.and_time(time);
        match self.0.from_local_datetime(&wall).earliest() {
            Some(t) => self.written(t, Utc::now()),
            None => self.local(date, time + chrono::Duration::hours(1)),
        }
    }

    /// A day of the club's calendar as people write it: "Tue Dec 1", with the year when it is
    /// not this year ("Tue Dec 1, 2025").
    pub fn day(&self, date: NaiveDate) -> String {
        written_day(date, Utc::now().with_timezone(&self.0).year())
    }

    fn written(&self, t: DateTime<Tz>, now: DateTime<Utc>) -> String {
        let year = if t.year() == now.with_timezone(&self.0).year() {
            String::new()
        } else {
            format!(", {}", t.year())
        };
        format!(
            "{}{year}, {}",
            t.format("%a %b %-d"),
            t.format("%-I:%M %p %Z")
        )
    }

    /// A moment's date: "March 3, 2026".
    pub fn date(&self, at: impl Borrow<DateTime<Utc>>) -> String {
        at.borrow()
            .with_timezone(&self.0)
            .format("%B %-d, %Y")
            .to_string()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_zone_is_said_as_people_say_it() {
        assert_eq!(said("America/New_York"), "Eastern Time (New York)");
        assert_eq!(said("America/Los_Angeles"), "Pacific Time (Los Angeles)");
        assert_eq!(said("Europe/London"), "London, Europe");
        assert_eq!(
            said("America/Argentina/Buenos_Aires"),
            "Buenos Aires, America"
        );
        assert_eq!(said("UTC"), "UTC (no clock changes)");
    }

    use super::*;

    #[test]
    fn names_are_kept_and_words_suggest_the_zone_meant() {
        assert_eq!(zone_name("America/New_York").unwrap(), "America/New_York");
        assert_eq!(zone_name(" Europe/London ").unwrap(), "Europe/London");
        assert_eq!(zone_name("UTC").unwrap(), "UTC");
        for (typed, want) in [
            ("Eastern", Some("America/New_York")),
            ("eastern time", Some("America/New_York")),
            ("EST", Some("America/New_York")),
            ("US/Pacific", Some("America/Los_Angeles")),
            ("america/chicago", Some("America/Chicago")),
            ("new york", Some("America/New_York")),
            ("Etc/GMT+5", None),
            ("Narnia", None),
        ] {
            let Err(Error::Invalid { errors, .. }) = zone_name(typed) else {
                panic!("{typed} is refused");
            };
            assert_eq!(errors[0].field, "time_zone");
            assert_eq!(errors[0].suggestion.as_deref(), want, "{typed}");
        }
        assert!(zone_name(&"A/".repeat(100)).is_err());
    }

    #[test]
    fn the_picker_starts_with_the_united_states_and_holds_only_names() {
        let zones = picker();
        assert_eq!(zones[0].0, "America/New_York");
        assert!(zones.len() > 300, "{}", zones.len());
        assert!(zones.iter().all(|(n, _)| is_name(n)));
        assert!(zones.iter().any(|(n, _)| n == "Australia/Sydney"));
    }

    #[test]
    fn the_clock_names_its_zone() {
        let at: DateTime<Utc> = "2026-03-04T00:30:00Z".parse().unwrap();
        let ny = Clock::of("America/New_York");
        let in_2026: DateTime<Utc> = "2026-06-01T00:00:00Z".parse().unwrap();
        let in_2027: DateTime<Utc> = "2027-06-01T00:00:00Z".parse().unwrap();
        assert_eq!(
            ny.written(at.with_timezone(&ny.0), in_2026),
            "Tue Mar 3, 7:30 PM EST"
        );
        assert_eq!(
            ny.written(at.with_timezone(&ny.0), in_2027),
            "Tue Mar 3, 2026, 7:30 PM EST"
        );
        let utc = Clock::of("Eastern");
        assert_eq!(
            utc.written(at.with_timezone(&utc.0), in_2026),
            "Wed Mar 4, 12:30 AM UTC"
        );
        // A wall time in summer says EDT; one the clocks skip is the hour after.
        let d = NaiveDate::from_ymd_opt(2026, 3, 8).unwrap();
        let t = |h| NaiveTime::from_hms_opt(h, 30, 0).unwrap();
        assert!(
            ny.local(d, t(2)).ends_with("3:30 AM EDT"),
            "{}",
            ny.local(d, t(2))
        );
        assert!(ny.local(d, t(19)).ends_with("7:30 PM EDT"));
        assert!(ny.day(d).starts_with("Sun Mar 8"));
    }
}
