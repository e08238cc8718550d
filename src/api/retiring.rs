//! Fields being retired from `/api/v1`: each keeps working until its sunset, is marked
//! deprecated in the document, and every answer to a request that uses it (sends it, or gets it
//! back) says so in `Deprecation` (RFC 9745: since when) and `Sunset` (RFC 8594: the first day
//! it may be gone) headers, with a `Link` to the changelog that says what to use instead
//! (docs/api.md). A test checks that every field the document marks deprecated is listed here.

use actix_web::HttpResponse;
use actix_web::http::header::{HeaderName, HeaderValue};

/// A field on its way out.
pub struct Retiring {
    /// The document's schema that holds it, and the field.
    pub schema: &'static str,
    pub field: &'static str,
    /// Since when it is deprecated, in seconds since 1970 (the `Deprecation` header's `@…`).
    pub since: i64,
    /// The first day it may be gone, as an HTTP date.
    pub sunset: &'static str,
}

/// `SignUp.password`: the password is chosen on the mailed link's page (`POST
/// /api/v1/sign-ups/{token}`); deprecated on 2026-11-27.
pub const SIGN_UP_PASSWORD: Retiring = Retiring {
    schema: "SignUp",
    field: "password",
    since: 1_795_737_600,
    sunset: "Tue, 01 Jun 2027 00:00:00 GMT",
};

/// `Started.without_player`: always empty since everyone coming gets a player (`added`);
/// deprecated on 2026-11-27.
pub const STARTED_WITHOUT_PLAYER: Retiring = Retiring {
    schema: "Started",
    field: "without_player",
    since: 1_795_737_600,
    sunset: "Tue, 01 Jun 2027 00:00:00 GMT",
};

/// Every field being retired.
pub const ALL: &[Retiring] = &[SIGN_UP_PASSWORD, STARTED_WITHOUT_PLAYER];

/// Says on `res` that the request used `r`.
pub fn mark(res: &mut HttpResponse, r: &Retiring) {
    let h = res.headers_mut();
    let pairs = [
        ("deprecation", format!("@{}", r.since)),
        ("sunset", r.sunset.to_string()),
        (
            "link",
            format!(
                "</docs/api.md#changelog>; rel=\"deprecation\"; title=\"{}.{} is retiring\"",
                r.schema, r.field
            ),
        ),
    ];
    for (name, value) in pairs {
        if let Ok(v) = HeaderValue::from_str(&value) {
            h.append(HeaderName::from_static(name), v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_say_what_the_comments_say() {
        let day = |s: i64| chrono::DateTime::from_timestamp(s, 0).unwrap().date_naive();
        assert_eq!(day(SIGN_UP_PASSWORD.since).to_string(), "2026-11-27");
        assert_eq!(day(STARTED_WITHOUT_PLAYER.since).to_string(), "2026-11-27");
        for r in ALL {
            let sunset = chrono::DateTime::parse_from_rfc2822(r.sunset).unwrap();
            assert!(
                sunset.timestamp() > r.since + 180 * 86_400,
                "six months at least"
            );
        }
    }
}
