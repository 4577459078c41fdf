//! Write coalescing: frames taken from callers queue here and leave in vectored writes (frames are
//! never copied), followed by one flush once the queue is empty (TLS and SASL layers buffer).

use std::collections::VecDeque;
use std::io::IoSlice;

use bytes::Bytes;
use tokio::io::AsyncWriteExt;

use crate::rpc::transport::WriteHalf;

/// Slices handed to one `write_vectored` call (Linux's `IOV_MAX` is 1024; 64 keeps it cheap).
const MAX_SLICES: usize = 64;

/// What one step of writing achieved.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Wrote {
    /// This many bytes left the queue.
    Bytes(usize),
    /// The queue was empty and the stream is flushed.
    Flushed,
}

/// Frames waiting to be written, in order.
#[derive(Debug, Default)]
pub(super) struct OutQueue {
    frames: VecDeque<Bytes>,
    bytes: usize,
    needs_flush: bool,
}

impl OutQueue {
    pub(super) fn push(&mut self, frame: Bytes) {
        self.bytes += frame.len();
        self.frames.push_back(frame);
    }

    /// Bytes queued and not written yet.
    pub(super) fn bytes(&self) -> usize {
        self.bytes
    }

    pub(super) fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// Something to write or to flush.
    pub(super) fn wants_write(&self) -> bool {
        !self.frames.is_empty() || self.needs_flush
    }

    /// One vectored write of the queued frames, or the flush once all are written. Cancel-safe:
    /// a write or flush that has not completed has not taken any byte.
    pub(super) async fn write_some(&mut self, writer: &mut WriteHalf) -> std::io::Result<Wrote> {
        if self.frames.is_empty() {
            writer.flush().await?;
            self.needs_flush = false;
            return Ok(Wrote::Flushed);
        }
        let mut slices = [IoSlice::new(&[]); MAX_SLICES];
        let mut n = 0;
        for (slot, frame) in slices.iter_mut().zip(self.frames.iter()) {
            *slot = IoSlice::new(frame);
            n += 1;
        }
        let written = writer.write_vectored(&slices[..n]).await?;
        if written == 0 {
            return Err(std::io::ErrorKind::WriteZero.into());
        }
        self.advance(written);
        self.needs_flush = true;
        Ok(Wrote::Bytes(written))
    }

    fn advance(&mut self, mut written: usize) {
        self.bytes -= written;
        while written > 0 {
            let Some(front) = self.frames.front_mut() else {
                break;
            };
            if written >= front.len() {
                written -= front.len();
                self.frames.pop_front();
            } else {
                let rest = front.slice(written..);
                *front = rest;
                written = 0;
            }
        }
    }

    /// Drops every queued frame (the connection failed).
    pub(super) fn clear(&mut self) {
        self.frames.clear();
        self.bytes = 0;
        self.needs_flush = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn partial_writes_keep_order_and_end_with_a_flush() {
        let (client, mut server) = tokio::io::duplex(5);
        let (_, writer) = tokio::io::split(client);
        let mut writer: WriteHalf = Box::new(writer);
        let mut q = OutQueue::default();
        q.push(Bytes::from_static(b"abc"));
        q.push(Bytes::from_static(b"defgh"));
        let reading = tokio::spawn(async move {
            let mut all = Vec::new();
            tokio::io::AsyncReadExt::read_to_end(&mut server, &mut all)
                .await
                .unwrap();
            all
        });
        let mut steps = Vec::new();
        while q.wants_write() {
            steps.push(q.write_some(&mut writer).await.unwrap());
        }
        assert_eq!(q.bytes(), 0);
        assert_eq!(steps.last(), Some(&Wrote::Flushed));
        writer.shutdown().await.unwrap();
        drop(writer);
        assert_eq!(reading.await.unwrap(), b"abcdefgh");
    }
}
