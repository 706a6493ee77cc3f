//! The naive language agent's side of CUBE (docs/design/cube.md §12.2): who decides, the lenient
//! reply parser, and the simulated agent driving whole episodes through prompts only.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeMap;

use colony_cube::heuristic::heuristic_plan;
use colony_cube::llm_play::naive_agent_header;
use colony_cube::sim_agent::simulated_reply;
use colony_cube::{entry, CubeAction, CubeConfig, CubeEnv};
use colony_env_api::policy::splitmix64;
use colony_env_api::{Environment, ParsedReply};
use common::layout;

fn plan_texts(p: &ParsedReply<CubeAction>) -> Vec<String> {
    match &p.action {
        CubeAction::Plan(calls) => calls.iter().map(ToString::to_string).collect(),
        other => panic!("not a plan: {other:?}"),
    }
}

fn env(n: u32, seed: u64, max_steps: u32) -> CubeEnv {
    let mut c = CubeConfig::new(n);
    c.max_steps = max_steps;
    CubeEnv::with_seed(c, seed).unwrap()
}

/// The user message of the library's loop: observation, then the previous feedback.
fn user_prompt(env: &CubeEnv, agent: &str, feedback: Option<&str>) -> String {
    let mut user = env.observe_text(agent).unwrap();
    if let Some(f) = feedback {
        user.push_str("\n\nFeedback on your previous plan:\n");
        user.push_str(f);
    }
    user
}

#[test]
fn instructions_carry_rules_vocabulary_id_and_format() {
    let e = env(4, 1, 200);
    let text = e.instructions("2");
    assert!(text.starts_with(naive_agent_header()));
    assert!(text.contains("You are agent_2,"), "{text}");
    for needle in [
        "goal zone",
        "quorum",
        "Agent chain",
        "Block chain",
        "smallest number",
        "move_to_block(block, face, timeout=40)",
        "rendezvous(block, face, count, timeout=2K)",
        "push_block(block, steps, timeout=steps+20)",
        "yield_block(block, steps)",
        "idle(steps)",
        "wait_agents(count, timeout=2K)",
        "closest to the goal zone",
        "at most 3 actions",
    ] {
        assert!(text.contains(needle), "missing {needle:?}");
    }
    assert!(!text.contains("{agent}"));
    assert!(!text.contains("{max_actions}"));
}

#[test]
fn deciding_agents_are_those_with_exhausted_plans() {
    let mut e = layout(10, &[(0, 1, 4, 5)], &[(0, 0), (2, 0), (8, 0)]);
    assert_eq!(e.deciding_agents(), ["0", "1", "2"]);
    let mut actions = BTreeMap::new();
    actions.insert("0".to_string(), e.parse_reply("0", "idle(1)").action);
    actions.insert("1".to_string(), e.parse_reply("1", "idle(3)").action);
    e.step(&actions);
    // Agent 0's idle(1) ran in this step (it ends at the next poll); agent 2 never had a plan.
    assert_eq!(e.deciding_agents(), ["2"]);
    e.step(&BTreeMap::new());
    assert_eq!(e.deciding_agents(), ["0", "2"]);
    e.step(&BTreeMap::new());
    e.step(&BTreeMap::new());
    assert_eq!(e.deciding_agents(), ["0", "1", "2"]);
}

#[test]
fn a_bad_action_is_dropped_named_and_reported_as_fallback() {
    let e = env(2, 0, 200);
    let p = e.parse_reply(
        "0",
        r#"Going for block 1.
[{"action": "fly", "args": {"to": "goal"}}, {"action": "move", "args": {"direction": "right", "steps": 2}}]"#,
    );
    assert_eq!(plan_texts(&p), ["move(direction=right, steps=2)"]);
    let feedback = p.feedback.unwrap();
    assert!(
        feedback.contains("fly") && feedback.contains("unknown action"),
        "{feedback}"
    );
    assert!(p.fallback.unwrap().contains("dropped 1"));
}

#[test]
fn garbage_becomes_idle_with_a_fallback() {
    let e = env(2, 0, 200);
    for text in ["", "I am not sure what to do here.", "[1, 2, 3]", "fly(up)"] {
        let p = e.parse_reply("1", text);
        assert_eq!(plan_texts(&p), ["idle(steps=1)"], "{text:?}");
        assert!(p.fallback.is_some(), "{text:?}");
        assert!(p.feedback.unwrap().contains("idled"), "{text:?}");
    }
}

#[test]
fn more_than_three_actions_are_truncated() {
    let e = env(2, 0, 200);
    let p = e.parse_reply("0", "idle(1)\nidle(2)\nidle(3)\nidle(4)\nidle(5)");
    assert_eq!(
        plan_texts(&p),
        ["idle(steps=1)", "idle(steps=2)", "idle(steps=3)"]
    );
    assert!(p.feedback.unwrap().contains("2 more were ignored"));
    assert!(p.fallback.is_none());
}

#[test]
fn strict_parse_action_is_unchanged() {
    let e = env(2, 0, 200);
    assert!(e.parse_action("0", "fly(up)").is_err());
    assert!(e
        .parse_action("0", "idle(1)\nidle(2)\nidle(3)\nidle(4)")
        .is_ok());
    assert_eq!(
        e.parse_action("0", "RIGHT").unwrap(),
        CubeAction::Prim(colony_cube::Prim::Right)
    );
}

#[test]
fn observation_reports_the_previous_plan_outcomes() {
    let mut e = layout(10, &[(0, 1, 4, 5)], &[(0, 0)]);
    let plan = e
        .parse_reply(
            "0",
            "move(right, 2)\nmove_to_block(block=7, face=left)\nidle(12)",
        )
        .action;
    e.step(&BTreeMap::from([("0".to_string(), plan)]));
    while e.deciding_agents().is_empty() {
        e.step(&BTreeMap::new());
    }
    let text = e.observe_text("0").unwrap();
    // The first two actions ended more than 10 steps ago: only this section still shows them.
    assert!(
        text.contains(
            "your previous plan:\n  #0 move(direction=right, steps=2) ended at step 3: success"
        ),
        "{text}"
    );
    assert!(
        text.contains("#1 move_to_block(block=7, face=left) ended at step 3: failed:block_gone"),
        "{text}"
    );
    assert!(
        text.contains("#2 idle(steps=12) ended at step 15: success"),
        "{text}"
    );
}

#[test]
fn simulated_reply_ignores_foreign_prompts_and_is_deterministic() {
    let e = env(4, 3, 200);
    let user = e.observe_text("1").unwrap();
    let ent = entry();
    assert_eq!(
        ent.simulated_reply("You are a helpful assistant.", &user, 1.0, 7),
        None
    );
    assert_eq!(ent.simulated_reply("", "", 0.5, 7), None);
    let system = e.instructions("1");
    for draw in 0..50 {
        let a = ent.simulated_reply(&system, &user, 0.5, draw).unwrap();
        assert_eq!(Some(a), ent.simulated_reply(&system, &user, 0.5, draw));
    }
    let replies: std::collections::BTreeSet<String> = (0..50)
        .map(|d| ent.simulated_reply(&system, &user, 0.0, d).unwrap())
        .collect();
    assert!(replies.len() > 10, "random replies vary with the draw");
}

#[test]
fn the_expert_reply_is_the_heuristic_plan() {
    for seed in 0..10 {
        let e = env(8, seed, 200);
        let reply = simulated_reply(
            &e.instructions("0"),
            &e.observe_text("0").unwrap(),
            1.0,
            seed,
        )
        .unwrap();
        let first = reply.lines().next().unwrap();
        assert!(!first.contains('['), "{reply}");
        let p = e.parse_reply("0", &reply);
        assert_eq!((&p.feedback, &p.fallback), (&None, &None), "{reply}");
        let want = heuristic_plan(e.world()).unwrap();
        assert_eq!(p.action, CubeAction::Plan(want), "seed {seed}: {reply}");
    }
}

#[test]
fn simulated_replies_always_parse_cleanly() {
    let ent = entry();
    for n in [1, 2, 4, 8] {
        let mut e = env(n, u64::from(n), 60);
        let mut rng = 5u64;
        let mut feedback: BTreeMap<String, Option<String>> = BTreeMap::new();
        while !e.is_done() {
            let mut actions = BTreeMap::new();
            for a in e.deciding_agents() {
                let system = e.instructions(&a);
                let user = user_prompt(&e, &a, feedback.get(&a).cloned().flatten().as_deref());
                let reply = ent.simulated_reply(&system, &user, 0.5, splitmix64(&mut rng));
                let reply = reply.unwrap();
                let p = e.parse_reply(&a, &reply);
                assert_eq!(p.fallback, None, "n={n} agent {a}: {reply}");
                assert_eq!(p.feedback, None, "n={n} agent {a}: {reply}");
                feedback.insert(a.clone(), p.feedback);
                actions.insert(a, p.action);
            }
            e.step(&actions);
        }
    }
}

/// Drives an episode purely through prompts: instructions + observation (+ feedback) →
/// simulated reply → `parse_reply` → step. Returns the delivered weight.
fn prompt_episode(n: u32, seed: u64, accuracy: f64) -> (u32, f64) {
    let mut e = env(n, seed, 200);
    let ent = entry();
    let mut rng = seed ^ 0x5eed;
    let mut feedback: BTreeMap<String, Option<String>> = BTreeMap::new();
    while !e.is_done() {
        let mut actions = BTreeMap::new();
        for a in e.deciding_agents() {
            let user = user_prompt(&e, &a, feedback.get(&a).cloned().flatten().as_deref());
            let reply = ent
                .simulated_reply(&e.instructions(&a), &user, accuracy, splitmix64(&mut rng))
                .unwrap();
            let p = e.parse_reply(&a, &reply);
            assert!(p.fallback.is_none(), "{reply}");
            feedback.insert(a.clone(), p.feedback);
            actions.insert(a, p.action);
        }
        e.step(&actions);
    }
    let weight = e.world().delivered.iter().map(|d| d.weight).sum();
    (weight, e.score())
}

#[test]
fn expert_replies_deliver_more_than_random_ones() {
    let mut expert = 0;
    let mut random = 0;
    for seed in 0..4 {
        let (we, se) = prompt_episode(2, seed, 1.0);
        let (wr, sr) = prompt_episode(2, seed, 0.0);
        eprintln!("seed {seed}: expert {we} ({se:.2}), random {wr} ({sr:.2})");
        assert!(se >= sr, "seed {seed}");
        expert += we;
        random += wr;
    }
    assert!(expert > random, "expert {expert}, random {random}");
    assert!(
        expert >= 4 * 3,
        "the expert should deliver most of the weight: {expert}"
    );
}
