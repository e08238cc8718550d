//! A league's page: standings with sortable columns, the points chart, its nights.

use actix_web::{HttpRequest, HttpResponse, get, post, web};
use askama::Template;
use chrono::NaiveDate;
use serde::Deserialize;

use super::pictures::charts::{self, Chart, chart};
use super::view::LeagueFields;
use super::{Ctx, Page, Posted, after};
use crate::domain::people::clubs::Club;
use crate::domain::play::nights::{self, NewNight, Night};
use crate::domain::seasons::leagues::{self, League, LeagueInput};
use crate::domain::seasons::standings::{self, Standing};
use crate::domain::{AppState, Error};
use crate::error::AppError;

/// Players drawn in the chart: the top of the standings.
const CHARTED: usize = 6;

/// The sortable columns: (key, heading), in the order of a `total` board: rank, player and the
/// figure the ranking is by first, so a phone shows them without a swipe (an `average` board
/// swaps Points and Average: `columns_for`).
const COLUMNS: [(&str, &str); 12] = [
    ("rank", "Rank"),
    ("player", "Player"),
    ("points", "Points"),
    ("games", "Games"),
    ("wins", "Wins"),
    ("average", "Average"),
    ("self_picks", "Self-picks"),
    ("jokerless", "Jokerless"),
    ("deal_ins", "Deal-ins"),
    ("dead", "Dead hands"),
    ("wall", "Wall games"),
    ("rating", "Rating"),
];

struct Column {
    key: &'static str,
    heading: &'static str,
    /// ascending, descending or none, for aria-sort.
    sorted: &'static str,
    /// The link that sorts by this column (the other way when it is the current one).
    href: String,
}

#[derive(Template)]
#[template(path = "pages/league.html")]
struct LeaguePage {
    /// For organizers, when the league's card has a newer version: (the version played, the newest).
    card_move: Option<(
        crate::domain::cards::library::StoredCard,
        crate::domain::cards::library::StoredCard,
    )>,
    ctx: Ctx,
    league: League,
    club: Club,
    organizer: bool,
    /// The card the league plays: (link, title).
    card: Option<(String, String)>,
    /// This week's Monday on the club's clock, and the week in words ("Nov 23–29").
    this_monday: NaiveDate,
    this_week: String,
    columns: Vec<Column>,
    rows: Vec<Standing>,
    ratings_updating: bool,
    /// The points chart, drawn.
    chart: Option<String>,
    nights: Vec<Night>,
    today: NaiveDate,
    lf: LeagueFields,
    /// For organizers of a public league: the `<iframe>` that puts its standings on a website.
    embed: Option<String>,
    /// The board does not count every game (counted figure and dropped nights shown).
    counted: bool,
    board_in_words: String,
    /// The seasons before and after this one: (id, name).
    previous_season: Option<(i64, String)>,
    next_season: Option<(i64, String)>,
    /// For organizers while there is no next season: the cards the next season may use.
    next_cards: Vec<(String, String)>,
    /// Nights scheduled ahead (a league's, not a tournament's).
    ahead: Vec<crate::domain::play::ahead::ScheduledView>,
    /// The league's calendar feed for this viewer (a members-only league's carries their key).
    calendar: Option<String>,
    /// Open play: games waiting for their players, and for an organizer.
    waiting: (i64, i64),
    /// Open play: the season average beside the board.
    season_average: Option<Vec<standings::AverageRow>>,
    /// Open play: matches with games waiting for the caller's word.
    to_answer: Vec<crate::domain::play::open::ToAnswer>,
}

#[derive(Deserialize)]
struct NextSeasonForm {
    name: String,
    #[serde(default)]
    card: Option<String>,
    #[serde(default)]
    starts_on: Option<String>,
    #[serde(default)]
    ends_on: Option<String>,
}

#[derive(Deserialize)]
struct CardMoveForm {
    card: i64,
}

/// Moves the league to a newer version of its card: stored games keep their scores.
#[post("/leagues/{id}/card")]
async fn move_card(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<CardMoveForm>,
) -> Result<HttpResponse, AppError> {
    let card = posted.form.card.to_string();
    let result = async {
        let named = match crate::domain::cards::library::stored(&state, &posted.caller, &card).await? {
            Some(c) => format!("{} {}, version {}", c.name, c.year, c.version),
            None => format!("card {card}"),
        };
        let input = LeagueInput {
            card: Some(card.clone()),
            ..LeagueInput::default()
        };
        let (league, _) = leagues::update(&state, &posted.caller, *id, input).await?;
        Ok(format!(
            "{} now plays {named}. Games already stored keep their scores; games from now on are checked against this version.",
            league.name
        ))
    }
    .await;
    after(&format!("/leagues/{id}"), result)
}

/// Starts the league's next season (same settings and scoring) and opens it.
#[post("/leagues/{id}/next-season")]
async fn start_next_season(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<NextSeasonForm>,
) -> Result<HttpResponse, AppError> {
    let back = format!("/leagues/{id}#next-season");
    let f = &posted.form;
    let dates = date("starts_on", f.starts_on.as_deref(), "the first night")
        .and_then(|s| Ok((s, date("ends_on", f.ends_on.as_deref(), "the last night")?)));
    let (starts_on, ends_on) = match dates {
        Ok(d) => d,
        Err(e) => return after(&back, Err(e)),
    };
    let next = leagues::NextSeason {
        name: f.name.clone(),
        card: f.card.clone(),
        starts_on,
        ends_on,
    };
    match leagues::next_season(&state, &posted.caller, *id, next).await {
        Ok((made, _)) => after(
            &format!("/leagues/{}", made.id),
            Ok(format!(
                "{} started: the same settings and scoring as the season before; start its first {} below.",
                made.name,
                made.session_lower()
            )),
        ),
        Err(e) => after(&back, Err(e)),
    }
}

#[derive(Template)]
#[template(path = "pages/results.html")]
struct ResultsPage {
    ctx: Ctx,
    r: crate::domain::seasons::results::ResultsView,
    /// The heading of the board's figure when it is not plain points.
    figure_heading: &'static str,
}

/// The final results, printable (who may read the standings may read them).
#[get("/leagues/{id}/results")]
async fn results_page(
    page: Page,
    state: web::Data<AppState>,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let r = crate::domain::seasons::results::results(&state, &page.caller, *id).await?;
    let figure_heading = match r.figure_name.as_str() {
        "counted points" => "Counted points",
        "counted average" => "Counted average",
        _ => "Average",
    };
    page.render(ResultsPage {
        ctx: page.ctx.clone(),
        r,
        figure_heading,
    })
}

#[derive(Deserialize)]
struct SortQuery {
    sort: Option<String>,
    dir: Option<String>,
}

fn sort_rows(rows: &mut [Standing], key: &str, descending: bool) {
    rows.sort_by(|a, b| {
        let ord = match key {
            "player" => a.player.to_lowercase().cmp(&b.player.to_lowercase()),
            "games" => a.games.cmp(&b.games),
            "wins" => a.wins.cmp(&b.wins),
            "points" => a.points.cmp(&b.points),
            "average" => a.average.total_cmp(&b.average),
            "self_picks" => a.self_picks.cmp(&b.self_picks),
            "jokerless" => a.jokerless_wins.cmp(&b.jokerless_wins),
            "deal_ins" => a.deal_ins.cmp(&b.deal_ins),
            "dead" => a.dead_hands.cmp(&b.dead_hands),
            "wall" => a.wall_games.cmp(&b.wall_games),
            "rating" => a.rating.unwrap_or(0.0).total_cmp(&b.rating.unwrap_or(0.0)),
            "counted" => a
                .counted_average
                .unwrap_or(0.0)
                .total_cmp(&b.counted_average.unwrap_or(0.0))
                .then(a.counted_points.cmp(&b.counted_points)),
            // Rank order: unranked players last.
            _ => a.rank.unwrap_or(u32::MAX).cmp(&b.rank.unwrap_or(u32::MAX)),
        };
        if descending { ord.reverse() } else { ord }
    });
}

#[get("/leagues/{id}")]
async fn show(
    page: Page,
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<i64>,
    q: web::Query<SortQuery>,
) -> Result<HttpResponse, AppError> {
    let o = crate::domain::seasons::overview::overview(&state, &page.caller, *id, CHARTED).await?;
    // The chart follows the standings' leaders, before any re-sorting.
    let mut chart = chart(&o.night_numbers, &o.series);
    // Open play's chart is week by week: the axis says the weeks.
    let by_week = o.by_week;
    let first_period = o.periods.first().cloned().unwrap_or_default();
    if let Some(c) = chart.as_mut().filter(|_| by_week) {
        c.periods = o.periods.clone();
        for (_, label) in &mut c.nights {
            if let Some(p) = label
                .parse::<usize>()
                .ok()
                .and_then(|i| o.periods.get(i.wrapping_sub(1)))
            {
                *label = p.clone();
            }
        }
        // A week's name is wider than a night's number: at most five on the axis.
        let n = c.nights.len();
        let every = n.div_ceil(5).max(1);
        let mut i = 0;
        c.nights.retain(|_| {
            i += 1;
            (i - 1) % every == 0 || i == n
        });
    }
    let (league, mut rows) = (o.league, o.rows);
    if let Some(c) = chart.as_mut() {
        legend_in_standings_order(c, &rows, &league);
    }
    let chart_html = chart
        .as_ref()
        .map(|c| league_figure(c, by_week, &first_period, &league));
    let counted = !standings::counting_of(&league).is_plain();
    let columns = sorted_columns(&league, &q, counted, &mut rows);
    let embed = (o.organizer && league.visibility == "public").then(|| {
        format!(
            "<iframe src=\"{}/leagues/{}/embed\" title=\"Standings: {}\" width=\"100%\" height=\"480\" style=\"border:0\" loading=\"lazy\"></iframe>",
            crate::http::client::base_url(&req),
            league.id,
            league.name.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;")
        )
    });
    let (previous_season, next_season) =
        leagues::seasons_around(&state, &page.caller, &league).await?;
    let next_cards = if o.organizer && next_season.is_none() {
        crate::domain::people::clubs::cards_for(&state, &o.club, true).await?
    } else {
        Vec::new()
    };
    let ahead = if league.kind == "league" {
        crate::domain::play::ahead::list(&state, &page.caller, league.id).await?
    } else {
        Vec::new()
    };
    let to_answer =
        crate::domain::play::open::to_answer(&state, &page.caller, &league, &o.club).await?;
    let card_move = if o.organizer {
        crate::domain::cards::library::newer_version(&state, &league).await?
    } else {
        None
    };
    let card = crate::domain::cards::library::played_by(&state, &league).await?;
    let today_here = chrono::Utc::now()
        .with_timezone(&crate::domain::clock::Clock::of(&o.club.time_zone).0)
        .date_naive();
    let this_monday = crate::domain::seasons::standings::week_of(today_here);
    page.render(LeaguePage {
        ctx: page.ctx.clone(),
        card,
        this_week: crate::domain::seasons::standings::week_words(this_monday),
        this_monday,
        card_move,
        ahead,
        calendar: calendar_link(&state, &page, &league),
        waiting: o.waiting,
        to_answer,
        season_average: o.season_average,
        embed,
        previous_season,
        next_season,
        next_cards,
        counted,
        board_in_words: standings::board_in_words(&league),
        lf: LeagueFields::of(&league),
        league,
        club: o.club,
        organizer: o.organizer,
        columns,
        rows,
        ratings_updating: o.ratings_updating,
        chart: chart_html,
        nights: o.nights,
        today: chrono::Utc::now().date_naive(),
    })
}

/// The league page's chart as a figure: its title and what it shows, in words.
fn league_figure(c: &Chart, by_week: bool, first_period: &str, league: &League) -> String {
    let lines = c.bars.is_empty();
    let top = if lines { c.series.len() } else { c.bars.len() };
    let (title, said) = match (by_week, lines) {
        (true, true) => (
            "Points week by week".to_string(),
            format!("Running points totals of the top {top} players, week by week."),
        ),
        (true, false) => (
            format!("Points in the week of {first_period}"),
            format!("Points of the top {top} players in the week of {first_period}."),
        ),
        (false, true) => (
            format!("Points over {}", league.sessions().to_lowercase()),
            format!(
                "Running points totals of the top {top} players, {} by {}.",
                league.session_lower(),
                league.session_lower()
            ),
        ),
        (false, false) => (
            format!("Points on the first {}", league.session_lower()),
            format!(
                "Points of the top {top} players on the league's first {}.",
                league.session_lower()
            ),
        ),
    };
    let session = league.session().to_string();
    let note = if !lines {
        String::new()
    } else if by_week {
        "Weeks (Monday to Sunday) along the bottom; each player keeps a colour and a marker, and each line ends with its name.".into()
    } else {
        format!(
            "{} along the bottom; each player keeps a colour and a marker, and each line ends with its name.",
            league.sessions()
        )
    };
    let mut f = c.figure(
        "chart",
        title,
        &said,
        |p| {
            if by_week {
                p.to_string()
            } else {
                format!("{session} {p}")
            }
        },
        note,
    );
    if !lines {
        f.table.head = vec!["Player".into(), "Points".into()];
    }
    charts::html(&f)
}

/// The chart's legend in standings order, each player with place and the figure the board
/// ranks by (the lines are every game's points, which on a counting board rank differently).
fn legend_in_standings_order(c: &mut Chart, rows: &[Standing], league: &League) {
    let average = league.board == "average";
    let word = super::view::figure_heading(league).to_lowercase();
    for s in &mut c.series {
        if let Some(r) = rows.iter().find(|r| r.player_id == s.id) {
            let place = r
                .rank
                .map(|n| format!("{}{n}. ", if r.shared { "T" } else { "" }))
                .unwrap_or_default();
            s.legend = format!("{place}{}: {} {word}", r.player, r.figure_text(average));
        }
    }
    let at = |id: i64| {
        rows.iter()
            .position(|r| r.player_id == id)
            .unwrap_or(usize::MAX)
    };
    c.series.sort_by_key(|s| at(s.id));
}

/// The standings' columns, the rows sorted as asked. A board that does not count every game
/// (`counted`) puts what counts right after the player, and says which nights it dropped at
/// the end.
fn sorted_columns(
    league: &League,
    q: &SortQuery,
    counted: bool,
    rows: &mut [Standing],
) -> Vec<Column> {
    let mut order: Vec<(&str, &str)> = COLUMNS.to_vec();
    if league.board == "average" {
        order.swap(2, 5);
    }
    if counted {
        order.insert(2, ("counted", super::view::figure_heading(league)));
        if league.board == "best_per_week" {
            // On a phone the first four columns are what a weekly board is read for.
            order.insert(3, ("this_week", "This week"));
        }
        order.push((
            "dropped",
            if league.board == "best_per_week" {
                "Weeks, latest first"
            } else {
                "Dropped nights"
            },
        ));
    }
    let key = order
        .iter()
        .map(|c| c.0)
        .filter(|k| !matches!(*k, "dropped" | "this_week"))
        .find(|k| Some(*k) == q.sort.as_deref())
        .unwrap_or("rank");
    // Names and ranks read best ascending, counts descending.
    let natural_desc = !matches!(key, "rank" | "player");
    let descending = match q.dir.as_deref() {
        Some("asc") => false,
        Some("desc") => true,
        _ => natural_desc,
    };
    sort_rows(rows, key, descending);
    order
        .iter()
        .map(|(k, heading)| {
            let current = *k == key;
            let default_desc = !matches!(*k, "rank" | "player");
            let next_desc = if current { !descending } else { default_desc };
            Column {
                key: k,
                heading,
                sorted: match (current, descending) {
                    (false, _) => "none",
                    (true, true) => "descending",
                    (true, false) => "ascending",
                },
                href: format!(
                    "/leagues/{}?sort={k}&dir={}#standings",
                    league.id,
                    if next_desc { "desc" } else { "asc" }
                ),
            }
        })
        .collect()
}

/// The league's calendar feed for the caller: public for a public league, with the member's
/// own key for a members' league (none for a tournament or open play).
fn calendar_link(state: &AppState, page: &Page, league: &League) -> Option<String> {
    if league.kind != "league" {
        None
    } else if league.visibility == "public" {
        Some(format!(
            "{}/api/v1/leagues/{}/calendar.ics",
            state.public_url, league.id
        ))
    } else {
        page.caller.user().ok().map(|u| {
            format!(
                "{}/api/v1/leagues/{}/calendar.ics?key={}",
                state.public_url,
                league.id,
                crate::domain::play::ahead::calendar_key(state, league.id, u.id)
            )
        })
    }
}

#[derive(Deserialize)]
struct NightForm {
    /// As typed: an empty or unreadable date is said in words, not as a form error.
    #[serde(default)]
    date: String,
}

#[post("/leagues/{id}/nights")]
async fn new_night(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<NightForm>,
) -> Result<HttpResponse, AppError> {
    let date = match date("date", Some(&posted.form.date), "the night's date") {
        Ok(Some(d)) => d,
        Ok(None) => {
            let e = Error::invalid("date", "give the night's date, e.g. 2026-03-03");
            return after(&format!("/leagues/{id}"), Err(e));
        }
        Err(e) => return after(&format!("/leagues/{id}"), Err(e)),
    };
    match nights::create(&state, &posted.caller, *id, NewNight { date }).await {
        Ok((n, league)) => after(
            &format!("/nights/{}", n.id),
            Ok(format!(
                "{} {} started: check players in.",
                league.session(),
                n.number
            )),
        ),
        Err(e) => after(&format!("/leagues/{id}"), Err(e)),
    }
}

/// The league forms' fields (create and settings).
#[derive(Deserialize)]
pub(super) struct LeagueForm {
    name: String,
    #[serde(default)]
    card: Option<String>,
    #[serde(default)]
    ruleset: Option<String>,
    visibility: String,
    board: String,
    #[serde(default)]
    games_per_table: Option<String>,
    #[serde(default)]
    min_games: Option<String>,
    #[serde(default)]
    best_per_night: Option<String>,
    #[serde(default)]
    drop_worst_nights: Option<String>,
    #[serde(default)]
    best_per_week: Option<String>,
    #[serde(default)]
    confirm_hours: Option<String>,
    #[serde(default)]
    same_table_per_week: Option<String>,
    #[serde(default)]
    place: Option<String>,
    #[serde(default)]
    sanctioning_number: Option<String>,
    #[serde(default)]
    starts_on: Option<String>,
    #[serde(default)]
    ends_on: Option<String>,
    #[serde(default)]
    kind: Option<String>,
}

fn number(field: &str, text: Option<&str>, what: &str) -> Result<Option<i32>, Error> {
    match text.map(str::trim) {
        None | Some("") => Ok(None),
        Some(n) => n
            .parse::<i32>()
            .map(Some)
            .map_err(|_| Error::invalid(field, format!("give {what} as a whole number"))),
    }
}

fn date(field: &str, text: Option<&str>, what: &str) -> Result<Option<NaiveDate>, Error> {
    match text.map(str::trim) {
        None | Some("") => Ok(None),
        Some(d) => d
            .parse::<NaiveDate>()
            .map(Some)
            .map_err(|_| Error::invalid(field, format!("give {what} as a date, e.g. 2026-03-03"))),
    }
}

/// The form as a league input; `create` takes the card and scoring too.
pub(super) fn league_input(f: LeagueForm, create: bool) -> Result<LeagueInput, Error> {
    let starts_on = date("starts_on", f.starts_on.as_deref(), "the first night")?;
    let ends_on = date("ends_on", f.ends_on.as_deref(), "the last night")?;
    if let (Some(a), Some(b)) = (starts_on, ends_on)
        && b < a
    {
        return Err(Error::invalid(
            "ends_on",
            format!("the last night ({b}) comes before the first ({a})"),
        ));
    }
    Ok(LeagueInput {
        name: Some(f.name),
        card: if create { f.card } else { None },
        ruleset: if create {
            f.ruleset.map(serde_json::Value::String)
        } else {
            None
        },
        visibility: Some(f.visibility),
        board: Some(f.board),
        games_per_table: number(
            "games_per_table",
            f.games_per_table.as_deref(),
            "the games at each table",
        )?,
        min_games: number("min_games", f.min_games.as_deref(), "the games needed")?,
        best_per_night: number(
            "best_per_night",
            f.best_per_night.as_deref(),
            "the games that count each night",
        )?,
        drop_worst_nights: number(
            "drop_worst_nights",
            f.drop_worst_nights.as_deref(),
            "the nights dropped",
        )?,
        best_per_week: number(
            "best_per_week",
            f.best_per_week.as_deref(),
            "the matches that count each week",
        )?,
        confirm_hours: number(
            "confirm_hours",
            f.confirm_hours.as_deref(),
            "the hours a game waits",
        )?,
        same_table_per_week: number(
            "same_table_per_week",
            f.same_table_per_week.as_deref(),
            "the matches with the same three opponents",
        )?,
        starts_on,
        ends_on,
        kind: f.kind.filter(|k| !k.trim().is_empty()),
        place: f.place,
        sanctioning_number: f.sanctioning_number,
    })
}

#[post("/leagues/{id}/settings")]
async fn settings(
    state: web::Data<AppState>,
    id: web::Path<i64>,
    posted: Posted<LeagueForm>,
) -> Result<HttpResponse, AppError> {
    let result = match league_input(posted.form, false) {
        Ok(input) => leagues::update(&state, &posted.caller, *id, input)
            .await
            .map(|(l, _)| {
                format!(
                    "{} saved: {} a table.",
                    l.name,
                    crate::domain::count(l.games_per_table, "game")
                )
            }),
        Err(e) => Err(e),
    };
    after(
        &format!("/leagues/{id}#settings"),
        result.map_err(super::view::league_form_refusal),
    )
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(show)
        .service(new_night)
        .service(settings)
        .service(results_page)
        .service(start_next_season)
        .service(move_card);
}
