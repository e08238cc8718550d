//! Configuration: command-line flags, then environment variables, then an optional TOML file,
//! then safe local defaults. Secrets are never printed (see `Secret`).

use std::fmt;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::{Args, ValueEnum};
use serde::Deserialize;

/// Default address: loopback only, so a fresh install is not reachable from the network.
pub const DEFAULT_BIND: &str = "127.0.0.1:8080";
pub const DEFAULT_DATA_DIR: &str = "./.data";

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    /// Readable lines for a terminal.
    #[default]
    Human,
    /// One JSON object per line, for log collectors.
    Json,
}

/// A secret value: its Debug and Display never show it.
#[derive(Clone, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    pub fn new(s: impl Into<String>) -> Secret {
        Secret(s.into())
    }
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

/// Flags of `serve`; each also reads an environment variable.
#[derive(Args, Debug, Clone, Default)]
pub struct ServeArgs {
    /// Optional TOML file with any of: bind, data_dir, database_url, log_format, session_key, demo, trust_proxy, webhooks_allow_private, api_rate_limit, token_rate_limit, backup_keep, backup_every_hours, backup_gap_minutes, metrics_token, cache_mb, streams_per_address, smtp_url, mail_from, public_url, mail_per_club_day, outside_mail_per_account_day, clubs_per_account_day, asked_mail_per_address_day, member_mail_per_day.
    #[arg(long, env = "MAHJONG_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Address to listen on [default: 127.0.0.1:8080].
    #[arg(long, env = "MAHJONG_BIND", value_name = "ADDR:PORT")]
    pub bind: Option<String>,
    /// Where the service keeps its files (the embedded PostgreSQL, the session key) [default: ./.data].
    #[arg(long, env = "MAHJONG_DATA_DIR", value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// PostgreSQL to use. Without it the service starts its own private PostgreSQL in the data directory.
    #[arg(long, env = "DATABASE_URL", hide_env_values = true, value_name = "URL")]
    pub database_url: Option<String>,
    /// Log format [default: human].
    #[arg(long, env = "MAHJONG_LOG_FORMAT", value_enum)]
    pub log_format: Option<LogFormat>,
    /// Key that signs session cookies (64+ characters). Without it one is made and kept in the data directory.
    #[arg(
        long,
        env = "MAHJONG_SESSION_KEY",
        hide_env_values = true,
        value_name = "KEY"
    )]
    pub session_key: Option<String>,
    /// Create the demo club (slug `demo`) if it does not exist.
    #[arg(long, env = "MAHJONG_DEMO")]
    pub demo: bool,
    /// Behind a reverse proxy: the client is the last X-Forwarded-For entry (the one the proxy
    /// appended), the scheme and host the last X-Forwarded-Proto and -Host entries. A
    /// `Forwarded` header is never believed. Off, no forwarded header counts anywhere.
    #[arg(long, env = "MAHJONG_TRUST_PROXY")]
    pub trust_proxy: bool,
    /// Let webhooks reach plain-http URLs and private, loopback and link-local addresses (a
    /// receiver on the club's own network). Off by default: webhooks go to public https URLs.
    #[arg(long, env = "MAHJONG_WEBHOOKS_ALLOW_PRIVATE")]
    pub webhooks_allow_private: bool,
    /// API requests a minute from one address without credentials (public reads); 0: no limit.
    #[arg(long, env = "MAHJONG_API_RATE_LIMIT", value_name = "PER_MINUTE")]
    pub api_rate_limit: Option<u32>,
    /// API requests a minute with one API token; 0: no limit.
    #[arg(long, env = "MAHJONG_TOKEN_RATE_LIMIT", value_name = "PER_MINUTE")]
    pub token_rate_limit: Option<u32>,
    /// With the private PostgreSQL: backups kept in <data-dir>/backups (taken after each night
    /// closes and once a day), the newest N; 0 turns them off [default: 14].
    #[arg(long, env = "MAHJONG_BACKUP_KEEP", value_name = "N")]
    pub backup_keep: Option<u32>,
    /// Hours between the daily backups [default: 24].
    #[arg(long, env = "MAHJONG_BACKUP_EVERY_HOURS", value_name = "HOURS")]
    pub backup_every_hours: Option<u32>,
    /// Least minutes between two backups that closed nights take: nights closed meanwhile are
    /// in the one taken when the gap ends [default: 10; 0 to 1440].
    #[arg(long, env = "MAHJONG_BACKUP_GAP_MINUTES", value_name = "MINUTES")]
    pub backup_gap_minutes: Option<u32>,
    /// Token a Prometheus elsewhere sends (Authorization: Bearer) to read /metrics; without it
    /// /metrics answers on loopback only.
    #[arg(
        long,
        env = "MAHJONG_METRICS_TOKEN",
        hide_env_values = true,
        value_name = "TOKEN"
    )]
    pub metrics_token: Option<String>,
    /// Megabytes this process's caches (standings, game logs, compiled cards) may hold together,
    /// however many leagues are read [default: 256; 16 to 65536].
    #[arg(long, env = "MAHJONG_CACHE_MB", value_name = "MB")]
    pub cache_mb: Option<u32>,
    /// Event streams one client address may hold open at once (an IPv6 client per /64)
    /// [default: 64; 1 to 4096].
    #[arg(long, env = "MAHJONG_STREAMS_PER_ADDRESS", value_name = "N")]
    pub streams_per_address: Option<u32>,
    /// SMTP server for club mail: `smtps://user:password@host:465`, or
    /// `smtp://user:password@host:587?tls=required` for STARTTLS. Without it each message is
    /// written as an .eml file in <data-dir>/mail/.
    #[arg(
        long,
        env = "MAHJONG_SMTP_URL",
        hide_env_values = true,
        value_name = "URL"
    )]
    pub smtp_url: Option<String>,
    /// Sender of club mail, e.g. `"Mah Jongg league <league@example.org>"` [default:
    /// mahjong-league@localhost].
    #[arg(long, env = "MAHJONG_MAIL_FROM", value_name = "ADDRESS")]
    pub mail_from: Option<String>,
    /// The service's address as its users reach it, e.g. `https://league.example.org`: links in
    /// mail start with it (never with a request's Host header) [default: http://<bind>].
    #[arg(long, env = "MAHJONG_PUBLIC_URL", value_name = "URL")]
    pub public_url: Option<String>,
    /// Messages one club may send in 24 hours; past it, invitations are refused (429) and other
    /// mail waits (an hour at a time) while its organizers see why; `mahjong-league club
    /// mail-budget SLUG N` raises it for one club [default: 2000; 1 to 1000000].
    #[arg(long, env = "MAHJONG_MAIL_PER_CLUB_DAY", value_name = "N")]
    pub mail_per_club_day: Option<u32>,
    /// Distinct addresses outside one account's clubs (invitations, email changes) it may have
    /// the service mail in 24 hours, by every route together; past it, 429 [default: 50; 1 to
    /// 100000].
    #[arg(long, env = "MAHJONG_OUTSIDE_MAIL_PER_ACCOUNT_DAY", value_name = "N")]
    pub outside_mail_per_account_day: Option<u32>,
    /// Clubs one account may make in 24 hours [default: 3; 1 to 1000].
    #[arg(long, env = "MAHJONG_CLUBS_PER_ACCOUNT_DAY", value_name = "N")]
    pub clubs_per_account_day: Option<u32>,
    /// Messages others may have the service send one address in 24 hours (invitations from
    /// any club, email changes naming it), while it has no account; past it, 429 [default: 3;
    /// 1 to 1000].
    #[arg(long, env = "MAHJONG_ASKED_MAIL_PER_ADDRESS_DAY", value_name = "N")]
    pub asked_mail_per_address_day: Option<u32>,
    /// Messages one member's actions (proposals naming players, disputes, leaving a match in an
    /// emergency) may have the service send to others in 24 hours [default: 10; 1 to 10000].
    #[arg(long, env = "MAHJONG_MEMBER_MAIL_PER_DAY", value_name = "N")]
    pub member_mail_per_day: Option<u32>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    bind: Option<String>,
    data_dir: Option<PathBuf>,
    database_url: Option<Secret>,
    log_format: Option<LogFormat>,
    session_key: Option<Secret>,
    demo: Option<bool>,
    trust_proxy: Option<bool>,
    webhooks_allow_private: Option<bool>,
    api_rate_limit: Option<u32>,
    token_rate_limit: Option<u32>,
    backup_keep: Option<u32>,
    backup_every_hours: Option<u32>,
    backup_gap_minutes: Option<u32>,
    metrics_token: Option<Secret>,
    cache_mb: Option<u32>,
    streams_per_address: Option<u32>,
    smtp_url: Option<Secret>,
    mail_from: Option<String>,
    public_url: Option<String>,
    mail_per_club_day: Option<u32>,
    outside_mail_per_account_day: Option<u32>,
    clubs_per_account_day: Option<u32>,
    asked_mail_per_address_day: Option<u32>,
    member_mail_per_day: Option<u32>,
}

/// The settings the service runs with.
#[derive(Debug, Clone)]
pub struct Settings {
    pub bind: String,
    pub data_dir: PathBuf,
    pub database_url: Option<Secret>,
    pub log_format: LogFormat,
    pub session_key: Secret,
    pub demo: bool,
    /// Whether forwarded headers (host, scheme) are believed: only behind a proxy that sets them.
    pub trust_proxy: bool,
    /// Webhooks may go to plain http and to private addresses.
    pub webhooks_allow_private: bool,
    /// API requests a minute per address without credentials (0: no limit).
    pub api_rate_limit: u32,
    /// API requests a minute per API token (0: no limit).
    pub token_rate_limit: u32,
    /// Backups the private PostgreSQL's service keeps (0: none).
    pub backup_keep: u32,
    /// Hours between its daily backups (at least 1).
    pub backup_every_hours: u32,
    /// Least minutes between two backups that closed nights take.
    pub backup_gap_minutes: u32,
    /// What a scraper elsewhere sends to read `/metrics`.
    pub metrics_token: Option<Secret>,
    /// Megabytes the caches may hold together (`None`: the caches' own default, 256).
    pub cache_mb: Option<u32>,
    /// Event streams one client address may hold open at once.
    pub streams_per_address: u32,
    /// The SMTP server of club mail (`None`: messages are written to `<data-dir>/mail/`).
    pub smtp_url: Option<Secret>,
    /// The sender of club mail.
    pub mail_from: String,
    /// The service's address as its users reach it, without a trailing slash (`None`: the
    /// address it listens on).
    pub public_url: Option<String>,
    /// Messages one club may send in 24 hours.
    pub mail_per_club_day: u32,
    /// Distinct outside addresses one account may have mailed in 24 hours.
    pub outside_mail_per_account_day: u32,
    /// Clubs one account may make in 24 hours.
    pub clubs_per_account_day: u32,
    /// Messages others may have the service send one address without an account in 24 hours.
    pub asked_mail_per_address_day: u32,
    /// Messages one member's actions may have the service send to others in 24 hours.
    pub member_mail_per_day: u32,
    /// How long the background workers wait for work before they look again: the mail worker
    /// every pass, open play's sweep every two and a half. Not a flag: `None` (the workers' own
    /// 2 s) outside the tests, which make it short so that they wait less for what a pass does.
    pub worker_pass: Option<std::time::Duration>,
}

/// Messages one club may send in 24 hours when no other limit is set.
pub const DEFAULT_MAIL_PER_CLUB_DAY: u32 = 2000;
impl FileConfig {
    /// The config file's settings (none without a file).
    fn read(path: Option<&std::path::Path>) -> anyhow::Result<FileConfig> {
        let Some(path) = path else {
            return Ok(FileConfig::default());
        };
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading config file {}", path.display()))?;
        toml::from_str(&text).map_err(|e| {
            anyhow::anyhow!("config file {}: {}", path.display(), e.to_string().trim())
        })
    }
}

/// A budget's setting: `default` when not given, else 1 to `most`.
fn bounded(flag: &str, given: Option<u32>, default: u32, most: u32) -> anyhow::Result<u32> {
    match given {
        None => Ok(default),
        Some(n) if (1..=most).contains(&n) => Ok(n),
        Some(n) => anyhow::bail!("{flag} must be 1 to {most}, not {n}"),
    }
}

/// Messages others may have the service send one address without an account in 24 hours.
pub const DEFAULT_ASKED_MAIL_PER_ADDRESS_DAY: u32 = 3;
/// Messages one member's actions may have the service send to others in 24 hours.
pub const DEFAULT_MEMBER_MAIL_PER_DAY: u32 = 10;

/// Distinct outside addresses one account may have mailed in 24 hours when no other limit is set.
pub const DEFAULT_OUTSIDE_MAIL_PER_ACCOUNT_DAY: u32 = 50;

/// Clubs one account may make in 24 hours when no other limit is set.
pub const DEFAULT_CLUBS_PER_ACCOUNT_DAY: u32 = 3;

/// The sender of club mail when none is set.
pub const DEFAULT_MAIL_FROM: &str = "Mah Jongg league <mahjong-league@localhost>";

/// A club's tablets, projector and players' phones behind one address, with room to spare.
pub const DEFAULT_STREAMS_PER_ADDRESS: u32 = 64;
/// Default number of backups kept.
pub const DEFAULT_BACKUP_KEEP: u32 = 14;

/// Default API requests a minute from one address without credentials.
pub const DEFAULT_API_RATE_LIMIT: u32 = 600;
/// Default API requests a minute with one API token.
pub const DEFAULT_TOKEN_RATE_LIMIT: u32 = 1200;

impl Settings {
    /// Merges flags and environment (already in `args`) over the file over the defaults.
    pub fn load(args: ServeArgs) -> anyhow::Result<Settings> {
        let file = FileConfig::read(args.config.as_deref())?;
        let data_dir = args
            .data_dir
            .or(file.data_dir)
            .unwrap_or_else(|| PathBuf::from(DEFAULT_DATA_DIR));
        let session_key = match args.session_key.map(Secret::new).or(file.session_key) {
            Some(k) if k.expose().len() < 64 => {
                anyhow::bail!("the session key must be at least 64 characters long")
            }
            Some(k) => k,
            None => stored_session_key(&data_dir)?,
        };
        Ok(Settings {
            bind: args
                .bind
                .or(file.bind)
                .unwrap_or_else(|| DEFAULT_BIND.to_string()),
            data_dir,
            database_url: args.database_url.map(Secret::new).or(file.database_url),
            log_format: args.log_format.or(file.log_format).unwrap_or_default(),
            session_key,
            demo: args.demo || file.demo.unwrap_or(false),
            trust_proxy: args.trust_proxy || file.trust_proxy.unwrap_or(false),
            webhooks_allow_private: args.webhooks_allow_private
                || file.webhooks_allow_private.unwrap_or(false),
            api_rate_limit: args
                .api_rate_limit
                .or(file.api_rate_limit)
                .unwrap_or(DEFAULT_API_RATE_LIMIT),
            token_rate_limit: args
                .token_rate_limit
                .or(file.token_rate_limit)
                .unwrap_or(DEFAULT_TOKEN_RATE_LIMIT),
            backup_keep: args
                .backup_keep
                .or(file.backup_keep)
                .unwrap_or(DEFAULT_BACKUP_KEEP)
                .min(10_000),
            backup_every_hours: args
                .backup_every_hours
                .or(file.backup_every_hours)
                .unwrap_or(24)
                .clamp(1, 24 * 366),
            backup_gap_minutes: match args.backup_gap_minutes.or(file.backup_gap_minutes) {
                None => 10,
                Some(m @ 0..=1440) => m,
                Some(m) => anyhow::bail!("--backup-gap-minutes must be 0 to 1440, not {m}"),
            },
            metrics_token: match args.metrics_token.map(Secret::new).or(file.metrics_token) {
                Some(t) if t.expose().len() < 16 => {
                    anyhow::bail!("the metrics token must be at least 16 characters long")
                }
                t => t,
            },
            cache_mb: match args.cache_mb.or(file.cache_mb) {
                None => None,
                Some(mb @ 16..=65536) => Some(mb),
                Some(mb) => anyhow::bail!("--cache-mb must be 16 to 65536 megabytes, not {mb}"),
            },
            smtp_url: args.smtp_url.map(Secret::new).or(file.smtp_url),
            mail_from: args
                .mail_from
                .or(file.mail_from)
                .unwrap_or_else(|| DEFAULT_MAIL_FROM.to_string()),
            public_url: match args.public_url.or(file.public_url) {
                Some(url) => {
                    let parsed = url::Url::parse(&url)
                        .map_err(|e| anyhow::anyhow!("--public-url {url:?} is not a URL: {e}"))?;
                    if !matches!(parsed.scheme(), "http" | "https") || parsed.host().is_none() {
                        anyhow::bail!("--public-url must be an http or https address, not {url:?}");
                    }
                    Some(url.trim_end_matches('/').to_string())
                }
                None => None,
            },
            mail_per_club_day: bounded(
                "--mail-per-club-day",
                args.mail_per_club_day.or(file.mail_per_club_day),
                DEFAULT_MAIL_PER_CLUB_DAY,
                1_000_000,
            )?,
            outside_mail_per_account_day: bounded(
                "--outside-mail-per-account-day",
                args.outside_mail_per_account_day
                    .or(file.outside_mail_per_account_day),
                DEFAULT_OUTSIDE_MAIL_PER_ACCOUNT_DAY,
                100_000,
            )?,
            clubs_per_account_day: bounded(
                "--clubs-per-account-day",
                args.clubs_per_account_day.or(file.clubs_per_account_day),
                DEFAULT_CLUBS_PER_ACCOUNT_DAY,
                1000,
            )?,
            asked_mail_per_address_day: bounded(
                "--asked-mail-per-address-day",
                args.asked_mail_per_address_day
                    .or(file.asked_mail_per_address_day),
                DEFAULT_ASKED_MAIL_PER_ADDRESS_DAY,
                1000,
            )?,
            member_mail_per_day: bounded(
                "--member-mail-per-day",
                args.member_mail_per_day.or(file.member_mail_per_day),
                DEFAULT_MEMBER_MAIL_PER_DAY,
                10_000,
            )?,
            worker_pass: None,
            streams_per_address: match args.streams_per_address.or(file.streams_per_address) {
                None => DEFAULT_STREAMS_PER_ADDRESS,
                Some(n @ 1..=4096) => n,
                Some(n) => {
                    anyhow::bail!("--streams-per-address must be 1 to 4096, not {n}")
                }
            },
        })
    }
}

/// Reads the session key kept in the data directory, making one the first time.
fn stored_session_key(data_dir: &Path) -> anyhow::Result<Secret> {
    let path = data_dir.join("session-key");
    if let Ok(key) = std::fs::read_to_string(&path)
        && key.trim().len() >= 64
    {
        return Ok(Secret::new(key.trim()));
    }
    std::fs::create_dir_all(data_dir)
        .with_context(|| format!("creating data directory {}", data_dir.display()))?;
    let bytes: [u8; 48] = rand::random();
    let key: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    std::fs::write(&path, &key).with_context(|| format!("writing {}", path.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
    }
    Ok(Secret::new(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_budget_is_bounded_and_unset_means_the_default() {
        let dir = std::env::temp_dir().join(format!("ml-config-{}", uuid::Uuid::new_v4()));
        let load = |cache_mb| {
            Settings::load(ServeArgs {
                data_dir: Some(dir.clone()),
                cache_mb,
                ..Default::default()
            })
        };
        assert_eq!(load(None).unwrap().cache_mb, None);
        assert_eq!(load(Some(16)).unwrap().cache_mb, Some(16));
        assert_eq!(load(Some(65536)).unwrap().cache_mb, Some(65536));
        for wrong in [0, 15, 65537] {
            let err = load(Some(wrong)).unwrap_err().to_string();
            assert!(
                err.contains("--cache-mb must be 16 to 65536") && err.contains(&wrong.to_string()),
                "{err}"
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn flags_win_over_the_file_and_defaults_fill_the_rest() {
        let dir = std::env::temp_dir().join(format!("ml-config-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("c.toml");
        std::fs::write(&file, "bind = \"127.0.0.1:9000\"\nlog_format = \"json\"\n").unwrap();
        let args = ServeArgs {
            config: Some(file.clone()),
            bind: Some("127.0.0.1:9999".into()),
            data_dir: Some(dir.clone()),
            ..Default::default()
        };
        let s = Settings::load(args).unwrap();
        assert_eq!(s.bind, "127.0.0.1:9999");
        assert_eq!(s.log_format, LogFormat::Json);
        assert!(s.database_url.is_none());
        assert_eq!(format!("{:?}", s.session_key), "[redacted]");
        // The generated key is kept and reused.
        let again = Settings::load(ServeArgs {
            data_dir: Some(dir.clone()),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(again.session_key.expose(), s.session_key.expose());
        std::fs::write(&file, "bnid = 1\n").unwrap();
        let err = Settings::load(ServeArgs {
            config: Some(file),
            data_dir: Some(dir.clone()),
            ..Default::default()
        })
        .unwrap_err();
        assert!(err.to_string().contains("bnid"), "{err}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
