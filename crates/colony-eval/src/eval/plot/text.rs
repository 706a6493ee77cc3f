//! Text in plots: the font compiled into colony, its measured widths, and the layout helpers
//! that keep text inside the canvas and apart.
//!
//! Decisions:
//! - DejaVu Sans is compiled in (`assets/fonts`, Bitstream Vera licence): the PNG copies are
//!   rendered with it whatever fonts the machine has, and widths are measured from its real
//!   advances, so a title is wrapped and a label moved by what it will occupy. The SVGs name
//!   it first (`DejaVu Sans, sans-serif`), so a viewer without it substitutes a sans-serif
//!   font of similar or smaller width.
//! - Tick labels are short and human: `10k`, `1.5M`, `0.25`, never `12000000.0`.

use std::sync::OnceLock;

/// The font file every plot is measured and rendered with.
pub(super) const FONT: &[u8] = include_bytes!("../../../../../assets/fonts/DejaVuSans.ttf");

/// The family name plots ask for (the compiled-in font's), with a generic fallback.
pub(super) const FAMILY: &str = "DejaVu Sans";

/// Advance widths per character in font units, and units per em.
struct Metrics {
    face: Option<ttf_parser::Face<'static>>,
}

fn metrics() -> &'static Metrics {
    static M: OnceLock<Metrics> = OnceLock::new();
    M.get_or_init(|| Metrics {
        face: ttf_parser::Face::parse(FONT, 0).ok(),
    })
}

/// The width in pixels of `text` at `size` pixels, from the font's advances (0.6 em per
/// character for glyphs it lacks).
pub(super) fn text_width(text: &str, size: f64) -> f64 {
    let Some(face) = &metrics().face else {
        return text.chars().count() as f64 * 0.6 * size;
    };
    let em = f64::from(face.units_per_em());
    text.chars()
        .map(|c| {
            face.glyph_index(c)
                .and_then(|g| face.glyph_hor_advance(g))
                .map_or(0.6 * em, f64::from)
        })
        .sum::<f64>()
        * size
        / em
}

/// `text` broken at spaces into lines at most `max_width` pixels wide at `size` (a word
/// longer than the width is cut with an ellipsis).
pub(super) fn wrap(text: &str, size: f64, max_width: f64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let candidate = if line.is_empty() {
            word.to_string()
        } else {
            format!("{line} {word}")
        };
        if text_width(&candidate, size) <= max_width || line.is_empty() {
            line = candidate;
        } else {
            lines.push(std::mem::take(&mut line));
            line = word.to_string();
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
        .into_iter()
        .map(|l| truncate(&l, size, max_width))
        .collect()
}

/// `text` cut to fit `max_width` pixels at `size`, ending with "…" when cut.
pub(super) fn truncate(text: &str, size: f64, max_width: f64) -> String {
    if text_width(text, size) <= max_width {
        return text.to_string();
    }
    let mut out: String = String::new();
    for c in text.chars() {
        let next = format!("{out}{c}…");
        if text_width(&next, size) > max_width {
            break;
        }
        out.push(c);
    }
    format!("{out}…")
}

/// A short, human tick label: `0`, `0.25`, `12.5`, `350`, `10k`, `1.5M`, `2G`, `1e-4`.
pub fn tick_label(v: f64) -> String {
    if !v.is_finite() {
        return String::new();
    }
    // Ticks a rounding error away from zero (1e-17 on a 0..1 axis) read as 0.
    if v.abs() < 1e-12 {
        return "0".into();
    }
    let a = v.abs();
    let sign = if v < 0.0 { "-" } else { "" };
    for (scale, unit) in [(1e9, "G"), (1e6, "M"), (1e3, "k")] {
        if a >= scale {
            return format!("{sign}{}{unit}", short(a / scale));
        }
    }
    if a < 0.01 {
        return format!("{v:.0e}");
    }
    format!("{sign}{}", short(a))
}

/// Three significant digits at most, trailing zeros dropped.
fn short(x: f64) -> String {
    let digits = if x >= 100.0 {
        0
    } else if x >= 10.0 {
        1
    } else {
        2
    };
    let s = format!("{x:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// An axis-aligned rectangle in pixels: left, top, right, bottom.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Rect {
    pub(super) x0: f64,
    pub(super) y0: f64,
    pub(super) x1: f64,
    pub(super) y1: f64,
}

impl Rect {
    /// Whether the two overlap (touching edges do not).
    pub(super) fn overlaps(&self, o: &Rect) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }

    /// Whether `o` lies inside this one.
    pub(super) fn contains(&self, o: &Rect) -> bool {
        o.x0 >= self.x0 && o.x1 <= self.x1 && o.y0 >= self.y0 && o.y1 <= self.y1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_short_and_widths_come_from_the_font() {
        let cases = [
            (12_000_000.0, "12M"),
            (10_000.0, "10k"),
            (1_500_000.0, "1.5M"),
            (350.0, "350"),
            (0.25, "0.25"),
            (12.5, "12.5"),
            (-2000.0, "-2k"),
            (0.0, "0"),
            (3.16227766e3, "3.16k"),
        ];
        for (v, want) in cases {
            assert_eq!(tick_label(v), want, "{v}");
        }
        assert!(text_width("WWW", 14.0) > text_width("iii", 14.0));
        let w = text_width("Score per policy", 20.0);
        assert!((100.0..250.0).contains(&w), "{w}");
    }

    #[test]
    fn wrapping_and_truncation_fit_the_width() {
        let title = "Score per policy, mean and 95% interval over seeds — wildfire-v0 — model smollm2 [SIMULATION]";
        let lines = wrap(title, 18.0, 300.0);
        assert!(lines.len() >= 2);
        assert!(
            lines.iter().all(|l| text_width(l, 18.0) <= 300.0),
            "{lines:?}"
        );
        let cut = truncate("self_consistency:k=5,label=very-long-name", 12.0, 80.0);
        assert!(
            cut.ends_with('…') && text_width(&cut, 12.0) <= 80.0,
            "{cut}"
        );
    }
}
