//! Registered reasoning datasets: a name, a one-line help, the file formats it reads, a loader
//! and a grader.
//!
//! Decision: a dataset is a loader (file or directory in, [`Item`]s out)
//! plus a grader (is this extracted answer right for this item). The simulated model's answer
//! key needs nothing from the entry: it is built from the loaded items' questions and gold
//! answers ([`crate::eval::models::answer_key`]), so a user's dataset gets it for free. Items
//! carry their [`colony_qa::AnswerType`], which decides how policies extract answers and how
//! the default grader compares them; a dataset with its own notion of "right" (a set of
//! accepted strings, a tolerance of its own) registers a grader with
//! [`DatasetEntry::with_grader`].

use std::path::Path;
use std::sync::Arc;

use colony_qa::{equivalent, Dataset, Item, JudgeOptions, LoadError, LoadOptions, Loaded};

/// A dataset loader: reads `path` (a file or a directory) with the run's loading options.
pub type DatasetLoader =
    Arc<dyn Fn(&Path, &LoadOptions) -> Result<Loaded, LoadError> + Send + Sync>;

/// A dataset grader: whether `answer` (as the policy extracted it) is right for `item`.
pub type DatasetGrader = Arc<dyn Fn(&str, &Item) -> bool + Send + Sync>;

/// One registered dataset.
#[derive(Clone)]
pub struct DatasetEntry {
    /// The name `--dataset` and suites use (`gsm8k`).
    pub name: String,
    /// One line: what it is and where it is published.
    pub help: String,
    /// The accepted file formats and the fields each row needs (for `colony datasets`).
    pub format_help: String,
    load: DatasetLoader,
    grade: Option<DatasetGrader>,
    code: Option<Arc<super::CodeJudge>>,
}

impl std::fmt::Debug for DatasetEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DatasetEntry")
            .field("name", &self.name)
            .field("grader", &self.grade.is_some())
            .finish_non_exhaustive()
    }
}

impl DatasetEntry {
    /// A dataset `name` read by `load`, graded by its items' answer types.
    pub fn new<F>(name: &str, help: &str, format_help: &str, load: F) -> Self
    where
        F: Fn(&Path, &LoadOptions) -> Result<Loaded, LoadError> + Send + Sync + 'static,
    {
        Self {
            name: name.to_string(),
            help: help.to_string(),
            format_help: format_help.to_string(),
            load: Arc::new(load),
            grade: None,
            code: None,
        }
    }

    /// One of the datasets `colony_qa` reads in their published layouts.
    pub fn published(dataset: Dataset) -> Self {
        Self::new(
            dataset.name(),
            dataset.description(),
            dataset.format_help(),
            move |path, options| colony_qa::load(dataset, path, options),
        )
    }

    /// The same dataset graded by `grade` instead of its items' answer types.
    #[must_use]
    pub fn with_grader<F>(mut self, grade: F) -> Self
    where
        F: Fn(&str, &Item) -> bool + Send + Sync + 'static,
    {
        self.grade = Some(Arc::new(grade));
        self
    }

    /// The same dataset with `judge` running its code items' tests (resolved at the door from
    /// `--sandbox`; docs/design/sandbox.md §3).
    #[must_use]
    pub fn with_code_judge(mut self, judge: Arc<super::CodeJudge>) -> Self {
        self.code = Some(judge);
        self
    }

    /// The judge of code items, when one was configured.
    pub fn code_judge(&self) -> Option<&Arc<super::CodeJudge>> {
        self.code.as_ref()
    }

    /// Reads `path`.
    pub fn load(&self, path: &Path, options: &LoadOptions) -> Result<Loaded, LoadError> {
        (self.load)(path, options)
    }

    /// Whether `answer` is right for `item`: the registered grader, else equivalence under the
    /// item's answer type (numeric tolerance, LaTeX equivalence, option letters).
    pub fn is_correct(&self, answer: &str, item: &Item) -> bool {
        match &self.grade {
            Some(grade) => grade(answer, item),
            None => equivalent(
                answer,
                &item.gold,
                &item.answer_type,
                &JudgeOptions::default(),
            ),
        }
    }

    /// Whether a grader was registered (else answers are compared by answer type).
    pub fn has_grader(&self) -> bool {
        self.grade.is_some()
    }
}
