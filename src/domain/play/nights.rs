//! League nights: create, check players in and out, propose seating, lock tables, close and
//! reopen.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::Duration;

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::domain::{AppState, Caller, Error, Need, Result, Role, sensible_date};
use crate::seating::{self, History};
use crate::storage::people::players::Player;
pub use crate::storage::play::games::NightScore;
use crate::storage::play::games::{self, SEAT_WINDS};
pub use crate::storage::play::nights::{Night, Table};
use crate::storage::seasons::leagues::League;
use crate::storage::{people::clubs, people::players, play::nights};

/// How long a seating proposal may search (it usually finishes far sooner).
const SEATING_BUDGET: Duration = Duration::from_millis(800);

#[derive(Serialize, ToSchema, Clone)]
pub struct PlayerRef {
    pub id: i64,
    pub name: String,
}

#[derive(Serialize, ToSchema)]
pub struct SeatView {
    /// The seat's wind at the night's first game: E, S, W, N.
    #[schema(schema_with = crate::domain::schemas::seat)]
    pub seat: &'static str,
    pub player: PlayerRef,
}

#[derive(Serialize, ToSchema)]
pub struct TableView {
    pub id: i64,
    pub number: i32,
    pub seats: Vec<SeatView>,
}

#[derive(Serialize, ToSchema)]
pub struct NightView {
    pub id: i64,
    pub league: i64,
    /// 1 for the league's first night (a tournament's first round), and so on.
    pub number: i32,
    pub date: NaiveDate,
    /// open → seated → closed.
    #[schema(schema_with = crate::domain::schemas::night_status)]
    pub status: String,
    pub checkins: Vec<PlayerRef>,
    /// The last proposed seating: player ids per table in seat order (E, S, W, N).
    #[schema(required = true, schema_with = crate::domain::schemas::proposal)]
    pub proposal: Option<serde_json::Value>,
    /// Locked tables.
    pub tables: Vec<TableView>,
}

async fn view(state: &AppState, night: Night) -> Result<NightView> {
    let checkins = nights::checkins(&state.db, night.id).await?;
    let tables = nights::tables(&state.db, night.id).await?;
    Ok(NightView {
        id: night.id,
        league: night.league_id,
        number: night.number,
        date: night.night_date,
        status: night.status,
        checkins: checkins
            .into_iter()
            .map(|(id, name)| PlayerRef { id, name })
            .collect(),
        proposal: night.proposal,
        tables: tables
            .into_iter()
            .map(|t| TableView {
                id: t.id,
                number: t.number,
                seats: t
                    .players
                    .into_iter()
                    .enumerate()
                    .map(|(i, (id, name))| SeatView {
                        seat: SEAT_WINDS[i],
                        player: PlayerRef { id, name },
                    })
                    .collect(),
            })
            .collect(),
    })
}

/// The night as it is now, as the answer of a change.
pub async fn reloaded(state: &AppState, id: i64) -> Result<NightView> {
    let night = nights::get(&state.db, id)
        .await?
        .ok_or_else(|| Error::NotFound(format!("no night {id}")))?;
    view(state, night).await
}

/// Ids of the players checked in, by id.
async fn checked_in_ids(state: &AppState, night_id: i64) -> Result<Vec<i64>> {
    Ok(nights::checkins(&state.db, night_id)
        .await?
        .into_iter()
        .map(|(id, _)| id)
        .collect())
}

/// Loads a night and its league for a caller with `need`.
pub(crate) async fn night_for(
    state: &AppState,
    caller: &Caller,
    id: i64,
    need: Need,
) -> Result<(Night, League)> {
    let not_found = || format!("no night {id}");
    let night = nights::get(&state.db, id)
        .await?
        .ok_or_else(|| Error::NotFound(not_found()))?;
    let (league, _) = caller
        .league(state, night.league_id, need)
        .await
        .map_err(|e| e.or_not_found(not_found))?;
    Ok((night, league))
}

/// As `night_for`, refusing a closed night.
pub(crate) async fn open_night(
    state: &AppState,
    caller: &Caller,
    id: i64,
) -> Result<(Night, League)> {
    let (night, league) = night_for(state, caller, id, Need::Admin).await?;
    if night.status == "closed" {
        return Err(Error::Conflict(format!(
            "{} {} is closed; an organizer can reopen it",
            league.session_lower(),
            night.number
        )));
    }
    Ok((night, league))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewNight {
    #[schema(example = "2026-03-03")]
    pub date: NaiveDate,
}

/// Starts a night of the league (or a tournament round).
pub async fn create(
    state: &AppState,
    caller: &Caller,
    league: i64,
    n: NewNight,
) -> Result<(Night, League)> {
    let (league, _) = caller.league(state, league, Need::Admin).await?;
    let date = sensible_date("date", n.date)?;
    Ok((nights::create(&state.db, league.id, date).await?, league))
}

/// A night's view, as the answer of its creation.
pub async fn created(state: &AppState, night: Night) -> Result<NightView> {
    view(state, night).await
}

/// The league's nights.
pub async fn list(state: &AppState, caller: &Caller, league: i64) -> Result<Vec<NightView>> {
    let (league, _) = caller.league(state, league, Need::Read).await?;
    let mut all = Vec::new();
    for n in nights::list(&state.db, league.id).await? {
        all.push(view(state, n).await?);
    }
    Ok(all)
}

/// A night: check-ins, the proposal and the locked tables.
pub async fn show(state: &AppState, caller: &Caller, id: i64) -> Result<NightView> {
    let (night, _) = night_for(state, caller, id, Need::Read).await?;
    view(state, night).await
}

/// Checks that a player of the league's club may be checked in. A player the club does not have
/// is 404 when named in the path, 422 (a field of the body) when listed in a body.
async fn check_in_one(
    state: &AppState,
    night: &Night,
    league: &League,
    player: i64,
    in_path: bool,
) -> Result<()> {
    let p = players::get(&state.db, league.club_id, player)
        .await?
        .ok_or_else(|| {
            let missing = format!("the club has no player {player}");
            if in_path {
                Error::NotFound(missing)
            } else {
                Error::invalid("player", missing)
            }
        })?;
    if !p.active {
        return Err(Error::invalid(
            "player",
            format!("{} is deactivated; reactivate them first", p.name),
        ));
    }
    nights::check_in(&state.db, night.id, player).await?;
    Ok(())
}

/// Checks a player in.
pub async fn check_in(state: &AppState, caller: &Caller, id: i64, player: i64) -> Result<()> {
    let (night, league) = open_night(state, caller, id).await?;
    check_in_one(state, &night, &league, player, true).await
}

/// Checks a player out.
pub async fn check_out(state: &AppState, caller: &Caller, id: i64, player: i64) -> Result<()> {
    let (night, _) = open_night(state, caller, id).await?;
    if !nights::check_out(&state.db, night.id, player).await? {
        return Err(Error::NotFound(format!(
            "player {player} is not checked in"
        )));
    }
    Ok(())
}

/// How a set of check-ins changed.
pub struct CheckinChange {
    pub added: usize,
    pub removed: usize,
    /// Checked in with the tables locked and no seat for them yet (by name).
    pub unseated: Vec<String>,
}

/// Makes the night's check-ins exactly `want` (the check-in form's ticks).
pub async fn set_checkins(
    state: &AppState,
    caller: &Caller,
    id: i64,
    want: &[i64],
) -> Result<CheckinChange> {
    let (night, league) = open_night(state, caller, id).await?;
    let now = checked_in_ids(state, night.id).await?;
    let mut change = CheckinChange {
        added: 0,
        removed: 0,
        unseated: Vec::new(),
    };
    for p in want.iter().filter(|p| !now.contains(p)) {
        check_in_one(state, &night, &league, *p, false).await?;
        change.added += 1;
    }
    for p in now.iter().filter(|p| !want.contains(p)) {
        nights::check_out(&state.db, night.id, *p).await?;
        change.removed += 1;
    }
    let tables = nights::tables(&state.db, night.id).await?;
    if !tables.is_empty() {
        let seated: HashSet<i64> = tables
            .iter()
            .flat_map(|t| t.players.iter().map(|(p, _)| *p))
            .collect();
        change.unseated = nights::checkins(&state.db, night.id)
            .await?
            .into_iter()
            .filter(|(p, _)| !seated.contains(p))
            .map(|(_, name)| name)
            .collect();
    }
    Ok(change)
}

/// Checks in everyone checked in at the league's previous night: how many were added, and what
/// the league calls a night ("night", or "round" in a tournament) for the answer's words.
pub async fn check_in_previous(
    state: &AppState,
    caller: &Caller,
    id: i64,
) -> Result<(usize, &'static str)> {
    let (night, league) = open_night(state, caller, id).await?;
    // The first night of a next season copies the last night of the season before.
    let mut previous = nights::previous(&state.db, league.id, night.number).await?;
    if previous.is_none()
        && let Some(before) = league.previous_id
    {
        previous = nights::previous(&state.db, before, i32::MAX).await?;
    }
    let Some(previous) = previous else {
        return Err(Error::invalid(
            "night",
            format!(
                "{} {} is the first: there is no last {} to copy",
                league.session(),
                night.number,
                league.session_lower()
            ),
        ));
    };
    let now = checked_in_ids(state, night.id).await?;
    let mut added = 0;
    for (p, _) in nights::checkins(&state.db, previous).await? {
        if !now.contains(&p) && check_in_one(state, &night, &league, p, false).await.is_ok() {
            added += 1;
        }
    }
    Ok((added, league.session_lower()))
}

#[derive(Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct SeatingRequest {
    /// The same seed and check-ins give the same proposal; default: the night's id.
    #[serde(default)]
    #[schema(maximum = 9223372036854775807_i64)]
    pub seed: Option<u64>,
    /// `avoid_repeats` (default): who met least this season sit together. `swiss`: players
    /// of similar standing sit together, still avoiding earlier meetings where possible.
    #[serde(default)]
    pub method: SeatingMethod,
}

/// How a night's (or round's) tables are proposed.
#[derive(Deserialize, Serialize, ToSchema, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SeatingMethod {
    #[default]
    AvoidRepeats,
    Swiss,
}

/// Proposes tables for the checked-in players and keeps the proposal with the night: players
/// who met least this season (recent meetings weigh most) sit together, and East starts are
/// balanced. `seed` defaults to the night's id.
pub async fn propose_seating(
    state: &AppState,
    caller: &Caller,
    id: i64,
    request: SeatingRequest,
) -> Result<()> {
    let (night, league) = open_night(state, caller, id).await?;
    if request.seed.is_some_and(|s| s > i64::MAX as u64) {
        return Err(Error::invalid("seed", "use 0 to 9223372036854775807"));
    }
    let present = checked_in_ids(state, night.id).await?;
    if present.len() < 2 {
        return Err(Error::invalid(
            "checkins",
            format!(
                "{} player(s) checked in; seating needs at least 2",
                present.len()
            ),
        ));
    }
    let seed = request.seed.unwrap_or(night.id as u64);
    let tables = match request.method {
        SeatingMethod::AvoidRepeats => plan_tables(state, &league, &night, present, seed).await?,
        SeatingMethod::Swiss => swiss_tables(state, &league, &night, present).await?,
    };
    nights::set_proposal(
        &state.db,
        night.id,
        &serde_json::json!({"seed": seed, "method": request.method, "tables": tables}),
    )
    .await?;
    Ok(())
}

/// Swiss tables for `present`: by the league's standings now (players with no standing yet
/// after, by name), keeping apart who met before where a swap can.
async fn swiss_tables(
    state: &AppState,
    league: &League,
    night: &Night,
    present: Vec<i64>,
) -> Result<Vec<Vec<i64>>> {
    let order = crate::domain::seasons::standings::order(state, league).await?;
    let place: HashMap<i64, usize> = order.iter().enumerate().map(|(i, p)| (*p, i)).collect();
    let names: HashMap<i64, String> = nights::checkins(&state.db, night.id)
        .await?
        .into_iter()
        .collect();
    let mut ranked = present;
    ranked.sort_by(|a, b| {
        let key = |p: &i64| {
            (
                place.get(p).copied().unwrap_or(usize::MAX),
                names.get(p).cloned(),
            )
        };
        key(a).cmp(&key(b))
    });
    let history = history_of(state, league, night, &ranked).await?;
    let indexes: Vec<usize> = (0..ranked.len()).collect();
    let tables = seating::swiss(&indexes, &history).map_err(|e| Error::invalid("checkins", e))?;
    Ok(tables
        .into_iter()
        .map(|t| t.into_iter().map(|i| ranked[i]).collect())
        .collect())
}

/// Who of `present` met whom on the league's earlier nights (recent meetings weigh most), and
/// their East starts, indexed as `present`.
async fn history_of(
    state: &AppState,
    league: &League,
    night: &Night,
    present: &[i64],
) -> Result<History> {
    let index = |p: i64| present.iter().position(|&x| x == p);
    let mut history = History::new(present.len());
    let earlier = nights::earlier_tables(&state.db, league.id, night.number).await?;
    for (number, table) in &earlier {
        let age = (night.number - number - 1).max(0) as u32;
        let seated: Vec<usize> = table.iter().filter_map(|&p| index(p)).collect();
        for (i, &a) in seated.iter().enumerate() {
            for &b in &seated[i + 1..] {
                history.met(a, b, age);
            }
        }
        for g in 0..league.games_per_table as usize {
            if let Some(e) = index(table[g % table.len()]) {
                history.east[e] += 1;
            }
        }
    }
    Ok(history)
}

/// Tables for `present` that keep apart who met most this season (recent meetings weigh most)
/// and balance East starts.
async fn plan_tables(
    state: &AppState,
    league: &League,
    night: &Night,
    present: Vec<i64>,
    seed: u64,
) -> Result<Vec<Vec<i64>>> {
    let history = history_of(state, league, night, &present).await?;
    let games = league.games_per_table as usize;
    let count = present.len();
    let plan = tokio::task::spawn_blocking(move || {
        seating::plan(count, 1, seed, Some(&history), SEATING_BUDGET, games)
    })
    .await
    .map_err(|e| Error::internal(format!("seating: {e}")))?
    .map_err(|e| Error::invalid("checkins", e))?;
    Ok(plan.rounds[0]
        .iter()
        .map(|t| t.iter().map(|&i| present[i]).collect())
        .collect())
}

/// How to seat players who checked in after the tables were locked.
pub enum LateSeat {
    /// At the open seat of a table that has not started (a table of 3 becomes 4).
    Table(i64),
    /// The tables that have no game yet are seated again with the late arrivals.
    Reseat,
}

/// Seats the checked-in players who have no table (one for `Table`, all for `Reseat`) without
/// touching a table that has a game; says what was done, naming tables and players.
pub async fn seat_late(
    state: &AppState,
    caller: &Caller,
    id: i64,
    player: Option<i64>,
    how: LateSeat,
) -> Result<String> {
    let (night, league) = open_night(state, caller, id).await?;
    let checked = nights::checkins(&state.db, night.id).await?;
    let tables = nights::tables(&state.db, night.id).await?;
    if tables.is_empty() {
        return Err(Error::invalid(
            "tables",
            "no tables are locked yet: propose and lock tables instead",
        ));
    }
    let seated: HashSet<i64> = tables
        .iter()
        .flat_map(|t| t.players.iter().map(|(p, _)| *p))
        .collect();
    let late: Vec<(i64, String)> = checked
        .into_iter()
        .filter(|(p, _)| !seated.contains(p))
        .collect();
    let name = |p: i64| {
        late.iter()
            .find(|(id, _)| *id == p)
            .map(|(_, n)| n.clone())
            .unwrap_or_else(|| format!("player {p}"))
    };
    match how {
        LateSeat::Table(table) => {
            let p = player.ok_or_else(|| Error::invalid("player", "choose who to seat"))?;
            if !late.iter().any(|(id, _)| *id == p) {
                return Err(Error::invalid(
                    "player",
                    "this player is not checked in, or already has a seat",
                ));
            }
            let t = tables
                .iter()
                .find(|t| t.id == table)
                .ok_or_else(|| Error::invalid("table", "choose a table of this night"))?;
            match nights::add_seat(&state.db, night.id, t.id, p).await? {
                nights::AddSeat::Done => Ok(format!(
                    "{} sits at table {} (seat {}).",
                    name(p),
                    t.number,
                    t.players.len() + 1
                )),
                nights::AddSeat::Full => Err(Error::Conflict(format!(
                    "table {} is full: choose another table, or re-seat the tables with no games",
                    t.number
                ))),
                nights::AddSeat::Started => Err(Error::Conflict(format!(
                    "table {} has started its games: choose a table that has not, or re-seat the tables with no games",
                    t.number
                ))),
            }
        }
        LateSeat::Reseat => {
            if late.is_empty() {
                return Err(Error::invalid("player", "nobody is waiting for a seat"));
            }
            let started = nights::tables_with_games(&state.db, night.id).await?;
            let free: Vec<&Table> = tables.iter().filter(|t| !started.contains(&t.id)).collect();
            let mut players: Vec<i64> = free
                .iter()
                .flat_map(|t| t.players.iter().map(|(p, _)| *p))
                .collect();
            players.extend(late.iter().map(|(p, _)| *p));
            if players.len() < 2 {
                return Err(Error::invalid(
                    "player",
                    format!(
                        "{} needs at least one more player at a table with no games; check in another player or seat them at a table",
                        name(late[0].0)
                    ),
                ));
            }
            let planned = plan_tables(state, &league, &night, players, night.id as u64).await?;
            let dropped: Vec<i64> = free.iter().map(|t| t.id).collect();
            let Some(numbers) = nights::reseat(&state.db, night.id, &dropped, &planned).await?
            else {
                return Err(Error::Conflict(
                    "a game was entered at one of those tables meanwhile: look again and choose"
                        .into(),
                ));
            };
            let names: Vec<String> = late.iter().map(|(_, n)| n.clone()).collect();
            let list = |n: &[i32]| {
                n.iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let before: Vec<i32> = free.iter().map(|t| t.number).collect();
            Ok(if before.is_empty() {
                format!("{} sit at new table {}.", names.join(", "), list(&numbers))
            } else {
                format!(
                    "Re-seated table{} {} with {}: now table{} {}.",
                    if before.len() == 1 { "" } else { "s" },
                    list(&before),
                    names.join(", "),
                    if numbers.len() == 1 { "" } else { "s" },
                    list(&numbers)
                )
            })
        }
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LockTables {
    /// Player ids per table in seat order (E, S, W, N): the proposal, or the organizer's changes to it.
    #[schema(example = json!([[11, 12, 13, 14], [15, 16, 17]]))]
    pub tables: Vec<Vec<i64>>,
}

/// Locks the night's tables: player ids per table in seat order.
pub async fn lock_tables(
    state: &AppState,
    caller: &Caller,
    id: i64,
    lock: LockTables,
) -> Result<()> {
    let (night, league) = open_night(state, caller, id).await?;
    lock_checked(state, &night, &league, lock.tables).await
}

/// One seat chosen on the page's seating form: table and seat as numbered there (seats 0 to
/// 3 are E, S, W, N), and who sits there.
pub struct SeatChoice {
    pub table: u64,
    pub seat: u64,
    pub player: i64,
}

/// Locks the tables chosen seat by seat (the page's form): tables in their numbers' order,
/// players in seat order. Table numbers run from 1 to as many tables as the checked-in players
/// can fill (two a table), seats from 0 to 3; anything else is refused naming `seats`.
pub async fn lock_seats(
    state: &AppState,
    caller: &Caller,
    id: i64,
    seats: Vec<SeatChoice>,
) -> Result<()> {
    let (night, league) = open_night(state, caller, id).await?;
    let present = checked_in_ids(state, night.id).await?.len() as u64;
    let most = (present / 2).max(1);
    if let Some(s) = seats.iter().find(|s| s.table == 0 || s.table > most) {
        return Err(Error::invalid(
            "seats",
            format!(
                "there is no table {}: {present} players checked in fill tables 1 to {most}",
                s.table
            ),
        ));
    }
    if let Some(s) = seats.iter().find(|s| s.seat > 3) {
        return Err(Error::invalid(
            "seats",
            format!(
                "table {} has no seat {}: seats are 0 to 3 (East, South, West, North)",
                s.table, s.seat
            ),
        ));
    }
    lock_checked(state, &night, &league, tables_from_seats(seats)).await
}

/// Seats as player ids per table: tables in their numbers' order, players in seat order.
/// Nothing here grows with the numbers themselves, only with how many seats were sent.
fn tables_from_seats(seats: Vec<SeatChoice>) -> Vec<Vec<i64>> {
    let mut by_table: BTreeMap<u64, BTreeMap<u64, i64>> = BTreeMap::new();
    for s in seats {
        by_table
            .entry(s.table)
            .or_default()
            .insert(s.seat, s.player);
    }
    by_table
        .into_values()
        .map(|t| t.into_values().collect())
        .collect()
}

async fn lock_checked(
    state: &AppState,
    night: &Night,
    league: &League,
    tables: Vec<Vec<i64>>,
) -> Result<()> {
    let checked = nights::checkins(&state.db, night.id).await?;
    let present: Vec<i64> = checked.iter().map(|(id, _)| *id).collect();
    let name = |p: i64| {
        checked
            .iter()
            .find(|(id, _)| *id == p)
            .map(|(_, n)| n.clone())
            .unwrap_or_else(|| format!("player {p}"))
    };
    if tables.is_empty() {
        return Err(Error::invalid("tables", "give at least one table"));
    }
    let mut seen: HashMap<i64, usize> = HashMap::new();
    for (i, t) in tables.iter().enumerate() {
        if !(2..=4).contains(&t.len()) {
            return Err(Error::invalid(
                &format!("tables[{i}]"),
                format!("table {} seats 2 to 4 players, not {}", i + 1, t.len()),
            ));
        }
        for p in t {
            if !present.contains(p) {
                return Err(Error::invalid(
                    &format!("tables[{i}]"),
                    format!("{} at table {} is not checked in", name(*p), i + 1),
                ));
            }
            if let Some(first) = seen.insert(*p, i) {
                return Err(Error::invalid(
                    &format!("tables[{i}]"),
                    if first == i {
                        format!("{} has two seats at table {}", name(*p), i + 1)
                    } else {
                        format!(
                            "{} is seated twice, at tables {} and {}",
                            name(*p),
                            first + 1,
                            i + 1
                        )
                    },
                ));
            }
        }
    }
    if let Some(missing) = present.iter().find(|p| !seen.contains_key(p)) {
        return Err(Error::invalid(
            "tables",
            format!(
                "{} is checked in but has no seat: seat them or check them out",
                name(*missing)
            ),
        ));
    }
    if !nights::lock_tables(&state.db, night.id, &tables).await? {
        return Err(Error::Conflict(format!(
            "{0} {1} has games recorded at its tables, which re-seating would drop; start a new {0} for new tables",
            league.session_lower(),
            night.number
        )));
    }
    Ok(())
}

/// Closes a night: it takes no new games until reopened.
/// Closes a night; its league (for what the league calls it).
pub async fn close(state: &AppState, caller: &Caller, id: i64) -> Result<League> {
    let (night, league) = night_for(state, caller, id, Need::Admin).await?;
    nights::close(&state.db, night.league_id, night.id).await?;
    state.events.poke();
    state.backup_due.notify_one();
    // Its players' mail (asked for in the close's transaction).
    crate::domain::outbox::mail::wake(state);
    Ok(league)
}

/// Reopens a closed night (seated again if it has tables, else open).
pub async fn reopen(state: &AppState, caller: &Caller, id: i64) -> Result<League> {
    let (night, league) = night_for(state, caller, id, Need::Admin).await?;
    let status = if nights::tables(&state.db, night.id).await?.is_empty() {
        "open"
    } else {
        "seated"
    };
    nights::reopen(&state.db, night.league_id, night.id, status).await?;
    state.events.poke();
    Ok(league)
}

/// A night as its page shows it to this caller.
pub struct Details {
    pub night: Night,
    pub league: League,
    /// The caller's role in the league's club, when they are a member.
    pub role: Option<Role>,
    /// For organizers: the club's active players, and whether each is checked in.
    pub roster: Vec<(Player, bool)>,
    pub checked_in: Vec<(i64, String)>,
    /// The last proposal: player ids per table in seat order.
    pub proposal: Vec<Vec<i64>>,
    pub tables: Vec<Table>,
    /// Every game's scores, in table and game order.
    pub scores: Vec<NightScore>,
    /// The club's time zone.
    pub time_zone: String,
}

/// Everything the night's page shows.
pub async fn details(state: &AppState, caller: &Caller, id: i64) -> Result<Details> {
    let (night, league) = night_for(state, caller, id, Need::Read).await?;
    let club = clubs::by_id(&state.db, league.club_id).await?;
    let role = match &club {
        Some(club) => caller.role_in(state, club).await?,
        None => None,
    };
    let time_zone = club.map(|c| c.time_zone).unwrap_or_else(|| "UTC".into());
    let checked_in = nights::checkins(&state.db, night.id).await?;
    let roster = if role.is_some_and(|r| r >= Role::Organizer) {
        players::list(&state.db, league.club_id, false)
            .await?
            .into_iter()
            .map(|p| {
                let checked = checked_in.iter().any(|(id, _)| *id == p.id);
                (p, checked)
            })
            .collect()
    } else {
        Vec::new()
    };
    let proposal = night
        .proposal
        .as_ref()
        .and_then(|p| p.get("tables"))
        .and_then(|t| serde_json::from_value::<Vec<Vec<i64>>>(t.clone()).ok())
        .unwrap_or_default();
    let tables = nights::tables(&state.db, night.id).await?;
    let scores = games::night_scores(&state.db, night.id).await?;
    Ok(Details {
        night,
        league,
        role,
        roster,
        checked_in,
        proposal,
        tables,
        scores,
        time_zone,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seats_become_tables_in_number_and_seat_order() {
        let seat = |table, seat, player| SeatChoice {
            table,
            seat,
            player,
        };
        let seats = vec![
            seat(1, 1, 12),
            seat(1, 0, 11),
            seat(1, 2, 13),
            seat(1, 3, 14),
            seat(u64::MAX, 0, 17),
            seat(2, 0, 15),
            seat(2, 2, 16),
        ];
        assert_eq!(
            tables_from_seats(seats),
            vec![vec![11, 12, 13, 14], vec![15, 16], vec![17]]
        );
    }
}
