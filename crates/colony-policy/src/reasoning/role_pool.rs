//! The role pool of docs/design/selforg.md §1.3, compiled in: the eight cards of `roles/selforg/`
//! in pool order (Assistant, Programmer, Mathematician, Economist, Psychologist, Historian,
//! Lawyer, Doctor). SelfOrg reads its roles from the run's `--roles` folder; the baselines that
//! need fixed roles whatever that folder holds take them from here: DyLAN's mixed team (§3.5)
//! and MacNet's persona pool (§3.6).

use std::sync::Arc;

use colony_runtime::{RoleCard, RoleError};

/// The pool's card files, in pool order: (file name, TOML text).
pub const POOL: [(&str, &str); 8] = [
    (
        "0_assistant.toml",
        include_str!("../../../../roles/selforg/0_assistant.toml"),
    ),
    (
        "1_programmer.toml",
        include_str!("../../../../roles/selforg/1_programmer.toml"),
    ),
    (
        "2_mathematician.toml",
        include_str!("../../../../roles/selforg/2_mathematician.toml"),
    ),
    (
        "3_economist.toml",
        include_str!("../../../../roles/selforg/3_economist.toml"),
    ),
    (
        "4_psychologist.toml",
        include_str!("../../../../roles/selforg/4_psychologist.toml"),
    ),
    (
        "5_historian.toml",
        include_str!("../../../../roles/selforg/5_historian.toml"),
    ),
    (
        "6_lawyer.toml",
        include_str!("../../../../roles/selforg/6_lawyer.toml"),
    ),
    (
        "7_doctor.toml",
        include_str!("../../../../roles/selforg/7_doctor.toml"),
    ),
];

/// The pool's cards, parsed, in pool order.
pub fn role_pool() -> Result<Vec<Arc<RoleCard>>, RoleError> {
    POOL.iter()
        .map(|(file, text)| RoleCard::parse(text, format!("roles/selforg/{file}")).map(Arc::new))
        .collect()
}

/// The card named `name` in `pool`.
pub fn pool_card(pool: &[Arc<RoleCard>], name: &str) -> Option<Arc<RoleCard>> {
    pool.iter().find(|c| c.name == name).cloned()
}

/// `card` as the role of an agent whose roster member has `member`: the card's name,
/// description and system prompt, with the member card's sampling keys and params kept (they
/// are the run's settings, not the role's wording).
pub fn with_prompt_of(member: &RoleCard, card: &RoleCard) -> Arc<RoleCard> {
    Arc::new(RoleCard {
        name: card.name.clone(),
        description: card.description.clone(),
        system_prompt: card.system_prompt.clone(),
        ..member.clone()
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn the_pool_parses_in_spec_order() {
        let pool = role_pool().unwrap();
        let names: Vec<&str> = pool.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "assistant",
                "programmer",
                "mathematician",
                "economist",
                "psychologist",
                "historian",
                "lawyer",
                "doctor"
            ]
        );
        assert!(pool.iter().all(|c| !c.system_prompt.is_empty()));
        let mut member = RoleCard::new("x", "ignored");
        member.sampling.temperature = Some(0.3);
        let c = with_prompt_of(&member, &pool_card(&pool, "economist").unwrap());
        assert_eq!(c.name, "economist");
        assert!(c.system_prompt.starts_with("You are an economist."));
        assert_eq!(c.sampling.temperature, Some(0.3));
    }
}
