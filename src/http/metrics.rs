//! `/metrics` (Prometheus's text format) and the middleware that counts every request by its
//! route template and status. The metrics are answered to a scraper on the same machine
//! (a loopback peer that no proxy forwarded) and, from elsewhere, only with the metrics token
//! (`--metrics-token`, sent as `Authorization: Bearer …`).

use std::net::IpAddr;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderMap};
use actix_web::middleware::Next;
use actix_web::{HttpRequest, HttpResponse, web};
use sha2::{Digest, Sha256};

use crate::domain::{AppState, Error};
use crate::error::AppError;

/// The metrics token's SHA-256, when one is set.
#[derive(Clone)]
pub struct MetricsToken(pub Option<[u8; 32]>);

impl MetricsToken {
    pub fn new(token: Option<&str>) -> MetricsToken {
        MetricsToken(token.map(|t| Sha256::digest(t.as_bytes()).into()))
    }
}

/// Whether a request may read the metrics: from a loopback address that no proxy forwarded,
/// or with the token (compared by hash, in constant time).
pub fn may_read(
    peer: Option<IpAddr>,
    headers: &HeaderMap,
    token: &MetricsToken,
) -> Result<(), Error> {
    let forwarded = ["forwarded", "x-forwarded-for", "x-real-ip"]
        .iter()
        .any(|h| headers.contains_key(*h));
    if peer.is_some_and(|ip| ip.is_loopback()) && !forwarded {
        return Ok(());
    }
    let sent = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim);
    match (&token.0, sent) {
        (None, _) => Err(Error::Forbidden(
            "metrics are answered on this machine only (loopback); start the service with --metrics-token to scrape it from elsewhere".into(),
        )),
        (Some(want), Some(sent)) => {
            let got: [u8; 32] = Sha256::digest(sent.as_bytes()).into();
            // Constant time over the digests.
            if got.iter().zip(want).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0 {
                Ok(())
            } else {
                Err(Error::Unauthorized("that is not the metrics token".into()))
            }
        }
        (Some(_), None) => Err(Error::Unauthorized(
            "send the metrics token: Authorization: Bearer <token>".into(),
        )),
    }
}

/// `GET /metrics`.
pub async fn metrics(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> Result<HttpResponse, AppError> {
    let token = req
        .app_data::<MetricsToken>()
        .cloned()
        .unwrap_or(MetricsToken(None));
    may_read(req.peer_addr().map(|a| a.ip()), req.headers(), &token)?;
    let m = &state.metrics;
    m.event_streams_open.set(state.events.open_streams() as i64);
    for (name, pool) in [
        ("requests", Some(&state.db)),
        ("game_entry", state.entry.as_ref().map(|l| &l.db)),
    ] {
        if let Some(pool) = pool {
            let idle = pool.num_idle() as i64;
            let size = i64::from(pool.size());
            m.db_pool_connections
                .with_label_values(&[name, "idle"])
                .set(idle);
            m.db_pool_connections
                .with_label_values(&[name, "in_use"])
                .set((size - idle).max(0));
        }
    }
    let (bodies, rows) = state.standings.bytes();
    for (name, bytes) in [
        ("standings_bodies", bodies),
        ("standings_rows", rows),
        ("game_logs", state.game_logs.usage().1),
        ("cards", state.cards.usage().1 as u64),
    ] {
        m.cache_bytes
            .with_label_values(&[name])
            .set(i64::try_from(bytes).unwrap_or(i64::MAX));
    }
    // The outbox is the database's: a scrape while it is away still answers the rest.
    match crate::domain::outbox::mail::outbox_counts(&state).await {
        Ok((pending, failed)) => {
            m.mail_outbox.with_label_values(&["pending"]).set(pending);
            m.mail_outbox.with_label_values(&["failed"]).set(failed);
        }
        Err(e) => tracing::warn!(error = %e, "reading the mail outbox for the metrics failed"),
    }
    match crate::domain::play::webhooks::outbox_pending(&state).await {
        Ok(n) => m.webhook_outbox_pending.set(n),
        Err(e) => tracing::warn!(error = %e, "reading the webhook outbox for the metrics failed"),
    }
    Ok(HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .body(m.render()))
}

/// Counts every request by its route template (the pattern it matched, so ids do not make
/// new series), method and status, with the time to its response's head.
pub async fn count(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let started = std::time::Instant::now();
    let metrics = req
        .app_data::<web::Data<AppState>>()
        .map(|s| s.metrics.clone());
    let method = req.method().as_str().to_string();
    let res = next.call(req).await?;
    if let Some(m) = metrics {
        let route = res
            .request()
            .match_pattern()
            .unwrap_or_else(|| "unmatched".to_string());
        m.request(
            &route,
            &method,
            res.status().as_u16(),
            started.elapsed().as_secs_f64(),
        );
    }
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::http::header::{HeaderName, HeaderValue};

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(
                HeaderName::from_static(k),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        h
    }

    #[test]
    fn loopback_reads_and_elsewhere_needs_the_token() {
        let local: Option<IpAddr> = Some("127.0.0.1".parse().unwrap());
        let far: Option<IpAddr> = Some("203.0.113.7".parse().unwrap());
        let none = MetricsToken::new(None);
        let token = MetricsToken::new(Some("s3cret-token"));
        assert!(may_read(local, &headers(&[]), &none).is_ok());
        assert!(may_read(Some("::1".parse().unwrap()), &headers(&[]), &none).is_ok());
        // A proxy on the same machine forwarding someone else's request.
        assert!(matches!(
            may_read(
                local,
                &headers(&[("x-forwarded-for", "198.51.100.2")]),
                &none
            ),
            Err(Error::Forbidden(_))
        ));
        assert!(matches!(
            may_read(far, &headers(&[]), &none),
            Err(Error::Forbidden(_))
        ));
        assert!(matches!(
            may_read(far, &headers(&[]), &token),
            Err(Error::Unauthorized(_))
        ));
        assert!(matches!(
            may_read(far, &headers(&[("authorization", "Bearer wrong")]), &token),
            Err(Error::Unauthorized(_))
        ));
        assert!(
            may_read(
                far,
                &headers(&[("authorization", "Bearer s3cret-token")]),
                &token
            )
            .is_ok()
        );
    }
}
