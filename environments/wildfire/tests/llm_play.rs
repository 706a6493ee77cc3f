//! LLM play of `wildfire-v0` (docs/design/wildfire.md §11, docs/design/frameworks.md §14.1):
//! who decides, the prompts, the lenient reply
//! parser, and the simulated agent driving whole episodes through prompts only.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;

use colony_env_api::policy::splitmix64;
use colony_env_api::{CallProtocol, Environment, FrameworkBriefing};
use colony_wildfire::config::{find_level, AgentKind};
use colony_wildfire::env::{WildfireAction, WildfireEnv};
use colony_wildfire::llm_play::ACT_FORMAT;
use colony_wildfire::primitive::Primitive;
use colony_wildfire::prompts;
use colony_wildfire::sim_agent::simulated_reply;

fn env(level: &str, seed: u64) -> WildfireEnv {
    let mut e = WildfireEnv::new(find_level(level).unwrap()).unwrap();
    e.reset(seed);
    e
}

fn move_to(x: i32, y: i32) -> WildfireAction {
    WildfireAction::Primitive(Primitive::new(1, x, y, "move"))
}

#[test]
fn deciding_agents_are_the_idle_live_agents() {
    let mut e = env("transport_firefighters_small", 283);
    assert_eq!(e.deciding_agents(), e.agents(), "all decide at reset");
    // Agent 1 gets a long move; agent 2 a one-step do nothing; the rest nothing at all.
    let far = {
        let (x, y) = e.world().agents[0].cell();
        (if x > 50 { x - 40 } else { x + 40 }, y)
    };
    let mut actions = BTreeMap::new();
    actions.insert("1".to_string(), move_to(far.0, far.1));
    actions.insert(
        "2".to_string(),
        WildfireAction::Primitive(Primitive::do_nothing()),
    );
    e.step(&actions);
    let d = e.deciding_agents();
    assert!(!d.contains(&"1".to_string()), "agent 1 still moves: {d:?}");
    assert!(
        d.contains(&"2".to_string()) && d.contains(&"3".to_string()),
        "{d:?}"
    );
    // Left out of the next step, agent 1 keeps moving (missing agents continue).
    let before = e.world().agents[0].cell();
    e.step(&BTreeMap::new());
    assert_ne!(e.world().agents[0].cell(), before);
    assert!(e.world().agents[0].action.is_some());
    // A passenger does not decide.
    e.world_mut().agents[2].passenger_of = Some(7);
    assert!(!e.deciding_agents().contains(&"3".to_string()));
    let mut sorted = e.deciding_agents();
    sorted.sort_by_key(|a| a.parse::<u32>().unwrap());
    assert_eq!(sorted, e.deciding_agents(), "id order");
}

#[test]
fn parse_reply_falls_back_with_feedback_and_never_errors() {
    let mut e = env("cut_trees_sparse_small", 375);
    let p = e.parse_reply("1", "I think I will go north");
    match &p.action {
        WildfireAction::Primitive(q) => {
            assert_eq!(q.kind, 0);
            assert!(q.description.starts_with("ERROR EXECUTING"), "{q:?}");
        }
        other => panic!("{other:?}"),
    }
    assert!(p.fallback.is_some());
    assert!(p.feedback.unwrap().contains("could not be executed"));
    let off_map = e.parse_reply("1", "[1, 40, 3, \"move\"]");
    assert!(off_map.fallback.unwrap().contains("outside the map"));
    let good = e.parse_reply(
        "AGENT_1",
        "<reasoning>[0, 29] is the range</reasoning>[1, 4, 5, \"move to (4, 5)\"]",
    );
    assert_eq!(
        good.action,
        WildfireAction::Primitive(Primitive::new(1, 4, 5, "move to (4, 5)"))
    );
    assert_eq!((good.feedback, good.fallback), (None, None));
    // After the end of the episode: do nothing, still no error.
    e.world_mut().truncated = true;
    let late = e.parse_reply("1", "[1, 4, 5, \"move\"]");
    assert_eq!(
        late.action,
        WildfireAction::Primitive(Primitive::do_nothing())
    );
    assert!(late.fallback.is_some());
    assert!(e.deciding_agents().is_empty());
    // The strict parser keeps its behaviour.
    assert!(e.parse_action("1", "[1, 4, 5, \"move\"]").is_err());
}

#[test]
fn prompts_are_the_spec_texts() {
    let e = env("rescue_civilians_search_rescue_transport", 8208);
    let s = e.world();
    for (i, a) in s.agents.iter().enumerate() {
        let id = a.id.to_string();
        let exec = e.execution_prompter(&id).unwrap();
        assert_eq!(
            exec("fly to (3, 4)"),
            prompts::execution_prompt(a.kind, s.grid.size, "fly to (3, 4)")
        );
        assert_eq!(
            e.perception_prompt(&id).unwrap(),
            prompts::perception_prompt(s, i)
        );
        let sys = e.instructions(&id);
        for part in [
            format!("You are AGENT_{}, a {} agent", a.id, a.kind.name()),
            prompts::team_composition(s),
            prompts::task_description(s),
            prompts::agent_abilities(a.kind),
            ACT_FORMAT.to_string(),
        ] {
            assert!(sys.contains(&part), "{part:?} missing from {sys}");
        }
        let text = e.perceived_text(&id, "I see trees.");
        assert!(text.starts_with("I see trees.\nPosition: "), "{text}");
        assert!(text.contains("Past actions:\nNone"), "{text}");
    }
    assert!(e.perception_prompt("99").is_none());
    assert!(e.execution_prompter("99").is_none());
}

#[test]
fn simulated_replies_are_recognised_deterministic_and_parse() {
    let e = env("rescue_civilians_search_rescue_transport", 150);
    for a in e.agents() {
        let sys = e.instructions(&a);
        let pp = e.perception_prompt(&a).unwrap();
        assert_eq!(
            simulated_reply("You are helpful.", "Solve 2+2.", 1.0, 1),
            None
        );
        assert!(simulated_reply(&sys, "Solve 2+2.", 1.0, 1).is_some());
        for draw in 0..8u64 {
            for acc in [0.0, 0.5, 1.0] {
                let p = simulated_reply(&sys, &pp, acc, draw).unwrap();
                assert_eq!(simulated_reply(&sys, &pp, acc, draw).unwrap(), p);
                assert!(p.starts_with(&format!("I am AGENT_{a}")), "{p}");
                let user = e.perceived_text(&a, &p);
                let act = simulated_reply(&sys, &user, acc, draw ^ 7).unwrap();
                assert!(
                    act.starts_with("<reasoning>") && act.contains("<action>"),
                    "{act}"
                );
                let exec = e.execution_prompter(&a).unwrap()(&act);
                // Execution replies ignore the system prompt's identity.
                let reply = simulated_reply("", &exec, acc, draw).unwrap();
                let parsed = e.parse_reply(&a, &reply);
                assert_eq!(parsed.fallback, None, "{act} -> {reply}");
            }
        }
    }
}

#[test]
fn expert_perception_counts_exact_coordinates() {
    let mut e = env("suppress_fire_extinguish", 2994);
    let s = e.world();
    let fire = s.targets.fire.unwrap();
    let (i, _) = s
        .agents
        .iter()
        .enumerate()
        .min_by_key(|(_, a)| {
            let c = a.cell();
            (c.0 - fire.0).abs().max((c.1 - fire.1).abs())
        })
        .unwrap();
    // Put the agent 4 cells west of the fire and reveal.
    e.world_mut().agents[i].px = f64::from(fire.0 - 4) + 0.5;
    e.world_mut().agents[i].py = f64::from(fire.1) + 0.5;
    colony_wildfire::observe::reveal(e.world_mut());
    let id = (i + 1).to_string();
    let p = simulated_reply("", &e.perception_prompt(&id).unwrap(), 1.0, 0).unwrap();
    assert!(
        p.contains(&format!("({}, {})", fire.0, fire.1)) && p.contains("Fire is burning"),
        "{p}"
    );
    assert!(p.contains("mostly to the east"), "{p}");
    let w = s_water(&e);
    if let Some(w) = w {
        let me = e.world().agents[i].cell();
        if (w.0 - me.0).abs() <= 10 && (w.1 - me.1).abs() <= 10 {
            assert!(p.contains(&format!("({}, {})", w.0, w.1)), "{p}");
        }
    }
}

fn s_water(e: &WildfireEnv) -> Option<(i32, i32)> {
    e.world().targets.water
}

/// Runs an episode through prompts → simulated replies → `parse_reply` → `step` only, as the
/// `independent` policy does (§11, §14.1).
fn play(level: &str, seed: u64, accuracy: f64) -> (f64, usize) {
    let mut e = env(level, seed);
    let mut rng = seed.wrapping_mul(31).wrapping_add(accuracy.to_bits());
    let mut feedback: BTreeMap<String, String> = BTreeMap::new();
    let mut fallbacks = 0;
    loop {
        let mut actions = BTreeMap::new();
        for a in e.deciding_agents() {
            let sys = e.instructions(&a);
            let pp = e.perception_prompt(&a).unwrap();
            let summary = simulated_reply(&sys, &pp, accuracy, splitmix64(&mut rng)).unwrap();
            let mut user = e.perceived_text(&a, &summary);
            if let Some(f) = feedback.remove(&a) {
                user.push_str(&format!("\n\nFeedback on your previous action:\n{f}"));
            }
            let act = simulated_reply(&sys, &user, accuracy, splitmix64(&mut rng)).unwrap();
            let action = act
                .split("<action>")
                .nth(1)
                .and_then(|r| r.split("</action>").next())
                .unwrap_or(&act);
            let exec = e.execution_prompter(&a).unwrap()(action);
            let reply = simulated_reply(&sys, &exec, accuracy, splitmix64(&mut rng)).unwrap();
            let p = e.parse_reply(&a, &reply);
            fallbacks += usize::from(p.fallback.is_some());
            if let Some(f) = p.feedback {
                feedback.insert(a.clone(), f);
            }
            actions.insert(a, p.action);
        }
        let r = e.step(&actions);
        if r.terminated || r.truncated {
            return (e.score(), fallbacks);
        }
    }
}

#[test]
fn expert_simulated_agents_beat_random_ones_through_prompts_only() {
    for level in ["cut_trees_sparse_small", "scout_fire_small"] {
        let seeds = [375u64, 483, 43];
        let mean = |acc: f64| {
            let runs: Vec<(f64, usize)> = seeds.iter().map(|&s| play(level, s, acc)).collect();
            assert!(
                runs.iter().all(|r| r.1 == 0),
                "fallbacks at accuracy {acc}: {runs:?}"
            );
            runs.iter().map(|r| r.0).sum::<f64>() / seeds.len() as f64
        };
        let (expert, random) = (mean(1.0), mean(0.0));
        eprintln!("{level}: expert {expert}, random {random}");
        assert!(
            expert >= random,
            "{level}: expert {expert} < random {random}"
        );
        assert!(expert > 0.0, "{level}: expert scored {expert}");
    }
}

/// Expert vs random simulated agents on every level (slow; `cargo test -- --ignored`).
#[test]
#[ignore]
fn survey_simulated_agents_on_all_levels() {
    let only = std::env::var("SURVEY_LEVEL").unwrap_or_default();
    for l in colony_wildfire::config::levels() {
        if !l.id.contains(&only) {
            continue;
        }
        let seeds = [1u64, 2, 3];
        let noop = seeds
            .iter()
            .map(|&s| {
                let mut e = env(&l.id, s);
                while !e.world().terminated && !e.world().truncated {
                    e.step(&BTreeMap::new());
                }
                e.score()
            })
            .sum::<f64>()
            / seeds.len() as f64;
        let mean = |acc: f64| {
            seeds.iter().map(|&s| play(&l.id, s, acc).0).sum::<f64>() / seeds.len() as f64
        };
        eprintln!(
            "{:45} expert {:9.2} random {:9.2} do-nothing {noop:9.2}",
            l.id,
            mean(1.0),
            mean(0.0)
        );
    }
}

#[test]
fn agent_kinds_in_instructions_match_the_team() {
    let e = env("cut_trees_lines_small", 9259);
    let sys = e.instructions("3");
    assert!(
        sys.contains(&format!("a {} agent", AgentKind::Bulldozer.name())),
        "{sys}"
    );
}

#[test]
fn an_agent_card_is_answered_with_the_prompt_it_sits_in() {
    // Framework prompts state the team and the task once and give each agent its card:
    // the simulated agent answers a card only with that context after it, and
    // then as the expert it is with the whole instructions.
    let e = env("cut_trees_sparse_small", 7);
    let b = e.team_briefing().unwrap();
    for a in e.agents() {
        let card = e.agent_card(&a).unwrap();
        let sys = e.instructions(&a);
        assert!(card.len() * 2 < sys.len(), "{card}");
        assert!(!card.contains("Current task") && !card.contains("Team composition"));
        let user = e.perceived_text(&a, "I see trees all around me.");
        assert_eq!(simulated_reply(&card, &user, 1.0, 3), None, "a card alone");
        let context = format!(
            "{card}\n\nYour team, yourself included:\n{}\n—\nThe team's current task:\n{}\n—\n",
            b.team_composition.trim_end(),
            b.task.trim_end()
        );
        let with_context = simulated_reply(&context, &user, 1.0, 3).unwrap();
        assert_eq!(with_context, simulated_reply(&sys, &user, 1.0, 3).unwrap());
        assert!(!with_context.contains("I try something"), "{with_context}");
    }
}
