//! The bubble chart (eval's accuracy against tokens per query, bubble size from calls).

use std::path::Path;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::frame::{
    axis_desc, color, font, header, legend, legend_width, padded, place_labels, plot_rect,
    y_label_area, Entry, Mark, Scale, DESC_SIZE, LABEL_SIZE, MARGIN,
};
use super::{plot_error, write_both, Bubble, Caption, PlotError, HEIGHT, WIDTH};

/// Draws a bubble chart to `path` (SVG) and its PNG copy.
pub fn bubble_chart(
    path: &Path,
    caption: &Caption,
    x_label: &str,
    y_label: &str,
    bubbles: &[Bubble],
) -> Result<(), PlotError> {
    let err = |e: &dyn std::fmt::Display| plot_error(path, e);
    let xs = Scale::of(bubbles.iter().map(|b| b.x));
    let fold = |it: &mut dyn Iterator<Item = f64>| {
        it.filter(|v| v.is_finite())
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                (a.min(v), b.max(v))
            })
    };
    let (x0, x1) = fold(&mut bubbles.iter().map(|b| xs.to(b.x)));
    let (x0, x1) = if xs.log {
        padded(x0, x1, 0.12, 0.12)
    } else {
        // Linear token axes start at zero, as the paper's figure does.
        let (_, hi) = padded(x0.min(0.0), x1, 0.0, 0.12);
        (x0.min(0.0), hi)
    };
    let (y0, y1) = fold(&mut bubbles.iter().flat_map(|b| {
        let [lo, hi] = b.interval.unwrap_or([b.y, b.y]);
        [b.y, lo, hi]
    }));
    let (y0, y1) = padded(y0, y1, 0.15, 0.15);
    let entries: Vec<Entry> = bubbles
        .iter()
        .enumerate()
        .map(|(i, b)| Entry {
            name: b.label.clone(),
            color: color(i),
            mark: Mark::Dot,
        })
        .collect();
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
            .margin_right(28)
            .margin_bottom(MARGIN as u32)
            .x_label_area_size((2.0 * LABEL_SIZE + DESC_SIZE + 16.0) as u32)
            .y_label_area_size(y_label_area(y0, y1, super::tick_label))
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .light_line_style(TRANSPARENT)
            .bold_line_style(BLACK.mix(0.1))
            .x_desc(axis_desc(&xs.describe(x_label), plot_width))
            .y_desc(axis_desc(y_label, f64::from(HEIGHT) - top))
            .x_label_formatter(&|v| xs.label(*v))
            .y_label_formatter(&|v| super::tick_label(*v))
            .label_style(font(LABEL_SIZE, Pos::new(HPos::Center, VPos::Top)))
            .axis_desc_style(font(DESC_SIZE, Pos::new(HPos::Center, VPos::Top)))
            .draw()
            .map_err(|e| err(&e))?;
        for (i, b) in bubbles.iter().enumerate() {
            let at = (xs.to(b.x), b.y);
            if let Some([lo, hi]) = b.interval.filter(|[lo, hi]| hi > lo) {
                let style = ShapeStyle::from(&BLACK.mix(0.6)).stroke_width(1);
                chart
                    .draw_series([PathElement::new(vec![(at.0, lo), (at.0, hi)], style)])
                    .map_err(|e| err(&e))?;
                for end in [lo, hi] {
                    chart
                        .draw_series(std::iter::once(
                            EmptyElement::at((at.0, end))
                                + PathElement::new(vec![(-5, 0), (5, 0)], style),
                        ))
                        .map_err(|e| err(&e))?;
                }
            }
            chart
                .draw_series(std::iter::once(Circle::new(
                    at,
                    b.radius,
                    color(i).mix(0.55).filled(),
                )))
                .map_err(|e| err(&e))?;
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
            ))
            .map_err(|e| err(&e))?;
        }
        legend(&legend_area, 8.0, &entries).map_err(|e| err(&e))?;
        root.present().map_err(|e| err(&e))?;
    }
    write_both(path, &svg)
}
