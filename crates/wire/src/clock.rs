//! Timestamps as the contract writes them: UTC `YYYY-MM-DD HH:MM:SS`.

use chrono::{Datelike as _, NaiveDateTime, Timelike as _, Utc};

use crate::FieldError;

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
pub fn parse_timestamp(field: &str, raw: &str) -> Result<String, FieldError> {
    parse_moment(raw.trim())
        .map(|t| t.format(FORMAT).to_string())
        .ok_or_else(|| {
            FieldError::new(
                field,
                format!(
                    "\"{field}\" must be a timestamp like 2026-01-31 14:05:00, in the years 0000 to 9999"
                ),
            )
        })
}

/// A moment in any form [`parse_timestamp`] takes, in UTC, to the second.
fn parse_moment(raw: &str) -> Option<NaiveDateTime> {
    NaiveDateTime::parse_from_str(raw, FORMAT)
        .or_else(|_| NaiveDateTime::parse_from_str(raw, "%Y-%m-%dT%H:%M:%S"))
        .ok()
        .or_else(|| {
            chrono::DateTime::parse_from_rfc3339(raw)
                .ok()
                .map(|t| t.with_timezone(&Utc).naive_utc())
        })
        .map(|t| t.with_nanosecond(0).unwrap_or(t))
        .filter(|t| four_digit_year(t.year()))
}

/// Whether `year` is written with four digits: stored timestamps compare as
/// text, which a year such as `+10000` (sorting before `2026`) would break.
fn four_digit_year(year: i32) -> bool {
    (0..=9999).contains(&year)
}

/// The span a filter's bound covers: a day (`YYYY-MM-DD`, a UTC day) its
/// 24 hours, a moment in any form [`parse_timestamp`] reads (e.g.
/// `2026-11-27T00:00:00-05:00`, which a browser sends for the journalist's
/// own midnight) its second. The first moment in it and the first after
/// it, in the contract's form.
pub fn span(field: &str, raw: &str) -> Result<(String, String), FieldError> {
    let raw = raw.trim();
    // A `+` offset sent unencoded in a query string arrives as a space
    // (`2026-11-27T00:00:00 01:00`): it can be nothing else there.
    let repaired;
    let raw = match raw.split_once('T') {
        Some((day, time)) if time.contains(' ') => {
            repaired = format!("{day}T{}", time.replacen(' ', "+", 1));
            repaired.as_str()
        }
        _ => raw,
    };
    let day = chrono::NaiveDate::parse_from_str(raw, "%Y-%m-%d")
        .ok()
        .filter(|day| four_digit_year(day.year()));
    let (start, length) = match day {
        Some(day) => (
            day.and_time(chrono::NaiveTime::MIN),
            chrono::TimeDelta::days(1),
        ),
        None => {
            let start = parse_moment(raw).ok_or_else(|| {
                FieldError::new(
                    field,
                    format!(
                        "\"{field}\" is a day as YYYY-MM-DD (UTC) or a moment as \
                         2026-01-31T14:05:00-05:00 (ISO 8601 with its offset), not \"{raw}\""
                    ),
                )
            })?;
            (start, chrono::TimeDelta::seconds(1))
        }
    };
    Ok((
        start.format(FORMAT).to_string(),
        (start + length).format(FORMAT).to_string(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_span_is_a_utc_day_or_the_second_of_a_moment_with_its_offset() {
        let span = |raw: &str| span("changed_from", raw).expect(raw);
        let pair = |a: &str, b: &str| (a.to_owned(), b.to_owned());
        assert_eq!(
            span("2026-11-27"),
            pair("2026-11-27 00:00:00", "2026-11-28 00:00:00")
        );
        // New York's 27 November starts at five in the morning UTC.
        assert_eq!(
            span("2026-11-27T00:00:00-05:00"),
            pair("2026-11-27 05:00:00", "2026-11-27 05:00:01")
        );
        // A browser's toISOString: UTC, with milliseconds, cut to the second.
        assert_eq!(
            span("2026-11-28T04:59:59.999Z"),
            pair("2026-11-28 04:59:59", "2026-11-28 05:00:00")
        );
        // Paris's midnight, its `+` unencoded in a query string.
        assert_eq!(
            span("2026-11-27T00:00:00 01:00"),
            pair("2026-11-26 23:00:00", "2026-11-26 23:00:01")
        );
        assert_eq!(
            span("2026-12-31 23:59:59"),
            pair("2026-12-31 23:59:59", "2027-01-01 00:00:00")
        );
        for wrong in [
            "yesterday",
            "2026-13-01",
            "27/11/2026",
            "",
            "+10000-01-01",
            "-0001-01-01",
        ] {
            let err = super::span("changed_to", wrong).expect_err(wrong);
            assert!(
                err.to_string().contains("YYYY-MM-DD (UTC)"),
                "{wrong}: {err}"
            );
        }
    }

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
        // Years of five digits or before year 0 would not compare as text.
        for far in [
            "+10000-01-01 00:00:00",
            "+10000-01-01T00:00:00Z",
            "-0001-01-01 00:00:00",
        ] {
            let err = parse_timestamp("published_at", far).expect_err(far);
            assert!(err.to_string().contains("0000 to 9999"), "{far}: {err}");
        }
        assert!(parse_timestamp("t", "9999-12-31 23:59:59").is_ok());
    }

    #[test]
    fn now_has_the_contract_shape() {
        let n = now();
        assert_eq!(n.len(), 19);
        assert!(parse_timestamp("t", &n).is_ok());
    }
}
