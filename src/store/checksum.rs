//! Content checksums for snapshot files: CRC-32 (IEEE) over a canonical JSON encoding.
//!
//! Canonical means keys sorted at every level and no whitespace, so the checksum depends
//! on the data only — not on pretty-printing, on the key order serde_json happens to keep
//! (`preserve_order` is switched on by another crate in the tree), nor on how the Rust
//! types evolve: it is computed over the JSON value as stored, never over a re-serialised
//! struct. CRC-32 detects torn and bit-flipped files; it is not meant to resist tampering.

use serde_json::{Map, Value};

pub(crate) fn crc32(bytes: &[u8]) -> u32 {
    crc32fast::hash(bytes)
}

/// Append the canonical encoding of `value` to `out`.
fn canonical_json(value: &Value, out: &mut Vec<u8>) -> Result<(), serde_json::Error> {
    match value {
        Value::Object(map) => canonical_object(map, out)?,
        Value::Array(items) => {
            out.push(b'[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                canonical_json(v, out)?;
            }
            out.push(b']');
        }
        scalar => serde_json::to_writer(&mut *out, scalar)?,
    }
    Ok(())
}

fn canonical_object(map: &Map<String, Value>, out: &mut Vec<u8>) -> Result<(), serde_json::Error> {
    let mut entries: Vec<(&String, &Value)> = map.iter().collect();
    entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
    out.push(b'{');
    for (i, (k, v)) in entries.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        serde_json::to_writer(&mut *out, k)?;
        out.push(b':');
        canonical_json(v, out)?;
    }
    out.push(b'}');
    Ok(())
}

/// `crc32:xxxxxxxx` of the canonical encoding of the object `map`.
pub(crate) fn checksum_of_object(map: &Map<String, Value>) -> Result<String, serde_json::Error> {
    let mut buf = Vec::new();
    canonical_object(map, &mut buf)?;
    Ok(format!("crc32:{:08x}", crc32(&buf)))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn crc32_matches_the_standard_check_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
    }

    #[test]
    fn checksum_ignores_key_order_and_formatting_but_not_content() {
        let a: Value = serde_json::from_str(r#"{"b":[1,{"y":2,"x":"é\n"}],"a":null}"#).unwrap();
        let b: Value =
            serde_json::from_str("{\n  \"a\": null,\n  \"b\": [1, {\"x\": \"é\\n\", \"y\": 2}]\n}")
                .unwrap();
        assert_eq!(
            checksum_of_object(a.as_object().unwrap()).unwrap(),
            checksum_of_object(b.as_object().unwrap()).unwrap()
        );
        let c = json!({"a": null, "b": [1, {"x": "é\n", "y": 3}]});
        assert_ne!(
            checksum_of_object(a.as_object().unwrap()).unwrap(),
            checksum_of_object(c.as_object().unwrap()).unwrap()
        );
    }
}
