//! A simulated agent answering `wildfire-v0`'s three LLM prompts offline (the registry's
//! `EnvEntry::simulated_reply`, DESIGN.md's simulated model): PERCEPTION
//! (docs/design/wildfire.md §11.1), the act prompt under [`crate::llm_play::instructions`]
//! (§11.3, §14.1 tags) and EXECUTION (§11.2).
//!
//! It reads only the prompt text, as a model would: the minimap and legend of a PERCEPTION
//! prompt, the task, team and abilities of the system prompt with the perceived text, or the
//! action of an EXECUTION prompt. With probability `accuracy` (one draw) it answers as an
//! expert would, otherwise with a random legal answer. All randomness comes from `draw`
//! through [`splitmix64`], so the same prompt and draw give the same reply.

mod act;
mod act_read;
mod execute;
mod perceive;

use colony_env_api::rng::splitmix64;

use crate::config::AgentKind;
use crate::grid::Cell;
use crate::llm_play::{ABILITIES_HEADER, ACT_FORMAT};
use crate::prompts::{EXECUTION_FORMAT, LEGEND, NOTES};

/// The simulated reply to a `wildfire-v0` prompt (`system`, `user`), or `None` when the
/// prompt is not one of the three Wildfire prompts (§11.1, §11.2, act prompt). See the module
/// documentation for `accuracy` and `draw`.
pub fn simulated_reply(system: &str, user: &str, accuracy: f64, draw: u64) -> Option<String> {
    let mut rng = Rng(draw);
    let expert = rng.unit() < accuracy;
    if user.contains(EXECUTION_FORMAT) {
        return execute::reply(user, expert, &mut rng);
    }
    if user.contains(LEGEND) && user.contains(NOTES) {
        return perceive::reply(user, expert, &mut rng);
    }
    // A framework prompt's agent card (its abilities, the team and task elsewhere in the
    // prompt) is read like the act system prompt.
    if system.contains(ACT_FORMAT) || system.contains(ABILITIES_HEADER) {
        return act::reply(system, user, expert, &mut rng);
    }
    None
}

/// The simulated agent's random stream (splitmix64 on the draw).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        splitmix64(&mut self.0)
    }

    /// Uniform in `0..n` (0 when `n` is 0).
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    /// Uniform in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A uniform cell of a map whose last coordinate is `m`.
    fn cell(&mut self, m: i32) -> Cell {
        let side = (m.max(0) + 1) as usize;
        (self.below(side) as i32, self.below(side) as i32)
    }
}

/// Every `(x, y)` pair of whole numbers in `text`, in order.
fn coords(text: &str) -> Vec<Cell> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'(' {
            if let Some((c, end)) = pair_at(b, i + 1) {
                out.push(c);
                i = end;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// Parses `x, y)` starting at `i`; returns the pair and the index after `)`.
fn pair_at(b: &[u8], mut i: usize) -> Option<(Cell, usize)> {
    let mut nums = [0i32; 2];
    for (k, n) in nums.iter_mut().enumerate() {
        while b.get(i) == Some(&b' ') {
            i += 1;
        }
        let neg = b.get(i) == Some(&b'-');
        if neg {
            i += 1;
        }
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start || i - start > 9 {
            return None;
        }
        let v: i32 = std::str::from_utf8(&b[start..i]).ok()?.parse().ok()?;
        *n = if neg { -v } else { v };
        while b.get(i) == Some(&b' ') {
            i += 1;
        }
        let want = if k == 0 { b',' } else { b')' };
        if b.get(i) != Some(&want) {
            return None;
        }
        i += 1;
    }
    Some(((nums[0], nums[1]), i))
}

/// The whole number right after the first occurrence of `key` in `text`.
fn number_after(text: &str, key: &str) -> Option<i32> {
    let rest = &text[text.find(key)? + key.len()..];
    let rest = rest.trim_start();
    let end = rest
        .find(|c: char| !c.is_ascii_digit() && c != '-')
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

/// The agent kind named right after `key` (`Firefighter`, `Bulldozer`, `Drone`, `Helicopter`).
fn kind_after(text: &str, key: &str) -> Option<AgentKind> {
    let rest = &text[text.find(key)? + key.len()..];
    AgentKind::ALL
        .into_iter()
        .find(|k| rest.starts_with(k.name()))
}

/// The last map coordinate from a `x: [0, m]` range in `text`.
fn map_max(text: &str) -> Option<i32> {
    number_after(text, "x: [0,")
}

/// Compass direction of `to` seen from `from` (north is toward y = 0), or `here`.
fn direction(from: Cell, to: Cell) -> &'static str {
    let (dx, dy) = (f64::from(to.0 - from.0), f64::from(to.1 - from.1));
    if dx == 0.0 && dy == 0.0 {
        return "here";
    }
    // Angle with east = 0, counter-clockwise, north up (y grows southward).
    let angle = (-dy).atan2(dx).to_degrees();
    let sector = (((angle + 360.0 + 22.5) % 360.0) / 45.0) as usize;
    [
        "east",
        "northeast",
        "north",
        "northwest",
        "west",
        "southwest",
        "south",
        "southeast",
    ][sector.min(7)]
}

fn dist2(a: Cell, b: Cell) -> i64 {
    let (dx, dy) = (i64::from(a.0 - b.0), i64::from(a.1 - b.1));
    dx * dx + dy * dy
}

fn chebyshev(a: Cell, b: Cell) -> i32 {
    (a.0 - b.0).abs().max((a.1 - b.1).abs())
}

fn xy(c: Cell) -> String {
    format!("({}, {})", c.0, c.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_coordinates_and_numbers() {
        assert_eq!(
            coords("go (1, 2) then(30,4 ) not (a, 1) or (5, 6"),
            vec![(1, 2), (30, 4)]
        );
        assert_eq!(number_after("Water: 3/5 units", "Water:"), Some(3));
        assert_eq!(map_max("grid world (x: [0, 29], y: [0, 29])"), Some(29));
        assert_eq!(direction((5, 5), (5, 0)), "north");
        assert_eq!(direction((5, 5), (9, 9)), "southeast");
        assert_eq!(direction((5, 5), (0, 5)), "west");
    }

    #[test]
    fn foreign_prompts_get_no_reply() {
        assert_eq!(
            simulated_reply("You are a helpful assistant.", "What is 2+2?", 1.0, 3),
            None
        );
        assert_eq!(simulated_reply("", "", 0.0, 0), None);
    }
}
