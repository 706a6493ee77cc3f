//! The line chart (compare's score against tokens and per step, the grid plots, the
//! simulation studies' curves).

use std::path::Path;

use plotters::prelude::*;

use super::frame::{
    color, draw, padded, y_label_area, Axes, Entry, Mark, Scale, DESC_SIZE, LABEL_SIZE,
};
use super::{Band, Caption, Line, PlotError};

/// Draws a line chart with its legend beside the data to `path` (SVG) and its PNG copy; the
/// y axis spans `y_range`, the x axis the points (on a log scale when they span more than
/// two orders of magnitude).
pub fn line_chart(
    path: &Path,
    caption: &Caption,
    x_label: &str,
    y_label: &str,
    y_range: (f64, f64),
    lines: &[Line],
) -> Result<(), PlotError> {
    line_chart_with_bands(path, caption, x_label, y_label, y_range, lines, &[])
}

/// [`line_chart`] with a shaded band behind each line (`bands[i]` behind `lines[i]`, in its
/// colour), e.g. mean ± sd over seeds.
pub fn line_chart_with_bands(
    path: &Path,
    caption: &Caption,
    x_label: &str,
    y_label: &str,
    y_range: (f64, f64),
    lines: &[Line],
    bands: &[Band],
) -> Result<(), PlotError> {
    let xs = Scale::of(lines.iter().flat_map(|l| l.points.iter().map(|p| p.0)));
    let (x0, x1) = lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| xs.to(p.0)))
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    let x = if xs.zero {
        (0.0, padded(0.0, x1, 0.0, 0.03).1)
    } else if x0.is_finite() && x1 > x0 {
        padded(x0, x1, 0.03, 0.03)
    } else {
        padded(x0, x1, 0.5, 0.5)
    };
    let (y0, y1) = if y_range.0.is_finite() && y_range.1 > y_range.0 {
        y_range
    } else {
        (0.0, 1.0)
    };
    let entries: Vec<Entry> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| Entry {
            name: l.name.clone(),
            color: color(i),
            mark: if l.markers_only {
                Mark::Cross
            } else {
                Mark::Stroke
            },
        })
        .collect();
    let ticks = |v: f64| xs.label(v);
    let axes = Axes {
        x,
        y: (y0, y1),
        x_desc: xs.describe(x_label),
        y_desc: y_label.to_string(),
        x_ticks: Some(&ticks),
        x_area: (2.0 * LABEL_SIZE + DESC_SIZE + 16.0) as u32,
        y_area: y_label_area(y0, y1, super::tick_label),
        right: 28,
    };
    draw(path, caption, &entries, axes, |chart, _| {
        for (i, band) in bands.iter().enumerate() {
            // Clipped to the y range so the shading never leaves the plot.
            let clip = |v: f64| v.clamp(y0, y1);
            let upper = band.points.iter().map(|p| (xs.to(p.0), clip(p.2)));
            let lower = band.points.iter().rev().map(|p| (xs.to(p.0), clip(p.1)));
            let outline: Vec<(f64, f64)> = upper
                .chain(lower)
                .filter(|p| p.0.is_finite() && p.1.is_finite())
                .collect();
            if outline.len() >= 3 {
                chart.draw_series(std::iter::once(Polygon::new(
                    outline,
                    color(i).mix(0.15).filled(),
                )))?;
            }
        }
        for (i, line) in lines.iter().enumerate() {
            let style = ShapeStyle::from(&color(i)).stroke_width(2);
            // Points outside the y range are left out rather than drawn over the frame.
            let points: Vec<(f64, f64)> = line
                .points
                .iter()
                .filter(|p| p.0.is_finite() && p.1.is_finite() && p.1 >= y0 && p.1 <= y1)
                .map(|p| (xs.to(p.0), p.1))
                .collect();
            if line.markers_only || points.len() < 2 {
                chart.draw_series(points.into_iter().map(|p| Cross::new(p, 5, style)))?;
            } else {
                chart.draw_series(LineSeries::new(points, style))?;
            }
        }
        Ok(())
    })
}
