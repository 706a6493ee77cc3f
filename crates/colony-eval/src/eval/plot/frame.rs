//! The frame every chart shares: title block, SIMULATION line, legend panel, axis scales and
//! label placement (see the module docs of [`super`]).

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::text::{self, text_width, tick_label, truncate, wrap, Rect};
use super::{Caption, WIDTH};

/// Title text size, pixels.
pub(super) const TITLE_SIZE: f64 = 18.0;
/// Tick label size.
pub(super) const LABEL_SIZE: f64 = 13.0;
/// Axis description size.
pub(super) const DESC_SIZE: f64 = 14.0;
/// Space kept free at the canvas edges.
pub(super) const MARGIN: f64 = 14.0;
/// Height of one legend or label row.
pub(super) const ROW: f64 = 18.0;

/// Text in the compiled-in font at `size`, black, anchored at `pos`.
pub(super) fn font(size: f64, pos: Pos) -> TextStyle<'static> {
    (text::FAMILY, size).into_font().color(&BLACK).pos(pos)
}

/// The `i`-th series colour.
pub(super) fn color(i: usize) -> RGBAColor {
    Palette99::pick(i).to_rgba()
}

/// Draws the title (wrapped) and, for simulated figures, the SIMULATION line; returns the
/// height they take from the top.
pub(super) fn header<E: std::error::Error + Send + Sync>(
    root: &DrawingArea<impl DrawingBackend<ErrorType = E>, Shift>,
    caption: &Caption,
) -> Result<f64, DrawingAreaErrorKind<E>> {
    let width = f64::from(WIDTH) - 2.0 * MARGIN;
    let center = (WIDTH / 2) as i32;
    let mut y = MARGIN;
    for line in wrap(&caption.title, TITLE_SIZE, width) {
        root.draw(&Text::new(
            line,
            (center, y as i32),
            font(TITLE_SIZE, Pos::new(HPos::Center, VPos::Top)),
        ))?;
        y += TITLE_SIZE * 1.3;
    }
    if caption.simulated {
        let note = "SIMULATION: offline simulated model, not a real model's answers";
        root.draw(&Text::new(
            truncate(note, LABEL_SIZE, width),
            (center, y as i32),
            font(LABEL_SIZE, Pos::new(HPos::Center, VPos::Top)).color(&RED),
        ))?;
        y += ROW;
    }
    Ok(y + 6.0)
}

/// How a legend entry is marked.
#[derive(Debug, Clone, Copy)]
pub(super) enum Mark {
    /// A short line.
    Stroke,
    /// A filled dot.
    Dot,
    /// A cross (markers-only series).
    Cross,
}

/// One legend entry.
pub(super) struct Entry {
    pub(super) name: String,
    pub(super) color: RGBAColor,
    pub(super) mark: Mark,
}

/// Legend entries marked with a dot, one per name, in series colours.
pub(super) fn dots<'a>(names: impl Iterator<Item = &'a String>) -> Vec<Entry> {
    names
        .enumerate()
        .map(|(i, name)| Entry {
            name: name.clone(),
            color: color(i),
            mark: Mark::Dot,
        })
        .collect()
}

/// The legend panel's width for `entries`: the longest name plus its mark, at most 28% of
/// the canvas (longer names are cut); 0 without entries.
pub(super) fn legend_width(entries: &[Entry]) -> f64 {
    if entries.is_empty() {
        return 0.0;
    }
    let longest = entries
        .iter()
        .map(|e| text_width(&e.name, LABEL_SIZE))
        .fold(0.0, f64::max);
    (longest + 30.0 + MARGIN + 6.0).min(0.28 * f64::from(WIDTH))
}

/// Draws `entries` down the panel `area` (its own coordinates), from `top`; entries that do
/// not fit are summed up in a last line.
pub(super) fn legend<E: std::error::Error + Send + Sync>(
    area: &DrawingArea<impl DrawingBackend<ErrorType = E>, Shift>,
    top: f64,
    entries: &[Entry],
) -> Result<(), DrawingAreaErrorKind<E>> {
    let (w, h) = area.dim_in_pixel();
    let (w, h) = (f64::from(w), f64::from(h));
    let fits = (((h - top - MARGIN) / ROW).floor().max(1.0)) as usize;
    let shown = if entries.len() > fits {
        fits - 1
    } else {
        entries.len()
    };
    let name_width = w - 30.0 - MARGIN;
    for (i, e) in entries.iter().take(shown).enumerate() {
        let y = (top + i as f64 * ROW) as i32;
        let mid = y + (ROW / 2.0) as i32 - 2;
        let style = ShapeStyle::from(&e.color).stroke_width(2);
        match e.mark {
            Mark::Stroke => area.draw(&PathElement::new(vec![(4, mid), (22, mid)], style))?,
            Mark::Dot => area.draw(&Circle::new((13, mid), 5, style.filled()))?,
            Mark::Cross => area.draw(&Cross::new((13, mid), 5, style))?,
        }
        area.draw(&Text::new(
            truncate(&e.name, LABEL_SIZE, name_width),
            (28, y),
            font(LABEL_SIZE, Pos::new(HPos::Left, VPos::Top)),
        ))?;
    }
    if shown < entries.len() {
        area.draw(&Text::new(
            format!("… and {} more", entries.len() - shown),
            (28, (top + shown as f64 * ROW) as i32),
            font(LABEL_SIZE, Pos::new(HPos::Left, VPos::Top)),
        ))?;
    }
    Ok(())
}

/// A numeric axis: linear, or log10 when the values span more than two orders of magnitude.
/// Decision: when zeros occur beside values spanning decades (the token axis with a scripted
/// policy's 0 tokens), the axis is "symlog": linear from 0 to 1, log10 above, so 0 is drawn
/// at the origin and every decade keeps its room (drawn position 1 + log10 v for v ≥ 1).
#[derive(Debug, Clone, Copy)]
pub(super) struct Scale {
    /// Drawn on a log scale (above 1 when `zero` is set).
    pub(super) log: bool,
    /// Linear from 0 to 1 below the log part (symlog).
    pub(super) zero: bool,
}

impl Scale {
    /// The scale for `values`: log when all are positive and the largest is more than 100
    /// times the smallest; symlog when the positive ones do so (reaching 100) and the rest
    /// are 0.
    pub(super) fn of(values: impl Iterator<Item = f64>) -> Self {
        let (mut lo, mut positive, mut hi) = (f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY);
        for v in values.filter(|v| v.is_finite()) {
            lo = lo.min(v);
            hi = hi.max(v);
            if v > 0.0 {
                positive = positive.min(v);
            }
        }
        let zero = lo == 0.0 && positive.is_finite() && hi >= 100.0 && hi / positive > 100.0;
        Self {
            log: zero || (lo > 0.0 && hi / lo > 100.0),
            zero,
        }
    }

    /// Where `v` is drawn.
    pub(super) fn to(self, v: f64) -> f64 {
        match (self.log, self.zero) {
            (true, true) if v < 1.0 => v,
            (true, true) => 1.0 + v.log10(),
            (true, false) => v.log10(),
            (false, _) => v,
        }
    }

    /// The tick label at drawn position `v`.
    pub(super) fn label(self, v: f64) -> String {
        tick_label(match (self.log, self.zero) {
            (true, true) if v < 1.0 => v,
            (true, true) => 10f64.powf(v - 1.0),
            (true, false) => 10f64.powf(v),
            (false, _) => v,
        })
    }

    /// The axis description, saying when the scale is logarithmic.
    pub(super) fn describe(self, desc: &str) -> String {
        match (self.log, self.zero) {
            (true, true) => format!("{desc} (log scale above 1, linear from 0)"),
            (true, false) => format!("{desc} (log scale)"),
            (false, _) => desc.to_string(),
        }
    }
}

/// `lo..hi` widened by `below` and `above` of its span, never empty.
pub fn padded(lo: f64, hi: f64, below: f64, above: f64) -> (f64, f64) {
    if !(lo.is_finite() && hi.is_finite()) {
        return (0.0, 1.0);
    }
    let span = hi - lo;
    if span.abs() <= 1e-9 * lo.abs().max(hi.abs()).max(1.0) {
        // One value: a unit (or its own size) either side, not a microscopic range.
        let half = lo.abs().max(1.0);
        return (lo - half, hi + half);
    }
    (lo - below * span, hi + above * span)
}

/// The width the y tick labels of `lo..hi` need, plus room for the axis description.
pub(super) fn y_label_area(lo: f64, hi: f64, label: impl Fn(f64) -> String) -> u32 {
    let widest = (0..=10)
        .map(|i| lo + (hi - lo) * f64::from(i) / 10.0)
        .map(|v| text_width(&label(v), LABEL_SIZE))
        .fold(0.0, f64::max);
    (widest + DESC_SIZE + 24.0).ceil() as u32
}

/// The description of an axis cut to `width` pixels.
pub(super) fn axis_desc(desc: &str, width: f64) -> String {
    truncate(desc, DESC_SIZE, width)
}

/// Places labels beside points without overlapping each other, the points themselves, or
/// the plot's edges: for each `(label, centre, radius)` in turn, the first free spot of
/// right, left, above, below; labels with no free spot are left out.
pub(super) fn place_labels(
    plot: Rect,
    points: &[(String, (f64, f64), f64)],
) -> Vec<(String, (i32, i32))> {
    let h = LABEL_SIZE * 1.25;
    let mut taken: Vec<Rect> = points
        .iter()
        .map(|(_, (x, y), r)| Rect {
            x0: x - r,
            y0: y - r,
            x1: x + r,
            y1: y + r,
        })
        .collect();
    let mut out = Vec::new();
    for (label, (x, y), r) in points {
        let w = text_width(label, LABEL_SIZE);
        let gap = 4.0;
        let spots = [
            (x + r + gap, y - h / 2.0),
            (x - r - gap - w, y - h / 2.0),
            (x - w / 2.0, y - r - gap - h),
            (x - w / 2.0, y + r + gap),
        ];
        let free = spots.into_iter().map(|(x0, y0)| Rect {
            x0,
            y0,
            x1: x0 + w,
            y1: y0 + h,
        });
        if let Some(spot) = free
            .into_iter()
            .find(|s| plot.contains(s) && !taken.iter().any(|t| t.overlaps(s)))
        {
            taken.push(spot);
            out.push((label.clone(), (spot.x0 as i32, spot.y0 as i32)));
        }
    }
    out
}

/// The pixel rectangle of a chart's plotting area.
pub(super) fn plot_rect(x: std::ops::Range<i32>, y: std::ops::Range<i32>) -> Rect {
    Rect {
        x0: f64::from(x.start),
        y0: f64::from(y.start),
        x1: f64::from(x.end),
        y1: f64::from(y.end),
    }
}

/// A chart's drawing context: its data coordinates on the SVG canvas.
pub(super) type Chart<'a, 'b> =
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// The whole canvas, in pixels.
pub(super) type Root<'b> = DrawingArea<SVGBackend<'b>, Shift>;

/// What a chart's frame draws around its data.
pub(super) struct Axes<'a> {
    /// The x range, as drawn.
    pub(super) x: (f64, f64),
    /// The y range.
    pub(super) y: (f64, f64),
    /// The x axis description.
    pub(super) x_desc: String,
    /// The y axis description.
    pub(super) y_desc: String,
    /// Tick labels of x at a drawn position; `None`: a categorical axis, whose names the
    /// chart draws itself (no x ticks, no x grid lines).
    pub(super) x_ticks: Option<&'a dyn Fn(f64) -> String>,
    /// Height of the x label area.
    pub(super) x_area: u32,
    /// Width of the y label area.
    pub(super) y_area: u32,
    /// Space right of the plot, before the legend.
    pub(super) right: u32,
}

/// What a chart's body returns: a drawing error of any kind.
pub(super) type Drawn = Result<(), Box<dyn std::error::Error>>;

/// Draws the frame every chart shares (title, SIMULATION line, legend panel, axes with
/// their grid and ticks), then `body` on the data area, and writes the SVG and its PNG.
pub(super) fn draw(
    path: &std::path::Path,
    caption: &Caption,
    entries: &[Entry],
    axes: Axes<'_>,
    body: impl FnOnce(&mut Chart<'_, '_>, &Root<'_>) -> Drawn,
) -> Result<(), super::PlotError> {
    let err = |e: &dyn std::fmt::Display| super::plot_error(path, e);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, super::HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let top = header(&root, caption).map_err(|e| err(&e))?;
        let (_, below) = root.split_vertically(top as u32);
        let lw = legend_width(entries);
        let (plot_area, legend_area) = below.split_horizontally(WIDTH - lw as u32);
        let plot_width = f64::from(WIDTH) - lw - 2.0 * MARGIN;
        let mut chart = ChartBuilder::on(&plot_area)
            .margin_left(MARGIN as u32)
            .margin_right(axes.right)
            .margin_bottom(MARGIN as u32)
            .x_label_area_size(axes.x_area)
            .y_label_area_size(axes.y_area)
            .build_cartesian_2d(axes.x.0..axes.x.1, axes.y.0..axes.y.1)
            .map_err(|e| err(&e))?;
        let y_ticks = |v: &f64| tick_label(*v);
        let x_ticks = |v: &f64| axes.x_ticks.map_or(String::new(), |f| f(*v));
        let x_desc = axis_desc(&axes.x_desc, plot_width);
        let y_desc = axis_desc(&axes.y_desc, f64::from(super::HEIGHT) - top);
        let mut mesh = chart.configure_mesh();
        mesh.light_line_style(TRANSPARENT)
            .bold_line_style(BLACK.mix(0.1))
            .x_desc(x_desc)
            .y_desc(y_desc)
            .x_label_formatter(&x_ticks)
            .y_label_formatter(&y_ticks)
            .label_style(font(LABEL_SIZE, Pos::new(HPos::Center, VPos::Top)))
            .axis_desc_style(font(DESC_SIZE, Pos::new(HPos::Center, VPos::Top)));
        if axes.x_ticks.is_none() {
            mesh.disable_x_mesh().x_labels(0);
        }
        mesh.draw().map_err(|e| err(&e))?;
        body(&mut chart, &root).map_err(|e| err(&e))?;
        legend(&legend_area, 8.0, entries).map_err(|e| err(&e))?;
        root.present().map_err(|e| err(&e))?;
    }
    super::write_both(path, &svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_never_overlap_and_stay_in_the_plot() {
        let plot = Rect {
            x0: 0.0,
            y0: 0.0,
            x1: 400.0,
            y1: 300.0,
        };
        let points: Vec<(String, (f64, f64), f64)> = (0..12)
            .map(|i| (format!("policy {i}"), (200.0 + f64::from(i), 150.0), 8.0))
            .collect();
        let placed = place_labels(plot, &points);
        assert!(!placed.is_empty() && placed.len() < points.len());
        let rects: Vec<Rect> = placed
            .iter()
            .map(|(l, (x, y))| Rect {
                x0: f64::from(*x),
                y0: f64::from(*y),
                x1: f64::from(*x) + text_width(l, LABEL_SIZE),
                y1: f64::from(*y) + LABEL_SIZE * 1.25,
            })
            .collect();
        for (i, a) in rects.iter().enumerate() {
            assert!(plot.contains(a));
            for b in &rects[i + 1..] {
                assert!(!a.overlaps(b), "{a:?} {b:?}");
            }
        }
        assert!(Scale::of([10.0, 5000.0].into_iter()).log);
        let symlog = Scale::of([0.0, 10.0, 5000.0].into_iter());
        assert!(symlog.log && symlog.zero);
        assert_eq!(
            (symlog.to(0.0), symlog.to(1.0), symlog.to(1000.0)),
            (0.0, 1.0, 4.0)
        );
        assert_eq!(symlog.label(5.0), "10k");
        assert!(!Scale::of([0.0, 50.0].into_iter()).log);
        assert!(!Scale::of([0.0, 900.0, 5000.0].into_iter()).log);
        assert!(!Scale::of([-1.0, 0.0, 5000.0].into_iter()).log);
        assert!(!Scale::of([10.0, 900.0].into_iter()).log);
        let log = Scale {
            log: true,
            zero: false,
        };
        assert_eq!(log.label(4.0), "10k");
    }
}
