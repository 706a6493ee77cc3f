//! Property tests under random action sequences: no overlap, agents conserved until they
//! escape, scores never decrease.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;

use colony_env_api::Environment;
use colony_swarmbench::{Config, SwarmEnv, Task};
use proptest::prelude::*;

fn check_invariants(e: &SwarmEnv) -> Result<(), TestCaseError> {
    let w = e.world();
    // No overlap: the drawn cells equal the on-map cells of present objects, all distinct.
    let mut seen = std::collections::BTreeSet::new();
    for m in w.meshes.iter().filter(|m| m.present) {
        for (c, ch) in m.abs_cells() {
            if w.on_map(c) {
                prop_assert!(seen.insert(c), "two objects on {:?}", c);
                prop_assert_eq!(w.symbol(c), ch);
            }
        }
    }
    let drawn = w
        .grid_rows()
        .iter()
        .map(|r| r.chars().filter(|&c| c != '.').count())
        .sum::<usize>();
    prop_assert_eq!(drawn, seen.len());
    // Agents are conserved: on the map, or escaped (off the map).
    for i in 0..e.num_agents() {
        let on = w.on_map(e.agent_pos(i));
        prop_assert_eq!(on, !e.is_escaped(i));
        if on {
            prop_assert!(matches!(w.symbol(e.agent_pos(i)), 'A' | 'a'));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]
    #[test]
    fn random_rollouts_keep_invariants(
        task in 0usize..5,
        seed in 0u64..1000,
        agents in 3usize..16,
        size in 8i32..14,
        moves in proptest::collection::vec(0u8..6, 60..200),
    ) {
        let task = Task::ALL[task];
        let mut e = SwarmEnv::new(Config { task, agents, height: size, width: size, max_round: 40, ..Config::default() }).unwrap();
        e.reset(seed);
        check_invariants(&e)?;
        let names = e.agents();
        let mut k = 0;
        let mut score = e.score();
        for _ in 0..40 {
            let actions: BTreeMap<_, _> = names.iter().map(|n| {
                k += 1;
                (n.clone(), e.random_action(n, u64::from(moves[k % moves.len()]) + k as u64))
            }).collect();
            let r = e.step(&actions);
            check_invariants(&e)?;
            prop_assert!(e.score() >= score, "score decreased");
            score = e.score();
            if r.terminated || r.truncated { break; }
        }
    }
}
