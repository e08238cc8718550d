//! Rules-engine benchmarks: `make bench` (or `cargo bench --bench rules`).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use mahjong_league::rules::{Card, Hand, Table, builtin, parse_tiles};

fn hand(text: &str) -> Hand {
    Hand::new(&parse_tiles(text).unwrap(), &[]).unwrap()
}

fn benches(c: &mut Criterion) {
    let card = builtin::get("demo-2026").unwrap();
    let source = builtin::source("demo-2026").unwrap();

    // A winning hand (2468 section, with jokers) and a losing one (needs the nearest lines).
    let winning = hand("F F 2B 2B J 2B 4C 4C 6C 6C 8B 8B J 8B");
    assert!(
        card.check(&winning).best.is_some(),
        "benchmark hand must win"
    );
    let losing = hand("F 1B 3B 5C 7C 9D N E W S RD GD WD J");

    c.bench_function(
        "check winning hand, full demo card (best + all matches)",
        |b| {
            b.iter(|| {
                let check = card.check(black_box(&winning));
                black_box(card.check_report(&check))
            })
        },
    );
    c.bench_function(
        "check losing hand, full demo card (with nearest lines)",
        |b| {
            b.iter(|| {
                let check = card.check(black_box(&losing));
                black_box(card.check_report(&check))
            })
        },
    );
    c.bench_function("compile demo card (52 lines)", |b| {
        b.iter(|| black_box(Card::parse(black_box(source)).unwrap()))
    });
    let exposures = vec![
        parse_tiles("2B 2B 2B").unwrap(),
        parse_tiles("6C 6C J").unwrap(),
    ];
    let out = parse_tiles("8C 8C 8C 4B 4B F F F").unwrap();
    c.bench_function("adjudicate a dead-hand call, full demo card", |b| {
        b.iter(|| {
            let table = Table::new(black_box(&exposures), black_box(&out)).unwrap();
            black_box(card.adjudicate(&table))
        })
    });
}

fn seating(c: &mut Criterion) {
    use mahjong_league::seating::{History, plan};
    use std::time::Duration;
    // 100 players with five earlier nights of history (tables of 4 from earlier plans).
    let n = 100;
    let mut history = History::new(n);
    let earlier = plan(n, 5, 3, None, Duration::from_secs(5), 4).unwrap();
    for (age, round) in earlier.rounds.iter().rev().enumerate() {
        for table in round {
            for i in 0..table.len() {
                for j in i + 1..table.len() {
                    history.met(table[i], table[j], age as u32);
                }
            }
        }
    }
    let mut group = c.benchmark_group("seating");
    group.sample_size(10);
    group.bench_function(
        "propose one night for 100 players with 5 nights of history",
        |b| {
            b.iter(|| {
                black_box(plan(n, 1, 7, Some(&history), Duration::from_millis(800), 4).unwrap())
            })
        },
    );
    group.finish();
}

criterion_group!(rules, benches, seating);
criterion_main!(rules);
