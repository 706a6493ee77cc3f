//! Charts of results, each written as SVG and PNG: bubble, line and
//! error-bar charts drawn from plain points, so every report (eval's accuracy-vs-tokens,
//! compare's score plots, the simulation studies) shares one drawing code.
//!
//! Decisions:
//! - Every chart has the same frame ([`frame`]): the title wrapped to the canvas width, a red
//!   SIMULATION line under it when the figures come from the offline simulated model, the
//!   legend in a panel of its own right of the data (never over it), axis labels sized from
//!   their measured text.
//! - An axis whose values span more than two orders of magnitude is drawn on a log scale,
//!   with human ticks (`10k`, `1M`), and says so in its description; with zeros among them
//!   (a scripted policy's tokens) it is symlog: linear from 0 to 1, log above.
//! - A range of equal values is widened to a unit either side, so its ticks still say
//!   something ([`padded`]); a percentage axis never passes 0 or 100 ([`bubble_chart`]'s
//!   `y_limits`).
//! - Titles name the configuration (`cube-v0, n=4`), not only the environment.
//! - Policies sit on a categorical axis, named under their column.
//! - Point labels are placed beside their point where they overlap nothing; otherwise they
//!   are left out, and the legend still names every series.
//! - The PNG is the SVG rendered with the compiled-in font ([`text::FONT`]), so both show
//!   the same drawing on any machine.
//! - Both files are written atomically (temporary file, then rename).

mod bubble;
mod error_bars;
mod frame;
mod line;
mod text;

use std::path::{Path, PathBuf};

use thiserror::Error;

pub use bubble::bubble_chart;
pub use error_bars::error_bar_chart;
pub use frame::padded;
pub use line::{line_chart, line_chart_with_bands};
pub use text::tick_label;

/// Canvas width in pixels.
pub const WIDTH: u32 = 960;
/// Canvas height in pixels.
pub const HEIGHT: u32 = 600;

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

/// What a chart says above its data: its title and whether its figures are simulated.
#[derive(Debug, Clone, PartialEq)]
pub struct Caption {
    /// The title (wrapped to the canvas width when long).
    pub title: String,
    /// The figures come from the offline simulated model: the chart says SIMULATION.
    pub simulated: bool,
}

impl Caption {
    /// A caption.
    pub fn new(title: impl Into<String>, simulated: bool) -> Self {
        Self {
            title: title.into(),
            simulated,
        }
    }
}

/// One labelled bubble: position, radius in pixels, and an optional interval on y.
#[derive(Debug, Clone, PartialEq)]
pub struct Bubble {
    /// Label drawn next to the bubble (when there is room) and in the legend.
    pub label: String,
    /// x value.
    pub x: f64,
    /// y value.
    pub y: f64,
    /// Radius in pixels.
    pub radius: u32,
    /// An interval around `y` (e.g. a 95% confidence interval), drawn as an error bar.
    pub interval: Option<[f64; 2]>,
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

/// A shaded band around the line of the same index: `(x, lo, hi)` in x order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Band {
    /// The band's ends at each x.
    pub points: Vec<(f64, f64, f64)>,
}

/// One column of an error-bar chart: label, mean and the ends of its error bar.
#[derive(Debug, Clone, PartialEq)]
pub struct MeanBar {
    /// The category (policy) under the column.
    pub label: String,
    /// The mean.
    pub mean: f64,
    /// Lower end of the error bar.
    pub lo: f64,
    /// Upper end of the error bar.
    pub hi: f64,
}

/// The PNG written beside `svg`.
pub fn png_path(svg: &Path) -> PathBuf {
    svg.with_extension("png")
}

/// Writes `svg` to `path` and its rendering to [`png_path`], each atomically.
fn write_both(path: &Path, svg: &str) -> Result<(), PlotError> {
    // Name the compiled-in font first, with a generic fallback for viewers without it.
    let svg = svg.replace(
        &format!("font-family=\"{}\"", text::FAMILY),
        &format!("font-family=\"{}, sans-serif\"", text::FAMILY),
    );
    crate::eval::results::write_atomic(path, svg.as_bytes()).map_err(|e| plot_error(path, e))?;
    let png = render_png(&svg).map_err(|e| plot_error(path, e))?;
    let png_file = png_path(path);
    crate::eval::results::write_atomic(&png_file, &png).map_err(|e| plot_error(&png_file, e))
}

/// The PNG rendering of `svg` on a white canvas, with the compiled-in font.
fn render_png(svg: &str) -> Result<Vec<u8>, String> {
    use resvg::{tiny_skia, usvg};
    let mut options = usvg::Options::default();
    options.fontdb_mut().load_font_data(text::FONT.to_vec());
    options.fontdb_mut().set_sans_serif_family(text::FAMILY);
    let tree = usvg::Tree::from_str(svg, &options).map_err(|e| e.to_string())?;
    let mut pixmap = tiny_skia::Pixmap::new(WIDTH, HEIGHT).ok_or("empty canvas")?;
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(&tree, tiny_skia::Transform::default(), &mut pixmap.as_mut());
    pixmap.encode_png().map_err(|e| e.to_string())
}
