//! A league's standings (public leagues: no login needed): ranked by its board, cached per
//! revision with the rows held per league and read when changed, and written as the JSON body
//! apps read. The CSV exports are in `exports`, the league page's overview in `overview`.

use std::collections::HashMap;
use std::sync::Arc;

use bytes::Bytes;

use serde::Serialize;
use utoipa::ToSchema;

use crate::domain::{AppState, Caller, Error, Need, Result};
use crate::standings::{self, Board};
pub use crate::standings::{Standing, week_of, week_words};
/// The league's standings body (JSON), its entity tag and its gzip form.
pub use crate::state::Served as Body;
use crate::state::{Cached, HeldLines, Pushed, Written, WrittenRow};
use crate::storage::notices::{self, Notice};
use crate::storage::people::clubs::Club;
use crate::storage::seasons::leagues::League;
use crate::storage::{history::imports, seasons::totals};

#[derive(Clone, Serialize, ToSchema)]
pub struct StandingsView {
    pub league: i64,
    /// `total`, `average`, `best_per_night` or `best_per_week`.
    #[schema(schema_with = crate::domain::schemas::board)]
    pub board: String,
    pub min_games: i32,
    /// On a `best_per_night` board: the game scores of each night that count.
    #[schema(required = true)]
    pub best_per_night: Option<i32>,
    /// Each player's lowest nights that do not count.
    pub drop_worst_nights: i32,
    /// On a `best_per_week` board: the match scores of each calendar week that count.
    #[schema(required = true)]
    pub best_per_week: Option<i32>,
    /// Open play: counted matches a week with the same three opponents; null: no limit.
    #[schema(required = true)]
    pub same_table_per_week: Option<i32>,
    /// Open play: games entered that wait for their players to confirm them (not counted yet).
    pub games_awaiting: i64,
    /// Open play: games a player disputed, waiting for an organizer (not counted).
    pub games_disputed: i64,
    /// Open play: the season average beside the board, ranked by average points per game
    /// among players with at least `min_games` games (the others unranked, with how many they
    /// have of those needed). Null in other leagues.
    #[schema(required = true)]
    pub season_average: Option<Vec<AverageRow>>,
    /// The board in one sentence, e.g. "Ranked by each night's 2 best game scores, …".
    pub board_in_words: String,
    /// True while the ratings are being replayed after a correction or a void (the totals are
    /// already up to date; the ratings shown are those from before the change).
    pub ratings_updating: bool,
    /// The league's standings revision these standings include: the `revision` of the last
    /// `standings.changed` event they reflect. An app holding standings at a lower revision
    /// than an event's knows to read them again.
    #[schema(example = 42)]
    pub revision: i64,
    pub standings: Vec<Standing>,
}

/// A row of the season average beside an open-play board.
#[derive(Clone, Serialize, ToSchema, PartialEq)]
pub struct AverageRow {
    /// Null under the minimum number of games.
    #[schema(required = true)]
    pub rank: Option<u32>,
    pub shared: bool,
    pub player_id: i64,
    pub player: String,
    pub games: i64,
    /// Points per game, to two decimals.
    pub average: f64,
    /// Under the minimum: the games played of those needed, "4 of 6".
    #[schema(required = true, example = "4 of 6")]
    pub short: Option<String>,
}

/// How long a replay waits after the correction that started it.
const REPLAY_DELAY: std::time::Duration = std::time::Duration::from_millis(250);

/// Replays a league's ratings after a correction, off the request path (on the runtime, not in
/// the request), unless this process is doing so already.
pub fn replay_ratings(state: &AppState, league_id: i64) {
    if !state.standings.start_replay(league_id) {
        return;
    }
    let db = state.db.clone();
    let replays = state.standings.replays.clone();
    let freshness = state.freshness.clone();
    tokio::spawn(async move {
        // A moment first: the reads that follow a correction come before the replay's load,
        // and a burst of corrections is replayed once.
        tokio::time::sleep(REPLAY_DELAY).await;
        // `false`: another correction came meanwhile; go again.
        loop {
            // The ratings shown and `ratings_updating` change: read again.
            let _unheard = freshness.unheard();
            match totals::recompute_ratings(&db, league_id).await {
                Ok(true) => break,
                Ok(false) => continue,
                Err(e) => {
                    tracing::warn!(league_id, error = %e, "replaying the ratings failed; the next read tries again");
                    break;
                }
            }
        }
        if let Ok(mut set) = replays.lock() {
            set.remove(&league_id);
        }
    });
}

/// Listens to the database's change notices for as long as the process runs, so that standings
/// and tokens read before may be used again while nothing changed them: a league's revision
/// moving is noted; any other change, or the connection lost, has everything read again.
///
/// A revision moved by this process's own connections is left to the write that moved it (see
/// `counted`, `Freshness::unheard`): its notice may come before the write's answer, and the
/// rows the write pushes are then read from memory instead of the database.
pub async fn hear_changes(state: Arc<AppState>) {
    let own = notices::origin(&state.db);
    loop {
        match notices::listen(&state.db).await {
            Ok(mut listener) => {
                state.freshness.listening();
                while let Ok(Some(notice)) = listener.try_recv().await {
                    match Notice::parse(notice.payload()) {
                        Some(Notice::Revision { origin, .. }) if own.as_deref() == Some(origin) => {
                        }
                        Some(Notice::Revision {
                            league, revision, ..
                        }) => {
                            state.freshness.saw(league, revision);
                            // Another process wrote a game: its events go to the streams here
                            // now rather than at the hub's next sweep.
                            state.events.poke_league(league);
                        }
                        Some(Notice::League(_)) => {
                            state.freshness.changed();
                            state.events.poked.notify_one();
                        }
                        Some(Notice::Token) | None => state.freshness.changed(),
                    }
                }
                state.freshness.deaf();
                tracing::warn!(
                    "the connection for change notices was lost; reading everything from the database until it is back"
                );
            }
            Err(e) => {
                tracing::debug!(error = %e, "listening for change notices failed; trying again")
            }
        }
        if state.db.is_closed() {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    }
}

/// How far back from the last sync of a game log a correction is looked for.
const CORRECTION_MARGIN_SECS: i64 = 120;

/// Above this many tied players, head-to-head is summed from the league's game log kept in
/// memory instead of in the database (which then reads most of the league's games each time).
const TIED_IN_DATABASE: usize = 16;

/// What `compute` answers: the standings ranked, the revision they were read at (or later),
/// whether the ratings are being replayed, and the league as it stood then.
pub(super) struct Computed {
    pub(super) standings: Vec<Standing>,
    pub(super) season_average: Option<Vec<AverageRow>>,
    pub(super) revision: i64,
    pub(super) ratings_updating: bool,
    pub(super) league: Arc<League>,
    /// Open play: games waiting for their players, and for an organizer.
    pub(super) waiting: (i64, i64),
}

/// The league's standings, ranked (totals rebuilt first if they were written by hand).
/// The league's standings rows, as the standings show them (for mail about the league).
pub async fn rows(state: &AppState, league: &League) -> Result<Vec<Standing>> {
    Ok(compute(state, league).await?.standings)
}

pub(super) async fn compute(state: &AppState, league: &League) -> Result<Computed> {
    let flight = state.standings.flight(league.id);
    let mut held = flight.lock().await;
    let computed = compute_held(state, league.id, &mut held, None).await;
    state.standings.weigh(league.id, &held);
    computed
}

/// The league's rows changed after a revision, with the state they were read at: read from the
/// database, or pushed by this process's new games.
struct Changes {
    /// The revision the rows changed after (`None`: all rows).
    since: Option<i64>,
    state: totals::LeagueState,
    rows: Vec<totals::LineRow>,
    /// The league as it stood at `state.revision`.
    league: Arc<League>,
    source: Source,
}

/// Where changes come from.
#[derive(Clone, Copy)]
enum Source {
    /// Read from the database under this stamp (`None`: while not listening).
    Read(Option<u64>),
    /// Pushed by this process's new games.
    Pushed,
}

/// The league's rows changed after revision `since` (`None`: all of them), read from the
/// database, with the league's club.
async fn read_changes(
    state: &AppState,
    league_id: i64,
    since: Option<i64>,
) -> Result<(Changes, Club)> {
    let stamp = state.freshness.stamp();
    let read = totals::lines(&state.db, league_id, since)
        .await?
        .ok_or_else(|| Error::NotFound(format!("no league {league_id}")))?;
    state.freshness.saw(league_id, read.state.revision);
    let changes = Changes {
        since,
        state: read.state,
        rows: read.changed,
        league: Arc::new(read.league),
        source: Source::Read(stamp),
    };
    Ok((changes, read.club))
}

/// As `compute`, with the rows this process holds for the league (locked by the caller),
/// brought up to date with `read` (the rows changed after its revision, read by the caller or
/// pushed) or else with what is read here: only the rows changed since they were last read are
/// read.
async fn compute_held(
    state: &AppState,
    league_id: i64,
    held: &mut HeldLines,
    read: Option<Changes>,
) -> Result<Computed> {
    let league_state = take_changes(state, league_id, held, read).await?;
    let league = held
        .league
        .clone()
        .ok_or_else(|| Error::internal("standings held without their league"))?;
    let (revision, updating) = (league_state.revision, league_state.updating);
    if updating {
        // Started by the correction; started again here after a restart or a failure.
        replay_ratings(state, league_id);
    }
    let mut rows: Vec<&totals::Rated> = held.rows.values().collect();
    rows.sort_unstable_by_key(|(l, _)| l.player_id);
    let board = if league.board == "average" {
        Board::Average {
            min_games: league.min_games as i64,
        }
    } else {
        Board::Total
    };
    let ratings: HashMap<i64, f64> = rows
        .iter()
        .map(|(l, r)| (l.player_id, standings::shown(*r)))
        .collect();
    let mut lines: Vec<standings::Line> = rows.into_iter().map(|(l, _)| l.clone()).collect();
    let carried = carried_in(state, league_id, &league).await?;
    let counting = counting_of(&league);
    let (mut nights, mut weeks) =
        count_by_board(state, league_id, counting, &mut lines, &carried).await?;
    // Head-to-head only for players tied on everything else.
    let tied = standings::tie_groups(&lines, board);
    let h2h = head_to_head(state, league_id, &league_state, &tied).await?;
    let mut ranked = standings::rank(&lines, board, &h2h);
    for s in &mut ranked {
        s.rating = ratings.get(&s.player_id).copied();
        if let Some((_, list)) = nights.remove(&s.player_id) {
            s.nights = Some(list);
        }
        if counting.best_per_week.is_some() {
            s.weeks = Some(weeks.remove(&s.player_id).map(|w| w.1).unwrap_or_default());
        }
        s.carried = carried.get(&s.player_id).copied();
    }
    let (waiting, season_average) = if league.is_open_play() {
        let waiting = crate::storage::play::open::waiting_counts(&state.db, league_id).await?;
        let rows = season_average(state, league_id, &league, &league_state, &lines).await?;
        (waiting, Some(rows))
    } else {
        ((0, 0), None)
    };
    Ok(Computed {
        standings: ranked,
        season_average,
        revision,
        ratings_updating: updating,
        league,
        waiting,
    })
}

/// Brings the rows held here up to the changes read (by the caller, or here when theirs are
/// older than what is held), rebuilding a stale league's totals first; the league's state as
/// read.
async fn take_changes(
    state: &AppState,
    league_id: i64,
    held: &mut HeldLines,
    read: Option<Changes>,
) -> Result<totals::LeagueState> {
    let mut read = match read {
        // The caller's read covers every change after the rows held here (all rows for `None`).
        Some(read) if read.since <= held.revision => read,
        _ => read_changes(state, league_id, held.revision).await?.0,
    };
    if read.state.stale {
        totals::rebuild_if_stale(&state.db, league_id).await?;
        held.revision = None;
        read = read_changes(state, league_id, None).await?.0;
    } else if read.since.is_none() {
        held.revision = None;
    }
    // Rows read at a revision older than those held here are left alone; read at the same one,
    // they confirm what is held (under a newer stamp).
    if held.revision.is_none_or(|r| r <= read.state.revision) {
        if held.revision.is_none() {
            held.rows.clear();
        }
        for (player, row) in read.rows {
            match row {
                Some(row) => held.rows.insert(player, row),
                None => held.rows.remove(&player),
            };
        }
        held.revision = Some(read.state.revision);
        held.state = Some(read.state);
        held.league = Some(read.league);
        if let Source::Read(stamp) = read.source {
            held.stamp = stamp;
        }
    }
    Ok(read.state)
}

/// What players carried in, read to be shown (it is in their totals already, and counted in
/// full by a board that does not count every game), and for the season's numbers.
pub(super) async fn carried_in(
    state: &AppState,
    league_id: i64,
    league: &League,
) -> Result<HashMap<i64, standings::Carried>> {
    if !league.carried_in {
        return Ok(HashMap::new());
    }
    Ok(imports::balances(&state.db, league_id)
        .await?
        .into_iter()
        .map(|b| {
            let c = standings::Carried {
                points: b.points,
                games: b.games,
                wins: b.wins,
            };
            (b.player_id, c)
        })
        .collect())
}

/// Each player's nights or weeks as counted.
type Counted<T> = HashMap<i64, ((i64, i64), Vec<T>)>;

/// A board that does not count every game works night by night (or week by week) from the
/// games' scores: each line's counted points and games (with what was carried in), and the
/// nights or weeks that made them.
async fn count_by_board(
    state: &AppState,
    league_id: i64,
    counting: standings::Counting,
    lines: &mut [standings::Line],
    carried: &HashMap<i64, standings::Carried>,
) -> Result<(
    Counted<standings::NightCount>,
    Counted<standings::WeekCount>,
)> {
    let mut nights = HashMap::new();
    let mut weeks = HashMap::new();
    let counted: HashMap<i64, (i64, i64)> = if let Some(best) = counting.best_per_week {
        let scores: Vec<standings::MatchScore> =
            crate::storage::play::open::match_scores(&state.db, league_id)
                .await?
                .into_iter()
                .map(
                    |(player, night, date, points, games, table)| standings::MatchScore {
                        player,
                        night,
                        date,
                        points,
                        games,
                        table,
                    },
                )
                .collect();
        weeks = standings::weekly(&scores, best, counting.same_table_per_week);
        weeks.iter().map(|(p, c)| (*p, c.0)).collect()
    } else if !counting.is_plain() {
        let scores = totals::night_scores(&state.db, league_id).await?;
        let mut numbers: Vec<i32> = scores.iter().map(|(_, n, _)| *n).collect();
        numbers.sort_unstable();
        numbers.dedup();
        nights = standings::counting(&numbers, &scores, counting);
        nights.iter().map(|(p, c)| (*p, c.0)).collect()
    } else {
        return Ok((nights, weeks));
    };
    for l in lines {
        let (points, games) = counted.get(&l.player_id).copied().unwrap_or((0, 0));
        let c = carried.get(&l.player_id);
        l.counted = Some((
            points + c.map_or(0, |c| c.points),
            games + c.map_or(0, |c| c.games),
        ));
    }
    Ok((nights, weeks))
}

/// Open play's season average: every counted game, whatever the board counts.
async fn season_average(
    state: &AppState,
    league_id: i64,
    league: &League,
    league_state: &totals::LeagueState,
    lines: &[standings::Line],
) -> Result<Vec<AverageRow>> {
    let every: Vec<standings::Line> = lines
        .iter()
        .map(|l| standings::Line {
            counted: None,
            ..l.clone()
        })
        .collect();
    let min_games = league.min_games as i64;
    let average = Board::Average { min_games };
    let tied = standings::tie_groups(&every, average);
    let h2h = head_to_head(state, league_id, league_state, &tied).await?;
    Ok(standings::rank(&every, average, &h2h)
        .into_iter()
        .map(|s| AverageRow {
            short: s
                .rank
                .is_none()
                .then(|| format!("{} of {min_games}", s.games)),
            rank: s.rank,
            shared: s.shared,
            player_id: s.player_id,
            player: s.player,
            games: s.games,
            average: s.average,
        })
        .collect())
}

/// What the league's board counts besides a plain sum.
pub fn counting_of(league: &League) -> standings::Counting {
    standings::Counting {
        best_per_night: (league.board == "best_per_night")
            .then_some(league.best_per_night.clamp(1, 20) as usize),
        drop_worst_nights: if league.board == "best_per_week" {
            0
        } else {
            league.drop_worst_nights.clamp(0, 20) as usize
        },
        best_per_week: (league.board == "best_per_week")
            .then_some(league.best_per_week.clamp(1, 20) as usize),
        same_table_per_week: league.same_table_per_week.map(|n| n.clamp(1, 20) as usize),
    }
}

/// The league's board in one sentence, as its page explains it.
pub fn board_in_words(league: &League) -> String {
    let night = league.session_lower();
    let nights = league.sessions().to_lowercase();
    let mut text = match league.board.as_str() {
        "average" => format!(
            "Ranked by average points per game (at least {})",
            crate::domain::count(league.min_games, "game")
        ),
        "best_per_night" => format!(
            "Ranked by each {night}'s {} best game scores, added up over the {nights} (every game counts when a player played {} or fewer)",
            league.best_per_night, league.best_per_night
        ),
        "best_per_week" => {
            let mut t = format!(
                "Ranked by each calendar week's {} best match scores (Monday to Sunday, {}), added up over the weeks (every match counts in a week with {} or fewer)",
                league.best_per_week, "on the club's clock", league.best_per_week
            );
            if let Some(n) = league.same_table_per_week {
                t.push_str(&format!(
                    "; at most {n} {} a week with the same three opponents count{}",
                    if n == 1 { "match" } else { "matches" },
                    if n == 1 { "s" } else { "" }
                ));
            }
            t
        }
        _ => "Ranked by total points".to_string(),
    };
    match counting_of(league).drop_worst_nights {
        0 => {}
        1 => text.push_str(&format!(
            "; each player's lowest {night} is dropped (a {night} missed counts 0 and may be the one dropped)"
        )),
        k => text.push_str(&format!(
            "; each player's {k} lowest {nights} are dropped (a {night} missed counts 0 and may be one of them)"
        )),
    }
    if league.carried_in {
        text.push_str(
            "; points, games and wins carried in from before the league was kept here count in full",
        );
    }
    text.push('.');
    text
}

/// The board in a few words, for a small space: "standings by total points", "by each night's
/// 2 best games, lowest night dropped".
pub fn board_short(league: &League) -> String {
    let night = league.session_lower();
    let mut text = match league.board.as_str() {
        "average" => "standings by average per game".to_string(),
        "best_per_night" => format!(
            "standings by each {night}'s {} best games",
            league.best_per_night
        ),
        "best_per_week" => format!(
            "standings by each week's {} best matches",
            league.best_per_week
        ),
        _ => "standings by total points".to_string(),
    };
    match counting_of(league).drop_worst_nights {
        0 => {}
        1 => text.push_str(&format!(", lowest {night} dropped")),
        k => text.push_str(&format!(
            ", {k} lowest {} dropped",
            league.sessions().to_lowercase()
        )),
    }
    text
}

/// The league's standings, ranked (for results).
pub(crate) async fn ranked(state: &AppState, league: &League) -> Result<Vec<Standing>> {
    Ok(compute(state, league).await?.standings)
}

/// The league's players in standings order (for Swiss seating).
pub(crate) async fn order(state: &AppState, league: &League) -> Result<Vec<i64>> {
    Ok(compute(state, league)
        .await?
        .standings
        .into_iter()
        .map(|s| s.player_id)
        .collect())
}

/// Head-to-head points of the tied groups: summed in the database for a few tied players, from
/// the league's game log in memory for many (brought up to date first: the games counted since
/// it was last read and, after a correction, the corrected and voided games' rows).
async fn head_to_head(
    state: &AppState,
    league_id: i64,
    league_state: &totals::LeagueState,
    groups: &[Vec<i64>],
) -> Result<HashMap<i64, i64>> {
    let corrections = league_state.corrections;
    let tied: usize = groups.iter().map(Vec::len).sum();
    if tied <= TIED_IN_DATABASE {
        return Ok(totals::head_to_head(&state.db, league_id, groups).await?);
    }
    let log = state.game_logs.log(league_id);
    let mut log = log.lock().await;
    // Read before the rows below: the next sync looks back from no later than this.
    let now = league_state.at;
    let corrected = log.corrections.is_some_and(|c| c != corrections);
    if log.corrections.is_none() {
        log.clear();
    }
    let new = totals::rows_after(&state.db, league_id, log.last_order).await?;
    log.extend(new);
    if corrected && let Some(synced) = log.synced_at {
        // Games written since the last sync, with a margin wider than any transaction (a
        // request is cut at 30 s): `updated_at` is its transaction's start, which may come
        // before a commit seen later.
        let since = synced - chrono::Duration::seconds(CORRECTION_MARGIN_SECS);
        let (games, rows) = totals::changed_since(&state.db, league_id, since).await?;
        log.replace(&games, rows);
    }
    log.corrections = Some(corrections);
    log.synced_at = Some(now);
    Ok(standings::head_to_head(&log.rows, &log.players, groups))
}

/// The standings body (JSON) and its entity tag, computed from `read` (the league's rows changed
/// after a revision, with the state they were read at) or later.
async fn body_at(state: &AppState, read: Changes) -> Result<Body> {
    let (league_id, revision) = (read.league.id, read.state.revision);
    if let Some(hit) = state.standings.get(league_id, revision) {
        return Ok(hit);
    }
    let flight = state.standings.flight(league_id);
    let mut held = flight.lock().await;
    // Whoever held the lock may have computed a body fresh enough for this request.
    if let Some(hit) = state.standings.get(league_id, revision) {
        return Ok(hit);
    }
    render(state, league_id, &mut held, read).await
}

/// The standings body: `head` (its own `standings` empty) with `rows` in place of its empty
/// list, each row's JSON copied from the last body when the row's fingerprint is as it was
/// written there (`written` is left holding this body and exactly these rows). The same bytes
/// as serializing the whole view.
fn write_body(head: &StandingsView, rows: Vec<Standing>, written: &mut Written) -> Result<Bytes> {
    debug_assert!(head.standings.is_empty());
    let mut buf = serde_json::to_vec(head).map_err(Error::internal)?;
    // `standings` is the view's last field: the head ends `[]}`.
    if !buf.ends_with(b"[]}") {
        return Err(Error::internal(
            "the standings view does not end with its rows",
        ));
    }
    buf.truncate(buf.len() - 2);
    let last = std::mem::take(&mut written.body);
    buf.reserve(last.len() + 512 * rows.len().saturating_sub(written.rows.len()) + 2);
    let keep: std::collections::HashSet<i64> = rows.iter().map(|s| s.player_id).collect();
    written.rows.retain(|player, _| keep.contains(player));
    let place = |n: usize| u32::try_from(n).map_err(|_| Error::internal("a body over 4 GiB"));
    for (i, row) in rows.into_iter().enumerate() {
        if i > 0 {
            buf.push(b',');
        }
        let print = fingerprint(&row);
        let start = place(buf.len())?;
        // A row's place is read with `get`: after a body that failed half-way, the places may
        // not be in `last`, and the row is then serialized again.
        let kept = written
            .rows
            .get(&row.player_id)
            .filter(|was| was.print == print)
            .and_then(|was| last.get(was.start as usize..was.end as usize));
        match kept {
            Some(json) => buf.extend_from_slice(json),
            None => serde_json::to_writer(&mut buf, &row).map_err(Error::internal)?,
        }
        let end = place(buf.len())?;
        written
            .rows
            .insert(row.player_id, WrittenRow { print, start, end });
    }
    buf.extend_from_slice(b"]}");
    written.body = Bytes::from(buf);
    Ok(written.body.clone())
}

/// A fingerprint of a standings row (XXH3, 128 bits) over every field: rows that differ in any
/// field differ here (but for a chance of one in 2^128). Each field is named, so a field added
/// to `Standing` or what it holds does not compile here until it is printed too.
fn fingerprint(row: &Standing) -> [u64; 2] {
    let Standing {
        rank,
        shared,
        player_id,
        player,
        games,
        wins,
        points,
        average,
        self_picks,
        jokerless_wins,
        deal_ins,
        dead_hands,
        wall_games,
        rating,
        head_to_head,
        ahead,
        counted_points,
        counted_games,
        counted_average,
        nights,
        weeks,
        carried,
    } = row;
    let mut p = Print(xxhash_rust::xxh3::Xxh3::new());
    if p.has(rank) {
        p.n(i64::from(rank.unwrap_or_default()));
    }
    p.n(i64::from(*shared));
    p.n(*player_id);
    p.text(player);
    for n in [*games, *wins, *points] {
        p.n(n);
    }
    p.x(*average);
    for n in [
        *self_picks,
        *jokerless_wins,
        *deal_ins,
        *dead_hands,
        *wall_games,
    ] {
        p.n(n);
    }
    for x in [rating, counted_average] {
        if p.has(x) {
            p.x(x.unwrap_or_default());
        }
    }
    for n in [head_to_head, counted_points, counted_games] {
        if p.has(n) {
            p.n(n.unwrap_or_default());
        }
    }
    if p.has(ahead)
        && let Some(ahead) = ahead
    {
        p.ahead(ahead);
    }
    if p.has(nights) {
        nights.iter().flatten().for_each(|night| p.night(night));
        p.n(-1);
    }
    if p.has(weeks) {
        weeks.iter().flatten().for_each(|week| p.week(week));
        p.n(-1);
    }
    if p.has(carried)
        && let Some(standings::Carried {
            points,
            games,
            wins,
        }) = carried
    {
        for n in [*points, *games, *wins] {
            p.n(n);
        }
    }
    let print = p.0.digest128();
    [(print >> 64) as u64, print as u64]
}

/// A row's fingerprint as it is made (see `fingerprint`).
struct Print(xxhash_rust::xxh3::Xxh3);

impl Print {
    fn n(&mut self, n: i64) {
        self.0.update(&n.to_le_bytes());
    }

    fn x(&mut self, x: f64) {
        self.0.update(&x.to_bits().to_le_bytes());
    }

    fn text(&mut self, s: &str) {
        self.n(s.len() as i64);
        self.0.update(s.as_bytes());
    }

    /// Whether an optional field is there (its value follows when it is).
    fn has<T>(&mut self, o: &Option<T>) -> bool {
        self.0.update(&[u8::from(o.is_some())]);
        o.is_some()
    }

    fn ahead(&mut self, ahead: &standings::Ahead) {
        let standings::Ahead {
            by,
            figure,
            next_figure,
            next_player_id,
            words,
        } = ahead;
        self.text(by);
        self.x(figure.0);
        self.x(next_figure.0);
        self.n(*next_player_id);
        self.text(words);
    }

    fn night(&mut self, night: &standings::NightCount) {
        let standings::NightCount {
            night,
            games,
            points,
            counted,
            counted_games,
            dropped,
        } = night;
        for n in [i64::from(*night), *games, *points, *counted, *counted_games] {
            self.n(n);
        }
        self.n(i64::from(*dropped));
    }

    fn week(&mut self, week: &standings::WeekCount) {
        let standings::WeekCount {
            week,
            matches,
            points,
            counted,
            counted_matches,
            over_limit,
        } = week;
        self.n(i64::from(chrono::Datelike::num_days_from_ce(week)));
        for n in [*matches, *points, *counted, *counted_matches, *over_limit] {
            self.n(n);
        }
    }
}

/// A strong entity tag for a body: 128 bits of XXH3, as 32 hex digits in quotes. Not a secret,
/// only a name for these bytes, the same in every process that serves them.
pub(crate) fn entity_tag(body: &[u8]) -> String {
    format!("\"{:032x}\"", xxhash_rust::xxh3::xxh3_128(body))
}

/// Computes the body from the held rows brought up to date with `read`, and keeps it.
async fn render(
    state: &AppState,
    league_id: i64,
    held: &mut HeldLines,
    read: Changes,
) -> Result<Body> {
    let computed = compute_held(state, league_id, held, Some(read)).await?;
    let head = StandingsView {
        league: league_id,
        board: computed.league.board.clone(),
        min_games: computed.league.min_games,
        best_per_night: (computed.league.board == "best_per_night")
            .then_some(computed.league.best_per_night),
        drop_worst_nights: counting_of(&computed.league).drop_worst_nights as i32,
        best_per_week: (computed.league.board == "best_per_week")
            .then_some(computed.league.best_per_week),
        same_table_per_week: computed.league.same_table_per_week,
        games_awaiting: computed.waiting.0,
        games_disputed: computed.waiting.1,
        season_average: computed.season_average,
        board_in_words: board_in_words(&computed.league),
        ratings_updating: computed.ratings_updating,
        revision: computed.revision,
        standings: Vec::new(),
    };
    let body = write_body(&head, computed.standings, &mut held.written)?;
    state.standings.weigh(league_id, held);
    let tag = entity_tag(&body);
    let served = Body::new(body, tag);
    state.standings.put(
        league_id,
        Cached::new(computed.revision, &served, held.stamp, computed.league),
    );
    Ok(served)
}

/// A new game of this process was counted: its players' rows go to the standings held here, so
/// the next read needs nothing from the database.
pub fn counted(state: &AppState, league_id: i64, counted: totals::Counted) {
    if let Some(rows) = counted.rows {
        state.standings.push(
            league_id,
            counted.revision,
            Pushed {
                updating: counted.updating,
                rows,
            },
        );
    }
    state.freshness.saw(league_id, counted.revision);
}

/// The league's standings from memory, when this process has heard of every change since it
/// read them and the caller needs nothing checked in the database: the body kept for the
/// league's latest revision, or one computed from the rows held and those this process's new
/// games pushed. `None`: read the database.
async fn from_memory(state: &AppState, caller: &Caller, id: i64) -> Result<Option<Body>> {
    let (Some(stamp), Some(known)) = (state.freshness.stamp(), state.freshness.known(id)) else {
        return Ok(None);
    };
    let admitted = |league: &League| caller.reads_at_once(league);
    if let Some(body) = state.standings.current(id, known, stamp, admitted) {
        return Ok(Some(body));
    }
    let flight = state.standings.flight(id);
    let mut held = flight.lock().await;
    if let Some(body) = state.standings.current(id, known, stamp, admitted) {
        return Ok(Some(body));
    }
    let (Some(from), Some(at), Some(league)) = (held.revision, held.state, held.league.clone())
    else {
        return Ok(None);
    };
    if held.stamp != Some(stamp) || !admitted(&league) {
        return Ok(None);
    }
    let Some((reached, updating, pushed)) = state.standings.take_pushed(id, from) else {
        return Ok(None);
    };
    if reached < known {
        return Ok(None);
    }
    // Names come from the rows held (a player's first game in the league is read instead).
    let mut rows = Vec::with_capacity(pushed.len());
    for row in pushed {
        let Some((line, _)) = held.rows.get(&row.player_id) else {
            return Ok(None);
        };
        rows.push((row.player_id, row.rated(line.name.clone())));
    }
    let read = Changes {
        since: Some(from),
        state: totals::LeagueState {
            revision: reached,
            updating,
            ..at
        },
        rows,
        league,
        source: Source::Pushed,
    };
    Ok(Some(render(state, id, &mut held, read).await?))
}

/// The league's standings (cached per league and revision).
pub async fn show(state: &AppState, caller: &Caller, id: i64) -> Result<Body> {
    if let Some(body) = from_memory(state, caller, id).await? {
        state.metrics.standings_read(true);
        return Ok(body);
    }
    state.metrics.standings_read(false);
    // One read: the league and its club (to check access), its revision and the rows changed
    // since the standings this process last computed (none when those are current).
    let since = state.standings.revision(id);
    let (mut read, club) = read_changes(state, id, since).await?;
    let league = Arc::unwrap_or_clone(read.league);
    let (league, _) = caller.admit(state, league, club, Need::Read).await?;
    read.league = Arc::new(league);
    if let Source::Read(Some(stamp)) = read.source {
        // Checked again under this stamp: the body kept at this revision may be answered from
        // memory.
        state
            .standings
            .restamp(id, read.state.revision, stamp, &read.league);
    }
    body_at(state, read).await
}

#[cfg(test)]
mod tests {
    use super::{StandingsView, Written, fingerprint, write_body};
    use crate::domain::seasons::exports::cell;
    use crate::standings::{Board, Line, Standing, rank};
    use std::collections::HashMap;

    fn line(id: i64, name: &str, points: i64, wins: i64) -> Line {
        Line {
            player_id: id,
            name: name.into(),
            games: 4,
            wins,
            points,
            self_picks: 0,
            jokerless_wins: 0,
            deal_ins: 0,
            dead_hands: 0,
            wall_games: 0,
            counted: None,
        }
    }

    /// The body written from rows kept between bodies is the whole view serialized, after a
    /// game moves players past each other, a name changes, a player leaves and one arrives.
    #[test]
    fn rows_written_again_only_when_changed_give_the_whole_view() {
        let head = StandingsView {
            league: 7,
            board: "total".into(),
            min_games: 0,
            best_per_night: None,
            drop_worst_nights: 0,
            best_per_week: None,
            same_table_per_week: None,
            games_awaiting: 0,
            games_disputed: 0,
            season_average: None,
            board_in_words: "Ranked by total points \"as \\ said\".".into(),
            ratings_updating: false,
            revision: 3,
            standings: Vec::new(),
        };
        let mut written = Written::default();
        let rounds = [
            vec![
                line(1, "Ann", 50, 1),
                line(2, "Bo", 40, 1),
                line(3, "Cy", 10, 0),
            ],
            // Cy wins a big game: everyone's place (and what they are ahead of) changes.
            vec![
                line(1, "Ann", 25, 1),
                line(2, "Bo", 15, 1),
                line(3, "Cy", 110, 1),
            ],
            // Nothing changes but Bo's name.
            vec![
                line(1, "Ann", 25, 1),
                line(2, "Bo \"B\"", 15, 1),
                line(3, "Cy", 110, 1),
            ],
            // Ann's row is gone (her games voided); Di plays a first game.
            vec![
                line(2, "Bo", 15, 1),
                line(3, "Cy", 110, 1),
                line(4, "Di", 15, 0),
            ],
            vec![],
        ];
        for lines in rounds {
            let rows = rank(&lines, Board::Total, &HashMap::new());
            let whole = StandingsView {
                standings: rows.clone(),
                ..head.clone()
            };
            let body = write_body(&head, rows, &mut written).unwrap();
            assert_eq!(
                String::from_utf8(body.to_vec()).unwrap(),
                serde_json::to_string(&whole).unwrap()
            );
            assert_eq!(written.rows.len(), lines.len());
            assert_eq!(written.body, body);
            // A body that failed half-way leaves the places and no body: the next body writes
            // those rows again, the same bytes.
            let kept = std::mem::take(&mut written.body);
            let again = write_body(&head, whole.standings.clone(), &mut written).unwrap();
            assert_eq!(again, kept);
        }
    }

    /// A row's fingerprint changes with each of its fields, those it holds in lists included:
    /// a row kept as written is one that serializes to the same JSON.
    #[test]
    fn a_rows_fingerprint_changes_with_each_field() {
        use crate::standings::{Ahead, Carried, Figure, NightCount, WeekCount};
        let mut base = rank(&[line(1, "Ann", 50, 1)], Board::Total, &HashMap::new()).remove(0);
        base.rating = Some(3.5);
        base.head_to_head = Some(2);
        base.ahead = Some(Ahead {
            by: "wins".into(),
            figure: Figure(2.0),
            next_figure: Figure(1.0),
            next_player_id: 2,
            words: "ahead of Bo on wins: 2 to 1".into(),
        });
        base.counted_points = Some(40);
        base.counted_games = Some(3);
        base.counted_average = Some(13.33);
        base.nights = Some(vec![NightCount {
            night: 1,
            games: 4,
            points: 50,
            counted: 40,
            counted_games: 3,
            dropped: false,
        }]);
        base.weeks = Some(vec![WeekCount {
            week: chrono::NaiveDate::from_ymd_opt(2026, 11, 23).unwrap(),
            matches: 1,
            points: 50,
            counted: 40,
            counted_matches: 1,
            over_limit: 0,
        }]);
        base.carried = Some(Carried {
            points: 10,
            games: 1,
            wins: 0,
        });
        let changes: Vec<fn(&mut Standing)> = vec![
            |s| s.rank = None,
            |s| s.shared = !s.shared,
            |s| s.player_id += 1,
            |s| s.player.push('x'),
            |s| s.games += 1,
            |s| s.wins += 1,
            |s| s.points += 1,
            |s| s.average += 0.01,
            |s| s.self_picks += 1,
            |s| s.jokerless_wins += 1,
            |s| s.deal_ins += 1,
            |s| s.dead_hands += 1,
            |s| s.wall_games += 1,
            |s| s.rating = None,
            |s| s.head_to_head = Some(3),
            |s| s.ahead.as_mut().unwrap().words.push('!'),
            |s| s.ahead.as_mut().unwrap().next_figure = Figure(1.5),
            |s| s.counted_points = None,
            |s| s.counted_games = Some(4),
            |s| s.counted_average = Some(13.34),
            |s| s.nights.as_mut().unwrap()[0].dropped = true,
            |s| {
                s.nights.as_mut().unwrap().push(NightCount {
                    night: 2,
                    games: 0,
                    points: 0,
                    counted: 0,
                    counted_games: 0,
                    dropped: false,
                })
            },
            |s| s.weeks.as_mut().unwrap()[0].over_limit = 1,
            |s| s.weeks = None,
            |s| s.carried.as_mut().unwrap().wins = 1,
        ];
        let mut prints = std::collections::HashSet::from([fingerprint(&base)]);
        for (i, change) in changes.iter().enumerate() {
            let mut row = base.clone();
            change(&mut row);
            assert_ne!(row, base, "change {i} changes nothing");
            assert!(prints.insert(fingerprint(&row)), "change {i}: same print");
        }
        assert_eq!(fingerprint(&base.clone()), fingerprint(&base));
    }

    #[test]
    fn formulas_stay_text() {
        assert_eq!(cell("=HYPERLINK(\"x\")".into()), "'=HYPERLINK(\"x\")");
        assert_eq!(cell("@SUM(A1)".into()), "'@SUM(A1)");
        assert_eq!(cell("Rose".into()), "Rose");
        assert_eq!(cell(String::new()), "");
    }
}
