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

/// The club card (57 lines, 1,084 targets, the size of a year's printed card): a full check of a
/// winning hand, of random losing hands drawn from a real 152-tile wall (with their 3 nearest
/// lines), and the card's compile.
fn club_card(c: &mut Criterion) {
    use mahjong_league::rules::tile::Tile;
    use rand::SeedableRng;
    use rand::rngs::StdRng;
    use rand::seq::SliceRandom;
    let card = builtin::get("club-2027").unwrap();
    let source = builtin::source("club-2027").unwrap();
    // 222 444 Bams, 666 888 Craks with flowers, a joker in the 8s: 2468#1 of the club card.
    let winning = hand("F F 2B 2B 2B 4B 4B 4B 6C 6C 6C 8C 8C J");
    assert!(
        card.check(&winning).best.is_some(),
        "benchmark hand must win"
    );
    c.bench_function(
        "club card: check winning hand, full (best + all matches + report)",
        |b| {
            b.iter(|| {
                let check = card.check(black_box(&winning));
                black_box(card.check_report(&check))
            })
        },
    );
    // The wall: 4 of each suit tile, wind and dragon, 8 flowers, 8 jokers.
    let mut wall: Vec<Tile> = Vec::with_capacity(152);
    for t in Tile::all() {
        let copies = if t == Tile::FLOWER || t == Tile::JOKER {
            8
        } else {
            4
        };
        wall.extend(std::iter::repeat_n(t, copies));
    }
    assert_eq!(wall.len(), 152);
    let mut rng = StdRng::seed_from_u64(2027);
    let mut losing = Vec::new();
    while losing.len() < 1000 {
        wall.shuffle(&mut rng);
        let h = Hand::new(&wall[..14], &[]).unwrap();
        if card.check(&h).best.is_none() {
            losing.push(h);
        }
    }
    let mut i = 0;
    c.bench_function(
        "club card: check random losing hand from a wall, with 3 nearest lines",
        |b| {
            b.iter(|| {
                i = (i + 1) % losing.len();
                let check = card.check(black_box(&losing[i]));
                black_box(card.check_report(&check))
            })
        },
    );
    c.bench_function("club card: compile (57 lines, 1,084 targets)", |b| {
        b.iter(|| black_box(Card::parse(black_box(source)).unwrap()))
    });
}

/// An open-play season: 200 players, 52 weeks, each player in 4 matches a week (tables of four
/// drawn in turn), every match 4 games; the board of each week's best 2 matches, with and
/// without the limit of one counted match a week at the same table.
fn open_play_board(c: &mut Criterion) {
    use mahjong_league::standings::{MatchScore, weekly};
    let start = chrono::NaiveDate::from_ymd_opt(2026, 1, 5).unwrap();
    let mut scores = Vec::new();
    let mut night = 0;
    for week in 0..52i64 {
        for round in 0..4i64 {
            let date = start + chrono::Duration::days(week * 7 + round);
            for t in 0..50i64 {
                night += 1;
                // A different four each round, the same four again now and then.
                let table: Vec<i64> = (0..4)
                    .map(|s| (t * 4 + s + (round % 3) * 17 * s) % 200)
                    .collect();
                let mut sorted = table.clone();
                sorted.sort_unstable();
                sorted.dedup();
                for (s, &p) in table.iter().enumerate() {
                    scores.push(MatchScore {
                        player: p,
                        night,
                        date,
                        points: ((week * 31 + round * 7 + s as i64 * 13) % 200) - 100,
                        games: 4,
                        table: sorted.clone(),
                    });
                }
            }
        }
    }
    let rows = scores.len();
    c.bench_function(
        &format!("best 2 matches a week: 200 players, 52 weeks, {rows} match scores"),
        |b| b.iter(|| black_box(weekly(black_box(&scores), 2, None))),
    );
    c.bench_function(
        &format!("best 2 matches a week, one a week at the same table: {rows} match scores"),
        |b| b.iter(|| black_box(weekly(black_box(&scores), 2, Some(1)))),
    );
}

criterion_group!(rules, benches, club_card, seating, open_play_board);
criterion_main!(rules);
