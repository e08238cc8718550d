//! Structured logs: human lines or JSON, filtered by RUST_LOG (default `info`, with sqlx's pool
//! notes at `warn`: while the database is away each request logs its one 503 line, not the
//! pool's attempts besides).

use tracing_subscriber::EnvFilter;

use crate::config::LogFormat;

pub fn init(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("info,sqlx_core::pool=warn"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    // A second call (tests) leaves the first subscriber in place.
    let _ = match format {
        LogFormat::Human => builder.try_init(),
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
    };
    std::panic::set_hook(Box::new(|info| {
        tracing::error!(panic = %info, "a handler panicked");
    }));
}
