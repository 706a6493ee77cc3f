//! The prompt templates of colony's own policies, by the names suite manifests record them
//! under; [`crate::registry::Registry::builtin`] registers each (a plugin registers its own
//! with [`crate::registry::Registry::template`]).

use super::{embodied, reasoning, swarmsys};

/// (name, template text) of every built-in policy prompt.
pub const TEMPLATES: &[(&str, &str)] = &[
    ("reasoning/cot", reasoning::prompts::COT),
    ("reasoning/debate_update", reasoning::prompts::DEBATE_UPDATE),
    (
        "reasoning/selforg_collaborate",
        reasoning::prompts::SELFORG_COLLABORATE,
    ),
    (
        "reasoning/agentverse_recruit",
        reasoning::agentverse::RECRUIT,
    ),
    ("reasoning/agentverse_solve", reasoning::agentverse::SOLVE),
    ("reasoning/agentverse_critic", reasoning::agentverse::CRITIC),
    (
        "reasoning/agentverse_evaluate",
        reasoning::agentverse::EVALUATE,
    ),
    ("reasoning/macnet_review", reasoning::macnet::REVIEW),
    ("reasoning/macnet_improve", reasoning::macnet::IMPROVE),
    ("reasoning/macnet_synthesize", reasoning::macnet::SYNTHESIZE),
    ("reasoning/dylan_respond", reasoning::dylan::RESPOND),
    ("reasoning/dylan_rank", reasoning::dylan::RANK),
    (
        "reasoning/swarmsys_competence",
        swarmsys::reasoning::encode::COMPETENCE,
    ),
    (
        "reasoning/swarmsys_task_context",
        swarmsys::reasoning::roles::TASK_CONTEXT,
    ),
    (
        "reasoning/swarmsys_explorer_card",
        swarmsys::reasoning::roles::EXPLORER_CARD,
    ),
    (
        "reasoning/swarmsys_worker_card",
        swarmsys::reasoning::roles::WORKER_CARD,
    ),
    (
        "reasoning/swarmsys_validator_card",
        swarmsys::reasoning::roles::VALIDATOR_CARD,
    ),
    (
        "reasoning/swarmsys_member_card",
        swarmsys::reasoning::roles::MEMBER_CARD,
    ),
    (
        "reasoning/swarmsys_event",
        swarmsys::reasoning::turns::EVENT,
    ),
    (
        "reasoning/swarmsys_explorer",
        swarmsys::reasoning::turns::EXPLORER,
    ),
    (
        "reasoning/swarmsys_worker",
        swarmsys::reasoning::turns::WORKER,
    ),
    (
        "reasoning/swarmsys_validator",
        swarmsys::reasoning::turns::VALIDATOR,
    ),
    ("embodied/coela_message", embodied::coela::MESSAGE_PROMPT),
    ("embodied/coela_action", embodied::coela::ACTION_PROMPT),
    ("embodied/hmas2_plan", embodied::hmas2::PLAN_PROMPT),
    ("embodied/hmas2_feedback", embodied::hmas2::FEEDBACK_PROMPT),
    (
        "embodied/embodied_messages",
        embodied::embodied_fw::MESSAGES_PROMPT,
    ),
    (
        "embodied/embodied_action",
        embodied::embodied_fw::ACTION_PROMPT,
    ),
    (
        "embodied/camon_generate_plan",
        embodied::camon::GENERATE_PROMPT,
    ),
    ("embodied/camon_propose", embodied::camon::PROPOSE_PROMPT),
    ("embodied/camon_review", embodied::camon::REVIEW_PROMPT),
];
