//! What pages draw, computed here and marked up in the templates: tiles, the points chart.

use crate::rules::Tile;

/// One tile as drawn: its face and the class that colours it.
#[derive(Debug, Clone, PartialEq)]
pub struct TileFace {
    pub face: String,
    /// `bam`, `crak`, `dot`, `wind`, `dragon`, `flower` or `joker`.
    pub kind: &'static str,
    /// The tile as written in notation, for labels.
    pub label: String,
    /// The word under the face, so tiles differ without colour: `Bam`, `Crak`, `Dot`, or the
    /// honour's name (`North`, `Red`, `Soap`, `Flower`, `Joker`).
    pub word: &'static str,
}

pub fn tile_face(t: Tile) -> TileFace {
    use crate::rules::Suit;
    let label = t.to_string();
    let (face, kind, word) = match t.suit_and_number() {
        Some((Suit::Bam, n)) => (n.to_string(), "bam", "Bam"),
        Some((Suit::Crak, n)) => (n.to_string(), "crak", "Crak"),
        Some((Suit::Dot, n)) => (n.to_string(), "dot", "Dot"),
        None => match label.as_str() {
            "N" => (label.clone(), "wind", "North"),
            "E" => (label.clone(), "wind", "East"),
            "W" => (label.clone(), "wind", "West"),
            "S" => (label.clone(), "wind", "South"),
            "RD" => ("R".to_string(), "dragon red", "Red"),
            "GD" => ("G".to_string(), "dragon green", "Green"),
            "WD" => ("0".to_string(), "dragon white", "Soap"),
            "F" => ("F".to_string(), "flower", "Flower"),
            _ => ("J".to_string(), "joker", "Joker"),
        },
    };
    TileFace {
        face,
        kind,
        label,
        word,
    }
}

/// Tiles written in notation, said as people say them, runs of one tile counted: "W W W W J 9D"
/// reads "West × 4, Joker, 9 Dot"; words that are not tiles are skipped.
pub fn tiles_in_words(text: &str) -> String {
    let said: Vec<String> = faces(text)
        .into_iter()
        .map(|t| match t.kind {
            "bam" | "crak" | "dot" => format!("{} {}", t.face, t.word),
            "dragon red" | "dragon green" => format!("{} Dragon", t.word),
            _ => t.word.to_string(),
        })
        .collect();
    let mut runs: Vec<(usize, &str)> = Vec::new();
    for s in &said {
        match runs.last_mut() {
            Some((n, last)) if *last == s.as_str() => *n += 1,
            _ => runs.push((1, s)),
        }
    }
    runs.iter()
        .map(|(n, s)| {
            if *n == 1 {
                s.to_string()
            } else {
                format!("{s} × {n}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Tiles written in notation, as faces; words that are not tiles are skipped.
pub fn faces(text: &str) -> Vec<TileFace> {
    text.split_whitespace()
        .filter_map(Tile::parse)
        .map(tile_face)
        .collect()
}

/// Every tile kind for the picker, one row per suit (Bams, Craks, Dots), then the honours.
pub fn picker() -> Vec<(&'static str, Vec<TileFace>)> {
    let mut rows: Vec<(&'static str, Vec<TileFace>)> = vec![
        ("Bams", Vec::new()),
        ("Craks", Vec::new()),
        ("Dots", Vec::new()),
        ("Honours", Vec::new()),
    ];
    for f in Tile::all().map(tile_face) {
        let row = match f.kind {
            "bam" => 0,
            "crak" => 1,
            "dot" => 2,
            _ => 3,
        };
        rows[row].1.push(f);
    }
    rows
}

/// How many colours the chart has; a player keeps the same one from night to night.
pub const PALETTE: usize = 8;

/// A player's colour in the chart: from the player, not from the ranking, so it does not
/// change between nights. Lines are labelled with names too: colour is never the only cue.
pub fn colour_of(player_id: i64) -> usize {
    (player_id.rem_euclid(PALETTE as i64)) as usize
}

/// Colours for the players of one chart, all different (up to `PALETTE` players): each player
/// takes their own colour (`colour_of`) unless a player with a smaller id has it, then the next
/// free one. So colours stay put from night to night while the same players are charted, and
/// no two lines or bars share one.
pub fn distinct_colours(ids: &[i64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..ids.len()).collect();
    order.sort_by_key(|&i| ids[i]);
    let mut taken = [false; PALETTE];
    let mut out = vec![0; ids.len()];
    for i in order {
        let own = colour_of(ids[i]);
        let free = (0..PALETTE)
            .map(|k| (own + k) % PALETTE)
            .find(|&c| !taken[c])
            .unwrap_or(own);
        taken[free] = true;
        out[i] = free;
    }
    out
}

/// A line of the points chart.
#[derive(Debug, Clone)]
pub struct Series {
    pub id: i64,
    pub name: String,
    /// The legend's words, in standings order: place, name and the board's figure
    /// ("1. Ann Lee: 320 counted points"); set by the page that has the standings.
    pub legend: String,
    /// Colour class 0..PALETTE.
    pub colour: usize,
    /// SVG polyline points.
    pub points: String,
    /// Where the name is written, at the end of the line.
    pub label: (f64, f64),
    /// The name whole (the line's end may cut it), and the running total after each period:
    /// the numbers the chart draws, for its table.
    pub full_name: String,
    pub totals: Vec<i64>,
}

/// One bar of the first night's chart.
#[derive(Debug, Clone)]
pub struct Bar {
    pub name: String,
    /// The name whole, for the chart's table.
    pub full_name: String,
    pub colour: usize,
    pub points: i64,
    /// x and width of the bar, y of its row.
    pub x: f64,
    pub width: f64,
    pub y: f64,
}

/// The points chart: cumulative points per night for some players; after a single night, a bar
/// per player instead of lines that would be dots.
#[derive(Debug, Clone)]
pub struct Chart {
    pub width: u32,
    pub height: u32,
    pub series: Vec<Series>,
    pub bars: Vec<Bar>,
    /// (y, label) of horizontal guides.
    pub guides: Vec<(f64, String)>,
    /// (x, label) of nights on the axis.
    pub nights: Vec<(f64, String)>,
    pub zero_y: f64,
    /// x of zero for the bars.
    pub zero_x: f64,
    pub left: f64,
    pub right: f64,
    /// What each period is called (a night's number; in open play the week), every one of them.
    pub periods: Vec<String>,
}

impl Chart {
    /// The chart in one sentence, with its numbers, for a screen reader: "After 3 nights: Dora
    /// Ellis 860, June Kowalski 555." (each player's last total), or the first night's points.
    pub fn said(&self) -> String {
        let named: Vec<String> = if self.bars.is_empty() {
            self.series
                .iter()
                .map(|s| format!("{} {}", s.full_name, s.totals.last().copied().unwrap_or(0)))
                .collect()
        } else {
            self.bars
                .iter()
                .map(|b| format!("{} {}", b.full_name, b.points))
                .collect()
        };
        format!("{}.", named.join(", "))
    }
}

/// Lays out the chart: `nights` are the night numbers in order, `players` (id, name, points per
/// night in the same order).
pub fn chart(nights: &[i32], players: &[(i64, String, Vec<i64>)]) -> Option<Chart> {
    if nights.is_empty() || players.is_empty() {
        return None;
    }
    if nights.len() == 1 {
        let mut c = bars(players);
        c.periods = nights.iter().map(i32::to_string).collect();
        return Some(c);
    }
    let (width, height) = (480u32, 300u32);
    // The right margin holds each line's name at its end, 11 characters at 17 px (a longer
    // name is cut there; the legend says it whole). At 480 wide the chart is drawn at three
    // quarters of its size on a phone, so its words stay readable without a sideways scroll.
    let (left, right, top, bottom) = (56.0, 328.0, 20.0, 262.0);
    let colours = distinct_colours(&players.iter().map(|p| p.0).collect::<Vec<_>>());
    let totals: Vec<Vec<i64>> = players
        .iter()
        .map(|(_, _, per)| {
            per.iter()
                .scan(0i64, |acc, p| {
                    *acc = acc.saturating_add(*p);
                    Some(*acc)
                })
                .collect()
        })
        .collect();
    let lo = totals.iter().flatten().copied().min().unwrap_or(0).min(0);
    let hi = totals.iter().flatten().copied().max().unwrap_or(0).max(0);
    let span = (hi - lo).max(1) as f64;
    let y = |v: i64| bottom - (v - lo) as f64 / span * (bottom - top);
    let step = (right - left) / (nights.len() - 1) as f64;
    let x = |i: usize| left + step * i as f64;
    let mut series: Vec<Series> = players
        .iter()
        .zip(&totals)
        .zip(&colours)
        .map(|(((id, name, _), tot), colour)| {
            let last = tot.last().copied().unwrap_or(0);
            Series {
                id: *id,
                legend: format!("{name}: {last}"),
                name: shortened(name, 11),
                colour: *colour,
                points: tot
                    .iter()
                    .enumerate()
                    .map(|(i, v)| format!("{:.1},{:.1}", x(i), y(*v)))
                    .collect::<Vec<_>>()
                    .join(" "),
                label: (right + 8.0, y(last) + 5.0),
                full_name: name.clone(),
                totals: tot.clone(),
            }
        })
        .collect();
    // Names at the lines' ends, nudged apart so none sits on another.
    let mut order: Vec<usize> = (0..series.len()).collect();
    order.sort_by(|a, b| series[*a].label.1.total_cmp(&series[*b].label.1));
    // A label is 21 high at 17 px (ascent and descent): down from the top, then, if the last
    // ran past the foot, up from it.
    const LABEL: f64 = 21.0;
    let mut floor = f64::MIN;
    for &i in &order {
        let y = series[i].label.1.max(floor + LABEL);
        series[i].label.1 = y;
        floor = y;
    }
    let mut cap = height as f64 - 6.0;
    for &i in order.iter().rev() {
        let y = series[i].label.1.min(cap);
        series[i].label.1 = y;
        cap = y - LABEL;
    }
    let mut guides = vec![(y(hi), hi.to_string()), (y(lo), lo.to_string())];
    if lo < 0 && hi > 0 {
        guides.push((y(0), "0".to_string()));
    }
    let every = nights.len().div_ceil(8).max(1);
    let labels = nights
        .iter()
        .enumerate()
        .filter(|(i, _)| i % every == 0 || *i == nights.len() - 1)
        .map(|(i, n)| (x(i), n.to_string()))
        .collect();
    Some(Chart {
        width,
        height,
        series,
        bars: Vec::new(),
        guides,
        nights: labels,
        zero_y: y(0),
        zero_x: 0.0,
        left,
        right,
        periods: nights.iter().map(i32::to_string).collect(),
    })
}

/// One night so far: a row per player, her name on the left and her points on the right above
/// a bar from zero, so no label ever sits on a bar or on another label, whatever the signs.
/// The chart is narrow (360 wide), so on a phone it is drawn near its own size and fits.
fn bars(players: &[(i64, String, Vec<i64>)]) -> Chart {
    let (width, pad, row) = (360.0, 4.0, 46.0);
    let (left, right) = (pad, width - pad);
    let height = (players.len() as f64 * row + 8.0) as u32;
    let points: Vec<i64> = players.iter().map(|(_, _, p)| p.iter().sum()).collect();
    let lo = points.iter().copied().min().unwrap_or(0).min(0);
    let hi = points.iter().copied().max().unwrap_or(0).max(0);
    let span = (hi - lo).max(1) as f64;
    let x = |v: i64| left + (v - lo) as f64 / span * (right - left);
    let colours = distinct_colours(&players.iter().map(|p| p.0).collect::<Vec<_>>());
    let bars = players
        .iter()
        .zip(&points)
        .zip(&colours)
        .enumerate()
        .map(|(i, (((_, name, _), p), colour))| {
            let (a, b) = (x(0), x(*p));
            // The name has the row's width but the points' (17 px bold: about 10 a character).
            let room = ((right - left - 10.0 * (p.to_string().len() as f64 + 2.0)) / 10.0) as usize;
            Bar {
                full_name: name.clone(),
                name: shortened(name, room),
                colour: *colour,
                points: *p,
                x: a.min(b),
                width: (a - b).abs().max(2.0),
                y: 4.0 + i as f64 * row,
            }
        })
        .collect();
    Chart {
        width: width as u32,
        height,
        series: Vec::new(),
        bars,
        guides: Vec::new(),
        nights: Vec::new(),
        zero_y: 0.0,
        zero_x: x(0),
        left,
        right,
        periods: Vec::new(),
    }
}

/// `name` in at most `room` characters, ending in "…" when cut (the legend and the table
/// beside the chart say it whole).
fn shortened(name: &str, room: usize) -> String {
    let room = room.max(4);
    if name.chars().count() <= room {
        name.to_string()
    } else {
        let cut: String = name.chars().take(room - 1).collect();
        format!("{}…", cut.trim_end())
    }
}

/// A league's settings as the league forms show them (defaults for a new league).
/// A scoring preset's name in words, as a club says it.
pub fn preset_words(id: &str) -> &'static str {
    match id {
        "nmjl-money" => "NMJL money: the discarder pays double",
        "bigcard-money" => "Big-card money: the discarder may pay for the table",
        "bigcard-points" => "Big-card points: winner's value plus bonuses",
        "tournament" => "Tournament sheet points",
        _ => "the club's own scoring",
    }
}

/// A refusal of the league form with each problem under the form's own label ("Games at each
/// table: use 1 to 32"), as the person filling it reads it, not the API's field name.
pub fn league_form_refusal(e: crate::domain::Error) -> crate::domain::Error {
    let crate::domain::Error::Invalid { detail, mut errors } = e else {
        return e;
    };
    for err in &mut errors {
        let label = match err.field.as_str() {
            "name" => "Name",
            "kind" => "What it is",
            "games_per_table" => "Games at each table",
            "visibility" => "Standings visible to",
            "board" => "Rank by",
            "min_games" => "Games needed to be ranked",
            "best_per_night" => "Games that count each night or round",
            "drop_worst_nights" => "Lowest nights or rounds dropped",
            "best_per_week" => "Matches that count each week",
            "confirm_hours" => "Hours a game waits to be confirmed",
            "same_table_per_week" => "Counted matches a week with the same three opponents",
            "starts_on" => "First night or round",
            "ends_on" => "Last night or round",
            "place" => "Place",
            "sanctioning_number" => "Sanctioning number",
            "card" => "Card",
            "ruleset" => "Scoring",
            _ => continue,
        };
        err.message = format!("{label}: {}", err.message);
    }
    crate::domain::Error::Invalid { detail, errors }
}

/// The heading of the figure a league's board ranks by, one name on every page: "Points",
/// "Average", or "Counted points" / "Counted average" on a board that does not count every
/// game.
pub fn figure_heading(league: &crate::domain::seasons::leagues::League) -> &'static str {
    let average = league.board == "average";
    let counted = !crate::domain::seasons::standings::counting_of(league).is_plain();
    match (average, counted) {
        (true, true) => "Counted average",
        (true, false) => "Average",
        (false, true) => "Counted points",
        (false, false) => "Points",
    }
}

/// A league's visibility in words.
pub fn visibility_words(v: &str) -> &'static str {
    if v == "public" {
        "standings public"
    } else {
        "club members only"
    }
}

pub struct LeagueFields {
    pub name: String,
    pub games_per_table: i32,
    pub visibility: String,
    pub board: String,
    pub min_games: i32,
    pub starts_on: String,
    pub ends_on: String,
    pub kind: String,
    pub best_per_night: i32,
    pub drop_worst_nights: i32,
    pub best_per_week: i32,
    pub confirm_hours: i32,
    /// 0: no limit.
    pub same_table_per_week: i32,
    pub place: String,
    pub sanctioning_number: String,
}

impl LeagueFields {
    /// What the league's sessions are called: night, or round in a tournament.
    pub fn session(&self) -> &'static str {
        match self.kind.as_str() {
            "tournament" => "round",
            "open" => "match",
            _ => "night",
        }
    }

    /// The plural: "nights", "rounds", "matches".
    pub fn sessions(&self) -> &'static str {
        match self.kind.as_str() {
            "tournament" => "rounds",
            "open" => "matches",
            _ => "nights",
        }
    }
}

impl Default for LeagueFields {
    fn default() -> Self {
        LeagueFields {
            name: String::new(),
            games_per_table: 4,
            visibility: "members".into(),
            board: "total".into(),
            min_games: 0,
            starts_on: String::new(),
            ends_on: String::new(),
            kind: "league".into(),
            best_per_night: 2,
            drop_worst_nights: 0,
            best_per_week: 2,
            confirm_hours: 48,
            same_table_per_week: 0,
            place: String::new(),
            sanctioning_number: String::new(),
        }
    }
}

impl LeagueFields {
    pub fn of(l: &crate::domain::seasons::leagues::League) -> LeagueFields {
        LeagueFields {
            name: l.name.clone(),
            games_per_table: l.games_per_table,
            visibility: l.visibility.clone(),
            board: l.board.clone(),
            min_games: l.min_games,
            starts_on: l.starts_on.map(|d| d.to_string()).unwrap_or_default(),
            ends_on: l.ends_on.map(|d| d.to_string()).unwrap_or_default(),
            kind: l.kind.clone(),
            best_per_night: l.best_per_night,
            drop_worst_nights: l.drop_worst_nights,
            best_per_week: l.best_per_week,
            confirm_hours: l.confirm_hours,
            same_table_per_week: l.same_table_per_week.unwrap_or(0),
            place: l.place.clone().unwrap_or_default(),
            sanctioning_number: l.sanctioning_number.clone().unwrap_or_default(),
        }
    }
}

/// A count with its noun: "1 player", "40 players".
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A moment as a club reads it: in the club's time zone (UTC when the zone is unknown), e.g.
/// "Tue 3 Mar 2026, 19:42 EST".
pub fn local_time(at: chrono::DateTime<chrono::Utc>, time_zone: &str) -> String {
    crate::domain::clock::Clock::of(time_zone).at(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_are_drawn_by_kind() {
        let f = faces("2B 5C 9D N RD 0 F J nonsense");
        let kinds: Vec<&str> = f.iter().map(|t| t.kind).collect();
        assert_eq!(
            kinds,
            [
                "bam",
                "crak",
                "dot",
                "wind",
                "dragon red",
                "dragon white",
                "flower",
                "joker"
            ]
        );
        assert_eq!(f[0].face, "2");
        let words: Vec<&str> = f.iter().map(|t| t.word).collect();
        assert_eq!(
            words,
            [
                "Bam", "Crak", "Dot", "North", "Red", "Soap", "Flower", "Joker"
            ]
        );
        let rows = picker();
        let sizes: Vec<(&str, usize)> = rows.iter().map(|(n, r)| (*n, r.len())).collect();
        assert_eq!(
            sizes,
            [("Bams", 9), ("Craks", 9), ("Dots", 9), ("Honours", 9)]
        );
        assert!(rows[1].1.iter().all(|t| t.word == "Crak"));
    }

    #[test]
    fn the_chart_accumulates_and_scales_into_the_box() {
        let c = chart(
            &[1, 2, 3],
            &[
                (7, "A".into(), vec![100, -50, 25]),
                (15, "B".into(), vec![-100, 0, 0]),
            ],
        )
        .unwrap();
        assert_eq!(c.series[0].legend, "A: 75");
        assert_eq!(c.series[1].legend, "B: -100");
        // A's best total (100) is the top of the box, B's -100 the bottom.
        assert!(c.series[0].points.starts_with("56.0,20.0"));
        assert!(c.series[1].points.starts_with("56.0,262.0"));
        assert_eq!(c.series[0].points.split(' ').count(), 3);
        // Colours follow the players, not their ranks, and no two players share one: 7 and 15
        // both want colour 7; the smaller id keeps it, the other takes the next free one.
        assert_eq!((c.series[0].colour, c.series[1].colour), (7, 0));
        // Said in numbers, each player's last total, and every total kept for the table.
        assert_eq!(c.said(), "A 75, B -100.");
        assert_eq!(c.series[0].totals, vec![100, 50, 75]);
        assert_eq!(c.periods, vec!["1", "2", "3"]);
        assert_eq!(colour_of(9), 1);
        assert!(chart(&[], &[]).is_none());
    }

    #[test]
    fn charted_players_never_share_a_colour_and_keep_theirs() {
        // Eight players whose ids all want colour 2 or 3.
        let ids = [2, 10, 18, 26, 3, 11, 19, 27];
        let c = distinct_colours(&ids);
        let mut seen = c.clone();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), 8, "{c:?}");
        // The same players in another order get the same colours.
        let mut rev = ids;
        rev.reverse();
        let mut back = distinct_colours(&rev);
        back.reverse();
        assert_eq!(back, c);
        // Players whose own colours differ keep them.
        assert_eq!(distinct_colours(&[1, 2, 3]), vec![1, 2, 3]);
    }

    #[test]
    fn one_night_is_a_bar_per_player_and_labels_never_overlap() {
        let c = chart(
            &[1],
            &[(1, "A".into(), vec![50]), (2, "B".into(), vec![-25])],
        )
        .unwrap();
        assert!(c.series.is_empty());
        assert_eq!(c.bars.len(), 2);
        assert_eq!((c.bars[0].points, c.bars[1].points), (50, -25));
        assert_eq!(c.said(), "A 50, B -25.");
        assert_eq!(c.periods, vec!["1"]);
        // A's bar starts at zero and goes right; B's ends at zero.
        assert!((c.bars[0].x - c.zero_x).abs() < 0.01);
        assert!((c.bars[1].x + c.bars[1].width - c.zero_x).abs() < 0.01);
        let same = chart(
            &[1, 2],
            &[(1, "A".into(), vec![10, 0]), (2, "B".into(), vec![10, 0])],
        )
        .unwrap();
        assert!((same.series[0].label.1 - same.series[1].label.1).abs() >= 21.0);
        assert_eq!(shortened("June Kowalski", 11), "June Kowal…");
        assert_eq!(shortened("Ann", 11), "Ann");
        assert_eq!(
            tiles_in_words("W W W W J 9D 9D WD RD F"),
            "West × 4, Joker, 9 Dot × 2, Soap, Red Dragon, Flower"
        );
    }
}
