//! The bubble chart (eval's accuracy against tokens per query, bubble size from calls).

use std::path::Path;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::frame::{
    color, dots, draw, font, padded, place_labels, plot_rect, y_label_area, Axes, Scale, DESC_SIZE,
    LABEL_SIZE,
};
use super::{Bubble, Caption, PlotError};

/// The smallest and largest finite value of `values`.
fn extent(values: impl Iterator<Item = f64>) -> (f64, f64) {
    values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        })
}

/// Draws a bubble chart to `path` (SVG) and its PNG copy; the y axis stays within
/// `y_limits` when given (`Some((0.0, 100.0))` for a percentage).
pub fn bubble_chart(
    path: &Path,
    caption: &Caption,
    x_label: &str,
    y_label: &str,
    y_limits: Option<(f64, f64)>,
    bubbles: &[Bubble],
) -> Result<(), PlotError> {
    let xs = Scale::of(bubbles.iter().map(|b| b.x));
    let (x0, x1) = extent(bubbles.iter().map(|b| xs.to(b.x)));
    let x = if xs.zero {
        // Symlog token axes start at zero too: no negative token counts on the axis.
        (0.0, padded(0.0, x1, 0.0, 0.12).1)
    } else if xs.log {
        padded(x0, x1, 0.12, 0.12)
    } else {
        // Linear token axes start at zero, as the paper's figure does.
        let (_, hi) = padded(x0.min(0.0), x1, 0.0, 0.12);
        (x0.min(0.0), hi)
    };
    let (y0, y1) = extent(bubbles.iter().flat_map(|b| {
        let [lo, hi] = b.interval.unwrap_or([b.y, b.y]);
        [b.y, lo, hi]
    }));
    let y = padded(y0, y1, 0.15, 0.15);
    let y = match y_limits {
        // A percentage axis ends at 100% (and starts at 0) however close the values come.
        Some((lo, hi)) if lo < hi => (y.0.max(lo), y.1.min(hi)),
        _ => y,
    };
    let entries = dots(bubbles.iter().map(|b| &b.label));
    let ticks = |v: f64| xs.label(v);
    let axes = Axes {
        x,
        y,
        x_desc: xs.describe(x_label),
        y_desc: y_label.to_string(),
        x_ticks: Some(&ticks),
        x_area: (2.0 * LABEL_SIZE + DESC_SIZE + 16.0) as u32,
        y_area: y_label_area(y.0, y.1, super::tick_label),
        right: 28,
    };
    draw(path, caption, &entries, axes, |chart, root| {
        for (i, b) in bubbles.iter().enumerate() {
            let at = (xs.to(b.x), b.y);
            if let Some([lo, hi]) = b.interval.filter(|[lo, hi]| hi > lo) {
                let style = ShapeStyle::from(&BLACK.mix(0.6)).stroke_width(1);
                chart.draw_series([PathElement::new(vec![(at.0, lo), (at.0, hi)], style)])?;
                for end in [lo, hi] {
                    chart.draw_series(std::iter::once(
                        EmptyElement::at((at.0, end))
                            + PathElement::new(vec![(-5, 0), (5, 0)], style),
                    ))?;
                }
            }
            chart.draw_series(std::iter::once(Circle::new(
                at,
                b.radius,
                color(i).mix(0.55).filled(),
            )))?;
        }
        let (px, py) = chart.plotting_area().get_pixel_range();
        let points: Vec<(String, (f64, f64), f64)> = bubbles
            .iter()
            .map(|b| {
                let (cx, cy) = chart.backend_coord(&(xs.to(b.x), b.y));
                (
                    b.label.clone(),
                    (f64::from(cx), f64::from(cy)),
                    f64::from(b.radius),
                )
            })
            .collect();
        for (label, at) in place_labels(plot_rect(px, py), &points) {
            root.draw(&Text::new(
                label,
                at,
                font(LABEL_SIZE, Pos::new(HPos::Left, VPos::Top)),
            ))?;
        }
        Ok(())
    })
}
