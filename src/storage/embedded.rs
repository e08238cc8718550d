//! The embedded default: a private PostgreSQL started from the machine's own binaries, kept in
//! the data directory, listening only on a unix socket there (or a free loopback port when the
//! socket path would be too long), and stopped when the service exits.
//!
//! Why not a crate: postgresql_embedded downloads server builds by default and, pointed at the
//! system's binaries, still runs them as the current user (PostgreSQL refuses root) and has no
//! notion of reusing a server left by a crashed run; pgtemp makes throwaway clusters only. What
//! is needed here is ~250 lines of glue around `initdb` and `pg_ctl`, so it lives here.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

/// Port number of the private server. With a unix socket it only names the socket file; over
/// TCP a free port is chosen instead. Never the standard 5432.
const SOCKET_PORT: u16 = 55432;
/// Longest socket path the kernel accepts, less a margin.
const MAX_SOCKET_PATH: usize = 100;

const INSTALL_HINT: &str = "PostgreSQL server binaries (initdb, pg_ctl, postgres) were not found on PATH or in /usr/lib/postgresql/*/bin. \
Install them: on Debian/Ubuntu `sudo apt-get install postgresql`; on Fedora `sudo dnf install postgresql-server`; \
on macOS `brew install postgresql@16`. Or point DATABASE_URL at an existing PostgreSQL.";

/// How the private server is reached.
#[derive(Debug, Clone)]
enum Listen {
    Socket(PathBuf),
    Tcp(u16),
}

/// A private PostgreSQL server in a data directory.
#[derive(Debug)]
pub struct EmbeddedPostgres {
    /// This process's hold on the data directory (released when the value is dropped).
    _lock: Option<std::fs::File>,
    /// Whether this process owns the server: it started it, or found it running in the data
    /// directory it holds locked (left by a crashed run). It stops only a server it owns.
    started_here: bool,
    bin: PathBuf,
    root: PathBuf,
    pgdata: PathBuf,
    listen: Listen,
    run_as: Option<String>,
    /// The `postgres` role's password, kept in `<root>/password` (0600).
    password: String,
    stop_on_drop: bool,
    /// How it was started (a restart starts it the same way).
    options: StartOptions,
}

/// Options for starting the server.
#[derive(Debug, Clone, Copy, Default)]
pub struct StartOptions {
    /// Trade durability for speed (fsync off): for throwaway test servers only.
    pub throwaway: bool,
}

/// Finds the directory that holds `pg_ctl`, `initdb` and `postgres`.
pub fn find_binaries() -> anyhow::Result<PathBuf> {
    let has_all = |dir: &Path| {
        ["pg_ctl", "initdb", "postgres"]
            .iter()
            .all(|b| dir.join(b).is_file())
    };
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            if has_all(&dir) {
                return Ok(dir);
            }
        }
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let v: u32 = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            has_all(&bin).then_some((v, bin))
        })
        .collect();
    versions.sort();
    versions
        .pop()
        .map(|(_, b)| b)
        .ok_or_else(|| anyhow::anyhow!(INSTALL_HINT))
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// Percent-encodes a path for a URL query value.
fn encode(path: &Path) -> String {
    path.to_string_lossy()
        .bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The URL of database `database` on the private PostgreSQL running in `data_dir` (its
/// service holds the directory), read from the server's pid file and the password file without
/// taking the directory's lock; `None` when no server runs there.
pub fn running_url(data_dir: &Path, database: &str) -> anyhow::Result<Option<String>> {
    let root = data_dir.join("postgres");
    let Ok(pid_file) = std::fs::read_to_string(root.join("data/postmaster.pid")) else {
        return Ok(None);
    };
    let lines: Vec<&str> = pid_file.lines().collect();
    let pid: i32 = lines
        .first()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or(0);
    if pid <= 0 || !process_alive(pid) {
        return Ok(None);
    }
    let port: u16 = lines
        .get(3)
        .and_then(|l| l.trim().parse().ok())
        .context("the server's pid file names no port")?;
    let password = std::fs::read_to_string(root.join("password"))
        .context("reading the private PostgreSQL's password file")?;
    let pw = encode(Path::new(password.trim()));
    Ok(Some(
        match lines.get(4).map(|l| l.trim()).filter(|l| !l.is_empty()) {
            Some(dir) => format!(
                "postgres://postgres:{pw}@localhost:{port}/{database}?host={}",
                encode(Path::new(dir))
            ),
            None => format!("postgres://postgres:{pw}@127.0.0.1:{port}/{database}"),
        },
    ))
}

impl EmbeddedPostgres {
    /// Starts (or reuses) the private server kept under `data_dir`.
    pub fn start(data_dir: &Path, options: StartOptions) -> anyhow::Result<EmbeddedPostgres> {
        let bin = find_binaries()?;
        std::fs::create_dir_all(data_dir)
            .with_context(|| format!("creating data directory {}", data_dir.display()))?;
        let data_dir = data_dir.canonicalize()?;
        let lock = lock_data_dir(&data_dir)?;
        if data_dir.to_string_lossy().contains(['\'', '"', '\\']) {
            bail!(
                "the data directory path {} must not contain quotes or backslashes",
                data_dir.display()
            );
        }
        let root = data_dir.join("postgres");
        let pgdata = root.join("data");
        let socket_dir = root.join("run");
        std::fs::create_dir_all(&socket_dir)?;
        let socket_len = socket_dir
            .join(format!(".s.PGSQL.{SOCKET_PORT}"))
            .as_os_str()
            .len();
        let listen = if socket_len <= MAX_SOCKET_PATH {
            Listen::Socket(socket_dir)
        } else {
            Listen::Tcp(free_port()?)
        };
        let run_as = if is_root() {
            prepare_for_postgres_user(&root)?;
            Some("postgres".to_string())
        } else {
            None
        };
        let mut pg = EmbeddedPostgres {
            _lock: Some(lock),
            started_here: false,
            bin,
            password: String::new(),
            root,
            pgdata,
            listen,
            run_as,
            stop_on_drop: true,
            options,
        };
        pg.init()?;
        pg.secure()?;
        if pg.running()? {
            // Reused only if it takes connections: a postmaster killed with the service can
            // leave a pid file (or a zombie) behind that `pg_ctl status` still believes.
            // The data directory is locked for this process alone, so a server running in it
            // can only be one an earlier run of ours left (a crash, `kill -9`): it is ours now,
            // and stopped when this process ends as one it started would be.
            if matches!(pg.listen, Listen::Socket(_)) && pg.postmaster_alive() && pg.accepting(10) {
                tracing::info!(pgdata = %pg.pgdata.display(), "adopting the private PostgreSQL an earlier run left running; it stops when this service does");
                pg.started_here = true;
                return Ok(pg);
            }
            pg.clear_stale()?;
        }
        pg.launch(options)?;
        pg.started_here = true;
        pg.stop_on_drop = true;
        Ok(pg)
    }

    /// Whether the server answers on its socket, asking `tries` times half a second apart.
    fn accepting(&self, tries: u32) -> bool {
        let Listen::Socket(dir) = &self.listen else {
            return false;
        };
        for i in 0..tries {
            let mut cmd = self.command("pg_isready");
            cmd.arg("-q")
                .arg("-h")
                .arg(dir)
                .arg("-p")
                .arg(SOCKET_PORT.to_string());
            if self
                .run(cmd, "pg_isready")
                .is_ok_and(|o| o.status.success())
            {
                return true;
            }
            if i + 1 < tries {
                std::thread::sleep(std::time::Duration::from_millis(500));
            }
        }
        false
    }

    /// Whether the process named in `postmaster.pid` still runs (not dead, not a zombie).
    fn postmaster_alive(&self) -> bool {
        std::fs::read_to_string(self.pgdata.join("postmaster.pid"))
            .ok()
            .and_then(|t| t.lines().next().and_then(|l| l.trim().parse::<i32>().ok()))
            .is_some_and(|pid| pid > 0 && process_alive(pid))
    }

    /// Clears what a server that does not answer left behind: it is stopped if it still runs,
    /// and a pid file whose process is gone (or a zombie nobody reaped) is removed.
    fn clear_stale(&mut self) -> anyhow::Result<()> {
        let mut cmd = self.command("pg_ctl");
        cmd.arg("stop")
            .arg("-D")
            .arg(&self.pgdata)
            .args(["-m", "immediate", "-w", "-t", "10"]);
        let _ = self.run(cmd, "pg_ctl stop");
        let pid_file = self.pgdata.join("postmaster.pid");
        if let Ok(text) = std::fs::read_to_string(&pid_file) {
            let pid: i32 = text
                .lines()
                .next()
                .and_then(|l| l.trim().parse().ok())
                .unwrap_or(0);
            if pid <= 0 || !process_alive(pid) {
                tracing::warn!(pid, "removing the pid file of a PostgreSQL that is gone");
                std::fs::remove_file(&pid_file)?;
            }
        }
        Ok(())
    }

    /// Whether the server this value stands for still runs (its postmaster alive).
    pub fn alive(&self) -> bool {
        self.postmaster_alive()
    }

    /// Starts the server again after its postmaster died (killed, or stopped itself after a
    /// PANIC): what the dead one left is cleared and a new one started as the first was.
    /// Fails while it cannot start (its old backends still exiting, a full disk); the caller
    /// tries again.
    pub fn restart(&mut self) -> anyhow::Result<()> {
        self.clear_stale()?;
        self.launch(self.options)?;
        self.started_here = true;
        Ok(())
    }

    /// Leaves the server running when this value is dropped (for `db start`).
    pub fn detach(mut self) {
        self.stop_on_drop = false;
    }

    /// Connection URL for a database on this server (it carries the password).
    pub fn url(&self, database: &str) -> String {
        let pw = &self.password;
        match &self.listen {
            Listen::Socket(dir) => format!(
                "postgres://postgres:{pw}@localhost:{SOCKET_PORT}/{database}?host={}",
                encode(dir)
            ),
            Listen::Tcp(port) => format!("postgres://postgres:{pw}@127.0.0.1:{port}/{database}"),
        }
    }

    /// Makes the server private to this service: the `postgres` role has a password kept in
    /// `<root>/password` (readable by the service's user only), every connection must give it
    /// (scram-sha-256, no `trust`), and the socket directory is closed to other accounts. A
    /// cluster made by an earlier version with `trust` gets its password here, in single-user
    /// mode, before the server starts.
    fn secure(&mut self) -> anyhow::Result<()> {
        use std::os::unix::fs::PermissionsExt;
        let file = self.root.join("password");
        let password = match std::fs::read_to_string(&file) {
            Ok(p) if p.trim().len() >= 32 => p.trim().to_string(),
            _ => {
                let password = crate::auth::new_secret("");
                if self.running()? {
                    // Left by a crashed run of an earlier version: set the password offline.
                    self.stop()?;
                }
                self.single_user(&format!("ALTER ROLE postgres PASSWORD '{password}';"))?;
                write_private(&file, &password)?;
                password
            }
        };
        self.password = password;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600))?;
        let hba = "# Written by mahjong-league: every connection gives the password.\n\
                   local all all scram-sha-256\n\
                   host all all 127.0.0.1/32 scram-sha-256\n\
                   host all all ::1/128 scram-sha-256\n";
        let hba_file = self.pgdata.join("pg_hba.conf");
        if std::fs::read_to_string(&hba_file).ok().as_deref() != Some(hba) {
            std::fs::write(&hba_file, hba)?;
            if let Some(user) = &self.run_as {
                chown(&hba_file, user)?;
            }
            if self.running()? {
                let mut cmd = self.command("pg_ctl");
                cmd.arg("reload").arg("-D").arg(&self.pgdata);
                self.run(cmd, "pg_ctl reload")?;
            }
        }
        // The socket directory: the server's user only (root passes anyway).
        let run = self.root.join("run");
        if run.is_dir() {
            std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o700))?;
        }
        Ok(())
    }

    /// Runs one statement in single-user mode (the server must not be running).
    fn single_user(&self, statement: &str) -> anyhow::Result<()> {
        use std::io::Write;
        let mut cmd = self.command("postgres");
        cmd.arg("--single")
            .arg("-D")
            .arg(&self.pgdata)
            .arg("postgres")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped());
        let mut child = cmd.spawn().context("running postgres --single")?;
        if let Some(mut stdin) = child.stdin.take() {
            stdin.write_all(statement.as_bytes())?;
            stdin.write_all(b"\n")?;
        }
        let out = child.wait_with_output()?;
        if !out.status.success() {
            bail!(
                "setting the private PostgreSQL's password failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        Ok(())
    }

    fn command(&self, program: &str) -> Command {
        let mut exe = self.bin.join(program);
        if !exe.is_file()
            && let Ok(real) = self.bin.join("pg_ctl").canonicalize()
        {
            // The directory found may hold links to the three server programs only (as made
            // by scripts/ensure-postgres.sh); the others sit beside the real `pg_ctl`.
            exe = real.with_file_name(program);
        }
        let mut cmd = match &self.run_as {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.arg("-u").arg(user).arg("--").arg(exe);
                c
            }
            None => Command::new(exe),
        };
        // PostgreSQL changes into its own directories; start from one it can read.
        cmd.current_dir(&self.root);
        cmd.env_remove("PGDATA").env("LC_ALL", "C");
        cmd
    }

    fn run(&self, mut cmd: Command, what: &str) -> anyhow::Result<std::process::Output> {
        let out = cmd.output().with_context(|| format!("running {what}"))?;
        Ok(out)
    }

    fn init(&self) -> anyhow::Result<()> {
        let version_file = self.pgdata.join("PG_VERSION");
        if version_file.is_file() {
            let have = std::fs::read_to_string(&version_file)?.trim().to_string();
            let out = self.run(
                {
                    let mut c = self.command("postgres");
                    c.arg("--version");
                    c
                },
                "postgres --version",
            )?;
            let text = String::from_utf8_lossy(&out.stdout);
            let major = text
                .split_whitespace()
                .find_map(|w| {
                    w.split('.')
                        .next()
                        .filter(|m| m.chars().all(|c| c.is_ascii_digit()) && !m.is_empty())
                })
                .unwrap_or_default()
                .to_string();
            if !major.is_empty() && major != have {
                bail!(
                    "the data in {} was made by PostgreSQL {have}, but the binaries in {} are PostgreSQL {major}; \
                     install PostgreSQL {have}, or move the data directory aside to start afresh",
                    self.pgdata.display(),
                    self.bin.display()
                );
            }
            return Ok(());
        }
        // A directory without PG_VERSION is a half-finished initdb: it holds no data.
        if self.pgdata.exists() {
            std::fs::remove_dir_all(&self.pgdata)?;
        }
        if let Some(user) = &self.run_as {
            std::fs::create_dir_all(&self.pgdata)?;
            chown(&self.root, user)?;
        }
        tracing::info!(pgdata = %self.pgdata.display(), "creating the private PostgreSQL cluster");
        // The password goes to initdb in a file only the server's user reads, removed after.
        let password = crate::auth::new_secret("");
        let pwfile = self.root.join("initdb-password");
        write_private(&pwfile, &password)?;
        if let Some(user) = &self.run_as {
            chown(&pwfile, user)?;
        }
        let mut cmd = self.command("initdb");
        cmd.arg("-D")
            .arg(&self.pgdata)
            .args([
                "-U",
                "postgres",
                "--auth=scram-sha-256",
                "--encoding=UTF8",
                "--no-locale",
            ])
            .arg(format!("--pwfile={}", pwfile.display()));
        let out = self.run(cmd, "initdb");
        std::fs::remove_file(&pwfile).ok();
        let out = out?;
        if !out.status.success() {
            bail!(
                "initdb failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        write_private(&self.root.join("password"), &password)?;
        Ok(())
    }

    /// Whether a server is running on this data directory.
    fn running(&self) -> anyhow::Result<bool> {
        let mut cmd = self.command("pg_ctl");
        cmd.arg("status").arg("-D").arg(&self.pgdata);
        Ok(self.run(cmd, "pg_ctl status")?.status.success())
    }

    fn launch(&self, options: StartOptions) -> anyhow::Result<()> {
        let mut opts = match &self.listen {
            Listen::Socket(dir) => format!(
                "-c listen_addresses='' -c unix_socket_directories='{}' -p {SOCKET_PORT}",
                dir.display()
            ),
            Listen::Tcp(port) => {
                format!("-c listen_addresses='127.0.0.1' -c unix_socket_directories='' -p {port}")
            }
        };
        opts.push_str(" -c max_connections=200");
        if options.throwaway {
            opts.push_str(" -c fsync=off -c synchronous_commit=off -c full_page_writes=off");
        }
        let log = self.root.join("postgres.log");
        let mut cmd = self.command("pg_ctl");
        cmd.arg("start")
            .arg("-D")
            .arg(&self.pgdata)
            .arg("-l")
            .arg(&log)
            .args(["-w", "-t", "60", "-o"])
            .arg(opts);
        let out = self.run(cmd, "pg_ctl start")?;
        if !out.status.success() {
            let tail = std::fs::read_to_string(&log)
                .map(|l| {
                    l.lines()
                        .rev()
                        .take(8)
                        .collect::<Vec<_>>()
                        .into_iter()
                        .rev()
                        .collect::<Vec<_>>()
                        .join("\n")
                })
                .unwrap_or_default();
            bail!(
                "the private PostgreSQL did not start: {}\n{tail}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        tracing::info!(pgdata = %self.pgdata.display(), "private PostgreSQL started");
        Ok(())
    }

    /// Stops the server if this process owns it (started it, or adopted the one a crashed run
    /// left in its locked data directory).
    pub fn finish(&mut self) -> anyhow::Result<()> {
        self.stop_on_drop = false;
        if self.started_here {
            self.stop()?;
        }
        Ok(())
    }

    /// Stops the server (fast shutdown: sessions end, committed data is kept).
    pub fn stop(&mut self) -> anyhow::Result<()> {
        self.stop_on_drop = false;
        let mut cmd = self.command("pg_ctl");
        cmd.arg("stop")
            .arg("-D")
            .arg(&self.pgdata)
            .args(["-m", "fast", "-w", "-t", "60"]);
        let out = self.run(cmd, "pg_ctl stop")?;
        if !out.status.success() && self.running()? {
            bail!(
                "pg_ctl stop failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        tracing::info!("private PostgreSQL stopped");
        Ok(())
    }

    /// Stops the server kept under `data_dir`, if one runs.
    pub fn stop_in(data_dir: &Path) -> anyhow::Result<()> {
        let root = data_dir.canonicalize()?.join("postgres");
        let lock = lock_data_dir(&data_dir.canonicalize()?)?;
        let pg = EmbeddedPostgres {
            _lock: Some(lock),
            started_here: true,
            bin: find_binaries()?,
            password: String::new(),
            pgdata: root.join("data"),
            listen: Listen::Tcp(0),
            run_as: is_root().then(|| "postgres".to_string()),
            root,
            stop_on_drop: false,
            options: StartOptions::default(),
        };
        let mut pg = pg;
        if pg.running()? {
            pg.stop()?;
        }
        Ok(())
    }
}

impl Drop for EmbeddedPostgres {
    fn drop(&mut self) {
        if self.stop_on_drop
            && self.started_here
            && let Err(e) = self.stop()
        {
            tracing::error!(error = %e, "stopping the private PostgreSQL");
        }
    }
}

/// Whether a process runs (a zombie, dead but not reaped, does not).
fn process_alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command name in parentheses: `Z` is a zombie.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')),
        // SAFETY: kill with signal 0 only checks that the process exists.
        Err(_) => unsafe { libc::kill(pid, 0) == 0 },
    }
}

/// Takes the data directory for this process alone (an exclusive `flock` on
/// `<data-dir>/instance.lock`, released when the process ends however it ends); a second
/// instance is told which process holds it.
fn lock_data_dir(data_dir: &Path) -> anyhow::Result<std::fs::File> {
    use std::io::{Read, Seek, Write};
    use std::os::fd::AsRawFd;
    let path = data_dir.join("instance.lock");
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .with_context(|| format!("opening {}", path.display()))?;
    // SAFETY: flock on a descriptor this function owns; no memory is involved.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        let mut holder = String::new();
        file.read_to_string(&mut holder).ok();
        bail!(
            "another mahjong-league instance (pid {}) is using the data directory {}; stop it first, or give this one its own --data-dir",
            holder.trim(),
            data_dir.display()
        );
    }
    file.set_len(0)?;
    file.rewind()?;
    write!(file, "{}", std::process::id())?;
    Ok(file)
}

/// Writes a secret to a file that only its owner can read.
fn write_private(path: &Path, secret: &str) -> anyhow::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
        .with_context(|| format!("writing {}", path.display()))?;
    f.write_all(secret.as_bytes())?;
    Ok(())
}

fn free_port() -> anyhow::Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(listener.local_addr()?.port())
}

fn chown(path: &Path, user: &str) -> anyhow::Result<()> {
    let status = Command::new("chown")
        .arg("-R")
        .arg(format!("{user}:"))
        .arg(path)
        .status()
        .context("running chown")?;
    if !status.success() {
        bail!("could not give {} to the {user} user", path.display());
    }
    Ok(())
}

/// As root, PostgreSQL runs as the `postgres` system user: it must own its directory and be
/// able to reach it.
fn prepare_for_postgres_user(root: &Path) -> anyhow::Result<()> {
    let exists = Command::new("id")
        .args(["-u", "postgres"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !exists {
        bail!(
            "running as root, the private PostgreSQL must run as the `postgres` system user, and there is none. \
             Install PostgreSQL from the system packages (it creates that user), or run the service as an ordinary user"
        );
    }
    chown(root, "postgres")?;
    // Every directory above must let others pass through (execute bit only; nothing is listed).
    use std::os::unix::fs::PermissionsExt;
    for dir in root.ancestors().skip(1) {
        let meta = std::fs::metadata(dir)?;
        let mode = meta.permissions().mode();
        if mode & 0o001 == 0 {
            tracing::warn!(dir = %dir.display(), "allowing other users to pass through this directory (o+x) so PostgreSQL can reach its data");
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode | 0o001))?;
        }
    }
    Ok(())
}
