//! A season's numbers for a league of 200 players and 10,000 games (50 nights of 50 tables of
//! four games, as scripts/bench-season.sh seeds over HTTP): worked out from the games (what the
//! first read pays, and the read after a correction or a void), one more game on a season kept
//! (what the read after a new game pays), and a player's document made from what is kept (what
//! every other read pays). `cargo bench --bench season`.

use std::collections::HashMap;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use mahjong_league::domain::seasons::season::{Input, SeasonPlayer, work_out};
use mahjong_league::rules::builtin;
use mahjong_league::storage::seasons::leagues::League;
use mahjong_league::storage::seasons::season::SeasonGame;

fn league() -> League {
    League {
        id: 1,
        club_id: 1,
        name: "Bench league".into(),
        card_id: None,
        builtin_card: Some("demo-2026".into()),
        ruleset: serde_json::json!("nmjl-money"),
        games_per_table: 4,
        visibility: "public".into(),
        board: "total".into(),
        min_games: 0,
        starts_on: None,
        ends_on: None,
        kind: "league".into(),
        best_per_night: 2,
        drop_worst_nights: 0,
        best_per_week: 2,
        confirm_hours: 48,
        same_table_per_week: None,
        place: None,
        sanctioning_number: None,
        previous_id: None,
        next_id: None,
        carried_in: false,
        created_at: chrono::Utc::now(),
        revision: 1,
    }
}

/// 50 nights x 50 tables x 4 games of 200 players: a tenth wall games, a third of the wins
/// self-picked, a seventh jokerless, hands of 25 to 75 paid as under nmjl-money.
fn games() -> Vec<SeasonGame> {
    let lines = ["2026#1", "2468#1", "2468#2", "Quints#2", "369#1"];
    let mut out = Vec::new();
    let mut order = 0;
    for night in 1..=50i64 {
        for table in 0..50i64 {
            let seats: Vec<i64> = (0..4)
                .map(|s| ((table * 4 + s + night * 13) % 200) + 1)
                .collect();
            for g in 0..4i64 {
                order += 1;
                let h = (order * 2_654_435_761i64).rem_euclid(1 << 31);
                let wall = h % 10 == 0;
                let own = h % 3 == 0;
                let value = [25, 30, 35, 40, 50, 75][(h % 6) as usize];
                let w = ((h / 11) % 4) as usize;
                let d = (w + 1 + ((h / 7) % 3) as usize) % 4;
                let scores = (0..4)
                    .map(|s| {
                        if wall {
                            0
                        } else if s == w {
                            if own { 6 * value } else { 4 * value }
                        } else if own || s == d {
                            -2 * value
                        } else {
                            -value
                        }
                    })
                    .collect();
                out.push(SeasonGame {
                    id: order,
                    standings_order: order,
                    night_id: night,
                    night_number: night as i32,
                    night_date: chrono::NaiveDate::from_ymd_opt(2026, 1, 6).unwrap()
                        + chrono::Duration::days(7 * night),
                    table_id: night * 100 + table,
                    east_player: seats[(g % 4) as usize],
                    outcome: if wall { "wall" } else { "mahjong" }.into(),
                    line_id: (!wall).then(|| lines[(h % 5) as usize].to_string()),
                    winner: (!wall).then_some(seats[w]),
                    discarder: (!wall && !own).then_some(seats[d]),
                    won_by: (!wall).then(|| if own { "self_pick" } else { "discard" }.to_string()),
                    jokerless: !wall && h % 7 == 0,
                    players: seats.clone(),
                    scores,
                    dead: vec![false; 4],
                });
            }
        }
    }
    out
}

fn benches(c: &mut Criterion) {
    let league = league();
    let games = games();
    let names: HashMap<i64, String> = (1..=200).map(|p| (p, format!("Player {p}"))).collect();
    let carried = HashMap::new();
    let card = builtin::get("demo-2026").unwrap();
    let input = Input {
        league: &league,
        games: &games,
        names: &names,
        carried: &carried,
        card,
    };
    c.bench_function("season of 10,000 games worked out", |b| {
        b.iter(|| black_box(work_out(black_box(&input))))
    });
    // A night in play: the season kept up to its last night's 199th game, then the 200th.
    let (held, new) = games.split_at(games.len() - 1);
    let kept = work_out(&Input {
        games: held,
        ..input
    });
    c.bench_function("one more game on a kept season of 10,000", |b| {
        b.iter(|| black_box(kept.carry_on(&league, black_box(new), &names, &carried)))
    });
    // The first game of a new night: the season is taken up again at the new night.
    let mut first = games[games.len() - 1].clone();
    first.night_id += 1;
    first.night_number += 1;
    first.night_date += chrono::Duration::days(7);
    first.standings_order += 1;
    first.id += 1;
    let whole = work_out(&input);
    let first = [first];
    c.bench_function("the first game of a new night on a kept season", |b| {
        b.iter(|| black_box(whole.carry_on(&league, black_box(&first), &names, &carried)))
    });
    let season = work_out(&input);
    c.bench_function("a player's season from what is kept", |b| {
        b.iter(|| {
            let me = SeasonPlayer {
                id: 17,
                name: "Player 17".into(),
            };
            black_box(season.player(&league, me, &names))
        })
    });
}

criterion_group!(season_benches, benches);
criterion_main!(season_benches);
