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
    fn tiles_are_said_in_words() {
        assert_eq!(
            tiles_in_words("W W W W J 9D 9D WD RD F"),
            "West × 4, Joker, 9 Dot × 2, Soap, Red Dragon, Flower"
        );
    }
}
