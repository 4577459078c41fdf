//! One call from the caller's side: its request encoded into a frame in the caller's task, then
//! a small hand-written future that hands the frame to the router and waits for the answer.
//!
//! A call's future lives as long as the call is in flight, once per in-flight operation, so it
//! keeps only what it needs while waiting: the connection, the answer's receiver and what the
//! error messages and the metrics name. Waiting for room to send is rare and its state large
//! (a semaphore wait and a timer), so that part is boxed, and only when a call has to wait.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use hbclient_proto::compress::Compressor;
use hbclient_proto::frame::{self, ResponseFrame};
use prost::Message;
use tokio::sync::oneshot;
use tokio::time::Instant;

use super::{compress, remote_error, request_header, CallIds, Cancel, Outgoing, RpcConnection};
use crate::error::{Error, ErrorKind, Result, Step};
use crate::rpc::tally::{self as spent, Phase};
use crate::rpc::{Cells, Head};

/// A call's request, encoded into its frame: it can go to any connection of the pool (they all
/// share the client's call ids and cellblock compressor).
pub(crate) struct Request {
    id: u32,
    method: &'static str,
    timeout: Duration,
    frame: Bytes,
}

impl Request {
    /// Encodes the request of a call: the header (`head`'s method, priority and attributes, and
    /// its timeout as the server-side deadline), `param`, and the cellblock that `cells` writes
    /// straight into the frame, compressed with `compressor`.
    pub(crate) fn encode(
        ids: &CallIds,
        compressor: Option<Compressor>,
        head: &Head<'_>,
        param: &impl Message,
        cells: Cells<'_>,
    ) -> Request {
        let Head {
            method,
            meta,
            timeout,
            ..
        } = *head;
        let id = ids.next();
        let header = request_header(id, method, meta, timeout);
        let frame = match compressor {
            Some(compressor) if cells.len > 0 => {
                let packed = compress::request_cells(compressor, cells.len, cells.write);
                frame::encode_request(header, param, &packed)
            }
            _ => frame::encode_request_with(header, param, cells.len, cells.write),
        };
        Request {
            id,
            method,
            timeout,
            frame,
        }
    }
}

/// Where a call is.
enum State {
    /// Waiting for room to send; the boxed future hands the call to the router once it has room.
    Queued {
        sending: Pin<Box<dyn Future<Output = Result<()>> + Send>>,
        answer: oneshot::Receiver<Result<ResponseFrame>>,
    },
    /// Handed to the router; the router answers it, fails it or ends it at its deadline.
    Sent(oneshot::Receiver<Result<ResponseFrame>>),
    /// Failed before it was handed over.
    Failed(Error),
    /// Finished (the output was returned).
    Done,
}

/// One call on a connection, from [`RpcConnection::send`]. Dropping it before the answer tells
/// the router (so the call's slot and its byte budget are freed at once) and closes the call's
/// metrics, so a call dropped mid-flight does not count as in flight forever.
pub(crate) struct Call {
    conn: Arc<RpcConnection>,
    id: u32,
    method: &'static str,
    /// The call's timeout, for the error that says it passed.
    timeout: Duration,
    /// When the call started (its metrics); `None` for a call that failed before it started.
    started: Option<std::time::Instant>,
    /// The router holds the call: dropping this future must cancel it.
    armed: bool,
    /// Time spent waiting for the server, added to the operation's tally when it ends.
    on_server: Option<spent::Timer>,
    span: tracing::Span,
    state: State,
}

impl RpcConnection {
    /// Starts `request` on this connection: it goes to the router at once when the connection's
    /// and the client's byte budgets have room, else once they have (waiting at most until the
    /// call's deadline, which also counts against its timeout).
    pub(crate) fn send(self: &Arc<Self>, request: Request) -> Call {
        let Request {
            id,
            method,
            timeout,
            frame,
        } = request;
        let span = tracing::trace_span!("rpc", method, server = %self.spec.addr, call_id = id);
        let mut call = Call {
            conn: self.clone(),
            id,
            method,
            timeout,
            started: None,
            armed: false,
            on_server: None,
            span,
            state: State::Done,
        };
        if let Some(e) = self.shared.failure.get() {
            call.state = State::Failed(e.clone());
            return call;
        }
        // Inside an operation, never past its deadline: then the operation needs no timer of
        // its own while it waits for this call (see `spent::watched`).
        let deadline = spent::call_deadline(Instant::now() + timeout);
        self.metrics
            .rpc_started(method, &self.spec.addr, frame.len() as u64);
        call.started = Some(std::time::Instant::now());
        let (reply, answer) = oneshot::channel();
        // Room at once in the common case; else wait for it, at most until the deadline.
        let Some(room) = self.try_room_for(frame.len()) else {
            let conn = self.clone();
            let sending = async move {
                let wait = spent::measure(Phase::Queued, conn.room_for(frame.len()));
                let room = match tokio::time::timeout_at(deadline, wait).await {
                    Ok(room) => room?,
                    Err(_) => {
                        return Err(Error::timeout(format!(
                            "{method} call {id} to {} found no room to send within {timeout:?}",
                            conn.spec.addr
                        )))
                    }
                };
                conn.hand_over(Outgoing {
                    id,
                    frame,
                    reply,
                    deadline,
                    room,
                })
            };
            call.state = State::Queued {
                sending: Box::pin(sending),
                answer,
            };
            return call;
        };
        call.state = match self.hand_over(Outgoing {
            id,
            frame,
            reply,
            deadline,
            room,
        }) {
            Ok(()) => {
                call.on_air();
                State::Sent(answer)
            }
            Err(e) => State::Failed(e),
        };
        call
    }

    /// Gives a call to the router.
    fn hand_over(&self, call: Outgoing) -> Result<()> {
        self.calls.send(call).map_err(|_| self.closed_error())
    }
}

impl Call {
    /// The router holds the call now.
    fn on_air(&mut self) {
        self.armed = true;
        spent::server(&self.conn.spec.addr);
        self.on_server = Some(spent::Timer::start(Phase::OnServer));
    }

    /// `e` naming this call's server and the step it failed at (unless a lower layer named
    /// one).
    fn failed(&self, e: Error, step: Step) -> Error {
        e.with_step(step)
            .with_context("server", self.conn.spec.addr.clone())
    }

    /// The caller's view of the router's answer.
    fn finish(
        &self,
        answer: Result<Result<ResponseFrame>, oneshot::error::RecvError>,
    ) -> Result<ResponseFrame> {
        let addr = &self.conn.spec.addr;
        let mut response = match answer {
            Ok(Ok(response)) => response,
            Ok(Err(e)) if e.kind() == ErrorKind::Timeout => {
                return Err(Error::timeout(format!(
                    "{} call {} to {addr} got no answer within {:?}",
                    self.method, self.id, self.timeout
                )))
            }
            Ok(Err(e)) => return Err(e),
            Err(_) => return Err(self.conn.closed_error()),
        };
        if let Some(compressor) = self.conn.spec.compressor {
            compress::inflate_response(compressor, &mut response)
                .map_err(|e| e.with_context("server", addr.clone()))?;
        }
        if let Some(exception) = &response.header.exception {
            return Err(Error::remote(remote_error(exception)).with_context("server", addr.clone()));
        }
        Ok(response)
    }
}

impl Future for Call {
    type Output = Result<ResponseFrame>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        // Entered through a clone (the poll below borrows all of `this`); a disabled span, the
        // usual case, is neither cloned nor entered.
        let _entered = (!this.span.is_disabled()).then(|| this.span.clone().entered());
        loop {
            match &mut this.state {
                State::Queued { sending, .. } => {
                    let sent = std::task::ready!(sending.as_mut().poll(cx));
                    let State::Queued { answer, .. } =
                        std::mem::replace(&mut this.state, State::Done)
                    else {
                        unreachable!("matched above")
                    };
                    match sent {
                        Ok(()) => {
                            this.on_air();
                            this.state = State::Sent(answer);
                        }
                        Err(e) => return Poll::Ready(Err(this.failed(e, Step::Send))),
                    }
                }
                State::Sent(answer) => {
                    let Poll::Ready(answer) = Pin::new(answer).poll(cx) else {
                        // The router ends the call by its deadline: no timer needed above us.
                        spent::mark_watched();
                        return Poll::Pending;
                    };
                    // Answered, failed or timed out: the router no longer holds the call.
                    this.armed = false;
                    this.on_server = None;
                    this.state = State::Done;
                    let answer = this.finish(answer);
                    return Poll::Ready(answer.map_err(|e| this.failed(e, Step::Wait)));
                }
                State::Failed(_) => {
                    let State::Failed(e) = std::mem::replace(&mut this.state, State::Done) else {
                        unreachable!("matched above")
                    };
                    return Poll::Ready(Err(this.failed(e, Step::Send)));
                }
                State::Done => panic!("rpc call polled after it finished"),
            }
        }
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        if let Some(started) = self.started {
            let addr = &self.conn.spec.addr;
            self.conn
                .metrics
                .rpc_finished(self.method, addr, started.elapsed());
        }
        if self.armed {
            let _ = self.conn.cancels.send(Cancel { id: self.id });
        }
    }
}
