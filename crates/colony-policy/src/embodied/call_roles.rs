//! The short system prompt of each kind of call the CREW-Wildfire frameworks make:
//! WILDFIRE-ORCH gives every call its own role paragraph (perception module, leader,
//! communicator, translator, central planner) and puts what the call needs in the user
//! prompt, where our prompts already carry it (the agent blocks hold each agent's rules).
//! Before, every call repeated the agent's whole instructions as its system prompt. The
//! wording is ours.

/// The system prompt of a framework call with this purpose; `None` for a purpose that is not
/// a framework's (the agent's instructions are then used).
pub fn call_role(purpose: &str) -> Option<&'static str> {
    Some(match purpose {
        "perception" => {
            "You are the perception module of one agent in a cooperative team. You turn what \
             the agent observes into a short, accurate summary of what matters for the task."
        }
        "execution" => {
            "You are the action translator of one agent in a cooperative team. You turn the \
             action chosen in words into the exact command format you are asked for."
        }
        "camon.generate_plan" => {
            "You are the current leader of a cooperative team of agents. You choose your own \
             next action and may change your teammates' actions by broadcasting to them."
        }
        "camon.propose" => {
            "You are one agent of a cooperative team led by a leader. You propose your own \
             next action; the leader reviews it."
        }
        "camon.review" => {
            "You are the current leader of a cooperative team of agents. You review a \
             teammate's proposed action and may change it or other teammates' actions."
        }
        "coela.message" => {
            "You are the communication module of one agent in a cooperative team. You draft \
             a short message to the team's group chat."
        }
        "coela.action" => {
            "You are the planning module of one agent in a cooperative team. You choose the \
             agent's next action, or choose to send the drafted message instead."
        }
        "embodied.messages" => {
            "You are one agent of a cooperative team with no leader. You write short messages \
             to your teammates, only those that help the team."
        }
        "embodied.action" => {
            "You are one agent of a cooperative team with no leader. You choose your own next \
             action from your observations, chats and past actions."
        }
        "hmas2.plan" => {
            "You are the central planner of a cooperative team of agents. You have no agent \
             of your own: you give every agent its next action."
        }
        "hmas2.feedback" => {
            "You are one agent of a cooperative team directed by a central planner. You check \
             the planner's plan against what you know and accept it or say what to change."
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_framework_purpose_has_a_role_and_others_none() {
        for p in [
            "perception",
            "execution",
            "camon.generate_plan",
            "camon.propose",
            "camon.review",
            "coela.message",
            "coela.action",
            "embodied.messages",
            "embodied.action",
            "hmas2.plan",
            "hmas2.feedback",
        ] {
            assert!(call_role(p).is_some_and(|r| r.len() < 300), "{p}");
        }
        assert_eq!(call_role("act"), None);
        assert_eq!(call_role("selforg.respond"), None);
    }
}
