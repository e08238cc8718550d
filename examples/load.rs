//! HTTP load client for `scripts/bench-league.sh`: repeated GETs of one path for a number of
//! seconds, or game submissions read from a file ("table_id winner_id" per line), or both at
//! once (the GETs then run until the submissions are done). With `--streams N --events PATH`,
//! N Server-Sent Events streams are opened first and read throughout; at the end it prints how
//! many game events each stream got and how long after its answer a game reached a stream.
//! Prints requests, errors, requests per second and latency percentiles. `--encoding gzip` asks
//! for gzip as browsers and most HTTP libraries do, and inflates each answer (the time counts);
//! the default takes the body as it is (identity).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

struct Args {
    url: String,
    token: String,
    get: Option<String>,
    games: Option<String>,
    seconds: u64,
    concurrency: usize,
    streams: usize,
    events: Option<String>,
    /// Games per second across all clients (0: as fast as they are answered).
    rate: f64,
    /// `Accept-Encoding` of the GETs: `identity` or `gzip`.
    encoding: String,
}

fn args() -> Args {
    let mut a = Args {
        url: String::new(),
        token: String::new(),
        get: None,
        games: None,
        seconds: 10,
        concurrency: 8,
        streams: 0,
        events: None,
        rate: 0.0,
        encoding: "identity".into(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().unwrap_or_default();
        match flag.as_str() {
            "--url" => a.url = value,
            "--token" => a.token = value,
            "--get" => a.get = Some(value),
            "--games" => a.games = Some(value),
            "--seconds" => a.seconds = value.parse().unwrap_or(10),
            "--concurrency" => a.concurrency = value.parse().unwrap_or(8),
            "--streams" => a.streams = value.parse().unwrap_or(0),
            "--events" => a.events = Some(value),
            "--rate" => a.rate = value.parse().unwrap_or(0.0),
            "--encoding" => a.encoding = value,
            other => panic!("unknown flag {other}"),
        }
    }
    a
}

fn report(what: &str, mut latencies: Vec<Duration>, errors: usize, elapsed: Duration) {
    latencies.sort();
    let pct = |p: f64| {
        latencies
            .get(((latencies.len() as f64 * p) as usize).min(latencies.len().saturating_sub(1)))
            .copied()
            .unwrap_or_default()
    };
    println!(
        "{what}: {} requests, {errors} errors, {:.0} req/s, p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        latencies.len(),
        latencies.len() as f64 / elapsed.as_secs_f64(),
        pct(0.50).as_secs_f64() * 1e3,
        pct(0.99).as_secs_f64() * 1e3,
        latencies.last().copied().unwrap_or_default().as_secs_f64() * 1e3,
    );
}

/// When each game was answered, by game id (for the streams' lag).
type Answered = Arc<std::sync::Mutex<std::collections::HashMap<i64, Instant>>>;

/// Opens the streams; each reads until `stop` and answers (games seen, lags in ms of the games
/// it saw after their answer).
async fn open_streams(
    a: &Args,
    answered: Answered,
    stop: Arc<AtomicBool>,
) -> Vec<tokio::task::JoinHandle<(usize, Vec<f64>)>> {
    let Some(path) = &a.events else {
        return Vec::new();
    };
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(a.streams)
        .build()
        .unwrap();
    let mut streams = Vec::new();
    for n in 0..a.streams {
        // Ten streams read each game's id for the lag; the others count games (cheaply, so the
        // load client leaves the cores to the service).
        let probe = n < 10;
        let mut res = client
            .get(format!("{}{}", a.url, path))
            .bearer_auth(&a.token)
            .send()
            .await
            .expect("a stream opens");
        assert!(res.status().is_success(), "stream: {}", res.status());
        let (answered, stop) = (answered.clone(), stop.clone());
        streams.push(tokio::spawn(async move {
            let (mut games, mut lags, mut buffer) = (0usize, Vec::new(), String::new());
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
                    games += 1;
                    if !probe {
                        continue;
                    }
                    let id = block
                        .lines()
                        .find_map(|l| l.strip_prefix("data: "))
                        .and_then(|d| serde_json::from_str::<serde_json::Value>(d).ok())
                        .and_then(|v| v["data"]["id"].as_i64());
                    if let Some(at) = id.and_then(|id| answered.lock().unwrap().get(&id).copied()) {
                        lags.push(now.saturating_duration_since(at).as_secs_f64() * 1e3);
                    }
                }
            }
            (games, lags)
        }));
    }
    streams
}

#[tokio::main]
async fn main() {
    let a = args();
    let answered: Answered = Arc::default();
    let stop_streams = Arc::new(AtomicBool::new(false));
    let streams = open_streams(&a, answered.clone(), stop_streams.clone()).await;
    if !streams.is_empty() {
        println!("{} event streams open", streams.len());
    }
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(a.concurrency)
        .build()
        .unwrap();
    let start = Instant::now();
    let errors = Arc::new(AtomicUsize::new(0));
    let read_errors = Arc::new(AtomicUsize::new(0));
    let writing = Arc::new(AtomicBool::new(a.games.is_some()));
    let mut readers = Vec::new();
    let mut tasks = Vec::new();
    if let Some(path) = &a.get {
        let deadline = start + Duration::from_secs(a.seconds);
        for _ in 0..a.concurrency {
            let (client, url, token, errors, writing, encoding) = (
                client.clone(),
                format!("{}{}", a.url, path),
                a.token.clone(),
                read_errors.clone(),
                writing.clone(),
                a.encoding.clone(),
            );
            let mixed = a.games.is_some();
            readers.push(tokio::spawn(async move {
                let mut lat = Vec::new();
                while if mixed {
                    writing.load(Ordering::Relaxed)
                } else {
                    Instant::now() < deadline
                } {
                    let t = Instant::now();
                    let asked = client
                        .get(&url)
                        .bearer_auth(&token)
                        .header("Accept-Encoding", &encoding);
                    match asked.send().await {
                        Ok(r) if r.status().is_success() => {
                            let gzip = r
                                .headers()
                                .get("content-encoding")
                                .is_some_and(|v| v == "gzip");
                            let body = r.bytes().await.unwrap_or_default();
                            if gzip {
                                let mut json = Vec::with_capacity(body.len() * 6);
                                let inflated = std::io::Read::read_to_end(
                                    &mut flate2::read::GzDecoder::new(&body[..]),
                                    &mut json,
                                );
                                if inflated.is_err() {
                                    errors.fetch_add(1, Ordering::Relaxed);
                                    continue;
                                }
                            }
                            lat.push(t.elapsed());
                        }
                        _ => {
                            errors.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
                lat
            }));
        }
    }
    if let Some(file) = &a.games {
        // Each game names its number (a table's games in the order the file lists them), and a
        // table's next game goes once its last is answered, as one scorer per table sends them.
        let mut numbers = std::collections::HashMap::<i64, i32>::new();
        let jobs: Vec<(i64, i64, i32)> = std::fs::read_to_string(file)
            .unwrap()
            .lines()
            .filter_map(|l| {
                let mut p = l.split_whitespace();
                let table = p.next()?.parse().ok()?;
                let winner = p.next()?.parse().ok()?;
                let number = numbers.entry(table).or_insert(0);
                *number += 1;
                Some((table, winner, *number))
            })
            .collect();
        let jobs = Arc::new(jobs);
        let next = Arc::new(AtomicUsize::new(0));
        // Each table's last game answered (or refused).
        let last_done = Arc::new(std::sync::Mutex::new(
            std::collections::HashMap::<i64, i32>::new(),
        ));
        let rate = a.rate;
        let began = Instant::now();
        for _ in 0..a.concurrency {
            let (client, base, token, errors, jobs, next, answered, last_done) = (
                client.clone(),
                a.url.clone(),
                a.token.clone(),
                errors.clone(),
                jobs.clone(),
                next.clone(),
                answered.clone(),
                last_done.clone(),
            );
            tasks.push(tokio::spawn(async move {
                let mut lat = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&(table, winner, number)) = jobs.get(i) else { break };
                    if rate > 0.0 {
                        // Game i goes at its slot in a steady stream of `rate` a second.
                        let at = began + Duration::from_secs_f64(i as f64 / rate);
                        tokio::time::sleep_until(at.into()).await;
                    }
                    let last = || last_done.lock().unwrap().get(&table).copied().unwrap_or(0);
                    while last() < number - 1 {
                        tokio::time::sleep(Duration::from_millis(1)).await;
                    }
                    let body = serde_json::json!({"outcome": "mahjong", "number": number, "winner": winner, "won_by": "self_pick",
                        "hand": "F F 2B 2B J 2B 4C 4C 6C 6C 8B 8B J 8B"});
                    let t = Instant::now();
                    match client.post(format!("{base}/api/v1/tables/{table}/games")).bearer_auth(&token).json(&body).send().await {
                        Ok(r) if r.status().as_u16() == 201 => {
                            let done = Instant::now();
                            let body = r.bytes().await.unwrap_or_default();
                            lat.push(t.elapsed());
                            if let Some(id) = serde_json::from_slice::<serde_json::Value>(&body)
                                .ok()
                                .and_then(|v| v["id"].as_i64())
                            {
                                answered.lock().unwrap().insert(id, done);
                            }
                        }
                        Ok(r) => {
                            if errors.fetch_add(1, Ordering::Relaxed) < 3 {
                                eprintln!("{}: {}", r.status(), r.text().await.unwrap_or_default());
                            }
                        }
                        Err(e) => {
                            errors.fetch_add(1, Ordering::Relaxed);
                            eprintln!("{e}");
                        }
                    }
                    let mut done = last_done.lock().unwrap();
                    let at = done.entry(table).or_insert(0);
                    *at = (*at).max(number);
                }
                lat
            }));
        }
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap());
    }
    if a.games.is_some() {
        report(
            "POST games",
            all,
            errors.load(Ordering::Relaxed),
            start.elapsed(),
        );
        writing.store(false, Ordering::Relaxed);
    }
    let mut reads = Vec::new();
    for t in readers {
        reads.extend(t.await.unwrap());
    }
    if a.get.is_some() {
        let what = if a.games.is_some() {
            "GET while submitting"
        } else {
            "GET"
        };
        report(
            what,
            reads,
            read_errors.load(Ordering::Relaxed),
            start.elapsed(),
        );
    }
    if !streams.is_empty() {
        // Time for the last games to reach every stream.
        tokio::time::sleep(Duration::from_secs(2)).await;
        stop_streams.store(true, Ordering::Relaxed);
        let submitted = answered.lock().unwrap().len();
        let (mut fewest, mut most, mut lags) = (usize::MAX, 0, Vec::new());
        for s in streams {
            let (games, l) = s.await.unwrap();
            fewest = fewest.min(games);
            most = most.max(games);
            lags.extend(l);
        }
        lags.sort_by(f64::total_cmp);
        let pct = |p: f64| {
            lags.get(((lags.len() as f64 * p) as usize).min(lags.len().saturating_sub(1)))
                .copied()
                .unwrap_or(0.0)
        };
        println!(
            "streams: {submitted} games answered; each stream got {fewest} to {most} of them; from answer to stream: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
            pct(0.5),
            pct(0.99),
            lags.last().copied().unwrap_or(0.0)
        );
    }
}
