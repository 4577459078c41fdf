//! [`GssError`]: a failed GSSAPI call with MIT's own explanation, so callers can tell the user
//! what to fix (no ticket, expired ticket, unknown server principal, missing library).

use std::fmt;

/// Routine error codes (major status bits 16..24, RFC 2744 §3.9.1).
const ROUTINE_SHIFT: u32 = 16;
const S_BAD_NAME: u32 = 2;
const S_NO_CRED: u32 = 7;
const S_CREDENTIALS_EXPIRED: u32 = 11;
const S_CONTEXT_EXPIRED: u32 = 12;
const S_FAILURE: u32 = 13;

/// krb5 error-table codes that come back as minor status (MIT's `krb5_err.et`, base
/// -1765328384).
const KRB5_ERR_BASE: i32 = -1_765_328_384;
const KRB5_TKT_EXPIRED: u32 = (KRB5_ERR_BASE + 32) as u32;
const KRB5_CC_NOTFOUND: u32 = (KRB5_ERR_BASE + 141) as u32;
const KRB5_FCC_NOFILE: u32 = (KRB5_ERR_BASE + 195) as u32;

/// What kind of failure a [`GssError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum GssErrorKind {
    /// MIT GSSAPI (`libgssapi_krb5.so.2`) could not be loaded.
    LibraryMissing,
    /// A GSSAPI call failed; see [`GssError::major`] and [`GssError::minor`].
    Status,
    /// The caller passed something unusable (a name with a NUL byte, a context not yet
    /// established).
    InvalidInput,
    /// The peer broke the SASL GSSAPI protocol (bad security-layer message, unexpected level).
    Protocol,
}

/// A GSSAPI failure: the call, the major and minor status, and the texts MIT gives for them.
#[derive(Debug, Clone)]
pub struct GssError {
    kind: GssErrorKind,
    op: &'static str,
    major: u32,
    minor: u32,
    message: String,
}

impl GssError {
    pub(crate) fn new(kind: GssErrorKind, message: impl Into<String>) -> GssError {
        GssError {
            kind,
            op: "",
            major: 0,
            minor: 0,
            message: message.into(),
        }
    }

    /// An error from a status pair and the texts `gss_display_status` gave for each.
    pub(crate) fn from_status(
        op: &'static str,
        major: u32,
        minor: u32,
        major_text: String,
        minor_text: String,
    ) -> GssError {
        let routine = (major >> ROUTINE_SHIFT) & 0xff;
        // "Unspecified GSS failure. Minor code may provide more information" adds nothing when
        // the minor text is there.
        let message = match (major_text.is_empty(), minor_text.is_empty()) {
            (_, false) if routine == S_FAILURE => minor_text,
            (false, false) => format!("{major_text}: {minor_text}"),
            (false, true) => major_text,
            (true, false) => minor_text,
            (true, true) => format!("major status {major:#x}, minor status {minor:#x}"),
        };
        GssError {
            kind: GssErrorKind::Status,
            op,
            major,
            minor,
            message,
        }
    }

    /// The same error with `detail` appended to its message (which principal, which keytab).
    pub(crate) fn with_detail(mut self, detail: &str) -> GssError {
        self.message = format!("{} ({detail})", self.message);
        self
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> GssErrorKind {
        self.kind
    }

    /// The GSSAPI major status (0 when the error did not come from a GSSAPI call).
    pub fn major(&self) -> u32 {
        self.major
    }

    /// The mechanism's minor status (a krb5 error code for Kerberos; 0 when none).
    pub fn minor(&self) -> u32 {
        self.minor
    }

    /// MIT's explanation (or ours), without the name of the call.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The GSSAPI function that failed, if the error came from one.
    pub fn operation(&self) -> Option<&'static str> {
        (!self.op.is_empty()).then_some(self.op)
    }

    fn routine(&self) -> u32 {
        (self.major >> ROUTINE_SHIFT) & 0xff
    }

    /// True when there are no usable Kerberos credentials (no ticket cache, or no ticket for
    /// the principal): the user has to `kinit` or configure a keytab.
    pub fn is_no_credentials(&self) -> bool {
        self.kind == GssErrorKind::Status
            && (self.routine() == S_NO_CRED
                || self.minor == KRB5_FCC_NOFILE
                || self.minor == KRB5_CC_NOTFOUND)
    }

    /// True when a ticket or credential has expired: the user has to `kinit` again (with a
    /// keytab MIT renews by itself, so this is rare there).
    pub fn is_expired(&self) -> bool {
        self.kind == GssErrorKind::Status
            && (matches!(self.routine(), S_CREDENTIALS_EXPIRED | S_CONTEXT_EXPIRED)
                || self.minor == KRB5_TKT_EXPIRED)
    }

    /// True when a name could not be imported.
    pub fn is_bad_name(&self) -> bool {
        self.kind == GssErrorKind::Status && self.routine() == S_BAD_NAME
    }
}

impl fmt::Display for GssError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.operation() {
            Some(op) => write!(f, "{op} failed: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for GssError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classification_follows_status_codes() {
        let no_cred = GssError::from_status(
            "gss_acquire_cred",
            S_NO_CRED << ROUTINE_SHIFT,
            KRB5_FCC_NOFILE,
            "No credentials were supplied".into(),
            "No Kerberos credentials available".into(),
        );
        assert!(no_cred.is_no_credentials() && !no_cred.is_expired());
        assert_eq!(
            no_cred.to_string(),
            "gss_acquire_cred failed: No credentials were supplied: No Kerberos credentials available"
        );
        let expired = GssError::from_status(
            "gss_init_sec_context",
            S_FAILURE << ROUTINE_SHIFT,
            KRB5_TKT_EXPIRED,
            "Unspecified GSS failure.  Minor code may provide more information".into(),
            "Ticket expired".into(),
        );
        assert!(expired.is_expired() && !expired.is_no_credentials());
        assert_eq!(expired.message(), "Ticket expired");
        let unknown = GssError::from_status(
            "gss_init_sec_context",
            S_FAILURE << ROUTINE_SHIFT,
            (KRB5_ERR_BASE + 7) as u32,
            "Unspecified GSS failure".into(),
            "Server not found in Kerberos database".into(),
        );
        assert!(!unknown.is_expired() && !unknown.is_no_credentials());
        let missing = GssError::new(GssErrorKind::LibraryMissing, "x");
        assert!(!missing.is_no_credentials() && missing.operation().is_none());
        assert_eq!(
            GssError::from_status("gss_wrap", 0x000d_0000, 5, String::new(), String::new())
                .message(),
            "major status 0xd0000, minor status 0x5"
        );
    }
}
