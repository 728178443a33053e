//! SRNs, the resource names of the service: `srn:<namespace>:<service>/<type>:<uuid>`.

use std::fmt;

use crate::FieldError;
use crate::record_type::RecordType;

/// The service part of every SRN this instance writes.
pub const SERVICE: &str = "cms";

/// A parsed SRN. Any namespace and service are accepted on input, since a
/// record is found by its UUID; the type must be one of the service's
/// record types, and the one the caller expects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Srn {
    pub namespace: String,
    pub service: String,
    pub record_type: RecordType,
    pub uuid: String,
}

impl Srn {
    pub fn new(namespace: &str, record_type: RecordType, uuid: &str) -> Self {
        Self {
            namespace: namespace.to_owned(),
            service: SERVICE.to_owned(),
            record_type,
            uuid: uuid.to_owned(),
        }
    }

    /// Parses an SRN; a malformed one is a 400 naming `field`.
    pub fn parse(field: &str, raw: &str) -> Result<Self, FieldError> {
        let bad = || {
            FieldError::new(
                field,
                format!(
                    "\"{raw}\" is not an SRN of the form srn:<namespace>:<service>/<type>:<uuid>"
                ),
            )
        };
        let rest = raw.strip_prefix("srn:").ok_or_else(bad)?;
        let mut parts = rest.splitn(3, ':');
        let namespace = parts.next().ok_or_else(bad)?;
        let path = parts.next().ok_or_else(bad)?;
        let uuid = parts.next().ok_or_else(bad)?;
        let (service, record_type) = path.split_once('/').ok_or_else(bad)?;
        let valid_part = |s: &str| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        };
        if !valid_part(namespace)
            || !valid_part(service)
            || !valid_part(record_type)
            || !is_uuid(uuid)
        {
            return Err(bad());
        }
        let record_type = record_type.parse::<RecordType>().map_err(|_| {
            FieldError::new(
                field,
                format!("\"{raw}\" names a {record_type}, which is no record type of this service"),
            )
        })?;
        Ok(Self {
            namespace: namespace.to_owned(),
            service: service.to_owned(),
            record_type,
            uuid: uuid.to_owned(),
        })
    }

    /// Parses an SRN that must name a record of `record_type`.
    pub fn parse_typed(
        field: &str,
        raw: &str,
        record_type: RecordType,
    ) -> Result<Self, FieldError> {
        let srn = Self::parse(field, raw)?;
        if srn.record_type != record_type {
            return Err(FieldError::new(
                field,
                format!("\"{raw}\" names a {}, not a {record_type}", srn.record_type),
            ));
        }
        Ok(srn)
    }
}

impl fmt::Display for Srn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "srn:{}:{}/{}:{}",
            self.namespace, self.service, self.record_type, self.uuid
        )
    }
}

/// True for the textual form of a UUID (any version, any case).
pub fn is_uuid(raw: &str) -> bool {
    uuid::Uuid::try_parse(raw).is_ok() && raw.len() == 36
}

#[cfg(test)]
mod tests {
    use super::*;

    const U: &str = "0b7c2b5e-1f7e-4c1a-9a43-2f0c1c7b9f10";

    #[test]
    fn round_trips() {
        let raw = format!("srn:newsroom:cms/content:{U}");
        let srn = Srn::parse("content", &raw).expect("valid");
        assert_eq!(srn.record_type, RecordType::Content);
        assert_eq!(srn.uuid, U);
        assert_eq!(srn.to_string(), raw);
    }

    #[test]
    fn refuses_malformed() {
        for raw in [
            "",
            "srn",
            "srn:ns:cms:content:x",
            &format!("urn:ns:cms/content:{U}"),
            &format!("srn::cms/content:{U}"),
            "srn:ns:cms/content:not-a-uuid",
            &format!("srn:ns:cms/content:{U}:extra"),
            &format!("srn:n s:cms/content:{U}"),
        ] {
            assert!(Srn::parse("f", raw).is_err(), "{raw} should be refused");
        }
    }

    #[test]
    fn checks_the_type() {
        let raw = format!("srn:ns:cms/author:{U}");
        assert!(Srn::parse_typed("content", &raw, RecordType::Content).is_err());
        assert!(Srn::parse_typed("content", &raw, RecordType::Author).is_ok());
        // A type the service has none of is refused at once, naming it.
        let err = Srn::parse("srn", &format!("srn:ns:cms/gallery:{U}")).expect_err("unknown type");
        assert!(err.to_string().contains("gallery"), "{err}");
    }
}
