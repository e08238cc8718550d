//! HTTP load client for `scripts/bench-league.sh`: repeated GETs of one path for a number of
//! seconds, or game submissions read from a file ("table_id winner_id" per line), or both at
//! once (the GETs then run until the submissions are done). Prints requests, errors, requests
//! per second and latency percentiles.

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
}

fn args() -> Args {
    let mut a = Args {
        url: String::new(),
        token: String::new(),
        get: None,
        games: None,
        seconds: 10,
        concurrency: 8,
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

#[tokio::main]
async fn main() {
    let a = args();
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
            let (client, url, token, errors, writing) = (
                client.clone(),
                format!("{}{}", a.url, path),
                a.token.clone(),
                read_errors.clone(),
                writing.clone(),
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
                    match client.get(&url).bearer_auth(&token).send().await {
                        Ok(r) if r.status().is_success() => {
                            let _ = r.bytes().await;
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
        let jobs: Vec<(i64, i64)> = std::fs::read_to_string(file)
            .unwrap()
            .lines()
            .filter_map(|l| {
                let mut p = l.split_whitespace();
                Some((p.next()?.parse().ok()?, p.next()?.parse().ok()?))
            })
            .collect();
        let jobs = Arc::new(jobs);
        let next = Arc::new(AtomicUsize::new(0));
        for _ in 0..a.concurrency {
            let (client, base, token, errors, jobs, next) = (
                client.clone(),
                a.url.clone(),
                a.token.clone(),
                errors.clone(),
                jobs.clone(),
                next.clone(),
            );
            tasks.push(tokio::spawn(async move {
                let mut lat = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&(table, winner)) = jobs.get(i) else { break };
                    let body = serde_json::json!({"outcome": "mahjong", "winner": winner, "won_by": "self_pick",
                        "hand": "F F 2B 2B J 2B 4C 4C 6C 6C 8B 8B J 8B"});
                    let t = Instant::now();
                    match client.post(format!("{base}/api/v1/tables/{table}/games")).bearer_auth(&token).json(&body).send().await {
                        Ok(r) if r.status().as_u16() == 201 => {
                            let _ = r.bytes().await;
                            lat.push(t.elapsed());
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
}
