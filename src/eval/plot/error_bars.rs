//! The error-bar chart: one column per policy on a categorical axis, the mean as a dot and
//! its interval as a bar.

use std::path::Path;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::frame::{
    axis_desc, color, font, header, legend, legend_width, padded, y_label_area, Entry, Mark,
    DESC_SIZE, LABEL_SIZE, MARGIN, ROW,
};
use super::text::{text_width, truncate};
use super::{plot_error, write_both, Caption, MeanBar, PlotError, HEIGHT, WIDTH};

/// Draws each bar's mean with its error bar, one named column per entry, to `path` (SVG)
/// and its PNG copy. Names that do not fit under their column alternate between two rows;
/// names cut even then are listed whole in a legend.
pub fn error_bar_chart(
    path: &Path,
    caption: &Caption,
    y_label: &str,
    bars: &[MeanBar],
) -> Result<(), PlotError> {
    let err = |e: &dyn std::fmt::Display| plot_error(path, e);
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
    let all: Vec<Entry> = bars
        .iter()
        .enumerate()
        .map(|(i, b)| Entry {
            name: b.label.clone(),
            color: color(i),
            mark: Mark::Dot,
        })
        .collect();
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
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let top = header(&root, caption).map_err(|e| err(&e))?;
        let (_, body) = root.split_vertically(top as u32);
        let lw = legend_width(&entries);
        let (plot_area, legend_area) = body.split_horizontally(WIDTH - lw as u32);
        let plot_width = f64::from(WIDTH) - lw - 2.0 * MARGIN;
        let mut chart = ChartBuilder::on(&plot_area)
            .margin_left(MARGIN as u32)
            .margin_right(MARGIN as u32)
            .margin_bottom(MARGIN as u32)
            .x_label_area_size((rows as f64 * ROW + DESC_SIZE + 20.0) as u32)
            .y_label_area_size(ya)
            .build_cartesian_2d(-0.5..n as f64 - 0.5, y0..y1)
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .light_line_style(TRANSPARENT)
            .bold_line_style(BLACK.mix(0.1))
            .disable_x_mesh()
            .x_labels(0)
            .x_label_formatter(&|_| String::new())
            .x_desc(axis_desc("policy", plot_width))
            .y_desc(axis_desc(y_label, f64::from(HEIGHT) - top))
            .y_label_formatter(&|v| super::tick_label(*v))
            .label_style(font(LABEL_SIZE, Pos::new(HPos::Center, VPos::Top)))
            .axis_desc_style(font(DESC_SIZE, Pos::new(HPos::Center, VPos::Top)))
            .draw()
            .map_err(|e| err(&e))?;
        for (i, b) in bars.iter().enumerate() {
            let x = i as f64;
            let style = ShapeStyle::from(&color(i)).stroke_width(2);
            // A zero-length bar is not drawn (nothing to show, and a renderer cannot stroke it).
            if b.lo.is_finite() && b.hi.is_finite() && b.hi > b.lo {
                chart
                    .draw_series([PathElement::new(vec![(x, b.lo), (x, b.hi)], style)])
                    .map_err(|e| err(&e))?;
                for end in [b.lo, b.hi] {
                    chart
                        .draw_series(std::iter::once(
                            EmptyElement::at((x, end))
                                + PathElement::new(vec![(-8, 0), (8, 0)], style),
                        ))
                        .map_err(|e| err(&e))?;
                }
            }
            if b.mean.is_finite() {
                chart
                    .draw_series(std::iter::once(Circle::new((x, b.mean), 6, style.filled())))
                    .map_err(|e| err(&e))?;
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
            ))
            .map_err(|e| err(&e))?;
        }
        legend(&legend_area, 8.0, &entries).map_err(|e| err(&e))?;
        root.present().map_err(|e| err(&e))?;
    }
    write_both(path, &svg)
}
