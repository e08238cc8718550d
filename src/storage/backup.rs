//! Backups: a consistent `pg_dump` of the service's database (one snapshot, taken while the
//! service serves), restored with `pg_restore` into an empty database; the embedded default's
//! own backups in `<data-dir>/backups/`, the newest kept.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

use anyhow::{Context, bail};
use sqlx::Connection;

use super::embedded::find_binaries;

/// Backup files the service makes: `mahjong-league-20261125-071500-042.dump`.
pub const PREFIX: &str = "mahjong-league-";
pub const SUFFIX: &str = ".dump";

/// The URL without its password, and the password (given to the tools in `PGPASSWORD`, so it
/// is never on a command line).
fn split_password(url: &str) -> anyhow::Result<(String, Option<String>)> {
    let mut parsed = url::Url::parse(url).context("the database URL cannot be read")?;
    let password = parsed.password().map(|p| {
        percent_encoding::percent_decode_str(p)
            .decode_utf8_lossy()
            .into_owned()
    });
    let _ = parsed.set_password(None);
    Ok((parsed.to_string(), password))
}

/// Where a PostgreSQL client tool is: beside the server binaries the service uses (following a
/// link to the directory they are installed in), else on `PATH`.
fn tool_path(name: &str) -> anyhow::Result<PathBuf> {
    let bin = find_binaries()?;
    let mut dirs = vec![bin.clone()];
    if let Ok(real) = bin.join("postgres").canonicalize()
        && let Some(dir) = real.parent()
    {
        dirs.push(dir.to_path_buf());
    }
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    dirs.into_iter()
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            anyhow::anyhow!(
                "{name} was not found beside {} or on PATH: install PostgreSQL's client tools (Debian: postgresql-client)",
                bin.display()
            )
        })
}

fn tool(name: &str, url: &str) -> anyhow::Result<(Command, String)> {
    let (url, password) = split_password(url)?;
    let mut cmd = Command::new(tool_path(name)?);
    if let Some(p) = password {
        cmd.env("PGPASSWORD", p);
    }
    Ok((cmd, url))
}

fn run(mut cmd: Command, what: &str) -> anyhow::Result<()> {
    let out = cmd.output().with_context(|| format!("running {what}"))?;
    if !out.status.success() {
        bail!(
            "{what} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(())
}

/// Dumps the database at `url` to `out` (PostgreSQL's custom format, compressed): one
/// consistent snapshot, however many writes go on meanwhile. Written beside `out` first and
/// renamed, so a file named `out` is always whole. Answers its size in bytes.
pub fn dump(url: &str, out: &Path) -> anyhow::Result<u64> {
    let (mut cmd, url) = tool("pg_dump", url)?;
    let partial = partial_of(out);
    // The file holds password hashes, emails and webhook secrets: readable by its owner only,
    // from its first byte (pg_dump writes into the file made here, keeping its mode).
    private_file(&partial)?;
    cmd.args(["--format=custom", "--no-owner", "--no-privileges", "--file"])
        .arg(&partial)
        .arg("--dbname")
        .arg(&url);
    if let Err(e) = run(cmd, "pg_dump") {
        let _ = std::fs::remove_file(&partial);
        return Err(e);
    }
    std::fs::rename(&partial, out).with_context(|| format!("writing {}", out.display()))?;
    Ok(std::fs::metadata(out)?.len())
}

/// Makes (or empties) `path` as a file only its owner may read or write (0600).
fn private_file(path: &Path) -> anyhow::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        options.mode(0o600);
        options
            .open(path)
            .with_context(|| format!("creating {}", path.display()))?;
        // An existing file keeps its old mode through open(): set it.
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
    }
    #[cfg(not(unix))]
    options
        .open(path)
        .with_context(|| format!("creating {}", path.display()))?;
    Ok(())
}

/// Makes `dir` (and its parents) and gives it to its owner alone (0700).
fn private_dir(dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .with_context(|| format!("making {} private", dir.display()))?;
    }
    Ok(())
}

/// Where a dump to `out` is written before it is whole: `out` with `.partial` added
/// (`backup.dump.partial`), so two dumps to different files never share one, and a file named
/// `out` is only ever a whole dump.
fn partial_of(out: &Path) -> std::path::PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".partial");
    std::path::PathBuf::from(name)
}

/// Restores a dump into the database at `url`, in one transaction (all or nothing). With
/// `replace`, what the database holds of the dump's objects is dropped first.
pub fn restore(url: &str, file: &Path, replace: bool) -> anyhow::Result<()> {
    if !file.is_file() {
        bail!("no backup file {}", file.display());
    }
    let (mut cmd, url) = tool("pg_restore", url)?;
    cmd.args([
        "--no-owner",
        "--no-privileges",
        "--exit-on-error",
        "--single-transaction",
    ]);
    if replace {
        cmd.args(["--clean", "--if-exists"]);
    }
    cmd.arg("--dbname").arg(&url).arg(file);
    run(cmd, "pg_restore")
}

/// How many tables the database's `public` schema holds (0: an empty database).
pub async fn tables_in(url: &str) -> anyhow::Result<i64> {
    let mut conn = sqlx::PgConnection::connect(url)
        .await
        .context("connecting to the database")?;
    let n: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'",
    )
    .fetch_one(&mut conn)
    .await?;
    conn.close().await.ok();
    Ok(n)
}

/// Why the service took a backup. Each kind keeps its own newest N, so closing nights again
/// and again never pushes out a daily backup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The backup taken once a day (and files named before kinds existed).
    Daily,
    /// A backup taken because a night closed.
    NightClosed,
}

impl Kind {
    fn tag(self) -> &'static str {
        match self {
            Kind::Daily => "daily",
            Kind::NightClosed => "night",
        }
    }

    /// The kind a file's name says.
    fn of(name: &str) -> Kind {
        if name.ends_with(&format!("-night{SUFFIX}")) {
            Kind::NightClosed
        } else {
            Kind::Daily
        }
    }
}

/// A backup file in a directory.
#[derive(Debug, Clone)]
pub struct BackupFile {
    pub path: PathBuf,
    pub bytes: u64,
    pub modified: SystemTime,
    pub kind: Kind,
}

/// The service's backups in `dir`, newest first.
pub fn list(dir: &Path) -> anyhow::Result<Vec<BackupFile>> {
    let mut files: Vec<BackupFile> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .flatten()
            .filter(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                name.starts_with(PREFIX) && name.ends_with(SUFFIX)
            })
            .filter_map(|e| {
                let meta = e.metadata().ok()?;
                Some(BackupFile {
                    path: e.path(),
                    bytes: meta.len(),
                    modified: meta.modified().ok()?,
                    kind: Kind::of(&e.file_name().to_string_lossy()),
                })
            })
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e).with_context(|| format!("reading {}", dir.display())),
    };
    // The name holds the time (UTC, to the second); it sorts as the time does.
    files.sort_by(|a, b| b.path.cmp(&a.path));
    Ok(files)
}

/// Takes a backup of `kind` into `dir` (0700; the file 0600) named for the time and its kind,
/// then removes all but the newest `keep` of that kind. Answers the new file and how many old
/// ones were removed.
pub fn take(url: &str, dir: &Path, keep: usize, kind: Kind) -> anyhow::Result<(BackupFile, usize)> {
    private_dir(dir)?;
    // The name holds the time (UTC, to the millisecond), so names sort as times do.
    let name = format!(
        "{PREFIX}{}-{}{SUFFIX}",
        chrono::Utc::now().format("%Y%m%d-%H%M%S-%3f"),
        kind.tag()
    );
    let path = dir.join(&name);
    let bytes = dump(url, &path)?;
    let mut removed = 0;
    let files = list(dir)?;
    for old in files.iter().filter(|f| f.kind == kind).skip(keep.max(1)) {
        std::fs::remove_file(&old.path)
            .with_context(|| format!("removing {}", old.path.display()))?;
        removed += 1;
    }
    // Files an earlier version left readable by others are made private too.
    #[cfg(unix)]
    for f in &files {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(&f.path, std::fs::Permissions::from_mode(0o600));
    }
    let modified = std::fs::metadata(&path)?.modified()?;
    Ok((
        BackupFile {
            path,
            bytes,
            modified,
            kind,
        },
        removed,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dump_is_written_beside_its_file_under_a_name_of_its_own() {
        assert_eq!(
            partial_of(Path::new("/b/x.dump")),
            Path::new("/b/x.dump.partial")
        );
        assert_ne!(
            partial_of(Path::new("x.dump")),
            partial_of(Path::new("x.sql"))
        );
        assert_ne!(partial_of(Path::new("x.partial")), Path::new("x.partial"));
    }

    #[test]
    fn a_backup_is_private_and_its_kind_is_in_its_name() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let backups = dir.path().join("backups");
        private_dir(&backups).unwrap();
        let file = backups.join("x.dump.partial");
        std::fs::write(&file, "old").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        private_file(&file).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&backups), 0o700);
        assert_eq!(mode(&file), 0o600);
        assert_eq!(std::fs::read(&file).unwrap(), b"", "emptied");
        assert_eq!(
            Kind::of("mahjong-league-20261125-071500-042-night.dump"),
            Kind::NightClosed
        );
        assert_eq!(
            Kind::of("mahjong-league-20261125-071500-042-daily.dump"),
            Kind::Daily
        );
        assert_eq!(
            Kind::of("mahjong-league-20261125-071500-042.dump"),
            Kind::Daily
        );
    }

    #[test]
    fn the_password_leaves_the_url() {
        let (url, pw) =
            split_password("postgres://postgres:s%40cret@localhost:55432/db?host=%2Ftmp%2Frun")
                .unwrap();
        assert_eq!(pw.as_deref(), Some("s@cret"));
        assert!(!url.contains("cret"), "{url}");
        assert!(url.contains("host=%2Ftmp%2Frun"), "{url}");
    }
}
