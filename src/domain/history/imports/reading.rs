//! A games file read and checked whole before anything is stored: each row's cells, then each
//! game (its rows agree, one winner, seats and players once); every problem with its line and
//! column.

use super::*;

/// Problems found so far, each with its line and column.
#[derive(Default)]
pub(super) struct Problems(pub(super) Vec<FieldError>);

impl Problems {
    pub(super) fn add(&mut self, line: usize, column: &str, message: impl Into<String>) {
        if self.0.len() < MAX_ERRORS {
            let mut e = FieldError::new(column, message);
            e.line = Some(line);
            self.0.push(e);
        }
    }

    pub(super) fn full(&self) -> bool {
        self.0.len() >= MAX_ERRORS
    }

    pub(super) fn into_result(self, what: &str) -> Result<()> {
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
pub(super) fn text_of(bytes: &[u8]) -> Result<&str> {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| Error::invalid("file", format!("the file is not UTF-8 text ({e})")))?;
    Ok(text.strip_prefix('\u{feff}').unwrap_or(text))
}

/// A cell as the export wrote it, without the quote that keeps a spreadsheet from reading it
/// as a formula (`'-5` is `-5`).
pub(super) fn uncell(text: &str) -> String {
    let t = text.trim();
    match t.strip_prefix('\'') {
        Some(rest) if rest.starts_with(['=', '+', '-', '@', '\t', '\r']) => rest.to_string(),
        _ => t.to_string(),
    }
}

/// A CSV with a header row: the column of each name, the required ones checked.
pub(super) struct Table<'a> {
    pub(super) columns: HashMap<String, usize>,
    pub(super) reader: csv::Reader<&'a [u8]>,
    pub(super) text: &'a str,
    /// Where lines were last counted to: (byte, its line). Rows come in order, so each
    /// newline is counted once.
    pub(super) counted: (usize, usize),
}

pub(super) fn open<'a>(text: &'a str, required: &[&str], what: &str) -> Result<Table<'a>> {
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
    pub(super) fn next_row(
        &mut self,
        record: &mut csv::StringRecord,
        p: &mut Problems,
    ) -> Option<usize> {
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
    pub(super) fn line_at(&mut self, at: usize) -> usize {
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
    pub(super) fn cell(&self, record: &csv::StringRecord, name: &str) -> String {
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
pub(super) struct Row {
    pub(super) line: usize,
    pub(super) key: RowKey,
    pub(super) night: i32,
    pub(super) date: NaiveDate,
    pub(super) table: i32,
    pub(super) game: i32,
    pub(super) status: &'static str,
    pub(super) outcome: &'static str,
    pub(super) line_id: Option<Arc<str>>,
    pub(super) value: Option<i32>,
    pub(super) player: Arc<str>,
    /// The player's name key (`names::key`), worked out once per name in the file.
    pub(super) player_key: Arc<str>,
    pub(super) seat: &'static str,
    pub(super) score: i64,
    pub(super) breakdown: Box<str>,
    pub(super) won_by: Option<&'static str>,
    pub(super) role: &'static str,
    pub(super) dead: bool,
    pub(super) jokerless: bool,
    pub(super) recorded_at: Option<DateTime<Utc>>,
}

/// Which game a row belongs to: the export's game id, or night, table, number, status and
/// outcome.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum RowKey {
    Id(Box<str>),
    Game(i32, i32, i32, &'static str, &'static str),
}

/// One copy of each text that repeats down a file (players' names, line ids), and each name's
/// key.
#[derive(Default)]
pub(super) struct Shared(
    pub(super) HashSet<Arc<str>>,
    pub(super) HashMap<Arc<str>, Arc<str>>,
);

impl Shared {
    pub(super) fn key(&mut self, name: &Arc<str>) -> Arc<str> {
        if let Some(k) = self.1.get(name) {
            return k.clone();
        }
        let k: Arc<str> = Arc::from(names::key(name));
        self.1.insert(name.clone(), k.clone());
        k
    }

    pub(super) fn get(&mut self, text: &str) -> Arc<str> {
        if let Some(t) = self.0.get(text) {
            return t.clone();
        }
        let t: Arc<str> = Arc::from(text);
        self.0.insert(t.clone());
        t
    }
}

pub(super) const GAME_COLUMNS: [&str; 9] = [
    "night", "date", "table", "game", "outcome", "player", "seat", "score", "role",
];

pub(super) const WON_BY: [&str; 5] = [
    "self_pick",
    "discard",
    "joker_exchange",
    "heavenly",
    "earthly",
];

/// One row being read: its cells, each wrong one written to the problems, and whether every
/// cell read so far was right.
pub(super) struct Cells<'r> {
    pub(super) table: &'r Table<'r>,
    pub(super) record: &'r csv::StringRecord,
    pub(super) line: usize,
    pub(super) p: &'r mut Problems,
    pub(super) ok: bool,
}

impl Cells<'_> {
    pub(super) fn get(&self, name: &str) -> String {
        self.table.cell(self.record, name)
    }

    pub(super) fn wrong(&mut self, name: &str, message: impl Into<String>) {
        self.p.add(self.line, name, message);
        self.ok = false;
    }

    /// A whole number from `low` to `high`.
    pub(super) fn number(&mut self, name: &str, low: i64, high: i64, what: &str) -> Option<i64> {
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
    pub(super) fn choice(
        &mut self,
        name: &str,
        allowed: &[&'static str],
        default: &str,
    ) -> &'static str {
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

    pub(super) fn date(&mut self) -> Option<NaiveDate> {
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
    pub(super) fn status(&mut self) -> &'static str {
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

    pub(super) fn won_by(&mut self) -> Option<&'static str> {
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

    pub(super) fn player(&mut self) -> String {
        let player = names::normalize(&self.get("player"));
        if player.is_empty() || player.chars().count() > 100 {
            self.wrong("player", "give the player's name (1 to 100 characters)");
        } else if let Some(c) = names::forbidden(&player) {
            self.wrong("player", invisible(&player, c));
        }
        player
    }

    pub(super) fn line_id(&mut self) -> Option<String> {
        let line_id = Some(self.get("line")).filter(|l| !l.is_empty());
        if line_id.as_ref().is_some_and(|l| l.chars().count() > 100) {
            self.wrong("line", "a line's id has at most 100 characters");
        }
        line_id
    }

    pub(super) fn breakdown(&mut self) -> String {
        let breakdown = self.get("breakdown");
        if breakdown.chars().count() > 2_000 {
            self.wrong("breakdown", "a breakdown has at most 2,000 characters");
        }
        breakdown
    }

    pub(super) fn recorded_at(&mut self) -> Option<DateTime<Utc>> {
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
pub(super) fn read_rows(text: &str, games_per_table: i32, p: &mut Problems) -> Result<Vec<Row>> {
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
pub(super) fn read_row(
    c: &mut Cells<'_>,
    games_per_table: i32,
    shared: &mut Shared,
) -> Option<Row> {
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

pub(super) fn text_has_nul(texts: &[&str]) -> bool {
    texts.iter().any(|t| t.contains('\0'))
}

/// A game of the file: its rows, in file order.
pub(super) struct FileGame<'a> {
    pub(super) rows: Vec<&'a Row>,
}

impl FileGame<'_> {
    pub(super) fn first(&self) -> &Row {
        self.rows[0]
    }
}

/// Groups rows into games (a game's rows together) and checks each game, table and night.
pub(super) fn games_of<'a>(rows: &'a [Row], p: &mut Problems) -> Vec<FileGame<'a>> {
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
pub(super) fn check_game(g: &FileGame, p: &mut Problems) {
    let f = g.first();
    let what = format!("game {} at table {} of night {}", f.game, f.table, f.night);
    check_rows_agree(g, p);
    check_seats(g, &what, p);
    check_roles(g, &what, p);
}

/// Every row of a game says what its first row says of the game.
pub(super) fn check_rows_agree(g: &FileGame, p: &mut Problems) {
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
pub(super) fn check_seats(g: &FileGame, what: &str, p: &mut Problems) {
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
pub(super) fn check_roles(g: &FileGame, what: &str, p: &mut Problems) {
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
