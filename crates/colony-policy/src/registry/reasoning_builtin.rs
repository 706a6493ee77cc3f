//! The built-in reasoning policies' constructors and the option parser every reasoning
//! policy, built-in or a plugin's, reads its `name:key=value,…` options with
//! ([`PolicyOptions`]). Which name builds which policy is decided by the open
//! [`crate::registry::Registry`], where colony registers these constructors through the same
//! public method a user's crate calls.
//!
//! Counts are bounded so that no option runs open-ended: `self_consistency` k ≤
//! [`SelfConsistency::MAX_K`] (64), `debate` agents ≤ [`Debate::MAX_AGENTS`] (64) and rounds ≤
//! [`Debate::MAX_ROUNDS`] (20), `selforg` agents ≤ [`SelfOrgOptions::MAX_AGENTS`] (64), rounds ≤
//! [`SelfOrgOptions::MAX_ROUNDS`] (20) and k ≤ [`SelfOrgOptions::MAX_K`] (64), `swarmsys`
//! agents 3–64, rounds ≤ 40 and event rounds ≤ 20 ([`SwarmSysOptions`]), `dylan` agents ≤ 32
//! and rounds ≤ 3, `macnet` agents ≤ 16, `agentverse` experts 2–8, turns and criticising
//! rounds ≤ 10 (their `*Options::MAX_*` constants), `autogen` rounds ≤ 20, `self_refine`
//! iterations ≤ 10, `mad` rounds ≤ 10, `multipersona` demonstrations ≤ 2, `gptswarm`
//! and `gdesigner` agents 2–8, iterations ≤ 1000 and batch ≤ 64; numbers (`tau`,
//! `gamma`, `eta`, …) must be finite. Errors name the policy and the option, and quote at most a short
//! prefix of what was given.

use colony_env_api::clip;

use crate::options::{choice, PolicyOptions};

use crate::reasoning::{
    AgentVerse, AgentVerseOptions, BuildReasoning, ChainOfThought, Debate, Dylan, DylanOptions,
    MacNet, MacNetOptions, PolicyError, React, ReasoningContext, ReasoningPolicy, SelfConsistency,
    Single,
};
use crate::selforg::reasoning::{EmbedInput, GraphOptions, Rule, SelfOrg, SelfOrgOptions};
use crate::swarmsys::reasoning::{
    EpsilonBounds, Mode, ProfileScope, RoleCounts, RolesMode, SwarmSys, SwarmSysOptions,
};

/// The built-in reasoning policies: name, aliases, one-line help (options and limits) and
/// constructor, in the order `colony eval --help` lists them.
pub const BUILTIN: &[(&str, &[&str], &str, BuildReasoning)] = &[
    ("single", &["io"], "one call per item, no options", single),
    ("cot", &[], "chain of thought, no options", cot),
    (
        "react",
        &[],
        "one agent that calls tools until it answers (the run's --tools, else the calculator); \
         steps=<tool rounds without --tools, default 8, at most 64>",
        react,
    ),
    (
        "self_consistency",
        &["sc"],
        "k=<samples, default 5, at most 64>",
        self_consistency,
    ),
    (
        "debate",
        &["llm_debate"],
        "agents=<N, default 3, at most 64>, rounds=<R, default 2, at most 20>",
        debate,
    ),
    (
        "dylan",
        &[],
        "agents=4 (at most 32), rounds=3 (1 to 3: answers, updates with ratings, the ranked \
         two), roles=auto|assistant|mixed",
        dylan,
    ),
    (
        "macnet",
        &[],
        "agents=5 (at most 16), fixed_topology=false (true: one random graph for every item)",
        macnet,
    ),
    (
        "gdesigner",
        &["g_designer"],
        "a GCN over role and query embeddings designs each query's graph, trained by REINFORCE \
         on --train items; agents=4 (2 to 8), hidden=32, latent=16, iterations=20, batch=4, \
         lr=0.01, sparsity=0.1, weights=<a saved <label>.<dataset>.learnt.json>",
        gdesigner,
    ),
    (
        "agentverse",
        &[],
        "experts=2 (2 to 8: a solver and critics), turns=3 (at most 10), critic_rounds=3 (at \
         most 10)",
        agentverse,
    ),
    (
        "autogen",
        &[],
        "group chat of an assistant and a critic under a speaker-selecting manager, until \
         TERMINATE; rounds=3 (messages after the task, at most 20)",
        autogen,
    ),
    (
        "self_refine",
        &["selfrefine"],
        "answer, feedback, refine until the feedback says stop; iterations=4 (at most 10)",
        self_refine,
    ),
    (
        "multipersona",
        &["spp"],
        "solo performance prompting: one call simulating personas; demonstrations=2 (0 to 2)",
        multipersona,
    ),
    (
        "mad",
        &[],
        "affirmative and negative debaters, a moderator who may end early, a judge; rounds=3 \
         (at most 10)",
        mad,
    ),
    (
        "gptswarm",
        &[],
        "agents as graph nodes, edge probabilities learnt by REINFORCE on --train items; \
         agents=4 (2 to 8), iterations=20 (at most 1000), batch=4 (at most 64), lr=0.1, \
         edges=<a saved <label>.<dataset>.learnt.json>",
        gptswarm,
    ),
    (
        "selforg",
        &[],
        "agents=4 (at most 64), rounds=3 (incl. round 0, at most 20), k=2 (0 = no limit, at \
         most 64), tau=0.5, rule=alg2|gated, reform=true, gamma=<off>, embed=full|tail|answer \
         (what of each response is embedded)",
        selforg,
    ),
    (
        "swarmsys",
        &[],
        "agents=8 (3 to 64; split 1/6/1, docs/design/swarmsys.md §2.2), explorers=, workers=, validators= \
         (per-role counts), mode=a|b|c (single, decomposed, exam), roles=matched|random|none, \
         profile_scope=task|run, rounds=8 (global, at most 40), event_rounds=4 (at most 20), \
         exam_size=10 (at most 16), gamma=10, eps_min=0.15, eps_max=0.35, window=5, eta=0.2, \
         w_s=1, token_budget=<off>, instruction=auto|long|short, abilities=a|b|c (worker \
         specialties)",
        swarmsys,
    ),
];

fn single(
    _: &mut PolicyOptions,
    _: &ReasoningContext,
) -> Result<Box<dyn ReasoningPolicy>, PolicyError> {
    Ok(Box::new(Single))
}

fn cot(
    _: &mut PolicyOptions,
    _: &ReasoningContext,
) -> Result<Box<dyn ReasoningPolicy>, PolicyError> {
    Ok(Box::new(ChainOfThought))
}

fn react(
    options: &mut PolicyOptions,
    _: &ReasoningContext,
) -> Result<Box<dyn ReasoningPolicy>, PolicyError> {
    let steps = match options.count("steps")? {
        Some(n) => u32::try_from(n).unwrap_or(u32::MAX),
        None => React::default().steps,
    };
    Ok(Box::new(React::new(steps)?))
}

fn self_consistency(
    options: &mut PolicyOptions,
    _: &ReasoningContext,
) -> Result<Box<dyn ReasoningPolicy>, PolicyError> {
    let k = options.count("k")?.unwrap_or(SelfConsistency::default().k);
    Ok(Box::new(SelfConsistency::new(k)?))
}

fn debate(
    options: &mut PolicyOptions,
    _: &ReasoningContext,
) -> Result<Box<dyn ReasoningPolicy>, PolicyError> {
    let d = Debate::default();
    let agents = options.count("agents")?.unwrap_or(d.agents);
    let rounds = options.count("rounds")?.unwrap_or(d.rounds);
    Ok(Box::new(Debate::new(agents, rounds)?))
}

fn dylan(
    options: &mut PolicyOptions,
    _: &ReasoningContext,
) -> Result<Box<dyn ReasoningPolicy>, PolicyError> {
    Ok(Box::new(Dylan::new(DylanOptions::from_options(options)?)?))
}

fn macnet(
    options: &mut PolicyOptions,
    _: &ReasoningContext,
) -> Result<Box<dyn ReasoningPolicy>, PolicyError> {
    Ok(Box::new(MacNet::new(MacNetOptions::from_options(
        options,
    )?)?))
}

fn agentverse(
    options: &mut PolicyOptions,
    _: &ReasoningContext,
) -> Result<Box<dyn ReasoningPolicy>, PolicyError> {
    Ok(Box::new(AgentVerse::new(AgentVerseOptions::from_options(
        options,
    )?)?))
}

fn self_refine(
    options: &mut PolicyOptions,
    _: &ReasoningContext,
) -> Result<Box<dyn ReasoningPolicy>, PolicyError> {
    Ok(Box::new(crate::reasoning::SelfRefine::from_options(
        options,
    )?))
}

fn multipersona(
    options: &mut PolicyOptions,
    _: &ReasoningContext,
) -> Result<Box<dyn ReasoningPolicy>, PolicyError> {
    Ok(Box::new(crate::reasoning::MultiPersona::from_options(
        options,
    )?))
}

fn autogen(
    options: &mut PolicyOptions,
    _: &ReasoningContext,
) -> Result<Box<dyn ReasoningPolicy>, PolicyError> {
    Ok(Box::new(crate::reasoning::AutoGen::from_options(options)?))
}

fn mad(
    options: &mut PolicyOptions,
    _: &ReasoningContext,
) -> Result<Box<dyn ReasoningPolicy>, PolicyError> {
    Ok(Box::new(crate::reasoning::Mad::from_options(options)?))
}

fn gdesigner(
    options: &mut PolicyOptions,
    ctx: &ReasoningContext,
) -> Result<Box<dyn ReasoningPolicy>, PolicyError> {
    Ok(Box::new(crate::reasoning::GDesigner::new(
        crate::reasoning::GDesignerOptions::from_options(options)?,
        ctx.embedder.clone(),
    )?))
}

fn gptswarm(
    options: &mut PolicyOptions,
    _: &ReasoningContext,
) -> Result<Box<dyn ReasoningPolicy>, PolicyError> {
    Ok(Box::new(crate::reasoning::GptSwarm::new(
        crate::reasoning::GptSwarmOptions::from_options(options)?,
    )?))
}

fn swarmsys(
    options: &mut PolicyOptions,
    ctx: &ReasoningContext,
) -> Result<Box<dyn ReasoningPolicy>, PolicyError> {
    Ok(Box::new(SwarmSys::new(
        swarmsys_options(options)?,
        ctx.embedder.clone(),
    )?))
}

fn selforg(
    options: &mut PolicyOptions,
    ctx: &ReasoningContext,
) -> Result<Box<dyn ReasoningPolicy>, PolicyError> {
    let d = SelfOrgOptions::default();
    let rule = match options.text("rule").as_deref() {
        None => d.graph.rule,
        Some("alg2") => Rule::Alg2,
        Some("gated") | Some("contribution_gated") => Rule::Gated,
        Some(other) => {
            return Err(PolicyError::from(crate::OptionError::Invalid {
                policy: "selforg".into(),
                key: "rule".into(),
                reason: format!("must be alg2 or gated, got `{}`", clip(other)),
            }))
        }
    };
    let reform = match options.text("reform").as_deref() {
        None => d.reform,
        Some("true") => true,
        Some("false") => false,
        Some(other) => {
            return Err(PolicyError::from(crate::OptionError::Invalid {
                policy: "selforg".into(),
                key: "reform".into(),
                reason: format!("must be true or false, got `{}`", clip(other)),
            }))
        }
    };
    let embed = match options.text("embed") {
        None => d.embed,
        Some(v) => EmbedInput::parse(&v).ok_or_else(|| {
            PolicyError::from(crate::OptionError::Invalid {
                policy: "selforg".into(),
                key: "embed".into(),
                reason: format!("must be full, tail or answer, got `{}`", clip(&v)),
            })
        })?,
    };
    let rounds = options.count("rounds")?;
    let max_rounds = match rounds {
        None => d.max_rounds,
        Some(r) => u32::try_from(r)
            .ok()
            .filter(|&r| r <= SelfOrgOptions::MAX_ROUNDS)
            .ok_or(PolicyError::OutOfRange {
                policy: "selforg",
                option: "rounds",
                value: r,
                min: 1,
                max: SelfOrgOptions::MAX_ROUNDS as usize,
            })?,
    };
    let opts = SelfOrgOptions {
        agents: options.count("agents")?.unwrap_or(d.agents),
        max_rounds,
        graph: GraphOptions {
            rule,
            k: options.count("k")?.unwrap_or(d.graph.k),
            tau: options.float("tau")?.unwrap_or(d.graph.tau),
        },
        reform,
        gamma: options.float("gamma")?,
        embed,
        ..d
    };
    Ok(Box::new(SelfOrg::new(opts, ctx.embedder.clone())?))
}

/// SwarmSys options (docs/design/swarmsys.md §2.12 defaults for everything not given).
fn swarmsys_options(o: &mut PolicyOptions) -> Result<SwarmSysOptions, PolicyError> {
    let d = SwarmSysOptions::default();
    let counts = RoleCounts::from_options(
        o.count("agents")?,
        o.count("explorers")?,
        o.count("workers")?,
        o.count("validators")?,
    )?;
    let mode = choice(o, "mode", "a|b|c|single|decomposed|exam")?
        .and_then(|m| Mode::parse(&m))
        .unwrap_or(d.mode);
    let roles = choice(o, "roles", "matched|random|none")?
        .and_then(|m| RolesMode::parse(&m))
        .unwrap_or(d.roles);
    let profile_scope = match choice(o, "profile_scope", "task|run")?.as_deref() {
        Some("run") => ProfileScope::Run,
        Some(_) => ProfileScope::Task,
        None => d.profile_scope,
    };
    let instruction = match choice(o, "instruction", "auto|long|short")?.as_deref() {
        Some("long") => crate::swarmsys::reasoning::encode::Instruction::Long,
        Some("short") => crate::swarmsys::reasoning::encode::Instruction::Short,
        Some(_) => crate::swarmsys::reasoning::encode::Instruction::Auto,
        None => d.instruction,
    };
    let rounds =
        |o: &mut PolicyOptions, key: &'static str, default: u32, max: u32| match o.count(key)? {
            None => Ok(default),
            Some(r) => u32::try_from(r)
                .ok()
                .filter(|&r| r <= max)
                .ok_or(PolicyError::OutOfRange {
                    policy: "swarmsys",
                    option: key,
                    value: r,
                    min: 1,
                    max: max as usize,
                }),
        };
    let opts = SwarmSysOptions {
        counts,
        mode,
        roles,
        profile_scope,
        max_rounds: rounds(o, "rounds", d.max_rounds, SwarmSysOptions::MAX_ROUNDS)?,
        event_rounds: rounds(
            o,
            "event_rounds",
            d.event_rounds,
            SwarmSysOptions::MAX_EVENT_ROUNDS,
        )?,
        exam_size: o.count("exam_size")?.unwrap_or(d.exam_size),
        window: o.count("window")?.unwrap_or(d.window),
        gamma: o.float("gamma")?.unwrap_or(d.gamma),
        eps: EpsilonBounds {
            min: o.float("eps_min")?.unwrap_or(d.eps.min),
            max: o.float("eps_max")?.unwrap_or(d.eps.max),
        },
        eta: o.float("eta")?.unwrap_or(d.eta),
        w_s: o.float("w_s")?.unwrap_or(d.w_s),
        token_budget: o.count("token_budget")?.map(|n| n as u64),
        instruction,
        worker_abilities: o
            .text("abilities")
            .map(|a| {
                a.split('|')
                    .map(str::trim)
                    .filter(|x| !x.is_empty())
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default(),
        ..d
    };
    opts.validate()?;
    Ok(opts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// The built-in policy `spec` with the default embedder.
    fn policy_by_name(spec: &str) -> Result<Box<dyn ReasoningPolicy>, PolicyError> {
        let ctx = ReasoningContext::new(Arc::new(colony_llm::embed::default_embedder()));
        crate::registry::Registry::builtin().reasoning(spec, &ctx)
    }

    #[test]
    fn parses_names_and_options() {
        assert!(policy_by_name("single").is_ok());
        assert!(policy_by_name("debate:agents=4,rounds=3").is_ok());
        assert!(policy_by_name("nope").is_err());
        assert!(policy_by_name("cot:k=2").is_err());
        assert!(policy_by_name("sc:k=0").is_err());
        assert!(
            policy_by_name("selforg:k=2,tau=0.5,rounds=3,gamma=0.9,rule=gated,reform=false")
                .is_ok()
        );
        assert!(policy_by_name("selforg:tau=x").is_err());
        assert!(policy_by_name("selforg:rule=magic").is_err());
        for (spec, name) in [
            ("selforg:embed=full", "selforg"),
            ("selforg:embed=tail", "selforg_tail"),
            ("selforg:embed=Answer,gamma=0.9", "selforg_answer"),
        ] {
            assert_eq!(
                policy_by_name(spec)
                    .map(|p| p.name().to_string())
                    .ok()
                    .as_deref(),
                Some(name)
            );
        }
        let err = policy_by_name("selforg:embed=head")
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some("policy configuration: selforg: option `embed` must be full, tail or answer, got `head`")
        );
        assert!(policy_by_name("swarmsys").is_ok());
        assert!(policy_by_name(
            "swarmsys:agents=14,mode=b,roles=random,profile_scope=run,gamma=5,eps_min=0.1,\
             eps_max=0.4,window=3,eta=0.1,w_s=0.5,rounds=6,event_rounds=3,exam_size=5,\
             token_budget=10000,instruction=short,abilities=algebra|geometry"
        )
        .is_ok());
        for (spec, needle) in [
            ("swarmsys:agents=2", "option `agents` must be from 3 to 64"),
            ("swarmsys:mode=z", "option `mode` must be one of"),
            ("swarmsys:roles=x", "option `roles` must be one of"),
            ("swarmsys:agents=8,workers=3", "agents=8 but"),
            ("swarmsys:rounds=41", "option `rounds` must be from 1 to 40"),
            ("swarmsys:eps_min=0.5,eps_max=0.2", "eps_min"),
            ("swarmsys:gamma=-1", "must not be negative"),
            ("swarmsys:colour=red", "unknown option `colour`"),
        ] {
            let err = policy_by_name(spec).err().map(|e| e.to_string());
            assert!(
                err.as_deref().is_some_and(|e| e.contains(needle)),
                "{spec}: {err:?}"
            );
        }
    }

    #[test]
    fn counts_are_bounded_and_errors_name_the_option() {
        assert!(policy_by_name("debate:agents=64,rounds=20").is_ok());
        assert!(policy_by_name("sc:k=64").is_ok());
        assert!(policy_by_name("selforg:agents=64,rounds=20,k=64").is_ok());
        for (spec, needle) in [
            (
                "debate:rounds=1000000",
                "option `rounds` must be from 1 to 20",
            ),
            (
                "debate:agents=100000",
                "option `agents` must be from 1 to 64",
            ),
            (
                "self_consistency:k=1000000",
                "option `k` must be from 1 to 64",
            ),
            ("selforg:agents=65", "option `agents` must be from 1 to 64"),
            ("selforg:rounds=21", "option `rounds` must be from 1 to 20"),
            (
                "selforg:rounds=99999999999",
                "option `rounds` must be from 1 to 20",
            ),
            ("selforg:k=65", "option `k` must be from 0 to 64"),
            ("selforg:tau=NaN", "option `tau` must be a finite number"),
            (
                "selforg:gamma=inf",
                "option `gamma` must be a finite number",
            ),
        ] {
            let err = policy_by_name(spec).err().map(|e| e.to_string());
            assert!(
                err.as_deref().is_some_and(|e| e.contains(needle)),
                "{spec}: {err:?}"
            );
        }
        let huge = format!("debate:agents={}", "9".repeat(100_000));
        let err = policy_by_name(&huge).err().map(|e| e.to_string());
        assert!(
            err.as_deref()
                .is_some_and(|e| e.len() < 300 && e.contains('…')),
            "{err:?}"
        );
    }
}
