//! Every chart the service draws, laid out here and drawn by one template
//! (`templates/pages/chart.html`): bars in rows (negative values to the left of zero), columns
//! over nights or weeks, lines over time (one or several, each with its own marker shape as
//! well as its colour), and small multiples (columns on one scale). Each chart is an
//! `<svg role="img">` with a title, a sentence that says its numbers, and the numbers as a
//! table; it needs no script. Why our own layouts and not `plotters`: docs/decisions.md.

use askama::Template;

use crate::domain::ordinal;

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

/// One night so far: a bar per player (her points that night), coloured as her line is.
fn bars(players: &[(i64, String, Vec<i64>)]) -> Chart {
    let colours = distinct_colours(&players.iter().map(|p| p.0).collect::<Vec<_>>());
    let rows: Vec<(String, i64, usize)> = players
        .iter()
        .zip(colours)
        .map(|((_, name, p), colour)| (name.clone(), p.iter().sum(), colour))
        .collect();
    bar_rows(&rows)
}

/// A row per (name, value, colour): the name on the left and the value on the right above a
/// bar from zero, so no label ever sits on a bar or on another label, whatever the signs. The
/// chart is narrow (360 wide), so on a phone it is drawn near its own size and fits.
pub fn bar_rows(rows: &[(String, i64, usize)]) -> Chart {
    let (width, pad, row) = (360.0, 4.0, 46.0);
    let (left, right) = (pad, width - pad);
    let height = (rows.len() as f64 * row + 8.0) as u32;
    let lo = rows.iter().map(|r| r.1).min().unwrap_or(0).min(0);
    let hi = rows.iter().map(|r| r.1).max().unwrap_or(0).max(0);
    let span = (hi - lo).max(1) as f64;
    let x = |v: i64| left + (v - lo) as f64 / span * (right - left);
    let bars = rows
        .iter()
        .enumerate()
        .map(|(i, (name, p, colour))| {
            let (a, b) = (x(0), x(*p));
            // The name has the row's width but the value's (17 px bold: about 10 a character).
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

/// A chart ready to draw: what it shows in words and numbers, and its shapes and words in the
/// coordinates of its `viewBox`.
#[derive(Debug, Clone)]
pub struct Figure {
    /// Unique on the page: the ids of its title and description start with it.
    pub id: String,
    pub title: String,
    /// The level of its title's heading (2; 3 for one of small multiples).
    pub level: u8,
    /// What it shows, in one sentence with its numbers, for everyone who does not see it.
    pub said: String,
    pub width: f64,
    pub height: f64,
    /// `bars` (rows, narrow), `lines` (wide) or `columns`.
    pub kind: &'static str,
    pub shapes: Vec<Shape>,
    pub texts: Vec<Text>,
    /// (colour, marker shape, words) of each line, when there are several.
    pub legend: Vec<(usize, usize, String)>,
    /// Words under the chart (what is along the bottom), if any.
    pub note: String,
    /// How many values it draws a mark for (a bar, a column, a dot): every value it names.
    pub marks: usize,
    pub table: Table,
    /// Where its numbers are when a table the page shares among charts holds them (that
    /// table's id and title); its own `table` is then not drawn.
    pub numbers_in: Option<(String, String)>,
}

impl Default for Figure {
    fn default() -> Figure {
        Figure {
            id: String::new(),
            title: String::new(),
            level: 2,
            said: String::new(),
            width: 0.0,
            height: 0.0,
            kind: "bars",
            shapes: Vec::new(),
            texts: Vec::new(),
            legend: Vec::new(),
            note: String::new(),
            marks: 0,
            table: Table::default(),
            numbers_in: None,
        }
    }
}

/// One shape: an SVG element (`rect`, `line`, `polyline`, `path`) with its class and its
/// numeric attributes (numbers only: nothing typed by a person goes in them).
#[derive(Debug, Clone)]
pub struct Shape {
    pub tag: &'static str,
    pub class: String,
    pub attrs: String,
}

/// Words drawn in the chart.
#[derive(Debug, Clone)]
pub struct Text {
    pub x: f64,
    pub y: f64,
    pub anchor: &'static str,
    pub class: &'static str,
    pub text: String,
}

/// A chart's numbers as a table (its caption is the chart's title): the column heads, and
/// rows whose first cell names the row.
#[derive(Debug, Clone, Default)]
pub struct Table {
    pub head: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

fn rect(x: f64, y: f64, w: f64, h: f64, class: String) -> Shape {
    Shape {
        tag: "rect",
        class,
        attrs: format!("x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{h:.1}\""),
    }
}

fn line(x1: f64, y1: f64, x2: f64, y2: f64, class: &str) -> Shape {
    Shape {
        tag: "line",
        class: class.into(),
        attrs: format!("x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\""),
    }
}

fn text(x: f64, y: f64, anchor: &'static str, class: &'static str, words: String) -> Text {
    Text {
        x: (x * 10.0).round() / 10.0,
        y: (y * 10.0).round() / 10.0,
        anchor,
        class,
        text: words,
    }
}

/// How many marker shapes lines take turns with.
pub const MARKERS: usize = 6;

/// A marker of shape `k` (circle, square, triangle, diamond, triangle down, hexagon) at (x, y),
/// as path data.
pub fn marker(k: usize, x: f64, y: f64) -> String {
    let r = 5.0;
    match k % MARKERS {
        0 => format!(
            "M{:.1},{y:.1}a{r},{r} 0 1,0 {d},0a{r},{r} 0 1,0 -{d},0",
            x - r,
            d = 2.0 * r
        ),
        1 => format!("M{:.1},{:.1}h{d}v{d}h-{d}z", x - r, y - r, d = 2.0 * r),
        2 => format!(
            "M{x:.1},{:.1}l{r},{d}h-{d}z",
            y - r - 1.0,
            d = 2.0 * r + 1.0
        ),
        3 => format!(
            "M{x:.1},{:.1}l{r1},{r1}l-{r1},{r1}l-{r1},-{r1}z",
            y - r - 1.0,
            r1 = r + 1.0
        ),
        4 => format!(
            "M{x:.1},{:.1}l{r},-{d}h-{d}z",
            y + r + 1.0,
            d = 2.0 * r + 1.0
        ),
        _ => format!(
            "M{:.1},{y:.1}l{h},-{r}h{r}l{h},{r}l-{h},{r}h-{r}z",
            x - r,
            h = r / 2.0
        ),
    }
}

impl Chart {
    /// The layout as a figure to draw: `said` opens its description (its numbers follow),
    /// `period` names a column of the table ("Night 3"), `note` goes under it.
    pub fn figure(
        &self,
        id: &str,
        title: String,
        said: &str,
        period: impl Fn(&str) -> String,
        note: String,
    ) -> Figure {
        let mut f = Figure {
            id: id.into(),
            title,
            said: format!("{said} {}", self.said()),
            width: self.width as f64,
            height: self.height as f64,
            note,
            ..Figure::default()
        };
        if self.bars.is_empty() {
            f.kind = "lines";
            for (y, words) in &self.guides {
                f.shapes.push(line(self.left, *y, self.right, *y, "guide"));
                f.texts
                    .push(text(self.left - 8.0, y + 5.0, "end", "axis", words.clone()));
            }
            f.shapes.push(line(
                self.left,
                self.zero_y,
                self.right,
                self.zero_y,
                "zero",
            ));
            for (x, words) in &self.nights {
                f.texts.push(text(
                    *x,
                    self.height as f64 - 10.0,
                    "middle",
                    "axis",
                    words.clone(),
                ));
            }
            for (k, s) in self.series.iter().enumerate() {
                f.shapes.push(Shape {
                    tag: "polyline",
                    class: format!("series s{}", s.colour),
                    attrs: format!("points=\"{}\"", s.points),
                });
                for point in s.points.split(' ') {
                    if let Some((x, y)) = point.split_once(',')
                        && let (Ok(x), Ok(y)) = (x.parse::<f64>(), y.parse::<f64>())
                    {
                        f.shapes.push(dot(k, x, y, s.colour));
                        f.marks += 1;
                    }
                }
                f.texts.push(text(
                    s.label.0,
                    s.label.1,
                    "start",
                    "end-label",
                    s.name.clone(),
                ));
                f.legend.push((s.colour, k % MARKERS, s.legend.clone()));
            }
            f.table = Table {
                head: std::iter::once("Player".to_string())
                    .chain(self.periods.iter().map(|p| period(p)))
                    .collect(),
                rows: self
                    .series
                    .iter()
                    .map(|s| {
                        std::iter::once(s.full_name.clone())
                            .chain(s.totals.iter().map(i64::to_string))
                            .collect()
                    })
                    .collect(),
            };
        } else {
            f.kind = "bars";
            self.draw_bars(&mut f);
        }
        f
    }

    /// Bars in rows: the name and the value above each bar.
    fn draw_bars(&self, f: &mut Figure) {
        for b in &self.bars {
            f.texts.push(text(
                self.left,
                b.y + 17.0,
                "start",
                "bar-name",
                b.name.clone(),
            ));
            f.texts.push(text(
                self.right,
                b.y + 17.0,
                "end",
                "bar-value",
                b.points.to_string(),
            ));
            let below = if b.points < 0 { " below" } else { "" };
            f.shapes.push(rect(
                b.x,
                b.y + 24.0,
                b.width,
                14.0,
                format!("bar mark s{}{below}", b.colour),
            ));
            f.shapes.push(line(
                self.zero_x,
                b.y + 21.0,
                self.zero_x,
                b.y + 41.0,
                "zero",
            ));
            f.marks += 1;
        }
        f.table.rows = self
            .bars
            .iter()
            .map(|b| vec![b.full_name.clone(), b.points.to_string()])
            .collect();
    }
}

/// A marker of line `k` at (x, y) in colour `colour`.
fn dot(k: usize, x: f64, y: f64, colour: usize) -> Shape {
    Shape {
        tag: "path",
        class: format!("mark dot s{colour}"),
        attrs: format!("d=\"{}\"", marker(k, x, y)),
    }
}

/// Bars in rows, one per (name, value): `head` names the table's two columns.
pub fn bars_figure(
    id: &str,
    title: String,
    said: String,
    rows: &[(String, i64)],
    head: [&str; 2],
) -> Figure {
    let rows: Vec<(String, i64, usize)> = rows.iter().map(|(n, v)| (n.clone(), *v, 2)).collect();
    let chart = bar_rows(&rows);
    let mut f = Figure {
        id: id.into(),
        title,
        said,
        width: chart.width as f64,
        height: chart.height as f64,
        kind: "bars",
        ..Figure::default()
    };
    chart.draw_bars(&mut f);
    f.table.head = head.iter().map(|h| h.to_string()).collect();
    f
}

/// A number's hyphen written as the minus sign it is ("−100").
fn minus(n: String) -> String {
    n.replacen('-', "−", 1)
}

/// Where a value falls between `lo` (at `bottom`) and `hi` (at `top`).
fn scale(lo: f64, hi: f64, top: f64, bottom: f64) -> impl Fn(f64) -> f64 {
    let span = if hi > lo { hi - lo } else { 1.0 };
    move |v: f64| bottom - (v - lo) / span * (bottom - top)
}

/// The period labels along the bottom of a chart `step` apart: every one when they fit, else
/// every few (the first and the last always), so that none touches the next.
fn period_labels(
    periods: &[String],
    x: impl Fn(usize) -> f64,
    step: f64,
    y: f64,
    width: f64,
) -> Vec<Text> {
    // The axis's 17 px words: about 9.5 a character, and a gap.
    let widest = periods.iter().map(|p| p.chars().count()).max().unwrap_or(1) as f64 * 9.5 + 10.0;
    let every = ((widest / step.max(1.0)).ceil() as usize).max(1);
    let n = periods.len();
    let mut out: Vec<Text> = Vec::new();
    for (i, p) in periods.iter().enumerate() {
        let last = i + 1 == n;
        // Kept inside the chart: a label at either end is moved in by what sticks out.
        let half = p.chars().count() as f64 * 9.5 / 2.0 + 2.0;
        let at = x(i).clamp(half.min(width / 2.0), (width - half).max(width / 2.0));
        let room = out.last().is_none_or(|t| (at - t.x).abs() >= widest);
        if (i % every == 0 || last) && room {
            out.push(text(at, y, "middle", "axis", p.clone()));
        }
    }
    out
}

/// Columns over periods: one per value, up from zero or down below it, the guides at the
/// highest, the lowest and zero. `scale_to`: the (lowest, highest) the scale must show (for
/// small multiples on one scale).
pub fn columns_figure(
    id: &str,
    title: String,
    said: String,
    periods: &[String],
    values: &[i64],
    head: [&str; 2],
    scale_to: Option<(i64, i64)>,
) -> Figure {
    let (width, height) = (360.0, 200.0);
    let (left, right, top, bottom) = (52.0, 352.0, 12.0, 168.0);
    let (mut lo, mut hi) = (
        values.iter().copied().min().unwrap_or(0).min(0),
        values.iter().copied().max().unwrap_or(0).max(0),
    );
    if let Some((l, h)) = scale_to {
        lo = lo.min(l);
        hi = hi.max(h);
    }
    let y = scale(lo as f64, hi as f64, top, bottom);
    let n = values.len().max(1);
    let step = (right - left) / n as f64;
    let gap = (step * 0.25).min(6.0);
    let x = |i: usize| left + step * i as f64 + step / 2.0;
    let mut f = Figure {
        id: id.into(),
        title,
        said,
        width,
        height,
        kind: "columns",
        ..Figure::default()
    };
    guides(&mut f, &[hi, lo, 0], &y, left, right);
    for (i, v) in values.iter().enumerate() {
        let (a, b) = (y(0.0), y(*v as f64));
        let below = if *v < 0 { " below" } else { "" };
        f.shapes.push(rect(
            left + step * i as f64 + gap / 2.0,
            a.min(b),
            (step - gap).max(1.0),
            (a - b).abs().max(2.0),
            format!("bar mark s2{below}"),
        ));
        f.marks += 1;
    }
    f.shapes.push(line(left, y(0.0), right, y(0.0), "zero"));
    f.texts
        .extend(period_labels(periods, x, step, height - 8.0, width));
    f.table = Table {
        head: head.iter().map(|h| h.to_string()).collect(),
        rows: periods
            .iter()
            .zip(values)
            .map(|(p, v)| vec![p.clone(), v.to_string()])
            .collect(),
    };
    f
}

/// Guides across the chart at these values (each once), labelled on the left.
fn guides(f: &mut Figure, at: &[i64], y: &impl Fn(f64) -> f64, left: f64, right: f64) {
    let mut seen: Vec<f64> = Vec::new();
    for v in at {
        let yy = y(*v as f64);
        // Two guides closer than a line of words: the first is kept.
        if seen.iter().any(|s| (s - yy).abs() < 18.0) {
            continue;
        }
        seen.push(yy);
        f.shapes.push(line(left, yy, right, yy, "guide"));
        f.texts.push(text(
            left - 6.0,
            yy + 5.0,
            "end",
            "axis",
            minus(v.to_string()),
        ));
    }
}

/// One line over periods, a marker at every value (`None`: no value there, the line broken):
/// `invert` puts the smallest value at the top (a rank), `decimals` the guides' precision.
pub fn line_figure(
    id: &str,
    title: String,
    said: String,
    periods: &[String],
    values: &[Option<f64>],
    head: [&str; 2],
    invert: bool,
) -> Figure {
    let (width, height) = (360.0, 200.0);
    let (left, right, top, bottom) = (52.0, 344.0, 14.0, 166.0);
    let known: Vec<f64> = values.iter().flatten().copied().collect();
    let lo = known.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = known.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if known.is_empty() {
        (0.0, 1.0)
    } else {
        (lo, hi)
    };
    let y = if invert {
        let s = scale(-hi, -lo, top, bottom);
        Box::new(move |v: f64| s(-v)) as Box<dyn Fn(f64) -> f64>
    } else {
        Box::new(scale(lo, hi, top, bottom))
    };
    let n = values.len().max(1);
    let step = if n > 1 {
        (right - left) / (n - 1) as f64
    } else {
        0.0
    };
    let x = |i: usize| {
        if n > 1 {
            left + step * i as f64
        } else {
            (left + right) / 2.0
        }
    };
    let mut f = Figure {
        id: id.into(),
        title,
        said,
        width,
        height,
        kind: "columns",
        ..Figure::default()
    };
    // A place reads as one ("3rd"); other values to a decimal where they have one.
    let shown = |v: f64| {
        if invert && v >= 1.0 {
            ordinal(v.round() as usize)
        } else if v.fract().abs() < 1e-9 {
            minus(format!("{v:.0}"))
        } else {
            minus(format!("{v:.1}"))
        }
    };
    let mut marks_at: Vec<f64> = vec![hi, lo];
    if !invert && lo < 0.0 && hi > 0.0 {
        marks_at.push(0.0);
    }
    let mut seen: Vec<f64> = Vec::new();
    for v in marks_at {
        let yy = y(v);
        if seen.iter().any(|s| (s - yy).abs() < 18.0) {
            continue;
        }
        seen.push(yy);
        f.shapes.push(line(left, yy, right, yy, "guide"));
        f.texts
            .push(text(left - 6.0, yy + 5.0, "end", "axis", shown(v)));
    }
    let mut run: Vec<String> = Vec::new();
    let mut runs: Vec<Vec<String>> = Vec::new();
    for (i, v) in values.iter().enumerate() {
        match v {
            Some(v) => {
                run.push(format!("{:.1},{:.1}", x(i), y(*v)));
                f.shapes.push(dot(0, x(i), y(*v), 2));
                f.marks += 1;
            }
            None => runs.push(std::mem::take(&mut run)),
        }
    }
    runs.push(run);
    for r in runs.into_iter().filter(|r| r.len() > 1) {
        f.shapes.insert(
            0,
            Shape {
                tag: "polyline",
                class: "series s2".into(),
                attrs: format!("points=\"{}\"", r.join(" ")),
            },
        );
    }
    f.texts.extend(period_labels(
        periods,
        x,
        step.max(1.0),
        height - 8.0,
        width,
    ));
    f.table = Table {
        head: head.iter().map(|h| h.to_string()).collect(),
        rows: periods
            .iter()
            .zip(values)
            .map(|(p, v)| vec![p.clone(), v.map(shown).unwrap_or_else(|| "–".into())])
            .collect(),
    };
    f
}

#[derive(Template)]
#[template(path = "pages/chart.html")]
struct Drawn<'a> {
    f: &'a Figure,
}

#[derive(Template)]
#[template(path = "pages/chart_numbers.html")]
struct Numbers<'a> {
    id: &'a str,
    title: &'a str,
    table: &'a Table,
}

/// A table of numbers as the charts give them: in a `<details>` whose summary names `title`;
/// `id` (when not empty) lets charts that share it link to it.
pub fn numbers_html(id: &str, title: &str, table: &Table) -> String {
    Numbers { id, title, table }.render().unwrap_or_else(|e| {
        tracing::error!(error = %e, "writing a chart's numbers failed");
        String::new()
    })
}

impl Figure {
    /// The chart's own numbers as a table.
    pub fn numbers(&self) -> String {
        numbers_html("", &self.title, &self.table)
    }

    /// Its numbers are in the page's table `id`, titled `title`, with other charts'.
    pub fn shares_numbers(mut self, id: &str, title: &str) -> Figure {
        self.table = Table::default();
        self.numbers_in = Some((id.to_string(), title.to_string()));
        self
    }
}

/// The figure as HTML: the chart, its words and its numbers' table (escaped by the template).
pub fn html(f: &Figure) -> String {
    Drawn { f }.render().unwrap_or_else(|e| {
        tracing::error!(error = %e, "drawing a chart failed");
        String::new()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }

    #[test]
    fn columns_draw_every_value_either_side_of_zero_and_labels_stay_inside() {
        let periods: Vec<String> = (1..=12).map(|n| format!("Night {n}")).collect();
        let values: Vec<i64> = (0..12)
            .map(|i| if i % 3 == 0 { -40 } else { i * 25 })
            .collect();
        let f = columns_figure(
            "p",
            "Points".into(),
            "said".into(),
            &periods,
            &values,
            ["Night", "Points"],
            None,
        );
        assert_eq!(f.marks, 12);
        let bars: Vec<&Shape> = f
            .shapes
            .iter()
            .filter(|s| s.class.contains("mark"))
            .collect();
        assert_eq!(bars.len(), 12);
        assert_eq!(bars.iter().filter(|s| s.class.contains("below")).count(), 4);
        // The axis's labels: none past either edge, none on another.
        let axis: Vec<&Text> = f.texts.iter().filter(|t| t.y > 180.0).collect();
        assert!(axis.len() >= 2 && axis.len() < 12, "{axis:?}");
        for t in &axis {
            let half = t.text.chars().count() as f64 * 9.5 / 2.0;
            assert!(t.x - half >= 0.0 && t.x + half <= f.width, "{t:?}");
        }
        for w in axis.windows(2) {
            assert!(w[1].x - w[0].x >= 7.0 * 9.5, "{w:?}");
        }
        assert_eq!(f.table.rows.len(), 12);
        assert_eq!(
            f.table.rows[0],
            vec!["Night 1".to_string(), "-40".to_string()]
        );
        // A guide at the lowest value says it with a minus sign.
        assert!(f.texts.iter().any(|t| t.text == "−40"), "{:?}", f.texts);
    }

    #[test]
    fn a_place_line_puts_first_at_the_top_and_breaks_where_unranked() {
        let periods: Vec<String> = (1..=4).map(|n| format!("Night {n}")).collect();
        let f = line_figure(
            "r",
            "Place".into(),
            "said".into(),
            &periods,
            &[Some(5.0), None, Some(1.0), Some(3.0)],
            ["Night", "Place"],
            true,
        );
        assert_eq!(f.marks, 3);
        let dot_y = |i: usize| {
            let d = &f
                .shapes
                .iter()
                .filter(|s| s.tag == "path")
                .nth(i)
                .unwrap()
                .attrs;
            d.split(',')
                .nth(1)
                .unwrap()
                .split(|c: char| c.is_alphabetic())
                .next()
                .unwrap()
                .parse::<f64>()
                .unwrap()
        };
        // 1st is drawn above 3rd, 3rd above 5th.
        assert!(dot_y(1) < dot_y(2) && dot_y(2) < dot_y(0));
        // One unbroken run of two values: one polyline.
        assert_eq!(f.shapes.iter().filter(|s| s.tag == "polyline").count(), 1);
        assert_eq!(f.table.rows[1][1], "–");
        assert_eq!(f.table.rows[2][1], "1st");
        assert!(f.texts.iter().any(|t| t.text == "5th"));
    }

    #[test]
    fn markers_differ_in_shape() {
        let shapes: Vec<String> = (0..MARKERS).map(|k| marker(k, 0.0, 0.0)).collect();
        let mut seen = shapes.clone();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), MARKERS);
    }
}
