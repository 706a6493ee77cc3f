//! The error-bar chart: one column per policy on a categorical axis, the mean as a dot and
//! its interval as a bar.

use std::path::Path;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::frame::{
    color, dots, draw, font, legend_width, padded, y_label_area, Axes, Entry, DESC_SIZE,
    LABEL_SIZE, MARGIN, ROW,
};
use super::text::{text_width, truncate};
use super::{Caption, MeanBar, PlotError, WIDTH};

/// Draws each bar's mean with its error bar, one named column per entry, to `path` (SVG)
/// and its PNG copy. Names that do not fit under their column alternate between two rows;
/// names cut even then are listed whole in a legend.
pub fn error_bar_chart(
    path: &Path,
    caption: &Caption,
    y_label: &str,
    bars: &[MeanBar],
) -> Result<(), PlotError> {
    let (lo, hi) = bars
        .iter()
        .flat_map(|b| [b.mean, b.lo, b.hi])
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    let (y0, y1) = padded(lo.min(0.0), hi.max(0.0), 0.08, 0.12);
    let n = bars.len().max(1);
    // Decide the category labels first: they size the bottom axis and the legend. The slot
    // is reckoned with the legend panel in place, so a name that fits then fits without it.
    let ya = y_label_area(y0, y1, super::tick_label);
    let all = dots(bars.iter().map(|b| &b.label));
    let narrowest = f64::from(WIDTH) - legend_width(&all) - 2.0 * MARGIN - f64::from(ya);
    let slot = narrowest / n as f64;
    let fits_one_row = bars
        .iter()
        .all(|b| text_width(&b.label, LABEL_SIZE) <= slot - 6.0);
    let rows = if fits_one_row { 1 } else { 2 };
    let room = if fits_one_row {
        slot - 6.0
    } else {
        2.0 * slot - 8.0
    };
    let names: Vec<String> = bars
        .iter()
        .map(|b| truncate(&b.label, LABEL_SIZE, room))
        .collect();
    let cut = names.iter().zip(bars).any(|(n, b)| *n != b.label);
    let entries: Vec<Entry> = if cut { all } else { Vec::new() };
    let axes = Axes {
        x: (-0.5, n as f64 - 0.5),
        y: (y0, y1),
        x_desc: "policy".into(),
        y_desc: y_label.to_string(),
        x_ticks: None,
        x_area: (rows as f64 * ROW + DESC_SIZE + 20.0) as u32,
        y_area: ya,
        right: MARGIN as u32,
    };
    draw(path, caption, &entries, axes, |chart, root| {
        for (i, b) in bars.iter().enumerate() {
            let x = i as f64;
            let style = ShapeStyle::from(&color(i)).stroke_width(2);
            // A zero-length bar is not drawn (nothing to show, and a renderer cannot stroke it).
            if b.lo.is_finite() && b.hi.is_finite() && b.hi > b.lo {
                chart.draw_series([PathElement::new(vec![(x, b.lo), (x, b.hi)], style)])?;
                for end in [b.lo, b.hi] {
                    chart.draw_series(std::iter::once(
                        EmptyElement::at((x, end)) + PathElement::new(vec![(-8, 0), (8, 0)], style),
                    ))?;
                }
            }
            if b.mean.is_finite() {
                chart.draw_series(std::iter::once(Circle::new((x, b.mean), 6, style.filled())))?;
            }
        }
        let (_, py) = chart.plotting_area().get_pixel_range();
        for (i, name) in names.iter().enumerate() {
            let (cx, _) = chart.backend_coord(&(i as f64, y0));
            let row = if rows == 2 { i % 2 } else { 0 };
            let y = py.end + 6 + (row as f64 * ROW) as i32;
            root.draw(&Text::new(
                name.clone(),
                (cx, y),
                font(LABEL_SIZE, Pos::new(HPos::Center, VPos::Top)),
            ))?;
        }
        Ok(())
    })
}
