//! Hand patterns (rules.md §2 "Pattern") and their expansion into concrete targets.

use arrayvec::ArrayVec;

use super::tile::{Counts, Suit, Tile, Wind};

/// One symbol of a pattern group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sym {
    Digit(u8),
    Zero,
    Dragon,
    Flower,
    Wind(char),
}

/// A group of a pattern: a set (all symbols equal) or a run of singles.
#[derive(Debug, Clone)]
struct Group {
    syms: Vec<Sym>,
    /// `None` is the implicit colour shared by all suited groups without a suffix.
    colour: Option<char>,
}

impl Group {
    fn is_set(&self) -> bool {
        self.syms.iter().all(|s| *s == self.syms[0])
    }

    fn is_suited(&self) -> bool {
        self.syms
            .iter()
            .any(|s| matches!(s, Sym::Digit(_) | Sym::Dragon))
    }
}

/// A parsed pattern (one alternative of a hand line).
#[derive(Debug, Clone)]
pub struct Pattern {
    groups: Vec<Group>,
}

/// How colours map to suits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SuitsRule {
    Distinct,
    Any,
}

/// How the numbers of a line may move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NumbersRule {
    AsWritten,
    Any,
    /// The lowest digit 1–9 of the pattern may become one of these.
    Lowest(Vec<u8>),
}

/// How wind letters are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindsRule {
    AsWritten,
    Any,
}

/// The options of a hand line that shape its expansion.
#[derive(Debug, Clone)]
pub struct Options {
    pub suits: SuitsRule,
    pub numbers: NumbersRule,
    pub winds: WindsRule,
}

/// One concrete 14-tile target of a line, with everything matching needs precomputed.
#[derive(Debug, Clone)]
pub struct Target {
    /// Index of the line on the card.
    pub line: usize,
    /// Which alternative pattern of the line produced it (0-based).
    pub alternative: usize,
    /// Natural tiles needed by singles, pairs and singles runs (never jokers).
    pub need: Counts,
    /// Slots in sets of 3 or more, per tile (naturals or jokers).
    pub slots: Counts,
    /// Sets of 3 or more as (tile, size), sorted.
    pub sets: ArrayVec<(Tile, u8), MAX_SETS>,
    /// The tile kinds the target uses.
    pub kinds: ArrayVec<Tile, 14>,
    /// Bit mask of `kinds`.
    pub mask: u64,
    /// Bit mask of kinds with natural-only needs.
    pub need_mask: u64,
    /// The target's tiles in pattern order.
    pub tiles: ArrayVec<Tile, 14>,
    /// Colour → suit choices (`'_'` stands for the implicit colour).
    pub suits: ArrayVec<(char, Suit), 3>,
    /// How far the numbers moved from the pattern as written.
    pub shift: i8,
    /// Wind letter → wind choices, when winds are variables.
    pub winds: ArrayVec<(char, Wind), 4>,
    pub singles_and_pairs: bool,
    pub quints: bool,
}

/// The targets of a line already produced, by identity: the same natural-only tiles and the same
/// sets make the same target. The identity is packed into 120 bits without loss (see
/// `identity`), so the set hashes one number (a fast hash: the keys are small and ours).
pub type Seen = rustc_hash::FxHashSet<u128>;

/// A target's identity as one number: its natural-only tiles in tile order, 6 bits each (the
/// kind plus one; at most 14 of them: bits 0–83), then its sets in order, 9 bits each (the kind
/// plus one, and the size: bits 84–119). Two targets get the same number exactly when their naturals and sets agree.
fn identity(need: &Counts, need_mask: u64, sets: &[(Tile, u8)]) -> u128 {
    let mut key = 0u128;
    let mut at = 0;
    let mut kinds = need_mask;
    while kinds != 0 {
        let k = kinds.trailing_zeros() as usize;
        kinds &= kinds - 1;
        for _ in 0..need.0[k] {
            key |= ((k as u128) + 1) << at;
            at += 6;
        }
    }
    for (i, &(tile, size)) in sets.iter().enumerate() {
        let code = ((tile.index() as u128 + 1) << 3) | u128::from(size & 7);
        key |= code << (84 + 9 * i);
    }
    key
}

/// A hand of 14 tiles has at most 4 sets of 3 or more.
pub const MAX_SETS: usize = 4;

/// Decoration tokens of addition and multiplication hands.
/// The sizes of a pattern's groups in order (decoration tokens left out): the target's tiles,
/// which are in pattern order, fall into groups of these sizes.
pub fn group_sizes(pattern: &str) -> Vec<usize> {
    pattern
        .split_whitespace()
        .filter(|t| !is_decoration(t))
        .map(|t| t.split(':').next().unwrap_or(t).chars().count())
        .collect()
}

/// One group of a pattern drawn as typed: its symbols, its colour letter as written, and
/// the index of its colour among the line's suited groups (`None` for unsuited groups).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sketched {
    pub symbols: String,
    pub letter: Option<char>,
    pub colour: Option<usize>,
}

/// A pattern drawn as far as it reads, for an editor showing a line while it is typed: every
/// group, even when the pattern has the wrong number of tiles or a group the parser refuses.
/// Colours are numbered as `Pattern::display_groups` numbers them.
pub fn sketch(text: &str) -> Vec<Sketched> {
    let mut colours: Vec<Option<char>> = Vec::new();
    text.split_whitespace()
        .filter(|t| !is_decoration(t))
        .map(|token| {
            let (body, letter) = match token.split_once(':') {
                Some((b, suffix)) => (b, suffix.chars().next()),
                None => (token, None),
            };
            let symbols = body.to_ascii_uppercase();
            let suited = symbols.chars().any(|c| matches!(c, '1'..='9' | 'D'));
            let colour = suited.then(|| {
                colours
                    .iter()
                    .position(|c| *c == letter)
                    .unwrap_or_else(|| {
                        colours.push(letter);
                        colours.len() - 1
                    })
            });
            Sketched {
                symbols,
                letter,
                colour,
            }
        })
        .collect()
}

fn is_decoration(token: &str) -> bool {
    matches!(token, "+" | "=" | "x" | "*" | "X")
}

impl Pattern {
    /// Parses a pattern; the error says which group is wrong and why.
    pub fn parse(text: &str) -> Result<Pattern, String> {
        let mut groups = Vec::new();
        for token in text.split_whitespace() {
            if is_decoration(token) {
                continue;
            }
            let (body, colour) = match token.split_once(':') {
                Some((body, suffix)) => {
                    let mut chars = suffix.chars();
                    match (chars.next(), chars.next()) {
                        (Some(c), None) if c.is_ascii_lowercase() => (body, Some(c)),
                        _ => {
                            return Err(format!(
                                "group `{token}`: a colour is one lowercase letter after `:`, like `:g`"
                            ));
                        }
                    }
                }
                None => (token, None),
            };
            if body.is_empty() {
                return Err(format!("group `{token}` has no tiles"));
            }
            let mut syms = Vec::with_capacity(body.len());
            for c in body.chars() {
                let sym = match c.to_ascii_uppercase() {
                    '0' => Sym::Zero,
                    d @ '1'..='9' => Sym::Digit(d as u8 - b'0'),
                    'D' => Sym::Dragon,
                    'F' => Sym::Flower,
                    w @ ('N' | 'E' | 'W' | 'S') => Sym::Wind(w),
                    _ => {
                        return Err(format!(
                            "group `{token}`: `{c}` is not a pattern symbol (use 0-9, D, F, N, E, W, S)"
                        ));
                    }
                };
                syms.push(sym);
            }
            let group = Group { syms, colour };
            if group.colour.is_some() && !group.is_suited() {
                return Err(format!(
                    "group `{token}` has a colour but no number 1-9 or D for it to colour"
                ));
            }
            if group.is_set() && group.syms.len() > 6 {
                return Err(format!(
                    "group `{token}` is a set of {}; sets have at most 6 tiles",
                    group.syms.len()
                ));
            }
            groups.push(group);
        }
        if groups.is_empty() {
            return Err("pattern is empty".into());
        }
        let size: usize = groups.iter().map(|g| g.syms.len()).sum();
        if size != 14 {
            return Err(format!("pattern has {size} tiles, a hand needs 14"));
        }
        Ok(Pattern { groups })
    }

    /// The groups as a printed card shows them: each group's symbols, and for suited groups
    /// the index of its colour (0 for the first colour the pattern uses, and so on).
    pub fn display_groups(&self) -> Vec<(String, Option<usize>)> {
        let colours = self.colours();
        self.groups
            .iter()
            .map(|g| {
                let text: String = g
                    .syms
                    .iter()
                    .map(|s| match s {
                        Sym::Digit(d) => char::from(b'0' + d),
                        Sym::Zero => '0',
                        Sym::Dragon => 'D',
                        Sym::Flower => 'F',
                        Sym::Wind(w) => *w,
                    })
                    .collect();
                let colour = g
                    .is_suited()
                    .then(|| colours.iter().position(|c| *c == g.colour))
                    .flatten();
                (text, colour)
            })
            .collect()
    }

    fn colours(&self) -> Vec<Option<char>> {
        let mut colours: Vec<Option<char>> = Vec::new();
        for g in self.groups.iter().filter(|g| g.is_suited()) {
            if !colours.contains(&g.colour) {
                colours.push(g.colour);
            }
        }
        colours
    }

    fn digits(&self) -> impl Iterator<Item = u8> + '_ {
        self.groups.iter().flat_map(|g| {
            g.syms.iter().filter_map(|s| match s {
                Sym::Digit(d) => Some(*d),
                _ => None,
            })
        })
    }

    fn wind_letters(&self) -> Vec<char> {
        let mut letters = Vec::new();
        for g in &self.groups {
            for s in &g.syms {
                if let Sym::Wind(w) = s
                    && !letters.contains(w)
                {
                    letters.push(*w);
                }
            }
        }
        letters
    }

    /// The shifts the numbers option allows for this pattern.
    fn shifts(&self, numbers: &NumbersRule) -> Result<Vec<i8>, String> {
        let (Some(lo), Some(hi)) = (self.digits().min(), self.digits().max()) else {
            return Ok(vec![0]);
        };
        let (lo, hi) = (lo as i8, hi as i8);
        match numbers {
            NumbersRule::AsWritten => Ok(vec![0]),
            NumbersRule::Any => Ok((1 - lo..=9 - hi).collect()),
            NumbersRule::Lowest(values) => {
                let mut shifts = Vec::new();
                for &v in values {
                    let shift = v as i8 - lo;
                    if hi + shift > 9 {
                        return Err(format!(
                            "numbers lists {v}, but moving the lowest number {lo} to {v} puts {hi} at {}, past 9",
                            hi + shift
                        ));
                    }
                    if !shifts.contains(&shift) {
                        shifts.push(shift);
                    }
                }
                Ok(shifts)
            }
        }
    }

    /// Expands the pattern into its distinct targets, appending them to `out`.
    /// `seen` holds the identities of targets already produced for this line.
    pub fn expand(
        &self,
        options: &Options,
        line: usize,
        alternative: usize,
        seen: &mut Seen,
        out: &mut Vec<Target>,
    ) -> Result<(), String> {
        let colours = self.colours();
        if options.suits == SuitsRule::Distinct && colours.len() > 3 {
            return Err(format!(
                "{} colours with suits = \"distinct\", but there are only 3 suits",
                colours.len()
            ));
        }
        let suit_choices = suit_assignments(colours.len(), options.suits);
        let shifts = self.shifts(&options.numbers)?;
        let letters = self.wind_letters();
        let wind_choices: Vec<Vec<Wind>> = match options.winds {
            WindsRule::AsWritten => vec![
                letters
                    .iter()
                    .filter_map(|&c| Wind::from_letter(c))
                    .collect(),
            ],
            WindsRule::Any => injections(letters.len(), 4)
                .into_iter()
                .map(|v| v.into_iter().map(|i| Wind::ALL[i]).collect())
                .collect(),
        };
        if wind_choices.is_empty() {
            return Err(format!(
                "winds = \"any\" with {} different wind letters, but there are only 4 winds",
                letters.len()
            ));
        }
        seen.reserve(suit_choices.len() * shifts.len() * wind_choices.len());
        for suits in &suit_choices {
            for &shift in &shifts {
                for winds in &wind_choices {
                    if let Some(target) = self.build(
                        &colours,
                        suits,
                        shift,
                        &letters,
                        winds,
                        options,
                        line,
                        alternative,
                        seen,
                    )? {
                        out.push(target);
                    }
                }
            }
        }
        Ok(())
    }

    /// Builds the target of one choice of suits, shift and winds; `None` when `seen` already
    /// holds a target of the same identity (checked before anything is allocated).
    #[allow(clippy::too_many_arguments)]
    fn build(
        &self,
        colours: &[Option<char>],
        suits: &[Suit],
        shift: i8,
        letters: &[char],
        winds: &[Wind],
        options: &Options,
        line: usize,
        alternative: usize,
        seen: &mut Seen,
    ) -> Result<Option<Target>, String> {
        let mut need = Counts::default();
        let mut slots = Counts::default();
        let mut sets = [(Tile::JOKER, 0u8); MAX_SETS];
        let mut set_count = 0;
        // A pattern has 14 tiles (checked when parsed).
        let mut tiles = [Tile::JOKER; 14];
        let mut len = 0;
        for g in &self.groups {
            let suit = colours
                .iter()
                .position(|c| *c == g.colour)
                .map(|i| suits[i]);
            let start = len;
            for s in &g.syms {
                let tile = match *s {
                    Sym::Digit(d) => {
                        // Suited groups always have a colour position.
                        let suit = suit.unwrap_or(Suit::Bam);
                        Tile::suited(suit, (d as i8 + shift) as u8)
                    }
                    Sym::Zero => Tile::WHITE,
                    Sym::Dragon => suit.unwrap_or(Suit::Bam).dragon(),
                    Sym::Flower => Tile::FLOWER,
                    Sym::Wind(c) => {
                        let i = letters.iter().position(|l| *l == c).unwrap_or(0);
                        match options.winds {
                            WindsRule::Any => winds[i].tile(),
                            WindsRule::AsWritten => {
                                Wind::from_letter(c).unwrap_or(Wind::North).tile()
                            }
                        }
                    }
                };
                tiles[len] = tile;
                len += 1;
            }
            let group_tiles = &tiles[start..len];
            if g.is_set() && g.syms.len() >= 3 {
                slots.add(group_tiles[0], g.syms.len() as u8);
                // Sets of 3 or more in 14 tiles: at most 4.
                sets[set_count] = (group_tiles[0], g.syms.len() as u8);
                set_count += 1;
            } else {
                for &t in group_tiles {
                    need.add(t, 1);
                }
            }
        }
        let (mut mask, mut need_mask) = (0u64, 0u64);
        for &t in &tiles {
            mask |= 1 << t.index();
            if need.get(t) > 0 {
                need_mask |= 1 << t.index();
            }
        }
        // Kinds in tile order, so the first one named is the first on the card's order.
        let mut over = need_mask;
        while over != 0 {
            let t = Tile::from_index(over.trailing_zeros() as usize);
            over &= over - 1;
            if need.get(t) > t.copies_in_set() {
                return Err(format!(
                    "needs {} natural {t} in singles and pairs, but a set holds only {}",
                    need.get(t),
                    t.copies_in_set()
                ));
            }
        }
        let sets = &mut sets[..set_count];
        sets.sort_unstable();
        if !seen.insert(identity(&need, need_mask, sets)) {
            return Ok(None);
        }
        let mut kinds = ArrayVec::new();
        let mut m = mask;
        while m != 0 {
            kinds.push(Tile::from_index(m.trailing_zeros() as usize));
            m &= m - 1;
        }
        Ok(Some(Target {
            line,
            alternative,
            need,
            slots,
            singles_and_pairs: sets.is_empty(),
            quints: sets.iter().any(|&(_, n)| n >= 5),
            sets: sets.iter().copied().collect(),
            kinds,
            mask,
            need_mask,
            tiles: ArrayVec::from(tiles),
            suits: colours
                .iter()
                .zip(suits)
                .map(|(c, s)| (c.unwrap_or('_'), *s))
                .collect(),
            shift,
            winds: match options.winds {
                WindsRule::Any => letters.iter().copied().zip(winds.iter().copied()).collect(),
                WindsRule::AsWritten => ArrayVec::new(),
            },
        }))
    }
}

/// Every way to give `n` colours a suit.
fn suit_assignments(n: usize, rule: SuitsRule) -> Vec<Vec<Suit>> {
    let picks = match rule {
        SuitsRule::Distinct => injections(n, 3),
        SuitsRule::Any => all_functions(n, 3),
    };
    picks
        .into_iter()
        .map(|v| v.into_iter().map(|i| Suit::ALL[i]).collect())
        .collect()
}

/// All injective maps from `n` items into `0..k`, as vectors of images.
fn injections(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut cur = Vec::with_capacity(n);
    fn rec(n: usize, k: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if cur.len() == n {
            out.push(cur.clone());
            return;
        }
        for i in 0..k {
            if !cur.contains(&i) {
                cur.push(i);
                rec(n, k, cur, out);
                cur.pop();
            }
        }
    }
    rec(n, k, &mut cur, &mut out);
    out
}

/// All maps from `n` items into `0..k`.
fn all_functions(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new()];
    for _ in 0..n {
        out = out
            .into_iter()
            .flat_map(|v| {
                (0..k).map(move |i| {
                    let mut w = v.clone();
                    w.push(i);
                    w
                })
            })
            .collect();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_sizes_skip_decoration_and_colours() {
        assert_eq!(
            group_sizes("FF 2222:g 44:r 66:r 8888:g"),
            vec![2, 4, 2, 2, 4]
        );
        assert_eq!(
            group_sizes("FF 11:g + 66:g = 7777:r 7777:b"),
            vec![2, 2, 2, 4, 4]
        );
        assert_eq!(group_sizes("2026:g NEWS"), vec![4, 4]);
    }

    #[test]
    fn groups_are_shown_with_their_colour_order() {
        let p = Pattern::parse("FFFF 2026:g DDD:r DDD:b").unwrap();
        assert_eq!(
            p.display_groups(),
            vec![
                ("FFFF".to_string(), None),
                ("2026".to_string(), Some(0)),
                ("DDD".to_string(), Some(1)),
                ("DDD".to_string(), Some(2)),
            ]
        );
        let q = Pattern::parse("NN EEE WWW SS 11 22").unwrap();
        assert_eq!(q.display_groups()[0], ("NN".to_string(), None));
        assert_eq!(q.display_groups()[4], ("11".to_string(), Some(0)));
    }

    fn opts(suits: SuitsRule, numbers: NumbersRule, winds: WindsRule) -> Options {
        Options {
            suits,
            numbers,
            winds,
        }
    }

    fn count(pattern: &str, o: &Options) -> usize {
        let p = Pattern::parse(pattern).unwrap();
        let mut out = Vec::new();
        p.expand(o, 0, 0, &mut Seen::default(), &mut out).unwrap();
        out.len()
    }

    #[test]
    fn counts_of_the_worked_example_lines() {
        let plain = opts(
            SuitsRule::Distinct,
            NumbersRule::AsWritten,
            WindsRule::AsWritten,
        );
        assert_eq!(count("FF 222:g 4444:g 666:r 88:r", &plain), 6);
        assert_eq!(count("NNN EEEE WWWW SSS", &plain), 1);
        assert_eq!(count("FF 2026:g 2026:r 2026:b", &plain), 1);
        let any = opts(SuitsRule::Distinct, NumbersRule::Any, WindsRule::AsWritten);
        assert_eq!(count("FFFF 1111:g 11:r 1111:b", &any), 27);
    }

    #[test]
    fn decoration_is_ignored_and_sizes_are_checked() {
        assert!(Pattern::parse("FF 1111:g + 2222:r = 3333:b").is_ok());
        assert!(Pattern::parse("FFF 1111:g + 2222:r = 3333:b").is_err());
        let err = Pattern::parse("FF 222:g 4444:g 666:r 8:r").unwrap_err();
        assert_eq!(err, "pattern has 13 tiles, a hand needs 14");
    }

    #[test]
    fn colours_need_something_to_colour() {
        let err = Pattern::parse("FF:g 2222 4444 6666").unwrap_err();
        assert!(err.contains("`FF:g`"), "{err}");
        assert!(Pattern::parse("FF 2222:G 4444 6666").is_err());
    }

    #[test]
    fn any_winds_are_different_winds() {
        let o = opts(SuitsRule::Distinct, NumbersRule::AsWritten, WindsRule::Any);
        // Two different winds as pungs: 4 * 3 ordered choices, halved because swapping them gives the same tiles.
        assert_eq!(count("NNN SSS 1111:g 2222:g", &o), 6 * 3);
    }

    #[test]
    fn number_lists_move_the_lowest_digit() {
        let o = opts(
            SuitsRule::Distinct,
            NumbersRule::Lowest(vec![1, 3]),
            WindsRule::AsWritten,
        );
        assert_eq!(count("FF 111:g 333:g 555:g 777:g", &o), 2 * 3);
        let p = Pattern::parse("FF 111:g 333:g 555:g 777:g").unwrap();
        let o = opts(
            SuitsRule::Distinct,
            NumbersRule::Lowest(vec![5]),
            WindsRule::AsWritten,
        );
        let err = p
            .expand(&o, 0, 0, &mut Seen::default(), &mut Vec::new())
            .unwrap_err();
        assert!(err.contains("past 9"), "{err}");
    }
}
