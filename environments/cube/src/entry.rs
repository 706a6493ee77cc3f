//! How CUBE presents itself to `colony env …`: parameters, construction from `--set`, layout
//! files and the built-in heuristic.

use colony_env_api::registry::unknown_policy;
use colony_env_api::{
    boxed, typed_policy, DynEnvironment, DynPolicy, EnvEntry, EnvError, EnvInfo, EnvParams,
    ParamSpec,
};

use crate::config::{format_block_specs, parse_block_specs, CubeConfig};
use crate::env::CubeEnv;
use crate::heuristic::HeuristicPolicy;
use crate::layout::parse_layout;
use crate::CubeError;

/// Default `n` when `--set n=…` is not given (the spec requires `n`; the CLI needs a default
/// because `env step` builds the environment before loading a state).
pub const DEFAULT_N: u32 = 4;

struct CubeEntry;

static ENTRY: CubeEntry = CubeEntry;

/// The CUBE entry for the `colony` environment registry.
pub fn entry() -> &'static dyn EnvEntry {
    &ENTRY
}

fn params() -> Vec<ParamSpec> {
    vec![
        ParamSpec::new(
            "n",
            &DEFAULT_N.to_string(),
            "curriculum parameter, 1..=500: agents, grid max(20,n), blocks (docs/design/cube.md §4.2)",
        ),
        ParamSpec::new("grid_size", "max(20,n)", "grid side K, at most 500"),
        ParamSpec::new("num_agents", "n", "number of agents (≤ K)"),
        ParamSpec::new(
            "block_specs",
            "from n",
            "block tiers WEIGHTxCOUNT,… e.g. 3x1,1x2; at most 256 blocks, weight ≤ K−3, blocks and moats must fit the grid",
        ),
        ParamSpec::new(
            "max_steps",
            "500",
            "truncation horizon, at most 1000000000 (the paper's baselines use 200)",
        ),
        ParamSpec::new("step_cost", "0.01", "per-step cost r_s (finite)"),
        ParamSpec::new(
            "deliver_reward",
            "1.0",
            "reward per unit of delivered weight r_d (finite)",
        ),
    ]
}

fn to_env_error(e: CubeError) -> EnvError {
    match e {
        // Placement failing for the first seed means the blocks hardly fit the grid.
        CubeError::Invalid { field, message } if field == "seed" => EnvError::Param {
            key: "block_specs".into(),
            message: format!("{message} for seed 0: the blocks hardly fit the grid"),
        },
        CubeError::Invalid { field, message } => EnvError::Param {
            key: field,
            message,
        },
        other => EnvError::Param {
            key: "config".into(),
            message: other.to_string(),
        },
    }
}

/// Reads every CUBE parameter from `params`, rejecting unknown keys.
pub fn config_from_params(mut params: EnvParams) -> Result<CubeConfig, EnvError> {
    let mut c = CubeConfig::new(params.take("n", DEFAULT_N)?);
    let grid: u32 = params.take("grid_size", 0)?;
    c.grid_size = (grid > 0).then_some(grid);
    let agents: u32 = params.take("num_agents", 0)?;
    c.num_agents = (agents > 0).then_some(agents);
    let specs: String = params.take("block_specs", String::new())?;
    if !specs.is_empty() {
        c.block_specs = Some(parse_block_specs(&specs).map_err(to_env_error)?);
    }
    c.max_steps = params.take("max_steps", c.max_steps)?;
    c.step_cost = params.take("step_cost", c.step_cost)?;
    c.deliver_reward = params.take("deliver_reward", c.deliver_reward)?;
    params.finish(&self::params())?;
    c.validate().map_err(to_env_error)?;
    Ok(c)
}

impl EnvEntry for CubeEntry {
    fn templates(&self) -> Vec<(&'static str, &'static str)> {
        vec![("cube/naive_agent", crate::llm_play::NAIVE_AGENT_TEMPLATE)]
    }
    fn legend(&self) -> Vec<colony_env_api::LegendEntry> {
        crate::describe::legend()
    }
    fn picture_rows(&self) -> colony_env_api::PictureRows {
        colony_env_api::PictureRows::Labelled
    }

    fn info(&self) -> EnvInfo {
        EnvInfo {
            id: "cube-v0".into(),
            description: format!(
                "CUBE cooperative block pushing (n-curriculum; n=8 gives blocks {})",
                format_block_specs(&crate::config::block_specs_for(8))
            ),
            params: params(),
        }
    }

    fn make(&self, params: EnvParams) -> Result<Box<dyn DynEnvironment>, EnvError> {
        let config = config_from_params(params)?;
        Ok(boxed(CubeEnv::new(config).map_err(to_env_error)?))
    }

    fn make_from_layout(
        &self,
        params: EnvParams,
        layout: &str,
    ) -> Result<Box<dyn DynEnvironment>, EnvError> {
        let base = config_from_params(params)?;
        let layout = parse_layout(layout).map_err(to_env_error)?;
        let config = CubeConfig {
            max_steps: base.max_steps,
            step_cost: base.step_cost,
            deliver_reward: base.deliver_reward,
            ..CubeConfig::from_layout(layout)
        };
        Ok(boxed(CubeEnv::new(config).map_err(to_env_error)?))
    }

    /// The simulated naive language agent (docs/design/cube.md §12.2,
    /// [`crate::sim_agent::simulated_reply`]): `None` for prompts that are not CUBE naive-agent
    /// prompts.
    fn simulated_agent(&self) -> Option<colony_env_api::SimulatedAgent> {
        Some(crate::sim_agent::simulated_reply)
    }

    fn policy_names(&self) -> Vec<&'static str> {
        vec!["heuristic"]
    }

    fn make_own_policy(&self, name: &str, _seed: u64) -> Result<Box<dyn DynPolicy>, EnvError> {
        match name {
            "heuristic" => Ok(typed_policy::<CubeEnv, _>(HeuristicPolicy)),
            other => Err(unknown_policy(other, &self.policy_names())),
        }
    }
}
