//! Semantic recall's pure half: the vectors of the folded sentences, the sentences nearest
//! a question's vector, and reciprocal-rank fusion of that ranking with BM25's.
//!
//! Why: BM25 finds a sentence only by the words it shares with the question; a person who
//! said "receipt" and later asks about their "expense claim" shares none. An embedding
//! model (Ollama's `/api/embed`) puts both near each other. Embedding is I/O, so the driver
//! asks for the vectors of "the sentences `RecallIndex::sentences` gives for message N"
//! once, keeps them in the session log ([`encode_vectors`]), and hands them back here; a
//! sentence is keyed by its message and its position among those sentences
//! ([`SentenceKey`]).
//!
//! The two rankings are fused by rank, not by score (BM25 scores and cosines are not on
//! one scale): each sentence gets `Σ 1 / (RRF_K + rank)` over the rankings it is in. A
//! sentence only the vectors found must be close in absolute terms ([`MIN_COSINE`]) and
//! near the best ([`COSINE_SHARE`]); `log_recall` also lets the vectors find sentences
//! of their own only for a message that asks something, so small talk recalls nothing.
//!
//! Pure and deterministic: the same vectors and question give the same order (ties go to
//! the newer sentence), so replay sends the same request.

use crate::core::message::MessageId;
use base64::Engine as _;
use std::collections::HashMap;
use std::fmt;

/// Reciprocal-rank fusion's constant: large enough that the first few ranks of either
/// list weigh about the same (the usual value from the literature).
pub const RRF_K: f64 = 60.0;
/// A sentence found only by its vector must be at least this close to the question.
/// Measured with all-minilm (ollama-real, `examples/recall_semantic.rs`) on a 26-sentence
/// team-event chat: the answers a question's vector ranked first scored 0.39–0.75 ("How
/// much was my expense claim?" → "I kept the receipt for the taxi …, 42 euros." 0.39);
/// twenty off-topic questions ("Who painted the Mona Lisa?") came within 0.19 of their
/// nearest sentence on average and 0.31 at most, but for "Is it going to rain in
/// London?" → "The weather should be warm and sunny." (0.41); the tool's README measured
/// unrelated pairs at 0.35 at most. Small talk came within 0.38 ("Thanks, that's all for
/// today!" → the model's "Thanks for the details, that helps."): it is kept out by what
/// it is (`log_recall` lets only a message that asks bring sentences by meaning), not by
/// this floor.
pub const MIN_COSINE: f32 = 0.36;
/// … and, weighted as BM25's hits are (who said it, what kind of sentence), at least this
/// share of the best: only the near-best are candidates. A share rather than a margin,
/// because the weights scale the cosines (measured: a margin of 0.12 kept only the
/// person's correction, "the dinner moved to Wednesday", and dropped where it is).
pub const COSINE_SHARE: f64 = 0.75;

/// One sentence of one message: the `sentence`-th of `RecallIndex::sentences(text)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SentenceKey {
    pub id: MessageId,
    pub sentence: u32,
}

/// What is wrong with vectors handed in or read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VectorError {
    /// Not the dimension of the vectors already held (another model's?).
    Dimension { expected: usize, found: usize },
    /// A NaN or infinity, or a vector of length zero (no direction to compare).
    NotUsable,
    /// The encoded text is not what [`encode_vectors`] writes.
    Corrupt(&'static str),
}

impl fmt::Display for VectorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VectorError::Dimension { expected, found } => {
                write!(f, "a vector of {found} dimensions among ones of {expected}")
            }
            VectorError::NotUsable => f.write_str("a vector that is not finite or is zero"),
            VectorError::Corrupt(why) => write!(f, "stored vectors are corrupt: {why}"),
        }
    }
}

impl std::error::Error for VectorError {}

/// The vectors of the folded sentences, unit length (so a cosine is a dot product), all
/// from one model: two models' vectors are not comparable even at one dimension, so
/// another model means another store (the driver embeds again, or recalls by words).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SentenceVectors {
    model: String,
    dim: usize,
    by_key: HashMap<SentenceKey, Vec<f32>>,
    /// How many sentences each message has here.
    messages: HashMap<MessageId, u32>,
}

impl SentenceVectors {
    /// An empty store for `model`'s vectors.
    pub fn new(model: &str) -> Self {
        Self {
            model: model.to_string(),
            ..Self::default()
        }
    }

    /// The model the vectors are from (as the store was made with).
    pub fn model(&self) -> &str {
        &self.model
    }

    /// Dimensions of the vectors held (0 while empty).
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Sentences held.
    pub fn len(&self) -> usize {
        self.by_key.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }

    /// Whether message `id` has its vectors here (the driver embeds the others).
    pub fn has_message(&self, id: MessageId) -> bool {
        self.messages.contains_key(&id)
    }

    /// How many of message `id`'s sentences have their vectors here.
    pub fn sentences_of(&self, id: MessageId) -> usize {
        self.messages.get(&id).map_or(0, |n| *n as usize)
    }

    /// The vectors of message `id`'s sentences, in order, replacing any it had. All must
    /// have the dimension of those already held; nothing changes on an error.
    pub fn insert_message(
        &mut self,
        id: MessageId,
        vectors: Vec<Vec<f32>>,
    ) -> Result<(), VectorError> {
        let dim = if self.by_key.is_empty() {
            vectors.first().map_or(0, Vec::len)
        } else {
            self.dim
        };
        let mut units = Vec::with_capacity(vectors.len());
        for v in vectors {
            if v.len() != dim {
                return Err(VectorError::Dimension {
                    expected: dim,
                    found: v.len(),
                });
            }
            units.push(unit(v).ok_or(VectorError::NotUsable)?);
        }
        self.remove_message(id);
        if units.is_empty() {
            return Ok(());
        }
        self.dim = dim;
        self.messages.insert(id, units.len() as u32);
        for (i, v) in units.into_iter().enumerate() {
            self.by_key.insert(
                SentenceKey {
                    id,
                    sentence: i as u32,
                },
                v,
            );
        }
        Ok(())
    }

    /// Forget message `id`'s vectors (it left the folded set).
    pub fn remove_message(&mut self, id: MessageId) {
        if let Some(n) = self.messages.remove(&id) {
            for sentence in 0..n {
                self.by_key.remove(&SentenceKey { id, sentence });
            }
        }
        if self.by_key.is_empty() {
            self.dim = 0;
        }
    }

    pub fn get(&self, key: SentenceKey) -> Option<&[f32]> {
        self.by_key.get(&key).map(Vec::as_slice)
    }

    /// The cosine of `query` with the vector of each of `keys` (`None` for a key without
    /// one); `None` when `query` is not of this dimension or has no direction.
    pub fn cosines(
        &self,
        query: &[f32],
        keys: impl IntoIterator<Item = SentenceKey>,
    ) -> Option<Vec<Option<f32>>> {
        if query.len() != self.dim || self.dim == 0 {
            return None;
        }
        let q = unit(query.to_vec())?;
        Some(
            keys.into_iter()
                .map(|k| self.by_key.get(&k).map(|v| dot(&q, v)))
                .collect(),
        )
    }

    /// Every sentence's cosine with `query`, closest first (ties to the newer sentence);
    /// empty when `query` is not of this dimension or has no direction.
    pub fn ranked(&self, query: &[f32]) -> Vec<(SentenceKey, f32)> {
        if query.len() != self.dim {
            return Vec::new();
        }
        let Some(q) = unit(query.to_vec()) else {
            return Vec::new();
        };
        let mut out: Vec<(SentenceKey, f32)> =
            self.by_key.iter().map(|(k, v)| (*k, dot(&q, v))).collect();
        out.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0)));
        out
    }
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// `v` scaled to length one; `None` when it is not finite or has no length.
fn unit(mut v: Vec<f32>) -> Option<Vec<f32>> {
    if v.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let norm = v
        .iter()
        .map(|x| f64::from(*x) * f64::from(*x))
        .sum::<f64>()
        .sqrt();
    if norm == 0.0 || !norm.is_finite() {
        return None;
    }
    for x in &mut v {
        *x = (f64::from(*x) / norm) as f32;
    }
    Some(v)
}

/// The cosine of two vectors; 0 when either has no direction or their lengths differ.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() {
        return 0.0;
    }
    let (aa, bb) = (dot(a, a), dot(b, b));
    if aa <= 0.0 || bb <= 0.0 || !aa.is_finite() || !bb.is_finite() {
        return 0.0;
    }
    dot(a, b) / (aa.sqrt() * bb.sqrt())
}

/// Reciprocal-rank fusion of `rankings` (each best first): every item scores
/// `Σ 1 / (k + rank)` over the lists it is in, ranks counted from 1. Best first; ties go
/// to the item ranked first in the earlier list.
pub fn fuse<T: Copy + Eq + std::hash::Hash>(rankings: &[&[T]], k: f64) -> Vec<(T, f64)> {
    let mut score: HashMap<T, (f64, usize)> = HashMap::new();
    let mut order = 0usize;
    for list in rankings {
        for (rank, item) in list.iter().enumerate() {
            let entry = score.entry(*item).or_insert_with(|| {
                order += 1;
                (0.0, order)
            });
            entry.0 += 1.0 / (k + rank as f64 + 1.0);
        }
    }
    let mut out: Vec<(T, f64, usize)> = score.into_iter().map(|(t, (s, o))| (t, s, o)).collect();
    out.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.2.cmp(&b.2)));
    out.into_iter().map(|(t, s, _)| (t, s)).collect()
}

/// The format byte of [`encode_vectors`]: little-endian IEEE half floats.
const FORMAT_F16: u8 = 1;

/// One message's sentence vectors as compact text for the session log: base64 of a
/// format byte, the dimension (u16, little-endian), then every component as a
/// little-endian IEEE 754 half float. A 384-dimension vector (all-minilm) takes 768 bytes,
/// 1,024 characters of base64; 768 dimensions (nomic-embed-text) twice that. Halves keep
/// about three decimal digits, which moves a cosine by less than 1e-3: recall ranks by
/// them, it does not need more.
pub fn encode_vectors(vectors: &[Vec<f32>]) -> Result<String, VectorError> {
    let dim = vectors.first().map_or(0, Vec::len);
    let dim16 =
        u16::try_from(dim).map_err(|_| VectorError::Corrupt("more than 65535 dimensions"))?;
    let mut bytes = Vec::with_capacity(3 + vectors.len() * dim * 2);
    bytes.push(FORMAT_F16);
    bytes.extend_from_slice(&dim16.to_le_bytes());
    for v in vectors {
        if v.len() != dim {
            return Err(VectorError::Dimension {
                expected: dim,
                found: v.len(),
            });
        }
        for x in v {
            if !x.is_finite() {
                return Err(VectorError::NotUsable);
            }
            bytes.extend_from_slice(&f16_bits(*x).to_le_bytes());
        }
    }
    Ok(base64::engine::general_purpose::STANDARD.encode(bytes))
}

/// What [`encode_vectors`] wrote, read back.
pub fn decode_vectors(text: &str) -> Result<Vec<Vec<f32>>, VectorError> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text.trim())
        .map_err(|_| VectorError::Corrupt("not base64"))?;
    let [format, d0, d1, data @ ..] = bytes.as_slice() else {
        return Err(VectorError::Corrupt("shorter than its header"));
    };
    if *format != FORMAT_F16 {
        return Err(VectorError::Corrupt("an unknown format"));
    }
    let dim = usize::from(u16::from_le_bytes([*d0, *d1]));
    if dim == 0 {
        return if data.is_empty() {
            Ok(Vec::new())
        } else {
            Err(VectorError::Corrupt("data without a dimension"))
        };
    }
    if data.len() % (dim * 2) != 0 {
        return Err(VectorError::Corrupt("not a whole number of vectors"));
    }
    let out: Vec<Vec<f32>> = data
        .chunks_exact(dim * 2)
        .map(|v| {
            v.chunks_exact(2)
                .map(|h| f16_value(u16::from_le_bytes([h[0], h[1]])))
                .collect()
        })
        .collect();
    if out.iter().flatten().any(|x| !x.is_finite()) {
        return Err(VectorError::NotUsable);
    }
    Ok(out)
}

/// `x` as an IEEE 754 half float, rounded to nearest, ties to even; beyond its range it
/// saturates to the largest half (vector components are small; an infinity would make
/// the vector unusable).
fn f16_bits(x: f32) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp = ((bits >> 23) & 0xff) as i32;
    let man = bits & 0x007f_ffff;
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7bff;
    }
    if e <= 0 {
        // A subnormal half (or zero): the implicit bit shifted in.
        if e < -10 {
            return sign;
        }
        let m = man | 0x0080_0000;
        let shift = (14 - e) as u32;
        let half = m >> shift;
        let rest = m & ((1 << shift) - 1);
        let midpoint = 1 << (shift - 1);
        let up = rest > midpoint || (rest == midpoint && half & 1 == 1);
        return sign | (half + u32::from(up)) as u16;
    }
    let half = ((e as u32) << 10) | (man >> 13);
    let rest = man & 0x1fff;
    let up = rest > 0x1000 || (rest == 0x1000 && half & 1 == 1);
    // A carry out of the mantissa moves to the next exponent, as it should; out of the
    // largest exponent it would be infinity: saturate instead.
    let rounded = half + u32::from(up);
    if rounded >= 0x7c00 {
        return sign | 0x7bff;
    }
    sign | rounded as u16
}

/// The value of half-float bits.
fn f16_value(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((h >> 10) & 0x1f);
    let man = f32::from(h & 0x3ff);
    match exp {
        0 => sign * man * 2f32.powi(-24),
        0x1f if man == 0.0 => sign * f32::INFINITY,
        0x1f => f32::NAN,
        _ => sign * (1.0 + man / 1024.0) * 2f32.powi(exp - 15),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(id: u64, sentence: u32) -> SentenceKey {
        SentenceKey {
            id: MessageId(id),
            sentence,
        }
    }

    #[test]
    fn halves_round_trip_within_their_precision() {
        for x in [0.0f32, 1.0, -1.0, 0.5, 0.1, -0.333, 65504.0, 6.1e-5, 3.0e-7] {
            let back = f16_value(f16_bits(x));
            assert!(
                (back - x).abs() <= x.abs() / 1024.0 + 6e-8,
                "{x} came back as {back}"
            );
        }
        assert_eq!(f16_bits(1.0), 0x3c00);
        assert_eq!(f16_bits(-2.0), 0xc000);
        assert_eq!(f16_bits(65504.0), 0x7bff);
        // Out of range saturates rather than becoming infinite.
        assert_eq!(f16_value(f16_bits(1e6)), 65504.0);
        // Ties to even: 1 + 2^-11 is halfway between 1 and the next half.
        assert_eq!(f16_bits(1.0 + 2f32.powi(-11)), 0x3c00);
        assert_eq!(f16_bits(1.0 + 3.0 * 2f32.powi(-11)), 0x3c02);
    }

    #[test]
    fn vectors_survive_the_log_and_keep_their_cosines() {
        let vectors: Vec<Vec<f32>> = (0..3)
            .map(|i| {
                (0..384)
                    .map(|j| (((i * 384 + j) as f32) * 0.618).sin() * 0.1)
                    .collect()
            })
            .collect();
        let text = encode_vectors(&vectors).unwrap_or_default();
        // Three of 384 dimensions: 3 + 3 × 768 bytes, base64.
        assert_eq!(text.len(), (3 + 3 * 768usize).div_ceil(3) * 4);
        let back = decode_vectors(&text).unwrap_or_default();
        assert_eq!(back.len(), 3);
        for (a, b) in vectors.iter().zip(&back) {
            assert_eq!(b.len(), 384);
            assert!((cosine(a, b) - 1.0).abs() < 1e-4);
        }
        let before = cosine(&vectors[0], &vectors[1]);
        let after = cosine(&back[0], &back[1]);
        assert!((before - after).abs() < 1e-3, "{before} vs {after}");
        assert_eq!(
            decode_vectors(&encode_vectors(&[]).unwrap_or_default()),
            Ok(Vec::new())
        );
    }

    #[test]
    fn broken_vectors_are_refused() {
        assert!(matches!(
            encode_vectors(&[vec![1.0, 2.0], vec![1.0]]),
            Err(VectorError::Dimension {
                expected: 2,
                found: 1
            })
        ));
        assert_eq!(
            encode_vectors(&[vec![f32::NAN]]),
            Err(VectorError::NotUsable)
        );
        assert!(matches!(
            decode_vectors("%%%"),
            Err(VectorError::Corrupt(_))
        ));
        let good = encode_vectors(&[vec![0.5, 0.5]]).unwrap_or_default();
        let mut bytes = base64::engine::general_purpose::STANDARD
            .decode(&good)
            .unwrap_or_default();
        bytes.pop();
        let cut = base64::engine::general_purpose::STANDARD.encode(&bytes);
        assert!(matches!(decode_vectors(&cut), Err(VectorError::Corrupt(_))));
        bytes.push(0);
        bytes[0] = 9;
        let other = base64::engine::general_purpose::STANDARD.encode(&bytes);
        assert!(matches!(
            decode_vectors(&other),
            Err(VectorError::Corrupt(_))
        ));
    }

    #[test]
    fn the_store_keeps_one_dimension_and_ranks_by_cosine() {
        let mut s = SentenceVectors::new("all-minilm");
        assert_eq!(s.model(), "all-minilm");
        assert_eq!(
            s.insert_message(MessageId(2), vec![vec![1.0, 0.0, 0.0], vec![0.0, 2.0, 0.0]]),
            Ok(())
        );
        assert_eq!(s.dim(), 3);
        assert!(s.has_message(MessageId(2)));
        assert_eq!(
            s.insert_message(MessageId(4), vec![vec![1.0, 1.0]]),
            Err(VectorError::Dimension {
                expected: 3,
                found: 2
            })
        );
        assert_eq!(
            s.insert_message(MessageId(4), vec![vec![0.0, 0.0, 0.0]]),
            Err(VectorError::NotUsable)
        );
        assert!(!s.has_message(MessageId(4)));
        assert_eq!(
            s.insert_message(MessageId(4), vec![vec![1.0, 1.0, 0.0]]),
            Ok(())
        );
        let ranked = s.ranked(&[3.0, 0.1, 0.0]);
        assert_eq!(
            ranked.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
            [key(2, 0), key(4, 0), key(2, 1)]
        );
        assert!((ranked[0].1 - cosine(&[3.0, 0.1, 0.0], &[1.0, 0.0, 0.0])).abs() < 1e-6);
        assert!(s.ranked(&[1.0, 0.0]).is_empty(), "another dimension");
        s.remove_message(MessageId(2));
        assert_eq!(s.len(), 1);
        s.remove_message(MessageId(4));
        assert_eq!(s.dim(), 0);
        // Empty again: another model's dimension is welcome.
        assert_eq!(s.insert_message(MessageId(6), vec![vec![1.0; 5]]), Ok(()));
    }

    #[test]
    fn fusion_rewards_agreement_and_keeps_either_lists_best() {
        let bm25 = [key(2, 0), key(4, 0), key(6, 0)];
        let vectors = [key(8, 0), key(4, 0), key(2, 1)];
        let fused = fuse(&[&bm25, &vectors], RRF_K);
        let order: Vec<SentenceKey> = fused.iter().map(|(k, _)| *k).collect();
        // In both lists: first. Then each list's own best, BM25's first on a tie.
        assert_eq!(order[0], key(4, 0));
        assert_eq!(order[1], key(2, 0));
        assert_eq!(order[2], key(8, 0));
        assert_eq!(order.len(), 5);
        let expected = 1.0 / (RRF_K + 2.0) * 2.0;
        assert!((fused[0].1 - expected).abs() < 1e-12);
        assert!(fuse::<SentenceKey>(&[&[], &[]], RRF_K).is_empty());
    }
}
