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
/// The most points a balance may carry.
const MAX_BALANCE_POINTS: i64 = 1_000_000_000_000;
/// The most games a balance may carry.
const MAX_BALANCE_GAMES: i64 = 1_000_000;

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

/// What setting opening balances stored (or would store).
#[derive(Serialize, ToSchema)]
pub struct BalancesReport {
    pub dry_run: bool,
    /// Every balance of the league now, by player name.
    pub balances: Vec<Balance>,
    pub players_matched: Vec<PlayerRef>,
    pub players_created: Vec<PlayerRef>,
}

/// A player's opening balance: carried into the league and counted with its games.
#[derive(Serialize, ToSchema)]
pub struct Balance {
    pub player: PlayerRef,
    pub points: i64,
    pub games: i64,
    pub wins: i64,
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

/// Problems found so far, each with its line and column.
#[derive(Default)]
struct Problems(Vec<FieldError>);

impl Problems {
    fn add(&mut self, line: usize, column: &str, message: impl Into<String>) {
        if self.0.len() < MAX_ERRORS {
            let mut e = FieldError::new(column, message);
            e.line = Some(line);
            self.0.push(e);
        }
    }

    fn full(&self) -> bool {
        self.0.len() >= MAX_ERRORS
    }

    fn into_result(self, what: &str) -> Result<()> {
        if self.0.is_empty() {
            return Ok(());
        }
        let first = &self.0[0];
        let more = if self.0.len() > 1 {
            format!(" (and {} more)", self.0.len() - 1)
        } else {
            String::new()
        };
        Err(Error::Invalid {
            detail: format!(
                "{what}: line {}, column {}: {}{more}; nothing was stored",
                first.line.unwrap_or(0),
                first.field,
                first.message
            ),
            errors: self.0,
        })
    }
}

/// The file as text, its byte-order mark dropped.
fn text_of(bytes: &[u8]) -> Result<&str> {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| Error::invalid("file", format!("the file is not UTF-8 text ({e})")))?;
    Ok(text.strip_prefix('\u{feff}').unwrap_or(text))
}

/// A cell as the export wrote it, without the quote that keeps a spreadsheet from reading it
/// as a formula (`'-5` is `-5`).
fn uncell(text: &str) -> String {
    let t = text.trim();
    match t.strip_prefix('\'') {
        Some(rest) if rest.starts_with(['=', '+', '-', '@', '\t', '\r']) => rest.to_string(),
        _ => t.to_string(),
    }
}

/// A CSV with a header row: the column of each name, the required ones checked.
struct Table<'a> {
    columns: HashMap<String, usize>,
    reader: csv::Reader<&'a [u8]>,
    text: &'a str,
    /// Where lines were last counted to: (byte, its line). Rows come in order, so each
    /// newline is counted once.
    counted: (usize, usize),
}

fn open<'a>(text: &'a str, required: &[&str], what: &str) -> Result<Table<'a>> {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(text.as_bytes());
    let header = reader
        .headers()
        .map_err(|e| Error::invalid("file", format!("the header row cannot be read: {e}")))?;
    let columns: HashMap<String, usize> = header
        .iter()
        .enumerate()
        .map(|(i, h)| (h.trim().to_lowercase(), i))
        .collect();
    let missing: Vec<&str> = required
        .iter()
        .filter(|c| !columns.contains_key(**c))
        .copied()
        .collect();
    if !missing.is_empty() {
        let mut p = Problems::default();
        for c in &missing {
            p.add(
                1,
                c,
                format!(
                    "the header row has no `{c}` column; {what} needs the columns {}",
                    required.join(", ")
                ),
            );
        }
        p.into_result(what)?;
    }
    Ok(Table {
        columns,
        reader,
        text,
        counted: (0, 1),
    })
}

impl Table<'_> {
    /// Reads the next row that is not blank into `record` and answers its line; `None` at the
    /// end, or when the file cannot be read further (said in `p`).
    fn next_row(&mut self, record: &mut csv::StringRecord, p: &mut Problems) -> Option<usize> {
        loop {
            let before = self.reader.position().byte() as usize;
            match self.reader.read_record(record) {
                Ok(false) => return None,
                Ok(true) => {}
                Err(e) => {
                    let line = self.line_at(before);
                    p.add(line, "file", format!("the row cannot be read: {e}"));
                    return None;
                }
            }
            if !record.iter().all(|c| c.trim().is_empty()) {
                let at = record.position().map_or(before, |pos| pos.byte() as usize);
                return Some(self.line_at(at));
            }
        }
    }

    /// The line of the row starting at byte `at`, counted as an editor does: the first line
    /// is 1, a CR LF (as a browser's text box sends it) ends one line, and blank lines count.
    fn line_at(&mut self, at: usize) -> usize {
        let (from, line) = self.counted;
        let bytes = self.text.as_bytes();
        // The reader's position may be before the blank lines it skipped; past them it is never
        // between a CR and its LF, nor behind the last row's.
        let mut at = at.clamp(from, bytes.len());
        while at < bytes.len() && matches!(bytes[at], b'\r' | b'\n') {
            at += 1;
        }
        // A line ends at LF, at CR LF (counted at its LF) and at a CR alone.
        let range = &bytes[from..at];
        let ends = range
            .iter()
            .enumerate()
            .filter(|(i, b)| **b == b'\n' || (**b == b'\r' && range.get(i + 1) != Some(&b'\n')))
            .count();
        self.counted = (at, line + ends);
        line + ends
    }

    /// The row's cell in column `name`, unquoted ("" when the row has none).
    fn cell(&self, record: &csv::StringRecord, name: &str) -> String {
        self.columns
            .get(name)
            .and_then(|i| record.get(*i))
            .map(uncell)
            .unwrap_or_default()
    }
}

/// One row of a games file, read. Kept small: a 200,000-row file is held whole while it is
/// checked, so words from a fixed list are `&'static str`, and names and line ids that repeat
/// share one copy (`Shared`).
struct Row {
    line: usize,
    key: RowKey,
    night: i32,
    date: NaiveDate,
    table: i32,
    game: i32,
    status: &'static str,
    outcome: &'static str,
    line_id: Option<Arc<str>>,
    value: Option<i32>,
    player: Arc<str>,
    /// The player's name key (`names::key`), worked out once per name in the file.
    player_key: Arc<str>,
    seat: &'static str,
    score: i64,
    breakdown: Box<str>,
    won_by: Option<&'static str>,
    role: &'static str,
    dead: bool,
    jokerless: bool,
    recorded_at: Option<DateTime<Utc>>,
}

/// Which game a row belongs to: the export's game id, or night, table, number, status and
/// outcome.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum RowKey {
    Id(Box<str>),
    Game(i32, i32, i32, &'static str, &'static str),
}

/// One copy of each text that repeats down a file (players' names, line ids), and each name's
/// key.
#[derive(Default)]
struct Shared(HashSet<Arc<str>>, HashMap<Arc<str>, Arc<str>>);

impl Shared {
    fn key(&mut self, name: &Arc<str>) -> Arc<str> {
        if let Some(k) = self.1.get(name) {
            return k.clone();
        }
        let k: Arc<str> = Arc::from(names::key(name));
        self.1.insert(name.clone(), k.clone());
        k
    }

    fn get(&mut self, text: &str) -> Arc<str> {
        if let Some(t) = self.0.get(text) {
            return t.clone();
        }
        let t: Arc<str> = Arc::from(text);
        self.0.insert(t.clone());
        t
    }
}

const GAME_COLUMNS: [&str; 9] = [
    "night", "date", "table", "game", "outcome", "player", "seat", "score", "role",
];
const WON_BY: [&str; 5] = [
    "self_pick",
    "discard",
    "joker_exchange",
    "heavenly",
    "earthly",
];

/// One row being read: its cells, each wrong one written to the problems, and whether every
/// cell read so far was right.
struct Cells<'r> {
    table: &'r Table<'r>,
    record: &'r csv::StringRecord,
    line: usize,
    p: &'r mut Problems,
    ok: bool,
}

impl Cells<'_> {
    fn get(&self, name: &str) -> String {
        self.table.cell(self.record, name)
    }

    fn wrong(&mut self, name: &str, message: impl Into<String>) {
        self.p.add(self.line, name, message);
        self.ok = false;
    }

    /// A whole number from `low` to `high`.
    fn number(&mut self, name: &str, low: i64, high: i64, what: &str) -> Option<i64> {
        let text = self.get(name);
        match text.parse::<i64>() {
            Ok(n) if (low..=high).contains(&n) => Some(n),
            _ => {
                self.wrong(
                    name,
                    format!("`{text}` is not {what} (a whole number from {low} to {high})"),
                );
                None
            }
        }
    }

    /// One of `allowed` (any case), `default` when the cell is empty.
    fn choice(&mut self, name: &str, allowed: &[&'static str], default: &str) -> &'static str {
        let text = self.get(name).to_lowercase();
        let text = if text.is_empty() {
            default.to_string()
        } else {
            text
        };
        match allowed.iter().find(|a| a.to_lowercase() == text) {
            Some(a) => a,
            None => {
                self.wrong(
                    name,
                    format!("`{text}` is not one of {}", allowed.join(", ")),
                );
                ""
            }
        }
    }

    fn date(&mut self) -> Option<NaiveDate> {
        let date = self.get("date");
        match NaiveDate::parse_from_str(&date, "%Y-%m-%d")
            .map_err(|_| Error::invalid("date", "not a date"))
            .and_then(|d| sensible_date("date", d))
        {
            Ok(d) => Some(d),
            Err(_) => {
                self.wrong(
                    "date",
                    format!("`{date}` is not a date as YYYY-MM-DD between 1900 and 2200"),
                );
                None
            }
        }
    }

    /// The game's status. An open-play game still waiting for its players (or an organizer)
    /// in the league it came from is not taken: what it will count as is not decided yet.
    fn status(&mut self) -> &'static str {
        let waiting = self.get("status").to_lowercase();
        if waiting == "awaiting" || waiting == "disputed" {
            self.wrong(
                "status",
                format!(
                    "this game was {} in the league it came from: settle it there (confirm, count or void it) and export again, or write recorded or voided here",
                    if waiting == "awaiting" {
                        "still waiting for its players to confirm it"
                    } else {
                        "disputed and waiting for an organizer"
                    }
                ),
            );
            return "recorded";
        }
        self.choice("status", &["recorded", "voided"], "recorded")
    }

    fn won_by(&mut self) -> Option<&'static str> {
        let text = self.get("won_by").to_lowercase();
        let won_by = WON_BY.iter().copied().find(|w| *w == text);
        if won_by.is_none() && !text.is_empty() {
            self.wrong(
                "won_by",
                format!("`{text}` is not one of {}", WON_BY.join(", ")),
            );
        }
        won_by
    }

    fn player(&mut self) -> String {
        let player = names::normalize(&self.get("player"));
        if player.is_empty() || player.chars().count() > 100 {
            self.wrong("player", "give the player's name (1 to 100 characters)");
        } else if let Some(c) = names::forbidden(&player) {
            self.wrong("player", invisible(&player, c));
        }
        player
    }

    fn line_id(&mut self) -> Option<String> {
        let line_id = Some(self.get("line")).filter(|l| !l.is_empty());
        if line_id.as_ref().is_some_and(|l| l.chars().count() > 100) {
            self.wrong("line", "a line's id has at most 100 characters");
        }
        line_id
    }

    fn breakdown(&mut self) -> String {
        let breakdown = self.get("breakdown");
        if breakdown.chars().count() > 2_000 {
            self.wrong("breakdown", "a breakdown has at most 2,000 characters");
        }
        breakdown
    }

    fn recorded_at(&mut self) -> Option<DateTime<Utc>> {
        match self.get("recorded_at") {
            t if t.is_empty() => None,
            t => match DateTime::parse_from_rfc3339(&t) {
                Ok(at) => Some(at.with_timezone(&Utc)),
                Err(_) => {
                    self.wrong(
                        "recorded_at",
                        format!("`{t}` is not a time as RFC 3339 (2026-03-04T19:30:00Z)"),
                    );
                    None
                }
            },
        }
    }
}

/// Reads every row, each cell checked; a row with a wrong cell is left out (its problems are
/// in `p`).
fn read_rows(text: &str, games_per_table: i32, p: &mut Problems) -> Result<Vec<Row>> {
    let mut table = open(text, &GAME_COLUMNS, "a games file")?;
    let mut rows = Vec::new();
    let mut shared = Shared::default();
    let mut record = csv::StringRecord::new();
    while let Some(line) = table.next_row(&mut record, p) {
        if rows.len() >= MAX_ROWS {
            p.add(
                line,
                "file",
                format!("a file may have at most {MAX_ROWS} rows; split it by nights"),
            );
            break;
        }
        if p.full() {
            break;
        }
        let mut cells = Cells {
            table: &table,
            record: &record,
            line,
            p: &mut *p,
            ok: true,
        };
        if let Some(row) = read_row(&mut cells, games_per_table, &mut shared) {
            rows.push(row);
        }
    }
    Ok(rows)
}

/// One row, or `None` when a cell of it is wrong.
fn read_row(c: &mut Cells<'_>, games_per_table: i32, shared: &mut Shared) -> Option<Row> {
    let night = c.number("night", 1, 10_000, "a night number");
    let table = c.number("table", 1, 1_000, "a table number");
    let game = c.number(
        "game",
        1,
        games_per_table as i64,
        "a game number in this league",
    );
    let most = MAX_GAME_SCORE as i64;
    let score = c.number("score", -most, most, "a score");
    let value = match c.get("value") {
        v if v.is_empty() => None,
        _ => c
            .number("value", 0, 100_000, "a hand's value")
            .map(|v| v as i32),
    };
    let date = c.date();
    let status = c.status();
    let outcome = c.choice("outcome", &["mahjong", "wall", "redeal"], "");
    let seat = c.choice("seat", &SEAT_WINDS, "");
    let role = c.choice("role", &["winner", "discarder", ""], "");
    let dead = c.choice("dead", &["true", "false"], "false") == "true";
    let jokerless = c.choice("jokerless", &["true", "false"], "false") == "true";
    let won_by = c.won_by();
    let player = c.player();
    let line_id = c.line_id();
    let breakdown = c.breakdown();
    let recorded_at = c.recorded_at();
    if text_has_nul(&[&player, &breakdown, line_id.as_deref().unwrap_or("")]) {
        c.wrong("player", "the row holds a NUL character");
    }
    let (Some(night), Some(table), Some(game), Some(score), Some(date), true) =
        (night, table, game, score, date, c.ok)
    else {
        return None;
    };
    let player_name = shared.get(&player);
    let key = match c.get("game_id") {
        id if !id.is_empty() => RowKey::Id(id.into()),
        _ => RowKey::Game(night as i32, table as i32, game as i32, status, outcome),
    };
    Some(Row {
        line: c.line,
        key,
        night: night as i32,
        date,
        table: table as i32,
        game: game as i32,
        status,
        outcome,
        line_id: line_id.map(|l| shared.get(&l)),
        value,
        player_key: shared.key(&player_name),
        player: player_name,
        seat,
        score,
        breakdown: breakdown.into(),
        won_by,
        role,
        dead,
        jokerless,
        recorded_at,
    })
}

fn text_has_nul(texts: &[&str]) -> bool {
    texts.iter().any(|t| t.contains('\0'))
}

/// A game of the file: its rows, in file order.
struct FileGame<'a> {
    rows: Vec<&'a Row>,
}

impl FileGame<'_> {
    fn first(&self) -> &Row {
        self.rows[0]
    }
}

/// Groups rows into games (a game's rows together) and checks each game, table and night.
fn games_of<'a>(rows: &'a [Row], p: &mut Problems) -> Vec<FileGame<'a>> {
    let mut games: Vec<FileGame> = Vec::new();
    let mut seen: HashMap<&RowKey, usize> = HashMap::new();
    for row in rows {
        match games.last_mut() {
            Some(g) if g.first().key == row.key => g.rows.push(row),
            _ => {
                if let Some(line) = seen.get(&row.key) {
                    p.add(
                        row.line,
                        "game",
                        format!(
                            "this game's rows must be together: it began on line {line}, and other rows came between"
                        ),
                    );
                    continue;
                }
                seen.insert(&row.key, row.line);
                games.push(FileGame { rows: vec![row] });
            }
        }
    }
    for g in &games {
        check_game(g, p);
    }
    // Each night one date; each table's players; a player at one table a night; a number once.
    let mut dates: HashMap<i32, (NaiveDate, usize)> = HashMap::new();
    let mut sitting: HashMap<(i32, Arc<str>), (i32, usize)> = HashMap::new();
    let mut numbers: HashMap<(i32, i32, i32), usize> = HashMap::new();
    let mut tables: HashMap<(i32, i32), HashSet<Arc<str>>> = HashMap::new();
    for g in &games {
        let f = g.first();
        match dates.get(&f.night) {
            Some((d, line)) if *d != f.date => p.add(
                f.line,
                "date",
                format!(
                    "night {} is on {d} on line {line}, and on {} here",
                    f.night, f.date
                ),
            ),
            Some(_) => {}
            None => {
                dates.insert(f.night, (f.date, f.line));
            }
        }
        if f.status == "recorded" && f.outcome != "redeal" {
            if let Some(line) = numbers.get(&(f.night, f.table, f.game)) {
                p.add(
                    f.line,
                    "game",
                    format!(
                        "game {} at table {} of night {} is already on line {line} (a number holds one recorded game; a redeal or a voided game may share it)",
                        f.game, f.table, f.night
                    ),
                );
            } else {
                numbers.insert((f.night, f.table, f.game), f.line);
            }
        }
        let at_table = tables.entry((f.night, f.table)).or_default();
        for r in &g.rows {
            at_table.insert(r.player_key.clone());
            let who = (f.night, r.player_key.clone());
            match sitting.get(&who) {
                Some((t, line)) if *t != f.table => p.add(
                    r.line,
                    "table",
                    format!(
                        "{} plays at table {t} of night {} on line {line} and at table {} here: a player sits at one table a night",
                        r.player, f.night, f.table
                    ),
                ),
                Some(_) => {}
                None => {
                    sitting.insert(who, (f.table, r.line));
                }
            }
        }
        if at_table.len() > 4 {
            p.add(
                f.line,
                "player",
                format!(
                    "table {} of night {} has more than 4 players across its games",
                    f.table, f.night
                ),
            );
        }
    }
    games
}

/// One game's rows agree, and say one coherent result.
fn check_game(g: &FileGame, p: &mut Problems) {
    let f = g.first();
    let what = format!("game {} at table {} of night {}", f.game, f.table, f.night);
    check_rows_agree(g, p);
    check_seats(g, &what, p);
    check_roles(g, &what, p);
}

/// Every row of a game says what its first row says of the game.
fn check_rows_agree(g: &FileGame, p: &mut Problems) {
    let f = g.first();
    for r in &g.rows[1..] {
        let differs = |column: &str, p: &mut Problems| {
            p.add(
                r.line,
                column,
                format!(
                    "differs from line {} of the same game (a game's rows share it)",
                    f.line
                ),
            )
        };
        let agree = [
            ("night", r.night == f.night),
            ("date", r.date == f.date),
            ("table", r.table == f.table),
            ("game", r.game == f.game),
            ("status", r.status == f.status),
            ("outcome", r.outcome == f.outcome),
            ("line", r.line_id == f.line_id),
            ("value", r.value == f.value),
            ("won_by", r.won_by == f.won_by),
            ("jokerless", r.jokerless == f.jokerless),
            ("recorded_at", r.recorded_at == f.recorded_at),
        ];
        for (column, _) in agree.iter().filter(|(_, same)| !same) {
            differs(column, p);
        }
    }
}

/// Two to four rows, each seat and player once, and an East.
fn check_seats(g: &FileGame, what: &str, p: &mut Problems) {
    let f = g.first();
    if !(2..=4).contains(&g.rows.len()) {
        p.add(
            f.line,
            "player",
            format!(
                "{what} has {} rows: a game has one row per player, 2 to 4",
                g.rows.len()
            ),
        );
    }
    for (i, r) in g.rows.iter().enumerate() {
        if let Some(o) = g.rows[..i].iter().find(|o| o.seat == r.seat) {
            p.add(
                r.line,
                "seat",
                format!(
                    "{} sits {} in {what}, as {} does on line {}",
                    r.player, r.seat, o.player, o.line
                ),
            );
        }
        if let Some(o) = g.rows[..i].iter().find(|o| o.player_key == r.player_key) {
            p.add(
                r.line,
                "player",
                format!("{} is in {what} twice (line {} too)", r.player, o.line),
            );
        }
    }
    if !g.rows.iter().any(|r| r.seat == "E") {
        p.add(f.line, "seat", format!("{what} has no East (seat E)"));
    }
}

/// One winner of a mahjong (a discarder only on a discard); nobody wins a wall game or redeal.
fn check_roles(g: &FileGame, what: &str, p: &mut Problems) {
    let f = g.first();
    let winners: Vec<&&Row> = g.rows.iter().filter(|r| r.role == "winner").collect();
    let discarders: Vec<&&Row> = g.rows.iter().filter(|r| r.role == "discarder").collect();
    if f.outcome == "mahjong" {
        if winners.len() != 1 {
            p.add(
                f.line,
                "role",
                format!(
                    "{what} went mahjong: one of its rows has role winner ({} have)",
                    winners.len()
                ),
            );
        }
        if discarders.len() > 1 {
            p.add(
                discarders[1].line,
                "role",
                format!("{what} has more than one discarder"),
            );
        }
        if let Some(d) = discarders.first()
            && f.won_by.is_some_and(|w| w != "discard")
        {
            p.add(
                d.line,
                "role",
                format!(
                    "{what} was won by {}: only a win on a discard has a discarder",
                    f.won_by.unwrap_or_default()
                ),
            );
        }
    } else {
        if let Some(r) = winners.first().or(discarders.first()) {
            p.add(
                r.line,
                "role",
                format!(
                    "{what} is a {} game: nobody wins it or discards into it",
                    f.outcome
                ),
            );
        }
        if f.won_by.is_some() {
            p.add(
                f.line,
                "won_by",
                format!("{what} is a {} game: it has no won_by", f.outcome),
            );
        }
        if f.jokerless {
            p.add(
                f.line,
                "jokerless",
                format!("{what} is a {} game: only a win is jokerless", f.outcome),
            );
        }
    }
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

/// The league's opening balances (same access as its standings).
pub async fn balances(state: &AppState, caller: &Caller, league_id: i64) -> Result<Vec<Balance>> {
    let (league, _) = caller.league(state, league_id, Need::Read).await?;
    Ok(imports::balances(&state.db, league.id)
        .await?
        .into_iter()
        .map(|b| Balance {
            player: PlayerRef {
                id: b.player_id,
                name: b.name,
            },
            points: b.points,
            games: b.games,
            wins: b.wins,
        })
        .collect())
}

/// The balances of a file: (name, points, games, wins), each row checked (422 with every
/// problem's line otherwise).
fn read_balances(text: &str) -> Result<Vec<(String, i64, i64, i64)>> {
    let mut table = open(
        text,
        &["player", "points", "games"],
        "an opening balances file",
    )?;
    let mut p = Problems::default();
    let mut rows: Vec<(String, i64, i64, i64)> = Vec::new();
    let mut lines: HashMap<String, usize> = HashMap::new();
    let mut record = csv::StringRecord::new();
    while let Some(line) = table.next_row(&mut record, &mut p) {
        if rows.len() >= MAX_NEW_PLAYERS || p.full() {
            p.add(
                line,
                "file",
                format!("at most {MAX_NEW_PLAYERS} balances at a time"),
            );
            break;
        }
        let cell = |name: &str| table.cell(&record, name);
        let mut number = |name: &str, low: i64, high: i64| -> Option<i64> {
            let text = cell(name);
            let text = if text.is_empty() && name == "wins" {
                "0".to_string()
            } else {
                text
            };
            match text.parse::<i64>() {
                Ok(n) if (low..=high).contains(&n) => Some(n),
                _ => {
                    p.add(
                        line,
                        name,
                        format!("`{text}` is not a whole number from {low} to {high}"),
                    );
                    None
                }
            }
        };
        let points = number("points", -MAX_BALANCE_POINTS, MAX_BALANCE_POINTS);
        let games = number("games", 1, MAX_BALANCE_GAMES);
        let wins = number("wins", 0, MAX_BALANCE_GAMES);
        let player = names::normalize(&cell("player"));
        if player.is_empty() || player.chars().count() > 100 || player.contains('\0') {
            p.add(
                line,
                "player",
                "give the player's name (1 to 100 characters)",
            );
            continue;
        }
        if let Some(c) = names::forbidden(&player) {
            p.add(line, "player", invisible(&player, c));
            continue;
        }
        if let Some(other) = lines.get(&names::key(&player)) {
            p.add(
                line,
                "player",
                format!("{player} has a balance on line {other} already"),
            );
            continue;
        }
        lines.insert(names::key(&player), line);
        let (Some(points), Some(games), Some(wins)) = (points, games, wins) else {
            continue;
        };
        if wins > games {
            p.add(
                line,
                "wins",
                format!("{player} has {wins} wins in {games} games"),
            );
            continue;
        }
        rows.push((player, points, games, wins));
    }
    p.into_result("the opening balances were refused")?;
    Ok(rows)
}

/// Replaces the league's opening balances with a CSV of `player`, `points`, `games` and
/// optionally `wins` (organizers; `importer` first). A file with its header only clears them.
pub async fn set_balances(
    state: &AppState,
    league: &League,
    bytes: &[u8],
    dry_run: bool,
) -> Result<BalancesReport> {
    let rows = read_balances(text_of(bytes)?)?;
    let names: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
    let _unheard = state.freshness.unheard();
    let mut tx = ImportTx::begin(&state.db, league.id).await?;
    let (matched, created) = tx.players(league.club_id, &names).await?;
    let ids: HashMap<String, (i64, String)> = matched
        .iter()
        .chain(&created)
        .map(|(id, name)| (names::key(name), (*id, name.clone())))
        .collect();
    let mut stored: Vec<(i64, i64, i64, i64)> = Vec::new();
    let mut balances: Vec<Balance> = Vec::new();
    for (name, points, games, wins) in &rows {
        let (id, name) = ids.get(&names::key(name)).cloned().unwrap_or_default();
        stored.push((id, *points, *games, *wins));
        balances.push(Balance {
            player: PlayerRef {
                id: if dry_run && created.iter().any(|c| c.0 == id) {
                    0
                } else {
                    id
                },
                name,
            },
            points: *points,
            games: *games,
            wins: *wins,
        });
    }
    tx.set_balances(&stored).await?;
    tx.finish(!dry_run).await?;
    if !dry_run {
        state.freshness.changed();
        state.events.poke();
    }
    balances.sort_by(|a, b| a.player.name.cmp(&b.player.name));
    Ok(BalancesReport {
        dry_run,
        balances,
        players_matched: refs(&matched, true),
        players_created: refs(&created, !dry_run),
    })
}

/// A file's name that holds an invisible or control character, said on its line.
fn invisible(name: &str, c: char) -> String {
    format!(
        "`{}` holds {}, a character that shows nothing (a zero-width or direction mark) or a control character; write the name without it",
        name.replace(c, ""),
        names::code_point(c)
    )
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
