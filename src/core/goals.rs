//! Goals, their checkpoints, decisions, artifacts and next steps.
//!
//! Strategy: one board per session holds the active goal (with its checkpoints,
//! artifacts and next steps), the goals that came before it, and the session-wide
//! decisions. Everything on the board is protected: it is rendered verbatim into the
//! system prompt and never summarized. Changes arrive as [`GoalChange`] values from the
//! user (slash commands) or from the model (markers in its output, see `markers`); each
//! accepted change is persisted as a log record so replay rebuilds the same board.
//!
//! Invariant: the model may add, never take away — only [`Author::User`] may unlock or
//! delete a locked decision, replace an active goal, or clear the board.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Who asked for a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Author {
    User,
    Model,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Priority {
    High,
    #[default]
    Medium,
    Low,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GoalStatus {
    #[default]
    Active,
    Paused,
    Completed,
}

/// Progress of one goal checkpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StepStatus {
    #[default]
    Pending,
    InProgress,
    Completed,
}

impl StepStatus {
    pub fn marker(self) -> &'static str {
        match self {
            StepStatus::Pending => "PENDING",
            StepStatus::InProgress => "IN-PROGRESS",
            StepStatus::Completed => "COMPLETED",
        }
    }
}

/// A milestone on the way to a goal (the marker lines call it a goal "checkpoint").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoalCheckpoint {
    pub description: String,
    pub status: StepStatus,
}

/// A decision taken in the conversation. Locked ones are binding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    /// 1-based, stable for `/unlock N`.
    pub id: u32,
    pub text: String,
    pub locked: bool,
    pub by: Author,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ArtifactAction {
    Created,
    Modified,
    Deleted,
}

impl ArtifactAction {
    pub fn as_str(self) -> &'static str {
        match self {
            ArtifactAction::Created => "Created",
            ArtifactAction::Modified => "Modified",
            ArtifactAction::Deleted => "Deleted",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Artifact {
    pub action: ArtifactAction,
    pub path: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Goal {
    pub description: String,
    pub priority: Priority,
    pub status: GoalStatus,
    pub created_at: DateTime<Utc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<DateTime<Utc>>,
    #[serde(default)]
    pub checkpoints: Vec<GoalCheckpoint>,
    #[serde(default)]
    pub artifacts: Vec<Artifact>,
    #[serde(default)]
    pub next_steps: Vec<String>,
}

/// A change to the board, as a slash command or a marker line expresses it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum GoalChange {
    /// Start a new active goal; a previous one is kept in `past` as paused.
    SetGoal {
        description: String,
        #[serde(default)]
        priority: Priority,
    },
    /// Change the active goal's status (completing it moves it to `past`).
    GoalStatus {
        status: GoalStatus,
    },
    /// Add a goal checkpoint, or update the status of one with the same description.
    Checkpoint {
        description: String,
        status: StepStatus,
    },
    Decision {
        text: String,
        locked: bool,
    },
    Lock {
        id: u32,
    },
    Unlock {
        id: u32,
    },
    DeleteDecision {
        id: u32,
    },
    Artifact {
        action: ArtifactAction,
        path: String,
    },
    Next {
        text: String,
    },
    /// Forget the active goal and all decisions (user only).
    Clear,
}

/// Why a change was refused. The board is unchanged when one is returned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GoalError {
    #[error("decision {0} does not exist")]
    NoSuchDecision(u32),
    #[error("decision {0} is locked; only the user can unlock or delete it")]
    LockedByUser(u32),
    #[error("no active goal; set one with /goal TEXT")]
    NoActiveGoal,
    #[error("the model cannot replace the active goal")]
    GoalOwnedByUser,
    #[error("only the user can clear the goal board")]
    ClearByModel,
    #[error("empty text")]
    Empty,
    #[error("already recorded")]
    Duplicate,
}

/// The session's goal board. See the module docs for the rules.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoalBoard {
    pub active: Option<Goal>,
    #[serde(default)]
    pub past: Vec<Goal>,
    #[serde(default)]
    pub decisions: Vec<Decision>,
}

impl GoalBoard {
    pub fn is_empty(&self) -> bool {
        self.active.is_none() && self.decisions.is_empty()
    }

    /// What every request carries of the board in the person's words: the active goal,
    /// its steps and the decisions. A summary that repeats them spends its tokens on what
    /// is there anyway.
    pub fn protected_texts(&self) -> Vec<String> {
        let mut out: Vec<String> = self.decisions.iter().map(|d| d.text.clone()).collect();
        if let Some(goal) = &self.active {
            out.push(goal.description.clone());
            out.extend(goal.checkpoints.iter().map(|c| c.description.clone()));
            out.extend(goal.next_steps.iter().cloned());
        }
        out
    }

    pub fn locked_decisions(&self) -> impl Iterator<Item = &Decision> {
        self.decisions.iter().filter(|d| d.locked)
    }

    fn next_decision_id(&self) -> u32 {
        self.decisions.iter().map(|d| d.id).max().unwrap_or(0) + 1
    }

    fn decision_mut(&mut self, id: u32) -> Result<&mut Decision, GoalError> {
        self.decisions
            .iter_mut()
            .find(|d| d.id == id)
            .ok_or(GoalError::NoSuchDecision(id))
    }

    fn active_mut(&mut self) -> Result<&mut Goal, GoalError> {
        self.active.as_mut().ok_or(GoalError::NoActiveGoal)
    }

    /// Apply one change. Refused changes leave the board untouched.
    pub fn apply(
        &mut self,
        change: &GoalChange,
        author: Author,
        now: DateTime<Utc>,
    ) -> Result<(), GoalError> {
        match change {
            GoalChange::SetGoal {
                description,
                priority,
            } => {
                let description = nonempty(description)?;
                if let Some(current) = &self.active
                    && author == Author::Model
                {
                    return if current.description == description {
                        Err(GoalError::Duplicate)
                    } else {
                        Err(GoalError::GoalOwnedByUser)
                    };
                }
                if let Some(mut old) = self.active.take() {
                    old.status = GoalStatus::Paused;
                    self.past.push(old);
                }
                self.active = Some(Goal {
                    description: description.to_string(),
                    priority: *priority,
                    status: GoalStatus::Active,
                    created_at: now,
                    completed_at: None,
                    checkpoints: Vec::new(),
                    artifacts: Vec::new(),
                    next_steps: Vec::new(),
                });
            }
            GoalChange::GoalStatus { status } => {
                let goal = self.active_mut()?;
                goal.status = *status;
                if *status == GoalStatus::Completed {
                    goal.completed_at = Some(now);
                    if let Some(done) = self.active.take() {
                        self.past.push(done);
                    }
                }
            }
            GoalChange::Checkpoint {
                description,
                status,
            } => {
                let description = nonempty(description)?;
                let goal = self.active_mut()?;
                match goal
                    .checkpoints
                    .iter_mut()
                    .find(|c| c.description.eq_ignore_ascii_case(description))
                {
                    Some(existing) if existing.status == *status => {
                        return Err(GoalError::Duplicate);
                    }
                    Some(existing) => existing.status = *status,
                    None => goal.checkpoints.push(GoalCheckpoint {
                        description: description.to_string(),
                        status: *status,
                    }),
                }
            }
            GoalChange::Decision { text, locked } => {
                let text = nonempty(text)?;
                if let Some(existing) = self
                    .decisions
                    .iter_mut()
                    .find(|d| d.text.eq_ignore_ascii_case(text))
                {
                    // Re-stating a decision may lock it, never unlock it.
                    if *locked && !existing.locked {
                        existing.locked = true;
                        return Ok(());
                    }
                    return Err(GoalError::Duplicate);
                }
                let id = self.next_decision_id();
                self.decisions.push(Decision {
                    id,
                    text: text.to_string(),
                    locked: *locked,
                    by: author,
                });
            }
            GoalChange::Lock { id } => self.decision_mut(*id)?.locked = true,
            GoalChange::Unlock { id } => {
                let d = self.decision_mut(*id)?;
                if d.locked && author != Author::User {
                    return Err(GoalError::LockedByUser(*id));
                }
                d.locked = false;
            }
            GoalChange::DeleteDecision { id } => {
                let d = self.decision_mut(*id)?;
                if d.locked && author != Author::User {
                    return Err(GoalError::LockedByUser(*id));
                }
                self.decisions.retain(|d| d.id != *id);
            }
            GoalChange::Artifact { action, path } => {
                let path = nonempty(path)?;
                let goal = self.active_mut()?;
                let artifact = Artifact {
                    action: *action,
                    path: path.to_string(),
                };
                if goal.artifacts.contains(&artifact) {
                    return Err(GoalError::Duplicate);
                }
                goal.artifacts.push(artifact);
            }
            GoalChange::Next { text } => {
                let text = nonempty(text)?;
                let goal = self.active_mut()?;
                if goal.next_steps.iter().any(|n| n == text) {
                    return Err(GoalError::Duplicate);
                }
                goal.next_steps.push(text.to_string());
            }
            GoalChange::Clear => {
                if author != Author::User {
                    return Err(GoalError::ClearByModel);
                }
                if let Some(mut old) = self.active.take() {
                    old.status = GoalStatus::Paused;
                    self.past.push(old);
                }
                self.decisions.clear();
            }
        }
        Ok(())
    }

    /// The board as text for the system prompt and the summary prompt: everything on it,
    /// verbatim. Empty when there is nothing to say.
    pub fn render_for_prompt(&self) -> String {
        let mut out = String::new();
        if let Some(goal) = &self.active {
            out.push_str(&format!(
                "ACTIVE GOAL: {}\nPriority: {:?}\nStatus: {:?}\n",
                goal.description, goal.priority, goal.status
            ));
            for (title, status) in [
                ("COMPLETED CHECKPOINTS", StepStatus::Completed),
                ("IN PROGRESS", StepStatus::InProgress),
                ("PENDING", StepStatus::Pending),
            ] {
                let items: Vec<_> = goal
                    .checkpoints
                    .iter()
                    .filter(|c| c.status == status)
                    .collect();
                if !items.is_empty() {
                    out.push_str(&format!("{title}:\n"));
                    for c in items {
                        out.push_str(&format!("- {}\n", c.description));
                    }
                }
            }
            if !goal.artifacts.is_empty() {
                out.push_str("ARTIFACTS:\n");
                for a in &goal.artifacts {
                    out.push_str(&format!("- {} {}\n", a.action.as_str(), a.path));
                }
            }
            if !goal.next_steps.is_empty() {
                out.push_str("NEXT STEPS:\n");
                for n in &goal.next_steps {
                    out.push_str(&format!("- {n}\n"));
                }
            }
        }
        let locked: Vec<_> = self.locked_decisions().collect();
        if !locked.is_empty() {
            out.push_str("Decided (settled, not to be reopened):\n");
            for d in locked {
                out.push_str(&format!("- {}\n", d.text));
            }
        }
        let open: Vec<_> = self.decisions.iter().filter(|d| !d.locked).collect();
        if !open.is_empty() {
            out.push_str("OTHER DECISIONS:\n");
            for d in open {
                out.push_str(&format!("- {}\n", d.text));
            }
        }
        out
    }
}

fn nonempty(s: &str) -> Result<&str, GoalError> {
    let t = s.trim();
    if t.is_empty() {
        Err(GoalError::Empty)
    } else {
        Ok(t)
    }
}
