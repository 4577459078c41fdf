//! The connection's receive buffer. Small frames are cut from one growing `BytesMut`; a frame of
//! [`OWN_MAPPING_FROM`] bytes or more (a scan answer near its max result size, a large Multi
//! answer) is read into an anonymous memory mapping of its own. When the last slice of that frame
//! is dropped the mapping goes back to the connection's [`MapPool`], which keeps at most
//! [`POOL_KEEPS`] of them for the next large frames and unmaps the rest.
//!
//! Why: a scan answer's rows are slices of the answer, so the answer lives until the caller has
//! consumed its last row. Freed through the allocator, such blocks stayed resident without bound:
//! glibc raises its mmap threshold past the first large block it frees, later answers come from
//! per-thread heap arenas, and freed answers stay there. Measured (issue #15, BENCHMARKS.md
//! "Memory of a long scan"): with 8 MiB answers a scan's peak RSS was up to 60 MiB above the
//! answers it held. A fresh mapping per answer fixed the memory but cost a page fault per 4 KiB
//! as the bytes arrived (+60 % client CPU per row, measured); reusing a few mappings costs neither.

use std::sync::{Arc, Mutex};

use bytes::buf::UninitSlice;
use bytes::{BufMut, Bytes, BytesMut};
use hbclient_proto::frame;
use memmap2::MmapMut;

use crate::error::{Error, Result};

/// Frames of at least this many bytes (after their length) are read into a mapping.
pub(super) const OWN_MAPPING_FROM: usize = 1024 * 1024;
/// Mappings are sized in steps of this, so answers of about the same size reuse each other's.
const MAPPING_STEP: usize = 1024 * 1024;
/// Free mappings a connection keeps: one is enough for a scan's answers to reuse each other's
/// memory at any prefetch depth (one is freed as the next arrives); the second absorbs a burst.
pub(super) const POOL_KEEPS: usize = 2;

/// The free mappings of one connection, shared with the frames that hold the others.
#[derive(Default)]
pub(super) struct MapPool {
    free: Mutex<Vec<MmapMut>>,
}

impl MapPool {
    /// A mapping for a frame of `len` bytes: a free one between `len` and twice that (a bigger one
    /// would keep more pages resident than the frame needs), else a new one.
    fn take(&self, len: usize) -> Result<MmapMut> {
        {
            let mut free = self.free.lock().expect("pool lock");
            if let Some(i) = free
                .iter()
                .position(|m| m.len() >= len && m.len() <= 2 * len)
            {
                return Ok(free.swap_remove(i));
            }
        }
        let size = len.div_ceil(MAPPING_STEP) * MAPPING_STEP;
        let map = MmapMut::map_anon(size).map_err(|e| {
            Error::connection(format!("cannot map {size} bytes for an answer: {e}"))
        })?;
        // Huge pages where the kernel has them: fewer faults the first time a mapping fills.
        // Only advice; the frame is read all the same without it.
        #[cfg(target_os = "linux")]
        let _ = map.advise(memmap2::Advice::HugePage);
        Ok(map)
    }

    /// Takes back a mapping whose frame is gone; beyond [`POOL_KEEPS`] it is unmapped.
    fn give_back(&self, map: MmapMut) {
        let mut free = self.free.lock().expect("pool lock");
        if free.len() < POOL_KEEPS {
            free.push(map);
            return;
        }
        drop(free);
        drop(map);
    }

    #[cfg(test)]
    fn free_count(&self) -> usize {
        self.free.lock().unwrap().len()
    }
}

/// A received large frame: the first `len` bytes of a pooled mapping, returned on drop.
struct PooledFrame {
    map: Option<MmapMut>,
    len: usize,
    pool: Arc<MapPool>,
}

impl AsRef<[u8]> for PooledFrame {
    fn as_ref(&self) -> &[u8] {
        &self.map.as_ref().expect("present until dropped")[..self.len]
    }
}

impl Drop for PooledFrame {
    fn drop(&mut self) {
        if let Some(map) = self.map.take() {
            self.pool.give_back(map);
        }
    }
}

/// A large frame being received into a mapping.
struct Mapped {
    map: MmapMut,
    len: usize,
    filled: usize,
}

/// Bytes read from the socket and not yet cut into frames.
pub(super) struct RecvBuf {
    small: BytesMut,
    /// Set while the bytes of a large frame arrive; `small` is empty meanwhile.
    large: Option<Mapped>,
    pool: Arc<MapPool>,
    /// Spare room made before each read of small frames.
    chunk: usize,
}

impl RecvBuf {
    pub(super) fn new(chunk: usize) -> RecvBuf {
        RecvBuf {
            small: BytesMut::with_capacity(chunk),
            large: None,
            pool: Arc::default(),
            chunk,
        }
    }

    /// Gets room for the next read: nothing to do while a frame's room is already there (its
    /// mapping, or the whole frame reserved by [`frame::take_frame`]: growing it then would
    /// double, and copy, a buffer sized for that frame).
    pub(super) fn make_room(&mut self) {
        if self.large.is_some() {
            return;
        }
        let buf = &self.small;
        if let Some(len) = announced_len(buf) {
            let whole = 4 + len;
            if whole > buf.len() && whole <= buf.capacity() {
                return;
            }
        }
        if buf.capacity() - buf.len() < self.chunk / 4 {
            self.small.reserve(self.chunk);
        }
    }

    /// The next whole frame's body, if all of it has arrived. A length above `max_len` is an
    /// error: the stream cannot be trusted after it.
    pub(super) fn next_frame(&mut self, max_len: usize) -> Result<Option<Bytes>> {
        if let Some(large) = &self.large {
            if large.filled < large.len {
                return Ok(None);
            }
            let large = self.large.take().expect("checked above");
            return Ok(Some(Bytes::from_owner(PooledFrame {
                map: Some(large.map),
                len: large.len,
                pool: self.pool.clone(),
            })));
        }
        if let Some(len) = announced_len(&self.small) {
            if len >= OWN_MAPPING_FROM && len <= max_len && self.small.len() < 4 + len {
                self.start_mapping(len)?;
                return Ok(None);
            }
        }
        Ok(frame::take_frame(&mut self.small, max_len)?)
    }

    /// Moves the started frame at the front of `small` into a mapping. A new mapping's pages are
    /// only made resident as bytes arrive, so a false length costs address space.
    fn start_mapping(&mut self, len: usize) -> Result<()> {
        let mut map = self.pool.take(len)?;
        let arrived = self.small.len() - 4;
        map[..arrived].copy_from_slice(&self.small[4..]);
        self.small.clear();
        self.large = Some(Mapped {
            map,
            len,
            filled: arrived,
        });
        Ok(())
    }
}

/// The length the frame at the front of `buf` announces, once its 4 length bytes are there.
fn announced_len(buf: &BytesMut) -> Option<usize> {
    let head: [u8; 4] = buf.get(..4)?.try_into().ok()?;
    Some(u32::from_be_bytes(head) as usize)
}

// Reads land in the large frame's mapping (never past the frame's end, so the next frame's bytes
// go to `small`), or in `small`.
unsafe impl BufMut for RecvBuf {
    fn remaining_mut(&self) -> usize {
        match &self.large {
            Some(large) => large.len - large.filled,
            None => self.small.remaining_mut(),
        }
    }

    unsafe fn advance_mut(&mut self, cnt: usize) {
        match &mut self.large {
            Some(large) => {
                assert!(cnt <= large.len - large.filled, "advance past the frame");
                large.filled += cnt;
            }
            // SAFETY: forwarded unchanged; the caller initialised `cnt` bytes of the chunk
            // `small` handed out.
            None => unsafe { self.small.advance_mut(cnt) },
        }
    }

    fn chunk_mut(&mut self) -> &mut UninitSlice {
        match &mut self.large {
            Some(large) => UninitSlice::new(&mut large.map[large.filled..large.len]),
            None => self.small.chunk_mut(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(body: &[u8]) -> Vec<u8> {
        let mut out = (body.len() as u32).to_be_bytes().to_vec();
        out.extend_from_slice(body);
        out
    }

    /// Feeds `bytes` as reads of at most `read` bytes, as a socket would, and collects frames.
    fn receive(bytes: &[u8], read: usize) -> (RecvBuf, Vec<Bytes>) {
        let mut buf = RecvBuf::new(64 * 1024);
        let mut frames = Vec::new();
        let mut rest = bytes;
        while !rest.is_empty() {
            buf.make_room();
            let n = rest.len().min(read).min(buf.chunk_mut().len());
            buf.put_slice(&rest[..n]);
            rest = &rest[n..];
            while let Some(f) = buf.next_frame(frame::DEFAULT_MAX_FRAME_LEN).unwrap() {
                frames.push(f);
            }
        }
        (buf, frames)
    }

    #[test]
    fn a_large_frame_lands_in_its_own_mapping_and_the_next_frame_after_it() {
        let big: Vec<u8> = (0..OWN_MAPPING_FROM + 4321).map(|i| i as u8).collect();
        let mut stream = framed(b"small before");
        stream.extend(framed(&big));
        stream.extend(framed(b"small after"));
        let (buf, frames) = receive(&stream, 64 * 1024);
        assert_eq!(frames.len(), 3);
        assert_eq!(&frames[0][..], b"small before");
        assert_eq!(&frames[1][..], &big[..]);
        assert_eq!(&frames[2][..], b"small after");
        assert!(buf.large.is_none() && buf.small.is_empty());
        assert!(
            buf.small.capacity() < OWN_MAPPING_FROM,
            "the small buffer never grew to the large frame"
        );
    }

    #[test]
    fn a_large_frame_split_at_every_boundary_is_received_whole() {
        let big: Vec<u8> = (0..OWN_MAPPING_FROM).map(|i| (i * 7) as u8).collect();
        let stream = framed(&big);
        for read in [1, 3, 4, 5, 4096, 1 << 20] {
            let (_, frames) = receive(&stream, read);
            assert_eq!(frames.len(), 1, "reads of {read}");
            assert_eq!(&frames[0][..], &big[..], "reads of {read}");
        }
    }

    /// A scan's answers reuse each other's mapping once the caller is done with the rows of one
    /// (no fresh pages to fault in), and the pool keeps no more than its bound.
    #[test]
    fn mappings_are_reused_and_the_pool_stays_bounded() {
        let body: Vec<u8> = vec![7; OWN_MAPPING_FROM + 10];
        let (mut buf, mut frames) = receive(&framed(&body), 64 * 1024);
        let first = frames.pop().unwrap();
        let first_at = first.as_ptr();
        drop(first);
        assert_eq!(buf.pool.free_count(), 1);
        let stream = framed(&body);
        let mut rest = &stream[..];
        let mut held = Vec::new();
        while !rest.is_empty() {
            buf.make_room();
            let n = rest.len().min(buf.chunk_mut().len());
            buf.put_slice(&rest[..n]);
            rest = &rest[n..];
            held.extend(buf.next_frame(frame::DEFAULT_MAX_FRAME_LEN).unwrap());
        }
        assert_eq!(held[0].as_ptr(), first_at, "the freed mapping was reused");
        assert_eq!(&held[0][..], &body[..]);
        // More large frames alive at once than the pool keeps, then all dropped: it keeps its
        // bound and unmaps the rest.
        let pool = buf.pool.clone();
        let extra: Vec<Bytes> = (0..4)
            .map(|_| {
                let mut b = RecvBuf {
                    pool: pool.clone(),
                    ..RecvBuf::new(1024)
                };
                b.put_slice(&framed(&body)[..8]);
                assert!(b
                    .next_frame(frame::DEFAULT_MAX_FRAME_LEN)
                    .unwrap()
                    .is_none());
                let mut rest = &framed(&body)[8..];
                while !rest.is_empty() {
                    let n = rest.len().min(b.chunk_mut().len());
                    b.put_slice(&rest[..n]);
                    rest = &rest[n..];
                }
                b.next_frame(frame::DEFAULT_MAX_FRAME_LEN).unwrap().unwrap()
            })
            .collect();
        drop(extra);
        assert_eq!(pool.free_count(), POOL_KEEPS);
    }

    /// A free mapping much larger than the frame is not used for it (it would keep the larger
    /// mapping's touched pages resident for a small answer).
    #[test]
    fn a_much_larger_free_mapping_is_left_for_larger_frames() {
        let pool = MapPool::default();
        pool.give_back(pool.take(8 * OWN_MAPPING_FROM).unwrap());
        let small = pool.take(OWN_MAPPING_FROM).unwrap();
        assert_eq!(small.len(), OWN_MAPPING_FROM);
        assert_eq!(pool.free_count(), 1);
        let big = pool.take(5 * OWN_MAPPING_FROM).unwrap();
        assert_eq!(
            big.len(),
            8 * OWN_MAPPING_FROM,
            "a free mapping up to twice the frame is reused"
        );
        assert_eq!(pool.free_count(), 0);
    }

    #[test]
    fn a_length_over_the_limit_is_an_error_not_a_mapping() {
        let mut buf = RecvBuf::new(1024);
        buf.put_slice(&(300u32 << 20).to_be_bytes());
        assert!(buf.next_frame(frame::DEFAULT_MAX_FRAME_LEN).is_err());
        assert!(buf.large.is_none());
    }

    #[test]
    fn small_frames_stay_in_the_growing_buffer() {
        let mut stream = Vec::new();
        for i in 0..100u32 {
            stream.extend(framed(&i.to_be_bytes().repeat(100)));
        }
        let (buf, frames) = receive(&stream, 1000);
        assert_eq!(frames.len(), 100);
        assert!(buf.large.is_none());
        assert_eq!(&frames[99][..4], &99u32.to_be_bytes());
    }
}
