//! Building and running the application: the listener, the middleware, the routes, and the
//! embedded PostgreSQL's lifetime.

use std::net::TcpListener;

use actix_web::dev::Server;
use actix_web::middleware::from_fn;
use actix_web::{App, HttpMessage, HttpServer, web};
use anyhow::Context;
use sqlx::PgPool;
use tracing_actix_web::{DefaultRootSpanBuilder, RequestId, RootSpanBuilder, TracingLogger};
use utoipa_swagger_ui::SwaggerUi;

use crate::config::{ServeArgs, Settings};
use crate::domain::{self, AppState};
use crate::error::{self, AppError};
use crate::state::CacheBudget;
use crate::storage::{self, embedded::EmbeddedPostgres};

/// The API document as committed (JSON).
struct ApiDocument(web::Bytes);

/// `GET /api/openapi.json`: the document, as committed.
async fn api_document(document: web::Data<ApiDocument>) -> actix_web::HttpResponse {
    actix_web::HttpResponse::Ok()
        .content_type("application/json")
        .body(document.0.clone())
}

/// A built server, bound to its port.
pub struct Application {
    port: u16,
    server: Server,
    /// Game entry's connections, closed when the server has stopped.
    entry_db: Option<PgPool>,
    /// Rung when a night closes (a backup is then due).
    backup_due: std::sync::Arc<tokio::sync::Notify>,
    state: web::Data<AppState>,
}

impl Application {
    /// Binds `settings.bind` (port 0 picks a free port) and builds the server.
    pub fn build(settings: &Settings, db: PgPool) -> anyhow::Result<Application> {
        let listener = TcpListener::bind(&settings.bind)
            .with_context(|| format!("listening on {}", settings.bind))?;
        let port = listener.local_addr()?.port();
        let mut state = AppState::new(db, settings.session_key.expose());
        state.webhooks_allow_private = settings.webhooks_allow_private;
        state.set_api_limits(settings.api_rate_limit, settings.token_rate_limit);
        state.events.set_per_address(settings.streams_per_address);
        // Streams are counted with every other instance's on the database.
        state.events.share(state.db.clone(), uuid::Uuid::new_v4());
        state.set_cache_budget(settings.cache_mb.map_or_else(CacheBudget::default, |mb| {
            CacheBudget::of_megabytes(mb.into())
        }));
        state.entry =
            Some(crate::state::EntryLane::new(&state.db).context("starting the game entry lane")?);
        state.public_url = settings.public_url.clone().unwrap_or_else(|| {
            // The address listened on; a wildcard one is reached on this machine as 127.0.0.1.
            let mut at = listener
                .local_addr()
                .unwrap_or_else(|_| ([127, 0, 0, 1], port).into());
            if at.ip().is_unspecified() {
                at.set_ip([127, 0, 0, 1].into());
            }
            format!("http://{at}")
        });
        state.mail_per_club_day = settings.mail_per_club_day;
        state.outside_mail_per_account_day = settings.outside_mail_per_account_day;
        state.clubs_per_account_day = settings.clubs_per_account_day;
        state.asked_mail_per_address_day = settings.asked_mail_per_address_day;
        state.member_mail_per_day = settings.member_mail_per_day;
        if let Some(pass) = settings.worker_pass {
            state.worker_pass = pass;
        }
        state.mailer = Some(std::sync::Arc::new(crate::mail::Mailer::new(
            settings.smtp_url.as_ref().map(|u| u.expose()),
            &settings.mail_from,
            settings.data_dir.join("mail"),
        )?));
        let entry_db = state.entry.as_ref().map(|lane| lane.db.clone());
        let backup_due = state.backup_due.clone();
        let state = web::Data::new(state);
        let kept = state.clone();
        // The league events' listener (for this process's streams), the change notices' listener
        // and the webhook worker.
        tokio::spawn(domain::play::events::run_hub(state.clone().into_inner()));
        tokio::spawn(domain::seasons::standings::hear_changes(
            state.clone().into_inner(),
        ));
        tokio::spawn(domain::play::webhooks::run_worker(
            state.clone().into_inner(),
        ));
        tokio::spawn(domain::outbox::mail::run_worker(
            state.clone().into_inner(),
            mail_writers(),
        ));
        tokio::spawn(domain::play::open::run_sweeper(state.clone().into_inner()));
        let heartbeat = state.clone().into_inner();
        // The processes alive also give each its share of a limit while the database is away.
        tokio::spawn(async move {
            let limits = heartbeat.clone();
            heartbeat
                .events
                .keep_shared(move |n| limits.limits.set_instances(n))
                .await
        });
        let trust_proxy = settings.trust_proxy;
        let metrics_token = crate::http::metrics::MetricsToken::new(
            settings.metrics_token.as_ref().map(|t| t.expose()),
        );
        // The API document as committed (`make openapi` writes it from the code; a test holds
        // the two equal), served from the binary: building its tree at start cost each
        // instance 30 MB at its peak.
        let document = web::Data::new(ApiDocument(web::Bytes::from_static(include_bytes!(
            "../openapi/openapi.json"
        ))));
        let server = HttpServer::new(move || {
            // The routes alone: the document is made from the same list (`api::openapi`).
            App::new()
                .configure(crate::api::configure)
                .app_data(state.clone())
                .app_data(document.clone())
                .app_data(crate::http::security::TrustProxy(trust_proxy))
                .app_data(metrics_token.clone())
                .app_data(web::PayloadConfig::new(crate::api::json::BODY_LIMIT))
                .app_data(web::PathConfig::default().error_handler(path_refused))
                .route("/api/openapi.json", web::get().to(api_document))
                .service(
                    SwaggerUi::new("/api/docs/{_:.*}")
                        .config(utoipa_swagger_ui::Config::from("/api/openapi.json")),
                )
                .service(web::redirect("/api/docs", "/api/docs/"))
                .route("/metrics", web::get().to(crate::http::metrics::metrics))
                .configure(crate::pages::configure)
                .default_service(web::to(unrouted))
                .wrap(from_fn(crate::http::head::as_get))
                .wrap(from_fn(crate::http::deadline))
                .wrap(from_fn(error::render))
                .wrap(from_fn(crate::http::rate::api_rate))
                .wrap(from_fn(crate::http::security::headers))
                .wrap(from_fn(crate::http::cors::cors))
                .wrap(from_fn(request_id_header))
                .wrap(TracingLogger::<RequestSpan>::new())
                .wrap(from_fn(crate::http::metrics::count))
        })
        .listen(listener)?
        .shutdown_timeout(10)
        // SIGTERM and SIGINT are heard by `stop_on_signals`, which ends the event streams first.
        .disable_signals()
        .run();
        Ok(Application {
            port,
            server,
            entry_db,
            backup_due,
            state: kept,
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The state every request shares.
    pub fn state(&self) -> web::Data<AppState> {
        self.state.clone()
    }

    /// What a closed night rings.
    pub fn backup_due(&self) -> std::sync::Arc<tokio::sync::Notify> {
        self.backup_due.clone()
    }

    /// On SIGTERM or SIGINT: every open event stream ends at once (a client reconnects to
    /// another instance, or when this one is back), the listener closes, requests being handled
    /// finish (up to 10 s), and `run_until_stopped` returns.
    pub fn stop_on_signals(&self) -> std::io::Result<()> {
        use tokio::signal::unix::{SignalKind, signal};
        // Listened for before this returns, so a signal sent once the service says it serves is
        // never met by the default disposition (killed, not stopped).
        let mut term = signal(SignalKind::terminate())?;
        let mut int = signal(SignalKind::interrupt())?;
        let handle = self.server.handle();
        let state = self.state.clone();
        tokio::spawn(async move {
            let which = tokio::select! {
                _ = term.recv() => "SIGTERM",
                _ = int.recv() => "SIGINT",
            };
            tracing::info!(
                streams = state.events.open_streams(),
                "{which}: closing the event streams and finishing the requests in flight"
            );
            state.events.close_all();
            handle.stop(true).await;
        });
        Ok(())
    }

    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        let result = self.server.await;
        if let Some(db) = self.entry_db {
            db.close().await;
        }
        result
    }
}

/// A path whose id is not a number (`/api/v1/leagues/abc/standings`): 404 naming the segment and
/// what belongs there, rather than "no route".
fn path_refused(
    error: actix_web::error::PathError,
    req: &actix_web::HttpRequest,
) -> actix_web::Error {
    // serde names the value it could not read ("can not parse \"abc\" to a i64").
    let said = error.to_string();
    let bad = req
        .match_info()
        .iter()
        .find(|(_, value)| value.parse::<i64>().is_err() && said.contains(&format!("\"{value}\"")))
        .map(|(name, value)| (name.to_string(), value.to_string()));
    // What the id names: the parameter's name, or for a bare `{id}` the collection before it
    // (`/scheduled-nights/{id}` names a scheduled night).
    let what = |name: &str, value: &str| {
        if name != "id" {
            return name.replace('_', " ");
        }
        let segments: Vec<&str> = req.path().split('/').collect();
        segments
            .iter()
            .position(|s| *s == value)
            .and_then(|i| i.checked_sub(1))
            .map(|i| segments[i].trim_end_matches('s').replace('-', " "))
            .unwrap_or_else(|| "resource".into())
    };
    let detail = match bad {
        Some((name, value)) => format!(
            "`{value}` is not a {} id: an id is a whole number, like 12",
            what(&name, &value)
        ),
        None => format!("no route for {} {}", req.method(), req.path()),
    };
    AppError::not_found(detail).into()
}

/// A request no route took: 405 with `Allow` when an API route has that path under another
/// method, else 404.
async fn unrouted(req: actix_web::HttpRequest) -> Result<actix_web::HttpResponse, AppError> {
    if let Some(allow) = crate::api::allowed_methods(req.path()) {
        return Ok(error::method_not_allowed(
            req.method().as_str(),
            req.path(),
            &allow,
        ));
    }
    Err(AppError::not_found(format!(
        "no route for {} {}",
        req.method(),
        req.path()
    )))
}

/// The span of each request in the logs: tracing-actix-web's fields but the route template,
/// which it finds by matching the path against every route a second time (regular
/// expressions: a tenth of the service's time under load, measured with perf). The path
/// (`http.target`) names the resource.
pub struct RequestSpan;

impl RootSpanBuilder for RequestSpan {
    fn on_request_start(request: &actix_web::dev::ServiceRequest) -> tracing::Span {
        let request_id = request
            .extensions()
            .get::<RequestId>()
            .map(|id| id.to_string())
            .unwrap_or_default();
        let user_agent = request
            .headers()
            .get(actix_web::http::header::USER_AGENT)
            .and_then(|h| h.to_str().ok())
            .unwrap_or("");
        let client = crate::http::client::address(request.request())
            .map(|ip| ip.to_string())
            .unwrap_or_default();
        tracing::info_span!(
            "HTTP request",
            http.method = %request.method(),
            http.target = %request.uri().path_and_query().map(|p| p.as_str()).unwrap_or(""),
            http.client_ip = %client,
            http.user_agent = %user_agent,
            http.status_code = tracing::field::Empty,
            otel.kind = "server",
            otel.status_code = tracing::field::Empty,
            request_id = %request_id,
            exception.message = tracing::field::Empty,
            exception.details = tracing::field::Empty,
        )
    }

    fn on_request_end<B: actix_web::body::MessageBody>(
        span: tracing::Span,
        outcome: &Result<actix_web::dev::ServiceResponse<B>, actix_web::Error>,
    ) {
        DefaultRootSpanBuilder::on_request_end(span, outcome);
    }
}

/// Echoes the request id the logs use as `X-Request-Id`.
async fn request_id_header(
    req: actix_web::dev::ServiceRequest,
    next: actix_web::middleware::Next<impl actix_web::body::MessageBody + 'static>,
) -> Result<actix_web::dev::ServiceResponse<impl actix_web::body::MessageBody>, actix_web::Error> {
    let id = req.extensions().get::<RequestId>().map(|id| id.to_string());
    let mut res = next.call(req).await?;
    if let Some(id) = id
        && let Ok(value) = actix_web::http::header::HeaderValue::from_str(&id)
    {
        res.headers_mut().insert(
            actix_web::http::header::HeaderName::from_static("x-request-id"),
            value,
        );
    }
    Ok(res)
}

/// Name of the service's database on the embedded server.
pub const EMBEDDED_DATABASE: &str = "mahjong_league";

/// Connects to the configured database, or starts the embedded one; with the URL's hosts when
/// it names several (or asks for a writable one), to follow a failover.
pub async fn open_database(
    settings: &Settings,
) -> anyhow::Result<(
    PgPool,
    Option<EmbeddedPostgres>,
    Option<storage::hosts::Hosts>,
)> {
    let (url, embedded) = match &settings.database_url {
        Some(url) => (url.expose().to_string(), None),
        None => {
            let dir = settings.data_dir.clone();
            let pg = tokio::task::spawn_blocking(move || {
                EmbeddedPostgres::start(&dir, Default::default())
            })
            .await
            .context("starting the private PostgreSQL")??;
            (pg.url(EMBEDDED_DATABASE), Some(pg))
        }
    };
    storage::ensure_database(&url).await?;
    let (pool, hosts) = storage::open(&url).await?;
    storage::migrate(&pool).await?;
    Ok((pool, embedded, hosts))
}

async fn serve(settings: Settings) -> anyhow::Result<()> {
    let (pool, embedded, hosts) = open_database(&settings).await?;
    if settings.demo {
        let state = AppState::new(pool.clone(), settings.session_key.expose());
        if let Some(login) = domain::history::demo::ensure(&state).await? {
            // Shown once, at the start that created the demo; only its hash is kept.
            println!(
                "Demo club ready: log in as {} / {} (shown once; keep it)",
                login.email, login.password
            );
        }
    }
    let app = Application::build(&settings, pool.clone())?;
    // Starting leaves the heap with tens of megabytes freed (each worker registering the API's
    // routes and their document): given back to the system once the workers have started.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    tokio::spawn(async {
        tokio::time::sleep(std::time::Duration::from_secs(2)).await;
        // SAFETY: malloc_trim only returns free memory of the allocator's arenas to the system.
        unsafe { libc::malloc_trim(0) };
    });
    // A URL with several hosts (or that asks for a writable one): the pools follow a failover.
    if let Some(hosts) = hosts {
        let state = app.state();
        tracing::info!(hosts = %hosts.names(), "following the database's writable host");
        tokio::spawn(storage::hosts::follow(
            hosts,
            vec![state.db.clone(), state.entry_db().clone()],
        ));
    }
    let host = settings
        .bind
        .rsplit_once(':')
        .map(|(h, _)| h)
        .unwrap_or("127.0.0.1");
    let shown = if host == "0.0.0.0" || host == "[::]" {
        "127.0.0.1"
    } else {
        host
    };
    if let Some(pg) = &embedded
        && settings.backup_keep > 0
    {
        tokio::spawn(keep_backups(
            pg.url(EMBEDDED_DATABASE),
            settings.data_dir.join("backups"),
            settings.backup_keep as usize,
            std::time::Duration::from_secs(u64::from(settings.backup_every_hours) * 3600),
            std::time::Duration::from_secs(u64::from(settings.backup_gap_minutes) * 60),
            app.backup_due(),
        ));
    }
    let embedded = embedded.map(|pg| std::sync::Arc::new(std::sync::Mutex::new(pg)));
    let supervisor = embedded
        .clone()
        .map(|pg| tokio::spawn(supervise(pg, app.state())));
    app.stop_on_signals()
        .context("listening for SIGTERM and SIGINT")?;
    tracing::info!(port = app.port(), "serving");
    println!(
        "mahjong-league is serving on http://{shown}:{}/",
        app.port()
    );
    let result = app.run_until_stopped().await;
    if let Some(task) = supervisor {
        task.abort();
        let _ = task.await;
    }
    pool.close().await;
    if let Some(pg) = embedded {
        tokio::task::spawn_blocking(move || pg.lock().unwrap_or_else(|e| e.into_inner()).finish())
            .await??;
    }
    result.context("running the server")
}

/// How often the supervisor looks at the private PostgreSQL.
const SUPERVISION_PERIOD: std::time::Duration = std::time::Duration::from_secs(1);
/// The longest wait between two tries to start it again.
const RESTART_BACKOFF_MAX: std::time::Duration = std::time::Duration::from_secs(4);

/// Keeps the private PostgreSQL running for as long as the service runs. Each second it looks
/// whether the server's postmaster is alive; when it is gone (killed, the OOM killer, stopped
/// by itself after a PANIC such as a full disk), the supervisor logs it, marks the database
/// down (`/healthz` answers 503; requests meanwhile get 503 with `Retry-After` as for any
/// outage), and starts it again, waiting 0.5 s, then twice as long after each failure up to 4
/// s, until it runs. The pools reconnect by themselves. Committed data survives: PostgreSQL
/// replays its write-ahead log at the start.
async fn supervise(
    pg: std::sync::Arc<std::sync::Mutex<EmbeddedPostgres>>,
    state: web::Data<AppState>,
) {
    loop {
        tokio::time::sleep(SUPERVISION_PERIOD).await;
        let p = pg.clone();
        let alive = tokio::task::spawn_blocking(move || {
            p.lock().unwrap_or_else(|e| e.into_inner()).alive()
        })
        .await
        .unwrap_or(true);
        if alive {
            continue;
        }
        let since = std::time::Instant::now();
        *state
            .private_database_down
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = Some(since);
        tracing::error!(
            "the private PostgreSQL stopped (its postmaster is gone); starting it again"
        );
        let mut wait = std::time::Duration::from_millis(500);
        let mut tries = 0u32;
        loop {
            tokio::time::sleep(wait).await;
            tries += 1;
            let p = pg.clone();
            let started = tokio::task::spawn_blocking(move || {
                p.lock().unwrap_or_else(|e| e.into_inner()).restart()
            })
            .await;
            match started {
                Ok(Ok(())) => {
                    tracing::info!(
                        tries,
                        down_ms = since.elapsed().as_millis() as u64,
                        "the private PostgreSQL runs again"
                    );
                    break;
                }
                Ok(Err(e)) => tracing::warn!(
                    tries, error = %format!("{e:#}"),
                    "the private PostgreSQL did not start again yet; trying again in {} ms",
                    (wait * 2).min(RESTART_BACKOFF_MAX).as_millis()
                ),
                Err(e) => tracing::error!(error = %e, "the restart task failed"),
            }
            wait = (wait * 2).min(RESTART_BACKOFF_MAX);
        }
        *state
            .private_database_down
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = None;
    }
}

/// The embedded default's own backups, for as long as the service runs, into `dir`: daily ones
/// every `every` (the first when the newest on disk is that old, or a minute after the start
/// when there is none), and one after a night closes — at most one per `gap`: nights closed
/// within the gap after such a backup are in the one taken when the gap ends. Each kind keeps
/// its newest `keep`, so closing nights again and again never pushes out a daily backup.
async fn keep_backups(
    url: String,
    dir: std::path::PathBuf,
    keep: usize,
    every: std::time::Duration,
    gap: std::time::Duration,
    night_closed: std::sync::Arc<tokio::sync::Notify>,
) {
    use crate::storage::backup::{self, Kind};
    use tokio::time::{Instant, sleep_until};
    let minute = std::time::Duration::from_secs(60);
    let newest_daily_age = backup::list(&dir).ok().and_then(|files| {
        files
            .iter()
            .find(|f| f.kind == Kind::Daily)
            .and_then(|f| f.modified.elapsed().ok())
    });
    let mut next_daily = Instant::now()
        + match newest_daily_age {
            Some(age) => every.saturating_sub(age).max(minute),
            None => minute,
        };
    // When the backup for closed nights is due, and when the last one was taken.
    let mut night_due: Option<Instant> = None;
    let mut last_night: Option<Instant> = None;
    loop {
        let far = Instant::now() + every;
        let (kind, why) = tokio::select! {
            _ = night_closed.notified() => {
                if night_due.is_none() {
                    let now = Instant::now();
                    night_due = Some(last_night.map_or(now, |at| (at + gap).max(now)));
                }
                continue;
            }
            _ = sleep_until(night_due.unwrap_or(far)), if night_due.is_some() => {
                night_due = None;
                last_night = Some(Instant::now());
                (Kind::NightClosed, "a night closed")
            }
            _ = sleep_until(next_daily) => {
                next_daily = Instant::now() + every;
                (Kind::Daily, "the daily backup")
            }
        };
        let (url, dir2) = (url.clone(), dir.clone());
        match tokio::task::spawn_blocking(move || backup::take(&url, &dir2, keep, kind)).await {
            Ok(Ok((file, removed))) => tracing::info!(
                file = %file.path.display(), bytes = file.bytes, removed, kept = keep,
                "backup taken ({why})"
            ),
            Ok(Err(e)) => {
                tracing::error!(error = %format!("{e:#}"), "the backup failed ({why}); the next is tried as planned")
            }
            Err(e) => tracing::error!(error = %e, "the backup task failed"),
        }
    }
}

/// `serve`: returns the exit status.
pub fn serve_main(args: ServeArgs) -> u8 {
    let settings = match Settings::load(args) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e:#}");
            return 2;
        }
    };
    crate::telemetry::init(settings.log_format);
    match actix_web::rt::System::new().block_on(serve(settings)) {
        Ok(()) => 0,
        Err(e) => {
            tracing::error!(error = %format!("{e:#}"), "the service stopped");
            eprintln!("error: {e:#}");
            1
        }
    }
}

/// The letters the mail worker writes itself, from the areas above the outbox.
fn mail_writers() -> Vec<domain::outbox::mail::Writer> {
    use domain::outbox::mail::Writer;
    use domain::people::accounts;
    use domain::play::{ahead, night_mail};
    vec![
        Writer {
            what: "password reset and sign-up requests wait",
            write: Box::new(|s| Box::pin(async move { accounts::write_requested(&s).await })),
        },
        Writer {
            what: "a closed night's mail waits",
            write: Box::new(|s| Box::pin(async move { night_mail::write_next(&s).await })),
        },
        Writer {
            what: "a night's reminder waits",
            write: Box::new(|s| Box::pin(async move { ahead::write_next_reminder(&s).await })),
        },
        Writer {
            what: "claims wait for their daily mail",
            write: Box::new(|s| {
                Box::pin(async move { domain::people::roster::write_claims_due(&s).await })
            }),
        },
    ]
}
