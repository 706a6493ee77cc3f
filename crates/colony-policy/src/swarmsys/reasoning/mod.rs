//! SwarmSys (docs/design/swarmsys.md §2): explorers, workers and validators matched to events by
//! dynamic ε-greedy embedding matching, with pheromone-like reinforcement of validated work.
//!
//! One concept per file:
//!
//! * [`matching`] and [`assign`]: the pure maths of §2.6 (ε, exploration, exploitation,
//!   sampling; the round's assignment with slots, capacities and coverage repair), reusable
//!   outside this policy.
//! * [`roles`]: the role split and agent order of §2.2, the role cards of `roles/swarmsys/`.
//! * [`profile`]: agent and event profiles, the JSON of §2.3.
//! * [`encode`]: the embedding texts, encoder cache, compatibility and pheromone of §2.4–§2.5.
//! * [`parse`]: TERMINATE and VERDICT lines, mode-B sub-event blocks (§2.7–§2.8).
//! * [`metrics`]: `H_c`, drift and interaction clustering (§2.10).
//! * [`options`]: settings and defaults (§2.12).
//! * [`SwarmSys`] (`policy`, `state`, `turns`, `trace`, `exam`): the policy — global rounds,
//!   explorer → workers → validator per event (§2.8), settling between rounds, modes A/B/C.
//! * [`sim`]: how the offline simulated model answers SwarmSys turns.
//!
//! Decisions taken here where the spec leaves room (the spec's own are in §2):
//!
//! * **Phases.** A round's calls run as three barriers over all open events (explorers, then
//!   workers, then validators), so each event keeps explorer → workers → validator and an
//!   agent serving several events receives its asks in event order: transcripts, not just
//!   results, are independent of completion order.
//! * **Seeds.** Matching draws use `purpose = "match"` per (round, agent); LLM seeds use the
//!   agent field `"<agent>@<event>"` (an explorer may serve several events in one round);
//!   repair scores of the random ablations use `"rank"`, turn shuffles of `roles=none`
//!   `"roles"`, exam grouping `"exam"`.
//! * **One open event.** Whenever only one event is open (always in mode A), its explorer and
//!   validator are those of highest compatibility, the others sit out (§2.6 step 5 applied
//!   to modes B and C as well).
//! * **Status text.** Before matching, an agent's active events are those it served last round
//!   that are still open; its capacity is this round's.
//! * **Failed rounds.** A round in which every call failed ends the task (`stop =
//!   "all_calls_failed"`) rather than repeating calls against a dead endpoint; the output is
//!   the fallback, and the failed calls make the item an error, not a wrong answer.
//! * **Ablations.** `roles=random` (the paper's Rand-Roles): fixed roles, no embeddings, no
//!   pheromone or re-encoding (outcomes are still counted for the metrics), uniform `P` over
//!   the free slots. `roles=none` (Rand-NoRoles): the neutral `member` card for everyone, ids
//!   `A1…`, and each round a seeded shuffle hands out the explorer, worker and validator turns
//!   in the role split's numbers; matching as in `random`.
//! * **Mode B blocks.** The last `{"subevents": …}` object of the explorer's message counts;
//!   `depends_on` and `milestone` may be omitted; explorer ids become `E1.1`, `E1.2`, … in
//!   list order.
//! * **Task end.** Events still open when the task ends fail with their fallback output, and
//!   their last explorer and validator get a failure outcome.
//! * **Run scope.** With `profile_scope = run`, items run one at a time in the order they
//!   reach the policy, and profile round numbers continue across items (`run_round` in the
//!   trace); a resumed run starts from fresh profiles.
//! * **Wording.** Role cards, the task context and the long competence instruction are
//!   colony's own wording of the paper's prompts; every machine-read form is the spec's.

pub mod assign;
pub mod encode;
mod exam;
pub mod matching;
pub mod metrics;
pub mod options;
pub mod parse;
mod policy;
pub mod profile;
pub mod roles;
mod settle;
pub mod sim;
mod state;
mod trace;
pub(crate) mod turns;

pub use assign::{assign, AssignInput, Assignment, EventSlots, MatchAgent, Repair};
pub use exam::exam_groups;
pub use matching::{
    distribution, epsilon, exploit, explore, mixture, sample, uniform, Distribution,
    DistributionRequest, EpsilonBounds, MatchError, Role,
};
pub use options::{Mode, ProfileScope, RolesMode, SwarmSysOptions};
pub use parse::{parse_subevents, parse_terminate, parse_verdicts, SubeventError, SubeventSpec};
pub use policy::{policy_name, SwarmSys};
pub use roles::RoleCounts;
pub use sim::simulated_reply;
pub use turns::{SUBEVENTS_MARKER, VALIDATOR_MARKER};
