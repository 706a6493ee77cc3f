//! `selforg`: SelfOrg as an embodied policy (none of the papers does this; the design is
//! colony's, following the issue that asked for it).
//!
//! Each step:
//! 1. perceptions of the deciding agents ([`crate::embodied::framework::perceive`]: the PERCEPTION call
//!    on Wildfire, the observation text elsewhere);
//! 2. every deciding agent **proposes** an action with a short rationale (purpose
//!    `selforg.propose`): its observation prompt, exactly as `independent` sends it;
//! 3. the proposals are embedded (the offline hashing embedder), and ψ, the DAG, the order and
//!    the leader come from the reasoning policy's graph code unchanged
//!    ([`crate::selforg::reasoning::graph::build_graph`], options `k`, `tau`, `rule`);
//! 4. agents **revise** their proposal along the DAG (purpose `selforg.revise`): the prompt
//!    is the observation followed by the proposals of the agent's parents, most useful
//!    (highest ψ) first; agents whose parents are done run concurrently, as in the reasoning
//!    policy, so results do not depend on completion order; `rounds` revision rounds per step
//!    (default 1), the graph rebuilt from the latest proposals before each;
//! 5. each agent executes its own revised action (the EXECUTION call on Wildfire).
//!
//! Options: `selforg:k=2,tau=0.5,rule=alg2|gated,rounds=1`. With one deciding agent there
//! is no graph: its proposal is its action. The step's trace (ψ, edges, order, leader per
//! round, by agent id) goes into `steps.jsonl` under `trace`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use async_trait::async_trait;
use colony_env_api::{AgentId, DynEnvironment};
use futures::future::join_all;
use serde_json::json;

use crate::embodied::caller::merge_failure;
use crate::embodied::framework::{execute_all, perceive, Names};
use crate::embodied::independent::with_feedback;
use crate::embodied::tags::tag_content;
use crate::embodied::{
    AgentView, CallLog, CallerConfig, CallerSlot, Decision, EmbodiedError, EmbodiedPolicy, StepView,
};
use crate::selforg::reasoning::graph::{build_graph, GraphOptions, Rule};
use colony_llm::embed::{Embedder, HashingEmbedder};

/// Most revision rounds per step.
pub const MAX_ROUNDS: usize = 5;

/// The embodied SelfOrg policy (see the module docs).
pub struct EmbodiedSelfOrg {
    slot: CallerSlot,
    graph: GraphOptions,
    rounds: usize,
    embedder: Arc<dyn Embedder>,
    structured: bool,
}

impl std::fmt::Debug for EmbodiedSelfOrg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbodiedSelfOrg")
            .field("graph", &self.graph)
            .field("rounds", &self.rounds)
            .finish()
    }
}

impl EmbodiedSelfOrg {
    /// Parses `k=…,tau=…,rule=…,rounds=…` (all optional); other options are refused.
    pub fn new(config: CallerConfig, options: &str) -> Result<Self, EmbodiedError> {
        crate::PolicyOptions::parse("selforg", options)?.read(|o| Self::with_options(config, o))
    }

    /// Reads `k` (0..=64), `tau` (in [-1, 1]), `rule` (`alg2` or `gated`) and `rounds`
    /// (1..=[`MAX_ROUNDS`]) from `o` (the registry's constructor; it refuses what is left).
    pub fn with_options(
        config: CallerConfig,
        o: &mut crate::PolicyOptions,
    ) -> Result<Self, EmbodiedError> {
        let err = |message: String| EmbodiedError::config("selforg", message);
        let mut graph = GraphOptions::default();
        graph.k = o.whole("k", graph.k as u64, 0..=64)? as usize;
        if let Some(tau) = o.float("tau")? {
            if !(-1.0..=1.0).contains(&tau) {
                return Err(err(format!("tau={tau}: expected a number in [-1, 1]")));
            }
            graph.tau = tau;
        }
        if let Some(rule) = crate::choice(o, "rule", "alg2|gated")? {
            graph.rule = if rule == "alg2" {
                Rule::Alg2
            } else {
                Rule::Gated
            };
        }
        let rounds = o.whole("rounds", 1, 1..=MAX_ROUNDS as u64)? as usize;
        // As the frameworks: `structured=true` constrains the EXECUTION call.
        let structured = crate::choice(o, "structured", "true|false")?.is_some_and(|v| v == "true");
        Ok(Self {
            slot: CallerSlot::new(config),
            graph,
            rounds,
            embedder: Arc::new(HashingEmbedder::new(512)),
            structured,
        })
    }
}

/// The action text inside a reply: the `<action>` tag when there is one (Wildfire's act
/// format), else the whole reply (it is parsed by the environment).
fn action_of(reply: &str) -> String {
    tag_content(reply, "action").unwrap_or_else(|| reply.to_string())
}

/// The revision prompt: the observation, then the parents' current proposals.
fn revise_prompt(observation: &str, names: &Names, parents: &[(AgentId, String)]) -> String {
    let mut out = observation.to_string();
    out.push_str(
        "\n\nProposals of the teammates you listen to, most useful first (consider them, then \
         give your own final action in the format asked above):\n",
    );
    for (id, text) in parents {
        out.push_str(&format!(
            "- {}: {}\n",
            names.name(id),
            text.replace('\n', " ")
        ));
    }
    out
}

#[async_trait]
impl EmbodiedPolicy for EmbodiedSelfOrg {
    fn name(&self) -> &str {
        "selforg"
    }

    fn wants_snapshot(&self) -> bool {
        true
    }

    fn structured(&self) -> bool {
        self.structured
    }

    async fn decide(&mut self, view: StepView) -> Result<Decision, EmbodiedError> {
        let env: Arc<dyn DynEnvironment + Sync> = match view.env.clone() {
            Some(e) => e,
            None => {
                return Err(EmbodiedError::Unsupported {
                    policy: "selforg".into(),
                    env: view.env_id.clone(),
                    reason: "the episode loop gave no environment snapshot".into(),
                })
            }
        };
        let caller = self.slot.caller(view.seed, &view.agents, &view.deciding)?;
        let step = view.step;
        let names = Names::new(&view.agents);
        let mut calls: Vec<CallLog> = Vec::new();
        let keep = |calls: &mut Vec<CallLog>, e: EmbodiedError| match e {
            EmbodiedError::Call {
                step,
                source,
                calls: mut made,
            } => {
                calls.append(&mut made);
                EmbodiedError::Call {
                    step,
                    source,
                    calls: std::mem::take(calls),
                }
            }
            other => other,
        };
        let (perceived, mut logs) = perceive(caller, &env, step, &view.deciding, None).await?;
        calls.append(&mut logs);
        let prompt_of = |a: &AgentView| {
            with_feedback(
                perceived.get(&a.id).cloned().unwrap_or_default(),
                a.feedback.as_deref(),
            )
        };
        // Proposals.
        let results = join_all(view.deciding.iter().map(|a| async {
            caller
                .ask(step, a, "selforg.propose", prompt_of(a))
                .await
                .map(|l| vec![l])
        }))
        .await;
        let mut proposals_log = merge_failure(step, results).map_err(|e| keep(&mut calls, e))?;
        let mut current: BTreeMap<AgentId, String> = proposals_log
            .iter()
            .map(|l| (l.agent.clone(), l.reply.clone().unwrap_or_default()))
            .collect();
        calls.append(&mut proposals_log);
        let ids: Vec<AgentId> = view.deciding.iter().map(|a| a.id.clone()).collect();
        let mut trace_rounds = Vec::new();
        if ids.len() > 1 {
            for _ in 0..self.rounds {
                let texts: Vec<String> = ids.iter().map(|i| current[i].clone()).collect();
                let r = self.embedder.embed(&texts).await.map_err(|e| {
                    EmbodiedError::config("selforg", format!("embedding the proposals: {e}"))
                })?;
                let graph = build_graph(r.view(), &self.graph).map_err(|e| {
                    EmbodiedError::config("selforg", format!("building the graph: {e}"))
                })?;
                trace_rounds.push(json!({
                    "agents": ids,
                    "psi": graph.psi,
                    "edges": graph.edges.iter().map(|(m, n)| [&ids[*m], &ids[*n]]).collect::<Vec<_>>(),
                    "order": graph.order.iter().map(|i| &ids[*i]).collect::<Vec<_>>(),
                    "leader": ids[graph.leader],
                }));
                // DAG-parallel revision: a wave is every agent whose parents are revised.
                let mut done: BTreeSet<usize> = BTreeSet::new();
                while done.len() < ids.len() {
                    let wave: Vec<usize> = graph
                        .order
                        .iter()
                        .copied()
                        .filter(|n| !done.contains(n))
                        .filter(|n| graph.parents(*n).iter().all(|p| done.contains(p)))
                        .collect();
                    if wave.is_empty() {
                        break;
                    }
                    let snapshot = current.clone();
                    let results = join_all(wave.iter().map(|&n| {
                        let parents: Vec<(AgentId, String)> = graph
                            .parents_by_psi(n)
                            .into_iter()
                            .map(|p| (ids[p].clone(), snapshot[&ids[p]].clone()))
                            .collect();
                        let view_n = &view.deciding[n];
                        let prompt = revise_prompt(&prompt_of(view_n), &names, &parents);
                        async move {
                            caller
                                .ask(step, view_n, "selforg.revise", prompt)
                                .await
                                .map(|l| vec![l])
                        }
                    }))
                    .await;
                    let mut revised =
                        merge_failure(step, results).map_err(|e| keep(&mut calls, e))?;
                    for l in &revised {
                        current.insert(l.agent.clone(), l.reply.clone().unwrap_or_default());
                    }
                    calls.append(&mut revised);
                    done.extend(wave);
                }
            }
        }
        // Each agent executes its own final action.
        let chosen: Vec<(AgentView, String)> = view
            .deciding
            .iter()
            .map(|a| (a.clone(), action_of(&current[&a.id])))
            .collect();
        let (mut replies, mut exec_logs) = execute_all(caller, step, chosen, None)
            .await
            .map_err(|e| keep(&mut calls, e))?;
        if exec_logs.is_empty() {
            // No execution module: the last proposal or revision of each agent is its action.
            for id in &ids {
                if let Some(c) = calls
                    .iter_mut()
                    .rev()
                    .find(|c| &c.agent == id && c.purpose.starts_with("selforg."))
                {
                    c.decides = true;
                }
            }
            for id in &ids {
                replies.insert(id.clone(), current[id].clone());
            }
        }
        calls.append(&mut exec_logs);
        caller.forget_transcript();
        self.slot.trace = (!trace_rounds.is_empty()).then(|| json!({"rounds": trace_rounds}));
        Ok(Decision { replies, calls })
    }

    fn slot(&mut self) -> Option<&mut CallerSlot> {
        Some(&mut self.slot)
    }
}
