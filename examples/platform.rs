//! Load client for `scripts/bench-platform.sh`: many clubs' leagues on several instances of the
//! service sharing one PostgreSQL.
//!
//! `--cold`: reads each league of `--leagues` once (as after a restart: nothing in memory),
//! `--readers` at a time, spread over the instances, and prints the latencies.
//!
//! Otherwise a mixed load: `--streams` event streams opened on the leagues that get games
//! (spread over the instances), `--readers` clients reading the standings of random leagues
//! of `--leagues` on random instances, and the games of `--games` (lines "table winner league
//! token", a table's games in order) sent at `--rate` a second to the instances in turn, as
//! one scorer per table sends them. Without `--games` the readers run for `--seconds`. Prints
//! reads, submissions (p50, p99, max) and how long after its answer each game reached the
//! streams of its league.
//!
//! Clients come from many loopback addresses, as real ones come from many addresses: 32 event
//! streams an address (the service's default cap is 64), each reader and each scorer from an
//! address of its own. A request refused or failed in any phase stops the run with the phase
//! (`--phase`) named and a non-zero exit.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Default)]
struct Args {
    urls: Vec<String>,
    leagues: String,
    games: Option<String>,
    rate: f64,
    readers: usize,
    seconds: u64,
    streams: usize,
    cold: bool,
    phase: String,
}

fn args() -> Args {
    let mut a = Args {
        rate: 100.0,
        readers: 8,
        seconds: 30,
        phase: "the run".into(),
        ..Args::default()
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "--cold" {
            a.cold = true;
            continue;
        }
        let value = it.next().unwrap_or_default();
        match flag.as_str() {
            "--urls" => a.urls = value.split(',').map(str::to_string).collect(),
            "--leagues" => a.leagues = value,
            "--games" => a.games = Some(value),
            "--rate" => a.rate = value.parse().expect("--rate: games a second"),
            "--readers" => a.readers = value.parse().expect("--readers: a count"),
            "--seconds" => a.seconds = value.parse().expect("--seconds: a count"),
            "--streams" => a.streams = value.parse().expect("--streams: a count"),
            "--phase" => a.phase = value,
            other => panic!("unknown flag {other}"),
        }
    }
    assert!(!a.urls.is_empty(), "--urls: the instances, comma-separated");
    a
}

/// Event streams opened from one address (half the service's default cap).
const STREAMS_PER_ADDRESS: usize = 32;

/// The `i`th loopback address of block `block` (127.block.x.y, y never 0 or 255).
fn source(block: u8, i: usize) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(
        127,
        block,
        ((i / 250) % 256) as u8,
        (1 + i % 250) as u8,
    ))
}

/// A client whose connections come from `from`.
fn client_from(from: IpAddr, idle: usize) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(from)
        .pool_max_idle_per_host(idle)
        .build()
        .unwrap()
}

/// Stops the run: something was refused or failed in `phase`.
fn fail(phase: &str, what: String) -> ! {
    eprintln!("FAILED in {phase}: {what}");
    std::process::exit(1);
}

/// The value below which a share `p` of the sorted `ms` lie.
fn at(ms: &[f64], p: f64) -> f64 {
    ms.get(((ms.len() as f64 * p) as usize).min(ms.len().saturating_sub(1)))
        .copied()
        .unwrap_or(0.0)
}

fn percentiles(what: &str, mut ms: Vec<f64>, errors: usize, elapsed: Duration) {
    ms.sort_by(f64::total_cmp);
    println!(
        "{what}: {} answered, {errors} errors, {:.0}/s, p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        ms.len(),
        ms.len() as f64 / elapsed.as_secs_f64(),
        at(&ms, 0.5),
        at(&ms, 0.99),
        ms.last().copied().unwrap_or(0.0)
    );
}

/// Small xorshift: which league and instance a reader asks next (no dependency for it).
struct Pick(u64);

impl Pick {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

struct Game {
    table: i64,
    winner: i64,
    league: i64,
    token: String,
    number: i32,
}

fn read_games(path: &str) -> Vec<Game> {
    let mut numbers = HashMap::<i64, i32>::new();
    std::fs::read_to_string(path)
        .expect("the games file")
        .lines()
        .filter_map(|l| {
            let mut p = l.split_whitespace();
            let table = p.next()?.parse().ok()?;
            let winner = p.next()?.parse().ok()?;
            let league = p.next()?.parse().ok()?;
            let token = p.next()?.to_string();
            let number = numbers.entry(table).or_insert(0);
            *number += 1;
            Some(Game {
                table,
                winner,
                league,
                token,
                number: *number,
            })
        })
        .collect()
}

/// When each game was answered, by game id.
type Answered = Arc<Mutex<HashMap<i64, Instant>>>;

/// Opens `n` streams on `leagues` in turn, over the instances in turn; each reads until `stop`
/// and gives back each game it saw (its id) with when it arrived.
async fn open_streams(
    a: &Args,
    leagues: &[i64],
    stop: Arc<AtomicBool>,
) -> Vec<tokio::task::JoinHandle<Vec<(i64, Instant)>>> {
    let mut streams = Vec::new();
    let mut client = client_from(source(10, 0), 0);
    for n in 0..a.streams {
        if n % STREAMS_PER_ADDRESS == 0 {
            client = client_from(source(10, n / STREAMS_PER_ADDRESS), 0);
        }
        let from = source(10, n / STREAMS_PER_ADDRESS);
        let league = leagues[n % leagues.len()];
        let url = &a.urls[(n / leagues.len()) % a.urls.len()];
        let mut res = match client
            .get(format!("{url}/api/v1/leagues/{league}/events"))
            .send()
            .await
        {
            Ok(res) => res,
            Err(e) => fail(&a.phase, format!("stream {n} from {from}: {e}")),
        };
        if !res.status().is_success() {
            fail(
                &a.phase,
                format!(
                    "stream {n} from {from}: {} {}",
                    res.status(),
                    res.text().await.unwrap_or_default()
                ),
            );
        }
        let stop = stop.clone();
        streams.push(tokio::spawn(async move {
            let (mut seen, mut buffer) = (Vec::new(), String::new());
            while !stop.load(Ordering::Relaxed) {
                let chunk =
                    match tokio::time::timeout(Duration::from_millis(500), res.chunk()).await {
                        Ok(Ok(Some(c))) => c,
                        Ok(_) => break,
                        Err(_) => continue,
                    };
                let now = Instant::now();
                buffer.push_str(&String::from_utf8_lossy(&chunk));
                while let Some(end) = buffer.find("\n\n") {
                    let block: String = buffer.drain(..end + 2).collect();
                    if !block.contains("event: game.recorded") {
                        continue;
                    }
                    let id = block
                        .lines()
                        .find_map(|l| l.strip_prefix("data: "))
                        .and_then(|d| serde_json::from_str::<serde_json::Value>(d).ok())
                        .and_then(|v| v["data"]["id"].as_i64());
                    seen.push((id.unwrap_or(-1), now));
                }
            }
            seen
        }));
    }
    streams
}

/// One standings read: how long it took in ms, or what went wrong.
async fn read_standings(client: &reqwest::Client, url: &str) -> Result<f64, String> {
    let t = Instant::now();
    let r = client
        .get(url)
        .send()
        .await
        .map_err(|e| format!("{url}: {e}"))?;
    if !r.status().is_success() {
        return Err(format!(
            "{url}: {} {}",
            r.status(),
            r.text().await.unwrap_or_default()
        ));
    }
    r.bytes().await.map_err(|e| format!("{url}: {e}"))?;
    Ok(t.elapsed().as_secs_f64() * 1e3)
}

/// Fails the run when any read or game was refused or failed (`first`: the first of them).
fn none_refused(phase: &str, what: &str, errors: usize, first: &Mutex<Option<String>>) {
    if errors > 0 {
        let first = first.lock().unwrap().clone().unwrap_or_default();
        fail(
            phase,
            format!("{errors} {what} refused or failed; the first: {first}"),
        );
    }
}

/// Each league read once, `readers` at a time.
async fn cold(a: &Args, leagues: Vec<i64>) {
    let next = Arc::new(AtomicUsize::new(0));
    let first_error: Arc<Mutex<Option<String>>> = Arc::default();
    let leagues = Arc::new(leagues);
    let errors = Arc::new(AtomicUsize::new(0));
    let start = Instant::now();
    let mut tasks = Vec::new();
    for r in 0..a.readers {
        let (client, next, leagues, errors, urls, first_error) = (
            client_from(source(20, r), 64),
            next.clone(),
            leagues.clone(),
            errors.clone(),
            a.urls.clone(),
            first_error.clone(),
        );
        tasks.push(tokio::spawn(async move {
            let mut ms = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(league) = leagues.get(i) else { break };
                let url = format!("{}/api/v1/leagues/{league}/standings", urls[i % urls.len()]);
                match read_standings(&client, &url).await {
                    Ok(took) => ms.push(took),
                    Err(e) => {
                        errors.fetch_add(1, Ordering::Relaxed);
                        first_error.lock().unwrap().get_or_insert(e);
                    }
                }
            }
            ms
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap());
    }
    percentiles(
        "standings, each league's first read",
        all,
        errors.load(Ordering::Relaxed),
        start.elapsed(),
    );
    none_refused(
        &a.phase,
        "reads",
        errors.load(Ordering::Relaxed),
        &first_error,
    );
}

#[tokio::main]
async fn main() {
    let a = args();
    let leagues: Vec<i64> = std::fs::read_to_string(&a.leagues)
        .expect("the leagues file")
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect();
    assert!(!leagues.is_empty(), "no leagues in {}", a.leagues);
    if a.cold {
        return cold(&a, leagues).await;
    }
    let games = a.games.as_deref().map(read_games).unwrap_or_default();
    let mut playing: Vec<i64> = games.iter().map(|g| g.league).collect();
    playing.sort_unstable();
    playing.dedup();
    // The game events the streams should see: each game once for each stream on its league
    // (streams go to the playing leagues in turn).
    let mut on_league = HashMap::<i64, usize>::new();
    for n in 0..a.streams {
        if !playing.is_empty() {
            *on_league.entry(playing[n % playing.len()]).or_default() += 1;
        }
    }
    let expected: usize = games
        .iter()
        .map(|g| on_league.get(&g.league).copied().unwrap_or(0))
        .sum();

    let answered: Answered = Arc::default();
    let stop_streams = Arc::new(AtomicBool::new(false));
    let streams = if a.streams > 0 && !playing.is_empty() {
        open_streams(&a, &playing, stop_streams.clone()).await
    } else {
        Vec::new()
    };
    if !streams.is_empty() {
        println!(
            "{} event streams open on {} leagues over {} instances",
            streams.len(),
            playing.len(),
            a.urls.len()
        );
    }

    let first_error: Arc<Mutex<Option<String>>> = Arc::default();
    let start = Instant::now();
    let writing = Arc::new(AtomicBool::new(!games.is_empty()));
    let deadline = start + Duration::from_secs(a.seconds);
    let read_errors = Arc::new(AtomicUsize::new(0));
    let leagues = Arc::new(leagues);
    let mut readers = Vec::new();
    for r in 0..a.readers {
        let (client, urls, leagues, errors, writing, first_error) = (
            client_from(source(20, r), 64),
            a.urls.clone(),
            leagues.clone(),
            read_errors.clone(),
            writing.clone(),
            first_error.clone(),
        );
        let mixed = !games.is_empty();
        readers.push(tokio::spawn(async move {
            let mut pick = Pick(0x9E37_79B9_7F4A_7C15 ^ ((r as u64 + 1) * 0x1000_0001));
            let mut ms = Vec::new();
            while if mixed {
                writing.load(Ordering::Relaxed)
            } else {
                Instant::now() < deadline
            } {
                let league = leagues[pick.below(leagues.len())];
                let url = format!(
                    "{}/api/v1/leagues/{league}/standings",
                    urls[pick.below(urls.len())]
                );
                match read_standings(&client, &url).await {
                    Ok(took) => ms.push(took),
                    Err(e) => {
                        errors.fetch_add(1, Ordering::Relaxed);
                        first_error.lock().unwrap().get_or_insert(e);
                    }
                }
            }
            ms
        }));
    }

    let mut writers = Vec::new();
    let post_errors = Arc::new(AtomicUsize::new(0));
    if !games.is_empty() {
        let games = Arc::new(games);
        let next = Arc::new(AtomicUsize::new(0));
        let last_done = Arc::new(Mutex::new(HashMap::<i64, i32>::new()));
        // Enough scorers that a game waits for its slot, not for a scorer.
        let scorers = ((a.rate / 10.0).ceil() as usize).clamp(8, 256);
        let began = Instant::now();
        for s in 0..scorers {
            let (client, urls, games, next, answered, last_done, errors, first_error) = (
                client_from(source(30, s), 64),
                a.urls.clone(),
                games.clone(),
                next.clone(),
                answered.clone(),
                last_done.clone(),
                post_errors.clone(),
                first_error.clone(),
            );
            let rate = a.rate;
            writers.push(tokio::spawn(async move {
                let mut ms = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(g) = games.get(i) else { break };
                    if rate > 0.0 {
                        let at = began + Duration::from_secs_f64(i as f64 / rate);
                        tokio::time::sleep_until(at.into()).await;
                    }
                    let last = || {
                        last_done
                            .lock()
                            .unwrap()
                            .get(&g.table)
                            .copied()
                            .unwrap_or(0)
                    };
                    while last() < g.number - 1 {
                        tokio::time::sleep(Duration::from_millis(1)).await;
                    }
                    let body = serde_json::json!({"outcome": "mahjong", "number": g.number,
                        "winner": g.winner, "won_by": "self_pick",
                        "hand": "F F 2B 2B J 2B 4C 4C 6C 6C 8B 8B J 8B"});
                    let url = format!("{}/api/v1/tables/{}/games", urls[i % urls.len()], g.table);
                    let t = Instant::now();
                    match client
                        .post(&url)
                        .bearer_auth(&g.token)
                        .json(&body)
                        .send()
                        .await
                    {
                        Ok(r) if r.status().as_u16() == 201 => {
                            let done = Instant::now();
                            let body = r.bytes().await.unwrap_or_default();
                            ms.push(t.elapsed().as_secs_f64() * 1e3);
                            if let Some(id) = serde_json::from_slice::<serde_json::Value>(&body)
                                .ok()
                                .and_then(|v| v["id"].as_i64())
                            {
                                answered.lock().unwrap().insert(id, done);
                            }
                        }
                        Ok(r) => {
                            errors.fetch_add(1, Ordering::Relaxed);
                            let e = format!(
                                "POST {url}: {} {}",
                                r.status(),
                                r.text().await.unwrap_or_default()
                            );
                            first_error.lock().unwrap().get_or_insert(e);
                        }
                        Err(e) => {
                            errors.fetch_add(1, Ordering::Relaxed);
                            first_error
                                .lock()
                                .unwrap()
                                .get_or_insert(format!("POST {url}: {e}"));
                        }
                    }
                    let mut done = last_done.lock().unwrap();
                    let at = done.entry(g.table).or_insert(0);
                    *at = (*at).max(g.number);
                }
                ms
            }));
        }
    }
    let mut posts = Vec::new();
    for w in writers {
        posts.extend(w.await.unwrap());
    }
    let elapsed = start.elapsed();
    if !posts.is_empty() || post_errors.load(Ordering::Relaxed) > 0 {
        percentiles(
            "POST games",
            posts,
            post_errors.load(Ordering::Relaxed),
            elapsed,
        );
    }
    writing.store(false, Ordering::Relaxed);
    let mut reads = Vec::new();
    for r in readers {
        reads.extend(r.await.unwrap());
    }
    if a.readers > 0 {
        percentiles(
            "standings of random leagues",
            reads,
            read_errors.load(Ordering::Relaxed),
            start.elapsed(),
        );
    }
    none_refused(
        &a.phase,
        "games",
        post_errors.load(Ordering::Relaxed),
        &first_error,
    );
    none_refused(
        &a.phase,
        "reads",
        read_errors.load(Ordering::Relaxed),
        &first_error,
    );
    if !streams.is_empty() {
        // Time for the last games to reach every stream.
        tokio::time::sleep(Duration::from_secs(2)).await;
        stop_streams.store(true, Ordering::Relaxed);
        let answered = answered.lock().unwrap().clone();
        let submitted = answered.len();
        let (mut seen, mut lags) = (0usize, Vec::new());
        for s in streams {
            for (id, arrived) in s.await.unwrap() {
                seen += 1;
                // A game may reach a stream before its answer reaches the client: no lag.
                if let Some(at) = answered.get(&id) {
                    lags.push(arrived.saturating_duration_since(*at).as_secs_f64() * 1e3);
                }
            }
        }
        println!(
            "streams: {submitted} games answered; {seen} game events reached the streams ({expected} expected)"
        );
        if seen < expected {
            fail(
                &a.phase,
                format!(
                    "{} game events never reached their streams",
                    expected - seen
                ),
            );
        }
        lags.sort_by(f64::total_cmp);
        println!(
            "from answer to stream: {} events timed, p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            lags.len(),
            at(&lags, 0.5),
            at(&lags, 0.99),
            lags.last().copied().unwrap_or(0.0)
        );
    }
}
