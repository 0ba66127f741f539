//! Records → state: the one place the conversation changes. Live changes commit a record
//! (next seq, applied at once, persisted by the driver); replay applies the stored ones
//! with the same function, so a replayed log rebuilds exactly the state that wrote it.

use super::Engine;
use super::input::Effect;
use crate::core::budget::RESERVE_SAMPLES;
use crate::core::checkpoint::CheckpointId;
use crate::core::context::{ActiveEntry, clipped_text};
use crate::core::ledger;
use crate::core::message::{Message, MessageId, ReplyStatus, Role, ToolInfo};
use crate::core::record::{ActiveState, Clip, Record, RecordBody};
use crate::core::reliability::parse_parameter_billions;
use crate::core::tokens::{MIN_SERVER_WINDOW, Reading};
use chrono::{DateTime, Utc};

impl Engine {
    /// Assign the next seq, apply, and ask for it to be persisted. Returns the seq.
    pub(super) fn commit(
        &mut self,
        body: RecordBody,
        now: DateTime<Utc>,
        fx: &mut Vec<Effect>,
    ) -> u64 {
        let record = Record {
            seq: self.next_seq,
            ts: now,
            body,
        };
        if let Err(issue) = self.apply_stored(&record) {
            // Commands validate before committing, so this is a bug; keep going, loudly.
            tracing::error!(seq = record.seq, %issue, "engine rejected its own record");
        }
        let seq = record.seq;
        fx.push(Effect::Persist(record));
        seq
    }

    /// Apply one stored record to the state (replay).
    pub(super) fn apply_stored(&mut self, r: &Record) -> Result<(), String> {
        let text = match &r.body {
            RecordBody::User { text, .. } | RecordBody::Assistant { text, .. } => {
                Some(text.clone())
            }
            RecordBody::Tool { result, .. } => Some(result.clone()),
            _ => None,
        };
        self.apply(r, text)
    }

    /// [`Self::apply_stored`] that moves the message text out of the record instead of
    /// copying it (replay of a long log would otherwise hold it twice).
    pub(super) fn apply_stored_owned(&mut self, mut r: Record) -> Result<(), String> {
        let text = match &mut r.body {
            RecordBody::User { text, .. } | RecordBody::Assistant { text, .. } => {
                Some(std::mem::take(text))
            }
            RecordBody::Tool { result, .. } => Some(std::mem::take(result)),
            _ => None,
        };
        self.apply(&r, text)
    }

    /// The one place state changes. `text` is the message text of a message record (which
    /// the record itself may no longer hold).
    fn apply(&mut self, r: &Record, text: Option<String>) -> Result<(), String> {
        let text = text.unwrap_or_default();
        if r.seq < self.next_seq {
            return Err(format!("out of order (expected ≥ {})", self.next_seq));
        }
        self.next_seq = r.seq + 1;
        match &r.body {
            RecordBody::User {
                pinned,
                tokens,
                images,
                ..
            } => {
                self.workspace_talk =
                    self.workspace_talk || super::offer::mentions_workspace(&text);
                // A correction replaces the folded value when said, not when folded.
                let corrects = !self.replaying
                    && !self.active.checkpoints().is_empty()
                    && !ledger::corrections_said(&text).is_empty();
                // A picture costs its share of the window while the message is active.
                let tokens = tokens.unwrap_or_else(|| self.tok.count(&text))
                    + self.count_images(MessageId(r.seq), images.len());
                self.push_message(
                    r,
                    Role::User,
                    text,
                    ReplyStatus::Complete,
                    *pinned,
                    None,
                    Some(tokens),
                );
                if !images.is_empty()
                    && let Some(m) = self.history.get_mut(MessageId(r.seq))
                {
                    m.images = images.clone();
                }
                if corrects {
                    self.rebuild_checkpoints();
                }
            }
            RecordBody::Assistant {
                status,
                model,
                prompt_eval_count,
                prompt_eval_cached,
                prompt_estimate,
                eval_count,
                tokens,
                tool_calls,
                thinking,
                ..
            } => {
                if let (Some(seen), Some(raw)) = (prompt_eval_count, prompt_estimate)
                    && !self.learn_image_cost(
                        model,
                        *raw,
                        seen.saturating_add(prompt_eval_cached.unwrap_or(0)),
                    )
                {
                    let cal = self.calibrations.entry(model.clone()).or_default();
                    let verdict = cal.observe(*raw, *seen, *prompt_eval_cached);
                    // A window below MIN_SERVER_WINDOW is not a real server's: distrust it.
                    if verdict == Reading::Truncated
                        && *model == self.settings.model
                        && *seen >= MIN_SERVER_WINDOW
                    {
                        // Bounded: a server that under-reports its count (or a count we
                        // misread) must not talk the session into a window far below the
                        // num_ctx it is sent (or the model's trained length, which Ollama
                        // cuts num_ctx to); Ollama truncates at that window itself.
                        let window = self.ctx().min(self.model_ctx.unwrap_or(u32::MAX));
                        let floor = window.saturating_mul(3) / 4;
                        let seen = (*seen).max(floor);
                        self.server_limit = Some(self.server_limit.map_or(seen, |l| l.min(seen)));
                    }
                }
                if let (ReplyStatus::Complete, Some(n)) = (status, eval_count) {
                    if self.reply_lengths.len() >= RESERVE_SAMPLES {
                        self.reply_lengths.remove(0);
                    }
                    self.reply_lengths.push(*n);
                }
                self.push_message(r, Role::Assistant, text, *status, false, None, *tokens);
                if (!tool_calls.is_empty() || !thinking.is_empty())
                    && let Some(m) = self.history.get_mut(MessageId(r.seq))
                {
                    m.calls = tool_calls.clone();
                    m.thinking = thinking.clone();
                }
            }
            RecordBody::Tool {
                name,
                args,
                is_error,
                tokens,
                call_id,
                ms,
                original,
                ..
            } => {
                self.workspace_talk = true;
                let tool = ToolInfo {
                    name: name.clone(),
                    args: args.clone(),
                    is_error: *is_error,
                    call_id: call_id.clone(),
                    ms: *ms,
                    original: original.clone(),
                };
                self.push_message(
                    r,
                    Role::Tool,
                    text,
                    ReplyStatus::Complete,
                    false,
                    Some(tool),
                    *tokens,
                );
            }
            RecordBody::Checkpoint { checkpoint } => {
                self.active.remove_sorted(&checkpoint.covers);
                self.active.push_checkpoint(checkpoint.clone());
                self.compressions += 1;
                self.note_checkpoint_id(checkpoint.id);
                self.checkpoints_changed();
            }
            RecordBody::CheckpointAged { checkpoint } => {
                let i = self
                    .active
                    .checkpoint_index(checkpoint.id)
                    .ok_or_else(|| format!("aged checkpoint {} does not exist", checkpoint.id))?;
                let cps = self.active.checkpoints_mut();
                let mut aged = checkpoint.clone();
                if aged.covers.is_empty() {
                    // Aging re-summarizes the same messages.
                    aged.covers = std::mem::take(&mut cps[i].covers);
                }
                cps[i] = aged;
                self.checkpoints_changed();
            }
            RecordBody::CheckpointSummarized {
                id,
                summary,
                tokens,
                ..
            } => {
                self.summaries.judged(!summary.is_empty());
                // The checkpoint may have been merged away since the summary was asked.
                if let Some(i) = self.active.checkpoint_index(*id) {
                    let cp = &mut self.active.checkpoints_mut()[i];
                    cp.summary_asked = true;
                    if !summary.is_empty() {
                        cp.summary = summary.clone();
                        cp.tokens = *tokens;
                    }
                    self.checkpoints_changed();
                }
            }
            RecordBody::CheckpointsMerged { merged, checkpoint } => {
                let first = merged
                    .iter()
                    .filter_map(|id| self.active.checkpoint_index(*id))
                    .min()
                    .ok_or_else(|| "merged checkpoints do not exist".to_string())?;
                let mut joined = checkpoint.clone();
                if joined.covers.is_empty() {
                    // A merge covers what its parts covered. Each part's list is sorted, so
                    // they are merged in linear time (sorting the union on every merge
                    // record was a third of the time to load a long session).
                    joined.covers = self
                        .active
                        .checkpoints()
                        .iter()
                        .filter(|c| merged.contains(&c.id))
                        .fold(Vec::new(), |acc, c| merge_sorted(&acc, &c.covers));
                }
                for part in self.active.checkpoints() {
                    if merged.contains(&part.id) && part.number != joined.number {
                        self.merged_numbers.insert(part.number, joined.number);
                    }
                }
                self.active.remove_sorted(&joined.covers);
                let cps = self.active.checkpoints_mut();
                cps.retain(|c| !merged.contains(&c.id));
                cps.insert(first.min(cps.len()), joined);
                self.note_checkpoint_id(checkpoint.id);
                self.checkpoints_changed();
            }
            RecordBody::Goal { change, author } => {
                self.goals
                    .apply(change, *author, r.ts)
                    .map_err(|e| format!("goal change refused: {e}"))?;
                self.rebuild_goals();
            }
            RecordBody::Fact { fact, edit } => self.apply_fact_edit(fact, edit),
            RecordBody::Pin { id, pinned } => {
                let m = self
                    .history
                    .get_mut(*id)
                    .ok_or_else(|| format!("pin of unknown message {id}"))?;
                m.pinned = *pinned;
                let full = m.tokens;
                // A compression planned before the pin would fold a message that must
                // now stay: it is discarded on apply.
                self.version += 1;
                let clipped = self.active.entry_mut(*id).is_some_and(|e| {
                    e.pinned = *pinned;
                    e.clip.is_some()
                });
                // A pinned message reaches the model whole: pinning lifts an emergency clip
                // (if it then cannot fit, the request is blocked with a reason).
                if *pinned && clipped {
                    self.active.set_tokens(*id, full, None);
                }
                // So does a layer-2 reduction.
                if *pinned && self.reduced.remove(id).is_some() {
                    self.active.set_tokens(*id, full, None);
                }
            }
            RecordBody::Clip { clip } => self.apply_clip(*clip)?,
            RecordBody::Watermark { at } => {
                self.apply_watermark(*at);
            }
            RecordBody::Event { event } => self.past_events.push((r.seq, r.ts, event.clone())),
            RecordBody::ResultReduced { id, text, tokens } => {
                if !self
                    .active
                    .messages()
                    .iter()
                    .any(|e| e.id == *id && e.role == Role::Tool)
                {
                    return Err(format!(
                        "reduction of {id}, which is not an active tool result"
                    ));
                }
                let tokens = tokens.unwrap_or_else(|| self.tok.count(text));
                self.apply_reduced(*id, text.clone(), tokens);
            }
            RecordBody::SentenceVectors { model, messages } => {
                self.apply_vectors(model, messages)?;
            }
            RecordBody::Snapshot { .. } => {}
            RecordBody::PictureDescribed { from, old, new } => self.describe_line(*from, old, new),
            RecordBody::Title { title } => {
                self.title = (!title.is_empty()).then(|| title.clone());
            }
            RecordBody::Restore { state, .. } => self.apply_restore(state)?,
            RecordBody::Settings { .. } => {
                let changed = self.settings.apply_settings(&r.body);
                if changed.model {
                    self.model_ctx = None;
                    self.server_ctx = None;
                    self.model_billions = parse_parameter_billions(&self.settings.model);
                }
                if changed.model || changed.ctx {
                    self.server_limit = None;
                    self.loaded_ctx = None;
                }
                if changed.model {
                    // Another model makes another number of tokens of a picture.
                    self.recount_images();
                }
                self.rebuild_system();
            }
        }
        // What the next request offers depends on what is in view (a shortened result,
        // tool calls, a fold).
        self.refresh_offer();
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn push_message(
        &mut self,
        r: &Record,
        role: Role,
        text: String,
        status: ReplyStatus,
        pinned: bool,
        tool: Option<ToolInfo>,
        tokens: Option<u32>,
    ) {
        let tokens = tokens.unwrap_or_else(|| self.tok.count(&text));
        let message = Message {
            id: MessageId(r.seq),
            role,
            text,
            ts: r.ts,
            status,
            pinned,
            tool,
            calls: Vec::new(),
            thinking: String::new(),
            tokens,
            images: Vec::new(),
        };
        let entry = ActiveEntry::from_message(&message);
        // Not a new version: a compression planned before folds older messages, which an
        // append leaves as they were (a background compression outlives the next turn).
        if self.history.push(message) {
            self.active.push(entry);
        }
    }

    fn apply_clip(&mut self, clip: Clip) -> Result<(), String> {
        let (text, pictures) = self
            .history
            .get(clip.id)
            .map(|m| (m.text.clone(), m.images.len()))
            .ok_or_else(|| format!("clip of unknown message {}", clip.id))?;
        // A clip cuts the text; the message's pictures still go with it.
        let tokens = self
            .tok
            .count(&clipped_text(&text, Some(&clip)))
            .saturating_add(self.images_counted(clip.id, pictures));
        if !self.active.set_tokens(clip.id, tokens, Some(clip)) {
            return Err(format!("clip of inactive message {}", clip.id));
        }
        // An emergency clip is made of the message itself and replaces a reduction.
        self.reduced.remove(&clip.id);
        self.version += 1;
        Ok(())
    }

    fn apply_restore(&mut self, state: &ActiveState) -> Result<(), String> {
        let mut missing = 0usize;
        let entries: Vec<ActiveEntry> = state
            .messages
            .iter()
            .filter_map(|id| {
                let e = self.history.get(*id).map(ActiveEntry::from_message);
                missing += usize::from(e.is_none());
                e
            })
            .collect();
        self.active.reset(state.checkpoints.clone(), entries);
        for cp in &state.checkpoints {
            self.note_checkpoint_id(cp.id);
            // Pinned messages are never folded, so one folded in that state was not pinned
            // then: a pin added since (on another branch) goes with the state it was on.
            for id in &cp.covers {
                if let Some(m) = self.history.get_mut(*id) {
                    m.pinned = false;
                }
            }
        }
        for clip in &state.clips {
            // A message pinned since the snapshot is shown whole, like any pinned one.
            if self.history.get(clip.id).is_some_and(|m| m.pinned) {
                continue;
            }
            // A clip of a message that no longer exists is dropped with the message.
            let _ = self.apply_clip(*clip);
        }
        self.goals = state.goals.clone();
        self.settings.mode = state.mode;
        self.compressions = state.compressions;
        self.watermark = state.watermark;
        self.reduced = state
            .reduced
            .iter()
            .map(|r| (r.id, (r.text.clone(), r.tokens)))
            .collect();
        // A message pinned since the snapshot is shown whole, like any pinned one.
        self.reduced
            .retain(|id, _| self.history.get(*id).is_some_and(|m| !m.pinned));
        for (id, (_, tokens)) in &self.reduced {
            self.active.set_tokens(*id, *tokens, None);
        }
        self.backoff = None;
        self.version += 1;
        // A snapshot is a file too: its messages are counted from their text.
        self.recount_active();
        self.rebuild_system();
        self.rebuild_goals();
        self.rebuild_checkpoints();
        if missing > 0 {
            return Err(format!(
                "{missing} message(s) of the snapshot are missing from history"
            ));
        }
        Ok(())
    }

    fn note_checkpoint_id(&mut self, id: CheckpointId) {
        self.next_checkpoint_id = self.next_checkpoint_id.max(id.0 + 1);
    }

    fn checkpoints_changed(&mut self) {
        self.version += 1;
        self.rebuild_checkpoints();
    }
}

/// The union of two sorted id lists, sorted and without duplicates.
fn merge_sorted(a: &[MessageId], b: &[MessageId]) -> Vec<MessageId> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_sorted_is_the_sorted_union() {
        let ids = |v: &[u64]| v.iter().copied().map(MessageId).collect::<Vec<_>>();
        assert_eq!(
            merge_sorted(&ids(&[1, 3, 5, 9]), &ids(&[2, 3, 4, 10, 11])),
            ids(&[1, 2, 3, 4, 5, 9, 10, 11])
        );
        assert_eq!(merge_sorted(&[], &ids(&[7])), ids(&[7]));
        assert_eq!(merge_sorted(&ids(&[7]), &[]), ids(&[7]));
    }
}
