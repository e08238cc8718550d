//! Driving the system's headless Chromium over WebDriver (Debian's chromium and chromedriver),
//! shared by the browser tests: start a browser, find, tap and type as a person would, save
//! screenshots, count taps and scrolls, and cut the network between the browser and the service.
#![allow(dead_code)]

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use fantoccini::key::Key;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::json;

pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
pub const CHROMIUM: &str = "/usr/bin/chromium";
pub const WIDTHS: [(&str, u32, u32); 2] = [("phone", 390, 844), ("desktop", 1280, 900)];

/// A chromedriver of the test's own, in a process group of its own with the Chromium it starts,
/// and the browser's profile folder. Dropped — when the test passes, fails or panics — it closes
/// the browser through the driver, then stops whatever is left of the group and of the profile's
/// processes, and removes the folder.
pub struct Driver {
    child: Child,
    pub url: String,
    profile: std::path::PathBuf,
}

impl Drop for Driver {
    fn drop(&mut self) {
        // Through the driver: chromedriver's /shutdown ends its sessions, which quits Chromium.
        shutdown(&self.url);
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while std::time::Instant::now() < deadline {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        // Whatever is left: the group (the driver, Chromium and its helpers), then any process
        // still holding the profile (a helper that left the group).
        let group = self.child.id() as libc::pid_t;
        // SAFETY: killpg only sends a signal to the group this test made.
        unsafe {
            libc::killpg(group, libc::SIGKILL);
        }
        let _ = self.child.wait();
        kill_holding(&self.profile);
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// Asks a chromedriver to shut down (closing its browsers), waiting at most a few seconds.
fn shutdown(url: &str) {
    use std::io::{Read, Write};
    let Some(addr) = url
        .strip_prefix("http://")
        .and_then(|a| a.parse::<std::net::SocketAddr>().ok())
    else {
        return;
    };
    let Ok(mut s) = std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(1)) else {
        return;
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
    let _ = s.write_all(b"GET /shutdown HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    let _ = s.read_to_end(&mut Vec::new());
}

/// Kills every process whose command line names `path` (a browser profile's folder).
fn kill_holding(path: &std::path::Path) {
    let needle = path.to_string_lossy().into_owned();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return;
    };
    for e in entries.flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<libc::pid_t>() else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(e.path().join("cmdline")) else {
            continue;
        };
        if String::from_utf8_lossy(&cmdline).contains(&needle) {
            // SAFETY: a signal to a process found holding this test's own profile folder.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
    }
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub async fn browser() -> (Driver, Client) {
    assert!(
        std::path::Path::new(CHROMEDRIVER).exists() && std::path::Path::new(CHROMIUM).exists(),
        "browser tests need Debian's chromium and chromium-driver: `make test` installs them"
    );
    use std::os::unix::process::CommandExt;
    let port = free_port();
    let child = Command::new(CHROMEDRIVER)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .expect("start chromedriver");
    let profile = tempfile::Builder::new()
        .prefix("mahjong-league-chromium-")
        .tempdir()
        .unwrap()
        .keep();
    let driver = Driver {
        child,
        url: format!("http://127.0.0.1:{port}"),
        profile: profile.clone(),
    };
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        json!({
            "binary": CHROMIUM,
            "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
                     "--disable-dev-shm-usage", format!("--user-data-dir={}", profile.display())]
        }),
    );
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    let mut last = None;
    for _ in 0..50 {
        match ClientBuilder::new(connector.clone())
            .capabilities(caps.clone())
            .connect(&driver.url)
            .await
        {
            Ok(c) => return (driver, c),
            Err(e) => last = Some(e),
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("chromedriver did not start: {last:?}");
}

/// Saves the current page at phone and desktop widths, then returns to desktop. Checks on the
/// way that every control on the page has a label a screen reader can announce.
pub async fn shots(c: &Client, name: &str) {
    let unlabelled = c
        .execute(
            "return Array.from(document.querySelectorAll('input:not([type=hidden]), select, textarea, button'))
               .filter(e => e.tagName === 'BUTTON'
                  ? !(e.textContent.trim() || e.getAttribute('aria-label'))
                  : !((e.labels && e.labels.length) || e.getAttribute('aria-label') || e.getAttribute('aria-labelledby')))
               .map(e => e.outerHTML.slice(0, 160));",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(unlabelled, json!([]), "controls without a label on {name}");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    for (label, w, h) in WIDTHS {
        c.set_window_size(w, h).await.unwrap();
        let png = c.screenshot().await.unwrap();
        assert!(png.starts_with(b"\x89PNG"), "a PNG screenshot");
        std::fs::write(dir.join(format!("{name}-{label}.png")), png).unwrap();
    }
    c.set_window_size(1280, 900).await.unwrap();
}

/// What is wrong with the page's charts at phone (390 × 844) and tablet (820 × 1180) sizes:
/// a chart wider than the screen, a mark (bar, line, dot) out of its frame's view or of no
/// size, fewer or more marks than the values it names (`data-marks`), or two labels on top of
/// each other. Empty when every chart is whole. Returns to desktop.
#[allow(dead_code)]
pub async fn charts_whole(c: &Client) -> Vec<String> {
    let mut wrong = Vec::new();
    for (label, w, h) in [("390 px", 390, 844), ("820 px", 820, 1180)] {
        c.set_window_size(w, h).await.unwrap();
        let found = c
            .execute(
                "const out = [];
                 document.querySelectorAll('figure.chart svg').forEach((svg, n) => {
                   const frame = svg.closest('figure').getBoundingClientRect();
                   const box = svg.getBoundingClientRect();
                   if (box.right > window.innerWidth + 0.5 || box.left < -0.5) out.push('chart ' + n + ' is wider than the screen');
                   const want = svg.dataset.marks;
                   if (want !== undefined && String(svg.querySelectorAll('.mark').length) !== want) out.push('chart ' + n + ' names ' + want + ' values but marks ' + svg.querySelectorAll('.mark').length);
                   svg.querySelectorAll('rect.bar, polyline.series, .mark').forEach(m => {
                     const r = m.getBoundingClientRect();
                     if (r.width < 0.5 && r.height < 0.5) out.push('chart ' + n + ': a mark of no size');
                     if (r.left < frame.left - 0.5 || r.right > frame.right + 0.5) out.push('chart ' + n + ': a mark out of view (' + Math.round(r.left) + '..' + Math.round(r.right) + ' in ' + Math.round(frame.left) + '..' + Math.round(frame.right) + ')');
                   });
                   const texts = Array.from(svg.querySelectorAll('text')).map(t => [t.textContent, t.getBoundingClientRect()]);
                   texts.forEach(([t, r]) => { if (r.left < frame.left - 0.5 || r.right > frame.right + 0.5) out.push('chart ' + n + ': “' + t + '” out of view'); });
                   for (let i = 0; i < texts.length; i++) for (let j = i + 1; j < texts.length; j++) {
                     const [a, ra] = texts[i], [b, rb] = texts[j];
                     const overlap = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left) > 0.5
                       && Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top) > 0.5;
                     if (overlap) out.push('chart ' + n + ': “' + a + '” over “' + b + '”');
                   }
                 });
                 return out;",
                vec![],
            )
            .await
            .unwrap();
        for f in found.as_array().into_iter().flatten() {
            wrong.push(format!("{label}: {}", f.as_str().unwrap_or_default()));
        }
    }
    c.set_window_size(1280, 900).await.unwrap();
    wrong
}

/// How many pages a PDF holds (its `/Type /Page` objects, not `/Pages`).
fn pdf_pages(pdf: &[u8]) -> usize {
    let text = String::from_utf8_lossy(pdf);
    text.match_indices("/Type /Page")
        .filter(|(at, m)| !text[at + m.len()..].starts_with('s'))
        .count()
}

/// The page printed to PDF on `size`, and how many pages that took.
#[allow(dead_code)]
pub async fn printed_pages(c: &Client, size: fantoccini::wd::PrintSize) -> usize {
    let pdf = c
        .print(
            fantoccini::wd::PrintConfiguration::builder()
                .size(size)
                .build()
                .unwrap(),
        )
        .await
        .unwrap();
    pdf_pages(&pdf)
}

pub async fn text_of(c: &Client, css: &str) -> String {
    c.find(Locator::Css(css))
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

pub async fn wait_text(c: &Client, css: &str, want: &str) -> String {
    for _ in 0..100 {
        if let Ok(e) = c.find(Locator::Css(css)).await
            && let Ok(t) = e.text().await
            && t.contains(want)
        {
            return t;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let said = match c.find(Locator::Css(css)).await {
        Ok(e) => e.text().await.unwrap_or_default(),
        Err(_) => "nothing".into(),
    };
    let main = text_of(c, "main").await;
    panic!("`{css}` never said `{want}`; it says `{said}`. The page says: {main}");
}

pub async fn click(c: &Client, css: &str) {
    let el = c
        .find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("no `{css}`: {e}"));
    // As a person would: bring it to the middle of the screen (clear of a sticky bar), then tap.
    c.execute(
        "arguments[0].scrollIntoView({block: 'center', inline: 'center'});",
        vec![serde_json::to_value(&el).unwrap()],
    )
    .await
    .unwrap();
    el.click().await.unwrap();
}

pub async fn fill(c: &Client, css: &str, text: &str) {
    c.find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("no `{css}`: {e}"))
        .send_keys(text)
        .await
        .unwrap();
}

/// Chromium's network switch (a chromedriver extension command): offline makes every request
/// of the page fail, as on a tablet that lost its Wi-Fi.
#[derive(Debug)]
pub struct Network {
    pub offline: bool,
}

impl fantoccini::wd::WebDriverCompatibleCommand for Network {
    fn endpoint(
        &self,
        base: &url::Url,
        session: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base.join(&format!(
            "session/{}/chromium/network_conditions",
            session.unwrap_or_default()
        ))
    }

    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        let body = json!({"network_conditions": {"offline": self.offline, "latency": 0,
                          "download_throughput": -1, "upload_throughput": -1}});
        (http::Method::POST, Some(body.to_string()))
    }
}

/// Presses Tab until the focused element matches `css`; fails if it never does.
pub async fn tab_to(c: &Client, css: &str) {
    for _ in 0..80 {
        let hit = c
            .execute(
                "return !!document.activeElement && document.activeElement.matches(arguments[0]);",
                vec![json!(css)],
            )
            .await
            .unwrap();
        if hit == json!(true) {
            return;
        }
        c.active_element()
            .await
            .unwrap()
            .send_keys(&String::from(char::from(Key::Tab)))
            .await
            .unwrap();
    }
    panic!("Tab never reached `{css}`");
}

/// Types into the focused element.
pub async fn type_keys(c: &Client, text: &str) {
    c.active_element()
        .await
        .unwrap()
        .send_keys(text)
        .await
        .unwrap();
}

/// Waits until the scoring screen's Save is enabled (the engine accepted the game), then taps it.
pub async fn save(c: &Client) {
    wait_for(c, "#save:not([disabled])").await;
    click(c, "#save").await;
}

/// Waits until an element matching `css` exists.
pub async fn wait_for(c: &Client, css: &str) {
    for _ in 0..100 {
        if c.find(Locator::Css(css)).await.is_ok() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let main = text_of(c, "main").await;
    panic!("`{css}` never appeared. The page says: {main}");
}

/// Logs in through the login form.
pub async fn log_in(c: &Client, base: &str, email: &str, password: &str, next: &str) {
    c.goto(&format!("{base}/login?next={next}")).await.unwrap();
    fill(c, "#email", email).await;
    fill(c, "#password", password).await;
    click(c, "form[action='/login'] button[type=submit]").await;
    wait_text(c, ".flash.ok", "Welcome back").await;
}

/// Taps as a person does, counting: before each tap, if the control is not on screen (or is
/// under the page's fixed score bar), the person scrolls it into view, and that is a scroll;
/// one the bar covered while it was on the screen is counted as `blocked` as well.
pub struct Hands<'a> {
    pub c: &'a Client,
    pub taps: u32,
    pub scrolls: u32,
    pub blocked: u32,
}

impl<'a> Hands<'a> {
    pub fn new(c: &'a Client) -> Hands<'a> {
        Hands {
            c,
            taps: 0,
            scrolls: 0,
            blocked: 0,
        }
    }

    /// Where `css` is: `seen` (fully on screen and not under the score bar), `under the bar`
    /// (on the screen, but the bar covers some of it) or `off` the screen.
    async fn place(&self, css: &str) -> String {
        let seen = self
            .c
            .execute(
                "const el = document.querySelector(arguments[0]);
                 if (!el) throw new Error('no ' + arguments[0]);
                 const r = el.getBoundingClientRect();
                 const bar = document.getElementById('score-bar');
                 const bottom = bar && !bar.contains(el) ? bar.getBoundingClientRect().top : window.innerHeight;
                 const across = r.width > 0 && r.height > 0 && r.left >= 0 && r.right <= window.innerWidth + 0.5;
                 if (across && r.top >= 0 && r.bottom <= bottom + 0.5) return 'seen';
                 if (across && r.top >= 0 && r.bottom <= window.innerHeight + 0.5) return 'under the bar';
                 return 'off';",
                vec![json!(css)],
            )
            .await
            .unwrap_or_else(|e| panic!("`{css}`: {e}"));
        seen.as_str().unwrap_or_default().to_string()
    }

    /// Whether `css` is fully on screen and not hidden under the score bar.
    pub async fn on_screen(&self, css: &str) -> bool {
        self.place(css).await == "seen"
    }

    async fn reach(&mut self, css: &str) {
        let place = self.place(css).await;
        if place != "seen" {
            self.scrolls += 1;
            if place == "under the bar" {
                self.blocked += 1;
            }
            self.c
                .execute(
                    "document.querySelector(arguments[0]).scrollIntoView({block: 'center'});",
                    vec![json!(css)],
                )
                .await
                .unwrap();
        }
    }

    pub async fn tap(&mut self, css: &str) {
        self.reach(css).await;
        self.taps += 1;
        click(self.c, css).await;
    }

    /// Picks an option of a `<select>`: a tap to open it and one on the option.
    pub async fn choose(&mut self, css: &str, value: &str) {
        self.reach(css).await;
        self.taps += 2;
        self.c
            .find(Locator::Css(css))
            .await
            .unwrap()
            .select_by_value(value)
            .await
            .unwrap();
    }

    /// Taps a text box and types (the typing is not counted as taps).
    pub async fn type_into(&mut self, css: &str, text: &str) {
        self.tap(css).await;
        type_keys(self.c, text).await;
    }
}

/// A switch between the browser and the service: open, it passes bytes both ways; shut, it
/// drops every connection and refuses new ones, as when a tablet loses the club's Wi-Fi.
pub struct Gate {
    pub address: String,
    open: Arc<AtomicBool>,
    /// Where it leads: a TCP address, or a Unix socket when one is given.
    upstream: Arc<std::sync::Mutex<(String, Option<String>)>>,
    conns: Arc<std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>>>,
    accept: tokio::task::JoinHandle<()>,
}

impl Gate {
    /// A gate to a TCP address (`http://host:port` or `host:port`).
    pub async fn to(upstream: &str) -> Gate {
        let upstream = upstream
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .to_string();
        Gate::open_to(upstream, None).await
    }

    /// A gate to the test PostgreSQL server, on a TCP port of its own whether the server listens
    /// on TCP or on a Unix socket (`?host=/dir` in `TEST_DATABASE_URL`, as CI's throwaway one).
    pub async fn to_test_database() -> Gate {
        let url = url::Url::parse(&std::env::var("TEST_DATABASE_URL").unwrap()).unwrap();
        let port = url.port().unwrap_or(5432);
        let socket = url
            .query_pairs()
            .find(|(k, _)| k == "host")
            .map(|(_, dir)| format!("{dir}/.s.PGSQL.{port}"));
        let tcp = format!("{}:{port}", url.host_str().unwrap_or("127.0.0.1"));
        Gate::open_to(tcp, socket).await
    }

    /// The gate's `host:port`.
    pub fn host(&self) -> &str {
        self.address.trim_start_matches("http://")
    }

    async fn open_to(upstream: String, socket: Option<String>) -> Gate {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = format!("http://{}", listener.local_addr().unwrap());
        let open = Arc::new(AtomicBool::new(true));
        let conns: Arc<std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>>> = Arc::default();
        let upstream = Arc::new(std::sync::Mutex::new((upstream, socket)));
        let (o, cs, to) = (open.clone(), conns.clone(), upstream.clone());
        let accept = tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                if !o.load(Ordering::SeqCst) {
                    drop(inbound);
                    continue;
                }
                let (up, socket) = to.lock().unwrap().clone();
                let task = tokio::spawn(async move {
                    match socket {
                        Some(path) => {
                            if let Ok(mut outbound) = tokio::net::UnixStream::connect(&path).await {
                                let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound)
                                    .await;
                            }
                        }
                        None => {
                            if let Ok(mut outbound) = tokio::net::TcpStream::connect(&up).await {
                                let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound)
                                    .await;
                            }
                        }
                    }
                });
                cs.lock().unwrap().push(task);
            }
        });
        Gate {
            address,
            open,
            upstream,
            conns,
            accept,
        }
    }

    /// Leads to another TCP address from now on (as a database's address switched to its
    /// standby after a failover): the connections open through it are dropped.
    pub fn switch_to(&self, upstream: &str) {
        *self.upstream.lock().unwrap() = (upstream.to_string(), None);
        for t in self.conns.lock().unwrap().drain(..) {
            t.abort();
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.address)
    }

    pub fn set_open(&self, open: bool) {
        self.open.store(open, Ordering::SeqCst);
        if !open {
            for t in self.conns.lock().unwrap().drain(..) {
                t.abort();
            }
        }
    }
}

impl Drop for Gate {
    fn drop(&mut self) {
        self.accept.abort();
        self.set_open(false);
    }
}

/// Runs axe-core (installed from npm by `scripts/ensure-axe.sh`) on the current page: how many
/// rules passed (so a run that checked nothing is seen) and every violation, of any impact (minor
/// ones too: the league chart's `aria-allowed-role` was one), each with its impact.
pub async fn axe(c: &Client) -> (u64, serde_json::Value) {
    static SOURCE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let source = SOURCE.get_or_init(|| {
        std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("target/axe/node_modules/axe-core/axe.min.js"),
        )
        .expect("axe-core is installed by scripts/ensure-axe.sh (`make test` runs it)")
    });
    let run = format!(
        "{source}\n;const done = arguments[arguments.length - 1];
         axe.run(document, {{resultTypes: ['violations']}}).then(r => done({{rules: r.passes.length, found: r.violations
           .map(v => v.impact + ' ' + v.id + ': ' + v.nodes.map(n => n.target.join(' ')).slice(0, 3).join(', '))}}));"
    );
    let found = c.execute_async(&run, vec![]).await.unwrap();
    (found["rules"].as_u64().unwrap_or(0), found["found"].clone())
}
