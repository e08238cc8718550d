//! Crash trials (issue 13, items 7 and 8): writers submit games with idempotency keys while the
//! service is stopped at a random moment — `kill -9`, `kill -9` of its postmaster too, or
//! SIGTERM — then restarted. Every acknowledged game must be there; every unanswered one, sent
//! again with its key, must end stored exactly once. `CRASH_TRIALS` sets the number of trials
//! (`make test`: 3; `scripts/crash-trials.sh 100` for the long run); the figures are printed.

mod common;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::writing::{call, night, set_up};
use serde_json::{Value, json};

const WRITERS: usize = 4;

#[derive(Default)]
struct Outcome {
    /// Keys answered 201, with the game id.
    acknowledged: Vec<(String, i64)>,
    /// Requests sent without an answer: (key, table, body).
    unanswered: Vec<(String, i64, Value)>,
}

/// One writer: games on its own tables, one after the other, until the service goes away.
async fn writer(
    base: String,
    token: String,
    trial: usize,
    w: usize,
    tables: Vec<i64>,
    out: Arc<Mutex<Outcome>>,
) {
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap();
    for number in 1..=32 {
        for &table in &tables {
            let key = format!("t{trial}-w{w}-{table}-{number}");
            let body = json!({"number": number, "outcome": "wall"});
            let sent = client
                .post(format!("{base}/api/v1/tables/{table}/games"))
                .bearer_auth(&token)
                .header("Idempotency-Key", &key)
                .json(&body)
                .send()
                .await;
            let answer = match sent {
                Ok(res) if res.status() == 201 => res.json::<Value>().await.ok(),
                Ok(res) if res.status().is_server_error() => None,
                Ok(res) => panic!("{key}: refused {}", res.status()),
                Err(_) => None,
            };
            let mut o = out.lock().unwrap();
            match answer {
                Some(game) => o.acknowledged.push((key, game["id"].as_i64().unwrap())),
                None => {
                    // The service is going away: this one and everything after is unanswered.
                    o.unanswered.push((key, table, body));
                    return;
                }
            }
        }
    }
}

async fn ready(base: &str) -> bool {
    reqwest::get(format!("{base}/readyz"))
        .await
        .is_ok_and(|r| r.status() == 200)
}

#[tokio::test]
async fn acknowledged_games_survive_crashes_and_retries_store_once() {
    let trials: usize = std::env::var("CRASH_TRIALS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(3);
    let dir = tempfile::tempdir().unwrap();
    let mut served = common::serve(dir.path()).expect("the service starts");
    let club = set_up(&served).await;
    let (mut acknowledged, mut lost, mut duplicates, mut resent) = (0usize, 0usize, 0usize, 0usize);
    let mut ready_times = Vec::new();
    for trial in 0..trials {
        let (night_id, tables) = night(&served.base, &club).await;
        let out = Arc::new(Mutex::new(Outcome::default()));
        let handles: Vec<_> = (0..WRITERS)
            .map(|w| {
                let mine: Vec<i64> = tables.iter().skip(w).step_by(WRITERS).copied().collect();
                tokio::spawn(writer(
                    served.base.clone(),
                    club.token.clone(),
                    trial,
                    w,
                    mine,
                    out.clone(),
                ))
            })
            .collect();
        // A moment between 0.2 and 1.2 s into the writing, varied by trial.
        tokio::time::sleep(Duration::from_millis(200 + (trial as u64 * 377) % 1000)).await;
        let mode = trial % 3;
        let postmaster = common::postmaster_pid(dir.path());
        match mode {
            // SIGTERM: in-flight requests finish, the service exits 0 and stops its PostgreSQL.
            2 => {
                // SAFETY: signals the child this test started.
                unsafe { libc::kill(served.child.id() as i32, libc::SIGTERM) };
                let status = served.child.wait().unwrap();
                assert!(
                    status.success(),
                    "trial {trial}: exit after SIGTERM: {status:?}"
                );
            }
            _ => {
                served.child.kill().unwrap();
                served.child.wait().unwrap();
                if mode == 1 {
                    // SAFETY: SIGKILL to the postmaster of the service this test started.
                    unsafe { libc::kill(postmaster, libc::SIGKILL) };
                }
            }
        }
        for h in handles {
            h.await.unwrap();
        }
        let started = Instant::now();
        served =
            common::serve(dir.path()).unwrap_or_else(|e| panic!("trial {trial}: restart: {e}"));
        while !ready(&served.base).await {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "trial {trial}: not ready"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        ready_times.push(started.elapsed());

        let out = std::mem::take(&mut *out.lock().unwrap());
        // Every acknowledged game is there.
        for (key, id) in &out.acknowledged {
            let res = reqwest::Client::new()
                .get(format!("{}/api/v1/games/{id}", served.base))
                .bearer_auth(&club.token)
                .send()
                .await
                .unwrap();
            if res.status() != 200 {
                lost += 1;
                eprintln!(
                    "trial {trial}: acknowledged {key} (game {id}) is gone: {}",
                    res.status()
                );
            }
        }
        // Every unanswered one, sent again with its key, is stored once.
        for (key, table, body) in &out.unanswered {
            let res = reqwest::Client::new()
                .post(format!("{}/api/v1/tables/{table}/games", served.base))
                .bearer_auth(&club.token)
                .header("Idempotency-Key", key)
                .json(body)
                .send()
                .await
                .unwrap();
            assert_eq!(res.status(), 201, "trial {trial}: {key} sent again");
            resent += 1;
        }
        // No game twice: as many games at this night's tables as distinct keys sent.
        let csv = reqwest::Client::new()
            .get(format!(
                "{}/api/v1/leagues/{}/games.csv",
                served.base, club.league
            ))
            .bearer_auth(&club.token)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let night_number = call(
            &served.base,
            &club.token,
            "GET",
            &format!("/api/v1/nights/{night_id}"),
            None,
        )
        .await["number"]
            .as_i64()
            .unwrap()
            .to_string();
        let mut games = HashSet::new();
        let mut slots = HashSet::new();
        for row in csv::Reader::from_reader(csv.as_bytes()).records() {
            let row = row.unwrap();
            if row[1] == *night_number {
                games.insert(row[0].to_string());
                slots.insert((row[3].to_string(), row[4].to_string(), row[0].to_string()));
            }
        }
        let sent = out.acknowledged.len() + out.unanswered.len();
        if games.len() > sent {
            duplicates += games.len() - sent;
        }
        assert_eq!(
            slots.len(),
            games.len(),
            "trial {trial}: one game per table and number"
        );
        acknowledged += out.acknowledged.len();
    }
    let mut times: Vec<f64> = ready_times.iter().map(|d| d.as_secs_f64()).collect();
    times.sort_by(f64::total_cmp);
    println!(
        "crash trials: {trials} trials, {acknowledged} acknowledged games, {lost} lost, {duplicates} duplicates, {resent} unanswered sent again; time to ready median {:.2} s, max {:.2} s",
        times[times.len() / 2],
        times[times.len() - 1]
    );
    assert_eq!(lost, 0, "acknowledged games lost");
    assert_eq!(duplicates, 0, "games stored twice");
    // SAFETY: signals the child this test started.
    unsafe { libc::kill(served.child.id() as i32, libc::SIGTERM) };
    served.child.wait().unwrap();
}
