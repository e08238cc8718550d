//! Tiles, their notation (rules.md §1) and tile counts.

use std::fmt;

/// Number of distinct tile kinds: 27 suit tiles, 4 winds, 3 dragons, flower, joker.
pub const KINDS: usize = 36;

/// The three suits, in canonical order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Suit {
    Bam,
    Crak,
    Dot,
}

impl Suit {
    pub const ALL: [Suit; 3] = [Suit::Bam, Suit::Crak, Suit::Dot];

    pub fn letter(self) -> &'static str {
        match self {
            Suit::Bam => "B",
            Suit::Crak => "C",
            Suit::Dot => "D",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Suit::Bam => "Bams",
            Suit::Crak => "Craks",
            Suit::Dot => "Dots",
        }
    }

    /// The dragon that belongs to this suit.
    pub fn dragon(self) -> Tile {
        match self {
            Suit::Bam => Tile::GREEN,
            Suit::Crak => Tile::RED,
            Suit::Dot => Tile::WHITE,
        }
    }
}

/// The four winds, in the order N E W S used by the notation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Wind {
    North,
    East,
    West,
    South,
}

impl Wind {
    pub const ALL: [Wind; 4] = [Wind::North, Wind::East, Wind::West, Wind::South];

    pub fn letter(self) -> char {
        match self {
            Wind::North => 'N',
            Wind::East => 'E',
            Wind::West => 'W',
            Wind::South => 'S',
        }
    }

    pub fn from_letter(c: char) -> Option<Wind> {
        match c {
            'N' => Some(Wind::North),
            'E' => Some(Wind::East),
            'W' => Some(Wind::West),
            'S' => Some(Wind::South),
            _ => None,
        }
    }

    pub fn tile(self) -> Tile {
        Tile(27 + self as u8)
    }
}

/// One tile kind, as an index 0..36:
/// 0–8 Bams 1–9, 9–17 Craks, 18–26 Dots, 27–30 N E W S, 31 Red, 32 Green, 33 White, 34 flower, 35 joker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Tile(u8);

impl Tile {
    pub const RED: Tile = Tile(31);
    pub const GREEN: Tile = Tile(32);
    pub const WHITE: Tile = Tile(33);
    pub const FLOWER: Tile = Tile(34);
    pub const JOKER: Tile = Tile(35);

    pub fn suited(suit: Suit, number: u8) -> Tile {
        debug_assert!((1..=9).contains(&number));
        Tile(suit as u8 * 9 + number - 1)
    }

    pub fn from_index(i: usize) -> Tile {
        debug_assert!(i < KINDS);
        Tile(i as u8)
    }

    pub fn index(self) -> usize {
        self.0 as usize
    }

    pub fn is_joker(self) -> bool {
        self == Tile::JOKER
    }

    /// How many of this tile a standard 152-tile set holds.
    pub fn copies_in_set(self) -> u8 {
        if self == Tile::FLOWER || self == Tile::JOKER {
            8
        } else {
            4
        }
    }

    pub fn suit_and_number(self) -> Option<(Suit, u8)> {
        if self.0 < 27 {
            Some((Suit::ALL[(self.0 / 9) as usize], self.0 % 9 + 1))
        } else {
            None
        }
    }

    /// Every tile kind, in canonical order.
    pub fn all() -> impl Iterator<Item = Tile> {
        (0..KINDS as u8).map(Tile)
    }

    /// Parses one tile in any accepted spelling, case-insensitively.
    pub fn parse(text: &str) -> Option<Tile> {
        let t = text.trim().to_ascii_lowercase();
        let named = match t.as_str() {
            "n" | "north" => Some(Wind::North.tile()),
            "e" | "east" => Some(Wind::East.tile()),
            "w" | "west" => Some(Wind::West.tile()),
            "s" | "south" => Some(Wind::South.tile()),
            "rd" | "red" => Some(Tile::RED),
            "gd" | "green" => Some(Tile::GREEN),
            "wd" | "0" | "soap" | "white" => Some(Tile::WHITE),
            "f" | "flower" => Some(Tile::FLOWER),
            "j" | "joker" => Some(Tile::JOKER),
            _ => None,
        };
        if named.is_some() {
            return named;
        }
        let mut chars = t.chars();
        let digit = chars.next()?.to_digit(10)?;
        if !(1..=9).contains(&digit) {
            return None;
        }
        let suit = match chars.as_str() {
            "b" | "bam" | "bams" => Suit::Bam,
            "c" | "crak" | "craks" | "crack" | "cracks" => Suit::Crak,
            "d" | "dot" | "dots" => Suit::Dot,
            _ => return None,
        };
        Some(Tile::suited(suit, digit as u8))
    }
}

/// Every tile's name in notation, by index: `1B`…`9D`, winds, dragons, flower, joker.
const NAMES: [&str; KINDS] = [
    "1B", "2B", "3B", "4B", "5B", "6B", "7B", "8B", "9B", "1C", "2C", "3C", "4C", "5C", "6C", "7C",
    "8C", "9C", "1D", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "N", "E", "W", "S", "RD",
    "GD", "WD", "F", "J",
];

impl Tile {
    /// The tile in notation, without allocating.
    pub fn name(self) -> &'static str {
        NAMES[self.index()]
    }
}

impl fmt::Display for Tile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A problem with tiles given by a person or a program.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TileError {
    #[error("`{0}` is not a tile (write tiles like 2B, 5C, 9D, N, RD, GD, WD, F, J)")]
    Unknown(String),
    #[error("{tile} is named {count} times; a set holds only {max}")]
    TooMany { tile: Tile, count: u8, max: u8 },
    #[error("no tiles given")]
    Empty,
}

/// Parses tiles separated by spaces or commas.
pub fn parse_tiles(text: &str) -> Result<Vec<Tile>, TileError> {
    text.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|s| !s.is_empty())
        .map(|s| Tile::parse(s).ok_or_else(|| TileError::Unknown(s.to_string())))
        .collect()
}

/// Parses a list of tile strings (a JSON array); each item may itself hold several tiles.
pub fn parse_tile_list<S: AsRef<str>>(items: &[S]) -> Result<Vec<Tile>, TileError> {
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        out.extend(parse_tiles(item.as_ref())?);
    }
    Ok(out)
}

/// Writes tiles in canonical notation, separated by spaces.
pub fn format_tiles(tiles: &[Tile]) -> String {
    tiles
        .iter()
        .map(|t| t.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Counts of each tile kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Counts(pub [u8; KINDS]);

impl Default for Counts {
    fn default() -> Self {
        Counts([0; KINDS])
    }
}

impl Counts {
    pub fn of(tiles: &[Tile]) -> Counts {
        let mut c = Counts::default();
        for t in tiles {
            c.0[t.index()] = c.0[t.index()].saturating_add(1);
        }
        c
    }

    pub fn get(&self, t: Tile) -> u8 {
        self.0[t.index()]
    }

    pub fn add(&mut self, t: Tile, n: u8) {
        self.0[t.index()] = self.0[t.index()].saturating_add(n);
    }

    pub fn total(&self) -> u32 {
        self.0.iter().map(|&n| n as u32).sum()
    }

    /// Refuses counts above what a standard set holds, naming the first such tile.
    pub fn check_against_set(&self) -> Result<(), TileError> {
        for t in Tile::all() {
            let (count, max) = (self.get(t), t.copies_in_set());
            if count > max {
                return Err(TileError::TooMany {
                    tile: t,
                    count,
                    max,
                });
            }
        }
        Ok(())
    }

    /// The tiles, in canonical order.
    pub fn tiles(&self) -> Vec<Tile> {
        let mut v = Vec::with_capacity(self.total() as usize);
        for t in Tile::all() {
            for _ in 0..self.get(t) {
                v.push(t);
            }
        }
        v
    }

    /// Bit mask of the natural (non-joker) kinds present.
    pub fn natural_mask(&self) -> u64 {
        let mut m = 0u64;
        for i in 0..KINDS - 1 {
            if self.0[i] > 0 {
                m |= 1 << i;
            }
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_notation() {
        for t in Tile::all() {
            let spelled = match t.suit_and_number() {
                Some((suit, n)) => format!("{n}{}", suit.letter()),
                None => t.name().to_string(),
            };
            assert_eq!(t.name(), spelled);
            assert_eq!(Tile::parse(t.name()), Some(t));
        }
    }

    #[test]
    fn aliases_parse_to_canonical_tiles() {
        let tiles =
            parse_tiles("1bam, 2CRAK 3crack 4dot n East RED green soap 0 white flower JOKER")
                .unwrap();
        assert_eq!(format_tiles(&tiles), "1B 2C 3C 4D N E RD GD WD WD WD F J");
    }

    #[test]
    fn every_canonical_name_round_trips() {
        for t in Tile::all() {
            assert_eq!(Tile::parse(&t.to_string()), Some(t));
            assert_eq!(Tile::parse(&t.to_string().to_lowercase()), Some(t));
        }
    }

    #[test]
    fn unknown_tiles_and_zero_numbers_are_refused() {
        assert_eq!(parse_tiles("2B 0B"), Err(TileError::Unknown("0B".into())));
        assert!(Tile::parse("10B").is_none());
        assert!(Tile::parse("blank").is_none());
    }

    #[test]
    fn too_many_copies_names_the_tile() {
        let c = Counts::of(&parse_tiles("3B 3B 3B 3B 3B").unwrap());
        let err = c.check_against_set().unwrap_err();
        assert_eq!(err.to_string(), "3B is named 5 times; a set holds only 4");
        let c = Counts::of(&parse_tiles(&"J ".repeat(9)).unwrap());
        assert!(
            c.check_against_set()
                .unwrap_err()
                .to_string()
                .starts_with("J is named 9")
        );
        assert!(
            Counts::of(&parse_tiles(&"F ".repeat(8)).unwrap())
                .check_against_set()
                .is_ok()
        );
    }
}
