//! The "did you mean" hint of every typo colony reports (a policy option, an environment
//! setting): the closest known name within two edits, shorter than the distance itself.

/// The name of `known` closest to `given` by edit distance, when it is at most 2 edits away
/// and fewer edits than its own length (so `x` suggests nothing); ties go to the first.
pub fn closest<'a>(given: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    known
        .into_iter()
        .map(|k| (edit_distance(given, k), k))
        .filter(|(d, k)| *d <= 2 && *d < k.len())
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Levenshtein distance of two names (`usize::MAX` past 64 characters: not a typo).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.len() > 64 || b.len() > 64 {
        return usize::MAX;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_closest_name_within_two_edits() {
        assert_eq!(
            closest("max_rond", ["size", "max_round"]),
            Some("max_round")
        );
        assert_eq!(closest("nn", ["n", "grid_size"]), None);
        assert_eq!(closest("agnets", ["agents", "view"]), Some("agents"));
        assert_eq!(closest("zzzzzz", ["agents"]), None);
    }
}
