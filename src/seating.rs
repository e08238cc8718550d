//! Seating: tables of 4 (3 or 2 only where the count forces it), players who have met least
//! sitting together, and East starts balanced. Pure computation, reproducible from a seed.
//!
//! The search is simulated annealing over swaps of two players at different tables of the same
//! round. The cost of a pair that sits together `c` times is `history·c + c(c−1)/2`: earlier
//! meetings (weighted by recency) make a pairing dearer, and repeats within the plan cost more
//! the more they pile up, so the optimum spreads meetings evenly. The search stops at the
//! counting lower bound or when its time is up. Where no construction applies and repeats are
//! forced, a search over plans with a cyclic symmetry (`cyclic`) runs first.

use std::time::{Duration, Instant};

mod cyclic;

/// A small, stable PRNG (splitmix64), so a seed gives the same plan on every build.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i + 1));
        }
    }
}

/// Table sizes for `n` players: as many tables of 4 as possible; 3s, or a 2, only where forced.
pub fn table_sizes(n: usize) -> Result<Vec<usize>, String> {
    if n < 2 {
        return Err(format!(
            "{n} player(s) cannot make a table; a table needs 2 to 4"
        ));
    }
    let tables = n.div_ceil(4);
    let mut sizes = vec![4; tables];
    let mut remove = 4 * tables - n;
    // Take one seat from each table from the last, then a second where still needed.
    'outer: for _ in 0..2 {
        for s in sizes.iter_mut().rev() {
            if remove == 0 {
                break 'outer;
            }
            *s -= 1;
            remove -= 1;
        }
    }
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    Ok(sizes)
}

/// What the players have done before: pair weights (recent meetings weigh more) and East starts.
#[derive(Debug, Clone)]
pub struct History {
    n: usize,
    weight: Vec<f64>,
    pub east: Vec<u32>,
}

impl History {
    pub fn new(n: usize) -> History {
        History {
            n,
            weight: vec![0.0; n * n],
            east: vec![0; n],
        }
    }

    /// Records that `a` and `b` met `age` nights ago (0 = the latest night).
    pub fn met(&mut self, a: usize, b: usize, age: u32) {
        // Each meeting costs at least 1; the most recent ones up to 2.
        let w = 1.0 + 0.75f64.powi(age as i32);
        self.weight[a * self.n + b] += w;
        self.weight[b * self.n + a] += w;
    }

    pub fn weight(&self, a: usize, b: usize) -> f64 {
        self.weight[a * self.n + b]
    }
}

/// A plan: rounds of tables of player indexes, each table in seat order (East first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub rounds: Vec<Vec<Vec<usize>>>,
}

/// Quality figures of a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanStats {
    /// Sum over pairs that met of (times met − 1).
    pub extra_meetings: u32,
    /// Most times any pair met.
    pub max_meetings: u32,
    /// Most minus fewest games started as East, with `games` games per table.
    pub east_spread: u32,
}

/// Who starts each game as East at a table (East passes to the next seat after every game).
pub fn east_of_game(table: &[usize], game: usize) -> usize {
    table[game % table.len()]
}

impl Plan {
    pub fn stats(&self, n: usize, games_per_table: usize, prior_east: Option<&[u32]>) -> PlanStats {
        let mut met = vec![0u32; n * n];
        let mut east: Vec<u32> = prior_east
            .map(<[u32]>::to_vec)
            .unwrap_or_else(|| vec![0; n]);
        for round in &self.rounds {
            for table in round {
                for (i, &a) in table.iter().enumerate() {
                    for &b in &table[i + 1..] {
                        met[a.min(b) * n + a.max(b)] += 1;
                    }
                }
                for g in 0..games_per_table {
                    east[east_of_game(table, g)] += 1;
                }
            }
        }
        let extra = met.iter().map(|&c| c.saturating_sub(1)).sum();
        let max = met.iter().copied().max().unwrap_or(0);
        let spread = east.iter().max().unwrap_or(&0) - east.iter().min().unwrap_or(&0);
        PlanStats {
            extra_meetings: extra,
            max_meetings: max,
            east_spread: spread,
        }
    }
}

/// Search state: per round, each player's table and each table's members.
struct State<'a> {
    n: usize,
    history: &'a History,
    table_of: Vec<Vec<usize>>,
    members: Vec<Vec<Vec<usize>>>,
    count: Vec<u32>,
}

impl State<'_> {
    fn pair_delta(&self, a: usize, b: usize, up: bool) -> f64 {
        let c = self.count[a * self.n + b] as f64;
        let h = self.history.weight(a, b);
        if up { h + c } else { -h - (c - 1.0) }
    }

    /// Cost change of swapping `a` and `b` (at different tables) in round `r`.
    fn swap_delta(&self, r: usize, a: usize, b: usize) -> f64 {
        let (ta, tb) = (self.table_of[r][a], self.table_of[r][b]);
        let mut d = 0.0;
        for &x in &self.members[r][ta] {
            if x != a {
                d += self.pair_delta(a, x, false) + self.pair_delta(b, x, true);
            }
        }
        for &y in &self.members[r][tb] {
            if y != b {
                d += self.pair_delta(b, y, false) + self.pair_delta(a, y, true);
            }
        }
        d
    }

    fn bump(&mut self, a: usize, b: usize, up: bool) {
        let n = self.n;
        if up {
            self.count[a * n + b] += 1;
            self.count[b * n + a] += 1;
        } else {
            self.count[a * n + b] -= 1;
            self.count[b * n + a] -= 1;
        }
    }

    fn swap(&mut self, r: usize, a: usize, b: usize) {
        let (ta, tb) = (self.table_of[r][a], self.table_of[r][b]);
        let others_a: Vec<usize> = self.members[r][ta]
            .iter()
            .copied()
            .filter(|&x| x != a)
            .collect();
        let others_b: Vec<usize> = self.members[r][tb]
            .iter()
            .copied()
            .filter(|&x| x != b)
            .collect();
        for &x in &others_a {
            self.bump(a, x, false);
            self.bump(b, x, true);
        }
        for &y in &others_b {
            self.bump(b, y, false);
            self.bump(a, y, true);
        }
        exchange_seats(&mut self.members[r], &mut self.table_of[r], a, b);
    }

    fn cost(&self) -> f64 {
        let n = self.n;
        let mut total = 0.0;
        for a in 0..n {
            for b in a + 1..n {
                let c = self.count[a * n + b] as f64;
                total += self.history.weight(a, b) * c + c * (c - 1.0) / 2.0;
            }
        }
        total
    }
}

/// Exchanges the seats of `a` and `b` (at different tables) in one round's tables.
fn exchange_seats<T: AsMut<[usize]>>(tables: &mut [T], table_of: &mut [usize], a: usize, b: usize) {
    let (ta, tb) = (table_of[a], table_of[b]);
    for (t, from, to) in [(ta, a, b), (tb, b, a)] {
        for seat in tables[t].as_mut() {
            if *seat == from {
                *seat = to;
            }
        }
    }
    table_of[a] = tb;
    table_of[b] = ta;
}

/// The least cost any plan can have when there is no history: meetings spread evenly.
fn lower_bound(n: usize, sizes: &[usize], rounds: usize) -> f64 {
    let pairs = (n * (n - 1) / 2) as u64;
    let meetings: u64 =
        sizes.iter().map(|&s| (s * (s - 1) / 2) as u64).sum::<u64>() * rounds as u64;
    let (q, r) = (meetings / pairs, meetings % pairs);
    let f = |c: u64| (c * c.saturating_sub(1) / 2) as f64;
    r as f64 * f(q + 1) + (pairs - r) as f64 * f(q)
}

/// The affine plane over GF(4): 16 points, 5 rounds of 4 lines of 4, every pair on exactly
/// one line. Used as the start for 16 players.
fn affine_plane_16() -> Vec<Vec<Vec<usize>>> {
    // GF(4) = {0, 1, a, a+1} as 0..4; addition is XOR; multiplication by table.
    const MUL: [[usize; 4]; 4] = [[0, 0, 0, 0], [0, 1, 2, 3], [0, 2, 3, 1], [0, 3, 1, 2]];
    let point = |x: usize, y: usize| x * 4 + y;
    let mut rounds = Vec::new();
    for row in &MUL {
        // Lines y = m·x + c.
        rounds.push(
            (0..4)
                .map(|c| (0..4).map(|x| point(x, row[x] ^ c)).collect())
                .collect(),
        );
    }
    // Vertical lines x = c.
    rounds.push(
        (0..4)
            .map(|c| (0..4).map(|y| point(c, y)).collect())
            .collect(),
    );
    rounds
}

/// Multiplication in GF(8) = GF(2)[x]/(x³+x+1); addition is XOR.
fn gf8_mul(a: usize, b: usize) -> usize {
    let mut product = 0;
    for bit in 0..3 {
        if b >> bit & 1 == 1 {
            product ^= a << bit;
        }
    }
    for bit in (3..5).rev() {
        if product >> bit & 1 == 1 {
            product ^= 0b1011 << (bit - 3);
        }
    }
    product
}

fn is_prime(q: usize) -> bool {
    q >= 2
        && (2..q)
            .take_while(|d| d * d <= q)
            .all(|d| !q.is_multiple_of(d))
}

/// Multiplication in GF(9) = GF(3)[i]/(i²+1), an element a + b·i stored as a + 3b.
fn gf9_mul(x: usize, y: usize) -> usize {
    let (a, b, c, d) = (x % 3, x / 3, y % 3, y / 3);
    // (a + bi)(c + di) = (ac − bd) + (ad + bc)i, with i² = −1.
    let real = (a * c + 2 * b * d) % 3;
    let imaginary = (a * d + b * c) % 3;
    real + 3 * imaginary
}

/// Addition in GF(9), componentwise mod 3.
fn gf9_add(x: usize, y: usize) -> usize {
    (x % 3 + y % 3) % 3 + 3 * ((x / 3 + y / 3) % 3)
}

/// For `n = 4q` with q a prime ≥ 5, 8 or 9: q rounds in which no two players meet twice.
/// Players are (row a, column x); table j of round r is {(a, j + e_a·r)} over GF(q), so two
/// players of different rows meet only in the round solving (e_a − e_b)·r = y − x.
fn transversal_rounds(n: usize) -> Vec<Vec<Vec<usize>>> {
    if !n.is_multiple_of(4) {
        return Vec::new();
    }
    let q = n / 4;
    type Op = fn(usize, usize, usize) -> usize;
    let (add, mul): (Op, Op) = if q == 8 {
        (|a, b, _| a ^ b, |a, b, _| gf8_mul(a, b))
    } else if q == 9 {
        (|a, b, _| gf9_add(a, b), |a, b, _| gf9_mul(a, b))
    } else if q >= 5 && is_prime(q) {
        (|a, b, q| (a + b) % q, |a, b, q| a * b % q)
    } else {
        return Vec::new();
    };
    (0..q)
        .map(|r| {
            (0..q)
                .map(|j| (0..4).map(|a| a * q + add(j, mul(a, r, q), q)).collect())
                .collect()
        })
        .collect()
}

/// Plans `rounds` rounds for `n` players. With `history`, earlier meetings weigh in and East
/// starts continue from it. Stops at the lower bound or after `budget`.
pub fn plan(
    n: usize,
    rounds: usize,
    seed: u64,
    history: Option<&History>,
    budget: Duration,
    games_per_table: usize,
) -> Result<Plan, String> {
    let sizes = table_sizes(n)?;
    if rounds == 0 {
        return Ok(Plan { rounds: Vec::new() });
    }
    let empty = History::new(n);
    let history = history.unwrap_or(&empty);
    let mut rng = Rng::new(seed);

    // Start: the affine plane where it applies, else random tables.
    let mut members: Vec<Vec<Vec<usize>>> = Vec::with_capacity(rounds);
    let plane = if n == 16 {
        affine_plane_16()
    } else {
        transversal_rounds(n)
    };
    let mut relabel: Vec<usize> = (0..n).collect();
    rng.shuffle(&mut relabel);
    let started = Instant::now();
    let has_history = history.weight.iter().any(|&w| w > 0.0);
    // Without a construction for this count, and with more meetings than pairs (so repeats are
    // forced), search plans with a cyclic symmetry first (nine tenths of the budget); the plain
    // search below goes on from the best of them.
    let mut plane = plane;
    let bound = lower_bound(n, &sizes, rounds);
    if plane.is_empty() && !has_history && rounds >= 3 && bound > 0.0 {
        let deadline = started + budget.mul_f64(0.9);
        if let Some((found, _)) = cyclic::search(n, rounds, &mut rng, deadline, bound) {
            plane = found;
        }
    }
    for r in 0..rounds {
        if let Some(round) = plane.get(r) {
            members.push(
                round
                    .iter()
                    .map(|t| t.iter().map(|&p| relabel[p]).collect())
                    .collect(),
            );
            continue;
        }
        let mut players: Vec<usize> = (0..n).collect();
        rng.shuffle(&mut players);
        let mut it = players.into_iter();
        members.push(
            sizes
                .iter()
                .map(|&s| it.by_ref().take(s).collect())
                .collect(),
        );
    }
    let mut table_of = vec![vec![0usize; n]; rounds];
    for (r, round) in members.iter().enumerate() {
        for (t, table) in round.iter().enumerate() {
            for &p in table {
                table_of[r][p] = t;
            }
        }
    }
    let mut state = State {
        n,
        history,
        table_of,
        members,
        count: vec![0; n * n],
    };
    for r in 0..rounds {
        for table in state.members[r].clone() {
            for (i, &a) in table.iter().enumerate() {
                for &b in &table[i + 1..] {
                    state.bump(a, b, true);
                }
            }
        }
    }

    if sizes.len() > 1 {
        let bound = lower_bound(n, &sizes, rounds);
        let left = budget.saturating_sub(started.elapsed());
        anneal(&mut state, rounds, &mut rng, left, bound, history);
    }

    // Seat order: fewest East starts so far sit first (East of game 1), then the rest.
    let mut east = history.east.clone();
    let mut out = Vec::with_capacity(rounds);
    for r in 0..rounds {
        balance_east(&mut state, r, &east);
        let mut round = Vec::new();
        for table in &state.members[r] {
            let mut seated = table.clone();
            rng.shuffle(&mut seated);
            seated.sort_by_key(|&p| east[p]);
            for g in 0..games_per_table {
                east[east_of_game(&seated, g)] += 1;
            }
            round.push(seated);
        }
        out.push(round);
    }
    Ok(Plan { rounds: out })
}

/// At tables of 3 or 2 the first seat starts more games as East. Moves the players with the
/// fewest East starts into those first seats when a swap costs no extra meetings.
fn balance_east(state: &mut State<'_>, r: usize, east: &[u32]) {
    let full = state.members[r].iter().map(Vec::len).max().unwrap_or(0);
    for _ in 0..state.n {
        let mut improved = false;
        for t in 0..state.members[r].len() {
            if state.members[r][t].len() == full {
                continue;
            }
            let Some(&first) = state.members[r][t].iter().min_by_key(|&&p| east[p]) else {
                continue;
            };
            let candidate = (0..state.n)
                .filter(|&p| state.table_of[r][p] != t && east[p] < east[first])
                .filter(|&p| state.swap_delta(r, first, p) <= 1e-9)
                .min_by_key(|&p| east[p]);
            if let Some(p) = candidate {
                state.swap(r, first, p);
                improved = true;
            }
        }
        if !improved {
            break;
        }
    }
}

fn anneal(
    state: &mut State<'_>,
    rounds: usize,
    rng: &mut Rng,
    budget: Duration,
    bound: f64,
    history: &History,
) {
    let start = Instant::now();
    let has_history = history.weight.iter().any(|&w| w > 0.0);
    let n = state.n;
    let mut cost = state.cost();
    let mut best_cost = cost;
    let mut best = (
        state.table_of.clone(),
        state.members.clone(),
        state.count.clone(),
    );
    let (t0, decay) = (2.0, 0.97);
    let mut temperature = t0;
    let mut step: u64 = 0;
    // History weights are never negative, so the bound without history holds with it too.
    let mut last_gain = 0u64;
    while best_cost > bound + 1e-9 && start.elapsed() < budget {
        for _ in 0..20_000 {
            step += 1;
            let r = rng.below(rounds);
            // Half the moves start from a player who meets someone again in this round.
            let a = if rng.below(2) == 0 {
                let p = rng.below(n);
                let table = &state.members[r][state.table_of[r][p]];
                match table
                    .iter()
                    .find(|&&x| x != p && state.count[p * n + x] > 1)
                {
                    Some(_) => p,
                    None => rng.below(n),
                }
            } else {
                rng.below(n)
            };
            let b = rng.below(n);
            if state.table_of[r][a] == state.table_of[r][b] {
                continue;
            }
            let d = state.swap_delta(r, a, b);
            if d <= 0.0 || rng.unit() < (-d / temperature).exp() {
                state.swap(r, a, b);
                cost += d;
                if cost < best_cost - 1e-9 {
                    best_cost = cost;
                    last_gain = step;
                    best = (
                        state.table_of.clone(),
                        state.members.clone(),
                        state.count.clone(),
                    );
                    if best_cost <= bound + 1e-9 {
                        break;
                    }
                }
            }
        }
        temperature *= decay;
        if temperature < 0.02 {
            // Reheat from the best plan so far.
            (state.table_of, state.members, state.count) = best.clone();
            cost = best_cost;
            temperature = t0 / 2.0;
        }
        // With history the bound may be out of reach: stop once the search has gone long without
        // finding better (or at a fixed amount of search).
        if has_history && (step > 4_000_000 || step - last_gain > 300_000) {
            break;
        }
    }
    (state.table_of, state.members, state.count) = best;
}

/// How much one earlier meeting at a table weighs against one place of standing: a repeat is
/// avoided whenever a swap can avoid it; standing decides among the seatings with as few.
const SWISS_REPEAT: f64 = 10_000.0;

/// The cost of a Swiss table: its earlier meetings, then how far its players stand from the
/// middle of the standings block the table is for (`center`, in places).
fn swiss_cost(table: &[usize], center: f64, place: &[usize], history: &History) -> f64 {
    let mut repeats = 0.0;
    for (i, &a) in table.iter().enumerate() {
        for &b in &table[i + 1..] {
            repeats += history.weight(a, b);
        }
    }
    let distance: f64 = table
        .iter()
        .map(|&p| (place[p] as f64 - center).abs())
        .sum();
    SWISS_REPEAT * repeats + distance
}

/// Swiss seating for one round: players of similar standing share tables. `ranked` holds the
/// players' indexes best first (`history` is indexed the same way). Tables are filled top down:
/// each takes the best player left, then the best left who have met no one at it yet. Then
/// players swap between tables wherever that avoids an earlier meeting the filling could not,
/// or brings a table closer to its block of the standings with no more meetings, until no swap
/// helps.
/// Each table is in seat order: fewest East starts so far first, ties by standing.
pub fn swiss(ranked: &[usize], history: &History) -> Result<Vec<Vec<usize>>, String> {
    let n = ranked.len();
    let sizes = table_sizes(n)?;
    let mut place = vec![0usize; history.n.max(n)];
    for (i, &p) in ranked.iter().enumerate() {
        place[p] = i;
    }
    // Top down: each table takes the best player left, then the best players left who have not
    // met anyone at it (the least met when everyone has).
    let mut left: Vec<usize> = ranked.to_vec();
    let mut tables: Vec<Vec<usize>> = Vec::with_capacity(sizes.len());
    for &size in &sizes {
        let mut table = vec![left.remove(0)];
        while table.len() < size {
            let met = |p: usize| table.iter().map(|&q| history.weight(p, q)).sum::<f64>();
            let pick = left
                .iter()
                .enumerate()
                .min_by(|&(i, &a), &(j, &b)| met(a).total_cmp(&met(b)).then(i.cmp(&j)))
                .map(|(i, _)| i)
                .expect("the sizes add up to the players");
            table.push(left.remove(pick));
        }
        tables.push(table);
    }
    // Table t is for the standings block it was filled from: its middle place.
    let mut centers = Vec::with_capacity(sizes.len());
    let mut start = 0usize;
    for &size in &sizes {
        centers.push(start as f64 + (size as f64 - 1.0) / 2.0);
        start += size;
    }
    let mut costs: Vec<f64> = tables
        .iter()
        .zip(&centers)
        .map(|(t, &c)| swiss_cost(t, c, &place, history))
        .collect();
    // Each pass strictly lowers the total, which is bounded below: this ends.
    for _ in 0..(4 * n) {
        let mut improved = false;
        for a in 0..tables.len() {
            for b in (a + 1)..tables.len() {
                for i in 0..tables[a].len() {
                    for j in 0..tables[b].len() {
                        let (x, y) = (tables[a][i], tables[b][j]);
                        tables[a][i] = y;
                        tables[b][j] = x;
                        let (ca, cb) = (
                            swiss_cost(&tables[a], centers[a], &place, history),
                            swiss_cost(&tables[b], centers[b], &place, history),
                        );
                        if ca + cb < costs[a] + costs[b] - 1e-9 {
                            costs[a] = ca;
                            costs[b] = cb;
                            improved = true;
                        } else {
                            tables[a][i] = x;
                            tables[b][j] = y;
                        }
                    }
                }
            }
        }
        if !improved {
            break;
        }
    }
    for t in &mut tables {
        t.sort_by_key(|&p| (history.east.get(p).copied().unwrap_or(0), place[p]));
    }
    Ok(tables)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_sizes_use_threes_and_twos_only_when_forced() {
        assert_eq!(table_sizes(13).unwrap(), [4, 3, 3, 3]);
        assert_eq!(table_sizes(16).unwrap(), [4, 4, 4, 4]);
        assert_eq!(table_sizes(9).unwrap(), [3, 3, 3]);
        assert_eq!(table_sizes(5).unwrap(), [3, 2]);
        assert_eq!(table_sizes(2).unwrap(), [2]);
        assert!(table_sizes(1).is_err());
        for n in 2..200 {
            let s = table_sizes(n).unwrap();
            assert_eq!(s.iter().sum::<usize>(), n);
            assert_eq!(s.len(), n.div_ceil(4));
        }
    }

    #[test]
    fn the_affine_plane_meets_every_pair_once() {
        let plan = Plan {
            rounds: affine_plane_16(),
        };
        let stats = plan.stats(16, 4, None);
        assert_eq!((stats.extra_meetings, stats.max_meetings), (0, 1));
    }

    #[test]
    fn transversal_designs_never_repeat_a_meeting() {
        for n in [20, 28, 32, 36, 44] {
            let rounds = transversal_rounds(n);
            assert_eq!(rounds.len(), n / 4, "{n}");
            let stats = Plan { rounds }.stats(n, 4, None);
            assert_eq!((stats.extra_meetings, stats.max_meetings), (0, 1), "{n}");
        }
        assert!(transversal_rounds(24).is_empty());
    }

    #[test]
    fn plans_are_reproducible_from_a_seed() {
        let a = plan(20, 4, 7, None, Duration::from_secs(2), 4).unwrap();
        let b = plan(20, 4, 7, None, Duration::from_secs(2), 4).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn history_keeps_recent_partners_apart() {
        let mut h = History::new(8);
        // Last night: {0,1,2,3} and {4,5,6,7}.
        for t in [[0, 1, 2, 3], [4, 5, 6, 7]] {
            for i in 0..4 {
                for j in i + 1..4 {
                    h.met(t[i], t[j], 0);
                }
            }
        }
        let p = plan(8, 1, 1, Some(&h), Duration::from_secs(1), 4).unwrap();
        for table in &p.rounds[0] {
            let low = table.iter().filter(|&&x| x < 4).count();
            assert_eq!(low, 2, "each table mixes the two old tables: {table:?}");
        }
    }

    #[test]
    fn swiss_seats_by_standing_and_moves_players_to_avoid_repeats() {
        // 16 players ranked 0..16: with no history the tables are the standings in fours.
        let ranked: Vec<usize> = (0..16).collect();
        let fresh = History::new(16);
        let tables = swiss(&ranked, &fresh).unwrap();
        let mut sets: Vec<Vec<usize>> = tables
            .iter()
            .map(|t| {
                let mut t = t.clone();
                t.sort_unstable();
                t
            })
            .collect();
        sets.sort();
        assert_eq!(
            sets,
            vec![
                vec![0, 1, 2, 3],
                vec![4, 5, 6, 7],
                vec![8, 9, 10, 11],
                vec![12, 13, 14, 15]
            ]
        );

        // The top four all met last round: Swiss splits them up, each staying near their place.
        let mut met = History::new(16);
        for a in 0..4 {
            for b in (a + 1)..4 {
                met.met(a, b, 0);
            }
        }
        let tables = swiss(&ranked, &met).unwrap();
        let mut repeats = 0;
        for t in &tables {
            for (i, &a) in t.iter().enumerate() {
                for &b in &t[i + 1..] {
                    if met.weight(a, b) > 0.0 {
                        repeats += 1;
                    }
                }
            }
        }
        assert_eq!(repeats, 0, "{tables:?}");
        // Still by standing: each of the top four leads a table, in order, and the others
        // follow the standings (worked by hand: nothing closer avoids the repeats).
        let mut sorted = tables.clone();
        for t in &mut sorted {
            t.sort_unstable();
        }
        assert_eq!(
            sorted,
            vec![
                vec![0, 4, 5, 6],
                vec![1, 7, 8, 9],
                vec![2, 10, 11, 12],
                vec![3, 13, 14, 15]
            ]
        );
        // Every player is seated once, at tables of 4.
        let mut all: Vec<usize> = tables.concat();
        all.sort_unstable();
        assert_eq!(all, ranked);
        assert!(tables.iter().all(|t| t.len() == 4));
    }
}
