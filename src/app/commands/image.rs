//! `/image PATH | clear`: a picture attached to the next message (#39), or every one
//! removed. A path may be quoted (`/image "my shot.png"`) and start with `~/`.

use super::Intent;

pub const USAGE: &str = "/image PATH | clear";

pub(super) fn parse(_typed: &str, arg: &str) -> Result<Intent, String> {
    let t = arg.trim();
    if t.is_empty() {
        return Err(format!("usage: {USAGE}"));
    }
    if t == "clear" {
        return Ok(Intent::ClearImages);
    }
    let path = match (t.chars().next(), t.chars().last()) {
        (Some(a @ ('"' | '\'')), Some(b)) if a == b && t.len() >= 2 => &t[1..t.len() - 1],
        _ => t,
    };
    Ok(Intent::AttachImage(path.to_string()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_path_a_quoted_path_and_clear() {
        assert!(
            matches!(parse("image", " ./shot.png "), Ok(Intent::AttachImage(p)) if p == "./shot.png")
        );
        assert!(
            matches!(parse("image", "\"my shot.png\""), Ok(Intent::AttachImage(p)) if p == "my shot.png")
        );
        assert!(matches!(parse("image", "clear"), Ok(Intent::ClearImages)));
        assert!(parse("image", "  ").is_err());
    }
}
