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

/// The numbers of the messages among `items` (dividers have none), in order.
fn message_seqs(items: &[Entry]) -> Vec<u64> {
    items.iter().filter_map(|i| i.id.map(|id| id.0)).collect()
}

/// Where something logged at `seq` goes among messages numbered `ids` (ascending): before
/// the first message logged after it.
fn slot(ids: &[u64], seq: u64) -> usize {
    ids.partition_point(|id| *id <= seq)
}

/// The notices the transcript showed, each with the index it goes before once the
/// `dividers` (by log seq) are in `items`: after the messages and dividers logged before
/// it, before those logged after — so two folds made at the same point read divider,
/// its notices, divider, its notices, as they did live. With no dividers from the log (an
/// older log: `items` already holds the live checkpoints' dividers), a notice goes after
/// the dividers where it falls.
fn past_notices(
    past: &[(u64, DateTime<Utc>, EngineEvent)],
    items: &[Entry],
    dividers: &[(u64, Entry)],
) -> Vec<PastNotice> {
    let ids = message_seqs(items);
    let mut notices = Vec::new();
    for (seq, ts, ev) in past {
        if matches!(ev, EngineEvent::CheckpointCreated { .. }) {
            continue;
        }
        if matches!(show(ev).0, Place::Nowhere) {
            continue;
        }
        let pos = if dividers.is_empty() {
            let mut pos = items
                .iter()
                .position(|i| i.id.is_some_and(|id| id.0 > *seq))
                .unwrap_or(items.len());
            while pos < items.len() && items[pos].id.is_none() {
                pos += 1;
            }
            pos
        } else {
            slot(&ids, *seq) + dividers.iter().filter(|(d, _)| d < seq).count()
        };
        notices.push((pos, *ts, Notice::Engine(ev.clone())));
    }
    notices
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
        let notices = past_notices(past, &items, &[]);
        return (items, notices);
    }
    // Every divider there was, merged ones included, where it was made; a merged one
    // names the checkpoint it ended in. A merge makes a checkpoint of its own: its
    // number is known from the live ones (where a chain of merges ends).
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
    let dividers: Vec<(u64, Entry)> = created
        .iter()
        .map(|(seq, ts, id, number, tokens, messages)| {
            let mut divider = fold(*number, *messages, *tokens, *ts);
            if merged_into.contains_key(id)
                && let EntryKind::Fold { merged_into: m, .. } = &mut divider.kind
            {
                *m = numbers.get(&last_home(*id)).copied();
            }
            (*seq, divider)
        })
        .collect();
    arrange(items, dividers, past)
}

/// The messages with the dividers from the log (by seq) among them, and the notices with
/// where they go: everything in log order, as it showed live.
fn arrange(
    mut items: Vec<Entry>,
    dividers: Vec<(u64, Entry)>,
    past: &[(u64, DateTime<Utc>, EngineEvent)],
) -> (Vec<Entry>, Vec<PastNotice>) {
    let notices = past_notices(past, &items, &dividers);
    // Inserted in log order: each after the dividers made before it.
    let ids = message_seqs(&items);
    for (n, (seq, divider)) in dividers.into_iter().enumerate() {
        items.insert(slot(&ids, seq) + n, divider);
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
    numbers: &[u32],
    into: CheckpointId,
) {
    // The merged ones are gone from the engine: the event names them (a log from before
    // it did is read with the list last published).
    let checkpoints: Vec<u32> = if numbers.is_empty() {
        out.last_checkpoints()
            .iter()
            .filter(|c| merged.contains(&c.id))
            .map(|c| c.number)
            .collect()
    } else {
        numbers.to_vec()
    };
    if let Some(cp) = engine.checkpoints().iter().find(|c| c.id == into) {
        out.send(Update::Merged {
            checkpoints,
            into: cp.number,
        });
    }
    send_folded(engine, out, into);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::message::MessageId;

    fn message(seq: u64) -> Entry {
        let mut e = Entry::new(EntryKind::User, "", Utc::now());
        e.id = Some(MessageId(seq));
        e
    }

    fn folded(count: usize, checkpoint: u32) -> EngineEvent {
        EngineEvent::UserMessagesFolded { count, checkpoint }
    }

    /// What the screen reads once the app has put the notices in (it inserts them from
    /// the last, each before the entry at its index).
    fn reading(items: Vec<Entry>, notices: Vec<PastNotice>) -> Vec<String> {
        let mut out: Vec<String> = items
            .iter()
            .map(|e| match (&e.kind, e.id) {
                (EntryKind::Fold { checkpoint, .. }, _) => format!("divider {checkpoint}"),
                (_, Some(id)) => format!("#{}", id.0),
                _ => "?".into(),
            })
            .collect();
        for (pos, _, n) in notices.into_iter().rev() {
            let Notice::Engine(EngineEvent::UserMessagesFolded { checkpoint, .. }) = n else {
                continue;
            };
            out.insert(pos.min(out.len()), format!("notice {checkpoint}"));
        }
        out
    }

    /// Two folds with no message between them (#31): each divider is followed by its own
    /// notice, checkpoint 1's above checkpoint 2's, as they showed live. (The placement
    /// before put both notices below both dividers.)
    #[test]
    fn two_folds_at_one_point_read_in_log_order() {
        let now = Utc::now();
        let items = vec![message(1), message(2), message(9)];
        let dividers = vec![(3, fold(1, 2, 40, now)), (6, fold(2, 2, 40, now))];
        let past = vec![(4, now, folded(1, 1)), (7, now, folded(1, 2))];
        let (items, notices) = arrange(items, dividers, &past);
        assert_eq!(
            reading(items, notices),
            [
                "#1",
                "#2",
                "divider 1",
                "notice 1",
                "divider 2",
                "notice 2",
                "#9"
            ]
        );
    }

    /// Folds at different points: each divider after the messages logged before it.
    #[test]
    fn folds_at_different_points_sit_after_their_messages() {
        let now = Utc::now();
        let items = vec![message(1), message(2), message(5), message(6), message(9)];
        let dividers = vec![(3, fold(1, 2, 40, now)), (7, fold(2, 2, 40, now))];
        let past = vec![(4, now, folded(1, 1)), (8, now, folded(1, 2))];
        let (items, notices) = arrange(items, dividers, &past);
        assert_eq!(
            reading(items, notices),
            [
                "#1",
                "#2",
                "divider 1",
                "notice 1",
                "#5",
                "#6",
                "divider 2",
                "notice 2",
                "#9"
            ]
        );
    }
}
