//! B copies of one environment stepped in one call on Rust threads (the vector
//! form for RL users): numeric codes in, numeric observations, rewards and flags out.
//!
//! Decision: finished copies reset automatically on the next call, as Gymnasium's vector
//! environments do by default ("next step" autoreset): the call after a copy ends resets it
//! instead of stepping it (its rewards are 0 and its flags false for that call) and returns
//! its first observation. Copy `i` starts at `seeds[i]`; each reset after an episode adds
//! `B` to its seed, so copies seeded `s..s+B` never replay each other's episodes and the
//! whole batch is reproducible from its seeds.

use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use rayon::prelude::*;

use crate::colony_error;
use crate::env::Inner;

/// One copy: the environment, its current seed and whether its episode ended.
struct Copy {
    inner: Inner,
    seed: u64,
    done: bool,
}

/// `VecEnv(name, settings, count)`: `count` copies of one environment. The Python class
/// `colony.envs.VectorEnv` wraps it with numpy arrays.
#[pyclass(module = "colony._colony")]
pub struct VecEnv {
    copies: Mutex<Vec<Copy>>,
    /// Action components per copy (every agent's, end to end).
    width: usize,
    /// Observation values per copy.
    obs_len: usize,
    /// Agents per copy.
    agents: usize,
}

/// The most bytes a vector environment may hold in its copies' observations and states.
/// Decision: one copy is built first and measured (its observation bytes plus its state as
/// JSON, a stand-in for its size in memory), and `count` copies are refused when the total
/// passes this, naming both numbers, before any more are built.
pub const MAX_VECTOR_BYTES: u64 = 2 << 30;

/// What one step of one copy returns.
type CopyStep = (Vec<f64>, bool, bool);

#[pymethods]
impl VecEnv {
    /// Builds `count` copies of environment `name` with `key=value` settings. Every agent
    /// must have numeric spaces.
    #[new]
    #[pyo3(signature = (name, settings = Vec::new(), count = 1))]
    fn new(py: Python<'_>, name: &str, settings: Vec<String>, count: usize) -> PyResult<Self> {
        if count == 0 || count > 65_536 {
            return Err(colony_error(format!(
                "count {count}: a vector environment holds 1 to 65536 copies"
            )));
        }
        let copies = py.detach(|| {
            let first = Inner::build(name, &settings)?;
            let state = serde_json::to_vec(&first.env.state_json()).map_or(0, |s| s.len() as u64);
            let per_copy = (first.observation_len() as u64 * 4).saturating_add(state);
            let total = per_copy.saturating_mul(count as u64);
            if total > MAX_VECTOR_BYTES {
                return Err(colony_error(format!(
                    "{}: {count} copies × {:.1} MB per copy (observations and state) = {:.1} GB, \
                     more than the {} GB a vector environment may hold; use fewer copies or a \
                     smaller environment",
                    first.env.id(),
                    per_copy as f64 / 1e6,
                    total as f64 / 1e9,
                    MAX_VECTOR_BYTES >> 30
                )));
            }
            let rest = (1..count)
                .into_par_iter()
                .map(|_| Inner::build(name, &settings))
                .collect::<PyResult<Vec<Inner>>>()?;
            Ok::<_, PyErr>(std::iter::once(first).chain(rest).collect::<Vec<Inner>>())
        })?;
        let first = &copies[0];
        let mut width = 0;
        for (agent, space) in first.agents.iter().zip(&first.spaces) {
            let space = space.as_ref().ok_or_else(|| {
                colony_error(format!(
                    "{}: agent {agent} has no numeric spaces, so the vector form cannot step it",
                    first.env.id()
                ))
            })?;
            width += space.actions.len();
        }
        let (obs_len, agents) = (first.observation_len(), first.agents.len());
        let copies = copies
            .into_iter()
            .map(|inner| Copy {
                inner,
                seed: 0,
                done: false,
            })
            .collect();
        Ok(Self {
            copies: Mutex::new(copies),
            width,
            obs_len,
            agents,
        })
    }

    /// `(copies, agents per copy, action components per copy, observation values per copy)`.
    fn sizes(&self) -> PyResult<(usize, usize, usize, usize)> {
        let n = self.lock()?.len();
        Ok((n, self.agents, self.width, self.obs_len))
    }

    /// Resets copy `i` to `seeds[i]`; returns every copy's observation as f32 bytes.
    fn reset<'py>(&self, py: Python<'py>, seeds: Vec<u64>) -> PyResult<Bound<'py, PyBytes>> {
        let raw = py.detach(|| {
            let mut copies = self.lock()?;
            if seeds.len() != copies.len() {
                return Err(colony_error(format!(
                    "{} seeds for {} copies",
                    seeds.len(),
                    copies.len()
                )));
            }
            copies.par_iter_mut().zip(&seeds).for_each(|(c, &s)| {
                c.inner.env.reset(s);
                c.seed = s;
                c.done = false;
            });
            self.observe(&mut copies)
        })?;
        Ok(PyBytes::new(py, &crate::bytes::from_f32(&raw)))
    }

    /// One step of every copy from int64 codes (bytes, `copies × width`); returns
    /// `(observations f32, rewards f64 (copies × agents), terminated u8, truncated u8)`, all
    /// as bytes.
    #[allow(clippy::type_complexity)]
    fn step<'py>(
        &self,
        py: Python<'py>,
        codes: &[u8],
    ) -> PyResult<(
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
    )> {
        let codes = crate::bytes::codes(codes)?;
        let (obs, rewards, term, trunc) = py.detach(|| {
            let mut copies = self.lock()?;
            let n = copies.len();
            if codes.len() != n * self.width {
                return Err(colony_error(format!(
                    "{} action codes for {n} copies of {} each",
                    codes.len(),
                    self.width
                )));
            }
            let width = self.width.max(1);
            let steps: Vec<Result<CopyStep, String>> = copies
                .par_iter_mut()
                .zip(codes.par_chunks(width))
                .map(|(c, code)| step_copy(c, code, n as u64))
                .collect();
            let mut rewards = Vec::with_capacity(n * self.agents);
            let (mut term, mut trunc) = (Vec::with_capacity(n), Vec::with_capacity(n));
            for (k, s) in steps.into_iter().enumerate() {
                let (r, te, tr) = s.map_err(|e| colony_error(format!("copy {k}: {e}")))?;
                rewards.extend(r);
                term.push(u8::from(te));
                trunc.push(u8::from(tr));
            }
            let obs = self.observe(&mut copies)?;
            Ok((obs, rewards, term, trunc))
        })?;
        Ok((
            PyBytes::new(py, &crate::bytes::from_f32(&obs)),
            PyBytes::new(py, &crate::bytes::from_f64(&rewards)),
            PyBytes::new(py, &term),
            PyBytes::new(py, &trunc),
        ))
    }

    /// Each copy's current seed.
    fn seeds(&self) -> PyResult<Vec<u64>> {
        Ok(self.lock()?.iter().map(|c| c.seed).collect())
    }
}

impl VecEnv {
    fn lock(&self) -> PyResult<std::sync::MutexGuard<'_, Vec<Copy>>> {
        self.copies
            .lock()
            .map_err(|_| colony_error("the vector environment was poisoned by an earlier panic"))
    }

    /// Every copy's observation, end to end.
    fn observe(&self, copies: &mut [Copy]) -> PyResult<Vec<f32>> {
        let mut out = vec![0.0f32; copies.len() * self.obs_len];
        // `par_iter_mut`: an environment is `Send` but not `Sync`.
        copies
            .par_iter_mut()
            .zip(out.par_chunks_mut(self.obs_len.max(1)))
            .try_for_each(|(c, o)| c.inner.observe_all(o))
            .map_err(colony_error)?;
        Ok(out)
    }
}

/// Steps one copy (or resets it if its episode ended on the previous call).
fn step_copy(c: &mut Copy, code: &[i64], copies: u64) -> Result<CopyStep, String> {
    if c.done {
        // Decision: a seed past 2^64 - 1 is an error, not a wrap to 0 (which would replay
        // another copy's episodes without notice).
        c.seed = c.seed.checked_add(copies).ok_or_else(|| {
            format!(
                "its next seed, {} + {copies}, passes 2^64 - 1 (reset with smaller seeds)",
                c.seed
            )
        })?;
        c.inner.env.reset(c.seed);
        c.done = false;
        return Ok((vec![0.0; c.inner.agents.len()], false, false));
    }
    let id = c.inner.env.id();
    let o = c
        .inner
        .env
        .numeric_mut()
        .ok_or_else(|| colony_env_api::numeric::no_numeric_spaces(id))
        .and_then(|n| n.step_codes(code))
        .map_err(|e| e.to_string())?;
    c.done = o.terminated || o.truncated;
    Ok((c.inner.rewards(&o), o.terminated, o.truncated))
}
