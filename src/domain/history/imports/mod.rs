//! History in (organizers): a league's games from a CSV in the columns `GET …/games.csv`
//! writes, and opening balances (points, games and wins a player carries in from before).
//!
//! The whole file is checked before anything is stored: every row's cells, then each game
//! (its rows agree, one winner, seats and players once), each table (at most four players, a
//! player at one table a night) and each night (one date, not already in the league). A
//! refusal lists each problem with its line and column, and nothing is stored. Players are
//! matched by name in the club (any case) and created when missing; the answer says which.
//! The games are stored in one transaction with their nights (closed), tables, seats,
//! check-ins, audit entries and events; a dry run does all of it and rolls it back, so it
//! answers exactly what the import would store. Scores are kept as the file gives them (the
//! file has no tiles to score again).

//!
//! Here: the import itself and what it answers; `reading` reads and checks a games file;
//! `balances` reads and stores opening balances.

mod balances;
mod reading;
pub use balances::*;
use reading::*;

use crate::storage::people::names;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use chrono::{DateTime, NaiveDate, Utc};
use serde::Serialize;
use utoipa::ToSchema;

use crate::domain::play::game_view::Game;
use crate::domain::play::games::{MAX_GAME_SCORE, SEAT_WINDS};
use crate::domain::play::nights::PlayerRef;
use crate::domain::{
    AppState, Caller, Error, FieldError, Need, Result, play::events, sensible_date,
};
use crate::storage::history::imports::{self, Ids, ImportTx, ImportedGame, NewNight, NewTable};
use crate::storage::play::game_pages::{ListedGame, ListedScore};
use crate::storage::seasons::leagues::League;

/// The largest file an import takes (a season of a big club is a few megabytes).
pub const IMPORT_LIMIT: usize = 16 * 1024 * 1024;
/// The most rows a file may have.
pub const MAX_ROWS: usize = 200_000;
/// The most players one import may add to the club.
pub const MAX_NEW_PLAYERS: usize = 2_000;
/// Games built and stored at a time.
const STORE_CHUNK: usize = 1_000;
/// The most problems one refusal lists.
const MAX_ERRORS: usize = 50;

/// What an import stored (or, for a dry run, would store).
#[derive(Serialize, ToSchema)]
pub struct ImportReport {
    /// True when nothing was stored.
    pub dry_run: bool,
    /// Rows read (one per player per game).
    pub rows: usize,
    /// Games, every status and outcome.
    pub games: usize,
    /// Games that count in the standings (recorded, not redeals).
    pub counted: usize,
    pub voided: usize,
    pub redeals: usize,
    /// The nights made, in order.
    pub nights: Vec<ImportedNight>,
    /// Players of the club the file's names were matched to.
    pub players_matched: Vec<PlayerRef>,
    /// Players the import added to the club (names the club did not have).
    pub players_created: Vec<PlayerRef>,
    /// What was stored (or would be) but deserves a look, in words: nights outside the
    /// league's dates.
    pub warnings: Vec<String>,
}

/// A night an import made.
#[derive(Serialize, ToSchema)]
pub struct ImportedNight {
    #[schema(example = 3)]
    pub number: i32,
    pub date: NaiveDate,
    pub tables: usize,
    pub games: usize,
}

/// The league, if the caller may import into it (organizers): checked before the file is read.
pub async fn importer(state: &AppState, caller: &Caller, league_id: i64) -> Result<League> {
    Ok(caller.league(state, league_id, Need::Admin).await?.0)
}

/// A turn to read an import, held until it is done; 429 with `Retry-After` while as many
/// imports as the process reads at once are being read.
pub fn turn(state: &AppState) -> Result<tokio::sync::OwnedSemaphorePermit> {
    state
        .imports
        .clone()
        .try_acquire_owned()
        .map_err(|_| Error::TooManyRequests {
            detail: format!(
                "this server is reading {} other imports right now; send the file again in a few seconds",
                crate::state::MAX_IMPORTS_AT_ONCE
            ),
            retry_after_secs: 5,
        })
}

/// Imports a games file into the league (organizers; `importer` first). Refused whole with
/// each problem's line and column, or stored whole; a dry run stores nothing and answers what
/// would be stored.
pub async fn games(
    state: &AppState,
    caller: &Caller,
    league: &League,
    bytes: &[u8],
    dry_run: bool,
) -> Result<ImportReport> {
    let text = text_of(bytes)?;
    let mut p = Problems::default();
    let rows = read_rows(text, league.games_per_table, &mut p)?;
    // Games are checked once every cell reads (a row left out would make its game look wrong).
    let file_games = if p.0.is_empty() {
        games_of(&rows, &mut p)
    } else {
        Vec::new()
    };
    if rows.is_empty() && p.0.is_empty() {
        p.add(2, "file", "the file has no rows after its header");
    }
    p.into_result("the games file was refused")?;

    let nights: BTreeMap<i32, NaiveDate> = file_games
        .iter()
        .map(|g| (g.first().night, g.first().date))
        .collect();
    let _unheard = state.freshness.unheard();
    let mut tx = ImportTx::begin(&state.db, league.id).await?;
    // A refusal rolls back what was taken.
    let checked = match refuse_taken_nights(state, league, &mut tx, &nights, &file_games).await {
        Ok(()) => players_of(league, &mut tx, &rows).await,
        Err(e) => Err(e),
    };
    let (ids, matched, created) = match checked {
        Ok(found) => found,
        Err(e) => {
            tx.finish(false).await?;
            return Err(e);
        }
    };
    let sessions = Sessions::take(&mut tx, &nights, &file_games, &ids).await?;
    let totals = store_games(caller, &mut tx, &file_games, &ids, &sessions).await?;
    tx.games_stored(totals.counted > 0).await?;
    tx.finish(!dry_run).await?;
    if !dry_run {
        state.freshness.changed();
        state.events.poke();
        state.metrics.games_recorded.inc_by(totals.games as u64);
    }
    Ok(ImportReport {
        warnings: date_warnings(league, &nights),
        dry_run,
        rows: rows.len(),
        games: totals.games,
        counted: totals.counted,
        voided: totals.voided,
        redeals: totals.redeals,
        nights: sessions.report(&totals.games_of_night),
        players_matched: refs(&matched, true),
        players_created: refs(&created, !dry_run),
    })
}

/// Players as an answer names them; without `ids` (made by a dry run, so not stored) each id
/// is 0.
fn refs(list: &[(i64, String)], ids: bool) -> Vec<PlayerRef> {
    list.iter()
        .map(|(id, name)| PlayerRef {
            id: if ids { *id } else { 0 },
            name: name.clone(),
        })
        .collect()
}

/// Refuses a file with nights the league has already (409, each with its line).
async fn refuse_taken_nights(
    state: &AppState,
    league: &League,
    tx: &mut ImportTx,
    nights: &BTreeMap<i32, NaiveDate>,
    file_games: &[FileGame<'_>],
) -> Result<()> {
    let taken = tx
        .taken_nights(&nights.keys().copied().collect::<Vec<_>>())
        .await?;
    if taken.is_empty() {
        return Ok(());
    }
    let mut p = Problems::default();
    if taken.len() == nights.len() {
        // Every night of the file is here already: the same file sent again, said once.
        let (made, games, imported) = tx.taken_summary(&taken).await?;
        let zone: chrono_tz::Tz = crate::storage::people::clubs::by_id(&state.db, league.club_id)
            .await?
            .and_then(|c| c.time_zone.parse().ok())
            .unwrap_or(chrono_tz::UTC);
        let session = league.session_lower();
        let all = if taken.len() == 1 {
            format!("this file's {session} is")
        } else {
            format!("all {} of this file's {session}s are", taken.len())
        };
        let when = if imported {
            format!(
                "imported on {} with {games} games",
                made.with_timezone(&zone).date_naive()
            )
        } else {
            format!("entered here, with {games} games")
        };
        p.add(
            file_games.first().map_or(2, |g| g.first().line),
            "night",
            format!(
                "{all} in this league already: {when}; an import adds only {session}s the league does not have yet"
            ),
        );
        return Err(conflict(p));
    }
    for n in &taken {
        if let Some(g) = file_games.iter().find(|g| g.first().night == *n) {
            p.add(
                g.first().line,
                "night",
                format!(
                    "{} {n} is already in this league: an import adds nights the league does not have yet",
                    league.session()
                ),
            );
        }
    }
    Err(conflict(p))
}

/// The file's players by name key: (id, name as the club has it).
type PlayerIds = HashMap<String, (i64, String)>;

/// The club's player for a name of the file.
fn who(ids: &PlayerIds, name: &str) -> (i64, String) {
    ids.get(&names::key(name)).cloned().unwrap_or_default()
}

/// The file's players matched in the club or made (names as first written in the file), with
/// the ids of both; at most `MAX_NEW_PLAYERS` made (422 otherwise).
async fn players_of(
    league: &League,
    tx: &mut ImportTx,
    rows: &[Row],
) -> Result<(PlayerIds, Vec<(i64, String)>, Vec<(i64, String)>)> {
    let mut names: Vec<String> = Vec::new();
    let mut known: HashSet<Arc<str>> = HashSet::new();
    for r in rows {
        if known.insert(r.player_key.clone()) {
            names.push(r.player.to_string());
        }
    }
    let (matched, created) = tx.players(league.club_id, &names).await?;
    if created.len() > MAX_NEW_PLAYERS {
        return Err(Error::invalid(
            "player",
            format!(
                "the file names {} players the club does not have; one import adds at most {MAX_NEW_PLAYERS}",
                created.len()
            ),
        ));
    }
    let ids: PlayerIds = matched
        .iter()
        .chain(&created)
        .map(|(id, name)| (names::key(name), (*id, name.clone())))
        .collect();
    Ok((ids, matched, created))
}

/// The nights and tables an import makes, with ids taken first so the games' events can be
/// made, stored before the games.
struct Sessions {
    nights: Vec<NewNight>,
    tables: Vec<NewTable>,
    night_id: HashMap<i32, i64>,
    night_date: HashMap<i32, NaiveDate>,
    /// By (night number, table number).
    table_id: HashMap<(i32, i32), i64>,
    /// The night of each table id.
    night_of: HashMap<i64, i64>,
}

impl Sessions {
    async fn take(
        tx: &mut ImportTx,
        nights: &BTreeMap<i32, NaiveDate>,
        file_games: &[FileGame<'_>],
        ids: &PlayerIds,
    ) -> Result<Sessions> {
        let night_ids = tx.ids(Ids::Nights, nights.len()).await?;
        let new_nights: Vec<NewNight> = nights
            .iter()
            .zip(&night_ids)
            .map(|((number, date), id)| NewNight {
                id: *id,
                number: *number,
                date: *date,
            })
            .collect();
        let night_id: HashMap<i32, i64> = new_nights.iter().map(|n| (n.number, n.id)).collect();
        let mut table_games: BTreeMap<(i32, i32), Vec<&FileGame>> = BTreeMap::new();
        for g in file_games {
            table_games
                .entry((g.first().night, g.first().table))
                .or_default()
                .push(g);
        }
        let table_ids = tx.ids(Ids::Tables, table_games.len()).await?;
        let mut tables = Vec::new();
        let mut table_id: HashMap<(i32, i32), i64> = HashMap::new();
        for (((night, table), games), id) in table_games.iter().zip(&table_ids) {
            tables.push(NewTable {
                id: *id,
                night_id: night_id[night],
                number: *table,
                players: seat_order(games).iter().map(|n| who(ids, n).0).collect(),
            });
            table_id.insert((*night, *table), *id);
        }
        tx.store_sessions(&new_nights, &tables).await?;
        Ok(Sessions {
            night_date: new_nights.iter().map(|n| (n.number, n.date)).collect(),
            night_of: tables.iter().map(|t| (t.id, t.night_id)).collect(),
            nights: new_nights,
            tables,
            night_id,
            table_id,
        })
    }

    /// The nights made, each with its tables and games.
    fn report(&self, games_of_night: &HashMap<i64, usize>) -> Vec<ImportedNight> {
        let mut tables_of: HashMap<i64, usize> = HashMap::new();
        for t in &self.tables {
            *tables_of.entry(t.night_id).or_default() += 1;
        }
        self.nights
            .iter()
            .map(|n| ImportedNight {
                number: n.number,
                date: n.date,
                tables: tables_of.get(&n.id).copied().unwrap_or(0),
                games: games_of_night.get(&n.id).copied().unwrap_or(0),
            })
            .collect()
    }
}

/// What the games an import stored add up to.
#[derive(Default)]
struct Stored {
    games: usize,
    counted: usize,
    voided: usize,
    redeals: usize,
    /// By night id.
    games_of_night: HashMap<i64, usize>,
}

/// Stores the file's games in the order they were recorded (file order for those without a
/// time: ratings follow that order), with their events. A chunk of games at a time: built,
/// stored and dropped, so a large file's games (with their events) are never all in memory
/// at once.
async fn store_games(
    caller: &Caller,
    tx: &mut ImportTx,
    file_games: &[FileGame<'_>],
    ids: &PlayerIds,
    sessions: &Sessions,
) -> Result<Stored> {
    let mut order: Vec<usize> = (0..file_games.len()).collect();
    if file_games.iter().all(|g| g.first().recorded_at.is_some()) {
        order.sort_by_key(|&i| (file_games[i].first().recorded_at, i));
    }
    let game_ids = tx.ids(Ids::Games, file_games.len()).await?;
    let orders = tx.ids(Ids::StandingsOrder, file_games.len()).await?;
    let now = Utc::now();
    let actor = caller.actor();
    let mut totals = Stored::default();
    for (c, chunk) in order.chunks(STORE_CHUNK).enumerate() {
        let mut stored = Vec::with_capacity(chunk.len());
        let mut news: Vec<(&str, serde_json::Value)> = Vec::with_capacity(chunk.len());
        for (j, &i) in chunk.iter().enumerate() {
            let k = c * STORE_CHUNK + j;
            let g = &file_games[i];
            let game = imported_game(g, ids, sessions, (game_ids[k], orders[k]), now);
            let mut view = view_of(&game, g, ids, sessions);
            news.push((
                events::GAME_RECORDED,
                serde_json::to_value(&view).map_err(Error::internal)?,
            ));
            if game.status == "voided" {
                view.status = "voided".into();
                view.version = 2;
                news.push((
                    events::GAME_VOIDED,
                    serde_json::to_value(&view).map_err(Error::internal)?,
                ));
                totals.voided += 1;
            } else if game.outcome == "redeal" {
                totals.redeals += 1;
            } else {
                totals.counted += 1;
            }
            *totals
                .games_of_night
                .entry(sessions.night_of[&game.table_id])
                .or_default() += 1;
            totals.games += 1;
            stored.push(game);
        }
        tx.store_games(&stored, &actor, &news).await?;
    }
    Ok(totals)
}

/// A game of the file as stored: `id` and its standings order taken before.
fn imported_game(
    g: &FileGame<'_>,
    ids: &PlayerIds,
    sessions: &Sessions,
    (id, standings_order): (i64, i64),
    now: DateTime<Utc>,
) -> ImportedGame {
    let f = g.first();
    let person = |role: &str| {
        g.rows
            .iter()
            .find(|r| r.role == role)
            .map(|r| who(ids, &r.player).0)
    };
    let mut rows = g.rows.clone();
    rows.sort_by_key(|r| SEAT_WINDS.iter().position(|w| *w == r.seat));
    ImportedGame {
        id,
        table_id: sessions.table_id[&(f.night, f.table)],
        number: f.game,
        east_player: rows
            .iter()
            .find(|r| r.seat == "E")
            .map_or(0, |r| who(ids, &r.player).0),
        outcome: f.outcome,
        status: f.status,
        submitted: serde_json::json!({
            "number": f.game,
            "outcome": f.outcome,
            "winner": person("winner"),
            "won_by": f.won_by,
            "discarder": person("discarder"),
            "dead": rows.iter().filter(|r| r.dead).map(|r| serde_json::json!({"player": who(ids, &r.player).0})).collect::<Vec<_>>(),
            "imported": {"line": f.line, "value": f.value, "jokerless": f.jokerless},
        }),
        line_id: f.line_id.clone(),
        line_value: f.value,
        winner: person("winner"),
        discarder: person("discarder"),
        won_by: f.won_by,
        jokerless: f.jokerless,
        standings_order,
        recorded_at: f.recorded_at.unwrap_or(now),
        scores: rows
            .iter()
            .map(|r| {
                let breakdown: Box<str> = if r.breakdown.is_empty() {
                    "imported".into()
                } else {
                    r.breakdown.clone()
                };
                (who(ids, &r.player).0, r.seat, r.score, breakdown, r.dead)
            })
            .collect(),
    }
}

/// The game as the API shows it once recorded (for its `game.recorded` event).
fn view_of(game: &ImportedGame, g: &FileGame<'_>, ids: &PlayerIds, sessions: &Sessions) -> Game {
    let f = g.first();
    let listed = ListedGame {
        id: game.id,
        night_id: sessions.night_id[&f.night],
        night_number: f.night,
        night_date: sessions.night_date[&f.night],
        table_id: game.table_id,
        table_number: f.table,
        number: game.number,
        status: "recorded".into(),
        version: 1,
        outcome: game.outcome.into(),
        won_by: game.won_by.map(str::to_string),
        winner: game.winner,
        discarder: game.discarder,
        jokerless: game.jokerless,
        line_id: game.line_id.as_deref().map(str::to_string),
        line_value: game.line_value,
        east_player: game.east_player,
        submitted: game.submitted.clone(),
        created_at: game.recorded_at,
        updated_at: game.recorded_at,
        event_id: None,
        awaiting: false,
        disputed_at: None,
    };
    let scores: Vec<ListedScore> = game
        .scores
        .iter()
        .map(|(player, seat, score, breakdown, dead)| ListedScore {
            game_id: game.id,
            player_id: *player,
            name: g
                .rows
                .iter()
                .map(|r| who(ids, &r.player))
                .find(|(id, _)| id == player)
                .map(|(_, name)| name.to_string())
                .unwrap_or_default(),
            seat: seat.to_string(),
            score: *score,
            breakdown: breakdown.to_string(),
            dead: *dead,
        })
        .collect();
    Game::stored(listed, scores)
}

/// A word on nights outside the league's dates, if any are.
fn date_warnings(league: &League, nights: &BTreeMap<i32, NaiveDate>) -> Vec<String> {
    let outside: Vec<NaiveDate> = nights
        .values()
        .copied()
        .filter(|d| {
            league.starts_on.is_some_and(|s| *d < s) || league.ends_on.is_some_and(|e| *d > e)
        })
        .collect();
    let mut warnings = Vec::new();
    if let (Some(first), Some(last)) = (outside.iter().min(), outside.iter().max()) {
        let shown = |d: Option<NaiveDate>| d.map_or("–".to_string(), |d| d.to_string());
        let session = league.session_lower();
        warnings.push(format!(
            "{} (from {first} to {last}) {} outside the league's dates, {} to {}: its results give \
             dates that cover every {session}; if the league's dates are wrong, change them in its settings",
            if outside.len() == 1 {
                format!("1 {session}")
            } else {
                format!("{} {session}s", outside.len())
            },
            if outside.len() == 1 { "is" } else { "are" },
            shown(league.starts_on),
            shown(league.ends_on),
        ));
    }
    warnings
}

/// A refusal for what is stored (409), each problem with its line.
fn conflict(p: Problems) -> Error {
    let each: Vec<String> =
        p.0.iter()
            .map(|e| format!("line {}: {}", e.line.unwrap_or(0), e.message))
            .collect();
    Error::Conflict(format!("{}; nothing was stored", each.join("; ")))
}

/// A table's players in seat order (seat 0 is East at game 1): from its first game, each
/// player's wind turned back by the game's number (East moves one seat a game); anyone else
/// who played at the table after them.
fn seat_order(games: &[&FileGame]) -> Vec<String> {
    let first = games
        .iter()
        .min_by_key(|g| (g.first().status != "recorded", g.first().game))
        .expect("a table has a game");
    let n = first.rows.len().max(1);
    let east = (first.first().game.max(1) as usize - 1) % n;
    let mut seats: Vec<(usize, String)> = first
        .rows
        .iter()
        .map(|r| {
            let wind = SEAT_WINDS.iter().position(|w| *w == r.seat).unwrap_or(0);
            ((wind + east) % n, r.player.to_string())
        })
        .collect();
    seats.sort();
    let mut order: Vec<String> = seats.into_iter().map(|(_, name)| name).collect();
    for g in games {
        for r in &g.rows {
            if !order.iter().any(|o| names::key(o) == names::key(&r.player)) {
                order.push(r.player.to_string());
            }
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_numbered_as_an_editor_numbers_lines() {
        for end in ["\n", "\r\n", "\r"] {
            let text = ["player,points,games", "Ann,1,1", "", "Bea,x,1", ""].join(end);
            let mut table = open(&text, &["player"], "a file").unwrap();
            let (mut p, mut record) = (Problems::default(), csv::StringRecord::new());
            let lines: Vec<usize> =
                std::iter::from_fn(|| table.next_row(&mut record, &mut p)).collect();
            assert_eq!(lines, vec![2, 4], "{end:?}");
        }
    }

    fn problems(text: &str) -> Vec<(usize, String, String)> {
        let mut p = Problems::default();
        let rows = read_rows(text, 4, &mut p).unwrap();
        games_of(&rows, &mut p);
        p.0.into_iter()
            .map(|e| (e.line.unwrap(), e.field, e.message))
            .collect()
    }

    const HEAD: &str = "night,date,table,game,status,outcome,line,value,player,seat,score,role\n";

    #[test]
    fn a_good_game_has_no_problems_and_a_bad_cell_is_named_by_line_and_column() {
        let good = format!(
            "{HEAD}1,2026-03-03,1,1,recorded,mahjong,2468#1,25,Ann,E,150,winner\n\
             1,2026-03-03,1,1,recorded,mahjong,2468#1,25,Bea,S,-50,discarder\n\
             1,2026-03-03,1,1,recorded,mahjong,2468#1,25,Cy,W,-50,\n\
             1,2026-03-03,1,1,recorded,mahjong,2468#1,25,Dot,N,-50,\n"
        );
        assert_eq!(problems(&good), vec![]);
        let bad = good.replace("Cy,W,-50", "Cy,W,lots");
        let found = problems(&bad);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!((found[0].0, found[0].1.as_str()), (4, "score"));
        // A game numbered past the league's games per table.
        let past = good.replace(",1,1,recorded", ",1,5,recorded");
        assert!(problems(&past).iter().all(|p| p.1 == "game"));
    }

    #[test]
    fn a_game_needs_one_winner_distinct_seats_and_one_date_a_night() {
        let two_winners = format!(
            "{HEAD}1,2026-03-03,1,1,recorded,mahjong,,,Ann,E,10,winner\n\
             1,2026-03-03,1,1,recorded,mahjong,,,Bea,E,10,winner\n"
        );
        let found = problems(&two_winners);
        assert!(found.iter().any(|p| p.1 == "seat" && p.0 == 3), "{found:?}");
        assert!(found.iter().any(|p| p.1 == "role" && p.0 == 2), "{found:?}");
        let dates = format!(
            "{HEAD}1,2026-03-03,1,1,recorded,wall,,,Ann,E,0,\n\
             1,2026-03-03,1,1,recorded,wall,,,Bea,S,0,\n\
             1,2026-03-10,2,1,recorded,wall,,,Cy,E,0,\n\
             1,2026-03-10,2,1,recorded,wall,,,Dot,S,0,\n"
        );
        let found = problems(&dates);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!((found[0].0, found[0].1.as_str()), (4, "date"));
        // A player at two tables of one night.
        let twice = dates
            .replace("2026-03-10", "2026-03-03")
            .replace("Dot", "Ann");
        let found = problems(&twice);
        assert!(
            found.iter().any(|p| p.1 == "table" && p.0 == 5),
            "{found:?}"
        );
    }

    #[test]
    fn seats_turn_back_from_a_later_game() {
        let rows = format!(
            "{HEAD}1,2026-03-03,1,2,recorded,wall,,,Ann,N,0,\n\
             1,2026-03-03,1,2,recorded,wall,,,Bea,E,0,\n\
             1,2026-03-03,1,2,recorded,wall,,,Cy,S,0,\n\
             1,2026-03-03,1,2,recorded,wall,,,Dot,W,0,\n"
        );
        let mut p = Problems::default();
        let rows = read_rows(&rows, 4, &mut p).unwrap();
        let games = games_of(&rows, &mut p);
        let refs: Vec<&FileGame> = games.iter().collect();
        // In game 2 East has moved one seat on: Ann (North in game 2) was East in game 1.
        assert_eq!(seat_order(&refs), ["Ann", "Bea", "Cy", "Dot"]);
    }

    #[test]
    fn a_quoted_formula_guard_is_taken_off() {
        assert_eq!(uncell("'-50"), "-50");
        assert_eq!(uncell("'tis"), "'tis");
    }
}
