//! The transcript as the actor publishes it: every message of the current branch, with a
//! fold divider where each compression happened, and which messages each checkpoint now
//! stands for (so the screen can say "in checkpoint N"). Functions of the engine's state,
//! sent through the [`Publisher`]; no state of their own.

use super::publish::Publisher;
use crate::core::checkpoint::CheckpointId;
use crate::core::engine::Engine;
use crate::core::events::EngineEvent;
use crate::view::{Entry, EntryKind, Notice, Place, Update, show};
use chrono::{DateTime, Utc};
use std::collections::HashMap;

/// A notice from the log, and the index of the entry it goes before.
type PastNotice = (usize, DateTime<Utc>, Notice);

fn fold(checkpoint: u32, messages: usize, tokens: u32, ts: DateTime<Utc>) -> Entry {
    Entry::new(
        EntryKind::Fold {
            checkpoint,
            messages,
            tokens,
            merged_into: None,
        },
        "",
        ts,
    )
}

/// The conversation as entries: every message of the current branch, with fold
/// markers; and the notices the transcript showed as it happened, by where they go
/// among those entries.
fn transcript(engine: &Engine) -> (Vec<Entry>, Vec<PastNotice>) {
    let ids = engine.conversation_ids();
    let mut items: Vec<Entry> = ids
        .iter()
        .filter_map(|id| engine.history().get(*id))
        // A reply that was only tool calls shows as its calls' lines.
        .filter(|m| !m.text.is_empty() || m.calls.is_empty() || !m.thinking.is_empty())
        .map(Entry::from_message)
        .collect();
    let past = engine.past_events();
    let created: Vec<_> = past
        .iter()
        .filter_map(|(seq, ts, ev)| match ev {
            EngineEvent::CheckpointCreated {
                id,
                number,
                tokens,
                messages,
                ..
            } => Some((*seq, *ts, *id, *number, *tokens, *messages)),
            _ => None,
        })
        .collect();
    // Where a message with a number past `seq` starts (events go before it).
    let before_later = |items: &[Entry], seq: u64| {
        items
            .iter()
            .position(|i| i.id.is_some_and(|id| id.0 > seq))
            .unwrap_or(items.len())
    };
    if created.is_empty() {
        // A log from before events were kept: a divider for each live checkpoint, as
        // it appeared live (after the messages that existed then), never before the
        // messages it covers.
        for cp in engine.checkpoints().iter().rev() {
            let Some(last) = cp.covers.last() else {
                continue;
            };
            let after_covered = items
                .iter()
                .position(|i| i.id.is_some_and(|id| id > *last))
                .unwrap_or(items.len());
            let when_made = items
                .iter()
                .position(|i| i.id.is_some() && i.ts > cp.created_at)
                .unwrap_or(items.len());
            let pos = after_covered.max(when_made);
            items.insert(
                pos,
                fold(cp.number, cp.covers.len(), cp.tokens, cp.created_at),
            );
        }
    } else {
        // Every divider there was, merged ones included, where it was made; a merged
        // one names the checkpoint it ended in.
        // A merge makes a checkpoint of its own: its number is known from the live
        // ones (where a chain of merges ends).
        let numbers: HashMap<CheckpointId, u32> = created
            .iter()
            .map(|c| (c.2, c.3))
            .chain(engine.checkpoints().iter().map(|c| (c.id, c.number)))
            .collect();
        let mut merged_into: HashMap<CheckpointId, CheckpointId> = HashMap::new();
        for (_, _, ev) in past {
            if let EngineEvent::CheckpointsMerged { merged, into, .. } = ev {
                for m in merged {
                    if m != into {
                        merged_into.insert(*m, *into);
                    }
                }
            }
        }
        let last_home = |mut id: CheckpointId| {
            let mut hops = 0;
            while let Some(next) = merged_into.get(&id) {
                id = *next;
                hops += 1;
                if hops > 10_000 {
                    break;
                }
            }
            id
        };
        for (seq, ts, id, number, tokens, messages) in created.iter().rev() {
            let pos = before_later(&items, *seq);
            let mut divider = fold(*number, *messages, *tokens, *ts);
            if merged_into.contains_key(id)
                && let EntryKind::Fold { merged_into: m, .. } = &mut divider.kind
            {
                *m = numbers.get(&last_home(*id)).copied();
            }
            items.insert(pos, divider);
        }
    }
    // The notices, placed after the dividers (a divider made by the same pass comes
    // first, as it did live).
    let mut notices = Vec::new();
    for (seq, ts, ev) in past {
        if matches!(ev, EngineEvent::CheckpointCreated { .. }) {
            continue;
        }
        if matches!(show(ev).0, Place::Nowhere) {
            continue;
        }
        let mut pos = before_later(&items, *seq);
        // After the dividers made at the same point.
        while pos < items.len() && items[pos].id.is_none() {
            pos += 1;
        }
        notices.push((pos, *ts, Notice::Engine(ev.clone())));
    }
    (items, notices)
}

/// A new checkpoint: its divider in the transcript, and the messages it stands for.
pub(super) fn checkpoint_created(engine: &Engine, out: &Publisher, ev: &EngineEvent) {
    if let EngineEvent::CheckpointCreated {
        id,
        number,
        tokens,
        messages,
        ..
    } = ev
    {
        out.send(Update::Appended(fold(
            *number,
            *messages,
            *tokens,
            Utc::now(),
        )));
        send_folded(engine, out, *id);
    }
}

/// Tell the UI which messages checkpoint `id` stands for.
pub(super) fn send_folded(engine: &Engine, out: &Publisher, id: CheckpointId) {
    if let Some(cp) = engine.checkpoints().iter().find(|c| c.id == id) {
        out.send(Update::Folded {
            checkpoint: cp.number,
            ids: cp.covers.clone(),
        });
    }
}

/// The whole transcript with the notices it showed, then which messages each
/// checkpoint covers.
pub(super) fn send_transcript(engine: &Engine, out: &Publisher) {
    let (items, notices) = transcript(engine);
    out.send(Update::Transcript(items));
    if !notices.is_empty() {
        out.send(Update::PastNotices(notices));
    }
    for cp in engine.checkpoints() {
        send_folded(engine, out, cp.id);
    }
}

/// Checkpoints were merged: their dividers name the merge, their messages its number.
pub(super) fn merged(
    engine: &Engine,
    out: &Publisher,
    merged: &[CheckpointId],
    into: CheckpointId,
) {
    // The merged ones are gone from the engine; the list last published still names
    // them.
    let checkpoints: Vec<u32> = out
        .last_checkpoints()
        .iter()
        .filter(|c| merged.contains(&c.id))
        .map(|c| c.number)
        .collect();
    if let Some(cp) = engine.checkpoints().iter().find(|c| c.id == into) {
        out.send(Update::Merged {
            checkpoints,
            into: cp.number,
        });
    }
    send_folded(engine, out, into);
}
