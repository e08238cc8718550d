//! The service's Prometheus metrics (the `prometheus` crate's registry and text format): HTTP
//! requests by route template and status, games recorded, open event streams, the webhook
//! outbox, the database pools and the standings cache. Counters are counted where things
//! happen; gauges are read when `/metrics` is scraped (`http::metrics`). No web types here.

use prometheus::{
    Encoder, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge, IntGaugeVec, Opts,
    Registry, TextEncoder,
};

pub struct Metrics {
    registry: Registry,
    /// Requests answered, by route template (`/api/v1/leagues/{league}/standings`; `unmatched`
    /// when no route took it), method and status.
    pub http_requests: IntCounterVec,
    /// Time to the response's head, by the same labels.
    pub http_duration: HistogramVec,
    /// Games stored: entered at a table or by the API, and imported.
    pub games_recorded: IntCounter,
    /// Standings reads answered from memory (`hit`) or after a database read (`miss`).
    pub standings_reads: IntCounterVec,
    pub event_streams_open: IntGauge,
    pub webhook_outbox_pending: IntGauge,
    /// Mail in the outbox by status: `pending` (waiting or being retried) and `failed`.
    pub mail_outbox: IntGaugeVec,
    /// Connections of each pool (`requests`, `game_entry`) by state (`idle`, `in_use`).
    pub db_pool_connections: IntGaugeVec,
    /// What each cache holds (estimated bytes), within `--cache-mb`.
    pub cache_bytes: IntGaugeVec,
}

impl Default for Metrics {
    fn default() -> Self {
        let registry = Registry::new();
        let labels = ["route", "method", "status"];
        let http_requests = IntCounterVec::new(
            Opts::new("mahjong_http_requests_total", "HTTP requests answered"),
            &labels,
        )
        .expect("a valid metric");
        let http_duration = HistogramVec::new(
            HistogramOpts::new(
                "mahjong_http_request_duration_seconds",
                "Time from a request to its response's head",
            )
            .buckets(vec![
                0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
                10.0,
            ]),
            &labels,
        )
        .expect("a valid metric");
        let games_recorded = IntCounter::new(
            "mahjong_games_recorded_total",
            "Games stored (entered or imported)",
        )
        .expect("a valid metric");
        let standings_reads = IntCounterVec::new(
            Opts::new(
                "mahjong_standings_cache_total",
                "Standings reads answered from memory (hit) or after reading the database (miss)",
            ),
            &["result"],
        )
        .expect("a valid metric");
        let event_streams_open = IntGauge::new(
            "mahjong_event_streams_open",
            "Server-Sent Events streams open on this instance",
        )
        .expect("a valid metric");
        let webhook_outbox_pending = IntGauge::new(
            "mahjong_webhook_outbox_pending",
            "Webhook deliveries not yet delivered (every instance's)",
        )
        .expect("a valid metric");
        let mail_outbox = IntGaugeVec::new(
            Opts::new(
                "mahjong_mail_outbox",
                "Mail not sent: pending (waiting or being retried) or failed (given up), every instance's",
            ),
            &["status"],
        )
        .expect("a valid metric");
        let db_pool_connections = IntGaugeVec::new(
            Opts::new(
                "mahjong_db_pool_connections",
                "Database connections of this instance's pools, by state",
            ),
            &["pool", "state"],
        )
        .expect("a valid metric");
        let cache_bytes = IntGaugeVec::new(
            Opts::new(
                "mahjong_cache_bytes",
                "Memory this instance's caches hold (estimated bytes), by cache",
            ),
            &["cache"],
        )
        .expect("a valid metric");
        for c in [
            Box::new(http_requests.clone()) as Box<dyn prometheus::core::Collector>,
            Box::new(http_duration.clone()),
            Box::new(games_recorded.clone()),
            Box::new(standings_reads.clone()),
            Box::new(event_streams_open.clone()),
            Box::new(webhook_outbox_pending.clone()),
            Box::new(mail_outbox.clone()),
            Box::new(db_pool_connections.clone()),
            Box::new(cache_bytes.clone()),
        ] {
            registry.register(c).expect("each metric registered once");
        }
        // Both results show from the start, so a rate over them is defined.
        standings_reads.with_label_values(&["hit"]);
        standings_reads.with_label_values(&["miss"]);
        Metrics {
            registry,
            http_requests,
            http_duration,
            games_recorded,
            standings_reads,
            event_streams_open,
            webhook_outbox_pending,
            mail_outbox,
            db_pool_connections,
            cache_bytes,
        }
    }
}

impl Metrics {
    /// Counts a request answered.
    pub fn request(&self, route: &str, method: &str, status: u16, seconds: f64) {
        let status = status.to_string();
        let labels = [route, method, status.as_str()];
        self.http_requests.with_label_values(&labels).inc();
        self.http_duration
            .with_label_values(&labels)
            .observe(seconds);
    }

    /// Counts a standings read.
    pub fn standings_read(&self, from_memory: bool) {
        self.standings_reads
            .with_label_values(&[if from_memory { "hit" } else { "miss" }])
            .inc();
    }

    /// Every metric in Prometheus's text format.
    pub fn render(&self) -> String {
        let mut out = Vec::new();
        if let Err(e) = TextEncoder::new().encode(&self.registry.gather(), &mut out) {
            tracing::error!(error = %e, "encoding the metrics failed");
        }
        String::from_utf8(out).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_counted_by_route_and_status() {
        let m = Metrics::default();
        m.request("/api/v1/leagues/{league}/standings", "GET", 200, 0.003);
        m.request("/api/v1/leagues/{league}/standings", "GET", 200, 0.004);
        m.standings_read(true);
        let text = m.render();
        assert!(
            text.contains(
                "mahjong_http_requests_total{method=\"GET\",route=\"/api/v1/leagues/{league}/standings\",status=\"200\"} 2"
            ),
            "{text}"
        );
        assert!(text.contains("mahjong_standings_cache_total{result=\"hit\"} 1"));
        assert!(text.contains("mahjong_standings_cache_total{result=\"miss\"} 0"));
        assert!(text.contains("# TYPE mahjong_http_request_duration_seconds histogram"));
    }
}
