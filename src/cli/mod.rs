//! The command line: `serve` and the rules-engine commands.

pub mod engine;

use clap::{Args, Parser, Subcommand};

use crate::config::ServeArgs;

#[derive(Parser)]
#[command(
    name = "mahjong-league",
    version,
    about = "Leagues, tournaments and an exact rules engine for American Mah Jongg clubs"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the web service.
    Serve(Box<ServeArgs>),
    /// Card files: check one.
    #[command(subcommand)]
    Card(CardCommand),
    /// Hands: check one against a card, or adjudicate a dead-hand call.
    #[command(subcommand)]
    Hand(HandCommand),
    /// Score a game result (rules.md §5) with its ruleset.
    Score(ScoreArgs),
    /// Plan R rounds of seating for N players from scratch.
    Seat(SeatArgs),
    /// The private PostgreSQL in a data directory (the test command uses these).
    #[command(subcommand)]
    Db(DbCommand),
    /// A club's settings only an operator changes.
    #[command(subcommand)]
    Club(ClubCommand),
    /// Print the OpenAPI document the service serves.
    Openapi,
}

#[derive(Subcommand)]
enum ClubCommand {
    /// Set one club's mail budget: the messages it may write in 24 hours (N, 1 to 10000000),
    /// or `default` for the service's --mail-per-club-day.
    MailBudget {
        /// The club's slug.
        slug: String,
        /// Messages in 24 hours, or `default`.
        per_day: String,
        #[command(flatten)]
        target: DbTarget,
    },
}

#[derive(Args)]
struct SeatArgs {
    /// How many players.
    #[arg(long)]
    players: usize,
    /// How many rounds (nights) to plan.
    #[arg(long)]
    rounds: usize,
    /// Seed: the same seed gives the same plan.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand)]
enum DbCommand {
    /// Start (or reuse) the private PostgreSQL and leave it running; print its URL.
    Start {
        /// Data directory [default: ./.data].
        #[arg(long, env = "MAHJONG_DATA_DIR", default_value = crate::config::DEFAULT_DATA_DIR)]
        data_dir: std::path::PathBuf,
        /// Trade durability for speed (fsync off): for throwaway test servers.
        #[arg(long)]
        throwaway: bool,
    },
    /// Stop the private PostgreSQL of a data directory.
    Stop {
        /// Data directory [default: ./.data].
        #[arg(long, env = "MAHJONG_DATA_DIR", default_value = crate::config::DEFAULT_DATA_DIR)]
        data_dir: std::path::PathBuf,
    },
    /// Back up the service's database to a file (one consistent snapshot; the service may go on
    /// serving): the private PostgreSQL of a data directory, or the one at --database-url.
    Backup {
        /// The file to write (PostgreSQL's custom format).
        #[arg(long, value_name = "FILE")]
        out: std::path::PathBuf,
        #[command(flatten)]
        target: DbTarget,
    },
    /// Restore a backup into an empty database (the private one of a data directory, or the one
    /// at --database-url); a database that holds tables is refused unless --force.
    Restore {
        /// The backup file.
        file: std::path::PathBuf,
        #[command(flatten)]
        target: DbTarget,
        /// Replace what the database holds.
        #[arg(long)]
        force: bool,
    },
    /// List the backups the service keeps in <data-dir>/backups, newest first.
    Backups {
        /// Data directory [default: ./.data].
        #[arg(long, env = "MAHJONG_DATA_DIR", default_value = crate::config::DEFAULT_DATA_DIR)]
        data_dir: std::path::PathBuf,
    },
}

/// Which database a `db` command works on.
#[derive(Args)]
struct DbTarget {
    /// Data directory whose private PostgreSQL holds the database [default: ./.data].
    #[arg(long, env = "MAHJONG_DATA_DIR", default_value = crate::config::DEFAULT_DATA_DIR)]
    data_dir: std::path::PathBuf,
    /// A PostgreSQL of your own instead (the database the service uses).
    #[arg(long, env = "DATABASE_URL", hide_env_values = true, value_name = "URL")]
    database_url: Option<String>,
}

#[derive(Subcommand)]
enum CardCommand {
    /// Check a card file: print a summary (hands, targets) or every error with its line; exit 1 if invalid.
    Check {
        /// The card file (TOML), or the name of a built-in card.
        file: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// List the built-in cards.
    List,
}

#[derive(Args)]
struct CardArg {
    /// A card file, or the name of a built-in card (see `card list`).
    #[arg(long)]
    card: String,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// Read one JSON request per line from standard input; answer one JSON line each.
    #[arg(long)]
    batch: bool,
}

#[derive(Subcommand)]
enum HandCommand {
    /// Does the hand win? Every matching line, the best, and for a losing hand the nearest lines.
    Check {
        #[command(flatten)]
        card: CardArg,
        /// An exposure made during play, e.g. "2B 2B J" (repeat for each).
        #[arg(long = "exposure", value_name = "TILES", allow_hyphen_values = true)]
        exposures: Vec<String>,
        /// The 14 tiles, e.g. "F F 2B 2B 2B 4B 4B 4B 4B 6C 6C 6C 8C 8C".
        #[arg(value_name = "TILES", required_unless_present = "batch")]
        hand: Option<String>,
    },
    /// Decide a dead-hand call from the challenged seat's exposures and the tiles out of play.
    Adjudicate {
        #[command(flatten)]
        card: CardArg,
        /// An exposure of the challenged seat (repeat for each).
        #[arg(long = "exposure", value_name = "TILES")]
        exposures: Vec<String>,
        /// Every tile known to be out of play: discards and other players' exposures.
        #[arg(long, value_name = "TILES")]
        out: Option<String>,
    },
}

#[derive(Args)]
struct ScoreArgs {
    #[command(flatten)]
    card: CardArg,
    /// The result as a JSON file, or - for standard input.
    #[arg(value_name = "RESULT.json|-", required_unless_present = "batch")]
    result: Option<String>,
}

/// Runs the command line; returns the process exit status.
pub fn run() -> u8 {
    let cli = Cli::parse();
    match cli.command {
        Command::Serve(args) => crate::startup::serve_main(*args),
        Command::Club(ClubCommand::MailBudget {
            slug,
            per_day,
            target,
        }) => report(club_mail_budget(&slug, &per_day, &target)),
        Command::Card(CardCommand::Check { file, json }) => engine::card_check(&file, json),
        Command::Card(CardCommand::List) => {
            for name in crate::rules::builtin::names() {
                if let Some(card) = crate::rules::builtin::get(name) {
                    println!(
                        "{name}\t{} ({}), {} hands",
                        card.name,
                        card.year,
                        card.lines.len()
                    );
                }
            }
            engine::OK
        }
        Command::Hand(HandCommand::Check {
            card,
            exposures,
            hand,
        }) => engine::hand_check(
            &card.card,
            &exposures,
            hand.as_deref(),
            card.json,
            card.batch,
        ),
        Command::Hand(HandCommand::Adjudicate {
            card,
            exposures,
            out,
        }) => engine::hand_adjudicate(
            &card.card,
            &exposures,
            out.as_deref(),
            card.json,
            card.batch,
        ),
        Command::Seat(a) => engine::seat(a.players, a.rounds, a.seed, a.json),
        Command::Db(DbCommand::Start {
            data_dir,
            throwaway,
        }) => {
            use crate::storage::embedded::{EmbeddedPostgres, StartOptions};
            match EmbeddedPostgres::start(&data_dir, StartOptions { throwaway }) {
                Ok(pg) => {
                    println!("{}", pg.url("postgres"));
                    pg.detach();
                    engine::OK
                }
                Err(e) => {
                    eprintln!("error: {e:#}");
                    1
                }
            }
        }
        Command::Db(DbCommand::Stop { data_dir }) => {
            match crate::storage::embedded::EmbeddedPostgres::stop_in(&data_dir) {
                Ok(()) => engine::OK,
                Err(e) => {
                    eprintln!("error: {e:#}");
                    1
                }
            }
        }
        Command::Db(DbCommand::Backup { out, target }) => report(backup(&out, &target)),
        Command::Db(DbCommand::Restore {
            file,
            target,
            force,
        }) => report(restore(&file, &target, force)),
        Command::Db(DbCommand::Backups { data_dir }) => report(list_backups(&data_dir)),
        Command::Openapi => match crate::api::openapi().to_pretty_json() {
            Ok(json) => {
                println!("{json}");
                engine::OK
            }
            Err(e) => {
                eprintln!("error: {e}");
                1
            }
        },
        Command::Score(args) => engine::score(
            &args.card.card,
            args.result.as_deref(),
            args.card.json,
            args.card.batch,
        ),
    }
}

/// Prints an error and answers the exit status.
fn report(result: anyhow::Result<()>) -> u8 {
    match result {
        Ok(()) => engine::OK,
        Err(e) => {
            eprintln!("error: {e:#}");
            1
        }
    }
}

/// Runs `f` with the URL of the target's database: the one given, or the private server's —
/// with `share`, one running under a service is used as it runs (a backup); else the command
/// takes the data directory's lock (refused while a service holds it), starting the server for
/// the command and stopping it after.
fn with_database<T>(
    target: &DbTarget,
    share: bool,
    f: impl FnOnce(&str) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    use crate::startup::EMBEDDED_DATABASE;
    use crate::storage::embedded::{self, EmbeddedPostgres};
    if let Some(url) = &target.database_url {
        return f(url);
    }
    if share && let Some(url) = embedded::running_url(&target.data_dir, EMBEDDED_DATABASE)? {
        return f(&url);
    }
    let mut pg = EmbeddedPostgres::start(&target.data_dir, Default::default())?;
    let result = f(&pg.url(EMBEDDED_DATABASE));
    pg.finish()?;
    result
}

fn block_on<T>(future: impl std::future::Future<Output = T>) -> anyhow::Result<T> {
    Ok(tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(future))
}

fn backup(out: &std::path::Path, target: &DbTarget) -> anyhow::Result<()> {
    let bytes = with_database(target, true, |url| crate::storage::backup::dump(url, out))?;
    println!("backup written: {} ({bytes} bytes)", out.display());
    Ok(())
}

fn restore(file: &std::path::Path, target: &DbTarget, force: bool) -> anyhow::Result<()> {
    use crate::storage::backup;
    if !file.is_file() {
        anyhow::bail!("no backup file {}", file.display());
    }
    with_database(target, false, |url| {
        block_on(crate::storage::ensure_database(url))??;
        let tables = block_on(backup::tables_in(url))??;
        if tables > 0 && !force {
            anyhow::bail!(
                "the database already holds {tables} tables: restore into an empty database, or pass --force to replace what it holds"
            );
        }
        backup::restore(url, file, tables > 0)
    })?;
    println!("restored {}", file.display());
    Ok(())
}

fn club_mail_budget(slug: &str, per_day: &str, target: &DbTarget) -> anyhow::Result<()> {
    let per_day: Option<i32> = match per_day {
        "default" => None,
        n => match n.parse::<i32>() {
            Ok(n @ 1..=10_000_000) => Some(n),
            _ => anyhow::bail!("give the messages a day as 1 to 10000000, or `default`; not {n:?}"),
        },
    };
    let found = with_database(target, true, |url| {
        block_on(async {
            let pool = sqlx::PgPool::connect(url).await?;
            let found =
                crate::storage::people::budgets::set_club_mail(&pool, slug, per_day).await?;
            pool.close().await;
            anyhow::Ok(found)
        })?
    })?;
    if !found {
        anyhow::bail!("no club with the slug {slug:?}");
    }
    match per_day {
        Some(n) => println!("{slug} may write {n} messages in 24 hours"),
        None => println!("{slug} writes as many messages as --mail-per-club-day allows"),
    }
    Ok(())
}

fn list_backups(data_dir: &std::path::Path) -> anyhow::Result<()> {
    let dir = data_dir.join("backups");
    let files = crate::storage::backup::list(&dir)?;
    if files.is_empty() {
        println!("no backups in {}", dir.display());
    }
    for f in files {
        let at: chrono::DateTime<chrono::Utc> = f.modified.into();
        println!(
            "{}\t{} bytes\t{}\t{}",
            f.path.display(),
            f.bytes,
            at.format("%Y-%m-%d %H:%M:%S UTC"),
            match f.kind {
                crate::storage::backup::Kind::Daily => "daily",
                crate::storage::backup::Kind::NightClosed => "a night closed",
            }
        );
    }
    Ok(())
}
