//! Timestamps as the contract writes them: UTC `YYYY-MM-DD HH:MM:SS`.

use chrono::{NaiveDateTime, Utc};

use crate::error::{CoreError, Result};

const FORMAT: &str = "%Y-%m-%d %H:%M:%S";

/// The current time in the contract's format.
pub fn now() -> String {
    Utc::now().format(FORMAT).to_string()
}

/// The time `days` days ago, in the contract's format.
pub fn days_ago(days: i64) -> String {
    (Utc::now() - chrono::Duration::days(days))
        .format(FORMAT)
        .to_string()
}

/// A timestamp a client sent: the contract's form, or ISO 8601 with `T` and an
/// optional `Z` or offset, normalised to UTC in the contract's form.
pub fn parse_timestamp(field: &str, raw: &str) -> Result<String> {
    let raw = raw.trim();
    if let Ok(t) = NaiveDateTime::parse_from_str(raw, FORMAT) {
        return Ok(t.format(FORMAT).to_string());
    }
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(raw) {
        return Ok(t.with_timezone(&Utc).format(FORMAT).to_string());
    }
    if let Ok(t) = NaiveDateTime::parse_from_str(raw, "%Y-%m-%dT%H:%M:%S") {
        return Ok(t.format(FORMAT).to_string());
    }
    Err(CoreError::invalid_field(
        field,
        format!("\"{field}\" must be a timestamp like 2026-01-31 14:05:00"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_contract_form_and_iso() {
        assert_eq!(
            parse_timestamp("t", "2026-01-31 14:05:00").ok().as_deref(),
            Some("2026-01-31 14:05:00")
        );
        assert_eq!(
            parse_timestamp("t", "2026-01-31T14:05:00Z").ok().as_deref(),
            Some("2026-01-31 14:05:00")
        );
        assert_eq!(
            parse_timestamp("t", "2026-01-31T16:05:00+02:00")
                .ok()
                .as_deref(),
            Some("2026-01-31 14:05:00")
        );
    }

    #[test]
    fn refuses_other_text() {
        assert!(parse_timestamp("t", "yesterday").is_err());
        assert!(parse_timestamp("t", "2026-13-01 00:00:00").is_err());
    }

    #[test]
    fn now_has_the_contract_shape() {
        let n = now();
        assert_eq!(n.len(), 19);
        assert!(parse_timestamp("t", &n).is_ok());
    }
}
