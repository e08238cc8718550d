//! Leagues: card, ruleset (a preset or the club's own as data), games per table, visibility,
//! standings board, dates.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::domain::{
    AppState, Caller, Error, Need, Result, cards::library as cards, paging, sensible_date,
};
use crate::rules::{CardRef, Ruleset, RulesetSpec, builtin};
use crate::storage::cards::library as stored_cards;
use crate::storage::people::clubs::Club;
pub use crate::storage::seasons::leagues::League;
use crate::storage::seasons::leagues::{self, LeagueFields};

#[derive(Serialize, ToSchema)]
pub struct LeagueView {
    pub id: i64,
    #[schema(example = "tuesday-tiles")]
    pub club: String,
    pub name: String,
    /// Built-in card name or uploaded card id.
    #[schema(example = "demo-2026")]
    pub card: String,
    /// A preset name, or the ruleset as data.
    #[schema(schema_with = crate::domain::schemas::ruleset)]
    pub ruleset: serde_json::Value,
    pub games_per_table: i32,
    #[schema(schema_with = crate::domain::schemas::visibility)]
    pub visibility: String,
    /// `total` (total points), `average` (average per game, with `min_games`) or
    /// `best_per_night` (each night's `best_per_night` best game scores, summed).
    #[schema(schema_with = crate::domain::schemas::board)]
    pub board: String,
    pub min_games: i32,
    /// On a `best_per_night` board: the game scores of each night that count; `null` on others.
    #[schema(required = true)]
    pub best_per_night: Option<i32>,
    /// On any board: how many of each player's lowest nights do not count (a missed night
    /// counts 0 and may be one of them).
    pub drop_worst_nights: i32,
    /// On a `best_per_week` board: the match scores of each calendar week (in `time_zone`)
    /// that count; `null` on others.
    #[schema(required = true)]
    pub best_per_week: Option<i32>,
    /// Open play: hours a game waits for the other players before it counts unconfirmed.
    pub confirm_hours: i32,
    /// Open play: counted matches a week with the same three opponents; `null`: no limit.
    #[schema(required = true)]
    pub same_table_per_week: Option<i32>,
    /// Where the event is held, for its results.
    #[schema(required = true)]
    pub place: Option<String>,
    /// The event's sanctioning number at a ranking body, for its results.
    #[schema(required = true)]
    pub sanctioning_number: Option<String>,
    /// The season this league follows (`POST …/next-season` made it), and the one after it.
    #[schema(required = true)]
    pub previous_season: Option<i64>,
    #[schema(required = true)]
    pub next_season: Option<i64>,
    #[schema(required = true)]
    pub starts_on: Option<NaiveDate>,
    #[schema(required = true)]
    pub ends_on: Option<NaiveDate>,
    /// `league` (weekly; its sessions are nights), `tournament` (its sessions are rounds) or
    /// `open` (open play: members arrange their own matches, each a night of one table).
    #[schema(schema_with = crate::domain::schemas::league_kind)]
    pub kind: String,
    /// The club's time zone (IANA): the league's dates (`starts_on`, `ends_on`, a night's
    /// `date`) are days on this clock.
    #[schema(example = "America/New_York")]
    pub time_zone: String,
}

impl LeagueView {
    pub fn new(l: League, club: &Club) -> LeagueView {
        LeagueView {
            card: card_name(&l),
            best_per_night: (l.board == "best_per_night").then_some(l.best_per_night),
            drop_worst_nights: l.drop_worst_nights,
            best_per_week: (l.board == "best_per_week").then_some(l.best_per_week),
            confirm_hours: l.confirm_hours,
            same_table_per_week: l.same_table_per_week,
            place: l.place.clone(),
            sanctioning_number: l.sanctioning_number.clone(),
            previous_season: l.previous_id,
            next_season: l.next_id,
            id: l.id,
            club: club.slug.clone(),
            name: l.name,
            ruleset: l.ruleset,
            games_per_table: l.games_per_table,
            visibility: l.visibility,
            board: l.board,
            min_games: l.min_games,
            starts_on: l.starts_on,
            ends_on: l.ends_on,
            kind: l.kind,
            time_zone: club.time_zone.clone(),
        }
    }
}

/// The league's card as requests name it: a built-in name or an uploaded card's id.
pub fn card_name(l: &League) -> String {
    l.builtin_card
        .clone()
        .unwrap_or_else(|| l.card_id.map(|c| c.to_string()).unwrap_or_default())
}

/// A new league: its name, card and ruleset; the other fields take their defaults (4 games per
/// table, members only, board `total`, no minimum, no dates).
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewLeague {
    /// Not blank.
    #[schema(
        example = "Spring league 2026",
        min_length = 1,
        max_length = 200,
        pattern = r"^[^\u0000]*[^\s\u0000][^\u0000]*$"
    )]
    pub name: String,
    /// A built-in card's name or an uploaded card's id (the club's own or a public one).
    #[schema(example = "demo-2026", pattern = "^[ ]*[A-Za-z0-9-]{1,64}[ ]*$")]
    pub card: String,
    #[schema(schema_with = crate::domain::schemas::ruleset)]
    pub ruleset: serde_json::Value,
    #[schema(example = 4, minimum = 1, maximum = 32)]
    pub games_per_table: Option<i32>,
    #[schema(schema_with = crate::domain::schemas::visibility)]
    pub visibility: Option<String>,
    /// `total`, `average`, `best_per_night` or `best_per_week`.
    #[schema(schema_with = crate::domain::schemas::board)]
    pub board: Option<String>,
    #[schema(minimum = 0, maximum = 10000)]
    pub min_games: Option<i32>,
    /// On a `best_per_night` board: how many of a player's best game scores count each night
    /// (default 2).
    #[schema(example = 2, minimum = 1, maximum = 20)]
    pub best_per_night: Option<i32>,
    /// On any board: how many of each player's lowest nights do not count (default 0).
    #[schema(example = 1, minimum = 0, maximum = 20)]
    pub drop_worst_nights: Option<i32>,
    /// Where the event is held, for its results (`""` clears it).
    #[schema(
        example = "Community Center, Springfield",
        max_length = 200,
        pattern = r"^[^\u0000]*$"
    )]
    pub place: Option<String>,
    /// The event's sanctioning number at a ranking body, for its results (`""` clears it).
    #[schema(example = "2026-114", max_length = 100, pattern = r"^[^\u0000]*$")]
    pub sanctioning_number: Option<String>,
    pub starts_on: Option<NaiveDate>,
    pub ends_on: Option<NaiveDate>,
    /// `league` (the default: its sessions are nights), `tournament` (its sessions are
    /// rounds) or `open` (open play: members arrange their own matches); pages and messages use
    /// the league's word.
    #[schema(schema_with = crate::domain::schemas::league_kind)]
    pub kind: Option<String>,
    /// On a `best_per_week` board: how many of a player's best match scores count each
    /// calendar week (default 2).
    #[schema(example = 2, minimum = 1, maximum = 20)]
    pub best_per_week: Option<i32>,
    /// Open play: hours a game waits for the other players to confirm it before it counts
    /// unconfirmed (default 48).
    #[schema(example = 48, minimum = 1, maximum = 336)]
    pub confirm_hours: Option<i32>,
    /// Open play: at most this many counted matches a week with the same three opponents; `0`
    /// (the default) sets no limit.
    #[schema(example = 1, minimum = 0, maximum = 20)]
    pub same_table_per_week: Option<i32>,
}

impl From<NewLeague> for LeagueInput {
    fn from(n: NewLeague) -> LeagueInput {
        LeagueInput {
            name: Some(n.name),
            card: Some(n.card),
            ruleset: Some(n.ruleset),
            games_per_table: n.games_per_table,
            visibility: n.visibility,
            board: n.board,
            min_games: n.min_games,
            best_per_night: n.best_per_night,
            drop_worst_nights: n.drop_worst_nights,
            place: n.place,
            sanctioning_number: n.sanctioning_number,
            starts_on: n.starts_on,
            ends_on: n.ends_on,
            kind: n.kind,
            best_per_week: n.best_per_week,
            confirm_hours: n.confirm_hours,
            same_table_per_week: n.same_table_per_week,
        }
    }
}

/// Fields of a league; on create `name`, `card` and `ruleset` are required (`NewLeague`), on
/// edit every field is optional and `null` keeps what is stored.
#[derive(Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct LeagueInput {
    /// Not blank.
    #[schema(
        example = "Spring league 2026",
        min_length = 1,
        max_length = 200,
        pattern = r"^[^\u0000]*[^\s\u0000][^\u0000]*$"
    )]
    pub name: Option<String>,
    /// A built-in card's name or an uploaded card's id (the club's own or a public one).
    #[schema(example = "demo-2026", pattern = "^[ ]*[A-Za-z0-9-]{1,64}[ ]*$")]
    pub card: Option<String>,
    #[schema(schema_with = crate::domain::schemas::optional_ruleset)]
    pub ruleset: Option<serde_json::Value>,
    #[schema(example = 4, minimum = 1, maximum = 32)]
    pub games_per_table: Option<i32>,
    #[schema(schema_with = crate::domain::schemas::visibility)]
    pub visibility: Option<String>,
    /// `total`, `average`, `best_per_night` or `best_per_week`.
    #[schema(schema_with = crate::domain::schemas::board)]
    pub board: Option<String>,
    #[schema(minimum = 0, maximum = 10000)]
    pub min_games: Option<i32>,
    /// On a `best_per_night` board: how many of a player's best game scores count each night
    /// (default 2).
    #[schema(example = 2, minimum = 1, maximum = 20)]
    pub best_per_night: Option<i32>,
    /// On any board: how many of each player's lowest nights do not count (default 0).
    #[schema(example = 1, minimum = 0, maximum = 20)]
    pub drop_worst_nights: Option<i32>,
    /// Where the event is held, for its results (`""` clears it).
    #[schema(
        example = "Community Center, Springfield",
        max_length = 200,
        pattern = r"^[^\u0000]*$"
    )]
    pub place: Option<String>,
    /// The event's sanctioning number at a ranking body, for its results (`""` clears it).
    #[schema(example = "2026-114", max_length = 100, pattern = r"^[^\u0000]*$")]
    pub sanctioning_number: Option<String>,
    pub starts_on: Option<NaiveDate>,
    pub ends_on: Option<NaiveDate>,
    /// `league` (the default: its sessions are nights), `tournament` (its sessions are
    /// rounds) or `open` (open play: members arrange their own matches); pages and messages use
    /// the league's word.
    #[schema(schema_with = crate::domain::schemas::league_kind)]
    pub kind: Option<String>,
    /// On a `best_per_week` board: how many of a player's best match scores count each
    /// calendar week (default 2).
    #[schema(example = 2, minimum = 1, maximum = 20)]
    pub best_per_week: Option<i32>,
    /// Open play: hours a game waits for the other players to confirm it before it counts
    /// unconfirmed (default 48).
    #[schema(example = 48, minimum = 1, maximum = 336)]
    pub confirm_hours: Option<i32>,
    /// Open play: at most this many counted matches a week with the same three opponents; `0`
    /// (the default) sets no limit.
    #[schema(example = 1, minimum = 0, maximum = 20)]
    pub same_table_per_week: Option<i32>,
}

/// Applies input over current fields, validating each.
async fn merge(
    state: &AppState,
    club_id: i64,
    input: LeagueInput,
    mut f: LeagueFields,
) -> Result<LeagueFields> {
    if let Some(name) = input.name {
        f.name = league_name(&name)?;
    }
    if let Some(card) = input.card {
        (f.card_id, f.builtin_card) = usable_card(state, club_id, card).await?;
    }
    if let Some(ruleset) = input.ruleset {
        check_ruleset(&ruleset)?;
        f.ruleset = ruleset;
    }
    set(
        &mut f.games_per_table,
        "games_per_table",
        input.games_per_table,
        1..=32,
        "use 1 to 32",
    )?;
    let choices = [
        (
            &mut f.visibility,
            "visibility",
            input.visibility,
            &["public", "members"][..],
        ),
        (
            &mut f.board,
            "board",
            input.board,
            &["total", "average", "best_per_night", "best_per_week"][..],
        ),
        (
            &mut f.kind,
            "kind",
            input.kind,
            &["league", "tournament", "open"][..],
        ),
    ];
    for (slot, field, given, allowed) in choices {
        if let Some(v) = given {
            if !allowed.contains(&v.as_str()) {
                return Err(Error::invalid(field, one_of(allowed)));
            }
            *slot = v;
        }
    }
    set(
        &mut f.best_per_night,
        "best_per_night",
        input.best_per_night,
        1..=20,
        "use 1 to 20",
    )?;
    set(
        &mut f.best_per_week,
        "best_per_week",
        input.best_per_week,
        1..=20,
        "use 1 to 20",
    )?;
    set(
        &mut f.confirm_hours,
        "confirm_hours",
        input.confirm_hours,
        1..=336,
        "use 1 to 336 (two weeks)",
    )?;
    if let Some(n) = input.same_table_per_week {
        if !(0..=20).contains(&n) {
            return Err(Error::invalid(
                "same_table_per_week",
                "use 0 (no limit) to 20",
            ));
        }
        f.same_table_per_week = (n > 0).then_some(n);
    }
    set(
        &mut f.drop_worst_nights,
        "drop_worst_nights",
        input.drop_worst_nights,
        0..=20,
        "use 0 to 20",
    )?;
    set_text(&mut f.place, "place", input.place, 200)?;
    set_text(
        &mut f.sanctioning_number,
        "sanctioning_number",
        input.sanctioning_number,
        100,
    )?;
    set(
        &mut f.min_games,
        "min_games",
        input.min_games,
        0..=10_000,
        "use 0 to 10000",
    )?;
    if let Some(d) = input.starts_on {
        f.starts_on = Some(sensible_date("starts_on", d)?);
    }
    if let Some(d) = input.ends_on {
        f.ends_on = Some(sensible_date("ends_on", d)?);
    }
    check_together(&f)?;
    Ok(f)
}

/// "use a, b or c".
fn one_of(allowed: &[&str]) -> String {
    match allowed {
        [] => String::new(),
        [only] => format!("use {only}"),
        [rest @ .., last] => format!("use {} or {last}", rest.join(", ")),
    }
}

/// A number given for `field`, within `range` (422 with `message` otherwise).
fn set<T: PartialOrd + Copy>(
    slot: &mut T,
    field: &str,
    given: Option<T>,
    range: std::ops::RangeInclusive<T>,
    message: &str,
) -> Result<()> {
    if let Some(n) = given {
        if !range.contains(&n) {
            return Err(Error::invalid(field, message));
        }
        *slot = n;
    }
    Ok(())
}

/// A line of text given for `field`, at most `max` characters; empty clears it.
fn set_text(
    slot: &mut Option<String>,
    field: &str,
    given: Option<String>,
    max: usize,
) -> Result<()> {
    if let Some(text) = given {
        let text = text.trim();
        if text.chars().count() > max || text.contains('\0') {
            return Err(Error::invalid(
                field,
                format!("give at most {max} characters (empty clears it)"),
            ));
        }
        crate::domain::text::plain(field, text)?;
        *slot = (!text.is_empty()).then(|| text.to_string());
    }
    Ok(())
}

fn league_name(name: &str) -> Result<String> {
    if name.chars().count() > 200 {
        return Err(Error::invalid("name", "give a name of 1 to 200 characters"));
    }
    let name = name.trim().to_string();
    if name.is_empty() {
        return Err(Error::invalid("name", "give a name of 1 to 200 characters"));
    }
    crate::domain::text::plain("name", &name)?;
    Ok(name)
}

/// The card as the league stores it, (uploaded card id, built-in card name): a built-in card,
/// or one the club may use (its own or a public one).
async fn usable_card(
    state: &AppState,
    club_id: i64,
    card: String,
) -> Result<(Option<i64>, Option<String>)> {
    if builtin::get(&card).is_some() {
        return Ok((None, Some(card)));
    }
    let unusable = || {
        Error::invalid(
            "card",
            format!(
                "no card `{card}` this club can use: give a built-in card ({}) or the id of the club's own or a public card",
                builtin::names().collect::<Vec<_>>().join(", ")
            ),
        )
    };
    let id: i64 = card.trim().parse().map_err(|_| unusable())?;
    let stored = stored_cards::get(&state.db, id)
        .await?
        .ok_or_else(unusable)?;
    if stored.club_id != club_id && !stored.public {
        return Err(unusable());
    }
    Ok((Some(id), None))
}

/// A ruleset is a preset's name or a ruleset object that resolves.
fn check_ruleset(ruleset: &serde_json::Value) -> Result<()> {
    let spec: RulesetSpec = serde_json::from_value(ruleset.clone()).map_err(|e| {
        Error::invalid(
            "ruleset",
            format!(
                "give a preset ({}) or a ruleset object: {e}",
                Ruleset::PRESETS.join(", ")
            ),
        )
    })?;
    spec.resolve()
        .map_err(|e| Error::invalid("ruleset", e.to_string()))?;
    Ok(())
}

/// What the fields say together: a weekly board drops no nights; a league ends after it starts.
fn check_together(f: &LeagueFields) -> Result<()> {
    if f.board == "best_per_week" && f.drop_worst_nights > 0 {
        return Err(Error::invalid(
            "drop_worst_nights",
            "a best_per_week board counts weeks, not nights: set drop_worst_nights to 0",
        ));
    }
    if let (Some(s), Some(e)) = (f.starts_on, f.ends_on)
        && e < s
    {
        return Err(Error::invalid(
            "ends_on",
            "the league cannot end before it starts",
        ));
    }
    Ok(())
}

/// The club's leagues: every one for its members and its tokens; its public ones for anyone
/// else (an app finding a club's standings). A club with nothing to show the caller is not found.
pub async fn list(state: &AppState, caller: &Caller, slug: &str) -> Result<Vec<LeagueView>> {
    let club = match caller.club(state, slug, Need::Read).await {
        Ok((club, _)) => {
            return Ok(leagues::list(&state.db, club.id)
                .await?
                .into_iter()
                .map(|l| LeagueView::new(l, &club))
                .collect());
        }
        // Anonymous, a stranger, a token of another club or a table code: the public ones.
        Err(Error::Unauthorized(_) | Error::NotFound(_) | Error::Forbidden(_)) => {
            crate::storage::people::clubs::by_slug(&state.db, slug).await?
        }
        Err(e) => return Err(e),
    };
    let not_found = || Error::NotFound(format!("no club `{slug}`"));
    let club = club.ok_or_else(not_found)?;
    let mut public = leagues::list_public(&state.db, club.id).await?;
    if public.is_empty() {
        return Err(not_found());
    }
    for l in &mut public {
        hide_unseen_seasons(state, caller, l).await?;
    }
    Ok(public
        .into_iter()
        .map(|l| LeagueView::new(l, &club))
        .collect())
}

/// A public league as discovery lists it: where it is, when, how it ranks, and its links.
#[derive(Serialize, ToSchema)]
pub struct LeagueListing {
    pub id: i64,
    pub name: String,
    /// The club's slug.
    #[schema(example = "tuesday-tiles")]
    pub club: String,
    pub club_name: String,
    /// The club's time zone (IANA): `starts_on` and `ends_on` are days on this clock.
    #[schema(example = "America/New_York")]
    pub time_zone: String,
    #[schema(required = true)]
    pub starts_on: Option<NaiveDate>,
    #[schema(required = true)]
    pub ends_on: Option<NaiveDate>,
    /// How the standings rank players: `total` (total points), `average` (average per game)
    /// or `best_per_night` (each night's best game scores, summed).
    #[schema(schema_with = crate::domain::schemas::board)]
    pub board: String,
    /// The league in the API.
    #[schema(example = "/api/v1/leagues/1")]
    pub url: String,
    #[schema(example = "/api/v1/leagues/1/standings")]
    pub standings_url: String,
    /// The league's standings page.
    #[schema(example = "/leagues/1")]
    pub page_url: String,
}

/// A page of discovered leagues.
#[derive(Serialize, ToSchema)]
pub struct LeaguePage {
    pub leagues: Vec<LeagueListing>,
    /// The cursor of the next page (as `cursor=`), or null on the last page.
    #[schema(required = true)]
    pub next: Option<String>,
}

/// Public leagues across clubs, newest first, whose name or club contains `q`; paged.
pub async fn discover(
    state: &AppState,
    q: Option<&str>,
    cursor: Option<&str>,
    limit: Option<i64>,
) -> Result<LeaguePage> {
    let limit = paging::limit(limit, 50)?;
    let q = q.map(str::trim).filter(|q| !q.is_empty());
    if let Some(q) = q
        && q.chars().count() > 100
    {
        return Err(Error::invalid(
            "q",
            "give at most 100 characters to search for",
        ));
    }
    // A cursor is bound to its search.
    let scope = format!("search {}", q.unwrap_or_default());
    let before = cursor
        .map(|c| paging::decode(&state.keys, "leagues", &scope, c, 1).map(|v| v[0]))
        .transpose()?;
    let mut rows = leagues::search_public(&state.db, q, before, limit + 1).await?;
    let next = if rows.len() as i64 > limit {
        rows.truncate(limit as usize);
        rows.last()
            .map(|(l, _)| paging::encode(&state.keys, "leagues", &scope, &[l.id]))
    } else {
        None
    };
    Ok(LeaguePage {
        leagues: rows
            .into_iter()
            .map(|(l, c)| LeagueListing {
                url: format!("/api/v1/leagues/{}", l.id),
                standings_url: format!("/api/v1/leagues/{}/standings", l.id),
                page_url: format!("/leagues/{}", l.id),
                id: l.id,
                name: l.name,
                club: c.slug,
                club_name: c.name,
                time_zone: c.time_zone,
                starts_on: l.starts_on,
                ends_on: l.ends_on,
                board: l.board,
            })
            .collect(),
        next,
    })
}

/// Creates a league in the club `slug`.
pub async fn create(
    state: &AppState,
    caller: &Caller,
    slug: &str,
    input: LeagueInput,
) -> Result<(League, Club)> {
    let (club, _) = caller.club(state, slug, Need::Admin).await?;
    for (field, missing) in [
        ("name", input.name.is_none()),
        ("card", input.card.is_none()),
        ("ruleset", input.ruleset.is_none()),
    ] {
        if missing {
            return Err(Error::invalid(field, "this field is required"));
        }
    }
    let blank = LeagueFields {
        name: String::new(),
        card_id: None,
        builtin_card: None,
        ruleset: serde_json::Value::Null,
        games_per_table: 4,
        visibility: "members".into(),
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
    };
    let fields = merge(state, club.id, input, blank).await?;
    let league = saved(leagues::create(&state.db, club.id, &fields).await?)?;
    Ok((league, club))
}

/// One league (public leagues need no login).
pub async fn show(state: &AppState, caller: &Caller, id: i64) -> Result<(League, Club)> {
    let (mut league, club) = caller.league(state, id, Need::Read).await?;
    hide_unseen_seasons(state, caller, &mut league).await?;
    Ok((league, club))
}

/// A linked season's id if the caller may read that league, else `None`: a public league never
/// names (or links to) a members-only season before or after it.
async fn seen_season(state: &AppState, caller: &Caller, id: Option<i64>) -> Result<Option<i64>> {
    let Some(id) = id else { return Ok(None) };
    match caller.league(state, id, Need::Read).await {
        Ok(_) => Ok(Some(id)),
        Err(e @ (Error::Internal(_) | Error::Unavailable(_))) => Err(e),
        Err(_) => Ok(None),
    }
}

/// Forgets the league's links to seasons the caller may not read.
pub async fn hide_unseen_seasons(
    state: &AppState,
    caller: &Caller,
    league: &mut League,
) -> Result<()> {
    league.previous_id = seen_season(state, caller, league.previous_id).await?;
    league.next_id = seen_season(state, caller, league.next_id).await?;
    Ok(())
}

/// Edits any of a league's fields.
pub async fn update(
    state: &AppState,
    caller: &Caller,
    id: i64,
    input: LeagueInput,
) -> Result<(League, Club)> {
    let (league, club) = caller.league(state, id, Need::Admin).await?;
    let current = LeagueFields::of(&league);
    let fields = merge(state, club.id, input, current).await?;
    // Standings answered from memory check the league again (its visibility, its board).
    let _unheard = state.freshness.unheard();
    let updated = saved(leagues::update(&state.db, club.id, league.id, &fields).await?)?;
    Ok((updated, club))
}

/// The next season of a league: its name and dates, and a card when it changes; everything
/// else (scoring, board, games per table, visibility, kind, place) is the league's.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NextSeason {
    /// Not blank, not a name the club's other leagues use.
    #[schema(
        example = "Fall league 2026",
        min_length = 1,
        max_length = 200,
        pattern = r"^[^\u0000]*[^\s\u0000][^\u0000]*$"
    )]
    pub name: String,
    /// A built-in card's name or an uploaded card's id; the league's card when not given.
    #[schema(example = "demo-2026", pattern = "^[ ]*[A-Za-z0-9-]{1,64}[ ]*$")]
    pub card: Option<String>,
    pub starts_on: Option<NaiveDate>,
    pub ends_on: Option<NaiveDate>,
}

/// Makes the next season of a league: the same settings and scoring, the name, dates and card
/// given, linked both ways (a league has one next season). Its standings start empty; the old
/// season's stay as they were.
pub async fn next_season(
    state: &AppState,
    caller: &Caller,
    id: i64,
    next: NextSeason,
) -> Result<(League, Club)> {
    let (league, club) = caller.league(state, id, Need::Admin).await?;
    let current = LeagueFields {
        starts_on: None,
        ends_on: None,
        sanctioning_number: None,
        ..LeagueFields::of(&league)
    };
    let input = LeagueInput {
        name: Some(next.name),
        card: next.card.filter(|c| !c.trim().is_empty()),
        starts_on: next.starts_on,
        ends_on: next.ends_on,
        ..Default::default()
    };
    let fields = merge(state, club.id, input, current).await?;
    // The old season's answers name its next season: read again.
    let _unheard = state.freshness.unheard();
    let made = saved(leagues::create_next(&state.db, club.id, league.id, &fields).await?)?;
    Ok((made, club))
}

/// The seasons before and after a league, as (id, name), for its page's links.
pub async fn seasons_around(
    state: &AppState,
    caller: &Caller,
    league: &League,
) -> Result<(Option<(i64, String)>, Option<(i64, String)>)> {
    let mut out = [None, None];
    let linked = [
        seen_season(state, caller, league.previous_id).await?,
        seen_season(state, caller, league.next_id).await?,
    ];
    for (slot, id) in out.iter_mut().zip(linked) {
        if let Some(id) = id {
            *slot = leagues::name_of(&state.db, id)
                .await?
                .map(|name| (id, name));
        }
    }
    let [before, after] = out;
    Ok((before, after))
}

/// A league saved, or a 409 naming the club's other league with that name.
fn saved(s: leagues::Saved) -> Result<League> {
    match s {
        leagues::Saved::League(l) => Ok(*l),
        leagues::Saved::NextTaken { id, name } => Err(Error::Conflict(format!(
            "this league already has its next season: “{name}” (league {id})"
        ))),
        leagues::Saved::NameTaken { id, name } => Err(Error::Conflict(format!(
            "the club already has a league named “{name}” (league {id}); give this one another name"
        ))),
    }
}

/// The league's card, compiled.
pub async fn card(state: &AppState, league: &League) -> Result<CardRef> {
    if let Some(name) = &league.builtin_card {
        return builtin::get(name).map(CardRef::Builtin).ok_or_else(|| {
            Error::internal(format!(
                "league {} names unknown built-in card {name}",
                league.id
            ))
        });
    }
    let id = league
        .card_id
        .ok_or_else(|| Error::internal(format!("league {} has no card", league.id)))?;
    let stored = stored_cards::get(&state.db, id)
        .await?
        .ok_or_else(|| Error::internal(format!("card {id} missing")))?;
    Ok(CardRef::Shared(cards::compiled(state, &stored).await?))
}
