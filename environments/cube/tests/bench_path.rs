//! `colony env bench` times `Environment::step_random`; CUBE overrides it with a typed path.
//! It must take exactly the random actions the generic path takes.

use colony_cube::{CubeConfig, CubeEnv};
use colony_env_api::Environment;

#[test]
fn typed_random_steps_equal_the_generic_path() {
    for n in [2u32, 8, 32] {
        let mut fast = CubeEnv::with_seed(CubeConfig::new(n), 5).unwrap();
        let mut slow = CubeEnv::with_seed(CubeConfig::new(n), 5).unwrap();
        let (mut r1, mut r2) = (9u64, 9u64);
        for step in 0..60 {
            let ended = fast.step_random(&mut r1);
            let actions = slow.random_actions(&mut r2);
            let r = slow.step(&actions);
            assert_eq!(
                serde_json::to_string(&fast.state()).unwrap(),
                serde_json::to_string(&slow.state()).unwrap(),
                "n={n} step {step}"
            );
            assert_eq!(ended, r.terminated || r.truncated);
            if ended {
                break;
            }
        }
    }
}
