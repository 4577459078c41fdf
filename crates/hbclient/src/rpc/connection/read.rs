//! Reading answers: whole frames are cut from the receive buffer (cellblocks stay slices of it)
//! and handed to the pending call with their id.

use hbclient_proto::frame::{self, ResponseFrame, CONNECTION_CALL_ID};

use super::pending::{PendingCalls, Released};
use super::recv::RecvBuf;
use super::remote_error;
use crate::error::{Error, Result};

/// Completes every whole frame in `buf`; returns how many there were. A connection-level
/// exception (call id 0) or a malformed frame is an error that fails the connection.
pub(super) fn dispatch(buf: &mut RecvBuf, pending: &mut PendingCalls) -> Result<usize> {
    let mut answered = 0;
    // The rooms of every call answered here go back to their budgets together, when it drops.
    let mut released = Released::default();
    while let Some(body) = buf.next_frame(frame::DEFAULT_MAX_FRAME_LEN)? {
        let response = ResponseFrame::decode(body)?;
        let id = response.header.call_id.unwrap_or(CONNECTION_CALL_ID);
        if id == CONNECTION_CALL_ID {
            // A fatal answer to the connection itself (bad header, authentication required):
            // every pending call gets the server's exception, typed and flagged as it sent it.
            return Err(match response.header.exception.as_ref() {
                Some(e) => Error::remote(remote_error(e)),
                None => Error::protocol("connection-level frame without an exception"),
            });
        }
        pending.complete(id, response, &mut released);
        answered += 1;
    }
    Ok(answered)
}
