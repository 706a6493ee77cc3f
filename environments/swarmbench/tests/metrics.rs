//! Logs and group-dynamics metrics (docs/design/swarmbench.md §12.3–12.4), and the message options
//! of appendix L.3/L.4.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;

use colony_env_api::{Environment, PaperProtocol};
use colony_swarmbench::logs::{DecisionLog, GameStateLog};
use colony_swarmbench::metrics::{round_metrics, run_means, Embedder};
use colony_swarmbench::reply::parse_reply;
use colony_swarmbench::{Config, SwarmEnv, Task};

struct LengthEmbedder;

impl Embedder for LengthEmbedder {
    fn embed(&self, texts: &[String]) -> Vec<Vec<f64>> {
        texts
            .iter()
            .map(|t| vec![t.len() as f64, t.matches('?').count() as f64 + 1.0])
            .collect()
    }
}

/// Plays rounds with scripted replies, logging like the reference.
fn play(
    env: &mut SwarmEnv,
    script: &[Vec<(usize, &str)>],
) -> (Vec<GameStateLog>, Vec<DecisionLog>) {
    let mut states = vec![env.game_state_log()];
    let mut decisions = Vec::new();
    for round in script {
        let mut actions = BTreeMap::new();
        for i in 0..env.num_agents() {
            let text = round
                .iter()
                .find(|(a, _)| *a == i)
                .map_or("ACTION: STAY", |(_, t)| t);
            let reply = parse_reply(text, false, 120);
            let prompt = env.prompt(i);
            decisions.push(env.decision_log(i, &prompt, text, &reply));
            actions.insert(format!("Agent_{i}"), reply);
        }
        env.step(&actions);
        states.push(env.game_state_log());
    }
    (states, decisions)
}

#[test]
fn metrics_of_a_scripted_pursuit_episode() {
    let mut env = SwarmEnv::new(Config::default()).unwrap();
    env.reset(42);
    // Seed 42 Pursuit (Appendix A positions).
    let (states, decisions) = play(
        &mut env,
        &[
            vec![
                (3, "ACTION: DOWN\nMSG: at (1,5)?"),
                (4, "ACTION: RIGHT\nMSG: hi"),
                (7, "ACTION: UP"),
            ],
            vec![(2, "ACTION: LEFT\nMSG: hi"), (9, "nothing")],
        ],
    );
    assert_eq!(states.len(), 3);
    assert_eq!(states[1].messages.len(), 2);
    assert_eq!(states[0].agents[3].x, 5);
    let m = round_metrics(&states, &decisions, Some(&LengthEmbedder));
    assert_eq!(m.len(), 3);
    // Round 0: DOWN, RIGHT, UP + 7 STAY.
    assert!((m[0].directional_entropy - 3f64.log2()).abs() < 1e-12);
    assert!((m[0].stillness - 0.7).abs() < 1e-12);
    assert!((m[0].dominant_action - 0.7).abs() < 1e-12);
    assert_eq!(m[0].messages, 2);
    assert!((m[0].question_proportion - 0.5).abs() < 1e-12);
    assert!((m[0].digit_proportion - 2.0 / 11.0).abs() < 1e-12);
    assert!((m[0].mean_message_length - 5.5).abs() < 1e-12);
    assert!((m[0].std_message_length - 3.5).abs() < 1e-12);
    // State 1: Agent_3 pushed Agent_8 down and Agent_7 pushed Agent_9 up; Agent_4 moved
    // alone: two push events, five agents moved one cell.
    assert_eq!(m[1].push_events, 2);
    assert!((m[1].moving_distance - 0.5).abs() < 1e-12);
    assert!(m[1].exploration > 10);
    // Round 1: the unparsed reply logs STAY (Q12); one message only → homogeneity 0.
    assert_eq!(decisions[10 + 9].action, "STAY");
    assert_eq!(m[1].information_homogeneity, 0.0);
    // The final state has no decisions.
    assert_eq!(m[2].stillness, 0.0);
    let means = run_means(&m);
    assert!(means["stillness"] > 0.0);
}

#[test]
fn commander_hears_everyone_and_sees_the_whole_map() {
    let mut env = SwarmEnv::new(Config {
        task: Task::Synchronization,
        commander: true,
        ..Config::default()
    })
    .unwrap();
    env.reset(42);
    let mut actions = BTreeMap::new();
    actions.insert(
        "Agent_4".to_string(),
        parse_reply("MSG: far away", true, 120),
    );
    actions.insert("Agent_0".to_string(), parse_reply("MSG: orders", true, 120));
    env.step(&actions);
    assert_eq!(env.received_messages(0), vec!["orders", "far away"]);
    assert_eq!(env.received_messages(4), vec!["orders"]);
    let prompt = env.prompt(0);
    assert!(prompt.contains("  9  W   W   W   W"), "{prompt}");
}

#[test]
fn delays_and_corruption_change_delivery() {
    let cfg = Config {
        delay_min: 2,
        delay_max: 2,
        corruption: 1.0,
        ..Config::default()
    };
    let mut env = SwarmEnv::new(cfg).unwrap();
    env.reset(42);
    let mut actions = BTreeMap::new();
    actions.insert(
        "Agent_0".to_string(),
        parse_reply("MSG: hello there", false, 120),
    );
    env.step(&actions);
    assert!(env.received_messages(0).is_empty());
    env.step(&BTreeMap::new());
    assert!(env.received_messages(0).is_empty());
    env.step(&BTreeMap::new());
    let got = env.received_messages(0);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].chars().count(), "hello there".len());
    assert_ne!(got[0], "hello there");
}

/// The running metrics an episode reports (`paper_metrics`, what `colony compare` records)
/// equal the analysis of the same episode's logs, on every task.
#[test]
fn paper_metrics_equal_the_analysis_of_the_logs() {
    let moves = ["UP", "DOWN", "LEFT", "RIGHT", "STAY"];
    for task in [
        Task::Pursuit,
        Task::Synchronization,
        Task::Foraging,
        Task::Flocking,
        Task::Transport,
    ] {
        let mut env = SwarmEnv::new(Config {
            task,
            ..Config::default()
        })
        .unwrap();
        env.reset(7);
        let texts: Vec<Vec<(usize, String)>> = (0..25)
            .map(|r| {
                (0..10)
                    .map(|i| {
                        let m = moves[(r * 7 + i * 3 + r * i) % 5];
                        let msg = match (r + i) % 4 {
                            0 => format!("\nMSG: go {m} at {r}?"),
                            1 => "\nMSG: hold".to_string(),
                            _ => String::new(),
                        };
                        (i, format!("ACTION: {m}{msg}"))
                    })
                    .collect()
            })
            .collect();
        let script: Vec<Vec<(usize, &str)>> = texts
            .iter()
            .map(|r| r.iter().map(|(i, t)| (*i, t.as_str())).collect())
            .collect();
        let (states, decisions) = play(&mut env, &script);
        let want = run_means(&round_metrics(&states, &decisions, None));
        let got = env.paper_metrics();
        assert_eq!(got.len(), want.len() - 2, "{task:?}: {got:?}");
        for (k, v) in &got {
            assert!(
                (v - want[k.as_str()]).abs() < 1e-9,
                "{task:?} {k}: {v} vs {}",
                want[k.as_str()]
            );
        }
        assert!(
            got["exploration"] > 0.0 && got["moving_distance"] > 0.0,
            "{task:?}"
        );
        env.reset(8);
        assert_eq!(
            env.paper_metrics()["moving_distance"],
            0.0,
            "reset starts over"
        );
    }
}
