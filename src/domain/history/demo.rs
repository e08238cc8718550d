//! The demo club that `serve --demo` (what `make run` starts) fills once: an owner account, a
//! public league of 16 players on the demo card and 6 closed nights of games entered through
//! the same operations a scorer uses, so every hand was checked and scored by the engine —
//! self-picks, discard wins with exposures, jokerless hands, wall games, a dead-hand call, a
//! corrected game and a voided one. Standings and the chart follow from them. Beside it, an
//! open-play league: three weeks of matches its members arranged, games confirmed by their
//! players, a few still waiting, one disputed, and two open matches ahead.

use chrono::{Duration, NaiveDate};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use crate::auth::new_secret;
use crate::domain::people::accounts::{self, SignUp};
use crate::domain::people::players::{self, NewPlayer};
use crate::domain::play::games::{self, DeadInput, GameInput};
use crate::domain::play::nights::{self, LockTables, NewNight, SeatingRequest};
use crate::domain::play::open as matches;
use crate::domain::seasons::leagues::{self, LeagueInput};
use crate::domain::{AppState, Caller, Error, Principal, Result};
use crate::rules::builtin;
use crate::rules::pattern::group_sizes;
use crate::rules::scoring::{Outcome, Tiles, WonBy};
use crate::storage::people::clubs;

pub const SLUG: &str = "demo";
pub const EMAIL: &str = "demo@mahjong-league.example";
const CARD: &str = "demo-2026";
const NIGHTS: usize = 6;
const GAMES_PER_TABLE: i32 = 4;
const PLAYERS: [&str; 16] = [
    "Ada Brooks",
    "Bea Castillo",
    "Carmen Diaz",
    "Dora Ellis",
    "Edie Fong",
    "Faye Goldman",
    "Gwen Harper",
    "Hattie Ito",
    "Irene Jacobs",
    "June Kowalski",
    "Kit Lam",
    "Lena Moreau",
    "Mae Nakamura",
    "Nell O'Brien",
    "Opal Patel",
    "Ruth Quinn",
];

/// The owner's login, when this call created the demo (it is shown once, never stored).
pub struct Created {
    pub email: String,
    pub password: String,
}

/// Fills the demo club unless it already has nights; a second start adds nothing. Instances
/// starting at once on one database take turns (an advisory lock).
pub async fn ensure(state: &AppState) -> Result<Option<Created>> {
    let lock = clubs::demo_lock(&state.db).await?;
    let result = fill(state).await;
    clubs::demo_unlock(lock).await?;
    result
}

async fn fill(state: &AppState) -> Result<Option<Created>> {
    clubs::ensure_demo(&state.db).await?;
    let club = clubs::by_slug(&state.db, SLUG)
        .await?
        .ok_or_else(|| Error::Internal(anyhow::anyhow!("the demo club was not created")))?;
    if clubs::demo_has_nights(&state.db, club.id).await? {
        return Ok(None);
    }
    let password = new_secret("")[..16].to_string();
    let user = match accounts::create_direct(
        state,
        SignUp {
            email: EMAIL.into(),
            display_name: "Demo organizer".into(),
            password: Some(password.clone()),
        },
    )
    .await
    {
        Ok(s) => s,
        // The account exists from an earlier, interrupted start: its password was shown then.
        Err(Error::Conflict(_)) => return Ok(None),
        Err(e) => return Err(e),
    };
    clubs::make_owner(&state.db, club.id, user.id).await?;
    let owner = Caller::of(Principal::User(user));

    let league = match clubs::demo_league(&state.db, club.id).await? {
        Some(id) => id,
        None => {
            leagues::create(
                state,
                &owner,
                SLUG,
                LeagueInput {
                    name: Some("Demo league".into()),
                    card: Some(CARD.into()),
                    ruleset: Some(serde_json::json!("nmjl-money")),
                    games_per_table: Some(GAMES_PER_TABLE),
                    visibility: Some("public".into()),
                    ..Default::default()
                },
            )
            .await?
            .0
            .id
        }
    };
    leagues::update(
        state,
        &owner,
        league,
        LeagueInput {
            games_per_table: Some(GAMES_PER_TABLE),
            visibility: Some("public".into()),
            // The board American leagues keep: each night's 3 best games, the lowest night
            // dropped.
            board: Some("best_per_night".into()),
            best_per_night: Some(3),
            drop_worst_nights: Some(1),
            ..Default::default()
        },
    )
    .await?;
    let mut ids = Vec::new();
    for name in PLAYERS {
        let p = players::add(state, &owner, SLUG, NewPlayer { name: name.into() }).await?;
        ids.push(p.id);
    }

    let mut rng = StdRng::seed_from_u64(2026);
    let today = chrono::Utc::now().date_naive();
    for n in 0..NIGHTS {
        let date = today - Duration::days(7 * (NIGHTS - n) as i64);
        play_night(state, &owner, league, &ids, date, n, &mut rng).await?;
    }
    open_play(state, &owner, &ids, today, &mut rng).await?;
    Ok(Some(Created {
        email: EMAIL.into(),
        password,
    }))
}

async fn play_night(
    state: &AppState,
    owner: &Caller,
    league: i64,
    ids: &[i64],
    date: NaiveDate,
    n: usize,
    rng: &mut StdRng,
) -> Result<()> {
    let (night, _) = nights::create(state, owner, league, NewNight { date }).await?;
    nights::set_checkins(state, owner, night.id, ids).await?;
    nights::propose_seating(
        state,
        owner,
        night.id,
        SeatingRequest {
            seed: Some(n as u64),
            ..Default::default()
        },
    )
    .await?;
    let proposal = nights::details(state, owner, night.id).await?.proposal;
    nights::lock_tables(state, owner, night.id, LockTables { tables: proposal }).await?;
    let tables = nights::details(state, owner, night.id).await?.tables;
    for (t, table) in tables.iter().enumerate() {
        let seats: Vec<i64> = table.players.iter().map(|(id, _)| *id).collect();
        for number in 1..=GAMES_PER_TABLE {
            let special = match (n, t, number) {
                (1, 0, 3) => Special::DeadHand,
                (2, 1, 2) => Special::Corrected,
                (3, 2, 4) => Special::Voided,
                _ => Special::None,
            };
            play_game(state, owner, table.id, number, &seats, special, rng).await?;
        }
    }
    nights::close(state, owner, night.id).await.map(drop)
}

/// An open-play league beside the weekly one: three weeks of matches members arranged (four of
/// the club's players at a time, two to four games each), the games confirmed by the players;
/// the last two matches' games still wait for some of them, one game is disputed; and two open
/// matches ahead on Find a match.
async fn open_play(
    state: &AppState,
    owner: &Caller,
    ids: &[i64],
    today: NaiveDate,
    rng: &mut StdRng,
) -> Result<()> {
    let (league, club) = leagues::create(
        state,
        owner,
        SLUG,
        LeagueInput {
            name: Some("Open play".into()),
            card: Some(CARD.into()),
            ruleset: Some(serde_json::json!("nmjl-money")),
            visibility: Some("public".into()),
            kind: Some("open".into()),
            board: Some("best_per_week".into()),
            best_per_week: Some(2),
            min_games: Some(6),
            ..Default::default()
        },
    )
    .await?;
    let pool: Vec<i64> = ids[..12].to_vec();
    const PLACES: [&str; 4] = [
        "Club room",
        "Ada's kitchen",
        "The Corner Café",
        "Library meeting room",
    ];
    const MATCHES: usize = 12;
    for m in 0..MATCHES {
        // Three weeks back to yesterday, a match every other day or so.
        let date = today - Duration::days(21 - (m as i64 * 20 / MATCHES as i64));
        let mut four = pool.clone();
        for i in 0..4 {
            let j = rng.random_range(i..four.len());
            four.swap(i, j);
        }
        four.truncate(4);
        let time = ["10:00", "13:30", "19:00"][m % 3];
        let place = PLACES[m % PLACES.len()];
        let (_, table) = matches::arrange(state, &league, &club, &four, date, time, place).await?;
        let games = 2 + (m % 3) as i32;
        let recent = m >= MATCHES - 2;
        for number in 1..=games {
            let id = play_game(state, owner, table, number, &four, Special::None, rng).await?;
            // The last two matches: some players have not confirmed yet; one game disputed.
            let confirming: &[i64] = if recent { &four[..2] } else { &four };
            for &p in confirming {
                matches::demo_confirm(state, owner, id, p).await?;
            }
            if m == MATCHES - 1 && number == 1 {
                matches::demo_dispute(
                    state,
                    owner,
                    id,
                    four[3],
                    "That hand was won from a discard, not self-picked",
                )
                .await?;
            }
        }
    }
    // Two matches ahead with seats open.
    for (days, joined, place) in [(2, 1usize, "Club room"), (4, 2, "The Corner Café")] {
        matches::arrange(
            state,
            &league,
            &club,
            &pool[12 - joined..],
            today + Duration::days(days),
            "14:00",
            place,
        )
        .await?;
    }
    Ok(())
}

#[derive(PartialEq)]
enum Special {
    None,
    DeadHand,
    Corrected,
    Voided,
}

/// A winning hand on a random target of the demo card: jokers in some sets, and for a discard
/// win on an open line, up to two sets exposed.
fn winning_hand(rng: &mut StdRng, exposed: bool) -> Option<(String, Vec<String>)> {
    let card = builtin::get(CARD)?;
    let target = &card.targets[rng.random_range(0..card.targets.len())];
    let line = &card.lines[target.line];
    let tiles: Vec<String> = target.tiles.iter().map(|t| t.to_string()).collect();
    let mut groups: Vec<Vec<String>> = Vec::new();
    let mut at = 0;
    for size in group_sizes(&line.patterns[target.alternative]) {
        groups.push(tiles[at..at + size].to_vec());
        at += size;
    }
    let jokerless = rng.random_bool(0.3);
    let mut jokers = 0;
    for g in groups.iter_mut() {
        let set = g.len() >= 3 && g.iter().all(|t| *t == g[0]);
        // Five of a number need a joker; otherwise some sets take one or two.
        let need = usize::from(set && g.len() > 4 && g[0] != "F");
        let want = if !set || jokerless {
            need
        } else {
            need.max(rng.random_range(0..3usize).saturating_sub(1))
        };
        for slot in g.iter_mut().rev().take(want) {
            *slot = "J".into();
            jokers += 1;
        }
    }
    if jokers > 8 || (jokerless && jokers > 0) {
        return None;
    }
    let mut exposures = Vec::new();
    if exposed && !line.concealed {
        for g in &groups {
            if g.len() >= 3 && exposures.len() < 2 && rng.random_bool(0.5) {
                exposures.push(g.join(" "));
            }
        }
    }
    Some((groups.concat().join(" "), exposures))
}

async fn play_game(
    state: &AppState,
    owner: &Caller,
    table: i64,
    number: i32,
    seats: &[i64],
    special: Special,
    rng: &mut StdRng,
) -> Result<i64> {
    for _attempt in 0..50 {
        let mut game = if rng.random_bool(0.08) && special == Special::None {
            GameInput {
                outcome: Outcome::Wall,
                ..game_number(number)
            }
        } else {
            let winner = seats[rng.random_range(0..seats.len())];
            let discard = rng.random_bool(0.6);
            let Some((hand, exposures)) = winning_hand(rng, discard) else {
                continue;
            };
            let discarder = discard.then(|| {
                let others: Vec<i64> = seats.iter().copied().filter(|p| *p != winner).collect();
                others[rng.random_range(0..others.len())]
            });
            GameInput {
                outcome: Outcome::Mahjong,
                winner: Some(winner),
                hand: Some(Tiles::Text(hand)),
                exposures: exposures.into_iter().map(Tiles::Text).collect(),
                won_by: Some(if discard {
                    WonBy::Discard
                } else {
                    WonBy::SelfPick
                }),
                discarder,
                ..game_number(number)
            }
        };
        if special == Special::DeadHand {
            let winner = game.winner.unwrap_or(seats[0]);
            let others: Vec<i64> = seats.iter().copied().filter(|p| *p != winner).collect();
            game.dead.push(DeadInput {
                player: others[0],
                called_by: Some(others[1]),
                reason: Some("exposed a pung of North that fits no line".into()),
                ..Default::default()
            });
        }
        let recorded = match games::record(state, owner, table, None, game.clone()).await {
            Ok(r) => r,
            // A random hand the rules refuse (too many of a tile, say): draw another.
            Err(Error::Invalid { .. }) => continue,
            Err(e) => return Err(e),
        };
        let id = recorded.body["id"].as_i64().unwrap_or_default();
        let version = format!("\"{}\"", recorded.version);
        match special {
            Special::Corrected => {
                // Entered with the wrong winner, then corrected: the audit log shows both.
                let mut fixed = game.clone();
                if let Some(w) = fixed.winner {
                    let next = seats[(seats.iter().position(|p| *p == w).unwrap_or(0) + 1) % 4];
                    fixed.winner = Some(next);
                    if fixed.discarder == Some(next) {
                        fixed.discarder = Some(w);
                    }
                }
                games::amend(state, owner, id, Some(&version), fixed).await?;
            }
            Special::Voided => {
                // Voided (say, entered at the wrong table), then entered again under its number.
                games::void(state, owner, id, Some(&version)).await?;
                let mut again = game.clone();
                again.number = Some(number);
                games::record(state, owner, table, None, again).await?;
            }
            _ => {}
        }
        return Ok(id);
    }
    Err(Error::Internal(anyhow::anyhow!(
        "no valid demo hand for table {table}, game {number}"
    )))
}

fn game_number(number: i32) -> GameInput {
    GameInput {
        number: Some(number),
        outcome: Outcome::Redeal,
        winner: None,
        hand: None,
        exposures: Vec::new(),
        won_by: None,
        discarder: None,
        misnamed_discard: false,
        dead: Vec::new(),
    }
}
