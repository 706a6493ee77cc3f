//! MacNet and AgentVerse in detail (docs/design/baselines.md §3.6–§3.7): topology determinism,
//! depths and temperatures, calls following the graph, personas; recruitment and evaluation
//! parsing, turns, criticising rounds, advice and counted fallbacks.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod baseline_support;
use baseline_support::policy_by_name;

use std::sync::Arc;

use baseline_support::*;
use colony::llm::ChatRequest;
use colony::policy::reasoning::agentverse::{
    parse_evaluation, parse_recruits, AGREE_MARKER, EVALUATE_MARKER, RECRUIT_MARKER,
};
use colony::policy::reasoning::{
    AgentVerse, AgentVerseOptions, MacNet, MacNetOptions, ReasoningPolicy, Topology,
};

// ---------------------------------------------------------------- MacNet

#[test]
fn macnet_topology_depths_layers_and_temperatures() {
    let t = Topology::new(5, vec![(0, 1), (0, 2), (1, 3), (2, 3), (3, 1)]);
    assert_eq!(t.edges, vec![(0, 1), (0, 2), (1, 3), (2, 3)], "u < v only");
    assert_eq!(t.depth, vec![1, 2, 2, 3, 1]);
    assert_eq!(t.sink_depth, 4);
    assert_eq!(t.layers(), vec![vec![0, 4], vec![1, 2], vec![3]]);
    assert_eq!(t.sinks(), vec![3, 4]);
    assert_eq!(t.parents(3), vec![1, 2]);
    assert!((t.temperature(0) - 0.75).abs() < 1e-12);
    assert!((t.temperature(3) - 0.25).abs() < 1e-12);
    assert_eq!(t.temperature(5), 0.0, "the sink");
}

#[test]
fn macnet_topology_is_seeded_per_item_or_fixed() {
    let m = MacNet::new(MacNetOptions::default()).unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for i in 0..200 {
        let mut q = query(i % 12);
        q.item.id = format!("item{i}");
        let t = m.topology(&q);
        assert_eq!(t, m.topology(&q), "same item, same graph");
        assert!((4..=10).contains(&t.edges.len()), "{:?}", t.edges);
        assert!(t.edges.windows(2).all(|w| w[0] < w[1]));
        assert!(t.edges.iter().all(|&(u, v)| u < v && v < 5));
        seen.insert(t.edges.len());
        assert!(m.personas(&q).iter().all(|&p| p < 8));
    }
    assert_eq!(
        seen.len(),
        7,
        "every m from N−1 to N(N−1)/2 occurs: {seen:?}"
    );
    let fixed = MacNet::new(MacNetOptions {
        fixed_topology: true,
        ..MacNetOptions::default()
    })
    .unwrap();
    assert_eq!(fixed.topology(&query(0)), fixed.topology(&query(5)));
    assert_eq!(fixed.personas(&query(0)), fixed.personas(&query(5)));
    assert_ne!(
        (0..12)
            .map(|i| m.topology(&query(i)).edges)
            .collect::<std::collections::BTreeSet<_>>()
            .len(),
        1
    );
}

#[tokio::test]
async fn macnet_call_pattern_follows_the_graph() {
    let m = MacNet::new(MacNetOptions::default()).unwrap();
    for i in 0..6 {
        let q = query(i);
        let topo = m.topology(&q);
        let out = m.solve(&q, &roster(Arc::new(sim(0.7, 0.4)))).await.unwrap();
        let sources = (0..5).filter(|&v| topo.parents(v).is_empty()).count();
        let merges = (0..5).filter(|&v| topo.parents(v).len() >= 2).count();
        let sink = usize::from(topo.sinks().len() >= 2);
        let want = 2 * topo.edges.len() + sources + merges + sink;
        assert_eq!(
            out.usage.run.calls as usize, want,
            "item {i}: {}",
            out.trace
        );
        assert_eq!(out.trace["m"], topo.edges.len());
        let sink_id = "agent_5";
        for (agent, call) in out.transcript.calls() {
            let temp = call.request.sampling.temperature.unwrap();
            if agent.as_str() == sink_id {
                assert_eq!(temp, 0.0);
                assert_eq!(system(&call.request), "");
            } else {
                let v: usize = agent.as_str()[6..].parse().unwrap();
                assert!((f64::from(temp) - topo.temperature(v)).abs() < 1e-6);
                assert!(system(&call.request).starts_with("You are"));
            }
        }
        assert_eq!(out.trace["sink"]["synthesis"], topo.sinks().len() >= 2);
        assert_eq!(out.answer, out.trace["answer"].as_str().map(str::to_string));
    }
}

// ---------------------------------------------------------------- AgentVerse

#[test]
fn agentverse_recruitment_and_evaluation_parse() {
    let list = "Here is the team:\n1. A mathematician who checks sums.\n2) **A teacher** of \
                grade-school maths\n3. A third one";
    assert_eq!(
        parse_recruits(list, 2),
        vec![
            "A mathematician who checks sums.",
            "A teacher** of grade-school maths"
        ]
    );
    assert_eq!(
        parse_recruits("- 1. First\n* 2. Second", 5),
        vec!["First", "Second"]
    );
    assert!(parse_recruits("Experts: a mathematician and a teacher.", 2).is_empty());
    assert!(parse_recruits("1.\n2. ", 2).is_empty());
    assert_eq!(
        parse_evaluation("Looks right.\nCorrectness: 1\nAdvice: none"),
        Some((true, None))
    );
    assert_eq!(
        parse_evaluation("**Correctness:** 0\n**Advice:** recount the crates."),
        Some((false, Some("recount the crates.".into())))
    );
    assert_eq!(parse_evaluation("Correctness: maybe"), None);
    assert_eq!(parse_evaluation("I think it is right."), None);
}

/// Drafts are wrong until advised; critics agree only with revisions; the evaluator accepts
/// only advised solutions.
fn agentverse_script(r: &ChatRequest) -> String {
    let u = user(r);
    if u.contains(RECRUIT_MARKER) {
        return "1. A crate counter.\n2. A bottle checker.".into();
    }
    if u.contains(EVALUATE_MARKER) {
        return if u.contains("ADVISED") {
            "Correctness: 1\nAdvice: none".into()
        } else {
            "Correctness: 0\nAdvice: try harder".into()
        };
    }
    if u.contains(AGREE_MARKER) {
        let solution = u.split("<solution>").nth(1).unwrap_or("");
        return if solution.contains("REVISED") {
            format!("Matches mine. {AGREE_MARKER}")
        } else {
            "Step 2 is wrong.".into()
        };
    }
    let advised = if u.contains("try harder") {
        " ADVISED"
    } else {
        ""
    };
    if u.contains("Your last solution") {
        format!("REVISED{advised}. The answer is 12.")
    } else {
        format!("Draft{advised}. The answer is 11.")
    }
}

#[tokio::test]
async fn agentverse_turns_rounds_and_advice() {
    let out = policy_by_name("agentverse")
        .unwrap()
        .solve(&query(0), &roster(Arc::new(Scripted(agentverse_script))))
        .await
        .unwrap();
    let t = &out.trace;
    // Per turn: recruit, draft, critique (objection), revise, critique (agreement), evaluate.
    assert_eq!(out.usage.run.calls, 12, "{t}");
    assert_eq!(t["stop"], "correct");
    assert_eq!(out.answer.as_deref(), Some("12"));
    assert!(out.final_text.contains("REVISED ADVISED"));
    let turns = t["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 2);
    assert_eq!(turns[0]["correctness"], 0);
    assert_eq!(turns[0]["advice"], "try harder");
    assert_eq!(turns[1]["advice_in"], "try harder");
    assert_eq!(turns[0]["experts"][1], "A bottle checker.");
    assert_eq!(turns[0]["draft_answer"], "11");
    let rounds = turns[0]["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 2);
    assert_eq!(rounds[0]["agree"]["agent_1"], false);
    assert_eq!(rounds[0]["revised"], true);
    assert_eq!(rounds[1]["agree"]["agent_1"], true);
    // The advice reaches the second recruiter; nobody sends a system prompt; the roles open
    // the experts' prompts.
    let recruits: Vec<String> = out
        .transcript
        .calls()
        .filter(|(a, _)| a.as_str() == "agent_2")
        .map(|(_, c)| user(&c.request).to_string())
        .collect();
    assert_eq!(recruits.len(), 2);
    assert!(!recruits[0].contains("try harder") && recruits[1].contains("try harder"));
    for (agent, call) in out.transcript.calls() {
        assert_eq!(system(&call.request), "", "{agent}");
        if agent.as_str() == "agent_1" {
            assert!(user(&call.request).starts_with("Your role: A bottle checker."));
        }
    }
    assert_eq!(
        t["fallbacks"],
        serde_json::json!({"recruit": 0, "evaluator": 0, "empty_solution": 0})
    );
    // One criticising round: the objection is answered by a revision, then the evaluator.
    let one = AgentVerse::new(AgentVerseOptions {
        critic_rounds: 1,
        turns: 1,
        ..AgentVerseOptions::default()
    })
    .unwrap();
    let out = one
        .solve(&query(0), &roster(Arc::new(Scripted(agentverse_script))))
        .await
        .unwrap();
    assert_eq!(out.usage.run.calls, 5);
    assert_eq!(out.trace["stop"], "max_turns");
}

#[tokio::test]
async fn agentverse_fallbacks_are_counted() {
    fn unreadable(r: &ChatRequest) -> String {
        let u = user(r);
        if u.contains(RECRUIT_MARKER) {
            return "A mathematician and a teacher.".into();
        }
        if u.contains(EVALUATE_MARKER) {
            return "Seems plausible.".into();
        }
        if u.contains(AGREE_MARKER) {
            return AGREE_MARKER.into();
        }
        "Done. The answer is 12.".into()
    }
    let out = policy_by_name("agentverse")
        .unwrap()
        .solve(&query(0), &roster(Arc::new(Scripted(unreadable))))
        .await
        .unwrap();
    let t = &out.trace;
    assert_eq!(t["fallbacks"]["recruit"], 1);
    assert_eq!(t["fallbacks"]["evaluator"], 1);
    assert_eq!(t["stop"], "evaluator_unparsed");
    assert_eq!(
        out.usage.run.calls, 4,
        "recruit, draft, one agreeing critique, evaluate"
    );
    assert_eq!(t["turns"][0]["recruit_fallback"], true);
    assert!(t["turns"][0]["experts"][0]
        .as_str()
        .unwrap()
        .contains("problem solver"));
    assert_eq!(out.answer.as_deref(), Some("12"));
}
