//! The first and third storage layers: what is sent to the model, and everything said.
//!
//! [`History`] holds every message, uncompressed, in id order; nothing in it can become
//! part of a request. [`ActiveContext`] is what the model sees: checkpoints and the
//! messages not folded into one (each with its cached token count, summed incrementally).
//! Only [`ActiveContext`] feeds [`crate::core::engine::ChatPrompt`], so sending history or
//! a snapshot to the model is a type error, not a runtime check.
//!
//! Invariant: every id in the active context exists in history; an id is either in the
//! active messages or covered by exactly one checkpoint, never both.

use crate::core::checkpoint::Checkpoint;
use crate::core::message::{Message, MessageId, Role};
use crate::core::record::Clip;
use crate::core::tokens::MESSAGE_OVERHEAD_TOKENS;

/// Every message of the session, in id order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct History {
    messages: Vec<Message>,
}

impl History {
    /// Append a message. Ids must increase (they are log sequence numbers).
    pub(crate) fn push(&mut self, message: Message) -> bool {
        if self.messages.last().is_some_and(|m| m.id >= message.id) {
            return false;
        }
        self.messages.push(message);
        true
    }

    fn index(&self, id: MessageId) -> Option<usize> {
        self.messages.binary_search_by_key(&id, |m| m.id).ok()
    }

    pub fn get(&self, id: MessageId) -> Option<&Message> {
        self.index(id).map(|i| &self.messages[i])
    }

    pub(crate) fn get_mut(&mut self, id: MessageId) -> Option<&mut Message> {
        self.index(id).map(|i| &mut self.messages[i])
    }

    pub fn len(&self) -> usize {
        self.messages.len()
    }

    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &Message> + ExactSizeIterator {
        self.messages.iter()
    }

    pub fn last(&self) -> Option<&Message> {
        self.messages.last()
    }

    /// The first message after `id` (in id order) said by `role`.
    pub fn next_by(&self, id: MessageId, role: crate::core::message::Role) -> Option<&Message> {
        let from = match self.messages.binary_search_by_key(&id, |m| m.id) {
            Ok(i) => i + 1,
            Err(i) => i,
        };
        self.messages[from..].iter().find(|m| m.role == role)
    }
}

/// A message of the active context, with what the engine needs to budget and protect it.
#[derive(Debug, Clone, PartialEq)]
pub struct ActiveEntry {
    pub id: MessageId,
    pub role: Role,
    /// Raw tokens as sent (after a clip, the clipped text's count).
    pub tokens: u32,
    pub pinned: bool,
    pub tool_error: bool,
    pub clip: Option<Clip>,
}

impl ActiveEntry {
    pub fn from_message(m: &Message) -> ActiveEntry {
        ActiveEntry {
            id: m.id,
            role: m.role,
            tokens: m.tokens,
            pinned: m.pinned,
            tool_error: m.is_tool_error(),
            clip: None,
        }
    }

    /// Tokens this entry costs in a request (text + template overhead).
    pub fn cost(&self) -> u32 {
        self.tokens.saturating_add(MESSAGE_OVERHEAD_TOKENS)
    }
}

/// What the model sees, apart from the system prompt and goal board.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ActiveContext {
    checkpoints: Vec<Checkpoint>,
    messages: Vec<ActiveEntry>,
    /// Σ cost() over `messages`, kept up to date on every change.
    messages_raw: u32,
}

impl ActiveContext {
    pub fn checkpoints(&self) -> &[Checkpoint] {
        &self.checkpoints
    }

    /// The active checkpoint `id`, if it is still active.
    pub fn checkpoint(&self, id: crate::core::checkpoint::CheckpointId) -> Option<&Checkpoint> {
        self.checkpoints.iter().find(|c| c.id == id)
    }

    pub fn messages(&self) -> &[ActiveEntry] {
        &self.messages
    }

    /// Raw tokens of the active messages including per-message overhead.
    pub fn messages_raw(&self) -> u32 {
        self.messages_raw
    }

    pub(crate) fn push(&mut self, entry: ActiveEntry) {
        self.messages_raw = self.messages_raw.saturating_add(entry.cost());
        self.messages.push(entry);
    }

    pub(crate) fn entry_mut(&mut self, id: MessageId) -> Option<&mut ActiveEntry> {
        // Recent messages are the ones touched: search from the back.
        self.messages.iter_mut().rev().find(|e| e.id == id)
    }

    /// Replace one entry's token count (after a clip), keeping the sum right.
    pub(crate) fn set_tokens(&mut self, id: MessageId, tokens: u32, clip: Option<Clip>) -> bool {
        let Some(e) = self.messages.iter_mut().rev().find(|e| e.id == id) else {
            return false;
        };
        self.messages_raw = self
            .messages_raw
            .saturating_sub(e.cost())
            .saturating_add(tokens.saturating_add(MESSAGE_OVERHEAD_TOKENS));
        e.tokens = tokens;
        e.clip = clip;
        true
    }

    /// Remove the given (sorted) ids from the active messages; returns how many were
    /// removed.
    pub(crate) fn remove_sorted(&mut self, ids: &[MessageId]) -> usize {
        let before = self.messages.len();
        let mut removed_raw = 0u32;
        self.messages.retain(|e| {
            let hit = ids.binary_search(&e.id).is_ok();
            if hit {
                removed_raw = removed_raw.saturating_add(e.cost());
            }
            !hit
        });
        self.messages_raw = self.messages_raw.saturating_sub(removed_raw);
        before - self.messages.len()
    }

    pub(crate) fn push_checkpoint(&mut self, cp: Checkpoint) {
        self.checkpoints.push(cp);
    }

    pub(crate) fn checkpoint_index(
        &self,
        id: crate::core::checkpoint::CheckpointId,
    ) -> Option<usize> {
        self.checkpoints.iter().position(|c| c.id == id)
    }

    pub(crate) fn checkpoints_mut(&mut self) -> &mut Vec<Checkpoint> {
        &mut self.checkpoints
    }

    pub(crate) fn reset(&mut self, checkpoints: Vec<Checkpoint>, messages: Vec<ActiveEntry>) {
        self.messages_raw = messages
            .iter()
            .fold(0u32, |acc, e| acc.saturating_add(e.cost()));
        self.checkpoints = checkpoints;
        self.messages = messages;
    }
}

/// The text of a message as the model sees it, honouring an emergency clip.
pub fn clipped_text(text: &str, clip: Option<&Clip>) -> String {
    let Some(clip) = clip else {
        return text.to_string();
    };
    let total = text.chars().count();
    if clip.head_chars + clip.tail_chars >= total {
        return text.to_string();
    }
    let head: String = text.chars().take(clip.head_chars).collect();
    let tail: String = text.chars().skip(total - clip.tail_chars).collect();
    format!(
        "{head}\n[… {} tokens cut here so the message fits the context; the full text is in the session history …]\n{tail}",
        clip.omitted_tokens
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Utc;

    fn msg(id: u64, role: Role, text: &str, tokens: u32) -> Message {
        Message {
            id: MessageId(id),
            role,
            text: text.into(),
            ts: Utc::now(),
            status: Default::default(),
            pinned: false,
            tool: None,
            calls: Vec::new(),
            thinking: String::new(),
            tokens,
            images: Vec::new(),
        }
    }

    #[test]
    fn history_keeps_ids_increasing_and_finds_them() {
        let mut h = History::default();
        assert!(h.push(msg(1, Role::User, "a", 1)));
        assert!(h.push(msg(5, Role::Assistant, "b", 1)));
        assert!(!h.push(msg(5, Role::User, "dup", 1)));
        assert!(!h.push(msg(3, Role::User, "older", 1)));
        assert_eq!(h.get(MessageId(5)).map(|m| m.text.as_str()), Some("b"));
        assert!(h.get(MessageId(3)).is_none());
        assert_eq!(h.len(), 2);
    }

    #[test]
    fn active_sum_tracks_push_remove_and_clip() {
        let mut a = ActiveContext::default();
        for (i, t) in [10u32, 20, 30].into_iter().enumerate() {
            a.push(ActiveEntry::from_message(&msg(
                i as u64 + 1,
                Role::User,
                "x",
                t,
            )));
        }
        assert_eq!(a.messages_raw(), 60 + 3 * MESSAGE_OVERHEAD_TOKENS);
        assert_eq!(a.remove_sorted(&[MessageId(1), MessageId(3)]), 2);
        assert_eq!(a.messages_raw(), 20 + MESSAGE_OVERHEAD_TOKENS);
        assert!(a.set_tokens(MessageId(2), 5, None));
        assert_eq!(a.messages_raw(), 5 + MESSAGE_OVERHEAD_TOKENS);
        assert!(!a.set_tokens(MessageId(9), 5, None));
    }

    #[test]
    fn clipped_text_keeps_head_and_tail_around_a_marker() {
        let clip = Clip {
            id: MessageId(1),
            head_chars: 3,
            tail_chars: 2,
            omitted_tokens: 7,
        };
        let t = clipped_text("abcdefghij", Some(&clip));
        assert!(t.starts_with("abc\n[… 7 tokens cut"));
        assert!(t.ends_with("\nij"));
        assert_eq!(clipped_text("abcde", Some(&clip)), "abcde");
        assert_eq!(clipped_text("日本語テキスト", None), "日本語テキスト");
    }
}
