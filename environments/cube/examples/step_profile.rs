//! Splits the cost of a random primitive step into generation, the typed physics step, the
//! `Environment::step` layer (per-agent maps, events) and `DynEnvironment::step_random`.
//!
//! `cargo run --release -p colony-cube --example step_profile -- 256 5000`
#![allow(clippy::unwrap_used)]
use std::time::Instant;

use colony_cube::{CubeConfig, CubeEnv, Prim};
use colony_env_api::{boxed, policy::splitmix64, Environment};

fn main() {
    let n: u32 = std::env::args().nth(1).map_or(256, |s| s.parse().unwrap());
    let steps = std::env::args().nth(2).map_or(3000, |s| s.parse().unwrap());
    let t0 = Instant::now();
    for s in 0..5 {
        CubeEnv::with_seed(CubeConfig::new(n), s).unwrap();
    }
    println!(
        "generation: {:.2} ms",
        t0.elapsed().as_secs_f64() * 1e3 / 5.0
    );
    let mut cfg = CubeConfig::new(n);
    cfg.max_steps = 1_000_000;
    let mut env = CubeEnv::with_seed(cfg, 0).unwrap();
    let mut rng = 1u64;
    let t0 = Instant::now();
    for _ in 0..steps {
        let prims: Vec<Prim> = (0..n)
            .map(|_| Prim::ALL[(splitmix64(&mut rng) % 5) as usize])
            .collect();
        if env.step_primitives(&prims).is_err() {
            env.try_reset(1).unwrap();
        }
    }
    println!(
        "typed step_primitives: {:.2} us",
        t0.elapsed().as_secs_f64() * 1e6 / steps as f64
    );
    if std::env::args().nth(3).as_deref() == Some("typed") {
        return;
    }
    let mut cfg = CubeConfig::new(n);
    cfg.max_steps = 1_000_000;
    let mut env = CubeEnv::with_seed(cfg, 0).unwrap();
    let t0 = Instant::now();
    for _ in 0..steps {
        let actions = env.random_actions(&mut rng);
        let r = env.step(&actions);
        if r.terminated || r.truncated {
            env.reset(1);
        }
    }
    println!(
        "trait step: {:.2} us",
        t0.elapsed().as_secs_f64() * 1e6 / steps as f64
    );
    let mut d = boxed(CubeEnv::with_seed(CubeConfig::new(n), 0).unwrap());
    let t0 = Instant::now();
    for _ in 0..steps {
        if d.step_random(&mut rng) {
            d.reset(1);
        }
    }
    println!(
        "dyn step_random: {:.2} us",
        t0.elapsed().as_secs_f64() * 1e6 / steps as f64
    );
}
