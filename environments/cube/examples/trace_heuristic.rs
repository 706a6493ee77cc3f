//! Prints the heuristic's episode every K steps: `-- N SEED K`.
#![allow(clippy::unwrap_used)]
use colony_cube::heuristic::HeuristicPolicy;
use colony_cube::{CubeAction, CubeConfig, CubeEnv};
use colony_env_api::Policy;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: u32 = args[1].parse().unwrap();
    let seed: u64 = args[2].parse().unwrap();
    let every: u32 = args[3].parse().unwrap();
    let mut e = CubeEnv::with_seed(CubeConfig::new(n), seed).unwrap();
    let mut p = HeuristicPolicy;
    while e.world().t < 200 && !e.is_done() {
        for (a, act) in p.act(&e) {
            if let CubeAction::Plan(pl) = act {
                e.submit_plan(a.parse().unwrap(), pl).unwrap();
            }
        }
        e.step_plans().unwrap();
        let t = e.world().t;
        if t.is_multiple_of(every) {
            println!("t={t} delivered={}", e.world().delivered.len());
            print!("{}", colony_cube::layout::render(e.world()));
            if std::env::var("PLANS").is_ok() {
                for (i, a) in e.executor().agents.iter().enumerate() {
                    let cur = a.current.as_ref().map(|c| (c.call.to_string(), c.ticks));
                    println!("  agent {i} {:?} {:?} queue {}", a.mode, cur, a.queue.len());
                }
            }
        }
    }
}
