//! Opening balances: the points, games and wins a player carries in from before, read from a
//! file of their own and stored in one transaction.

use super::*;

/// The most points a balance may carry.
pub(super) const MAX_BALANCE_POINTS: i64 = 1_000_000_000_000;

/// The most games a balance may carry.
pub(super) const MAX_BALANCE_GAMES: i64 = 1_000_000;

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
pub(super) fn read_balances(text: &str) -> Result<Vec<(String, i64, i64, i64)>> {
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
pub(super) fn invisible(name: &str, c: char) -> String {
    format!(
        "`{}` holds {}, a character that shows nothing (a zero-width or direction mark) or a control character; write the name without it",
        name.replace(c, ""),
        names::code_point(c)
    )
}
