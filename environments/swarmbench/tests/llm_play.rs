//! LLM play (colony-env-api `Environment` opt-in methods): the §11.1 system message, who
//! decides, the lenient §12.1 parser, who hears whom (§10.3), and the simulated agent driven
//! the way colony's episode loop drives a model: prompt → reply → parse_reply → step.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;

use colony_env_api::{Environment, Messaging};
use colony_swarmbench::reply::Reply;
use colony_swarmbench::{Config, SwarmEnv, Task};

fn env(cfg: Config, seed: u64) -> SwarmEnv {
    let mut e = SwarmEnv::new(cfg).unwrap();
    e.reset(seed);
    e
}

fn cfg(task: Task) -> Config {
    Config {
        task,
        ..Config::default()
    }
}

#[test]
fn system_message_and_deciding_agents() {
    let e = env(cfg(Task::Transport), 1);
    assert_eq!(
        e.instructions("Agent_3"),
        "You are a agent. You need to cooperate with other agents and finish a given task."
    );
    assert_eq!(e.deciding_agents(), e.agents());
    assert!(e.delivers_messages());
    // Escaped agents are left out (docs/design/swarmbench.md §10.1). Seed 42: box variant 1, gap at
    // row 9 cols 0..3; with the box removed Agent_0 walks out through the gap (as in
    // tests/tasks.rs).
    let e = env(cfg(Task::Transport), 42);
    let mut s = e.state();
    let b = s.objects.iter().position(|m| m.id == "box").unwrap();
    s.objects[b].present = false;
    s.objects[b].pos = (100, 100);
    s.agents.insert("Agent_0".into(), [8, 1]);
    let mut e2 = s.into_env().unwrap();
    let down: BTreeMap<String, Reply> = [(
        "Agent_0".to_string(),
        e2.parse_reply("Agent_0", "ACTION: DOWN").action,
    )]
    .into();
    e2.step(&down);
    e2.step(&down);
    assert!(e2.is_escaped(0));
    let deciding = e2.deciding_agents();
    assert_eq!(deciding.len(), 9);
    assert!(!deciding.contains(&"Agent_0".to_string()));
    assert_eq!(e2.observe_text("Agent_0").unwrap(), "");
}

#[test]
fn lenient_parser_never_errs_and_never_gives_feedback() {
    let mut e = env(cfg(Task::Pursuit), 42);
    let p = e.parse_reply("Agent_0", "I am not sure yet.");
    assert_eq!(p.action, Reply::default());
    assert!(p.feedback.is_none());
    assert!(p.fallback.as_deref().unwrap().contains("no valid action"));
    // The strict parser keeps refusing the same text (used by `colony env step`).
    assert!(e.parse_action("Agent_0", "I am not sure yet.").is_err());
    // SWITCH is not an action outside Synchronization.
    assert!(e
        .parse_reply("Agent_1", "ACTION: SWITCH")
        .fallback
        .is_some());

    let long = "I switched OFF at (4,1). ".repeat(6);
    let q = e.parse_reply("Agent_1", &format!("ACTION: LEFT\nMSG: {long}"));
    assert!(q.feedback.is_none());
    assert_eq!(q.action.message.chars().count(), 123);
    let why = q.fallback.clone().unwrap();
    assert!(
        why.contains("cut") && !why.contains("no valid action"),
        "{why}"
    );
    let both = e.parse_reply("Agent_2", &format!("ACTION: left\nMSG: {long}"));
    let why = both.fallback.clone().unwrap();
    assert!(
        why.contains("cut") && why.contains("no valid action"),
        "{why}"
    );

    let mut actions = BTreeMap::new();
    actions.insert("Agent_0".to_string(), p.action);
    actions.insert("Agent_1".to_string(), q.action);
    actions.insert("Agent_2".to_string(), both.action);
    let before = e.agent_pos(0);
    e.step(&actions);
    assert_eq!(e.agent_pos(0), before, "no action: physically STAY");
    let p0 = e.observe_text("Agent_0").unwrap();
    assert!(
        p0.contains("Round 1: Action: NONE, Message: \"\"\n"),
        "{p0}"
    );
    let p2 = e.observe_text("Agent_2").unwrap();
    assert!(
        p2.contains("Round 1: Action: NONE, Message: \"I switched"),
        "{p2}"
    );
    assert!(e
        .observe_text("Agent_1")
        .unwrap()
        .contains("Round 1: Action: LEFT"));
}

/// Every agent says its own name each round; what each prompt receives must be exactly the
/// speakers `hears` admits, in speaker order.
fn hears_matches_delivery(cfg: Config) {
    for seed in [1, 2, 3] {
        let mut e = env(cfg.clone(), seed);
        let mut draw = seed;
        for _ in 0..8 {
            let agents = e.agents();
            let actions: BTreeMap<String, Reply> = agents
                .iter()
                .map(|a| {
                    let mut r = e.random_action(a, colony_env_api::policy::splitmix64(&mut draw));
                    r.message = format!("from {a}");
                    (a.clone(), r)
                })
                .collect();
            e.step(&actions);
            for (i, listener) in agents.iter().enumerate() {
                let expected: Vec<String> = agents
                    .iter()
                    .filter(|s| e.hears(listener, s))
                    .map(|s| format!("from {s}"))
                    .collect();
                assert_eq!(e.received_messages(i), expected, "{listener}");
            }
        }
    }
}

#[test]
fn hears_agrees_with_received_messages() {
    hears_matches_delivery(cfg(Task::Pursuit));
    hears_matches_delivery(Config {
        view: 3,
        ..cfg(Task::Synchronization)
    });
    hears_matches_delivery(Config {
        commander: true,
        ..cfg(Task::Foraging)
    });
    let e = env(
        Config {
            commander: true,
            ..cfg(Task::Pursuit)
        },
        5,
    );
    assert!(e.hears("Agent_0", "Agent_7") && e.hears("Agent_7", "Agent_0"));
    assert!(!e.hears("Agent_7", "Agent_8") && !e.hears("Agent_7", "Agent_99"));
}

/// Plays an episode the way colony's loop would: for each deciding agent one call with the
/// §11.1 system text and the prompt, the reply parsed leniently, then one step.
fn play(cfg: Config, seed: u64, accuracy: f64, rounds: u32) -> (f64, usize) {
    let entry = colony_swarmbench::entry();
    let mut e = env(cfg, seed);
    let mut draw = seed.wrapping_mul(0x9e37_79b9);
    let mut fallbacks = 0;
    for _ in 0..rounds {
        let mut actions = BTreeMap::new();
        for a in e.deciding_agents() {
            let system = e.instructions(&a);
            let user = e.observe_text(&a).unwrap();
            let d = colony_env_api::policy::splitmix64(&mut draw);
            let reply = entry.simulated_reply(&system, &user, accuracy, d).unwrap();
            let p = e.parse_reply(&a, &reply);
            assert!(p.feedback.is_none());
            assert!(p.action.action.is_some(), "unparsed reply {reply:?}");
            fallbacks += usize::from(p.fallback.is_some());
            actions.insert(a, p.action);
        }
        let r = e.step(&actions);
        if r.terminated || r.truncated {
            break;
        }
    }
    (e.score(), fallbacks)
}

#[test]
fn simulated_replies_always_parse_on_real_prompts() {
    for task in Task::ALL {
        for (seed, accuracy) in [(1, 1.0), (2, 0.5), (3, 0.0)] {
            let (_, fallbacks) = play(cfg(task), seed, accuracy, 25);
            assert_eq!(fallbacks, 0, "{task:?}");
        }
    }
    // The commander's global view is read too.
    let (_, fallbacks) = play(
        Config {
            commander: true,
            ..cfg(Task::Foraging)
        },
        4,
        1.0,
        10,
    );
    assert_eq!(fallbacks, 0);
}

#[test]
fn simulated_reply_ignores_other_benchmarks() {
    let entry = colony_swarmbench::entry();
    assert!(entry
        .simulated_reply("You are a helpful assistant.", "Question: 2+2?", 1.0, 3)
        .is_none());
    let e = env(cfg(Task::Pursuit), 1);
    let user = e.observe_text("Agent_0").unwrap();
    assert!(entry
        .simulated_reply("You are a planner.", &user, 1.0, 3)
        .is_none());
    assert!(entry
        .simulated_reply(&e.instructions("Agent_0"), "Hello", 1.0, 3)
        .is_none());
}

#[test]
fn accurate_agents_beat_random_ones() {
    let mean = |task: Task, accuracy: f64| {
        let seeds = [1u64, 2, 3, 4, 5, 6];
        seeds
            .iter()
            .map(|&s| play(cfg(task), s, accuracy, 60).0)
            .sum::<f64>()
            / seeds.len() as f64
    };
    let (good, bad) = (mean(Task::Foraging, 1.0), mean(Task::Foraging, 0.0));
    println!("foraging: accuracy 1.0 → {good}, 0.0 → {bad}");
    assert!(good > bad + 1.0, "foraging {good} vs {bad}");
    let (good, bad) = (mean(Task::Pursuit, 1.0), mean(Task::Pursuit, 0.0));
    println!("pursuit: accuracy 1.0 → {good}, 0.0 → {bad}");
    assert!(good > bad + 1.0, "pursuit {good} vs {bad}");
}

#[test]
#[ignore = "timing of simulated_reply on real prompts (run with --release)"]
fn simulated_reply_cost() {
    let entry = colony_swarmbench::entry();
    for task in Task::ALL {
        let mut e = env(cfg(task), 3);
        let mut prompts = Vec::new();
        let mut draw = 11u64;
        for _ in 0..10 {
            let mut actions = BTreeMap::new();
            for a in e.deciding_agents() {
                let user = e.observe_text(&a).unwrap();
                let d = colony_env_api::policy::splitmix64(&mut draw);
                let reply = entry
                    .simulated_reply(&e.instructions(&a), &user, 0.8, d)
                    .unwrap();
                actions.insert(a.clone(), e.parse_reply(&a, &reply).action);
                prompts.push(user);
            }
            e.step(&actions);
        }
        let system = e.instructions("Agent_0");
        let start = std::time::Instant::now();
        let mut n = 0u64;
        for rep in 0..20u64 {
            for p in &prompts {
                n += 1;
                std::hint::black_box(entry.simulated_reply(&system, p, 0.8, rep ^ n));
            }
        }
        let us = start.elapsed().as_secs_f64() * 1e6 / n as f64;
        println!("{task:?}: {us:.2} µs per reply");
    }
}
