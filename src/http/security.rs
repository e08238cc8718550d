//! Security headers on every response, and an Origin check on unsafe requests that a browser
//! makes with cookies (a request with an `Authorization` header carries its own proof).

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::http::header::{self, HeaderName, HeaderValue};
use actix_web::middleware::Next;

use crate::domain::Error;
use crate::error::AppError;

/// No inline scripts or styles, nothing from other sites.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
     connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// As `CSP`, for a page any site may frame (a public league's standings embed).
const CSP_FRAMABLE: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
     connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors *";

/// Put in a response's extensions by a page that any site may frame: it is sent without
/// `X-Frame-Options` and with `frame-ancestors *`.
#[derive(Debug, Clone, Copy)]
pub struct Framable;

/// Whether an `Origin` (or `Referer`) names the host the request was sent to.
pub fn same_origin(source: &str, host: &str) -> bool {
    let rest = source
        .strip_prefix("http://")
        .or_else(|| source.strip_prefix("https://"))
        .unwrap_or("");
    let authority = rest.split('/').next().unwrap_or("");
    !authority.is_empty() && authority.eq_ignore_ascii_case(host)
}

/// Kept beside the code that reads it; named here too, where the other headers are decided.
pub use crate::http::client::TrustProxy;

/// The host a request was sent to (see `client::host`).
pub fn host_of(req: &actix_web::HttpRequest) -> String {
    crate::http::client::host(req)
}

/// The `Origin` of a request sent from a page of another site, if it was (`None` for
/// same-site requests and for clients that are not browsers).
pub fn foreign_origin(req: &actix_web::HttpRequest) -> Option<String> {
    let origin = req.headers().get(header::ORIGIN)?.to_str().ok()?;
    (!same_origin(origin, &host_of(req))).then(|| origin.to_string())
}

pub async fn headers(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let unsafe_method = !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    let mut refused = None;
    if unsafe_method && !req.headers().contains_key(header::AUTHORIZATION) {
        let host = host_of(req.request());
        let source = req
            .headers()
            .get(header::ORIGIN)
            .or_else(|| req.headers().get(header::REFERER))
            .and_then(|v| v.to_str().ok());
        // `null` is what a sandboxed frame or a file sends: never this site.
        if let Some(source) = source
            && (source == "null" || !same_origin(source, &host))
        {
            refused = Some(AppError::from(Error::Forbidden(format!(
                "this request came from {source}, not from this site"
            ))));
        }
    }
    let docs = req.path().starts_with("/api/docs");
    // The door's check-in page scans badges with the device's camera; no other page may.
    let door = req.path().starts_with("/nights/") && req.path().ends_with("/door");
    let mut res = match refused {
        Some(e) => req.error_response(e),
        None => next.call(req).await?.map_into_boxed_body(),
    };
    let framable = res.response().extensions().get::<Framable>().is_some();
    let h = res.headers_mut();
    let mut set = |name: HeaderName, value: &'static str| {
        h.insert(name, HeaderValue::from_static(value));
    };
    set(header::X_CONTENT_TYPE_OPTIONS, "nosniff");
    set(header::REFERRER_POLICY, "same-origin");
    if !framable {
        set(header::X_FRAME_OPTIONS, "DENY");
    }
    set(
        HeaderName::from_static("permissions-policy"),
        if door {
            "camera=(self), microphone=(), geolocation=()"
        } else {
            "camera=(), microphone=(), geolocation=()"
        },
    );
    set(
        HeaderName::from_static("cross-origin-opener-policy"),
        "same-origin",
    );
    // Swagger UI brings its own inline setup; every other page runs under the strict policy.
    if framable {
        set(header::CONTENT_SECURITY_POLICY, CSP_FRAMABLE);
    } else if !docs {
        set(header::CONTENT_SECURITY_POLICY, CSP);
    }
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_match_the_host_exactly() {
        assert!(same_origin("http://127.0.0.1:8080", "127.0.0.1:8080"));
        assert!(same_origin("https://club.example/x/y", "club.example"));
        assert!(!same_origin("http://127.0.0.1:9999", "127.0.0.1:8080"));
        assert!(!same_origin("http://evil.example", "club.example"));
        assert!(!same_origin("club.example", "club.example"));
    }
}
