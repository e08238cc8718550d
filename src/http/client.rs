//! Where a request came from and where it was sent: the one place that decides which headers
//! are believed.
//!
//! Without `--trust-proxy` no forwarded header counts anywhere: the client is the TCP peer, the
//! host is the `Host` header and the scheme is the connection's. With `--trust-proxy` the
//! service sits behind a proxy that appends the client it saw to `X-Forwarded-For` and sets
//! `X-Forwarded-Proto` (and, for some, `X-Forwarded-Host`): the client is the **last** entry of
//! `X-Forwarded-For` (entries before it are whatever the client sent), and the host and scheme
//! are the last entries of the other two. A `Forwarded` header is never believed: the
//! documented proxies pass one a client sent through untouched.

use std::net::IpAddr;

use actix_web::HttpRequest;
use actix_web::http::header::{self, HeaderMap};

/// Whether the service runs behind a proxy whose forwarded headers are to be believed (app
/// data, from `--trust-proxy`).
#[derive(Debug, Clone, Copy)]
pub struct TrustProxy(pub bool);

fn trusted(req: &HttpRequest) -> bool {
    matches!(req.app_data::<TrustProxy>(), Some(TrustProxy(true)))
}

/// The last comma-separated entry of a header, over all its lines.
fn last_entry<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(name)
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .rfind(|s| !s.is_empty())
}

/// An address as proxies write it: `192.0.2.1`, `192.0.2.1:5000`, `2001:db8::1` or
/// `[2001:db8::1]:5000`.
fn parse_address(entry: &str) -> Option<IpAddr> {
    let entry = entry.trim().trim_matches('"');
    if let Ok(ip) = entry.parse() {
        return Some(ip);
    }
    if let Ok(sock) = entry.parse::<std::net::SocketAddr>() {
        return Some(sock.ip());
    }
    entry
        .strip_prefix('[')
        .and_then(|r| r.split(']').next())
        .and_then(|ip| ip.parse().ok())
}

/// The client a request came from: the proxy's last `X-Forwarded-For` entry with
/// `--trust-proxy` (the TCP peer when the proxy sent none), else the TCP peer.
pub fn address(req: &HttpRequest) -> Option<IpAddr> {
    if trusted(req)
        && let Some(ip) = last_entry(req.headers(), "x-forwarded-for").and_then(parse_address)
    {
        return Some(ip);
    }
    req.peer_addr().map(|a| a.ip())
}

/// The host a request was sent to.
pub fn host(req: &HttpRequest) -> String {
    if trusted(req)
        && let Some(h) = last_entry(req.headers(), "x-forwarded-host")
    {
        return h.to_string();
    }
    req.headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_string)
        .unwrap_or_else(|| {
            req.uri()
                .authority()
                .map(|a| a.to_string())
                .unwrap_or_default()
        })
}

/// `https` or `http`: as the proxy says with `--trust-proxy`, else the connection's.
pub fn scheme(req: &HttpRequest) -> &'static str {
    if trusted(req)
        && let Some(p) = last_entry(req.headers(), "x-forwarded-proto")
    {
        if p.eq_ignore_ascii_case("https") {
            return "https";
        }
        if p.eq_ignore_ascii_case("http") {
            return "http";
        }
    }
    if req.app_config().secure() {
        "https"
    } else {
        "http"
    }
}

/// `scheme://host` of this site as the request reached it (QR links, the embed snippet).
pub fn base_url(req: &HttpRequest) -> String {
    format!("{}://{}", scheme(req), host(req))
}

/// Whether `Accept-Encoding` takes gzip (named, or `*`, with a weight above 0).
pub fn takes_gzip(req: &HttpRequest) -> bool {
    let Some(accept) = req
        .headers()
        .get(actix_web::http::header::ACCEPT_ENCODING)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    let mut gzip = None;
    let mut any = None;
    for item in accept.split(',') {
        let mut parts = item.split(';').map(str::trim);
        let coding = parts.next().unwrap_or("");
        let weight = parts
            .find_map(|p| p.strip_prefix("q=").or_else(|| p.strip_prefix("Q=")))
            .map_or(Some(1.0), |q| q.trim().parse::<f32>().ok());
        let Some(weight) = weight else { continue };
        if coding.eq_ignore_ascii_case("gzip") || coding.eq_ignore_ascii_case("x-gzip") {
            gzip = Some(weight);
        } else if coding == "*" {
            any = Some(weight);
        }
    }
    gzip.or(any).is_some_and(|w| w > 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    fn req(trust: bool, headers: &[(&str, &str)]) -> HttpRequest {
        let mut r = TestRequest::default()
            .peer_addr("10.0.0.9:4000".parse().unwrap())
            .insert_header(("host", "club.example"))
            .app_data(TrustProxy(trust));
        for (k, v) in headers {
            r = r.append_header((*k, *v));
        }
        r.to_http_request()
    }

    #[test]
    fn behind_the_proxy_the_last_forwarded_entry_is_the_client() {
        let r = req(
            true,
            &[
                ("x-forwarded-for", "203.0.113.66, 198.51.100.1"),
                ("forwarded", "for=192.0.2.200;host=evil.example;proto=https"),
            ],
        );
        assert_eq!(address(&r), Some("198.51.100.1".parse().unwrap()));
        assert_eq!(host(&r), "club.example", "Forwarded is never believed");
        assert_eq!(scheme(&r), "http");
        // Two header lines: the proxy's is the last.
        let r = req(
            true,
            &[
                ("x-forwarded-for", "203.0.113.66"),
                ("x-forwarded-for", "[2001:db8::7]:443"),
                ("x-forwarded-proto", "https"),
                ("x-forwarded-host", "scores.club.example"),
            ],
        );
        assert_eq!(address(&r), Some("2001:db8::7".parse().unwrap()));
        assert_eq!(base_url(&r), "https://scores.club.example");
        // No header from the proxy: the peer.
        assert_eq!(address(&req(true, &[])), Some("10.0.0.9".parse().unwrap()));
    }

    #[test]
    fn without_trust_no_forwarded_header_counts() {
        let r = req(
            false,
            &[
                ("x-forwarded-for", "198.51.100.1"),
                ("x-forwarded-host", "evil.example"),
                ("x-forwarded-proto", "https"),
                ("forwarded", "for=192.0.2.200;host=evil.example"),
            ],
        );
        assert_eq!(address(&r), Some("10.0.0.9".parse().unwrap()));
        assert_eq!(base_url(&r), "http://club.example");
    }
}
