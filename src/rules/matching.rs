//! Matching a hand against a card (rules.md §3).

use serde::Serialize;

use super::InputError;
use super::card::Card;
use super::pattern::Target;
use super::tile::{Counts, KINDS, Tile, TileError, format_tiles};

/// A set exposed during play: one natural tile repeated, some copies possibly jokers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Exposure {
    pub tile: Tile,
    pub size: u8,
    pub jokers: u8,
}

impl Exposure {
    /// Reads an exposure from its tiles; `n` (1-based) names it in messages.
    pub fn from_tiles(tiles: &[Tile], n: usize) -> Result<Exposure, InputError> {
        let shown = format_tiles(tiles);
        if !(3..=6).contains(&tiles.len()) {
            return Err(InputError::new(format!(
                "exposure {n} (`{shown}`) has {} tiles; an exposure is a pung, kong, quint or sextet of 3 to 6 tiles",
                tiles.len()
            )));
        }
        let mut naturals = tiles.iter().filter(|t| !t.is_joker());
        let Some(&tile) = naturals.next() else {
            return Err(InputError::new(format!(
                "exposure {n} (`{shown}`) is all jokers; an exposure shows at least one natural tile"
            )));
        };
        if let Some(other) = naturals.find(|&&t| t != tile) {
            return Err(InputError::new(format!(
                "exposure {n} (`{shown}`) mixes {tile} and {other}; an exposure is one tile repeated, jokers allowed"
            )));
        }
        let jokers = tiles.iter().filter(|t| t.is_joker()).count() as u8;
        Ok(Exposure {
            tile,
            size: tiles.len() as u8,
            jokers,
        })
    }

    pub fn naturals(&self) -> u8 {
        self.size - self.jokers
    }

    pub fn tiles(&self) -> Vec<Tile> {
        let mut v = vec![self.tile; self.naturals() as usize];
        v.extend(std::iter::repeat_n(Tile::JOKER, self.jokers as usize));
        v
    }
}

/// Exposures summed up the way matching needs them.
#[derive(Debug, Clone, Default)]
pub struct ExposureSummary {
    pub list: Vec<Exposure>,
    /// Exposed sets as (tile, size), sorted.
    pub sets: Vec<(Tile, u8)>,
    /// Natural exposed tiles per kind.
    pub naturals: Counts,
    /// Exposed set sizes per kind.
    pub sizes: Counts,
    pub jokers: u8,
}

impl ExposureSummary {
    pub fn new(list: Vec<Exposure>) -> ExposureSummary {
        let mut s = ExposureSummary::default();
        for e in &list {
            s.sets.push((e.tile, e.size));
            s.naturals.add(e.tile, e.naturals());
            s.sizes.add(e.tile, e.size);
            s.jokers += e.jokers;
        }
        s.sets.sort();
        s.list = list;
        s
    }

    /// Parses exposures given as tile lists.
    pub fn parse(exposures: &[Vec<Tile>]) -> Result<ExposureSummary, InputError> {
        let list = exposures
            .iter()
            .enumerate()
            .map(|(i, tiles)| Exposure::from_tiles(tiles, i + 1))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ExposureSummary::new(list))
    }

    /// Whether each exposure can lie on its own set of the target of the same tile and size.
    pub fn fit(&self, target: &Target) -> bool {
        let mut ts = target.sets.iter();
        'outer: for e in &self.sets {
            for t in ts.by_ref() {
                if t == e {
                    continue 'outer;
                }
                if t > e {
                    return false;
                }
            }
            return false;
        }
        true
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

/// A validated hand: 14 tiles and its exposures.
#[derive(Debug, Clone)]
pub struct Hand {
    pub counts: Counts,
    pub exposures: ExposureSummary,
}

impl Hand {
    pub fn new(tiles: &[Tile], exposures: &[Vec<Tile>]) -> Result<Hand, InputError> {
        if tiles.len() != 14 {
            return Err(InputError::new(format!(
                "the hand has {} tiles; a hand has 14",
                tiles.len()
            )));
        }
        let counts = Counts::of(tiles);
        counts
            .check_against_set()
            .map_err(|e: TileError| InputError::new(format!("hand: {e}")))?;
        let exposures = ExposureSummary::parse(exposures)?;
        let mut exposed = exposures.naturals;
        exposed.add(Tile::JOKER, exposures.jokers);
        for t in Tile::all() {
            if exposed.get(t) > counts.get(t) {
                return Err(InputError::new(format!(
                    "the exposures show {} {t} but the hand holds {}; exposed tiles are part of the 14",
                    exposed.get(t),
                    counts.get(t)
                )));
            }
        }
        Ok(Hand { counts, exposures })
    }

    pub fn jokers(&self) -> u8 {
        self.counts.get(Tile::JOKER)
    }
}

/// A line the hand matches, through one of its targets.
#[derive(Debug, Clone)]
pub struct LineMatch {
    pub line: usize,
    pub target: usize,
    /// What each joker stands for, in canonical order.
    pub jokers: Vec<Tile>,
}

/// A line the hand comes close to.
#[derive(Debug, Clone)]
pub struct Near {
    pub line: usize,
    pub target: usize,
    /// Tiles the hand lacks for this target (a missing set tile may also be a joker).
    pub needs: Vec<Tile>,
    /// Why the line fails even when no tile is missing.
    pub reason: Option<String>,
}

/// The answer to "does this hand win?".
#[derive(Debug, Clone)]
pub struct Check {
    pub matches: Vec<LineMatch>,
    /// Index into `matches` of the best line.
    pub best: Option<usize>,
    pub nearest: Vec<Near>,
    pub jokerless: bool,
    pub exposures: usize,
}

/// How many nearest lines a losing hand is told about.
const NEAREST: usize = 3;

/// Places the hand on a target; returns what the jokers stand for, or `None` when it doesn't fit.
fn place(target: &Target, hand: &Hand) -> Option<Vec<Tile>> {
    let e = &hand.exposures;
    if !e.fit(target) {
        return None;
    }
    let mut jokers = Vec::new();
    for &t in &target.kinds {
        let rem_hand = hand.counts.get(t) - e.naturals.get(t);
        let rem_slots = target.slots.get(t) - e.sizes.get(t);
        let need = target.need.get(t);
        if rem_hand < need || rem_hand - need > rem_slots {
            return None;
        }
        let concealed_jokers = rem_slots - (rem_hand - need);
        let exposed_jokers: u8 = e
            .list
            .iter()
            .filter(|x| x.tile == t)
            .map(|x| x.jokers)
            .sum();
        jokers.extend(std::iter::repeat_n(
            t,
            (concealed_jokers + exposed_jokers) as usize,
        ));
    }
    Some(jokers)
}

/// How many tiles the hand lacks to make the target, ignoring exposures: the definition that
/// `missing_fast` computes on flat arrays (the tests hold them equal).
#[cfg(test)]
fn missing_count(target: &Target, hand: &Hand) -> usize {
    let (mut needs, mut empty_slots) = (0usize, 0usize);
    for &t in &target.kinds {
        let have = hand.counts.get(t);
        let need = target.need.get(t);
        let for_need = have.min(need);
        needs += (need - for_need) as usize;
        empty_slots += (target.slots.get(t) - (have - for_need).min(target.slots.get(t))) as usize;
    }
    needs + empty_slots.saturating_sub(hand.jokers() as usize)
}

/// Tiles the hand lacks to make the target, ignoring exposures.
fn missing(target: &Target, hand: &Hand) -> Vec<Tile> {
    let mut needs = Vec::new();
    let mut empty_slots = Vec::new();
    for &t in &target.kinds {
        let have = hand.counts.get(t);
        let need = target.need.get(t);
        let for_need = have.min(need);
        needs.extend(std::iter::repeat_n(t, (need - for_need) as usize));
        let for_sets = (have - for_need).min(target.slots.get(t));
        empty_slots.extend(std::iter::repeat_n(
            t,
            (target.slots.get(t) - for_sets) as usize,
        ));
    }
    let jokers = (hand.jokers() as usize).min(empty_slots.len());
    needs.extend_from_slice(&empty_slots[jokers..]);
    needs.sort();
    needs
}

impl Card {
    /// Checks a hand against every line of the card.
    pub fn check(&self, hand: &Hand) -> Check {
        let hand_mask = hand.counts.natural_mask();
        let exposed = !hand.exposures.is_empty();
        let mut matches: Vec<LineMatch> = Vec::new();
        let candidates = self.index.candidates(hand_mask, self.targets.len());
        for (w, &word) in candidates.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let ti = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let li = self.targets[ti].line;
                // One match per line: its first target that fits.
                if matches.last().is_some_and(|m| m.line == li) {
                    continue;
                }
                if self.lines[li].concealed && exposed {
                    continue;
                }
                if let Some(jokers) = place(&self.targets[ti], hand) {
                    matches.push(LineMatch {
                        line: li,
                        target: ti,
                        jokers,
                    });
                }
            }
        }
        let mut best: Option<usize> = None;
        for (i, m) in matches.iter().enumerate() {
            if best.is_none_or(|b| self.lines[m.line].value > self.lines[matches[b].line].value) {
                best = Some(i);
            }
        }
        let nearest = if matches.is_empty() {
            self.nearest(hand)
        } else {
            Vec::new()
        };
        Check {
            best,
            matches,
            nearest,
            jokerless: hand.jokers() == 0,
            exposures: hand.exposures.list.len(),
        }
    }

    /// The `NEAREST` lines the hand comes closest to: per line its first target missing the
    /// fewest tiles, lines ranked by that count (one more when the line fails for another
    /// reason), then by card order. Targets that cannot beat what is already found are passed
    /// over without their count.
    fn nearest(&self, hand: &Hand) -> Vec<Near> {
        let mut have = hand.counts.0;
        have[Tile::JOKER.index()] = 0;
        let jokers = hand.jokers() as usize;
        let exposed = !hand.exposures.is_empty();
        let planes = Planes::of(&have);
        // (key, line, target), best first; at most NEAREST.
        let mut top: Vec<(usize, usize, usize)> = Vec::with_capacity(NEAREST + 1);
        for (li, line) in self.lines.iter().enumerate() {
            let bar = if top.len() == NEAREST {
                top[NEAREST - 1].0
            } else {
                usize::MAX
            };
            let mut best: Option<(usize, usize)> = None;
            for ti in line.targets.clone() {
                let limit = best.map_or(bar, |(_, b)| b.min(bar));
                let shape = &self.shapes[ti];
                // A bound first: the target cannot be nearer than it; most are passed over here.
                if planes.at_least_missing(shape, jokers) >= limit {
                    continue;
                }
                let count = missing_fast(shape, &have, jokers);
                if count < limit {
                    best = Some((ti, count));
                }
            }
            let Some((ti, count)) = best else { continue };
            let failing =
                (line.concealed && exposed) || !hand.exposures.fit(&self.targets[ti]) || count == 0;
            let key = count + usize::from(failing);
            if key >= bar {
                continue;
            }
            let at = top.partition_point(|(k, _, _)| *k <= key);
            top.insert(at, (key, li, ti));
            top.truncate(NEAREST);
        }
        top.into_iter()
            .map(|(_, li, ti)| {
                let line = &self.lines[li];
                let needs = missing(&self.targets[ti], hand);
                let reason = if line.concealed && exposed {
                    Some("the line is concealed: it takes no exposures".to_string())
                } else if !hand.exposures.fit(&self.targets[ti]) {
                    Some(
                        "the exposures do not lie on sets of the line of the same tile and size"
                            .into(),
                    )
                } else if needs.is_empty() {
                    Some(
                        "the jokers would have to sit in a single, a pair or a run of singles"
                            .into(),
                    )
                } else {
                    None
                };
                Near {
                    line: li,
                    target: ti,
                    needs,
                    reason,
                }
            })
            .collect()
    }
}

/// A hand's tile counts as bit planes over the kinds (counts are at most 8: four bits), so a
/// bound on the tiles it shares with a target is a few popcounts.
struct Planes {
    bits: [u64; 4],
    kinds: u64,
}

impl Planes {
    fn of(have: &[u8; KINDS]) -> Planes {
        let mut bits = [0u64; 4];
        let mut kinds = 0u64;
        for (k, &n) in have.iter().enumerate() {
            if n > 0 {
                kinds |= 1 << k;
            }
            for (b, plane) in bits.iter_mut().enumerate() {
                if n & (1 << b) != 0 {
                    *plane |= 1 << k;
                }
            }
        }
        Planes { bits, kinds }
    }

    /// At most `missing_fast`: the hand shares no more than its own count of each kind the
    /// target holds, and lacks at least one of each natural-only kind it does not hold.
    fn at_least_missing(&self, shape: &crate::rules::card::Shape, jokers: usize) -> usize {
        let shared = shape.mask & self.kinds;
        let upper: u32 = self
            .bits
            .iter()
            .enumerate()
            .map(|(b, plane)| (plane & shared).count_ones() << b)
            .sum();
        let lacking_kinds = (shape.need_mask & !self.kinds).count_ones() as usize;
        lacking_kinds.max(14usize.saturating_sub(upper as usize + jokers))
    }
}

/// `missing_count` on the flat arrays: the natural tiles the hand lacks for singles and pairs,
/// or all the tiles it lacks less its jokers, whichever is more.
fn missing_fast(shape: &crate::rules::card::Shape, have: &[u8; KINDS], jokers: usize) -> usize {
    let mut lacking_naturals = 0u32;
    let mut usable = 0u32;
    for ((need, total), have) in shape.need.iter().zip(&shape.total).zip(have) {
        lacking_naturals += u32::from(need.saturating_sub(*have));
        usable += u32::from((*total).min(*have));
    }
    let lacking_all = (14usize).saturating_sub(usable as usize + jokers);
    (lacking_naturals as usize).max(lacking_all)
}

/// One matching line as the CLI and the API report it.
#[derive(Debug, Clone, Serialize)]
pub struct MatchReport {
    pub id: String,
    pub section: String,
    pub value: u32,
    pub jokerless: bool,
    pub singles_and_pairs: bool,
    pub exposures: usize,
    pub quints: bool,
    pub concealed: bool,
    /// The pattern alternative that matched, as written on the card.
    pub pattern: String,
    pub note: Option<String>,
    /// The 14 tiles of the target the hand was laid on.
    pub target: Vec<&'static str>,
    /// Colour letter → suit (B, C, D); `_` is the implicit colour.
    pub suits: std::collections::BTreeMap<String, String>,
    /// How far the numbers moved from the card as written.
    pub shift: i8,
    /// Wind letter → wind, for lines whose winds are variables.
    pub winds: std::collections::BTreeMap<String, String>,
    /// What each joker stands for.
    pub jokers: Vec<&'static str>,
}

/// A near miss as reported.
#[derive(Debug, Clone, Serialize)]
pub struct NearReport {
    pub id: String,
    pub section: String,
    pub value: u32,
    pub concealed: bool,
    pub pattern: String,
    /// How many tiles the hand is missing for this line.
    pub missing: usize,
    /// The tiles it lacks (a missing tile of a set may also be a joker).
    pub needs: Vec<&'static str>,
    pub target: Vec<&'static str>,
    pub reason: Option<String>,
}

/// The whole answer to a hand check, as the CLI and the API print it.
#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    pub winning: bool,
    pub best: Option<MatchReport>,
    pub matches: Vec<MatchReport>,
    pub nearest: Vec<NearReport>,
}

fn strings(tiles: &[Tile]) -> Vec<&'static str> {
    tiles.iter().map(|t| t.name()).collect()
}

impl Card {
    pub fn match_report(&self, m: &LineMatch, check: &Check) -> MatchReport {
        let line = &self.lines[m.line];
        let t = &self.targets[m.target];
        MatchReport {
            id: line.id.clone(),
            section: line.section.clone(),
            value: line.value,
            jokerless: check.jokerless,
            singles_and_pairs: t.singles_and_pairs,
            exposures: check.exposures,
            quints: t.quints,
            concealed: line.concealed,
            pattern: line.patterns[t.alternative].clone(),
            note: line.note.clone(),
            target: strings(&t.tiles),
            suits: t
                .suits
                .iter()
                .map(|(c, s)| (c.to_string(), s.letter().to_string()))
                .collect(),
            shift: t.shift,
            winds: t
                .winds
                .iter()
                .map(|(c, w)| (c.to_string(), w.letter().to_string()))
                .collect(),
            jokers: strings(&m.jokers),
        }
    }

    pub fn check_report(&self, check: &Check) -> CheckReport {
        let matches: Vec<MatchReport> = check
            .matches
            .iter()
            .map(|m| self.match_report(m, check))
            .collect();
        CheckReport {
            winning: !matches.is_empty(),
            best: check.best.map(|b| matches[b].clone()),
            nearest: check
                .nearest
                .iter()
                .map(|n| {
                    let line = &self.lines[n.line];
                    let t = &self.targets[n.target];
                    NearReport {
                        id: line.id.clone(),
                        section: line.section.clone(),
                        value: line.value,
                        concealed: line.concealed,
                        pattern: line.patterns[t.alternative].clone(),
                        missing: n.needs.len(),
                        needs: strings(&n.needs),
                        target: strings(&t.tiles),
                        reason: n.reason.clone(),
                    }
                })
                .collect(),
            matches,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::builtin;
    use rand::seq::SliceRandom;
    use rand::{RngExt, SeedableRng};

    #[test]
    fn the_fast_count_is_the_count() {
        let mut wall: Vec<Tile> = Vec::new();
        for t in Tile::all() {
            let copies = if t == Tile::FLOWER || t == Tile::JOKER {
                8
            } else {
                4
            };
            wall.extend(std::iter::repeat_n(t, copies));
        }
        let mut rng = rand::rngs::StdRng::seed_from_u64(16);
        for name in builtin::names() {
            let card = builtin::get(name).unwrap();
            for round in 0..40 {
                wall.shuffle(&mut rng);
                // Every fourth hand holds a target's own tiles, so near misses are covered too.
                let tiles: Vec<Tile> = if round % 4 == 0 {
                    let t = &card.targets[rng.random_range(0..card.targets.len())];
                    let mut v = t.tiles.clone();
                    v[0] = wall[0];
                    v
                } else {
                    wall[..14].to_vec()
                };
                let Ok(hand) = Hand::new(&tiles, &[]) else {
                    continue;
                };
                let mut have = hand.counts.0;
                have[Tile::JOKER.index()] = 0;
                let planes = Planes::of(&have);
                for ti in 0..card.targets.len() {
                    let count = missing_fast(&card.shapes[ti], &have, hand.jokers() as usize);
                    assert_eq!(
                        count,
                        missing_count(&card.targets[ti], &hand),
                        "{name} target {ti}"
                    );
                    assert!(
                        planes.at_least_missing(&card.shapes[ti], hand.jokers() as usize) <= count,
                        "the bound passes over target {ti} of {name}, which it must not"
                    );
                }
            }
        }
    }
}
