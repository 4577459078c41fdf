//! The one error type of the codec: bytes that do not decode.

/// Bytes received from the peer could not be decoded. Always a protocol violation by the peer
/// (or corruption); never a reason to panic.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// Fewer bytes than the layout requires.
    #[error("truncated {what}: need {needed} bytes, have {available}")]
    Truncated {
        /// What was being decoded.
        what: &'static str,
        /// Bytes required.
        needed: usize,
        /// Bytes available.
        available: usize,
    },
    /// The bytes are present but their content is not valid.
    #[error("invalid {what}: {detail}")]
    Invalid {
        /// What was being decoded.
        what: &'static str,
        /// Why it is invalid.
        detail: String,
    },
    /// A protobuf message failed to decode.
    #[error("malformed protobuf {what}: {source}")]
    Protobuf {
        /// Which message.
        what: &'static str,
        /// prost's description.
        #[source]
        source: prost::DecodeError,
    },
}

impl DecodeError {
    pub(crate) fn truncated(what: &'static str, needed: usize, available: usize) -> Self {
        DecodeError::Truncated {
            what,
            needed,
            available,
        }
    }

    pub(crate) fn invalid(what: &'static str, detail: impl Into<String>) -> Self {
        DecodeError::Invalid {
            what,
            detail: detail.into(),
        }
    }

    pub(crate) fn protobuf(what: &'static str, source: prost::DecodeError) -> Self {
        DecodeError::Protobuf { what, source }
    }
}
