//! Constants (docs/design/wildfire.md §2), agent kinds (§6.1) and the 17 level configurations
//! (§12.1).

use serde::{Deserialize, Serialize};

/// Frames per step (§1: 100 frames of 1/50 s = 2 s).
pub const FRAMES_PER_STEP: u32 = 100;
/// Smallest map side.
pub const MIN_MAP_SIZE: u32 = 8;
/// Largest map side (1 M cells). Decision: what stays within 2 GB end to
/// end: `env reset --json` peaked at 0.7 GB on a 1000 map and 2.8 GB on a 2000 map, and
/// `independent` with 1000 agents on a 1000 map at 0.65 GB.
pub const MAX_MAP_SIZE: u32 = 1000;
/// Most agents in a team (see [`MAX_MAP_SIZE`]; the paper's teams have a few dozen).
pub const MAX_AGENTS: u32 = 2_000;
/// Most civilians (clusters × civilians per cluster).
pub const MAX_CIVILIANS: u32 = 10_000;
/// Most cut targets (sparse cells or lines).
pub const MAX_CUT_TARGETS: u32 = 10_000;
/// Largest step limit and frame period (keeps the counters far from overflow).
pub const MAX_STEPS: u32 = 1_000_000_000;
/// Frames per second of the simulated clock (§1).
pub const FPS: f64 = 50.0;
/// Water units of a full tank (§2).
pub const WATER_CAPACITY: u8 = 5;
/// Helicopter passenger capacity (§2).
pub const PASSENGER_CAPACITY: usize = 5;
/// Frame (within a step) at which delayed actions execute (§6.4).
pub const DELAY_FRAMES: u32 = 50;
/// Penalty per agent lost (§2, §12.3).
pub const AGENT_PENALTY: f64 = 20.0;
/// Penalty per civilian lost (§2, §12.3).
pub const CIVILIAN_PENALTY: f64 = 100.0;

/// The four agent types (design §6.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum AgentKind {
    /// Generalist: cuts, sprays, rescues.
    Firefighter,
    /// Clears vegetation with its plow.
    Bulldozer,
    /// Fast scout.
    Drone,
    /// Transports firefighters and water.
    Helicopter,
}

impl AgentKind {
    /// All kinds in id order (§1: firefighters, bulldozers, drones, helicopters).
    pub const ALL: [AgentKind; 4] = [
        AgentKind::Firefighter,
        AgentKind::Bulldozer,
        AgentKind::Drone,
        AgentKind::Helicopter,
    ];

    /// Speed in cells per second (§2); bulldozers with the plow down use 2.
    pub fn speed(self, plow_down: bool) -> f64 {
        match self {
            AgentKind::Firefighter => 6.0,
            AgentKind::Bulldozer if plow_down => 2.0,
            AgentKind::Bulldozer => 4.0,
            AgentKind::Drone => 10.0,
            AgentKind::Helicopter => 15.0,
        }
    }

    /// Chebyshev radius of the cells an agent reveals (§2).
    pub fn view_radius(self) -> i32 {
        match self {
            AgentKind::Firefighter | AgentKind::Bulldozer => 5,
            AgentKind::Drone => 15,
            AgentKind::Helicopter => 20,
        }
    }

    /// Minimap radius `R`; the window is `2R+1` wide (§2).
    pub fn minimap_radius(self) -> i32 {
        match self {
            AgentKind::Firefighter | AgentKind::Bulldozer => 10,
            AgentKind::Drone => 25,
            AgentKind::Helicopter => 30,
        }
    }

    /// Whether fire kills this kind (§6.5).
    pub fn is_ground(self) -> bool {
        matches!(self, AgentKind::Firefighter | AgentKind::Bulldozer)
    }

    /// Display name used in prompts (§11.3).
    pub fn name(self) -> &'static str {
        match self {
            AgentKind::Firefighter => "Firefighter",
            AgentKind::Bulldozer => "Bulldozer",
            AgentKind::Drone => "Drone",
            AgentKind::Helicopter => "Helicopter",
        }
    }

    /// Type code of the flat vector observation (§9.2).
    pub fn code(self) -> i32 {
        match self {
            AgentKind::Firefighter => 0,
            AgentKind::Bulldozer => 1,
            AgentKind::Drone => 2,
            AgentKind::Helicopter => 3,
        }
    }
}

/// The official code a simulation follows (docs/design/wildfire.md §19). The two
/// official repositories disagree, and the paper's Table 3 was produced by the older one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rules {
    /// `generalroboticslab/WILDFIRE-ORCH`'s constants and level presets, with this crate's
    /// synchronous three-phase fire update and true neighbour directions (design §5.3): the
    /// default, as before the `rules` option existed.
    #[default]
    Orch,
    /// The paper-era code (`paulvarkey/CREW`, whose test script runs the paper's Table 9
    /// seeds): immediate burn above 8, 15 extinguishing ticks, a wet bonus of 5 and 30 ticks of
    /// drying; the in-place row scan of `CellGrid.Simulate` with its cascade, its neighbour
    /// directions (three of them wrong) and its never-updated border ring; burnt-out cells
    /// kill ground agents and civilians; buildings cost 10 in the score; suppress fires
    /// anywhere but the spawn cell; and on levels 13–17 vegetation offset 30, a fire tick every
    /// 500 frames, water only on level 13, and 100 steps (200 on the Full Environment, whose
    /// civilians move every 100 frames).
    Paper,
}

impl Rules {
    /// Every rule set, in the order `--set rules=` lists them.
    pub const ALL: [Rules; 2] = [Rules::Orch, Rules::Paper];

    /// The name used by `--set rules=NAME`.
    pub fn name(self) -> &'static str {
        match self {
            Rules::Orch => "orch",
            Rules::Paper => "paper",
        }
    }

    /// The rule set called `name`, if any.
    pub fn from_name(name: &str) -> Option<Rules> {
        Rules::ALL.into_iter().find(|r| r.name() == name.trim())
    }

    /// The fire constants of this rule set.
    pub fn fire(self) -> FireRules {
        match self {
            Rules::Orch => FireRules {
                immediate_burn: 10.0,
                extinguish_ticks: 10,
                wet_bonus: 20.0,
                wet_ticks: 25,
                in_place: false,
                building_penalty: 0.0,
                extinguished_lethal: false,
            },
            Rules::Paper => FireRules {
                immediate_burn: 8.0,
                extinguish_ticks: 15,
                wet_bonus: 5.0,
                wet_ticks: 30,
                in_place: true,
                building_penalty: 10.0,
                extinguished_lethal: true,
            },
        }
    }
}

/// The fire constants and update of a rule set ([`Rules::fire`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FireRules {
    /// Spread value above which a cell goes straight to `OnFire` (`thresh_up`).
    pub immediate_burn: f64,
    /// Fire ticks from `Extinguishing` to `Extinguished` (`burning_time`).
    pub extinguish_ticks: u8,
    /// Moisture added to a wet cell in the spread value.
    pub wet_bonus: f64,
    /// Fire ticks a watered cell stays wet (`drying_time`).
    pub wet_ticks: u8,
    /// The official in-place scan (`CellGrid.Simulate`) instead of three synchronous phases.
    pub in_place: bool,
    /// Score penalty per building destroyed on suppress and Full levels.
    pub building_penalty: f64,
    /// Whether a burnt-out (`Extinguished`) cell kills ground agents and civilians too, as the
    /// paper-era `Firefighter`, `Bulldozer` and `Civilian.FixedUpdate` do.
    pub extinguished_lethal: bool,
}

impl FireRules {
    /// Whether a ground agent or a civilian standing on a cell in state `f` dies.
    pub fn kills(&self, f: crate::grid::Fire) -> bool {
        f.is_lethal() || (self.extinguished_lethal && f == crate::grid::Fire::Extinguished)
    }
}

/// Level types (§12.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LevelKind {
    /// Cut Trees (sparse cells or lines).
    Cut,
    /// Scout Fire.
    Scout,
    /// Transport Firefighters.
    Transport,
    /// Rescue Civilians.
    Rescue,
    /// Suppress Fire.
    Suppress,
    /// Full Environment.
    Full,
}

impl LevelKind {
    /// Finite tasks have a max score as target; open-ended ones have target 0 (§12.3).
    pub fn is_finite(self) -> bool {
        !matches!(self, LevelKind::Suppress | LevelKind::Full)
    }
}

/// The seven behaviors measured by the BCS (§12.1, §13.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Behavior {
    /// Task designation.
    TD,
    /// Agent capitalization.
    AC,
    /// Spatial reasoning.
    SR,
    /// Observation sharing.
    OS,
    /// Realtime coordination.
    RC,
    /// Plan adaptation.
    PA,
    /// Objective prioritization.
    OP,
}

impl Behavior {
    /// All behaviors in table order.
    pub const ALL: [Behavior; 7] = [
        Behavior::TD,
        Behavior::AC,
        Behavior::SR,
        Behavior::OS,
        Behavior::RC,
        Behavior::PA,
        Behavior::OP,
    ];

    /// The two-letter tag.
    pub fn tag(self) -> &'static str {
        match self {
            Behavior::TD => "TD",
            Behavior::AC => "AC",
            Behavior::SR => "SR",
            Behavior::OS => "OS",
            Behavior::RC => "RC",
            Behavior::PA => "PA",
            Behavior::OP => "OP",
        }
    }
}

/// Cut-tree targets of a level (§12.1 details column).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CutTargets {
    /// Lines (true) or sparse cells (false).
    pub lines: bool,
    /// Number of cells (sparse) or lines.
    pub count: u32,
    /// Cells per line (1 for sparse).
    pub length: u32,
}

/// One level configuration (§12.1, §17 `LevelConfig`); serialized into every state so a state
/// file is self-contained.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LevelConfig {
    /// Level id, e.g. `cut_trees_sparse_small`.
    pub id: String,
    /// Number in design §12.1 (1–17; 0 for the synthetic benchmark level).
    pub number: u32,
    /// Human-readable name.
    pub name: String,
    /// Level type.
    pub kind: LevelKind,
    /// Map side `S`.
    pub map_size: u32,
    /// Team composition: firefighters, bulldozers, drones, helicopters.
    pub team: [u32; 4],
    /// Max score (target of finite tasks; 0 for open-ended ones).
    pub max_score: f64,
    /// Behaviors the level measures.
    pub behaviors: Vec<Behavior>,
    /// Truncation limit in steps.
    pub max_steps: u32,
    /// Frames per fire tick.
    pub fire_frames: u32,
    /// Frames per civilian move.
    pub civ_frames: u32,
    /// Vegetation density offset (§4.3).
    pub veg_offset: i32,
    /// Whether targets (fire, civilians) are given in the task text.
    pub known: bool,
    /// Whether the level places a water source.
    pub water: bool,
    /// Civilian clusters × civilians per cluster.
    pub civilians: (u32, u32),
    /// Cut-tree targets, for cut levels.
    pub cut: Option<CutTargets>,
    /// §12.3 flag: count only trees destroyed by fire in `TreesDestroyed`.
    #[serde(default)]
    pub trees_destroyed_fire_only: bool,
    /// Evaluation seeds (paper Table 9; §12.1).
    pub seeds: Vec<u64>,
    /// The paper's Do-Nothing mean score `DN_ℓ` (§13.1).
    pub do_nothing: f64,
    /// The official rule set followed (docs/design/wildfire.md §19).
    #[serde(default)]
    pub rules: Rules,
}

impl LevelConfig {
    /// This level under `rules`: the paper-era presets of levels 13–17 for [`Rules::Paper`]
    /// (CREW `build_config.py` and `run_tests.sh`, docs/design/wildfire.md §19.1); the
    /// presets of levels 1–12 are the same in both codes as far as §19 read them.
    pub fn with_rules(mut self, rules: Rules) -> Self {
        self.rules = rules;
        if rules == Rules::Paper && (13..=17).contains(&self.number) {
            self.veg_offset = 30;
            self.fire_frames = 500;
            self.water = self.number == 13;
            self.max_steps = if self.number == 17 { 200 } else { 100 };
            if self.number == 17 {
                // The preset's 300 never reaches Unity: Python passes `-CivilianMoveSpeed`,
                // Unity reads `-CivilianMovingSpeed`, so the default of 100 frames holds.
                self.civ_frames = 100;
            }
        }
        self
    }

    /// Number of agents (saturating; [`LevelConfig::check`] bounds it).
    pub fn team_size(&self) -> u32 {
        self.team.iter().fold(0u32, |a, &b| a.saturating_add(b))
    }

    /// Checks the documented bounds (map side [`MIN_MAP_SIZE`]..=[`MAX_MAP_SIZE`], 1 to
    /// [`MAX_AGENTS`] agents, at most [`MAX_CIVILIANS`] civilians and [`MAX_CUT_TARGETS`]
    /// cut targets, step limit and frame periods 1..=[`MAX_STEPS`]) before anything is
    /// allocated; the error names the field.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        if !(MIN_MAP_SIZE..=MAX_MAP_SIZE).contains(&self.map_size) {
            return Err((
                "map_size",
                format!(
                    "{} is outside {MIN_MAP_SIZE}..={MAX_MAP_SIZE}",
                    self.map_size
                ),
            ));
        }
        let team: u64 = self.team.iter().map(|&n| u64::from(n)).sum();
        if team == 0 || team > u64::from(MAX_AGENTS) {
            return Err(("team", format!("{team} agents is outside 1..={MAX_AGENTS}")));
        }
        let civilians = u64::from(self.civilians.0) * u64::from(self.civilians.1);
        if self.civilians.0 > MAX_CIVILIANS || civilians > u64::from(MAX_CIVILIANS) {
            return Err((
                "civilians",
                format!(
                    "{} clusters of {} is above the maximum {MAX_CIVILIANS} civilians",
                    self.civilians.0, self.civilians.1
                ),
            ));
        }
        if let Some(cut) = &self.cut {
            if cut.count > MAX_CUT_TARGETS || cut.length > self.map_size {
                return Err((
                    "cut",
                    format!(
                        "{} targets of length {} (max {MAX_CUT_TARGETS} targets, length up to map_size)",
                        cut.count, cut.length
                    ),
                ));
            }
        }
        for (field, v) in [
            ("max_steps", self.max_steps),
            ("fire_frames", self.fire_frames),
            ("civ_frames", self.civ_frames),
        ] {
            if !(1..=MAX_STEPS).contains(&v) {
                return Err((field, format!("{v} is outside 1..={MAX_STEPS}")));
            }
        }
        if !(-1000..=1000).contains(&self.veg_offset) {
            return Err((
                "veg_offset",
                format!("{} is outside -1000..=1000", self.veg_offset),
            ));
        }
        Ok(())
    }

    /// Ground agents (firefighters + bulldozers), used by the NS baseline (§13.2).
    pub fn ground_agents(&self) -> u32 {
        self.team[0] + self.team[1]
    }
}

#[allow(clippy::too_many_arguments)]
fn lv(
    number: u32,
    id: &str,
    name: &str,
    kind: LevelKind,
    map_size: u32,
    team: [u32; 4],
    max_score: f64,
    behaviors: &[Behavior],
    max_steps: u32,
    fire_frames: u32,
    civ_frames: u32,
    veg_offset: i32,
) -> LevelConfig {
    LevelConfig {
        id: id.into(),
        number,
        name: name.into(),
        kind,
        map_size,
        team,
        max_score,
        behaviors: behaviors.to_vec(),
        max_steps,
        fire_frames,
        civ_frames,
        veg_offset,
        known: true,
        water: false,
        civilians: (0, 0),
        cut: None,
        trees_destroyed_fire_only: false,
        seeds: Vec::new(),
        do_nothing: 0.0,
        rules: Rules::Orch,
    }
}

/// All 17 configurations of design §12.1, in table order.
pub fn levels() -> Vec<LevelConfig> {
    use Behavior::*;
    use LevelKind::*;
    let cut = |lines, count, length| {
        Some(CutTargets {
            lines,
            count,
            length,
        })
    };
    // Columns: number, id, name, type, map, team (F,B,D,H), max score, behaviors, max steps,
    // F_fire, F_civ, vegetation offset (design §12.1).
    #[rustfmt::skip]
    let mut v = vec![
        lv(1, "cut_trees_sparse_small", "Cut Trees: Sparse (Small)", Cut, 30, [3, 0, 0, 0], 18.0, &[TD], 30, 100, 100, 20),
        lv(2, "cut_trees_sparse_large", "Cut Trees: Sparse (Large)", Cut, 60, [10, 0, 0, 0], 75.0, &[TD], 50, 100, 100, 20),
        lv(3, "cut_trees_lines_small", "Cut Trees: Lines (Small)", Cut, 30, [2, 1, 0, 0], 30.0, &[TD, AC], 30, 100, 100, 30),
        lv(4, "cut_trees_lines_large", "Cut Trees: Lines (Large)", Cut, 60, [4, 3, 0, 0], 105.0, &[TD, AC], 30, 100, 100, 30),
        lv(5, "scout_fire_small", "Scout Fire (Small)", Scout, 100, [0, 0, 3, 0], 2.0, &[TD, SR, OS], 30, 200, 100, 20),
        lv(6, "scout_fire_large", "Scout Fire (Large)", Scout, 250, [0, 0, 5, 0], 2.0, &[TD, SR, OS], 30, 300, 100, 20),
        lv(7, "transport_firefighters_small", "Transport Firefighters (Small)", Transport, 100, [6, 0, 0, 1], 6.0, &[AC, SR, RC], 15, 100, 100, 20),
        lv(8, "transport_firefighters_large", "Transport Firefighters (Large)", Transport, 250, [12, 0, 0, 2], 12.0, &[AC, SR, RC], 35, 100, 100, 20),
        lv(9, "rescue_civilians_known_small", "Rescue Civilians: Known Location (Small)", Rescue, 40, [3, 0, 0, 0], 3.0, &[TD, SR, PA], 25, 100, 500, 20),
        lv(10, "rescue_civilians_known_large", "Rescue Civilians: Known Location (Large)", Rescue, 40, [3, 0, 0, 0], 9.0, &[TD, SR, PA], 35, 100, 500, 20),
        lv(11, "rescue_civilians_search", "Rescue Civilians: Search and Rescue", Rescue, 100, [5, 0, 2, 0], 5.0, &[TD, SR, OS, PA], 40, 100, 600, 20),
        lv(12, "rescue_civilians_search_rescue_transport", "Rescue Civilians: Search + Rescue + Transport", Rescue, 150, [10, 0, 2, 2], 10.0, &[TD, AC, SR, OS, RC, PA], 60, 100, 600, 20),
        lv(13, "suppress_fire_extinguish", "Suppress Fire: Extinguish", Suppress, 60, [8, 0, 0, 0], 0.0, &[TD, SR, PA], 100, 500, 100, 40),
        lv(14, "suppress_fire_contain", "Suppress Fire: Contain", Suppress, 60, [5, 1, 0, 0], 0.0, &[TD, AC, SR, PA], 100, 500, 100, 40),
        lv(15, "suppress_fire_locate", "Suppress Fire: Locate and Suppress", Suppress, 100, [5, 1, 2, 0], 0.0, &[TD, AC, OS, SR, PA], 100, 600, 100, 40),
        lv(16, "suppress_fire_locate_deploy", "Suppress Fire: Locate + Deploy + Suppress", Suppress, 150, [10, 0, 2, 2], 0.0, &[TD, AC, OS, SR, RC, PA], 120, 600, 100, 40),
        lv(17, "full_environment", "Full Environment", Full, 200, [10, 1, 2, 2], 0.0, &Behavior::ALL, 120, 450, 300, 40),
    ];
    let seeds: [&[u64]; 17] = [
        &[375, 483, 43, 6370, 9964, 2097, 25808, 83248, 48320, 94510],
        &[212, 981, 1530, 5382, 9405],
        &[9259, 4881, 8456, 59497, 66768, 78914],
        &[820, 5406, 6503],
        &[
            4651, 6841, 7593, 1012, 8528, 29751, 36346, 42589, 43846, 62563,
        ],
        &[5324, 3603, 8592, 43126, 70576],
        &[283, 2461, 2478, 7622, 7647],
        &[741, 7305, 9528, 8079, 6232],
        &[9502, 3972, 6545, 5884, 8491, 7723, 30743, 51358],
        &[7979, 1539, 2269, 7152, 5226],
        &[966, 7377, 7285],
        &[8208, 150, 2577],
        &[2994, 4936, 4847],
        &[733, 7765, 8049],
        &[5280, 2142, 2628],
        &[6309, 3821, 6117],
        &[1, 2, 3],
    ];
    let do_nothing = [-519.67, -660.67, -1062.67, -729.67, -5502.67];
    for (l, s) in v.iter_mut().zip(seeds) {
        l.seeds = s.to_vec();
    }
    v[0].cut = cut(false, 6, 1);
    v[1].cut = cut(false, 25, 1);
    v[2].cut = cut(true, 2, 5);
    v[3].cut = cut(true, 5, 7);
    for l in &mut v[4..6] {
        l.known = false;
    }
    v[8].civilians = (1, 3);
    v[9].civilians = (3, 3);
    v[10].civilians = (1, 5);
    v[10].known = false;
    v[11].civilians = (2, 5);
    v[11].known = false;
    for (l, dn) in v[12..17].iter_mut().zip(do_nothing) {
        l.do_nothing = dn;
    }
    v[12].water = true;
    v[14].water = true;
    v[14].known = false;
    v[15].water = true;
    v[15].known = false;
    v[16].water = true;
    v[16].known = false;
    v[16].civilians = (1, 5);
    v
}

/// The synthetic benchmark level (for the performance benchmarks): a suppress-type level
/// with an active fire, water, and `agents` agents of mixed types (firefighters, bulldozers,
/// drones, helicopters in turn) on a `map_size` map.
pub fn bench_level(map_size: u32, agents: u32) -> LevelConfig {
    let mut l = lv(
        0,
        "bench",
        "Benchmark: Suppress (synthetic)",
        LevelKind::Suppress,
        map_size,
        mixed_team(agents),
        0.0,
        &[],
        100,
        100,
        100,
        40,
    );
    l.water = true;
    l.seeds = vec![1];
    l
}

/// `agents` agents split over the four types as evenly as possible (first types get extras).
pub fn mixed_team(agents: u32) -> [u32; 4] {
    let mut t = [agents / 4; 4];
    for slot in t.iter_mut().take((agents % 4) as usize) {
        *slot += 1;
    }
    t
}

/// Finds a level by id, by number (`"1"` … `"17"`), or `bench`.
pub fn find_level(name: &str) -> Option<LevelConfig> {
    if name == "bench" {
        return Some(bench_level(100, 20));
    }
    levels()
        .into_iter()
        .find(|l| l.id == name || l.number.to_string() == name)
}
