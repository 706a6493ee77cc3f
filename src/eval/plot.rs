//! SVG charts of results (plotters' SVG backend; no font files needed): bubble, line and
//! error-bar charts, drawn from plain points so every report (eval's accuracy-vs-tokens,
//! compare's score plots, the simulation studies) shares one drawing code.

use std::path::Path;

use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use thiserror::Error;

/// A chart could not be drawn or written.
#[derive(Debug, Error)]
#[error("plot {path}: {message}")]
pub struct PlotError {
    /// Output file.
    pub path: String,
    /// What failed.
    pub message: String,
}

fn plot_error(path: &Path, e: impl std::fmt::Display) -> PlotError {
    PlotError {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// One labelled bubble: position and radius in pixels.
#[derive(Debug, Clone, PartialEq)]
pub struct Bubble {
    /// Label drawn next to the bubble.
    pub label: String,
    /// x value.
    pub x: f64,
    /// y value.
    pub y: f64,
    /// Radius in pixels.
    pub radius: u32,
}

/// One named line of a line chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// Legend entry.
    pub name: String,
    /// Points, in x order.
    pub points: Vec<(f64, f64)>,
    /// Markers only (no connecting line), e.g. Monte-Carlo estimates over a closed form.
    pub markers_only: bool,
}

/// Axis range with a margin, never empty.
fn padded(lo: f64, hi: f64, floor_zero: bool) -> (f64, f64) {
    let span = (hi - lo).abs().max(1e-9);
    let lo = if floor_zero { 0.0 } else { lo - 0.1 * span };
    (lo, hi + 0.15 * span)
}

/// The chart area of both chart kinds: white background, caption, labelled mesh.
fn axes<'a, 'b>(
    root: &'a DrawingArea<SVGBackend<'b>, plotters::coord::Shift>,
    title: &str,
    (x_label, y_label): (&str, &str),
    x: std::ops::Range<f64>,
    y: std::ops::Range<f64>,
) -> Result<
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    DrawingAreaErrorKind<std::io::Error>,
> {
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 20))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(56)
        .build_cartesian_2d(x, y)?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .draw()?;
    Ok(chart)
}

/// Draws a bubble chart to an SVG file.
pub fn bubble_chart(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    bubbles: &[Bubble],
) -> Result<(), PlotError> {
    let (xmin, xmax) = bubbles
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
            (a.min(p.x), b.max(p.x))
        });
    let (ymin, ymax) = bubbles
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
            (a.min(p.y), b.max(p.y))
        });
    let (xmin, xmax) = if bubbles.is_empty() {
        (0.0, 1.0)
    } else {
        padded(xmin, xmax, true)
    };
    let (ymin, ymax) = if bubbles.is_empty() {
        (0.0, 1.0)
    } else {
        padded(ymin, ymax, false)
    };
    let root = SVGBackend::new(path, (800, 560)).into_drawing_area();
    let err = |e: &dyn std::fmt::Display| plot_error(path, e);
    let mut chart =
        axes(&root, title, (x_label, y_label), xmin..xmax, ymin..ymax).map_err(|e| err(&e))?;
    for (i, b) in bubbles.iter().enumerate() {
        let color = Palette99::pick(i).mix(0.6);
        chart
            .draw_series(std::iter::once(Circle::new(
                (b.x, b.y),
                b.radius,
                color.filled(),
            )))
            .map_err(|e| err(&e))?;
        chart
            .draw_series(std::iter::once(Text::new(
                b.label.clone(),
                (b.x, b.y),
                ("sans-serif", 14).into_font().color(&BLACK),
            )))
            .map_err(|e| err(&e))?;
    }
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

/// Draws a line chart with a legend to an SVG file.
pub fn line_chart(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    y_range: (f64, f64),
    lines: &[Line],
) -> Result<(), PlotError> {
    let xs = lines.iter().flat_map(|l| l.points.iter().map(|p| p.0));
    let (xmin, xmax) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
        (a.min(x), b.max(x))
    });
    let (xmin, xmax) = if xmin.is_finite() {
        (xmin, xmax.max(xmin + 1e-9))
    } else {
        (0.0, 1.0)
    };
    let root = SVGBackend::new(path, (800, 560)).into_drawing_area();
    let err = |e: &dyn std::fmt::Display| plot_error(path, e);
    let mut chart = axes(
        &root,
        title,
        (x_label, y_label),
        xmin..xmax,
        y_range.0..y_range.1,
    )
    .map_err(|e| err(&e))?;
    for (i, line) in lines.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let points = line.points.clone();
        let anno = if line.markers_only {
            chart.draw_series(
                points
                    .into_iter()
                    .map(move |p| Cross::new(p, 5, color.stroke_width(2))),
            )
        } else {
            chart.draw_series(LineSeries::new(points, color.stroke_width(2)))
        }
        .map_err(|e| err(&e))?;
        anno.label(line.name.clone()).legend(move |(x, y)| {
            PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
        });
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::LowerRight)
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

/// One bar of an error-bar chart: label, mean and the half-length of its error bar.
#[derive(Debug, Clone, PartialEq)]
pub struct MeanBar {
    /// Label under the marker.
    pub label: String,
    /// The mean.
    pub mean: f64,
    /// Half-length of the error bar (e.g. one standard deviation).
    pub error: f64,
}

/// Draws means with error bars, one column per entry, to an SVG file.
pub fn error_bar_chart(
    path: &Path,
    title: &str,
    y_label: &str,
    bars: &[MeanBar],
) -> Result<(), PlotError> {
    let lo = bars
        .iter()
        .map(|b| b.mean - b.error)
        .fold(f64::INFINITY, f64::min);
    let hi = bars
        .iter()
        .map(|b| b.mean + b.error)
        .fold(f64::NEG_INFINITY, f64::max);
    let (ymin, ymax) = if lo.is_finite() && hi.is_finite() {
        padded(lo.min(0.0), hi.max(lo + 1e-9), false)
    } else {
        (0.0, 1.0)
    };
    let xmax = bars.len().max(1) as f64;
    let root = SVGBackend::new(path, (800, 560)).into_drawing_area();
    let err = |e: &dyn std::fmt::Display| plot_error(path, e);
    let mut chart = axes(
        &root,
        title,
        ("policy", y_label),
        -0.5..xmax - 0.5,
        ymin..ymax,
    )
    .map_err(|e| err(&e))?;
    for (i, b) in bars.iter().enumerate() {
        let x = i as f64;
        let color = Palette99::pick(i).to_rgba();
        chart
            .draw_series([
                PathElement::new(
                    vec![(x, b.mean - b.error), (x, b.mean + b.error)],
                    color.stroke_width(2),
                ),
                PathElement::new(
                    vec![(x - 0.1, b.mean - b.error), (x + 0.1, b.mean - b.error)],
                    color.stroke_width(2),
                ),
                PathElement::new(
                    vec![(x - 0.1, b.mean + b.error), (x + 0.1, b.mean + b.error)],
                    color.stroke_width(2),
                ),
            ])
            .map_err(|e| err(&e))?;
        chart
            .draw_series(std::iter::once(Circle::new((x, b.mean), 6, color.filled())))
            .map_err(|e| err(&e))?;
        chart
            .draw_series(std::iter::once(Text::new(
                b.label.clone(),
                (x + 0.12, b.mean),
                ("sans-serif", 14).into_font().color(&BLACK),
            )))
            .map_err(|e| err(&e))?;
    }
    root.present().map_err(|e| err(&e))?;
    Ok(())
}
