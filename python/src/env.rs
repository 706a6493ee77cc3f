//! One colony environment for Python: text and numeric interfaces over
//! [`colony_env_api::DynEnvironment`], built by name from the registry with `--set` settings.

use std::collections::BTreeMap;
use std::sync::Mutex;

use colony_env_api::numeric::no_numeric_spaces;
use colony_env_api::{DynEnvironment, NumericSpaces, StepOutcome};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::colony_error;

/// The most bytes of numeric observations one reset or step returns (every agent's, end to
/// end). Decision: settings whose observations exceed it (`size=2000, view=1999`) are refused
/// when the environment is built, naming the figures, instead of failing an allocation later.
pub const MAX_OBSERVATION_BYTES: u64 = 256 << 20;

/// An environment and what Python asks of it often: the agent order and numeric spaces.
pub(crate) struct Inner {
    /// The environment.
    pub env: Box<dyn DynEnvironment>,
    /// Agent ids, in the environment's order.
    pub agents: Vec<String>,
    /// Each agent's numeric spaces (`None`: text only).
    pub spaces: Vec<Option<NumericSpaces>>,
}

impl Inner {
    /// Builds environment `name` from `key=value` settings, reset to seed 0.
    pub fn build(name: &str, settings: &[String]) -> PyResult<Self> {
        let (_, mut env) = crate::registry()
            .build_environment(name, settings)
            .map_err(colony_error)?;
        env.reset(0);
        let agents = env.agents();
        let spaces: Vec<Option<NumericSpaces>> = agents
            .iter()
            .map(|a| env.numeric().and_then(|n| n.numeric_spaces(a)))
            .collect();
        let values: u64 = spaces
            .iter()
            .map(|s| {
                s.as_ref().map_or(0u64, |s| {
                    s.shape
                        .iter()
                        .fold(1u64, |n, &d| n.saturating_mul(d as u64))
                })
            })
            .fold(0u64, u64::saturating_add);
        let bytes = values.saturating_mul(4);
        if bytes > MAX_OBSERVATION_BYTES {
            return Err(colony_error(format!(
                "{}: the numeric observations of its {} agents are {} MB per reset or step, more \
                 than the {} MB a Python environment returns; use a smaller view, grid or team",
                env.id(),
                agents.len(),
                bytes / 1_000_000,
                MAX_OBSERVATION_BYTES / 1_000_000
            )));
        }
        Ok(Self {
            env,
            agents,
            spaces,
        })
    }

    /// Every agent's numeric observation as little-endian f32 bytes, written once, straight
    /// into the Python `bytes` returned (allocation failure is Python's `MemoryError`).
    pub fn observation_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let n = self.observation_len();
        PyBytes::new_with(py, n * 4, |buf| {
            match bytemuck::try_cast_slice_mut::<u8, f32>(buf) {
                Ok(values) if cfg!(target_endian = "little") => {
                    self.observe_all(values).map_err(colony_error)
                }
                _ => {
                    let mut values = vec![0.0f32; n];
                    self.observe_all(&mut values).map_err(colony_error)?;
                    buf.copy_from_slice(&crate::bytes::from_f32(&values));
                    Ok(())
                }
            }
        })
    }

    /// Total observation values over every agent (0 for text-only agents).
    pub fn observation_len(&self) -> usize {
        self.spaces
            .iter()
            .map(|s| s.as_ref().map_or(0, NumericSpaces::observation_len))
            .sum()
    }

    /// Every agent's numeric observation, end to end in agent order, into `out`.
    pub fn observe_all(&self, out: &mut [f32]) -> Result<(), colony_env_api::EnvError> {
        let mut rest = out;
        for (agent, space) in self.agents.iter().zip(&self.spaces) {
            let n = space.as_ref().map_or(0, NumericSpaces::observation_len);
            let (mine, tail) = std::mem::take(&mut rest).split_at_mut(n);
            if space.is_some() {
                self.env
                    .numeric()
                    .ok_or_else(|| no_numeric_spaces(self.env.id()))?
                    .observe_numeric(agent, mine)?;
            }
            rest = tail;
        }
        Ok(())
    }

    /// Rewards of `outcome` in agent order (0 for an agent without one).
    pub fn rewards(&self, outcome: &StepOutcome) -> Vec<f64> {
        self.agents
            .iter()
            .map(|a| outcome.rewards.get(a).copied().unwrap_or(0.0))
            .collect()
    }
}

/// `(action_nvec, observation_shape, low, high)`, as [`Env::spaces`] returns it.
type SpacesTuple = (Vec<u32>, Vec<usize>, f32, f32);

/// One colony environment: `Env(name, settings)` with settings as `--set` takes them
/// (`["n=4", "max_steps=50"]`). The `colony.envs` modules wrap it as a PettingZoo
/// `ParallelEnv`; use it directly for the raw text and byte interfaces.
#[pyclass(module = "colony._colony")]
pub struct Env {
    inner: Mutex<Inner>,
}

impl Env {
    fn with<T>(&self, f: impl FnOnce(&mut Inner) -> PyResult<T>) -> PyResult<T> {
        let mut guard = self
            .inner
            .lock()
            .map_err(|_| colony_error("the environment was poisoned by an earlier panic"))?;
        f(&mut guard)
    }
}

#[pymethods]
impl Env {
    /// Builds environment `name` (an id such as `swarmbench-v0` or a short name such as
    /// `cube`) from `key=value` settings; raises `ColonyError` naming a bad setting.
    #[new]
    #[pyo3(signature = (name, settings = Vec::new()))]
    fn new(name: &str, settings: Vec<String>) -> PyResult<Self> {
        Ok(Self {
            inner: Mutex::new(Inner::build(name, &settings)?),
        })
    }

    /// The environment id (`cube-v0`).
    #[getter]
    fn id(&self) -> PyResult<String> {
        self.with(|i| Ok(i.env.id().to_string()))
    }

    /// Agent ids, in the environment's order.
    fn agents(&self) -> PyResult<Vec<String>> {
        self.with(|i| Ok(i.agents.clone()))
    }

    /// Agent `agent`'s numeric spaces as `(action_nvec, observation_shape, low, high)`, or
    /// `None` when the environment is text only.
    fn spaces(&self, agent: &str) -> PyResult<Option<SpacesTuple>> {
        self.with(|i| {
            let k = index(i, agent)?;
            Ok(i.spaces[k]
                .as_ref()
                .map(|s| (s.actions.clone(), s.shape.clone(), s.low, s.high)))
        })
    }

    /// Starts the episode of `seed` (deterministic: the same seed gives the same episode as
    /// `colony env reset`).
    fn reset(&self, py: Python<'_>, seed: u64) -> PyResult<()> {
        py.detach(|| {
            self.with(|i| {
                i.env.reset(seed);
                Ok(())
            })
        })
    }

    /// Every agent's numeric observation as f32 bytes, end to end in agent order.
    fn observe_all<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        self.with(|i| i.observation_bytes(py))
    }

    /// One step from int64 action codes (bytes, end to end in agent order); returns
    /// `(rewards as f64 bytes in agent order, terminated, truncated, events as JSON text)`.
    fn step_codes<'py>(
        &self,
        py: Python<'py>,
        codes: &[u8],
    ) -> PyResult<(Bound<'py, PyBytes>, bool, bool, String)> {
        let codes = crate::bytes::codes(codes)?;
        let (rewards, term, trunc, events) = py.detach(|| {
            self.with(|i| {
                let id = i.env.id();
                let numeric = i.env.numeric_mut().ok_or_else(|| no_numeric_spaces(id));
                let o = numeric
                    .and_then(|n| n.step_codes(&codes))
                    .map_err(colony_error)?;
                let events = serde_json::to_string(&o.events).map_err(colony_error)?;
                Ok((i.rewards(&o), o.terminated, o.truncated, events))
            })
        })?;
        let rewards = PyBytes::new(py, &crate::bytes::from_f64(&rewards));
        Ok((rewards, term, trunc, events))
    }

    /// One step from action texts (`{"Agent_0": "ACTION: UP\nMSG: hi"}`, the text interface
    /// LLM agents use; agents left out take their no-op); returns `(rewards by agent,
    /// terminated, truncated, events as JSON text)`.
    fn step_text(
        &self,
        py: Python<'_>,
        actions: BTreeMap<String, String>,
    ) -> PyResult<(BTreeMap<String, f64>, bool, bool, String)> {
        py.detach(|| {
            self.with(|i| {
                let mut all = BTreeMap::new();
                for a in &i.agents {
                    let text = match actions.get(a) {
                        Some(t) => t.clone(),
                        None => i.env.noop_text(a),
                    };
                    all.insert(a.clone(), text);
                }
                if let Some(a) = actions.keys().find(|a| !i.agents.contains(a)) {
                    return Err(colony_error(format!("unknown agent {a:?}")));
                }
                let o = i.env.step_events(&all).map_err(colony_error)?;
                let events = serde_json::to_string(&o.events).map_err(colony_error)?;
                Ok((o.rewards, o.terminated, o.truncated, events))
            })
        })
    }

    /// The text observation of `agent` (what an LLM agent is shown).
    fn observe_text(&self, agent: &str) -> PyResult<String> {
        self.with(|i| i.env.observe_text(agent).map_err(colony_error))
    }

    /// The text grid of the current state.
    fn render(&self) -> PyResult<String> {
        self.with(|i| Ok(i.env.render()))
    }

    /// The team score so far.
    fn score(&self) -> PyResult<f64> {
        self.with(|i| Ok(i.env.score()))
    }

    /// The whole state as JSON text (what `colony env reset --json` prints).
    fn state_json(&self) -> PyResult<String> {
        self.with(|i| serde_json::to_string(&i.env.state_json()).map_err(colony_error))
    }
}

/// The index of `agent`, or a `ColonyError` naming it.
fn index(i: &Inner, agent: &str) -> PyResult<usize> {
    i.agents
        .iter()
        .position(|a| a == agent)
        .ok_or_else(|| colony_error(format!("unknown agent {agent:?}")))
}

/// The registered environments as `(id, one-line help)` pairs.
#[pyfunction]
pub fn environments() -> Vec<(String, String)> {
    crate::registry()
        .environments()
        .iter()
        .map(|e| {
            let info = e.info();
            (info.id, info.description)
        })
        .collect()
}
