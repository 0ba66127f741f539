//! The binary's errors as the person reads them: one line, each cause said once.

/// The error and its causes on one line, each said once: a typed error that quotes its
/// source (`cannot open X: Permission denied`) is not followed by that source again.
pub fn error_text(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let msg = cause.to_string();
        if out.ends_with(&msg) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&msg);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ollm_tui::store::StoreError;

    #[test]
    fn an_error_quoting_its_source_is_not_followed_by_it_again() {
        let io = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let said = io.to_string();
        let e = anyhow::Error::new(StoreError::Io {
            path: "/data".into(),
            op: "open",
            source: io,
        })
        .context("cannot use the data directory /data");
        let text = error_text(&e);
        assert_eq!(text.matches(&said).count(), 1, "{text}");
        assert!(text.starts_with("cannot use the data directory /data: cannot open /data: "));
    }

    #[test]
    fn causes_that_add_something_are_kept() {
        let e = anyhow::anyhow!("disk full").context("cannot save the snapshot");
        assert_eq!(error_text(&e), "cannot save the snapshot: disk full");
    }
}
